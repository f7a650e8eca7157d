"""A forked child and the stores its parent had open (issue #42, item 8).

The child's copies of a parent's open store are closed: their SQLite connection, Chroma
client (whose runtime threads a fork does not copy: a call hangs) and worker threads belong
to the parent. Using one says so at once; opening the parent's directory again is refused
(the parent owns it); a store of the child's own works, and the parent carries on.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from nova_memory_integrations import NovaStore, StorageError, StoreClosedError

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")


def _in_child(body: object) -> int:
    """Fork; the child runs ``body()`` (its return value is the exit code); the parent waits (bounded)."""
    pid = os.fork()
    if pid == 0:
        code = 99
        try:
            code = body()  # type: ignore[operator]
        finally:
            sys.stdout.flush()
            os._exit(code)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, 9)
    os.waitpid(pid, 0)
    pytest.fail("the forked child hung")


def test_a_forked_child_does_not_use_or_inherit_the_parents_store(tmp_path: Path) -> None:
    store = NovaStore(tmp_path / "parent")
    for n in range(40):  # a backlog: the indexer is busy when the process forks
        store.add_turn("u", "user", f"I love sailing in Greece, trip number {n}.")

    def child() -> int:
        if not store.closed:
            return 2
        try:
            store.add_turn("u", "user", "written by the child")
            return 3
        except StoreClosedError as exc:
            if "before it forked" not in str(exc):
                return 4
        try:
            NovaStore(tmp_path / "parent")
            return 5
        except StorageError as exc:
            if "in use by another process" not in str(exc):
                return 6
        with NovaStore(tmp_path / "child") as own:
            own.add_turn("u", "user", "I love sailing in Greece.")
            own.flush(timeout=60)
            return 0 if "Greece" in own.context("sailing", "u").text else 7

    try:
        assert _in_child(child) == 0
        assert store.flush(timeout=60) is True
        assert "Greece" in store.context("sailing", "u").text
        assert not any("child" in e.content for e in store.episodes("u"))
    finally:
        store.close()
