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
import math
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .._threads import BackgroundWorker  # a stdlib-only leaf: no upward import

__all__ = ["CHECKPOINT_DELAY_S", "WAL_FALLBACK_PAGES", "WalCheckpointer"]

logger = logging.getLogger("nova_memory_integrations.storage")

CHECKPOINT_DELAY_S = 0.25
"""How long after a commit the checkpoint waits, so a burst of commits shares one."""
WAL_FALLBACK_PAGES = 8_000
"""``wal_autocheckpoint`` of the store's connection: the commit that takes the log past this
many pages (32 MB at 4 KB pages) checkpoints by itself, as SQLite does at 1,000 by default."""


class WalCheckpointer:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` on its own thread (a :class:`BackgroundWorker`
    poked by commits) and its own connection.

    ``poke()`` after each commit (it starts the thread on first use, and again in a forked
    child); ``paused()`` keeps checkpoints out of a block (the scrub's ``TRUNCATE``);
    ``stop()`` ends the thread and closes its connection (no final checkpoint: closing the
    store's connection makes one).
    """

    def __init__(self, path: Path, *, busy_timeout_s: float, delay_s: float = CHECKPOINT_DELAY_S) -> None:
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        self.runs = 0
        self._worker = BackgroundWorker(self._checkpoint, interval=math.inf, debounce=delay_s, name="checkpoint",
                                        final_pass=False)
        self._stopped = False
        self._conn: sqlite3.Connection | None = None
        self._busy = threading.Lock()  # held during a checkpoint

    def poke(self) -> None:
        """Note a commit: a checkpoint follows within the delay (cheap; never blocks)."""
        if not self._stopped:
            self._worker.start()  # idempotent; restarts a thread a fork left behind
            self._worker.poke()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No checkpoint of this thread runs inside the block (one already running is waited for)."""
        with self._busy:
            yield

    def stop(self, timeout: float = 10.0) -> None:
        """End the thread and close its connection (idempotent); later pokes are ignored."""
        self._stopped = True
        self._worker.stop(timeout)
        with self._busy:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _checkpoint(self) -> None:
        try:
            with self._busy:
                if self._conn is None:
                    # read-write, never create: a store whose file is gone gets no new one
                    self._conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=rw", uri=True,
                                                 timeout=self.busy_timeout_s, isolation_level=None,
                                                 check_same_thread=False)  # closed by stop()
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self.runs += 1
        except sqlite3.Error as exc:  # the commit-time fallback still bounds the log
            logger.debug("nova-memory: background WAL checkpoint of %s failed: %s", self.path, exc)
