"""``NovaLangGraphStore``: LangGraph's long-term memory store (``BaseStore``) over the NovaStore engine."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Sequence
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

from ..engine.components import Components
from ..engine.validation import check_user
from ..errors import InvalidInputError, StoreClosedError
from ..items import ItemService, ItemWrite, StoredItem
from ._items import NamespaceMap, check_op, encode_value, item_texts, matches, namespace_matches

__all__ = ["NovaLangGraphStore"]


class _Engine(Protocol):
    """What this adapter needs of a ``NovaStore``: its components, its items service and whether it is closed."""

    components: Components

    @property
    def items(self) -> ItemService: ...

    @property
    def closed(self) -> bool: ...


class NovaLangGraphStore(BaseStore):
    """LangGraph's long-term memory ``BaseStore`` over a ``NovaStore``: tenant-safe JSON items with
    hybrid (dense + keyword) search.

    ``create_agent(model, tools, store=NovaLangGraphStore(...))`` gives tools ``runtime.store``;
    LangMem's memory tools work against it as against any ``BaseStore``. Items live in the
    same data directory (SQLite and Chroma) as the engine's episodes and facts, and
    ``NovaStore.forget(user)`` erases them with the rest of the user.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations   # langgraph is a dependency

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
      ``("notes",)``. A get, put, delete or search touches that one user: a ``get``/``put``/``delete``
      namespace must have a label at ``p``; a ``search`` prefix must reach ``p`` (``search(())``
      is refused, :class:`NamespaceError`). ``list_namespaces`` lists every user's namespaces
      (as LangGraph's own stores do; a ``prefix=`` naming the user at ``p`` lists that user's
      alone): a store bound to no user is server-side code that can name any user's namespace.
    * ``user_id="alice"``: the store is alice's alone; every namespace, whatever its labels, is
      a scope of hers; ``search(())`` and ``list_namespaces()`` cover all of her items and no one
      else's.
    * both: ``namespace[p]`` must be ``user_id`` (another user's id is refused); prefixes that
      stop before ``p`` (or hold ``*`` there) cover the bound user's items, and listings too.

    A get, put, delete or search touches the one user its namespace maps to, whatever the rest of
    it says: SQL filters by the user, and each user's vectors are in their own Chroma collection.
    A store bound to a user never reads or writes another user's items, nor lists their
    namespaces; only an unbound store's listing spans users. Items written through one mapping
    are seen through another at the same scope (``user_id="alice"`` sees ``("notes",)`` where
    ``user_position=0`` sees ``("alice", "notes")``).

    **Storage.** SQLite, the system of record (table ``items``): the document as JSON exactly as
    given (it reads back equal, key order kept; values JSON cannot give back unchanged, such
    as tuples, sets, datetimes, non-string keys or NaN, are refused with
    :class:`~nova_memory_integrations.errors.InvalidInputError`), ``created_at`` from the first
    put (kept by later puts), ``updated_at`` of the last. Items are exported and imported with
    the rest of the store.

    **Indexing and search** are the engine's (``NovaStore.items``, ``items/service.py``); this
    class translates LangGraph's operations into its calls. A put embeds the item's texts
    (``index`` paths, default ``index_fields``, ``"$"`` = the whole document; ``index=False`` =
    none: the texts at LangGraph's paths, picked here) with the engine's
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
        store: the ``NovaStore`` (any object with its ``components``, ``items`` and ``closed``), or a data
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
        if not isinstance(getattr(store, "components", None), Components) or not isinstance(
            getattr(store, "items", None), ItemService
        ):
            raise InvalidInputError(f"store must be a NovaStore or a path, got {type(store).__name__}", field="store")
        self._store = store
        self._items: ItemService = store.items
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
        self._items.prepare(item_texts)  # the embedder's vector space adopted, items left unindexed indexed

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
        writes: dict[tuple[str, tuple[str, ...], str], tuple[PutOp, str, tuple[str, ...]]] = {}
        for n, (op, (user, scope)) in enumerate(zip(checked, where)):
            if isinstance(op, GetOp):
                assert user is not None
                results[n] = self._get(op, user, scope)
            elif isinstance(op, SearchOp):
                assert user is not None
                results[n] = self._search(op, user, scope)
            elif isinstance(op, ListNamespacesOp):
                results[n] = self._list_namespaces(op, user)
            else:
                assert isinstance(op, PutOp) and user is not None
                writes.pop((user, scope, op.key), None)
                writes[(user, scope, op.key)] = (op, user, scope)  # the last put of a key wins
        if writes:
            self._items.write([self._write_of(*w) for w in writes.values()], item_texts)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread: embedding, SQLite and Chroma never block the event loop."""
        return await asyncio.to_thread(self.batch, list(ops))

    # -- operations -------------------------------------------------------------------------------------------------
    def _locate(self, op: Op) -> tuple[str | None, tuple[str, ...]]:
        """``(user, scope)`` of an operation (a listing's user is ``None`` when it spans every user)."""
        limits = self._c.config.limits
        if isinstance(op, (GetOp, PutOp)):
            return self._map.locate(op.namespace, limits)
        if isinstance(op, SearchOp):
            return self._map.locate_prefix(op.namespace_prefix, limits)
        return self._map.listing_user(op.match_conditions or (), limits), ()

    def _get(self, op: GetOp, user: str, scope: tuple[str, ...]) -> Item | None:
        found = self._items.get(user, scope, op.key)
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
        position = self._map.position
        flt = op.filter
        if not flt and (position is None or len(scope) >= position):  # every row is in view
            keep = None
        else:

            def keep(it: StoredItem) -> bool:
                return self._map.namespace(user, it.scope) is not None and matches(it.value, flt)

        hits = self._items.search(
            user, scope, op.query, keep=keep, limit=op.limit, offset=op.offset, keyword_weight=self._keyword_weight
        )
        return [_search_item(h.item, self._map.namespace(user, h.item.scope) or h.item.scope, h.score) for h in hits]

    def _list_namespaces(self, op: ListNamespacesOp, user: str | None) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        found = [
            ns
            for owner, scope in self._items.scopes(user)
            if (ns := self._map.namespace(owner, scope)) is not None
            and all(namespace_matches(ns, cond) for cond in conditions)
        ]
        if op.max_depth is not None:
            found = [ns[: op.max_depth] for ns in found]
        return sorted(set(found))[op.offset : op.offset + op.limit]

    def _write_of(self, op: PutOp, user: str, scope: tuple[str, ...]) -> ItemWrite:
        """The put (or, ``value=None``, delete) as the items service takes it: the document as JSON,
        the texts at its index paths (``index_fields`` unless the put says)."""
        if op.value is None:
            return ItemWrite(user, scope, op.key, None)
        paths = () if op.index is False else tuple(self._fields if op.index is None else op.index)
        return ItemWrite(user, scope, op.key, encode_value(op.value), paths, tuple(item_texts(op.value, paths)))

    # -- index maintenance ------------------------------------------------------------------------------------------
    def recover(self) -> int:
        """Write the vectors of every item left unindexed (a crash or a failed vector write between
        SQLite and Chroma, an import, a rebuild); returns how many items were indexed."""
        return self._items.recover(item_texts)

    def reindex(self) -> int:
        """Rebuild the items' vectors with the engine's current embedder (after a model change);
        returns how many items were indexed. Run it while nothing else writes items."""
        return self._items.reindex(item_texts)


def _search_item(it: StoredItem, namespace: tuple[str, ...], score: float | None) -> SearchItem:
    return SearchItem(
        namespace=namespace, key=it.key, value=it.value, created_at=it.created_at, updated_at=it.updated_at, score=score
    )
