"""The Chroma vector index over episodes, facts and rules (a rebuildable view).

Embeddings are always computed by the engine and passed in: the collections are created
without an embedding function and every call carries vectors, so Chroma's default
embedding function (which downloads a model) can never run.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from ..errors import StorageError

__all__ = ["VectorIndex", "VectorKind"]

VectorKind = Literal["episode", "fact", "rule"]
_KINDS: tuple[VectorKind, ...] = ("episode", "fact", "rule")
_VEC_CACHE = 50_000
Metadata = Mapping[str, str | int | float | bool]


class VectorIndex:
    """Three Chroma collections (cosine space) with user-scoped queries.

    Args:
        client: any ``chromadb`` client (``PersistentClient``, ``HttpClient``, ...); when
            ``None`` an embedded ``PersistentClient`` is opened at ``path``.
        path: directory for the embedded client.
        prefix: collection name prefix, so several stores can share one Chroma server.
    """

    def __init__(self, client: Any | None = None, *, path: Path | None = None, prefix: str = "nova") -> None:
        if client is None:
            if path is None:
                raise StorageError("VectorIndex needs a chroma client or a path")
            import chromadb
            from chromadb.config import Settings

            client = chromadb.PersistentClient(
                path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=False)
            )
        self.client = client
        self.prefix = prefix
        self._lock = threading.Lock()
        self._collections: dict[str, Any] = {}
        self._vec_cache: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        for kind in _KINDS:
            self._collections[kind] = self._open(kind)

    def _open(self, kind: VectorKind) -> Any:
        try:
            return self.client.get_or_create_collection(
                name=f"{self.prefix}_{kind}s", embedding_function=None, metadata={"hnsw:space": "cosine"}
            )
        except Exception as exc:
            raise StorageError(f"cannot open Chroma collection {self.prefix}_{kind}s: {exc}") from exc

    def upsert(
        self,
        kind: VectorKind,
        ids: Sequence[str],
        embeddings: Sequence[Sequence[float]],
        documents: Sequence[str],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Add or replace vectors (each metadata must carry ``user_id``)."""
        if not ids:
            return
        if any("user_id" not in m for m in metadatas):
            raise StorageError("every vector needs a user_id in its metadata")
        self._forget(kind, ids)
        try:
            self._collections[kind].upsert(
                ids=list(ids),
                embeddings=[list(e) for e in embeddings],
                documents=list(documents),
                metadatas=[dict(m) for m in metadatas],
            )
        except Exception as exc:
            raise StorageError(f"Chroma upsert failed: {exc}") from exc

    def query(
        self,
        kind: VectorKind,
        embedding: Sequence[float],
        *,
        user_id: str,
        k: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest neighbours of one user: ``(id, cosine similarity)``, best first."""
        clauses: list[dict[str, Any]] = [{"user_id": user_id}]
        for key, value in (where or {}).items():
            clauses.append({key: value})
        flt: dict[str, Any] = clauses[0] if len(clauses) == 1 else {"$and": clauses}
        try:
            res = self._collections[kind].query(
                query_embeddings=[list(embedding)], n_results=max(1, k), where=flt, include=["distances"]
            )
        except Exception as exc:
            raise StorageError(f"Chroma query failed: {exc}") from exc
        ids = res.get("ids") or [[]]
        dists = res.get("distances") or [[]]
        return [(i, 1.0 - float(d)) for i, d in zip(ids[0], dists[0])]

    def get_embeddings(self, kind: VectorKind, ids: Sequence[str]) -> dict[str, list[float]]:
        """Stored vectors by id (ids not indexed are absent), through a bounded cache."""
        out = {i: self._vec_cache[(kind, i)] for i in ids if (kind, i) in self._vec_cache}
        missing = [i for i in dict.fromkeys(ids) if i not in out]
        if not missing:
            return out
        try:
            res = self._collections[kind].get(ids=missing, include=["embeddings"])
        except Exception as exc:
            raise StorageError(f"Chroma get failed: {exc}") from exc
        embs = res.get("embeddings")
        if embs is None:
            return out
        fresh = {i: [float(x) for x in e] for i, e in zip(res.get("ids") or [], embs)}
        with self._lock:
            for i, v in fresh.items():
                self._vec_cache[(kind, i)] = v
            while len(self._vec_cache) > _VEC_CACHE:
                self._vec_cache.popitem(last=False)
        return {**out, **fresh}

    def _forget(self, kind: VectorKind, ids: Sequence[str]) -> None:
        with self._lock:
            for i in ids:
                self._vec_cache.pop((kind, i), None)

    def delete(self, kind: VectorKind, ids: Sequence[str]) -> None:
        """Remove vectors by id (missing ids are ignored)."""
        if ids:
            self._forget(kind, ids)
            try:
                self._collections[kind].delete(ids=list(ids))
            except Exception as exc:
                raise StorageError(f"Chroma delete failed: {exc}") from exc

    def delete_user(self, user_id: str) -> None:
        """Remove every vector of one user from every collection."""
        with self._lock:
            self._vec_cache.clear()
        try:
            for col in self._collections.values():
                col.delete(where={"user_id": user_id})
        except Exception as exc:
            raise StorageError(f"Chroma delete failed: {exc}") from exc

    def get_user_ids(self, kind: VectorKind, user_id: str) -> list[str]:
        """Ids stored for one user (used by deletion checks and ``stats``)."""
        res = self._collections[kind].get(where={"user_id": user_id}, include=[])
        return list(res.get("ids") or [])

    def count(self, kind: VectorKind) -> int:
        """Number of vectors in a collection."""
        return int(self._collections[kind].count())

    def reset(self) -> None:
        """Drop and recreate all collections (for ``reindex``)."""
        with self._lock:
            self._vec_cache.clear()
            for kind in _KINDS:
                try:
                    self.client.delete_collection(f"{self.prefix}_{kind}s")
                except Exception:
                    pass
                self._collections[kind] = self._open(kind)
