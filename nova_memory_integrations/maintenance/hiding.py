"""Hide and restore memories: a soft, restorable "forgotten" state, distinct from erasure.

``forget(user)`` and ``delete(user, ids)`` erase. ``hide(user, ids)`` only takes memories out
of sight: the rows move to the shelves of :mod:`..storage.hidden` (SQLite keeps them, so
nothing is lost), their vectors leave the index, and no read path sees them any more
(context, retrieve, search, facts, traverse, episodes, rules, the lifecycle, consolidation,
the CLI's ``list`` / ``show``). ``restore(user, ids)`` moves them back and queues them for
embedding. ``stats()`` counts them (``hidden``); export keeps them as their own record
kinds (``hidden_episodes``, ``hidden_facts``, ``hidden_rules``) with ``hidden_at``, and an
import puts them back on the shelves, still hidden.

A fact is hidden and restored by lineage (every version), like ``delete``. Restoring a fact
whose predicate was meanwhile given another value (a single-valued one) brings both back
as believed; the conflict rules apply to new assertions only.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._time import to_epoch, utcnow
from ..engine.components import Components
from ..engine.vector_drops import delete_vectors

__all__ = ["hidden_memories", "hide_memories", "restore_memories"]


def hide_memories(components: Components, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
    """Hide episodes, facts (whole lineages) and rules of ``user_id`` by id.

    Returns:
        The ids hidden per table (``episodes``, ``facts``, ``rules``); ids of other users,
        unknown ids and ids already hidden are left out.
    """
    c = components
    with c.indexer.barrier(user_id):  # the indexer re-checks its rows inside it: no vector outlives the move
        moved = c.db.hide_rows(user_id, list(ids), to_epoch(utcnow()) or 0.0)
        delete_vectors(c.vectors, c.indexer, user_id, moved)  # or once the index is back
    if moved["facts"]:
        c.graph.invalidate(user_id)
    return moved


def restore_memories(components: Components, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
    """Bring hidden memories of ``user_id`` back (facts by lineage); they are embedded again.

    Returns:
        The ids restored per table; ids not hidden (or of other users) are left out.
    """
    c = components
    moved = c.db.restore_rows(user_id, list(ids))
    for table, restored in moved.items():
        if restored:
            c.indexer.submit(table, [(i, user_id) for i in restored])  # type: ignore[arg-type]
    if moved["facts"]:
        c.graph.invalidate(user_id)
    return moved


def hidden_memories(components: Components, user_id: str) -> dict[str, list[str]]:
    """The ids of the user's hidden memories per table, oldest hidden first."""
    return {table: [i for i, _ in rows] for table, rows in components.db.hidden_ids(user_id).items()}
