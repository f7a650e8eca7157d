"""Background jobs: one worker thread per job and store, with an interval and a debounce.

The store runs two: consolidation (poked by new turns, debounced) and the lifecycle
(``lifecycle.schedule_interval_s``, never poked, no final pass at close; its job checks
:attr:`BackgroundWorker.stopping` between batches so ``close`` does not wait for a pass).
The class lives in the stdlib-only leaf :mod:`nova_memory_integrations._threads`, which the
indexer and the WAL checkpointer (``storage/``) use too, and which stops every worker in
order at interpreter exit; this module keeps its old import path.
"""

from __future__ import annotations

from .._threads import BackgroundWorker

__all__ = ["BackgroundWorker"]
