"""``NovaLangGraphStore``: LangGraph's long-term memory store (``BaseStore``) over the NovaStore engine."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import reprlib
from collections.abc import Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Protocol

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from .._threads import reading
from .._time import to_epoch, utcnow
from ..embeddings.base import embedding_space
from ..engine.components import Components
from ..engine.validation import check_user
from ..errors import EmbeddingError, InvalidInputError, StorageError, StoreClosedError
from ..retrieval.lexical import match_expression
from ..retrieval.signals import dense
from ..storage.items import ITEM_KIND, StoredItem, item_index, item_vector_ids, join_scope, split_scope
from ..types import new_id
from ._items import NamespaceMap, check_op, encode_value, item_texts, matches, namespace_matches

__all__ = ["NovaLangGraphStore"]

logger = logging.getLogger(__name__)

SPACE_KEY = "items_embedding_space"
"""``meta`` key: the vector space of the items' vectors (see ``engine/indexer.SPACE_KEY``)."""
DENSE_K = 4096
"""Most vectors one search takes from the items' index (nearest first); items beyond them are
ranked by keywords alone (or last, unscored)."""
_RECOVER_BATCH = 256


class _Engine(Protocol):
    """What this adapter needs of a ``NovaStore``: its components and whether it is closed."""

    components: Components

    @property
    def closed(self) -> bool: ...


@dataclass
class _Vectors:
    """One item's vectors to write (or, ``deleted``, to drop) in the items' index."""

    user: str
    scope: tuple[str, ...]
    item_id: str
    old: int
    texts: list[str] = field(default_factory=list)
    vectors: list[list[float]] = field(default_factory=list)
    deleted: bool = False


