"""One data directory, one owning process: an exclusive lock held while a store is open.

An embedded store (SQLite + an embedded Chroma + a background indexer) must not be opened
by two processes at once: their indexers and Chroma clients would write the same files.
The first process takes an exclusive ``flock`` on **the data directory itself** (a
descriptor of the directory, opened read-only, held while the store is open); a second
process gets a :class:`~nova_memory_integrations.errors.StorageError` naming the owner's
pid and the server (``nova-memory serve``) as the way to share one memory between
processes.

The directory is what the lock is on, not a file in it: deleting or replacing a lock file
(``.nova-memory.lock``, which only carries the owner's pid for that message) frees nothing,
and a directory whose files cannot be written is locked all the same. On NFS, where
``flock`` is emulated with record locks that a read-only descriptor cannot take, the lock
falls back to a record lock on ``.nova-memory.lock`` (every process on that mount takes the
same kind; deleting that file would again free the directory there). When no lock can be
taken at all, opening the store fails: it never runs unguarded.

``flock`` locks belong to an open descriptor, so stores opened twice in one process
(tests, notebooks) share one descriptor and do not block each other; the last one to
close releases it. A forked child does not inherit the hold: it must take its own lock
(and is refused while the parent holds it). The kernel drops the lock when the process
ends, so a crash never leaves a stale lock. Where ``fcntl`` is missing (Windows) no lock
is taken, as before.
"""

from __future__ import annotations

import errno
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


_HELD: dict[tuple[int, int], list[int]] = {}
"""Locks this process holds: (device, inode) of the directory -> [fd, number of open stores]."""
_GUARD = threading.Lock()


def _forget_after_fork() -> None:
    """In a forked child: the parent's holds are not the child's (its copies of the descriptors
    are closed; the parent's lock stays, held by the parent's own descriptor)."""
    global _GUARD
    _GUARD = threading.Lock()  # another thread of the parent may have held it at the fork
    for fd, _ in _HELD.values():
        try:
            os.close(fd)
        except OSError:
            pass
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _in_use(root: Path) -> StorageError:
    try:
        owner = (root / LOCK_FILENAME).read_text(encoding="ascii", errors="replace").strip()[:32] or "unknown"
    except OSError:
        owner = "unknown"
    return StorageError(
        f"{root} is in use by another process (pid {owner}): an embedded store has one owner. "
        f"To share one memory between processes, run `nova-memory serve --path {root}` and use "
        "its REST API, MCP tools or OpenAI-compatible proxy"
    )


def _note_owner(root: Path) -> None:
    """Best effort: the owner's pid in ``.nova-memory.lock``, for the message a second process gets."""
    try:
        fd = os.open(root / LOCK_FILENAME, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return  # a read-only directory, or the name is taken by something else: the lock does not need it
    try:
        os.write(fd, str(os.getpid()).encode())
    except OSError:
        pass
    finally:
        os.close(fd)


def _cannot_lock(root: Path, exc: OSError) -> StorageError:
    return StorageError(f"cannot lock the data directory {root} ({exc.strerror or exc}): a store is never opened "
                        "without its lock (a file system without any file locking cannot hold a data directory)")


def _lock_file(root: Path) -> int:
    """Where the directory itself cannot be locked (NFS): a record lock on ``.nova-memory.lock``,
    checked to still be the file at that name once locked. The descriptor, holding the lock."""
    path = root / LOCK_FILENAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError as exc:
        raise _cannot_lock(root, exc) from None
    try:
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise _in_use(root) from None
            raise _cannot_lock(root, exc) from None
        if os.stat(path, follow_symlinks=False).st_ino != os.fstat(fd).st_ino:  # replaced before we locked it
            raise _in_use(root)
        os.ftruncate(fd, 0)  # the pid through the locked descriptor: closing another one would drop the lock
        os.pwrite(fd, str(os.getpid()).encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


class DataDirLock:
    """The exclusive lock of one data directory (taken on construction).

    Raises:
        StorageError: another process holds the directory, or it cannot be locked.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root).resolve()
        self.path = self.root / LOCK_FILENAME
        self._key: tuple[int, int] | None = None
        if fcntl is None:  # pragma: no cover - Windows
            return
        with _GUARD:
            try:
                fd = os.open(self.root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
            except OSError as exc:
                raise StorageError(f"cannot open the data directory {self.root} to lock it ({exc.strerror})") \
                    from None
            try:
                stat = os.fstat(fd)
                key = (stat.st_dev, stat.st_ino)
                held = _HELD.get(key)
                if held is not None:  # this process already owns it
                    os.close(fd)
                    held[1] += 1
                    self._key = key
                    return
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as exc:
                    if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                        raise _in_use(self.root) from None
                    if exc.errno != errno.EBADF:
                        raise _cannot_lock(self.root, exc) from None
                    # NFS emulates flock with record locks, which need a descriptor open for writing
                    os.close(fd)
                    fd = -1
                    fd = _lock_file(self.root)
                else:
                    _note_owner(self.root)
            except BaseException:
                if fd >= 0:
                    os.close(fd)
                raise
            _HELD[key] = [fd, 1]
            self._key = key

    def release(self) -> None:
        """Release this store's hold (idempotent); the last one in the process unlocks."""
        with _GUARD:
            key, self._key = self._key, None
            if key is None:
                return
            held = _HELD.get(key)
            if held is None:
                return
            held[1] -= 1
            if held[1] > 0:
                return
            del _HELD[key]
            os.close(held[0])  # drops the flock (the only descriptor of that open directory)
