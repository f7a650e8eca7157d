"""One data directory, one owning process (engine/dirlock.py): a second process gets a clear
error naming the server; the same process may open it twice; closing releases it; the lock is
on the directory itself, so deleting the lock file frees nothing; no lock, no store."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.engine import dirlock
from nova_memory_integrations.engine.dirlock import LOCK_FILENAME
from nova_memory_integrations.errors import StorageError

OPEN_IN_CHILD = (
    "import sys\n"
    "from nova_memory_integrations import NovaStore\n"
    "from nova_memory_integrations.errors import StorageError\n"
    "try:\n"
    "    NovaStore(sys.argv[1]).close()\n"
    "except StorageError as exc:\n"
    "    print('REFUSED', exc)\n"
    "else:\n"
    "    print('OPENED')\n"
)


def _open_in_child(path: Path) -> str:
    out = subprocess.run([sys.executable, "-c", OPEN_IN_CHILD, str(path)], capture_output=True, text=True,
                         timeout=300, check=True)
    return out.stdout.strip()


def test_a_second_process_is_refused_and_told_about_the_server(tmp_path: Path, minilm_onnx: Any) -> None:
    store = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    try:
        answer = _open_in_child(tmp_path / "mem")
    finally:
        store.close()
    assert (answer.startswith("REFUSED"), "nova-memory serve" in answer) == (True, True)


def test_closing_releases_the_directory(tmp_path: Path, minilm_onnx: Any) -> None:
    NovaStore(tmp_path / "mem", embeddings=minilm_onnx).close()
    assert _open_in_child(tmp_path / "mem") == "OPENED"


def test_one_process_may_open_it_twice_and_the_last_close_releases(tmp_path: Path, minilm_onnx: Any) -> None:
    first = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    second = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    second.close()
    still_held = _open_in_child(tmp_path / "mem")
    first.close()
    assert (still_held.startswith("REFUSED"), _open_in_child(tmp_path / "mem")) == (True, "OPENED")


def test_deleting_the_lock_file_does_not_free_the_directory(tmp_path: Path, minilm_onnx: Any) -> None:
    store = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    try:
        (tmp_path / "mem" / LOCK_FILENAME).unlink()
        answer = _open_in_child(tmp_path / "mem")
    finally:
        store.close()
    assert answer.startswith("REFUSED")


def test_a_lock_file_that_cannot_be_opened_still_leaves_the_directory_locked(tmp_path: Path,
                                                                             minilm_onnx: Any) -> None:
    (tmp_path / "mem" / LOCK_FILENAME).mkdir(parents=True)  # the name is taken: no lock file can be opened
    store = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    try:
        answer = _open_in_child(tmp_path / "mem")
    finally:
        store.close()
    assert answer.startswith("REFUSED")


def test_no_store_opens_when_no_lock_can_be_taken(tmp_path: Path, minilm_onnx: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def no_locks(*args: object) -> None:  # a file system without flock (some network mounts)
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))

    monkeypatch.setattr(dirlock.fcntl, "flock", no_locks)
    monkeypatch.setattr(dirlock.fcntl, "lockf", no_locks)
    with pytest.raises(StorageError, match="cannot lock"):
        NovaStore(tmp_path / "mem", embeddings=minilm_onnx)


def test_a_forked_child_does_not_inherit_the_hold(tmp_path: Path, minilm_onnx: Any) -> None:
    store = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    try:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: the parent's hold must not count as its own
            try:
                dirlock.DataDirLock(tmp_path / "mem").release()
                os.write(write, b"OPENED")
            except StorageError:
                os.write(write, b"REFUSED")
            finally:
                os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        answer = os.read(read, 16).decode()
        os.close(read)
    finally:
        store.close()
    assert answer == "REFUSED"


OPEN_IN_CHILD_ON_NFS = (
    "import errno, os, sys\n"
    "from nova_memory_integrations.engine import dirlock\n"
    "from nova_memory_integrations.errors import StorageError\n"
    "def nfs(fd, op):\n"
    "    raise OSError(errno.EBADF, os.strerror(errno.EBADF))\n"
    "dirlock.fcntl.flock = nfs\n"
    "try:\n"
    "    dirlock.DataDirLock(sys.argv[1]).release()\n"
    "except StorageError as exc:\n"
    "    print('REFUSED', exc)\n"
    "else:\n"
    "    print('OPENED')\n"
)


def test_where_the_directory_cannot_be_locked_nfs_a_lock_file_is(tmp_path: Path, minilm_onnx: Any,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def nfs(fd: int, op: int) -> None:  # NFS: flock is emulated with record locks, a read-only fd cannot take one
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    monkeypatch.setattr(dirlock.fcntl, "flock", nfs)
    store = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)

    def child() -> str:
        out = subprocess.run([sys.executable, "-c", OPEN_IN_CHILD_ON_NFS, str(tmp_path / "mem")], capture_output=True,
                             text=True, timeout=300, check=True)
        return out.stdout.strip()

    try:
        held = child()
        assert (tmp_path / "mem" / LOCK_FILENAME).read_text() == str(os.getpid())
    finally:
        store.close()
    assert (held.startswith("REFUSED"), f"pid {os.getpid()}" in held, child()) == (True, True, "OPENED")
