"""The ``Components`` bundle: the collaborators every service of the engine works with.

``NovaStore`` builds one bundle per data directory and hands it to the services
(retrieval, consolidation, maintenance), as graphiti hands ``GraphitiClients`` to its
``search(clients, ...)``. Services never receive the facade, so nothing below
``store.py`` imports it, and each service's signature says what it can touch.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from ..config import NovaConfig
from ..embeddings import CachedEmbedder, EmbeddingsLike, default_embeddings
from ..memory.entities import EntityResolver
from ..memory.facts import FactMemory
from ..memory.graph import FactGraph
from ..storage.sqlite import SQLiteStore
from ..storage.vectors import SCRUB_KEY, VectorIndex
from ..text.sentences import sentences_of
from .dirlock import DataDirLock
from .hooks import Hooks
from .indexer import INDEX_WAIT_S, Indexer
from .migrations import apply_engine_migrations
from .tokens import TokenCounter, get_token_counter
from .vector_drops import drop_pending_users

__all__ = ["SWEEP_S", "Components", "build_components"]

SWEEP_S = 10.0
"""On Postgres, how often each store's indexer looks for rows no process has indexed (peers share the
work by claims; a peer that died leaves its rows to the others)."""


@dataclass(frozen=True)
class Components:
    """One store's collaborators: configuration, storage, index, embedder, fact memory.

    Attributes:
        path: the data directory; nothing is written outside it (and the model cache).
        config: the store's configuration.
        db: SQLite, the system of record; every query is user-scoped there.
        vectors: the Chroma vector index (ids and vectors; rebuilt from ``db`` at will).
        embedder: the embedding model behind query / document caches.
        indexer: the background thread that embeds new rows into ``vectors``.
        graph: the networkx fact graph, a per-user cache of ``db``'s believed facts.
        entities: entity resolution and aliases.
        facts: bi-temporal fact maintenance (``FactMemory``).
        hooks: before / after hooks of each memory stage.
    """

    path: Path
    config: NovaConfig
    db: SQLiteStore
    vectors: VectorIndex
    embedder: CachedEmbedder
    indexer: Indexer
    graph: FactGraph
    entities: EntityResolver
    facts: FactMemory
    hooks: Hooks = field(default_factory=Hooks)
    """Before / after hooks of each memory stage (``store.hooks``)."""
    lock: DataDirLock | None = None
    """The data directory's one-owner lock, released by :meth:`close`."""

    @property
    def token_counter(self) -> TokenCounter:
        """The tokenizer budgets are counted with (``retrieval.tokenizer``)."""
        return get_token_counter(self.config.retrieval.tokenizer)

    def facts_changed(self, user_id: str, fact_ids: list[str]) -> None:
        """Drop the user's graph cache and queue the changed facts for indexing."""
        if fact_ids:
            self.graph.invalidate(user_id)
            self.indexer.submit("facts", [(i, user_id) for i in fact_ids])

    def reindex(self) -> int:
        """Rebuild the vector index from SQLite (e.g. after changing the embedding model).

        Returns:
            Rows queued and indexed.
        """
        self.indexer.wait(timeout=INDEX_WAIT_S)
        self.vectors.reset()
        self.db.reset_indexed()
        self.indexer.adopt_space()
        n = self.indexer.recover()
        self.indexer.wait()
        self.graph.invalidate()
        return n

    def recover(self) -> None:
        """On opening: apply the engine's migrations the store has not recorded (:mod:`.migrations`),
        scrub Chroma's files if an erase or a migration left them to scrub, drop the collections
        of users forgotten while the index was down, then index what was left unindexed.

        With another embedding model than the index was built with and
        ``embeddings.on_model_change = "reindex"``, the index is rebuilt first (which
        recovers every row itself, into the rebuilt index).
        """
        apply_engine_migrations(self)
        if self.db.get_meta(SCRUB_KEY) == "1" and self.vectors.scrub():
            self.db.set_meta(SCRUB_KEY, "0")
        drop_pending_users(self.db, self.vectors)  # users forgotten while the index was unreachable
        if not self.indexer.space_matches() and self.config.embeddings.on_model_change == "reindex":
            self.reindex()
        else:
            self.indexer.recover()

    def close(self, *, drain: bool = True) -> None:
        """Stop the indexer (after its pending rows, unless not ``drain``: they stay unindexed in
        SQLite for the next open), close SQLite, release the directory."""
        try:
            self.indexer.stop(drain=drain)
        finally:
            try:
                self.db.close()
            finally:
                if self.lock is not None:
                    self.lock.release()


