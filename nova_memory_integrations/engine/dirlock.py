"""One data directory, one owning process: an exclusive lock held while a store is open.

An embedded store (SQLite + an embedded Chroma + a background indexer) must not be opened
by two processes at once: their indexers and Chroma clients would write the same files.
The first process takes an exclusive POSIX record lock on ``<data dir>/.nova-memory.lock``
(``fcntl.lockf``); a second process gets a :class:`~nova_memory_integrations.errors.StorageError`
naming the owner's pid and the server (``nova-memory serve``) as the way to share one
memory between processes. Record locks belong to the process, so stores opened twice in
one process (tests, notebooks) do not block each other; the lock is released when the
store closes or the process ends, so a crash never leaves a stale lock. Where ``fcntl`` is
missing (Windows) no lock is taken.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ..errors import StorageError

__all__ = ["LOCK_FILENAME", "DataDirLock"]

LOCK_FILENAME = ".nova-memory.lock"

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


_HELD: dict[Path, list[int]] = {}
"""Locks this process holds: path -> [fd, number of open stores]. POSIX record locks belong to
the process and one ``close`` of any descriptor of the file drops them, so stores opened twice
in one process share one descriptor and the last one to close releases it."""
_GUARD = threading.Lock()


def _after_fork_in_child() -> None:
    """A forked child holds none of its parent's record locks: it must take a directory's lock
    itself (and be refused while the parent owns it), not believe it inherited the ownership."""
    global _GUARD
    _GUARD = threading.Lock()
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class DataDirLock:
    """The exclusive lock of one data directory (taken on construction).

    Raises:
        StorageError: another process holds the directory.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.path = (Path(root) / LOCK_FILENAME).resolve()
        self._held = False
        if fcntl is None:  # pragma: no cover - Windows
            return
        with _GUARD:
            held = _HELD.get(self.path)
            if held is not None:  # this process already owns it
                held[1] += 1
                self._held = True
                return
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:  # a read-only data directory: nothing can be written, nothing to guard
                return
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise StorageError(
                    f"{Path(root)} is in use by another process (pid {owner}): an embedded store has one owner. "
                    f"To share one memory between processes, run `nova-memory serve --path {Path(root)}` and use "
                    "its REST API, MCP tools or OpenAI-compatible proxy"
                ) from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
            _HELD[self.path] = [fd, 1]
            self._held = True

    def release(self) -> None:
        """Release this store's hold (idempotent); the last one in the process unlocks."""
        with _GUARD:
            if not self._held:
                return
            self._held = False
            held = _HELD.get(self.path)
            if held is None:
                return
            held[1] -= 1
            if held[1] > 0:
                return
            del _HELD[self.path]
            try:
                fcntl.lockf(held[0], fcntl.LOCK_UN)
            finally:
                os.close(held[0])
