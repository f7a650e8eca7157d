"""Erasure: ``forget`` a user, ``delete`` memories by id.

SQLite is the system of record; the vector index, the fact graph and the entity cache
are derived from it, so each operation changes SQLite first and then drops what was
derived from the erased rows. Every function waits for the affected user's pending embeddings
first, so no row is indexed after its deletion.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.components import Components
from ..engine.indexer import INDEX_WAIT_S
from ..storage.vectors import VectorKind

__all__ = ["delete_memories", "forget_user"]

_KINDS: tuple[tuple[VectorKind, str], ...] = (("episode", "episodes"), ("fact", "facts"), ("rule", "rules"))
"""Each vector kind and the SQLite table of its rows."""


def forget_user(components: Components, user_id: str) -> dict[str, int]:
    """Erase every trace of ``user_id``: SQLite rows, vectors, graph and entity caches.

    Returns:
        Rows removed per table.
    """
    c = components
    c.indexer.wait(user_id, timeout=INDEX_WAIT_S)
    counts = c.db.delete_user(user_id)
    c.vectors.delete_user(user_id)
    c.graph.invalidate(user_id)
    c.entities.invalidate(user_id)
    return counts


def delete_memories(components: Components, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
    """Delete episodes, facts (every version of their lineage) and rules of ``user_id`` by id.

    Returns:
        The ids removed per table (ids of other users are never touched).
    """
    c = components
    c.indexer.wait(user_id, timeout=INDEX_WAIT_S)
    removed = c.db.delete_ids(user_id, list(ids))
    for kind, table in _KINDS:
        c.vectors.delete(kind, removed[table], user_id=user_id)
    c.graph.invalidate(user_id)
    c.entities.invalidate(user_id)
    return removed
