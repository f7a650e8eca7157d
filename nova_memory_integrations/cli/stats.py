"""``nova-memory stats``: counts per kind and user, sizes, last consolidation, dead letters."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..consolidation.service import LAST_CONSOLIDATION_KEY

if TYPE_CHECKING:
    from ..store import NovaStore

__all__ = ["collect_stats"]


def _iso(epoch: float | None) -> str | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, timezone.utc).isoformat()


def _dir_size(path: Path) -> int:
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def collect_stats(store: NovaStore, user_id: str | None = None) -> dict[str, Any]:
    """Everything ``stats`` shows, as plain data.

    ``last_consolidation`` is the later of the last ``nova-memory consolidate`` run and
    the last fact change made by consolidation (from the decision log).
    """
    db = store.components.db
    users = db.counts_by_user(user_id)
    kinds = ("episodes", "unconsolidated", "tombstones", "summaries", "facts_current", "fact_versions",
             "fact_events", "rules", "dead_letters", "hidden")
    hidden = db.hidden_counts(user_id)  # hidden memories (NovaStore.hide), restorable
    for uid in {*users, *hidden}:
        users.setdefault(uid, dict.fromkeys(kinds, 0))["hidden"] = sum(hidden.get(uid, {}).values())
    totals = {kind: sum(u[kind] for u in users.values()) for kind in kinds}

    last_event = db.last_fact_event(user_id, excluding_reason="asserted through add_fact")
    marker = db.get_meta(LAST_CONSOLIDATION_KEY)
    candidates = [float(x) for x in (last_event, marker) if x is not None]
    sqlite_path = db.path
    sizes = {
        "sqlite_bytes": sum(p.stat().st_size for p in (sqlite_path, Path(f"{sqlite_path}-wal")) if p.exists()),
        "chroma_bytes": _dir_size(store.path / store.config.storage.chroma_dirname),
    }
    vectors: dict[str, int | None] = {}
    for kind in ("episode", "fact", "rule"):
        try:
            vectors[kind] = store.components.vectors.count(kind)  # type: ignore[arg-type]
        except Exception:  # a remote Chroma may be unreachable; stats still work
            vectors[kind] = None
    return {
        "path": str(store.path),
        "user_id": user_id,
        "users": len(users),
        "totals": totals,
        "per_user": dict(sorted(users.items())),
        "vectors": vectors,
        "sizes": sizes,
        "pending_index": store.components.indexer.pending(user_id),
        "last_consolidation": _iso(max(candidates)) if candidates else None,
        "dead_letters": [
            {"id": d["id"], "user_id": d["user_id"], "episodes": len(d["episode_ids"]), "error": d["error"],
             "attempts": d["attempts"], "updated_at": d["updated_at"].isoformat()}
            for d in store.dead_letters(user_id)
        ],
    }
