"""Recall in a forked child (a pre-fork server, a task queue's workers): the keyword search
runs on a thread pool beside the query embedding, and the child's copy of the parent's pool
has no threads; the child must make its own instead of waiting forever."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from nova_memory_integrations import NovaStore


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_recalls(tmp_path: Path) -> None:
    with NovaStore(tmp_path / "parent") as store:  # the parent's pool now has threads
        store.add_turn("u", "user", "I love sailing in Greece.")
        store.flush()
        store.context("sailing", "u")
    pid = os.fork()
    if pid == 0:  # the child: exit code 0 only when its recall found the turn
        code = 1
        try:
            with NovaStore(tmp_path / "child") as child:
                child.add_turn("u", "user", "I love sailing in Greece.")
                child.flush()
                code = 0 if "Greece" in child.context("sailing", "u").text else 3
        finally:
            sys.stdout.flush()
            os._exit(code)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's recall hung")
    assert os.waitstatus_to_exitcode(status) == 0
