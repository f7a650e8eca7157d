"""Dropping a forgotten user's vector collections, now or (during an index outage) on next open."""

from __future__ import annotations

import json
import logging

from ..errors import StorageError
from ..storage.items import item_index
from ..storage.sqlite import SQLiteStore
from ..storage.vectors import VectorIndex, unreachable
from .indexer import TABLES, Indexer

__all__ = ["PENDING_DROP_KEY", "delete_vectors", "drop_pending_users", "drop_user_vectors", "remember_drop"]

logger = logging.getLogger(__name__)

PENDING_DROP_KEY = "vector_index_users_to_drop"
"""Store metadata: users forgotten while the vector index was unreachable (a JSON list)."""


def drop_user_vectors(vectors: VectorIndex, user_id: str) -> None:
    """Drop every vector collection of ``user_id`` (memory and LangGraph items).

    Raises:
        StorageError: Chroma fails.
    """
    vectors.delete_user(user_id)
    item_index(vectors).delete_user(user_id)


def delete_vectors(vectors: VectorIndex, indexer: Indexer, user_id: str, ids_by_table: dict[str, list[str]]
                   ) -> dict[str, int]:
    """Delete the vectors of rows just erased or hidden (ids per table). While the index is
    unreachable the ids go to the indexer instead, which deletes their vectors once it is back.

    Returns:
        How many ids were left to the indexer, per kind (empty when the index answered).

    Raises:
        StorageError: Chroma fails for another reason than being unreachable.
    """
    deferred: dict[str, int] = {}
    for kind, table in TABLES.items():
        ids = ids_by_table.get(table) or []
        if not ids:
            continue
        try:
            vectors.delete(kind, ids, user_id=user_id)
        except StorageError as exc:
            if not unreachable(exc):
                raise
            indexer.submit(table, [(i, user_id) for i in ids])
            deferred[kind] = len(ids)
    return deferred


def remember_drop(db: SQLiteStore, user_id: str) -> None:
    """Record that ``user_id``'s collections could not be dropped (the index was unreachable)."""
    pending = set(json.loads(db.get_meta(PENDING_DROP_KEY) or "[]")) | {user_id}
    db.set_meta(PENDING_DROP_KEY, json.dumps(sorted(pending)))
    logger.warning("nova-memory: the vector index is unreachable; the forgotten user's vectors are dropped when "
                   "the store is next opened with the index reachable")


def drop_pending_users(db: SQLiteStore, vectors: VectorIndex) -> None:
    """Drop the collections recorded by :func:`remember_drop`; keep the users that still fail."""
    pending = json.loads(db.get_meta(PENDING_DROP_KEY) or "[]")
    if not pending:
        return
    left = []
    with_episodes = set(db.user_ids())
    for user_id in pending:
        try:
            if user_id in with_episodes or db.has_rows("facts", user_id) or db.has_rows("rules", user_id):
                _drop_orphans(db, vectors, user_id)  # the user came back: keep the new rows' vectors
            else:
                drop_user_vectors(vectors, user_id)
        except StorageError:
            left.append(user_id)
    db.set_meta(PENDING_DROP_KEY, json.dumps(left))


def _drop_orphans(db: SQLiteStore, vectors: VectorIndex, user_id: str) -> None:
    """Delete the user's vectors that have no row in SQLite any more."""
    for kind, table in TABLES.items():
        ids = vectors.get_user_ids(kind, user_id)
        live = {r["id"] for r in db.rows_by_id(table, ids)} if ids else set()
        vectors.delete(kind, [i for i in ids if i not in live], user_id=user_id)