def build_components(
    path: str | os.PathLike[str],
    config: NovaConfig,
    *,
    embeddings: EmbeddingsLike | None = None,
    chroma_client: Any | None = None,
    database_url: str | None = None,
) -> Components:
    """Open (or create) the storage of one data directory, or of one Postgres database, and wire
    its components.

    Args:
        path: the data directory (must exist); with ``database_url`` it holds the model cache only.
        config: the store's configuration.
        embeddings: any embedder; default: the packaged MiniLM per ``config.embeddings``.
        chroma_client: any ``chromadb`` client; default: a ``PersistentClient`` in ``path``, or
            with ``database_url`` the database's own pgvector table.
        database_url: a Postgres connection string: the system of record lives there, shared by
            every store and process on it (no directory lock is taken).
    """
    root = Path(path)
    cfg = config
    if database_url is not None:
        return _wire(root, cfg, None, embeddings, lambda: _postgres(cfg, database_url, chroma_client))
    sqlite_path = cfg.storage.path_of("sqlite_filename", root)  # ConfigError if outside the data directory
    chroma_path = cfg.storage.path_of("chroma_dirname", root)
    lock = DataDirLock(root)  # StorageError when another process owns the directory

    def sqlite() -> tuple[SQLiteStore, VectorIndex]:
        db = SQLiteStore(sqlite_path, busy_timeout_ms=cfg.storage.sqlite_busy_timeout_ms)
        return db, VectorIndex(chroma_client, path=chroma_path, prefix=cfg.storage.collection_prefix)

    try:
        return _wire(root, cfg, lock, embeddings, sqlite)
    except BaseException:
        lock.release()
        raise


def _postgres(cfg: NovaConfig, url: str, chroma_client: Any | None) -> tuple[SQLiteStore, VectorIndex]:
    """The Postgres store and its vector index: pgvector in the same database, or a Chroma server."""
    from ..storage.pg_connection import PgSettings
    from ..storage.pgvectors import PgVectorIndex
    from ..storage.postgres import PostgresStore

    st = cfg.storage
    db = PostgresStore(url, busy_timeout_ms=st.sqlite_busy_timeout_ms, settings=PgSettings(
        pool_size=st.database_pool_size, connect_timeout_s=st.database_connect_timeout_s,
        statement_timeout_ms=st.database_statement_timeout_ms))
    try:
        if chroma_client is not None:
            return db, VectorIndex(chroma_client, prefix=st.collection_prefix)
        # PgVectorIndex offers the engine every method of VectorIndex it calls (duck-typed)
        return db, cast(VectorIndex, PgVectorIndex(db, prefix=st.collection_prefix))
    except BaseException:
        db.close()
        raise


def _wire(
    root: Path, cfg: NovaConfig, lock: DataDirLock | None, embeddings: EmbeddingsLike | None,
    open_storage: Callable[[], tuple[SQLiteStore, VectorIndex]],
) -> Components:
    if embeddings is None:
        embeddings = default_embeddings(cfg.embeddings, root)
    embedder = CachedEmbedder(embeddings, cfg.embeddings.query_cache_size)
    db, vectors = open_storage()
    indexer = Indexer(db, vectors, embedder, batch_size=cfg.indexing.batch_size,
                      max_batch_size=cfg.indexing.max_batch_size, max_wait_ms=cfg.indexing.max_wait_ms,
                      sentences=sentences_of if cfg.indexing.sentence_vectors else None,
                      sweep_s=SWEEP_S if db.dialect == "postgres" else None)
    entities = EntityResolver(db, cfg.facts)
    facts = FactMemory(db, cfg.facts, resolve=entities.resolve_fact)
    graph = FactGraph(lambda uid: db.current_facts(uid), db.user_revision)
    return Components(path=root, config=cfg, db=db, vectors=vectors, embedder=embedder, indexer=indexer,
                      graph=graph, entities=entities, facts=facts, lock=lock)
