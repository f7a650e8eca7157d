"""The Chroma vector index over episodes, facts and rules (a rebuildable view).

Every user has their own collection per kind, named ``{prefix}_{kind}_{blake2b(user_id)}``
(created lazily on the first write, cosine space, the user id in the collection's
metadata). Queries therefore search one user's vectors only and need no ``user_id``
filter, whose cost grows with the number of matching rows (Chroma materialises the
allowed ids); each result is still checked against the ``user_id`` stored with the vector.

Embeddings are always computed by the engine and passed in: the collections are created
without an embedding function and every call carries vectors, so Chroma's default
embedding function (which downloads a model) can never run.

Chroma holds ids, vectors and the metadata scoping needs, never text: no documents, and
every metadata value but ``user_id`` is stored as a digest (``h_{key}``: blake2b of the
value), so a ``where`` equality filter still works while a session id or a namespace label
is not readable in Chroma's files. :meth:`VectorIndex.scrub` makes what Chroma deleted
unrecoverable from its files (its SQLite file keeps deleted rows in free pages, and a dropped
collection's HNSW files stay on disk). Chroma writes a collection's HNSW files from memory it
never initialised (the process heap: another user's text, say); :meth:`VectorIndex.zero_unused`
zeroes those bytes after every operation that wrote them (:mod:`._hnsw_tails`).

This module is the live index; the one-time rewrites of what earlier versions left in Chroma
(three shared collections, text) are :mod:`.vector_migrations`.
"""

from __future__ import annotations

import hashlib
import logging
import re
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np

from ..errors import DatabaseUnavailableError, StorageError
from ._chroma_scrub import run_child
from ._hnsw_tails import HnswTails

Vector = np.ndarray
"""A stored vector as :meth:`VectorIndex.get_embeddings` returns it: 1-D float32, read-only."""

__all__ = ["COPY_SUFFIX", "SCRUB_KEY", "Vector", "VectorIndex", "VectorKind", "unreachable"]

logger = logging.getLogger(__name__)

VectorKind = Literal["episode", "fact", "rule"]
_KINDS: tuple[VectorKind, ...] = ("episode", "fact", "rule")
SCRUB_KEY = "vector_index_scrub_pending"
"""``meta`` key: ``"1"`` while Chroma's files may still hold deleted data (set before an erase,
cleared by a successful :meth:`VectorIndex.scrub`; a store opened with it set scrubs first)."""
_VEC_CACHE = 50_000
_COLLECTION_CACHE = 4096
_LIST_PAGE = 1000
_UPSERT_ROWS = 256
"""Rows per Chroma upsert call at most: a call holds the GIL throughout (~8 ms + ~0.25 ms a
row here), so a large batch is split to keep ``add_turn`` on other threads from waiting long."""
_HASH_BYTES = 16
COPY_SUFFIX = ".m"
"""Suffix of the copy :func:`.vector_migrations.strip_text` writes before it replaces a collection."""
_MAX_PREFIX = 512 - len("_episode_") - 2 * _HASH_BYTES - len(COPY_SUFFIX)  # Chroma names: at most 512 characters
_HASHED = "h_"
"""Prefix of a stored metadata key whose value is a digest (every key but ``user_id``)."""
_SCRUB_TIMEOUT_S = 600.0
_WRITES: dict[str, threading.Lock] = {}
"""One lock per embedded Chroma directory: held by each write to it, and by :meth:`VectorIndex.scrub`."""
_WRITES_GUARD = threading.Lock()
_PREFIX_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
Metadata = Mapping[str, str | int | float | bool]
_T = TypeVar("_T")


def _digest(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=_HASH_BYTES).hexdigest()


def _stored(meta: Metadata) -> dict[str, str | int | float | bool]:
    """The metadata Chroma keeps of a vector: ``user_id``, and a digest of every other value."""
    return {"user_id": meta["user_id"], **{_HASHED + k: _digest(v) for k, v in meta.items() if k != "user_id"}}


