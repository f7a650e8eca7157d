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
is not readable in Chroma's files. Stores written by earlier versions kept the text as
documents: :meth:`VectorIndex.strip_text` rewrites their collections without it.
:meth:`VectorIndex.scrub` makes what Chroma deleted unrecoverable from its files (its
SQLite file keeps deleted rows in free pages, and a dropped collection's HNSW files stay
on disk).

Stores written by earlier versions kept three shared collections
(``{prefix}_episodes``, ``{prefix}_facts``, ``{prefix}_rules``): :meth:`VectorIndex.migrate_legacy`
drops them once SQLite (the system of record) has marked every row for re-indexing.
"""

from __future__ import annotations

import hashlib
import logging
import re
import subprocess
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np

from ..errors import StorageError
from ._chroma_scrub import SCRUB_SCRIPT

Vector = np.ndarray
"""A stored vector as :meth:`VectorIndex.get_embeddings` returns it: 1-D float32, read-only."""

__all__ = ["SCRUB_KEY", "TEXT_FREE_KEY", "Vector", "VectorIndex", "VectorKind", "unreachable"]

logger = logging.getLogger(__name__)

VectorKind = Literal["episode", "fact", "rule"]
_KINDS: tuple[VectorKind, ...] = ("episode", "fact", "rule")
TEXT_FREE_KEY = "vector_index_text_free"
"""``meta`` key: ``"1"`` once :meth:`VectorIndex.strip_text` left no text in the store's collections."""
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
_TMP = ".m"
"""Suffix of the copy :meth:`VectorIndex.strip_text` writes before it replaces a collection."""
_MAX_PREFIX = 512 - len("_episode_") - 2 * _HASH_BYTES - len(_TMP)  # Chroma names: at most 512 characters
_HASHED = "h_"
"""Prefix of a stored metadata key whose value is a digest (every key but ``user_id``)."""
_FILTER_KEY = re.compile(r"session_id|s\d+")
"""Metadata keys earlier versions wrote that queries filter on (kept, as digests, by ``strip_text``)."""
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


def _clean(meta: Mapping[str, Any] | None) -> dict[str, Any]:
    """Metadata an earlier version wrote, as this one writes it: ``user_id``, the filter keys as
    digests, nothing else (idempotent)."""
    out: dict[str, Any] = {}
    for key, value in (meta or {}).items():
        if key == "user_id" or key.startswith(_HASHED):
            out[key] = value
        elif _FILTER_KEY.fullmatch(key):
            out[_HASHED + key] = _digest(value)
    return out


