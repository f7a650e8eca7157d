"""``NovaStore``: the framework-agnostic memory engine, one per data directory.

Every LangChain and LlamaIndex object of this package is a thin adapter over one
``NovaStore``. It composes the system of record (SQLite), the vector index (Chroma), the
fact graph (networkx), the background embedder and consolidation. See
``ARCHITECTURE.md`` for one turn's path from capture to recall.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from . import lifecycle, portability
from ._time import to_epoch, utcnow
from .assemble import Format
from .config import ConsolidationMode, NovaConfig, default_home
from .consolidation import ConsolidationAPI, Consolidator
from .embeddings import CachedEmbedder, EmbeddingsLike, default_embeddings
from .entities import EntityResolver, RelatedFacts
from .errors import InvalidInputError, StoreClosedError
from .facts import FactMemory, new_id, normalize_predicate
from .graph import FactGraph
from .indexer import Indexer
from .recall import build_context, compress_texts, dense_search, snippets
from .retrieval.config import SearchConfig
from .retrieval.pipeline import RecallPipeline
from .scheduler import BackgroundWorker
from .storage.sqlite import SQLiteStore
from .storage.vectors import VectorIndex
from .tokens import TokenCounter, get_token_counter
from .types import (
    CompressionResult,
    ContextResult,
    Episode,
    Fact,
    FactDecision,
    MemoryKind,
    Rule,
    SearchHit,
)
from .validation import check_content, check_id, check_ids, check_metadata, check_score, check_timestamp, check_user

__all__ = ["NovaStore"]

logger = logging.getLogger(__name__)

_INDEX_WAIT_S = 30.0


class NovaStore(ConsolidationAPI):
    """Long-term memory for agents: episodes, bi-temporal facts and rules for many users.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore

            store = NovaStore()                      # $NOVA_MEMORY_HOME or ~/.nova-memory
            store = NovaStore("./memory", embeddings=my_langchain_embeddings)

    Usage:
        .. code-block:: python

            store.add_turn("alice", "user", "My favourite colour is blue.")
            store.consolidate("alice")
            store.facts("alice", predicate="favorite_color")
            store.search("what colour does she like?", "alice")

    Args:
        path: data directory (created if missing). Defaults to ``$NOVA_MEMORY_HOME`` or
            ``~/.nova-memory``. Nothing is written outside it.
        embeddings: any LangChain ``Embeddings`` (or object with ``embed_documents`` /
            ``embed_query``); default: the packaged all-MiniLM-L6-v2, loaded by path, on
            ONNX Runtime (exported once into ``<path>/models``) or torch, per
            ``config.embeddings.backend``.
        chroma_client: any ``chromadb`` client (e.g. ``chromadb.HttpClient``); default:
            an embedded ``PersistentClient`` inside ``path``.
        config: a ``NovaConfig``, or a path to a TOML file; default: ``<path>/config.toml``
            when present, else built-in defaults.
        llm: a LangChain chat model or LlamaIndex LLM for consolidation (structured output,
            batched); default: the deterministic extractor. See :class:`.ConsolidationAPI`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        embeddings: EmbeddingsLike | None = None,
        chroma_client: Any | None = None,
        config: NovaConfig | str | os.PathLike[str] | None = None,
        llm: Any | None = None,
    ) -> None:
        self.llm = llm
        self.path = Path(path).expanduser() if path is not None else default_home()
        self.path.mkdir(parents=True, exist_ok=True)
        self.config = self._load_config(config)
        cfg = self.config
        if embeddings is None:
            embeddings = default_embeddings(cfg.embeddings, self.path)
        self.embedder = CachedEmbedder(embeddings, cfg.embeddings.query_cache_size)
        self.db = SQLiteStore(self.path / cfg.storage.sqlite_filename,
                              busy_timeout_ms=cfg.storage.sqlite_busy_timeout_ms)
        self.vectors = VectorIndex(chroma_client, path=self.path / cfg.storage.chroma_dirname,
                                   prefix=cfg.storage.collection_prefix)
        self.indexer = Indexer(self.db, self.vectors, self.embedder, batch_size=cfg.indexing.batch_size,
                               max_batch_size=cfg.indexing.max_batch_size,
                               max_wait_ms=cfg.indexing.max_wait_ms)
        self.entities = EntityResolver(self.db, cfg.facts)
        self.fact_memory = FactMemory(self.db, cfg.facts, resolve=self.entities.resolve_fact)
        self.graph = FactGraph(lambda uid: self.db.current_facts(uid))
        related = RelatedFacts(self.db, cfg.facts, graph=self.graph, vectors=self.vectors, embedder=self.embedder,
                               entities=self.entities)
        self.consolidator = Consolidator(self.db, self.fact_memory, batch_size=cfg.consolidation.batch_size,
                                         on_facts_changed=self._facts_changed, config=cfg, entities=self.entities,
                                         related=related)
        self._extractor: Any = None
        self.recall = RecallPipeline(self)
        self._closed = False
        self._closing = False
        self._lock = threading.RLock()
        self._worker = BackgroundWorker(self._background_job, interval=cfg.consolidation.interval_seconds,
                                        debounce=cfg.consolidation.debounce_seconds)
        self.vectors.migrate_legacy(self.db.reset_indexed)
        if not self.indexer.space_matches() and cfg.embeddings.on_model_change == "reindex":
            self.reindex()  # recovers every row itself, into the rebuilt index
        else:
            self.indexer.recover()
        if cfg.consolidation.mode == "background":
            self._worker.start()

    def _load_config(self, config: NovaConfig | str | os.PathLike[str] | None) -> NovaConfig:
        if isinstance(config, NovaConfig):
            return config
        if config is not None:
            return NovaConfig.from_toml(config)
        default = self.path / "config.toml"
        return NovaConfig.from_toml(default) if default.exists() else NovaConfig()

    # -- lifecycle ----------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError("this NovaStore is closed")

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every pending embedding is indexed; False if ``timeout`` passed."""
        self._check_open()
        return self.indexer.wait(timeout=timeout)

    def close(self) -> None:
        """Finish pending work, stop the workers and close storage (idempotent)."""
        with self._lock:
            if self._closed or self._closing:
                return
            self._closing = True
        try:
            self._worker.stop()  # its final pass consolidates what is pending
            self.indexer.stop()
        finally:
            self._closed = True
            self.db.close()

    def __enter__(self) -> NovaStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"NovaStore(path={str(self.path)!r})"

    # -- episodic memory ------------------------------------------------------------------
    def add_turn(
        self,
        user_id: str,
        role: str,
        content: str,
        *,
        session_id: str | None = None,
        timestamp: datetime | str | None = None,
        metadata: Mapping[str, Any] | None = None,
        importance: float | None = None,
        consolidation: ConsolidationMode | None = None,
    ) -> Episode:
        """Record one turn; returns once it is durable (embedding happens off-thread).

        Raises:
            InvalidInputError: bad user, role, content, timestamp or metadata.
        """
        return self.add_turns(
            [{"user_id": user_id, "role": role, "content": content, "session_id": session_id,
              "timestamp": timestamp, "metadata": metadata, "importance": importance}],
            consolidation=consolidation,
        )[0]

    def add_turns(
        self, turns: Iterable[Mapping[str, Any]], *, consolidation: ConsolidationMode | None = None
    ) -> list[Episode]:
        """Record several turns atomically (all are validated before any is written).

        Each mapping takes the keyword arguments of :meth:`add_turn` plus ``user_id``,
        ``role`` and ``content``.
        """
        self._check_open()
        now = utcnow()
        episodes = [self._episode_from(t, now) for t in turns]
        if not episodes:
            return []
        self.db.insert_episodes(episodes)
        self.indexer.submit("episodes", [(e.id, e.user_id) for e in episodes])
        self._after_capture({e.user_id for e in episodes}, consolidation)
        return episodes

    def _episode_from(self, turn: Mapping[str, Any], now: datetime) -> Episode:
        if not isinstance(turn, Mapping):
            raise InvalidInputError(f"each turn must be a mapping, got {type(turn).__name__}")
        allowed = {"user_id", "role", "content", "session_id", "timestamp", "metadata", "importance"}
        unknown = set(turn) - allowed
        if unknown:
            raise InvalidInputError(f"unknown turn fields: {sorted(unknown)}")
        limits = self.config.limits
        role = check_id(turn.get("role"), "role", limits)
        importance = turn.get("importance")
        return Episode(
            id=new_id("ep"),
            user_id=check_user(turn.get("user_id"), limits),
            session_id=check_id(turn.get("session_id"), "session_id", limits, required=False),
            role=(role or "").strip().lower(),
            content=check_content(turn.get("content"), limits),
            timestamp=check_timestamp(turn.get("timestamp")) or now,
            ingested_at=now,
            metadata=check_metadata(turn.get("metadata"), limits),
            importance=0.5 if importance is None else check_score(importance, "importance"),
        )

    def _after_capture(self, users: set[str], mode: ConsolidationMode | None) -> None:
        mode = mode or self.config.consolidation.mode
        if mode == "immediate":
            for uid in users:
                self.consolidate(uid)
        elif mode == "background":
            self._worker.start()
            self._worker.poke()

    def episodes(
        self,
        user_id: str,
        *,
        session_id: str | None = None,
        limit: int | None = None,
        newest_first: bool = False,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[Episode]:
        """A user's episodes in event-time order (optionally one session, a window, a limit)."""
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        return self.db.list_episodes(uid, session_id=session_id, limit=limit, newest_first=newest_first,
                                     since=to_epoch(check_timestamp(since, "since")),
                                     until=to_epoch(check_timestamp(until, "until")))

    def get_episodes(self, user_id: str, ids: Sequence[str]) -> list[Episode]:
        """Episodes of ``user_id`` by id (ids of other users are never returned)."""
        self._check_open()
        return self.db.get_episodes(check_user(user_id, self.config.limits), check_ids(ids, self.config.limits))

    # -- semantic memory ------------------------------------------------------------------
    def add_fact(
        self,
        user_id: str,
        subject: str,
        predicate: str,
        object: str,
        *,
        confidence: float | None = None,
        valid_from: datetime | str | None = None,
        source_episode_ids: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
    ) -> FactDecision:
        """Assert a fact directly; cardinality and reinforcement rules apply.

        Returns the decision (ADD, UPDATE when it superseded a single-valued value, or
        NOOP when it reinforced an existing fact) with the resulting ``fact_id``.
        """
        self._check_open()
        limits = self.config.limits
        uid = check_user(user_id, limits)
        decision, changed = self.consolidator.apply_fact(  # entity resolution and conflict rules apply
            uid,
            check_content(subject, limits, "subject"),
            check_content(predicate, limits, "predicate"),
            check_content(object, limits, "object"),
            at=check_timestamp(valid_from, "valid_from") or utcnow(),
            confidence=None if confidence is None else check_score(confidence, "confidence"),
            episode_ids=list(source_episode_ids),
            metadata=check_metadata(metadata, limits),
            reason="asserted through add_fact",
        )
        self._facts_changed(uid, changed)
        return decision

    def invalidate_fact(
        self, user_id: str, fact_id: str, *, at: datetime | str | None = None, reason: str = "invalidated by caller"
    ) -> FactDecision:
        """Close a fact's validity at ``at`` (default now); history keeps it."""
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        found = self.db.select_facts(uid, ids=[fact_id])
        if not found:
            from .errors import NotFoundError

            raise NotFoundError(f"no current fact {fact_id!r} for this user")
        decision, changed = self.fact_memory.close_fact(uid, found[0], check_timestamp(at, "at") or utcnow(),
                                                         reason=reason)
        self._facts_changed(uid, changed)
        return decision

    def facts(
        self,
        user_id: str,
        subject: str | None = None,
        predicate: str | None = None,
        *,
        as_of: datetime | str | None = None,
        known_at: datetime | str | None = None,
        include_history: bool = False,
    ) -> list[Fact]:
        """Facts of a user: valid at ``as_of`` (default now) as believed at ``known_at``.

        ``subject`` may be any alias of an entity ("rust-lang" finds facts about "Rust").

        ``include_history=True`` returns every version believed at ``known_at`` whatever
        its validity, e.g. blue valid 2024-01..2024-06 then green from 2024-06.
        """
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        return self.fact_memory.query(
            uid, subject=self.entities.canonical(uid, subject) if subject else subject, predicate=predicate,
            as_of=check_timestamp(as_of, "as_of"), known_at=check_timestamp(known_at, "known_at"),
            include_history=include_history,
        )

    def fact_history(self, user_id: str, fact_id: str) -> list[Fact]:
        """Every stored version of the fact lineage that ``fact_id`` belongs to."""
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        rows = self.db.select_facts(uid, ids=[fact_id], all_versions=True)
        if not rows:
            return []
        return self.db.select_facts(uid, lineage_id=rows[0].lineage_id, all_versions=True)

    def decisions(self, user_id: str, limit: int = 100) -> list[FactDecision]:
        """Recent consolidation decisions with their reasons, newest first."""
        self._check_open()
        return self.db.decisions(check_user(user_id, self.config.limits), limit)

    def traverse(
        self,
        user_id: str,
        start: str,
        max_hops: int = 2,
        predicates: Iterable[str] | None = None,
        as_of: datetime | str | None = None,
    ) -> list[Fact]:
        """Facts reachable from entity ``start`` within ``max_hops``, valid at ``as_of``."""
        self._check_open()
        if isinstance(max_hops, bool) or not isinstance(max_hops, int) or max_hops < 0:
            raise InvalidInputError("max_hops must be an integer >= 0")
        preds = None if predicates is None else [normalize_predicate(p) for p in predicates]
        uid = check_user(user_id, self.config.limits)
        hits = self.graph.traverse(uid, self.entities.canonical(uid, start), max_hops=max_hops,
                                   predicates=preds, as_of=check_timestamp(as_of, "as_of"))
        return [f for _, f in hits]

    def _facts_changed(self, user_id: str, fact_ids: list[str]) -> None:
        if fact_ids:
            self.graph.invalidate(user_id)
            self.indexer.submit("facts", [(i, user_id) for i in fact_ids])

    # -- procedural memory ----------------------------------------------------------------
    def add_rule(
        self, user_id: str, condition: str, action: str, confidence: float = 0.8,
        *, metadata: Mapping[str, Any] | None = None,
    ) -> Rule:
        """Store a procedural rule: when ``condition`` applies, do ``action``."""
        self._check_open()
        limits = self.config.limits
        rule = Rule(
            id=new_id("ru"), user_id=check_user(user_id, limits),
            condition=check_content(condition, limits, "condition"), action=check_content(action, limits, "action"),
            confidence=min(check_score(confidence, "confidence"), self.config.facts.confidence_cap),
            created_at=utcnow(), metadata=check_metadata(metadata, limits),
        )
        self.db.insert_rule(rule)
        self.indexer.submit("rules", [(rule.id, rule.user_id)])
        return rule

    def rules(self, user_id: str, context: str | None = None, k: int = 5, *, min_similarity: float = 0.3) -> list[Rule]:
        """Rules whose condition matches ``context`` (by embedding similarity); usage counted.

        Without ``context`` every rule of the user is returned (usage not counted).
        """
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        if context is None:
            return self.db.list_rules(uid)
        hits = [h for h in self.search(context, uid, k=k, kinds=("rule",)) if h.score >= min_similarity]
        rules = [h.rule for h in hits if h.rule is not None]
        self.db.use_rules(uid, [r.id for r in rules], to_epoch(utcnow()) or 0.0)
        return rules

    # -- consolidation: consolidate, dead_letters, retry_dead_letters, conflicts, explain_confidence
    #    live in ConsolidationAPI (nova_memory_integrations.consolidation).

    # -- recall ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        user_id: str,
        k: int = 10,
        *,
        kinds: Sequence[MemoryKind] = ("episode", "fact"),
        session_id: str | None = None,
        as_of: datetime | str | None = None,
    ) -> list[SearchHit]:
        """Dense similarity search over a user's episodes / facts / rules, best first.

        Turns added just before are included (the call waits for the user's pending
        embeddings). Facts are those valid at ``as_of`` (default now). For hybrid
        retrieval with reranking use :meth:`retrieve`; for a prompt-ready block,
        :meth:`context`.
        """
        uid, query = self._check_query(user_id, query, k)
        return dense_search(self, query, uid, k=k, kinds=kinds, session_id=session_id,
                            as_of=check_timestamp(as_of, "as_of"))

    def retrieve(
        self,
        query: str,
        user_id: str,
        k: int = 10,
        *,
        kinds: Sequence[MemoryKind] = ("episode", "fact", "rule"),
        as_of: datetime | str | None = None,
        session_id: str | None = None,
        preset: str | SearchConfig | None = None,
        rerank: bool | None = None,
    ) -> list[SearchHit]:
        """Hybrid retrieval (dense + BM25 + graph + rules, fused, reranked): stages 1-2.

        Returns at most ``k`` items, best first. Adjacent turns of one session are merged
        into one snippet item (``SearchHit.provenance`` lists its turns; the search
        config's ``snippet_max_turns=1`` turns this off).
        """
        uid, query = self._check_query(user_id, query, k)
        cfg = self._search_config(preset)
        cands = self.recall.retrieve(query, uid, k=k * cfg.snippet_max_turns, config=cfg, kinds=kinds,
                                     as_of=check_timestamp(as_of, "as_of"), session_id=session_id, rerank=rerank)
        return snippets(self, uid, cands, k, cfg.snippet_max_turns)

    def context(
        self,
        query: str,
        user_id: str,
        *,
        budget_tokens: int | None = None,
        as_of: datetime | str | None = None,
        format: Format = "markdown",
        session_id: str | None = None,
        preset: str | SearchConfig | None = None,
        kinds: Sequence[MemoryKind] = ("episode", "fact", "rule"),
    ) -> ContextResult:
        """The memory an LLM should see for ``query``: retrieve -> rerank -> compress -> assemble.

        The text never exceeds ``budget_tokens`` (default ``retrieval.budget_tokens``) as
        counted by :attr:`token_counter`; ``sources`` carry ids, scores, dates, validity
        and provenance; ``explain()`` says why each item is there.
        """
        budget = self.config.retrieval.budget_tokens if budget_tokens is None else budget_tokens
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
            raise InvalidInputError("budget_tokens must be a positive integer")
        if format not in ("markdown", "json", "xml", "plain"):
            raise InvalidInputError(f"format must be markdown, json, xml or plain, not {format!r}")
        uid, query = self._check_query(user_id, query, 1)
        return build_context(self, query, uid, budget_tokens=budget, as_of=check_timestamp(as_of, "as_of"),
                             fmt=format, session_id=session_id, config=self._search_config(preset), kinds=kinds)

    def compress(
        self, query: str, texts: Sequence[str], *, budget_tokens: int | None = None, k: int | None = None,
        max_item_tokens: int | None = None,
    ) -> CompressionResult:
        """Rerank, drop near-duplicates and fit any texts to a token budget (not only memories)."""
        self._check_open()
        if not isinstance(query, str):
            raise InvalidInputError("query must be a string")
        if any(not isinstance(t, str) for t in texts):
            raise InvalidInputError("texts must be strings")
        for name, value in (("budget_tokens", budget_tokens), ("k", k), ("max_item_tokens", max_item_tokens)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidInputError(f"{name} must be a positive integer")
        return compress_texts(self, query, list(texts), budget_tokens=budget_tokens, k=k,
                              dedupe_threshold=self._search_config(None).dedupe_threshold,
                              max_item_tokens=max_item_tokens,
                              min_item_tokens=self._search_config(None).min_item_tokens)

    @property
    def token_counter(self) -> TokenCounter:
        """The tokenizer budgets are counted with (``retrieval.tokenizer``)."""
        return get_token_counter(self.config.retrieval.tokenizer)

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` as budgets count them."""
        return self.token_counter.count(text)

    def _check_query(self, user_id: str, query: str, k: int) -> tuple[str, str]:
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        query = check_content(query, self.config.limits, "query")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInputError("k must be a positive integer")
        return uid, query

    def _search_config(self, preset: str | SearchConfig | None) -> SearchConfig:
        if isinstance(preset, SearchConfig):
            return preset
        return SearchConfig.preset(preset or self.config.retrieval.preset)

    # -- maintenance ------------------------------------------------------------------------
    def reindex(self) -> int:
        """Rebuild the Chroma index from SQLite (e.g. after changing the embedding model)."""
        self._check_open()
        self.indexer.wait(timeout=_INDEX_WAIT_S)
        self.vectors.reset()
        self.db.reset_indexed()
        self.indexer.adopt_space()
        n = self.indexer.recover()
        self.indexer.wait()
        self.graph.invalidate()
        return n

    def stats(self, user_id: str | None = None) -> dict[str, Any]:
        """Counts per kind (for one user or all), pending work and dead letters."""
        self._check_open()
        uid = None if user_id is None else check_user(user_id, self.config.limits)
        return {
            "episodes": self.db.count("episodes", uid),
            "facts": self.db.count("facts", uid),
            "rules": self.db.count("rules", uid),
            "pending_index": self.indexer.pending(uid),
            "dead_letters": self.db.count("dead_letters", uid),
            "path": str(self.path),
        }

    def forget(self, user_id: str) -> dict[str, int]:
        """Erase every trace of a user: SQLite rows, vectors, graph cache."""
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        self.indexer.wait(uid, timeout=_INDEX_WAIT_S)
        counts = self.db.delete_user(uid)
        self.vectors.delete_user(uid)
        self.graph.invalidate(uid)
        self.entities.invalidate(uid)
        return counts

    def delete(self, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """Delete episodes, facts (all versions of their lineage) and rules by id."""
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        self.indexer.wait(uid, timeout=_INDEX_WAIT_S)
        removed = self.db.delete_ids(uid, check_ids(ids, self.config.limits))
        for kind, table in (("episode", "episodes"), ("fact", "facts"), ("rule", "rules")):
            self.vectors.delete(kind, removed[table], user_id=uid)  # type: ignore[arg-type]
        self.graph.invalidate(uid)
        self.entities.invalidate(uid)
        return removed

    def export(self, dest: Any, *, user_id: str | Sequence[str] | None = None) -> portability.ExportReport:
        """Write memory (all users or some) as JSON Lines: :func:`.portability.export_store`."""
        return portability.export_store(self, dest, user_id=user_id)

    def import_(self, source: Any, **kw: Any) -> portability.ImportReport:
        """Load a JSON Lines export (``merge``, ``on_conflict``): :func:`.portability.import_store`."""
        return portability.import_store(self, source, **kw)

    def apply_lifecycle(self, user_id: str | None = None, **kw: Any) -> lifecycle.LifecycleReport:
        """Retention, compaction and capacity eviction: :func:`.lifecycle.apply_lifecycle`."""
        return lifecycle.apply_lifecycle(self, user_id, **kw)
