"""Erasure: ``forget`` a user, ``delete`` memories by id.

SQLite is the system of record; the vector index, the fact graph and the entity cache
are derived from it, so each operation changes SQLite first and then drops what was
derived from the erased rows. Each erase runs inside the indexer's barrier for the user
(:meth:`~..engine.indexer.Indexer.barrier`): the indexer re-checks its rows and writes
their vectors inside the same barrier, so a turn added while ``forget`` runs is either
erased with the rest or kept whole, never left as an orphan vector with erased text; no
erase waits for the indexer's backlog.

``forget`` leaves nothing behind in the files either: SQLite zeroes deleted rows
(``secure_delete``) and merges its full-text segments; Chroma never held the text, and
:meth:`~..storage.vectors.VectorIndex.scrub` then removes the user's vectors from Chroma's
files (its SQLite free pages, the dropped collections' HNSW files). A crash before the
scrub leaves :data:`~..storage.vectors.SCRUB_KEY` set, and the next open scrubs.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ..engine.components import Components
from ..engine.vector_drops import delete_vectors, drop_user_vectors, remember_drop
from ..errors import StorageError
from ..storage.vectors import SCRUB_KEY, unreachable

__all__ = ["delete_memories", "forget_user"]

logger = logging.getLogger(__name__)


def forget_user(components: Components, user_id: str) -> dict[str, int]:
    """Erase every trace of ``user_id``: SQLite rows, vectors, graph and entity caches, and the
    user's LangGraph store items (rows and their vector collections).

    Returns:
        Rows removed per table (``items``: the LangGraph store items; ``hidden``: hidden memories).
    """
    c = components
    local = c.vectors.local_path() is not None  # a Chroma server's files are out of reach
    with c.indexer.barrier(user_id):  # a barrier: writes racing it land before (erased) or after (kept)
        if local:
            c.db.set_meta(SCRUB_KEY, "1")
        hidden = sum(len(v) for v in c.db.delete_hidden(user_id).values())  # before delete_user's scrub
        counts = c.db.delete_user(user_id)
        counts["hidden"] = hidden
        counts["items"] = c.db.delete_user_items(user_id)  # NovaLangGraphStore writes under the same barrier
        try:
            drop_user_vectors(c.vectors, user_id)
        except StorageError as exc:
            if not unreachable(exc):
                raise
            remember_drop(c.db, user_id)  # the rows are gone; the vectors go when the index is back (next open)
    if local and c.vectors.scrub():
        c.db.set_meta(SCRUB_KEY, "0")
    c.graph.invalidate(user_id)
    c.entities.invalidate(user_id)
    return counts


def delete_memories(components: Components, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
    """Delete episodes, facts (every version of their lineage) and rules of ``user_id`` by id.

    Returns:
        The ids removed per table (ids of other users are never touched).
    """
    c = components
    with c.indexer.barrier(user_id):
        hidden = c.db.delete_hidden(user_id, list(ids))  # hidden ones are erased too (before the scrub)
        removed = c.db.delete_ids(user_id, list(ids))
        for table, gone in hidden.items():
            removed[table] += gone
        # the rows are gone: while the index is down, the indexer deletes their vectors once it is back
        for kind, n in delete_vectors(c.vectors, c.indexer, user_id, removed).items():
            logger.warning("nova-memory: the vector index is unreachable; %d deleted %s vectors are removed "
                           "when it is back", n, kind)
    c.graph.invalidate(user_id)
    c.entities.invalidate(user_id)
    return removed
