"""The maintenance methods of ``NovaStore`` (a mixin): stats, erasure, hiding, export / import, lifecycle.

They live here so the facade module stays small; each validates its input and delegates to
a service of this package (:mod:`.erasure`, :mod:`.hiding`, :mod:`.portability`,
:mod:`.lifecycle`). The mixin holds no state of its own: ``NovaStore`` provides
``components``, ``config``, ``path``, ``_lifecycle`` and ``_check_open``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import NovaConfig
from ..engine.components import Components
from ..engine.validation import MAINTENANCE_ARGUMENTS, check_ids, check_user, checked_arguments
from . import lifecycle, portability
from .erasure import delete_memories, forget_user
from .hiding import hidden_memories, hide_memories, restore_memories
from .schedule import LifecycleScheduler

__all__ = ["MaintenanceAPI"]


@checked_arguments(MAINTENANCE_ARGUMENTS)
class MaintenanceAPI:
    """Whole-store and per-user maintenance of a ``NovaStore``."""

    components: Components
    config: NovaConfig
    path: Path
    _lifecycle: LifecycleScheduler

    def _check_open(self) -> None:  # pragma: no cover - NovaStore's own
        raise NotImplementedError

    def reindex(self) -> int:
        """Rebuild the Chroma index from SQLite (e.g. after changing the embedding model)."""
        self._check_open()
        return self.components.reindex()

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        """Counts per kind (for one user or all; ``hidden``: hidden memories), pending work and dead letters."""
        self._check_open()
        uid = None if user_id is None else check_user(user_id, self.config.limits)
        db = self.components.db
        return {
            "episodes": db.count("episodes", uid),
            "facts": db.count("facts", uid),
            "rules": db.count("rules", uid),
            "hidden": sum(sum(per_table.values()) for per_table in db.hidden_counts(uid).values()),
            "pending_index": self.components.indexer.pending(uid),
            "dead_letters": db.count("dead_letters", uid),
            "path": str(self.path),
        }

    def users(self, *, unconsolidated: bool = False) -> list[str]:
        """Ids of the users with episodes (only those with episodes not yet consolidated), sorted."""
        self._check_open()
        return self.components.db.user_ids(unprocessed_only=unconsolidated)

    def warm_up(self) -> None:
        """Load the embedding model now instead of on the first call that needs it."""
        self._check_open()
        self.components.embedder.embed_query("warm up")

    def forget(self, user_id: str) -> dict[str, int]:
        """Erase every trace of a user: SQLite rows (hidden ones too), vectors, graph cache."""
        self._check_open()
        return forget_user(self.components, check_user(user_id, self.config.limits))

    def delete(self, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """Delete episodes, facts (all versions of their lineage) and rules by id (hidden or not)."""
        self._check_open()
        return delete_memories(self.components, check_user(user_id, self.config.limits),
                               check_ids(ids, self.config.limits))

    def hide(self, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """Hide episodes, facts (whole lineages) and rules from every read, restorably: :mod:`.hiding`.

        Returns the ids hidden per table (``episodes``, ``facts``, ``rules``).
        """
        self._check_open()
        return hide_memories(self.components, check_user(user_id, self.config.limits),
                             check_ids(ids, self.config.limits))

    def restore(self, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """Bring hidden memories back (they are embedded again); the ids restored per table."""
        self._check_open()
        return restore_memories(self.components, check_user(user_id, self.config.limits),
                                check_ids(ids, self.config.limits))

    def hidden(self, user_id: str) -> dict[str, list[str]]:
        """Ids of the user's hidden memories per table, oldest hidden first."""
        self._check_open()
        return hidden_memories(self.components, check_user(user_id, self.config.limits))

    def export(self, dest: Any, *, user_id: str | Sequence[str] | None = None) -> portability.ExportReport:
        """Write memory (all users or some, hidden ones kept) as JSON Lines: :func:`.portability.export_store`."""
        self._check_open()
        return portability.export_store(self.components, dest, user_id=user_id)

    def import_(self, source: Any, **kw: Any) -> portability.ImportReport:
        """Load a JSON Lines export (merge, user_id, as_user, dry_run): :func:`.portability.import_store`."""
        self._check_open()
        return portability.import_store(self.components, source, **kw)

    def apply_lifecycle(self, user_id: str | None = None, **kw: Any) -> lifecycle.LifecycleReport:
        """Retention, compaction and capacity eviction now: :func:`.lifecycle.apply_lifecycle`.

        Never overlaps a background pass (it waits for one under way).
        """
        self._check_open()
        with self._lifecycle.lock:
            return lifecycle.apply_lifecycle(self.components, user_id, **kw)