class NovaLangGraphStore(BaseStore):
    """LangGraph's long-term memory ``BaseStore`` over a ``NovaStore``: tenant-safe JSON items with
    hybrid (dense + keyword) search.

    ``create_agent(model, tools, store=NovaLangGraphStore(...))`` gives tools ``runtime.store``;
    LangMem's memory tools work against it as against any ``BaseStore``. Items live in the
    same data directory (SQLite and Chroma) as the engine's episodes and facts, and
    ``NovaStore.forget(user)`` erases them with the rest of the user.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations langgraph

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.langgraph import NovaLangGraphStore

            engine = NovaStore("./memory")
            store = NovaLangGraphStore(engine)                    # namespace[0] is the user id
            store = NovaLangGraphStore(user_position=1)           # ("memories", user_id, ...): LangMem's layout
            alice = NovaLangGraphStore(engine, user_id="alice")   # every namespace is one of alice's scopes

    Usage:
        .. code-block:: python

            from dataclasses import dataclass
            from langchain.agents import create_agent
            from langchain.tools import ToolRuntime, tool

            @dataclass
            class Context:
                user_id: str

            @tool
            def remember(note: str, runtime: ToolRuntime[Context]) -> str:
                \"\"\"Save a note about the user.\"\"\"
                runtime.store.put((runtime.context.user_id, "notes"), note[:40], {"text": note})
                return "saved"

            @tool
            def recall(query: str, runtime: ToolRuntime[Context]) -> str:
                \"\"\"Search the user's notes.\"\"\"
                hits = runtime.store.search((runtime.context.user_id, "notes"), query=query, limit=3)
                return "\\n".join(h.value["text"] for h in hits)

            agent = create_agent(model, [remember, recall], store=store, context_schema=Context)
            agent.invoke({"messages": [("user", "I'm vegetarian")]}, context=Context(user_id="alice"))

            store.put(("alice", "prefs"), "diet", {"text": "vegetarian", "since": 2019})
            store.search(("alice",), query="what does she eat?", filter={"since": {"$lt": 2020}})
            await store.asearch(("alice", "prefs"), query="food")   # engine calls run off the event loop

    **Namespaces and users.** An item is stored as ``(user, scope, key)``; the namespace maps to
    the user one of three ways, fixed at construction:

    * ``user_position=p`` (default ``0`` when no ``user_id`` is given): ``namespace[p]`` is the
      user id and the scope is the namespace without it: ``("alice", "notes")`` is alice's scope
      ``("notes",)``. Every operation touches that one user: a ``get``/``put``/``delete``
      namespace must have a label at ``p``; a ``search`` prefix must reach ``p`` (``search(())``
      is refused); ``list_namespaces`` needs ``prefix=`` naming the user at ``p`` (not ``*``) and
      lists only that user's namespaces. Otherwise :class:`NamespaceError`.
    * ``user_id="alice"``: the store is alice's alone; every namespace, whatever its labels, is
      a scope of hers; ``search(())`` and ``list_namespaces()`` cover all of her items and no one
      else's.
    * both: ``namespace[p]`` must be ``user_id`` (another user's id is refused); prefixes that
      stop before ``p`` cover the bound user's items.

    No operation ever reads or writes another user's items, whatever the namespace says: SQL
    filters by the user, and each user's vectors are in their own Chroma collection. Items
    written through one mapping are seen through another at the same scope (``user_id=
    "alice"`` sees ``("notes",)`` where ``user_position=0`` sees ``("alice", "notes")``).

    **Storage.** SQLite, the system of record (table ``items``): the document as JSON exactly as
    given (it reads back equal, key order kept; values JSON cannot give back unchanged, such
    as tuples, sets, datetimes, non-string keys or NaN, are refused with
    :class:`~nova_memory_integrations.errors.InvalidInputError`), ``created_at`` from the first
    put (kept by later puts), ``updated_at`` of the last. Items are exported and imported with
    the rest of the store.

    **Indexing and search.** A put embeds the item's texts (``index`` paths, default
    ``index_fields``, ``"$"`` = the whole document; ``index=False`` = none) with the engine's
    embedder, synchronously, before anything is written, and writes the vectors into the user's
    own collection of the items' index (``storage.items.item_index``, on the engine's Chroma
    client) inside the indexer's per-user barrier, which erasure holds too. It does not go
    through the background indexer: LangGraph semantics want a put visible to the next search
    with its score, and ``aput`` runs off the event loop anyway. A failed vector write leaves
    the item stored and marked unindexed (found by keywords) until :meth:`recover` (run at
    construction, and after the next write that reaches the index) writes its vectors. A put
    costs one embedding call and one Chroma write (~10-40 ms on a local ``PersistentClient``);
    a batch of puts shares them. ``search(query=...)`` is hybrid: the user's nearest
    vectors within the prefix (``retrieval.signals.dense``, max over an item's vectors) plus
    BM25 over the same texts (SQLite FTS5, ``retrieval.lexical``); ``score = cos + w * kw *
    (1 - cos)`` with ``kw`` the item's BM25 over the best match's and ``w`` =
    ``keyword_weight``, so the score is the cosine similarity when the words do not match and
    keyword evidence lifts it towards 1. Filters (exact values, nested objects, lists,
    ``$eq $ne $gt $gte $lt $lte``, dotted paths) select the candidates first; matching items
    without a score (not indexed) follow the scored ones, most recently updated first, as
    without a query. A search with a query or a filter reads the user's items under the prefix
    from SQLite and filters them in Python (one user's store items: hundreds to tens of
    thousands); without either, SQLite pages them (``limit`` / ``offset``) directly.

    **Batches** follow LangGraph's stores: reads see the store as it was before the batch's
    writes; several puts to one key keep the last; all of a batch's writes commit in one
    SQLite transaction. TTL is not supported (``supports_ttl = False``; a ``ttl`` raises
    ``NotImplementedError``, as ``BaseStore`` does).

    Args:
        store: the ``NovaStore`` (any object with its ``components`` and ``closed``), or a data
            directory path; default: the process's shared store for ``$NOVA_MEMORY_HOME``
            (as the LangChain adapters).
        user_id: bind the store to this user (see above).
        user_position: the namespace label that names the user (default ``0`` without ``user_id``).
        index_fields: the paths indexed when a put gives no ``index`` (default ``["$"]``).
        keyword_weight: ``w`` above, in [0, 1]; ``0`` ranks by the dense similarity alone.

    Raises:
        InvalidInputError: a bad argument.
    """

    supports_ttl = False

    def __init__(
        self,
        store: _Engine | str | os.PathLike[str] | None = None,
        *,
        user_id: str | None = None,
        user_position: int | None = None,
        index_fields: Sequence[str] | None = None,
        keyword_weight: float = 0.5,
    ) -> None:
        if store is None or isinstance(store, (str, os.PathLike)):
            from ..langchain._shared import shared_store

            store = shared_store(store)
        if not isinstance(getattr(store, "components", None), Components):
            raise InvalidInputError(f"store must be a NovaStore or a path, got {type(store).__name__}", field="store")
        self._store = store
        self._c: Components = store.components
        limits = self._c.config.limits
        if user_id is not None:
            user_id = check_user(user_id, limits)
        if user_position is not None and (
            isinstance(user_position, bool) or not isinstance(user_position, int) or user_position < 0
        ):
            raise InvalidInputError("user_position must be an integer >= 0", field="user_position")
        self._map = NamespaceMap(user_id, 0 if user_id is None and user_position is None else user_position)
        fields = ["$"] if index_fields is None else index_fields
        if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields) or not fields:
            raise InvalidInputError("index_fields must be a non-empty list of field paths", field="index_fields")
        self._fields = tuple(fields)
        if (
            isinstance(keyword_weight, bool)
            or not isinstance(keyword_weight, (int, float))
            or not 0.0 <= keyword_weight <= 1.0
        ):
            raise InvalidInputError("keyword_weight must be a number in [0, 1]", field="keyword_weight")
        self._keyword_weight = float(keyword_weight)
        self._vectors = item_index(self._c.vectors)
        self._dirty = False
        self._adopt_space()
        self.recover()

    # -- properties -----------------------------------------------------------------------------------------------
    @property
    def user_id(self) -> str | None:
        """The bound user, if any."""
        return self._map.user_id

    @property
    def user_position(self) -> int | None:
        """The namespace label that names the user, if any."""
        return self._map.position

    @property
    def index_fields(self) -> tuple[str, ...]:
        """The paths indexed by default."""
        return self._fields

    def __repr__(self) -> str:
        return (
            f"NovaLangGraphStore(path={str(self._c.path)!r}, user_id={self._map.user_id!r}, "
            f"user_position={self._map.position!r})"
        )

    # -- BaseStore ------------------------------------------------------------------------------------------------
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run operations in order (reads see the store before this batch's writes).

        Raises:
            NamespaceError: a namespace breaks LangGraph's label rules or the user mapping.
            InvalidInputError: a bad key, value, index, filter, limit or offset (nothing is done).
            NotImplementedError: a ``PutOp`` with a ``ttl``.
            EmbeddingError / StorageError: the embedder or SQLite failed.
            StoreClosedError: the ``NovaStore`` was closed.
        """
        if self._store.closed:
            raise StoreClosedError("the NovaStore of this NovaLangGraphStore is closed")
        limits = self._c.config.limits
        checked = [check_op(op, limits) for op in ops]
        where = [self._locate(op) for op in checked]  # every namespace maps to its user before any work
        results: list[Result] = [None] * len(checked)
        writes: dict[tuple[str, str, str], tuple[PutOp, str, tuple[str, ...]]] = {}
        for n, (op, (user, scope)) in enumerate(zip(checked, where)):
            if isinstance(op, GetOp):
                results[n] = self._get(op, user, scope)
            elif isinstance(op, SearchOp):
                results[n] = self._search(op, user, scope)
            elif isinstance(op, ListNamespacesOp):
                results[n] = self._list_namespaces(op, user)
            else:
                assert isinstance(op, PutOp)
                writes.pop((user, join_scope(scope), op.key), None)
                writes[(user, join_scope(scope), op.key)] = (op, user, scope)  # the last put of a key wins
        if writes:
            self._write(list(writes.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread: embedding, SQLite and Chroma never block the event loop."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- operations -------------------------------------------------------------------------------------------------
    def _locate(self, op: Op) -> tuple[str, tuple[str, ...]]:
        limits = self._c.config.limits
        if isinstance(op, (GetOp, PutOp)):
            return self._map.locate(op.namespace, limits)
        if isinstance(op, SearchOp):
            return self._map.locate_prefix(op.namespace_prefix, limits)
        return self._map.listing_user(op.match_conditions or (), limits), ()

    def _get(self, op: GetOp, user: str, scope: tuple[str, ...]) -> Item | None:
        found = self._c.db.get_item(user, join_scope(scope), op.key)
        if found is None:
            return None
        return Item(
            value=found.value,
            key=found.key,
            namespace=tuple(op.namespace),
            created_at=found.created_at,
            updated_at=found.updated_at,
        )

    def _search(self, op: SearchOp, user: str, scope: tuple[str, ...]) -> list[SearchItem]:
        db = self._c.db
        query = (op.query or "").strip()
        position = self._map.position
        if not query and not op.filter and (position is None or len(scope) >= position):  # every row is in view
            page = db.list_items(user, join_scope(scope), limit=op.limit, offset=op.offset)
            return [_search_item(it, self._map.namespace(user, it.scope) or it.scope, None) for it in page]
        rows = db.list_items(user, join_scope(scope))
        candidates = [
            (it, ns)
            for it in rows
            if (ns := self._map.namespace(user, it.scope)) is not None and matches(it.value, op.filter)
        ]
        if not query:
            return [_search_item(it, ns, None) for it, ns in candidates[op.offset : op.offset + op.limit]]
        with reading():  # the indexer gives way to it
            scores = self._scores(user, scope, query, rows, {it.id for it, _ in candidates})
        scored = sorted((c for c in candidates if c[0].id in scores), key=lambda c: -scores[c[0].id])
        ranked = scored + [c for c in candidates if c[0].id not in scores]
        return [_search_item(it, ns, scores.get(it.id)) for it, ns in ranked[op.offset : op.offset + op.limit]]

    def _scores(
        self, user: str, scope: tuple[str, ...], query: str, rows: list[StoredItem], wanted: set[str]
    ) -> dict[str, float]:
        """Hybrid scores of the ``wanted`` items: dense cosine lifted by keyword (BM25) evidence."""
        c = self._c
        indexed = {it.id for it in rows if it.indexed and it.vectors}
        total = sum(it.vectors for it in rows if it.id in indexed)
        cosine: dict[str, float] = {}
        if total and wanted & indexed:
            where = {f"s{n}": label for n, label in enumerate(scope)} or None
            for vector_id, similarity in dense(
                self._vectors, ITEM_KIND, c.embedder.embed_query(query), user, min(total, DENSE_K), where
            ):
                item_id = vector_id.rpartition(":")[0]
                if item_id in wanted and item_id in indexed and similarity > cosine.get(item_id, -math.inf):
                    cosine[item_id] = similarity  # max over an item's vectors
        keyword: dict[str, float] = {}
        expr = match_expression(query)
        if expr is not None and self._keyword_weight > 0:
            hits = [(i, s) for i, s in c.db.fts_items(user, expr, join_scope(scope), len(rows)) if i in wanted]
            best = max((s for _, s in hits), default=0.0)
            keyword = {i: s / best for i, s in hits if s > 0} if best > 0 else {}
        w = self._keyword_weight
        out: dict[str, float] = {}
        for item_id in wanted:
            cos, kw = cosine.get(item_id), keyword.get(item_id, 0.0)
            if cos is not None:
                out[item_id] = cos + w * kw * (1.0 - cos)
            elif kw:
                out[item_id] = w * kw
        return out

    def _list_namespaces(self, op: ListNamespacesOp, user: str) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        found = [
            ns
            for scope in self._c.db.item_scopes(user)
            if (ns := self._map.namespace(user, split_scope(scope))) is not None
            and all(namespace_matches(ns, cond) for cond in conditions)
        ]
        if op.max_depth is not None:
            found = [ns[: op.max_depth] for ns in found]
        return sorted(set(found))[op.offset : op.offset + op.limit]

    # -- writes -----------------------------------------------------------------------------------------------------
    def _write(self, writes: list[tuple[PutOp, str, tuple[str, ...]]]) -> None:
        """Embed, then (under the users' barriers) write SQLite in one transaction and the vectors."""
        c = self._c
        prepared: list[tuple[PutOp, str, tuple[str, ...], str | None, list[str], list[str]]] = []
        for op, user, scope in writes:
            if op.value is None:
                prepared.append((op, user, scope, None, [], []))
                continue
            paths = [] if op.index is False else list(self._fields if op.index is None else op.index)
            prepared.append((op, user, scope, encode_value(op.value), paths, item_texts(op.value, paths)))
        texts = [t for *_, item in prepared for t in item]
        vectors = c.embedder.embed_documents(texts) if texts else []  # EmbeddingError: nothing written
        with ExitStack() as barriers:
            for user in sorted({user for _, user, *_ in prepared}):
                barriers.enter_context(c.indexer.barrier(user))
            at = to_epoch(utcnow()) or 0.0
            pending: list[_Vectors] = []
            start = 0
            with c.db.transaction():
                for op, user, scope, value, paths, item in prepared:
                    text_scope = join_scope(scope)
                    if value is None:
                        gone = c.db.delete_item(user, text_scope, op.key)
                        if gone is not None:
                            pending.append(_Vectors(user, scope, gone[0], gone[1], deleted=True))
                        continue
                    item_id, old = c.db.put_item(
                        user, text_scope, op.key, value, json.dumps(paths), "\n".join(item), at, new_id("it")
                    )
                    pending.append(_Vectors(user, scope, item_id, old, item, vectors[start : start + len(item)]))
                    start += len(item)
            was_dirty = self._dirty
            written = self._write_vectors(pending)
            if any(p.deleted for p in pending):
                c.db.scrub_items()
        if was_dirty and written:  # the index is reachable again: catch up on items a failure left behind
            self.recover()

    def _write_vectors(self, pending: list[_Vectors]) -> bool:
        """Replace the items' vectors in the index and mark them indexed (the caller holds the
        users' barriers); on failure the items stay unindexed for :meth:`recover`."""
        if not pending:
            return True
        c = self._c
        stale: dict[str, list[str]] = {}
        for p in pending:
            keep = 0 if p.deleted else len(p.texts)
            stale.setdefault(p.user, []).extend(item_vector_ids(p.item_id, keep, p.old))
        fresh = [p for p in pending if not p.deleted and p.texts]
        try:
            for user, ids in stale.items():
                self._vectors.delete(ITEM_KIND, ids, user_id=user)
            self._vectors.upsert(
                ITEM_KIND,
                [i for p in fresh for i in item_vector_ids(p.item_id, 0, len(p.texts))],
                [v for p in fresh for v in p.vectors],
                [_metadata(p) for p in fresh for _ in p.texts],
            )
        except StorageError as exc:
            self._dirty = True
            logger.warning(
                "nova-memory: writing the vectors of %d LangGraph store item(s) failed (%s); they are "
                "stored and found by keywords until NovaLangGraphStore.recover() indexes them",
                len(pending),
                exc,
            )
            return False
        with c.db.transaction():
            for p in pending:
                if not p.deleted:
                    c.db.mark_item_indexed(p.user, p.item_id, len(p.texts))
        return True

    # -- index maintenance ------------------------------------------------------------------------------------------
    def recover(self) -> int:
        """Write the vectors of every item left unindexed (a crash or a failed vector write between
        SQLite and Chroma, an import, a rebuild); returns how many items were indexed."""
        c = self._c
        done = 0
        self._dirty = False
        while True:
            rows = c.db.unindexed_items(_RECOVER_BATCH)
            if not rows:
                return done
            by_user: dict[str, list[StoredItem]] = {}
            for row in rows:
                by_user.setdefault(row.user_id, []).append(row)
            for user, items in by_user.items():
                with c.indexer.barrier(user):
                    pending = []
                    for row in items:
                        now = c.db.get_item(user, join_scope(row.scope), row.key)
                        if now is None or now.id != row.id or now.indexed:
                            continue
                        texts = item_texts(now.value, now.index_paths)
                        try:
                            vectors = c.embedder.embed_documents(texts) if texts else []
                        except EmbeddingError as exc:
                            self._dirty = True
                            logger.warning(
                                "nova-memory: embedding LangGraph store items failed (%s); they stay "
                                "unindexed until NovaLangGraphStore.recover()",
                                exc,
                            )
                            return done
                        pending.append(_Vectors(user, now.scope, now.id, now.vectors, texts, vectors))
                    if not self._write_vectors(pending):
                        return done
                    done += len(pending)

    def reindex(self) -> int:
        """Rebuild the items' vectors with the engine's current embedder (after a model change);
        returns how many items were indexed. Run it while nothing else writes items."""
        self._vectors.reset()
        self._c.db.reset_items_indexed()
        self._c.db.set_meta(SPACE_KEY, embedding_space(self._c.embedder))
        return self.recover()

    def _adopt_space(self) -> None:
        """Record the embedder's vector space; on a change, rebuild or warn per
        ``embeddings.on_model_change`` (as the engine's index does)."""
        current = embedding_space(self._c.embedder)
        recorded = self._c.db.get_meta(SPACE_KEY)
        if recorded is None:
            self._c.db.set_meta(SPACE_KEY, current)
        elif recorded != current:
            if self._c.config.embeddings.on_model_change == "reindex":
                self.reindex()
            else:
                logger.warning(
                    "nova-memory: the LangGraph store items' vectors were made by %s but the store now "
                    "embeds with %s: dense search over them will be poor until "
                    "NovaLangGraphStore.reindex()",
                    reprlib.repr(recorded),
                    reprlib.repr(current),
                )


def _metadata(p: _Vectors) -> dict[str, str | int | float | bool]:
    meta: dict[str, str | int | float | bool] = {"user_id": p.user}  # no text: the index stores digests
    meta.update({f"s{n}": label for n, label in enumerate(p.scope)})
    return meta


def _search_item(it: StoredItem, namespace: tuple[str, ...], score: float | None) -> SearchItem:
    return SearchItem(
        namespace=namespace, key=it.key, value=it.value, created_at=it.created_at, updated_at=it.updated_at, score=score
    )