def unreachable(exc: BaseException) -> bool:
    """Whether a Chroma error (or its cause) means the server cannot be reached (refused, reset,
    timed out): an outage to wait out, not a fault of the request."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, OSError) or any(
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
        self._path = path if client is None else None
        local = self.local_path()
        with _WRITES_GUARD:
            self._writes = _WRITES.setdefault(str(local.resolve()) if local else f"client:{id(client)}",
                                              threading.Lock())
        self._lock = threading.Lock()  # guards both caches
        self._create_lock = threading.Lock()  # one get_or_create at a time
        self._collections: OrderedDict[str, Any] = OrderedDict()
        self._vec_cache: OrderedDict[tuple[str, str, str], Vector] = OrderedDict()
        from .outage import Outage

        self.outage = Outage()  # whether reads find the index unreachable (recall skips it meanwhile)

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
                        return op(col)
                return op(col)
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
            return sum(int(col.count()) for col in self.collections(kind))
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

    # -- migration -----------------------------------------------------------------------------
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

    def migrate_legacy(self, mark_for_reindex: Callable[[], None]) -> bool:
        """Drop legacy shared collections, after ``mark_for_reindex`` flagged every row.

        Args:
            mark_for_reindex: marks every SQLite row as not indexed, so the indexer
                re-creates the vectors in per-user collections; it runs before anything
                is dropped, so a crash in between only repeats the migration.

        Returns:
            Whether legacy collections were found (and dropped).

        Raises:
            StorageError: Chroma fails.
        """
        legacy = self.legacy_collections()
        if not legacy:
            return False
        logger.warning("nova-memory: migrating the vector index to per-user collections: dropping %s and "
                       "re-indexing every row from SQLite in the background", ", ".join(legacy))
        mark_for_reindex()
        self._drop(legacy)
        return True

    def strip_text(self) -> int:
        """Rewrite this index's collections that hold text (documents, or metadata an earlier
        version wrote) with their ids, vectors and :func:`_clean` metadata only.

        A collection is copied to ``{name}.m``, dropped, and the copy renamed to ``{name}``:
        no vector is embedded again, and a crash at any point is repaired by the next call
        (a copy whose original still exists is discarded and made again; a copy whose
        original is gone is complete and takes its name). Idempotent: a clean collection is
        left as it is. Follow it with :meth:`scrub` (the old text stays in Chroma's free pages).

        Returns:
            How many collections were rewritten (or finished).

        Raises:
            StorageError: Chroma fails.
        """
        tmp = re.compile(rf"(?P<base>{self._own.pattern}){re.escape(_TMP)}")
        listed = {c.name: c for c in self._list()}
        done = 0
        try:
            for name, col in listed.items():
                found = tmp.fullmatch(name)
                if found is None:
                    continue
                if found["base"] in listed:
                    self._drop([name])  # interrupted while copying: copied again below
                else:
                    col.modify(name=found["base"])  # interrupted after dropping the original: the copy is whole
                    done += 1
            for col in self.collections():
                if self._holds_text(col):
                    self._rewrite(col)
                    done += 1
        except StorageError:
            raise
        except Exception as exc:
            raise StorageError(f"cannot remove the text from Chroma's collections: {exc}") from exc
        if done:
            logger.warning("nova-memory: removed the text Chroma held (documents, metadata) from %d collection(s) "
                           "of %r: Chroma keeps ids and vectors only", done, self.prefix)
        return done

    @staticmethod
    def _pages(col: Any, include: list[str]) -> Iterator[dict[str, Any]]:
        offset = 0
        while True:
            page = col.get(include=include, limit=_LIST_PAGE, offset=offset)
            ids = list(page.get("ids") or [])
            if not ids:
                return
            yield page
            offset += len(ids)

    def _holds_text(self, col: Any) -> bool:
        for page in self._pages(col, ["documents", "metadatas"]):
            docs = page.get("documents") or []
            metas = page.get("metadatas") or []
            if any(d is not None for d in docs) or any(dict(m or {}) != _clean(m) for m in metas):
                return True
        return False

    def _rewrite(self, col: Any) -> None:
        name = col.name
        copy: Any = self.client.create_collection(name=name + _TMP, embedding_function=None,
                                                  metadata=dict(col.metadata or {}))
        for page in self._pages(col, ["embeddings", "metadatas"]):
            ids = list(page["ids"])
            metas = list(page.get("metadatas") or [None] * len(ids))
            for start in range(0, len(ids), _UPSERT_ROWS):
                part = slice(start, start + _UPSERT_ROWS)
                copy.add(ids=ids[part], embeddings=[[float(x) for x in e] for e in page["embeddings"][part]],
                         metadatas=[_clean(m) for m in metas[part]])
        self._drop([name])
        with self._lock:
            self._collections.pop(name, None)
        copy.modify(name=name)

    # -- files ----------------------------------------------------------------------------------
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
        HNSW directory, and it writes uninitialised memory into the HNSW files of small
        collections: see :data:`._chroma_scrub.SCRUB_SCRIPT` (a child process; Chroma's client stays usable, its
        writes from this process wait meanwhile).

        Returns:
            Whether the files were scrubbed (``False``: a Chroma server, whose files this
            process cannot reach, or a failure, logged as a warning).
        """
        root = self.local_path()
        if root is None or not root.is_dir():
            return False
        try:
            with self._writes:
                proc = subprocess.run([sys.executable, "-I", "-S", "-c", SCRUB_SCRIPT, str(root)], capture_output=True,
                                      text=True, timeout=_SCRUB_TIMEOUT_S, check=False)
        except (OSError, subprocess.SubprocessError) as exc:
            logger.warning("nova-memory: could not scrub Chroma's files in %s: %s", root, exc)
            return False
        if proc.returncode != 0:
            logger.warning("nova-memory: could not scrub Chroma's files in %s: %s", root,
                           (proc.stderr or "").strip().splitlines()[-1:] or proc.returncode)
            return False
        return True
