"""The vector index in Postgres (pgvector), beside the system of record it indexes.

:class:`PgVectorIndex` offers the rest of the engine what :class:`~.vectors.VectorIndex` offers
over Chroma (upsert, per-user cosine query with metadata filters, vectors by id, deletes, counts),
on the table ``vectors`` of :mod:`.pg_schema`: one row per vector, scoped by ``(prefix, kind,
user_id)`` as Chroma's per-user collections are, so every read names one user and no statement
can return another's vector. As in Chroma, no text is stored: ``meta`` keeps ``user_id`` and a
digest of each other scoping value (:func:`~.vectors._stored`).

Vectors of every model share the column (``vector`` without a fixed width); each width gets its
own HNSW index (cosine) over ``embedding::vector(n)``, built when the first vector of that width
is written, and every query compares within its width. A user's vectors are found through the
primary key, so the planner scans a small user's few hundred vectors exactly and reaches for the
HNSW index (with pgvector 0.8's iterative scan, so a user filter cannot starve it) only for large
ones.

Every process on the database sees a write as soon as it commits: nothing is cached here.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .pg_connection import PgConnection
from .vectors import _HASHED, Metadata, Vector, VectorKind, _digest, _stored

__all__ = ["HNSW_LOCK", "PgVectorIndex"]

HNSW_LOCK = 0x6E6F76615F686E73  # "nova_hns"
"""The advisory lock held while an HNSW index for a new vector width is created."""
_UPSERT_ROWS = 256
"""Rows per statement at most (a batch of the indexer is split, as for Chroma)."""


def _literal(vector: Sequence[float] | Vector) -> str:
    """pgvector's text form of a vector (``[x,y,...]``; float32 precision, as stored)."""
    return "[" + ",".join(repr(float(x)) for x in np.asarray(vector, dtype=np.float32)) + "]"


