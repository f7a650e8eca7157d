"""The engine's named migrations: the steps that need the vector index or the embedder.

They are recorded in the store's ``migrations`` table beside the storage steps (the mechanism
and the storage steps: :mod:`nova_memory_integrations.storage.migrations`), and applied, in
the order below, by :meth:`Components.recover <.components.Components.recover>` when a store
opens, before anything is indexed. Chroma and SQLite share no transaction: each step is
recorded once it returns, and running one again (after a crash in between) is harmless.
"""

from __future__ import annotations

import logging
from typing import Protocol

from ..embeddings.base import CachedEmbedder
from ..storage.items import item_index
from ..storage.migrations import Migrations, meta_is
from ..storage.sqlite import SQLiteStore
from ..storage.vector_migrations import TEXT_FREE_KEY, drop_shared_collections, strip_text
from ..storage.vectors import SCRUB_KEY, VectorIndex
from .indexer import SPACE_KEY, Indexer

__all__ = ["ENGINE", "EngineParts", "apply_engine_migrations"]

logger = logging.getLogger(__name__)


class EngineParts(Protocol):
    """What the engine's steps work with (:class:`~.components.Components` has it)."""

    @property
    def db(self) -> SQLiteStore: ...

    @property
    def vectors(self) -> VectorIndex: ...

    @property
    def indexer(self) -> Indexer: ...

    @property
    def embedder(self) -> CachedEmbedder: ...


ENGINE: Migrations[EngineParts] = Migrations("engine", atomic=False)
"""The engine's steps, in the order they run."""


def _nothing_on_postgres(c: EngineParts) -> None:
    """The Postgres form of a step that rewrites what earlier versions left in Chroma's files: a
    Postgres store never held those layouts (it is recorded as applied, having nothing to do)."""


@ENGINE(postgres=_nothing_on_postgres)
def per_user_collections(c: EngineParts) -> None:
    """Drop the three shared collections of the earliest versions (``{prefix}_episodes`` ...) once
    every row is marked for indexing again: the indexer rebuilds the vectors in per-user
    collections. Chroma's files are scrubbed next if anything was dropped."""
    if drop_shared_collections(c.vectors, c.db.reset_indexed):
        c.db.set_meta(SCRUB_KEY, "1")


@ENGINE(ran_before=meta_is(TEXT_FREE_KEY, "1"), postgres=_nothing_on_postgres)
def text_free_vector_index(c: EngineParts) -> None:
    """Rewrite the collections (memories and LangGraph items) that still hold text (documents, or
    metadata values other than ``user_id`` and digests) with their ids, vectors and digests only;
    Chroma's files are scrubbed next if any was rewritten."""
    if strip_text(c.vectors) + strip_text(item_index(c.vectors)):
        c.db.set_meta(SCRUB_KEY, "1")


@ENGINE(ran_before=meta_is(SPACE_KEY))
def adopt_embedding_space(c: EngineParts) -> None:
    """Record the vector space of the embedder the store is opened with as the index's
    (:data:`~.indexer.SPACE_KEY`): a store made before the space was recorded adopts the model it
    is opened with. Later opens compare against it (:meth:`~.indexer.Indexer.space_matches`)."""
    if c.db.get_meta(SPACE_KEY) is None:
        c.indexer.adopt_space()


@ENGINE(postgres=_nothing_on_postgres)
def zero_hnsw_capacity(c: EngineParts) -> None:
    """Zero what Chroma wrote from uninitialised memory (the process heap: another user's text, say)
    past the vectors of each HNSW file while earlier versions ran; from now on every operation that
    writes those files is followed by :meth:`~.vectors.VectorIndex.zero_unused`."""
    zeroed = c.vectors.zero_all_unused()
    if zeroed:
        logger.warning("nova-memory: zeroed %d bytes Chroma had written from uninitialised memory into its "
                       "HNSW files", zeroed)


def apply_engine_migrations(c: EngineParts) -> list[str]:
    """Apply the engine's steps the store has not recorded; returns the names recorded now.

    Raises:
        StorageError: a step failed (Chroma unreachable, say); it runs again at the next open.
    """
    return ENGINE.apply(c.db, c)
