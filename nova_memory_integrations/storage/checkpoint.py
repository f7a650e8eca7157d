"""WAL checkpoints on a thread of their own, so that no request pays for one.

SQLite checkpoints its write-ahead log inside the commit that takes the log past
``wal_autocheckpoint`` pages (1,000 by default): that commit copies the log into the
database and syncs both files, 20 ms and more on a shared disk. A recall writes the access
counts of what it returns, so about one ``context()`` in thirty paid it. The store's
connection now leaves checkpoints to :class:`WalCheckpointer`, which runs a ``PASSIVE``
checkpoint (it never blocks readers or writers) on its own connection shortly after
commits, and keeps SQLite's own checkpoint only as a bound (:data:`WAL_FALLBACK_PAGES`)
should this thread fall behind or be gone (a forked child).
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["CHECKPOINT_DELAY_S", "WAL_FALLBACK_PAGES", "WalCheckpointer"]

logger = logging.getLogger("nova_memory_integrations.storage")

CHECKPOINT_DELAY_S = 0.25
"""How long after a commit the checkpoint waits, so a burst of commits shares one."""
WAL_FALLBACK_PAGES = 8_000
"""``wal_autocheckpoint`` of the store's connection: the commit that takes the log past this
many pages (32 MB at 4 KB pages) checkpoints by itself, as SQLite does at 1,000 by default."""


class WalCheckpointer:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` on its own thread and connection after commits.

    ``poke()`` after each commit (it starts the thread on first use, and again in a forked
    child); ``paused()`` keeps checkpoints out of a block (the scrub's ``TRUNCATE``);
    ``stop()`` ends the thread and closes its connection (no final checkpoint: closing the
    store's connection makes one).
    """

    def __init__(self, path: Path, *, busy_timeout_s: float, delay_s: float = CHECKPOINT_DELAY_S) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        self.delay_s = delay_s
        self.runs = 0
        self._cond = threading.Condition()
        self._dirty = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._busy = threading.Lock()  # held during a checkpoint

    def poke(self) -> None:
        """Note a commit: a checkpoint follows within :attr:`delay_s` (cheap; never blocks)."""
        with self._cond:
            if self._stopping:
                return
            self._dirty = True
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="nova-memory-checkpoint", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No checkpoint of this thread runs inside the block (one already running is waited for)."""
        with self._busy:
            yield

    def stop(self, timeout: float = 10.0) -> None:
        """End the thread (idempotent); later pokes are ignored."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=timeout)

    def _wait_for_work(self) -> bool:
        """Block until a commit was noted and :attr:`delay_s` has passed; False when stopping."""
        with self._cond:
            while not self._dirty and not self._stopping:
                self._cond.wait()
            if not self._stopping:
                self._cond.wait_for(lambda: self._stopping, timeout=self.delay_s)
            self._dirty = False
            return not self._stopping

    def _loop(self) -> None:
        conn: sqlite3.Connection | None = None
        try:
            while self._wait_for_work():
                try:
                    with self._busy:
                        if conn is None:
                            # read-write, never create: a store whose file is gone gets no new one
                            conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=rw", uri=True,
                                                   timeout=self.busy_timeout_s, isolation_level=None)
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    self.runs += 1
                except sqlite3.Error as exc:  # the commit-time fallback still bounds the log
                    logger.debug("nova-memory: background WAL checkpoint of %s failed: %s", self.path, exc)
        finally:
            if conn is not None:
                conn.close()
