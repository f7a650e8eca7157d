"""``ItemService``: JSON documents kept by ``(user, scope, key)``, their vectors and hybrid search.

The engine side of the LangGraph store (``NovaStore.items``; the adapter,
:class:`nova_memory_integrations.langgraph.NovaLangGraphStore`, only translates LangGraph's
operations into these calls). It takes the :class:`~..engine.components.Components` bundle:
SQLite is the system of record (``storage/items``), each user's vectors live in their own
collection of the items' vector index (:func:`~..storage.items.item_index`).

What an item is indexed by is the caller's business: a write carries the item's texts, and
recovery and rebuilds ask the caller's ``texts_of(document, index_paths)`` for them again (the
paths are the adapter's path language, LangGraph's for ``NovaLangGraphStore``).

Writes embed before anything is written, then, under the indexer's per-user barriers (which
erasure holds too), commit SQLite in one transaction and write the vectors. A failed vector
write leaves the items stored and unindexed (BM25 still finds them) until :meth:`ItemService.recover`,
which the next write that reaches the index runs by itself.
"""

from __future__ import annotations

import json
import logging
import math
import reprlib
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

from .._threads import reading
from .._time import to_epoch, utcnow
from ..embeddings.base import embedding_space
from ..engine.components import Components
from ..errors import EmbeddingError, StorageError
from ..retrieval.lexical import match_expression
from ..retrieval.signals import dense
from ..storage.items import ITEM_KIND, StoredItem, item_index, item_vector_ids, join_scope, split_scope
from ..types import new_id

__all__ = [
    "DENSE_K",
    "SPACE_KEY",
    "ItemHit",
    "ItemService",
    "ItemWrite",
    "StoredItem",
    "TextsOf",
    "check_items_embedding_space",
]

logger = logging.getLogger(__name__)

SPACE_KEY = "items_embedding_space"
"""``meta`` key: the vector space of the items' vectors (see ``engine/indexer.SPACE_KEY``)."""
DENSE_K = 4096
"""Most vectors one search takes from the items' index (nearest first); items beyond them are
ranked by keywords alone (or last, unscored)."""
_RECOVER_BATCH = 256

TextsOf = Callable[[Mapping[str, Any], Sequence[str]], list[str]]
"""The texts a stored document is indexed by, one vector each, given its index paths."""


@dataclass(frozen=True)
class ItemWrite:
    """One put (``value`` set) or delete (``value=None``) of the item at ``(user_id, scope, key)``.

    Attributes:
        value: the document as JSON text (checked by the caller); ``None`` deletes the item.
        index_paths: the paths its texts were taken at (stored, for :meth:`ItemService.recover`).
        texts: the texts it is indexed by, one vector each (none: found by nothing but listing).
    """

    user_id: str
    scope: tuple[str, ...]
    key: str
    value: str | None
    index_paths: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()


@dataclass(frozen=True)
class ItemHit:
    """One item a search found, with its score (``None``: matched, but neither indexed nor a keyword hit)."""

    item: StoredItem
    score: float | None


@dataclass
class _Vectors:
    """One item's vectors to write (or, ``deleted``, to drop) in the items' index."""

    user: str
    scope: tuple[str, ...]
    item_id: str
    old: int
    texts: Sequence[str] = ()
    vectors: list[list[float]] = field(default_factory=list)
    deleted: bool = False


def check_items_embedding_space(c: Components) -> bool:
    """Meta flag ``items_embedding_space``: record the embedder's vector space the first time; on a
    change, warn (``embeddings.on_model_change = "warn"``) or return ``True``: the items' index
    must be rebuilt (``"reindex"``). Runs whenever the items are opened, not once."""
    current = embedding_space(c.embedder)
    recorded = c.db.get_meta(SPACE_KEY)
    if recorded is None:
        c.db.set_meta(SPACE_KEY, current)
        return False
    if recorded == current:
        return False
    if c.config.embeddings.on_model_change == "reindex":
        return True
    logger.warning(
        "nova-memory: the LangGraph store items' vectors were made by %s but the store now "
        "embeds with %s: dense search over them will be poor until "
        "NovaLangGraphStore.reindex()",
        reprlib.repr(recorded),
        reprlib.repr(current),
    )
    return False


