"""The lifecycle that runs itself: one background worker per store (``lifecycle.schedule_interval_s``).

Each pass is :func:`.lifecycle.apply_lifecycle` over every user, bounded per user by
``lifecycle.max_changes_per_pass`` and committed in batches, so ``add_turn`` never waits for
a pass. The worker starts with the store when a lifecycle step is configured
(:meth:`~..config.LifecycleConfig.schedule_enabled`), makes its first pass one interval
after, and stops at ``close()`` between two batches (no final pass). A pass and an
on-demand run (``NovaStore.apply_lifecycle``) never overlap (:attr:`LifecycleScheduler.lock`).

With many processes on one Postgres database every store has this worker, but a pass is the
database's, not the process's: before each scheduled pass the worker takes the database's
``lifecycle`` lease for one interval (:meth:`~..storage.pg_connection.PgConnection.try_lease`),
and only the process that got it makes the pass; the others skip their turn. So with N processes
a pass runs once per interval, not N times, and if its holder dies the lease runs out and the next
process to wake takes it. (On SQLite one process owns the database: the lease is always granted.)
"""

from __future__ import annotations

import math
import threading
from typing import TYPE_CHECKING

from .._threads import BackgroundWorker
from ..memory.lifecycle_rules import CapacityLevel
from .lifecycle import LifecycleReport, apply_lifecycle

if TYPE_CHECKING:
    from ..engine.components import Components

__all__ = ["LEASE", "LifecycleScheduler"]

LEASE = "lifecycle"
"""The name of the database lease a scheduled pass is made under."""


class LifecycleScheduler:
    """Background lifecycle passes of one store."""

    def __init__(self, components: Components) -> None:
        self.components = components
        cfg = components.config.lifecycle
        self.lock = threading.Lock()
        """Held by a pass and by an on-demand run: they never overlap."""
        self.warned: set[str] = set()
        """Users warned about their capacity (one line each while they stay above ``warn_at``)."""
        self.evicting: dict[str, CapacityLevel] = {}
        """Users a bounded pass left mid-eviction: later passes bring them to the same target."""
        self.last_report: LifecycleReport | None = None
        self.passes = 0
        self.skipped = 0
        """Scheduled passes left to another process, which held the lease."""
        self._worker = BackgroundWorker(self._scheduled_pass, interval=cfg.schedule_interval_s or math.inf,
                                        debounce=math.inf, name="lifecycle", final_pass=False)

    @property
    def enabled(self) -> bool:
        """Whether the configuration asks for background passes."""
        return self.components.config.lifecycle.schedule_enabled()

    @property
    def running(self) -> bool:
        """Whether the worker thread is alive."""
        return self._worker.running

    def start(self) -> None:
        """Start the worker when enabled (idempotent)."""
        if self.enabled:
            self._worker.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop the worker; a pass under way ends after its current batch."""
        self._worker.stop(timeout=timeout)

    def _scheduled_pass(self) -> LifecycleReport | None:
        """The worker's pass: made only under the database's lease for this interval (see the module
        docstring); ``None`` when another process holds it."""
        interval = self.components.config.lifecycle.schedule_interval_s or 0.0
        if not self.components.db.try_lease(LEASE, interval):
            self.skipped += 1
            return None
        return self.run_pass()

    def run_pass(self) -> LifecycleReport:
        """One bounded pass over every user (what the worker runs)."""
        with self.lock:
            report = apply_lifecycle(self.components, limit=self.components.config.lifecycle.max_changes_per_pass,
                                     should_stop=lambda: self._worker.stopping, warned=self.warned,
                                     evicting=self.evicting)
        self.last_report = report
        self.passes += 1
        return report