class PgVectorIndex:
    """Per-user vectors of episodes, facts and rules (cosine) in the store's Postgres database.

    Args:
        db: the store's Postgres connection (its pool, its typed errors).
        prefix: separates indexes sharing the table (the items' index is ``{prefix}_items``).
    """

    def __init__(self, db: PgConnection, *, prefix: str = "nova") -> None:
        self.db = db
        self.prefix = prefix
        self.client = None  # no Chroma client: the index lives in the database
        self.outage = db.outage  # the database's: an outage of one is an outage of the other
        self._widths: set[int] = set()
        self._widths_lock = threading.Lock()

    def sibling(self, prefix: str) -> PgVectorIndex:
        """Another index on the same database under ``prefix`` (the LangGraph items' vectors)."""
        return PgVectorIndex(self.db, prefix=prefix)

    def ping(self) -> None:
        """Raise unless the database answers (``DatabaseUnavailableError``)."""
        self.db.query("SELECT 1")

    # -- writes -----------------------------------------------------------------------------------
    def upsert(
        self, kind: VectorKind, ids: Sequence[str], embeddings: Sequence[Sequence[float]],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Add or replace vectors, each filed under the ``user_id`` of its metadata.

        Raises:
            StorageError: a metadata lacks ``user_id``, or the database fails.
        """
        from ..errors import StorageError

        if not ids:
            return
        if any(not isinstance(m.get("user_id"), str) for m in metadatas):
            raise StorageError("every vector needs a user_id in its metadata")
        rows = [(self.prefix, kind, str(m["user_id"]), i, len(e), _literal(e), json.dumps(_stored(m)))
                for i, e, m in zip(ids, embeddings, metadatas)]
        for width in {r[4] for r in rows}:
            self._ensure_hnsw(width)
        for start in range(0, len(rows), _UPSERT_ROWS):
            with self.db.transaction() as tx:
                tx.executemany(
                    "INSERT INTO vectors (prefix, kind, user_id, id, dims, embedding, meta)"
                    " VALUES (?, ?, ?, ?, ?, ?::vector, ?::jsonb) ON CONFLICT (prefix, kind, user_id, id) DO UPDATE"
                    " SET dims = excluded.dims, embedding = excluded.embedding, meta = excluded.meta",
                    rows[start:start + _UPSERT_ROWS])

    def _ensure_hnsw(self, width: int) -> None:
        """Create the HNSW index of vectors ``width`` wide once (under :data:`HNSW_LOCK`: every
        process may write its first vector at once)."""
        with self._widths_lock:
            if width in self._widths:
                return
            with self.db.exclusive(HNSW_LOCK) as tx:
                tx.execute(f"CREATE INDEX IF NOT EXISTS vectors_hnsw_{int(width)} ON vectors USING hnsw"
                           f" ((embedding::vector({int(width)})) vector_cosine_ops) WHERE dims = {int(width)}")
            self._widths.add(width)

    def delete(self, kind: VectorKind, ids: Sequence[str], *, user_id: str) -> None:
        """Remove one user's vectors by id (missing ids are ignored)."""
        if not ids:
            return
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM vectors WHERE prefix = ? AND kind = ? AND user_id = ? AND id = ANY(?)",
                       (self.prefix, kind, user_id, list(ids)))

    def delete_user(self, user_id: str) -> None:
        """Remove every vector of one user (of this prefix)."""
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM vectors WHERE prefix = ? AND user_id = ?", (self.prefix, user_id))

    def reset(self) -> None:
        """Remove every vector of this prefix (for ``reindex``)."""
        with self.db.transaction() as tx:
            tx.execute("DELETE FROM vectors WHERE prefix = ?", (self.prefix,))

    # -- reads ------------------------------------------------------------------------------------
    def query(
        self, kind: VectorKind, embedding: Sequence[float], *, user_id: str, k: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest neighbours of one user: ``(id, cosine similarity)``, best first.

        ``where`` filters on further metadata (``session_id`` ...), compared as digests.
        """
        width = len(embedding)
        target = f"?::vector({width})"
        sql = (f"SELECT id, 1 - (embedding::vector({width}) <=> {target}) AS sim FROM vectors"
               f" WHERE prefix = ? AND kind = ? AND user_id = ? AND dims = {width}")
        params: list[Any] = [_literal(embedding), self.prefix, kind, user_id]
        for key, value in (where or {}).items():
            sql += " AND meta ->> ? = ?"
            params += [_HASHED + key, _digest(value)]
        sql += f" ORDER BY embedding::vector({width}) <=> {target} LIMIT ?"
        params += [_literal(embedding), max(1, k)]
        return [(str(r[0]), float(r[1])) for r in self.db.query(sql, params)]

    def get_embeddings(self, kind: VectorKind, ids: Sequence[str], *, user_id: str) -> dict[str, Vector]:
        """One user's stored vectors by id (ids not indexed are absent), as read-only float32 arrays."""
        if not ids:
            return {}
        rows = self.db.query("SELECT id, embedding::real[] FROM vectors WHERE prefix = ? AND kind = ? AND user_id = ?"
                             " AND id = ANY(?)", [self.prefix, kind, user_id, list(dict.fromkeys(ids))])
        out: dict[str, Vector] = {}
        for row in rows:
            vec = np.asarray(row[1], dtype=np.float32)
            vec.flags.writeable = False
            out[str(row[0])] = vec
        return out

    def get_user_ids(self, kind: VectorKind, user_id: str) -> list[str]:
        """Ids stored for one user."""
        return [str(r[0]) for r in self.db.query(
            "SELECT id FROM vectors WHERE prefix = ? AND kind = ? AND user_id = ? ORDER BY id",
            [self.prefix, kind, user_id])]

    def count(self, kind: VectorKind) -> int:
        """Number of vectors of ``kind``, all users."""
        return int(self.db.query("SELECT count(*) FROM vectors WHERE prefix = ? AND kind = ?",
                                 [self.prefix, kind])[0][0])

    # -- what Chroma's files need and a database does not ------------------------------------------
    def collections(self, kind: VectorKind | None = None) -> list[Any]:
        """No Chroma collections here."""
        return []

    def legacy_collections(self) -> list[str]:
        """No shared collections of earlier versions here."""
        return []

    def local_path(self) -> Path | None:
        """``None``: no files of this process hold the index."""
        return None

    def zero_unused(self, col: Any, *, locked: bool = False) -> None:
        """Nothing to zero (no HNSW files of Chroma)."""

    def zero_all_unused(self) -> int:
        """Nothing to zero: 0 bytes."""
        return 0

    def scrub(self) -> bool:
        """``False``: there are no index files of this process to scrub."""
        return False