def unreachable(exc: BaseException) -> bool:
    """Whether a Chroma error (or its cause) means the server cannot be reached (refused, reset,
    timed out), or the database holding a pgvector index is unavailable: an outage to wait out,
    not a fault of the request."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (OSError, DatabaseUnavailableError)) or any(
                c.__name__ == "TransportError" and c.__module__.startswith("httpx") for c in type(seen).__mro__):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _is_missing(exc: Exception) -> bool:
    """Whether a Chroma error means "this collection does not exist" (any client)."""
    return type(exc).__name__ == "NotFoundError" or "does not exist" in str(exc)


class VectorIndex:
    """Per-user Chroma collections (cosine space) for episodes, facts and rules.

    Args:
        client: any ``chromadb`` client (``PersistentClient``, ``HttpClient``, ...); when
            ``None`` an embedded ``PersistentClient`` is opened at ``path``.
        path: directory for the embedded client.
        prefix: collection name prefix, so several stores can share one Chroma server.

    Raises:
        StorageError: neither ``client`` nor ``path`` is given, or ``prefix`` cannot start
            a Chroma collection name.
    """

    def __init__(self, client: Any | None = None, *, path: Path | None = None, prefix: str = "nova") -> None:
        if not _PREFIX_RE.fullmatch(prefix) or ".." in prefix or len(prefix) > _MAX_PREFIX:
            raise StorageError(f"collection prefix {prefix!r} must be 1-{_MAX_PREFIX} characters of "
                               "[a-zA-Z0-9._-] starting with a letter or digit")
        opening = client is None  # this index opens the client (a store opening its data directory)
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
        self._own = re.compile(rf"{re.escape(prefix)}_(?:{'|'.join(_KINDS)})_[0-9a-f]{{{2 * _HASH_BYTES}}}")
        self._path = path if opening else None  # not ``client is None``: ``client`` is the opened one by now
        local = self.local_path()
        with _WRITES_GUARD:
            self._writes = _WRITES.setdefault(str(local.resolve()) if local else f"client:{id(client)}",
                                              threading.Lock())
        self._tails = None if local is None else HnswTails.of(local, opening=opening)
        self._lock = threading.Lock()  # guards both caches
        self._create_lock = threading.Lock()  # one get_or_create at a time
        self._collections: OrderedDict[str, Any] = OrderedDict()
        self._vec_cache: OrderedDict[tuple[str, str, str], Vector] = OrderedDict()
        from .outage import Outage

        self.outage = Outage()  # whether reads find the index unreachable (recall skips it meanwhile)

    def sibling(self, prefix: str) -> VectorIndex:
        """Another index on the same Chroma client under ``prefix`` (the LangGraph items' vectors)."""
        return VectorIndex(self.client, prefix=prefix)

    def ping(self) -> None:
        """Raise unless Chroma answers (a heartbeat: no embedding is wasted on a server that is down).

        Raises:
            StorageError: Chroma fails (:func:`unreachable` tells an outage).
        """
        try:
            self.client.heartbeat()
        except Exception as exc:
            raise StorageError(f"Chroma heartbeat failed: {exc}") from exc

    # -- collections ------------------------------------------------------------------------
    def collection_name(self, kind: VectorKind, user_id: str) -> str:
        """The name of one user's collection of ``kind`` (whether it exists or not)."""
        digest = hashlib.blake2b(user_id.encode("utf-8"), digest_size=_HASH_BYTES).hexdigest()
        return f"{self.prefix}_{kind}_{digest}"

    def collection(self, kind: VectorKind, user_id: str, *, create: bool = False) -> Any | None:
        """One user's collection of ``kind`` (cached); ``None`` if absent and not ``create``.

        Raises:
            StorageError: Chroma fails, or the collection belongs to another user.
        """
        name = self.collection_name(kind, user_id)
        with self._lock:
            col = self._collections.get(name)
            if col is not None:
                self._collections.move_to_end(name)
                return col
        try:
            if create:
                with self._create_lock:
                    col = self.client.get_or_create_collection(
                        name=name, embedding_function=None, metadata={"hnsw:space": "cosine", "user_id": user_id}
                    )
            else:
                col = self.client.get_collection(name=name, embedding_function=None)
        except Exception as exc:
            if not create and _is_missing(exc):
                return None
            raise StorageError(f"cannot open Chroma collection {name}: {exc}") from exc
        owner = (col.metadata or {}).get("user_id")
        if owner != user_id:
            raise StorageError(f"Chroma collection {name} belongs to another user")
        with self._lock:
            self._collections[name] = col
            while len(self._collections) > _COLLECTION_CACHE:
                self._collections.popitem(last=False)
        return col

    def collections(self, kind: VectorKind | None = None) -> list[Any]:
        """This index's collections on the client (of one kind, or all), paged through.

        Raises:
            StorageError: Chroma fails.
        """
        own = [c for c in self._list() if self._own.fullmatch(c.name)]
        return own if kind is None else [c for c in own if c.name.startswith(f"{self.prefix}_{kind}_")]

    def _list(self) -> list[Any]:
        out: list[Any] = []
        try:
            while True:
                page = list(self.client.list_collections(limit=_LIST_PAGE, offset=len(out)))
                out += page
                if len(page) < _LIST_PAGE:
                    return out
        except Exception as exc:
            raise StorageError(f"cannot list Chroma collections: {exc}") from exc

    def _drop(self, names: Sequence[str]) -> None:
        with self._lock:
            for name in names:
                self._collections.pop(name, None)
        for name in names:
            try:
                with self._writes:
                    self.client.delete_collection(name)
            except Exception as exc:
                if not _is_missing(exc):
                    raise StorageError(f"cannot drop Chroma collection {name}: {exc}") from exc

    def _run(self, kind: VectorKind, user_id: str, op: Callable[[Any], _T], default: _T, *,
             create: bool = False, what: str) -> _T:
        """``op`` on the user's collection; ``default`` when it does not exist (and not ``create``).

        A cached handle whose collection was dropped elsewhere (another process's
        ``forget``) is discarded and the collection looked up once more.
        """
        for attempt in (0, 1):
            col = self.collection(kind, user_id, create=create)
            if col is None:
                return default
            try:
                if what in ("upsert", "delete"):
                    with self._writes:
                        out = op(col)
                        self.zero_unused(col, locked=True)
                        return out
                out = op(col)
                self.zero_unused(col)
                return out
            except Exception as exc:
                if attempt or not _is_missing(exc):
                    hint = (" (the index holds vectors of another embedding model: rebuild it with "
                            "NovaStore.reindex())") if "dimension" in str(exc).lower() else ""
                    raise StorageError(f"Chroma {what} failed: {exc}{hint}") from exc
                with self._lock:
                    self._collections.pop(self.collection_name(kind, user_id), None)
        raise AssertionError("unreachable")  # pragma: no cover

    # -- vectors ------------------------------------------------------------------------------
    def upsert(
        self,
        kind: VectorKind,
        ids: Sequence[str],
        embeddings: Sequence[Sequence[float]],
        metadatas: Sequence[Metadata],
    ) -> None:
        """Add or replace vectors, each in the collection of the ``user_id`` in its metadata.

        No text reaches Chroma: the metadata values other than ``user_id`` are stored as
        digests (``where`` filters of :meth:`query` are compared the same way).

        Raises:
            StorageError: a metadata lacks ``user_id``, or Chroma fails.
        """
        if not ids:
            return
        if any(not isinstance(m.get("user_id"), str) for m in metadatas):
            raise StorageError("every vector needs a user_id in its metadata")
        by_user: dict[str, list[int]] = {}
        for n, meta in enumerate(metadatas):
            by_user.setdefault(str(meta["user_id"]), []).append(n)
        for user_id, rows in by_user.items():
            self._forget(kind, user_id, [ids[n] for n in rows])
            self._upsert_user(kind, user_id, {
                "ids": [ids[n] for n in rows], "embeddings": [list(embeddings[n]) for n in rows],
                "metadatas": [_stored(metadatas[n]) for n in rows]})

    def _upsert_user(self, kind: VectorKind, user_id: str, batch: dict[str, list[Any]]) -> None:
        def upsert(part: dict[str, list[Any]]) -> Callable[[Any], None]:
            return lambda col: col.upsert(**part)

        for start in range(0, len(batch["ids"]), _UPSERT_ROWS):
            part = {key: rows[start:start + _UPSERT_ROWS] for key, rows in batch.items()}
            self._run(kind, user_id, upsert(part), None, create=True, what="upsert")

    def query(
        self,
        kind: VectorKind,
        embedding: Sequence[float],
        *,
        user_id: str,
        k: int,
        where: Mapping[str, Any] | None = None,
    ) -> list[tuple[str, float]]:
        """Nearest neighbours of one user: ``(id, cosine similarity)``, best first.

        Args:
            kind: which memories.
            embedding: the query vector.
            user_id: whose memories; a user without a collection gets ``[]`` (none is created).
            k: at most this many results.
            where: further metadata equality filters (e.g. ``session_id``), compared as digests.

        Raises:
            StorageError: Chroma fails.
        """
        clauses = [{_HASHED + key: _digest(value)} for key, value in (where or {}).items()]
        flt: dict[str, Any] | None = None if not clauses else clauses[0] if len(clauses) == 1 else {"$and": clauses}

        def op(col: Any) -> Any:
            # one float32 array: Chroma takes it as it is, list or cached read-only vector alike
            return col.query(query_embeddings=[np.asarray(embedding, dtype=np.float32)], n_results=max(1, k), where=flt,
                             include=["distances", "metadatas"])  # with "embeddings": ~2 ms more for 50

        res = self._run(kind, user_id, op, None, what="query")
        if res is None:
            return []
        ids = (res.get("ids") or [[]])[0]
        dists = (res.get("distances") or [[]])[0]
        metas = (res.get("metadatas") or [[]])[0] or [None] * len(ids)
        # tenancy check: a vector filed under the wrong user is never returned
        mine = [n for n, m in enumerate(metas) if (m or {}).get("user_id") == user_id]
        return [(ids[n], 1.0 - float(dists[n])) for n in mine]

    def get_embeddings(self, kind: VectorKind, ids: Sequence[str], *, user_id: str) -> dict[str, Vector]:
        """One user's stored vectors by id (ids not indexed are absent), through a bounded cache:
        read-only float32 arrays, shared with later reads (a recall stacks them for one matrix
        product; lists of Python floats cost ~16 us a vector each way).

        Raises:
            StorageError: Chroma fails.
        """
        with self._lock:
            out = {i: self._vec_cache[(kind, user_id, i)] for i in ids if (kind, user_id, i) in self._vec_cache}
        missing = [i for i in dict.fromkeys(ids) if i not in out]
        if not missing:
            return out
        res = self._run(kind, user_id, lambda col: col.get(ids=missing, include=["embeddings"]), None, what="get")
        embs = None if res is None else res.get("embeddings")
        if embs is None:
            return out
        return {**out, **self._cache_vectors(kind, user_id, dict(zip(res.get("ids") or [], embs)))}

    def _cache_vectors(self, kind: VectorKind, user_id: str, found: Mapping[str, Any]) -> dict[str, Vector]:
        """``found`` (Chroma's arrays) as read-only float32 arrays, kept in the bounded vector cache."""
        fresh = {i: np.array(e, dtype=np.float32) for i, e in found.items()}
        for v in fresh.values():
            v.flags.writeable = False  # shared by every read that finds it here
        with self._lock:
            for i, v in fresh.items():
                self._vec_cache[(kind, user_id, i)] = v
            while len(self._vec_cache) > _VEC_CACHE:
                self._vec_cache.popitem(last=False)
        return fresh

    def _forget(self, kind: VectorKind, user_id: str, ids: Sequence[str]) -> None:
        with self._lock:
            for i in ids:
                self._vec_cache.pop((kind, user_id, i), None)

    def delete(self, kind: VectorKind, ids: Sequence[str], *, user_id: str) -> None:
        """Remove one user's vectors by id (missing ids are ignored).

        Raises:
            StorageError: Chroma fails.
        """
        if ids:
            self._forget(kind, user_id, ids)
            self._run(kind, user_id, lambda col: col.delete(ids=list(ids)), None, what="delete")

    def delete_user(self, user_id: str) -> None:
        """Drop every collection of one user.

        Raises:
            StorageError: Chroma fails.
        """
        with self._lock:
            for key in [key for key in self._vec_cache if key[1] == user_id]:
                del self._vec_cache[key]
        self._drop([self.collection_name(kind, user_id) for kind in _KINDS])

    def get_user_ids(self, kind: VectorKind, user_id: str) -> list[str]:
        """Ids stored for one user (used by deletion checks and ``stats``).

        Raises:
            StorageError: Chroma fails.
        """
        res = self._run(kind, user_id, lambda col: col.get(include=[]), None, what="get")
        return [] if res is None else list(res.get("ids") or [])

    def count(self, kind: VectorKind) -> int:
        """Number of vectors of ``kind``, all users (one ``count`` per user collection).

        Raises:
            StorageError: Chroma fails.
        """
        try:
            total = 0
            for col in self.collections(kind):
                total += int(col.count())
                self.zero_unused(col)  # a first read writes the files of a collection not persisted yet
            return total
        except StorageError:
            raise
        except Exception as exc:
            raise StorageError(f"Chroma count failed: {exc}") from exc

    def reset(self) -> None:
        """Drop every collection of this index, legacy shared ones included (for ``reindex``).

        Raises:
            StorageError: Chroma fails.
        """
        with self._lock:
            self._vec_cache.clear()
        self._drop([c.name for c in self.collections()] + self.legacy_collections())

    def legacy_collections(self) -> list[str]:
        """Names of the shared collections earlier versions wrote (present on the client).

        Raises:
            StorageError: Chroma fails.
        """
        found: list[str] = []
        for name in (f"{self.prefix}_{kind}s" for kind in _KINDS):  # three look-ups, not a listing
            try:
                self.client.get_collection(name=name, embedding_function=None)
            except Exception as exc:
                if not _is_missing(exc):
                    raise StorageError(f"cannot open Chroma collection {name}: {exc}") from exc
                continue
            found.append(name)
        return found

    # -- files ----------------------------------------------------------------------------------
    def zero_unused(self, col: Any, *, locked: bool = False) -> None:
        """Zero what Chroma wrote past the vectors in ``col``'s HNSW files, if it wrote them since the
        last call (:class:`._hnsw_tails.HnswTails`; an embedded Chroma only). Called after every
        operation on a collection; never raises.

        Args:
            col: the collection just used.
            locked: the caller holds this directory's write lock.
        """
        if self._tails is not None:
            self._tails.settle(str(col.id), self._writes, locked=locked)

    def zero_all_unused(self) -> int:
        """Zero the unused capacity of every collection's HNSW files in this Chroma directory (dropped
        ones' too); returns how many bytes were zeroed (0 for a Chroma server).

        Raises:
            OSError: a file could not be read or written.
        """
        return 0 if self._tails is None else self._tails.sweep(self._writes)

    def local_path(self) -> Path | None:
        """The directory of an embedded (persistent, in-process) Chroma; ``None`` for a server."""
        if self._path is not None:
            return self._path
        try:
            settings = self.client.get_settings()
        except Exception:
            return None
        impl = str(getattr(settings, "chroma_api_impl", "") or "")
        if not getattr(settings, "is_persistent", False) or "fastapi" in impl.lower():
            return None
        where = getattr(settings, "persist_directory", None)
        return Path(where) if where else None

    def scrub(self) -> bool:
        """Make what Chroma deleted unrecoverable from its files (an embedded Chroma only).

        Chroma 1.5 neither zeroes deleted rows in ``chroma.sqlite3`` (its write-ahead queue
        and metadata tables leave them in free pages) nor removes a dropped collection's
        HNSW directory: see :func:`._chroma_scrub.scrub` (a child process; Chroma's client stays
        usable, its writes from this process wait meanwhile). It zeroes the HNSW files' unused
        capacity too, as :meth:`zero_unused` does after each operation.

        Returns:
            Whether the files were scrubbed (``False``: a Chroma server, whose files this
            process cannot reach, or a failure, logged as a warning).
        """
        root = self.local_path()
        if root is None or not root.is_dir():
            return False
        try:
            with self._writes:
                proc = run_child("scrub", root, _SCRUB_TIMEOUT_S)
        except (OSError, subprocess.SubprocessError) as exc:
            logger.warning("nova-memory: could not scrub Chroma's files in %s: %s", root, exc)
            return False
        if proc.returncode != 0:
            logger.warning("nova-memory: could not scrub Chroma's files in %s: %s", root,
                           (proc.stderr or "").strip().splitlines()[-1:] or proc.returncode)
            return False
        return True