class ItemService:
    """Put, get, list, search, recover and rebuild the items of one store (``NovaStore.items``).

    Every read and write names its user; scopes are tuples of labels (without ``.``), a scope
    covering itself and every scope below it.

    Args:
        components: the store's components.
    """

    def __init__(self, components: Components) -> None:
        self._c = components
        self._vectors = item_index(components.vectors)
        self._dirty = False  # a vector write failed since the last recover

    # -- reads ----------------------------------------------------------------------------------------------------
    def get(self, user_id: str, scope: Sequence[str], key: str) -> StoredItem | None:
        """The user's item at ``(scope, key)``, if any."""
        return self._c.db.get_item(user_id, join_scope(scope), key)

    def list_items(
        self, user_id: str, scope: Sequence[str], *, limit: int | None = None, offset: int = 0
    ) -> list[StoredItem]:
        """The user's items in ``scope`` and below, most recently updated first (paged by SQLite)."""
        return self._c.db.list_items(user_id, join_scope(scope), limit=limit, offset=offset)

    def scopes(self, user_id: str | None) -> list[tuple[str, tuple[str, ...]]]:
        """``(user, scope)`` of every scope holding an item of ``user_id`` (``None``: of every user,
        for server-side code that may name any user), sorted."""
        if user_id is not None:
            return [(user_id, split_scope(s)) for s in self._c.db.item_scopes(user_id)]
        return [(user, split_scope(s)) for user, s in self._c.db.item_scopes_of_every_user()]

    def search(
        self,
        user_id: str,
        scope: Sequence[str],
        query: str | None = None,
        *,
        keep: Callable[[StoredItem], bool] | None = None,
        limit: int = 10,
        offset: int = 0,
        keyword_weight: float = 0.5,
    ) -> list[ItemHit]:
        """The user's items in ``scope`` and below that ``keep`` accepts, best first.

        With a query: the items with a score first (highest first), then the rest; the score is
        ``cos + w * kw * (1 - cos)``, the item's best cosine similarity to the query lifted by its
        BM25 over the best match's (``kw``) times ``keyword_weight`` (``w``). Without one: most
        recently updated first (SQLite pages them when nothing is to be kept out).
        """
        text = (query or "").strip()
        if not text and keep is None:
            return [ItemHit(it, None) for it in self.list_items(user_id, scope, limit=limit, offset=offset)]
        rows = self.list_items(user_id, scope)
        candidates = [it for it in rows if keep is None or keep(it)]
        if not text:
            return [ItemHit(it, None) for it in candidates[offset : offset + limit]]
        with reading():  # the indexer gives way to a search in flight
            scores = self._scores(user_id, scope, text, rows, {it.id for it in candidates}, keyword_weight)
        scored = sorted((it for it in candidates if it.id in scores), key=lambda it: -scores[it.id])
        ranked = scored + [it for it in candidates if it.id not in scores]
        return [ItemHit(it, scores.get(it.id)) for it in ranked[offset : offset + limit]]

    def _scores(
        self, user: str, scope: Sequence[str], query: str, rows: list[StoredItem], wanted: set[str], w: float
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
        if expr is not None and w > 0:
            hits = [(i, s) for i, s in c.db.fts_items(user, expr, join_scope(scope), len(rows)) if i in wanted]
            best = max((s for _, s in hits), default=0.0)
            keyword = {i: s / best for i, s in hits if s > 0} if best > 0 else {}
        out: dict[str, float] = {}
        for item_id in wanted:
            cos, kw = cosine.get(item_id), keyword.get(item_id, 0.0)
            if cos is not None:
                out[item_id] = cos + w * kw * (1.0 - cos)
            elif kw:
                out[item_id] = w * kw
        return out

    # -- writes ---------------------------------------------------------------------------------------------------
    def write(self, writes: Sequence[ItemWrite], texts_of: TextsOf) -> None:
        """Embed the puts' texts, then (under the users' barriers) commit every write in one SQLite
        transaction and write their vectors; a failure to write the vectors leaves the items
        unindexed for :meth:`recover` (``texts_of``: run by itself once the index is reachable again).

        Raises:
            EmbeddingError: the embedder failed (nothing is written).
            StorageError: SQLite failed (nothing is written).
        """
        c = self._c
        texts = [t for w in writes if w.value is not None for t in w.texts]
        vectors = c.embedder.embed_documents(texts) if texts else []  # EmbeddingError: nothing written
        with ExitStack() as barriers:
            for user in sorted({w.user_id for w in writes}):
                barriers.enter_context(c.indexer.barrier(user))
            at = to_epoch(utcnow()) or 0.0
            pending: list[_Vectors] = []
            start = 0
            with c.db.transaction():
                for w in writes:
                    text_scope = join_scope(w.scope)
                    if w.value is None:
                        gone = c.db.delete_item(w.user_id, text_scope, w.key)
                        if gone is not None:
                            pending.append(_Vectors(w.user_id, w.scope, gone[0], gone[1], deleted=True))
                        continue
                    item_id, old = c.db.put_item(
                        w.user_id, text_scope, w.key, w.value, json.dumps(list(w.index_paths)),
                        "\n".join(w.texts), at, new_id("it"),
                    )  # fmt: skip
                    end = start + len(w.texts)
                    pending.append(_Vectors(w.user_id, w.scope, item_id, old, w.texts, vectors[start:end]))
                    start = end
            was_dirty = self._dirty
            written = self._write_vectors(pending)
            if any(p.deleted for p in pending):
                c.db.scrub_items()
        if was_dirty and written:  # the index is reachable again: catch up on items a failure left behind
            self.recover(texts_of)

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

    # -- index maintenance ----------------------------------------------------------------------------------------
    def prepare(self, texts_of: TextsOf) -> int:
        """On opening: adopt the embedder's vector space (:func:`check_items_embedding_space`,
        rebuilding the index when configured to), then :meth:`recover`; returns the items indexed."""
        if check_items_embedding_space(self._c):
            return self.reindex(texts_of)
        return self.recover(texts_of)

    def recover(self, texts_of: TextsOf) -> int:
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
                        texts = texts_of(now.value, now.index_paths)
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

    def reindex(self, texts_of: TextsOf) -> int:
        """Rebuild the items' vectors with the engine's current embedder (after a model change);
        returns how many items were indexed. Run it while nothing else writes items."""
        self._vectors.reset()
        self._c.db.reset_items_indexed()
        self._c.db.set_meta(SPACE_KEY, embedding_space(self._c.embedder))
        return self.recover(texts_of)


def _metadata(p: _Vectors) -> dict[str, str | int | float | bool]:
    meta: dict[str, str | int | float | bool] = {"user_id": p.user}  # no text: the index stores digests
    meta.update({f"s{n}": label for n, label in enumerate(p.scope)})
    return meta
