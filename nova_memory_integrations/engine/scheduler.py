"""Background jobs: one worker thread per job and store, with an interval and a debounce.

The store runs two: consolidation (poked by new turns, debounced) and the lifecycle
(``lifecycle.schedule_interval_s``, never poked, no final pass at close; its job checks
:attr:`BackgroundWorker.stopping` between batches so ``close`` does not wait for a pass).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable

__all__ = ["BackgroundWorker"]

logger = logging.getLogger(__name__)


class BackgroundWorker:
    """Calls ``job()`` after new work settles (debounce) or every ``interval`` seconds.

    ``poke()`` signals new work; ``stop()`` runs a last pass (unless ``final_pass`` is
    false) and joins the thread. Exceptions of ``job`` are logged and never kill the worker.

    Args:
        job: the work of one pass.
        interval: seconds between passes (``math.inf``: only when poked).
        debounce: seconds new work must settle before a pass.
        name: what the job is, for the thread's name and the failure warning.
        final_pass: whether ``stop()`` runs the job once more before the thread ends.
    """

    def __init__(self, job: Callable[[], object], *, interval: float, debounce: float,
                 name: str = "consolidation", final_pass: bool = True) -> None:
        self._job = job
        self.interval = interval
        self.debounce = debounce
        self.name = name
        self.final_pass = final_pass
        self._cond = threading.Condition()
        self._dirty_since: float | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.runs = 0

    def start(self) -> None:
        """Start the thread (idempotent)."""
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._stopping = False
                self._thread = threading.Thread(target=self._loop, name=f"nova-memory-{self.name}", daemon=True)
                self._thread.start()

    @property
    def running(self) -> bool:
        """Whether the worker thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def stopping(self) -> bool:
        """Whether ``stop()`` was called (a long job should return early)."""
        return self._stopping

    def poke(self) -> None:
        """Signal that new work arrived."""
        with self._cond:
            if self._dirty_since is None:  # later pokes change nothing the thread waits on: no wake-up
                self._dirty_since = time.monotonic()
                self._cond.notify_all()

    def stop(self, timeout: float = 30.0) -> None:
        """Run a final pass over pending work (when ``final_pass``) and stop."""
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=timeout)
        self._thread = None

    def _loop(self) -> None:
        last_run = time.monotonic()
        while True:
            with self._cond:
                while True:
                    now = time.monotonic()
                    if self._stopping:
                        break
                    settled = self._dirty_since is not None and now - self._dirty_since >= self.debounce
                    if settled or now - last_run >= self.interval:
                        break
                    wait = self.interval - (now - last_run)
                    if self._dirty_since is not None:
                        wait = min(wait, self.debounce - (now - self._dirty_since))
                    self._cond.wait(timeout=max(0.01, wait) if math.isfinite(wait) else None)
                stopping = self._stopping
                self._dirty_since = None
            if stopping and not self.final_pass:
                return
            try:
                self._job()
                self.runs += 1
            except Exception as exc:
                logger.warning("nova-memory background %s failed: %s", self.name, exc)
            last_run = time.monotonic()
            if stopping:
                return
