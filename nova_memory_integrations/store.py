"""``NovaStore``: the framework-agnostic memory engine, one per data directory.

Every LangChain and LlamaIndex object of this package is a thin adapter over one
``NovaStore``. It is a facade only: it validates input, builds the engine's
:class:`~.engine.components.Components` (SQLite, Chroma, embedder, indexer, fact graph,
fact memory, entities) and delegates to the services that receive them (retrieval,
consolidation, maintenance). See ``ARCHITECTURE.md`` for the layers and one turn's path
from capture to recall.
"""

from __future__ import annotations

import os
import reprlib
import threading
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ._threads import STORAGE, BackgroundWorker, reading, track
from ._time import to_epoch, utcnow
from .config import ConsolidationMode, NovaConfig, Predicate, default_home, load_config, with_schema
from .config import database_url as database_url_of
from .consolidation.learning import LearningAPI
from .consolidation.service import ConsolidationService
from .embeddings import EmbeddingsLike
from .engine.blocks import BlocksAPI
from .engine.capture import record_turns
from .engine.components import Components, build_components
from .engine.schemas_api import SchemasAPI, SchemaSelector
from .engine.tokens import TokenCounter
from .engine.validation import (
    STORE_ARGUMENTS,
    check_content,
    check_ids,
    check_metadata,
    check_positive_int,
    check_score,
    check_source,
    check_texts,
    check_timestamp,
    check_user,
    checked_arguments,
)
from .errors import InvalidInputError, NotFoundError, StoreClosedError
from .items import ItemService
from .maintenance.api import MaintenanceAPI
from .maintenance.schedule import LifecycleScheduler
from .memory.conflicts import ConfidenceExplanation, Conflict
from .memory.facts import normalize_predicate
from .memory.schemas import with_schemas
from .retrieval.assemble import FORMATS, Format
from .retrieval.context import build_context, compress_texts, dense_search, retrieve_snippets
from .retrieval.pipeline import RecallPipeline
from .retrieval.search_config import SearchConfig
from .types import (
    CompressionResult,
    ConsolidationResult,
    ContextResult,
    Episode,
    Fact,
    FactDecision,
    MemoryKind,
    MemorySource,
    Rule,
    SearchHit,
    new_id,
)

__all__ = ["NovaStore"]


@checked_arguments(STORE_ARGUMENTS)  # the checks declared per parameter in engine.validation run first
class NovaStore(MaintenanceAPI, BlocksAPI, LearningAPI, SchemasAPI):
    """Long-term memory for agents: episodes, bi-temporal facts and rules for many users.

    Instantiate (after ``pip install nova-memory-integrations``):
        .. code-block:: python

            from nova_memory_integrations import NovaStore

            store = NovaStore()                      # $NOVA_MEMORY_HOME or ~/.nova-memory
            store = NovaStore("./memory", embeddings=my_langchain_embeddings)

    Usage:
        .. code-block:: python

            store.add_turn("alice", "user", "My favourite colour is blue.")
            store.consolidate("alice")
            store.facts("alice", predicate="favorite_color")
            store.context("what colour does she like?", "alice").text

    Args:
        path: data directory (created if missing; ``$NOVA_MEMORY_HOME`` or ``~/.nova-memory``).
        embeddings: any LangChain ``Embeddings``; default: the packaged all-MiniLM-L6-v2 on ONNX
            Runtime (exported once per machine into the model cache) or torch.
        chroma_client: any ``chromadb`` client; default: an embedded one inside ``path``.
        config: a ``NovaConfig``, or a path to a TOML file; default: ``<path>/config.toml``
            when present, else built-in defaults.
        llm: a LangChain chat model or LlamaIndex LLM for consolidation (structured output,
            batched); default: the deterministic extractor. See :meth:`consolidate`.
        database_url: ``postgresql://...`` (or ``$NOVA_MEMORY_DATABASE_URL``): memories and
            vectors (pgvector) in that database, shared by any number of processes; ``path``
            then holds only the model cache. Needs the ``postgres`` extra.
        schema: the predicates the application declares (:class:`~.config.Predicate`: name,
            synonyms, cardinality, importance), over ``facts.predicates``; a bad one raises ``SchemaError``.
        schemas: what the application declares as pydantic models (:mod:`~.memory.schemas`: a field per
            attribute, allowed values, cardinality, importance); every fact of theirs is validated.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        embeddings: EmbeddingsLike | None = None,
        chroma_client: Any | None = None,
        config: NovaConfig | str | os.PathLike[str] | None = None,
        llm: Any | None = None,
        database_url: str | None = None,
        schema: Sequence[Predicate | Mapping[str, Any]] | None = None,
        schemas: Sequence[type[Any]] | None = None,
    ) -> None:
        self.path = Path(path).expanduser() if path is not None else default_home()
        self.path.mkdir(parents=True, exist_ok=True)
        self.config = with_schemas(with_schema(load_config(config, self.path), schema), schemas)
        self.database_url = database_url_of(database_url, self.config)
        self.components: Components = build_components(self.path, self.config, embeddings=embeddings,
                                                       chroma_client=chroma_client, database_url=self.database_url)
        self.hooks = self.components.hooks  # before / after hooks of each stage (engine.hooks)
        self._recall = RecallPipeline(self.components)
        self._consolidation = ConsolidationService(self.components, llm)
        self._items = ItemService(self.components)
        self._closed = self._closing = False
        self._lock = threading.RLock()
        cfg = self.config
        self._worker = BackgroundWorker(self._background_job, interval=cfg.consolidation.interval_seconds,
                                        debounce=cfg.consolidation.debounce_seconds)
        self._lifecycle = LifecycleScheduler(self.components)  # passes every lifecycle.schedule_interval_s
        self._opened_by, self._inherited = os.getpid(), 0  # _inherited, in a forked child: the parent's pid
        track(self, rank=STORAGE, stop=NovaStore._close_at_exit, after_fork=NovaStore._after_fork)
        self.components.recover()
        if cfg.consolidation.mode == "background":
            self._worker.start()
        self._lifecycle.start()

    @property
    def llm(self) -> Any:
        """The default consolidation model (``None``: the deterministic extractor)."""
        return self._consolidation.llm

    @llm.setter
    def llm(self, value: Any) -> None:
        self._consolidation.llm = value

    @property
    def items(self) -> ItemService:
        """JSON documents by user, scope and key, their vectors and hybrid search (the LangGraph store's engine)."""
        return self._items

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called. ``components``: the engine's parts (not a stable API)."""
        return self._closed

    # -- lifecycle ----------------------------------------------------------------------
    def _check_open(self) -> None:
        if self._closed:
            if self._inherited:
                raise StoreClosedError(
                    f"this NovaStore was opened by process {self._inherited} before it forked: its SQLite "
                    "connection, Chroma client and threads are that process's. Open a NovaStore in this process "
                    "(on another data directory), or share one store through `nova-memory serve`")
            raise StoreClosedError("this NovaStore is closed")

    def flush(self, timeout: float | None = None) -> bool:
        """Wait until every pending embedding is indexed; False if ``timeout`` passed."""
        self._check_open()
        return self.components.indexer.wait(timeout=timeout)

    def close(self) -> None:
        """Finish pending work, stop the workers and close storage (idempotent)."""
        with self._lock:
            if self._closed or self._closing:
                return
            self._closing = True
        try:
            self._lifecycle.stop()  # a pass under way ends after its current batch
            self._worker.stop()  # its final pass consolidates what is pending
        finally:
            self._closed = True
            self.components.close()

    def _close_at_exit(self) -> None:
        """At interpreter exit, once every worker and pool has stopped (``_threads.stop_all``): close
        what is left without waiting for the index (its queued rows stay unindexed in SQLite, and
        are indexed when the store is next opened) nor a last consolidation pass."""
        with self._lock:
            if self._closed or self._closing:
                return
            self._closing = True
        self._closed = True
        self.components.close(drain=False)

    def _after_fork(self) -> None:
        """In a forked child the store is closed, left to the parent (a connection and a Chroma client
        carried across a fork are unsafe; its threads are gone)."""
        if not self._closed:
            self._inherited = self._inherited or self._opened_by
            self._closed = True
        self._lock = threading.RLock()

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
        source: MemorySource | None = None,
    ) -> Episode:
        """Record one turn; returns once it is durable (embedding happens off-thread). ``importance``
        (0-1) and ``source`` default to what :mod:`.memory.importance` finds in the turn.

        Raises:
            InvalidInputError: bad user, role, content, timestamp, metadata, importance or source.
        """
        turn = {"user_id": user_id, "role": role, "content": content, "session_id": session_id,
                "timestamp": timestamp, "metadata": metadata, "importance": importance, "source": source}
        return self.add_turns([turn], consolidation=consolidation)[0]

    def add_turns(
        self, turns: Iterable[Mapping[str, Any]], *, consolidation: ConsolidationMode | None = None
    ) -> list[Episode]:
        """Record several turns atomically (all are validated before any is written).

        Each mapping takes the keyword arguments of :meth:`add_turn` plus ``user_id``,
        ``role`` and ``content``.
        """
        self._check_open()
        episodes = record_turns(self.components, turns)  # validation, before_add hooks, storage, indexing
        if episodes:
            self._after_capture({e.user_id for e in episodes}, consolidation)
        return episodes

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
        return self.components.db.list_episodes(uid, session_id=session_id, limit=limit, newest_first=newest_first,
                                                since=to_epoch(check_timestamp(since, "since")),
                                                until=to_epoch(check_timestamp(until, "until")))

    def get_episodes(self, user_id: str, ids: Sequence[str]) -> list[Episode]:
        """Episodes of ``user_id`` by id (ids of other users are never returned)."""
        self._check_open()
        limits = self.config.limits
        return self.components.db.get_episodes(check_user(user_id, limits), check_ids(ids, limits))

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
        importance: float | None = None,
        source: MemorySource = "explicit",
    ) -> FactDecision:
        """Assert a fact directly (explicit, importance by :func:`.memory.importance.assess` unless
        given); cardinality and reinforcement rules apply. Returns the decision (ADD, UPDATE when it
        superseded a single-valued value, NOOP when it reinforced a fact) with its ``fact_id``.

        Raises:
            FactSchemaError: a declared model refuses the value (``schemas=``); nothing is written.
        """
        self._check_open()
        limits = self.config.limits
        uid = check_user(user_id, limits)
        decision, changed = self._consolidation.consolidator.apply_fact(  # entity resolution and conflict rules apply
            uid,
            check_content(subject, limits, "subject"),
            check_content(predicate, limits, "predicate"),
            check_content(object, limits, "object"),
            at=check_timestamp(valid_from, "valid_from") or utcnow(),
            confidence=None if confidence is None else check_score(confidence, "confidence"),
            episode_ids=list(source_episode_ids),
            metadata=check_metadata(metadata, limits),
            reason="asserted through add_fact",
            importance=None if importance is None else check_score(importance, "importance"),
            source=check_source(source) or "explicit",
        )
        self.components.facts_changed(uid, changed)
        return decision

    def invalidate_fact(
        self, user_id: str, fact_id: str, *, at: datetime | str | None = None, reason: str = "invalidated by caller"
    ) -> FactDecision:
        """Close a fact's validity at ``at`` (default now); history keeps it."""
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        found = self.components.db.select_facts(uid, ids=[fact_id])
        if not found:
            raise NotFoundError(f"no current fact {fact_id!r} for this user")
        decision, changed = self.components.facts.close_fact(uid, found[0], check_timestamp(at, "at") or utcnow(),
                                                              reason=reason)
        self.components.facts_changed(uid, changed)
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
        predicates: Iterable[str] | None = None,
        schema: SchemaSelector | None = None,
    ) -> list[Fact]:
        """Facts of a user: valid at ``as_of`` (default now) as believed at ``known_at``.

        ``subject`` may be any alias of an entity ("rust-lang" finds facts about "Rust").
        ``predicates`` keeps facts on those names only, e.g. the declared ones: what the app said matters;
        ``schema`` those of declared kinds (a model, a kind's name, or a list: ``schema=Allergy``).

        ``include_history=True``: every version believed at ``known_at`` whatever its validity.
        """
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        c = self.components
        return c.facts.query(
            uid, subject=c.entities.canonical(uid, subject) if subject else subject, predicate=predicate,
            as_of=check_timestamp(as_of, "as_of"), known_at=check_timestamp(known_at, "known_at"),
            include_history=include_history,
            predicates=self._schema_predicates(schema, None if predicates is None else [
                normalize_predicate(p) for p in predicates]),
        )

    def fact_history(self, user_id: str, fact_id: str) -> list[Fact]:
        """Every stored version of the fact lineage that ``fact_id`` belongs to."""
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        db = self.components.db
        rows = db.select_facts(uid, ids=[fact_id], all_versions=True)
        if not rows:
            return []
        return db.select_facts(uid, lineage_id=rows[0].lineage_id, all_versions=True)

    def decisions(self, user_id: str, limit: int = 100) -> list[FactDecision]:
        """Recent consolidation decisions with their reasons, newest first."""
        self._check_open()
        return self.components.db.decisions(check_user(user_id, self.config.limits), limit)

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
        check_positive_int(max_hops, "max_hops", minimum=0)
        preds = None if predicates is None else [normalize_predicate(p) for p in predicates]
        uid = check_user(user_id, self.config.limits)
        c = self.components
        hits = c.graph.traverse(uid, c.entities.canonical(uid, start), max_hops=max_hops,
                                   predicates=preds, as_of=check_timestamp(as_of, "as_of"))
        return [f for _, f in hits]

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
        self.components.db.insert_rule(rule)
        self.components.indexer.submit("rules", [(rule.id, rule.user_id)])
        return rule

    def rules(self, user_id: str, context: str | None = None, k: int = 5, *, min_similarity: float = 0.3) -> list[Rule]:
        """Rules whose condition matches ``context`` (by embedding similarity); usage counted.

        Without ``context`` every rule of the user is returned (usage not counted).
        """
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        if context is None:
            return self.components.db.list_rules(uid)
        hits = [h for h in self.search(context, uid, k=k, kinds=("rule",)) if h.score >= min_similarity]
        rules = [h.rule for h in hits if h.rule is not None]
        self.components.db.use_rules(uid, [r.id for r in rules], to_epoch(utcnow()) or 0.0)
        return rules

    # -- consolidation ----------------------------------------------------------------------
    @property
    def extractor(self) -> Any:
        """The deterministic extractor used when no LLM is configured."""
        return self._consolidation.extractor

    def consolidate(self, user_id: str | None = None, *, llm: Any = None) -> ConsolidationResult:
        """Turn unprocessed episodes into facts (ADD / UPDATE / DELETE / NOOP); ``None``: every user.

        Only episodes not yet processed, and not parked in a dead letter, are read. ``llm`` overrides
        the store's model for this call (a LangChain chat model, a LlamaIndex LLM, an ``LLMExtractor``,
        or ``False`` for the deterministic extractor). Failures never raise: the episodes concerned
        stay unprocessed and are listed by :meth:`dead_letters`; facts a declared schema refused are
        listed by :meth:`refused_facts`.
        """
        self._check_open()
        return self._consolidation.consolidate(self._uid(user_id), llm)

    def dead_letters(self, user_id: str | None = None) -> list[dict[str, Any]]:
        """Consolidation batches that failed; their episodes are still unprocessed (parked)."""
        self._check_open()
        return self._consolidation.dead_letters(self._uid(user_id))

    def retry_dead_letters(self, user_id: str | None = None, llm: Any = None) -> ConsolidationResult:
        """Consolidate the dead-lettered episodes again (of one user, or all), with ``llm`` if given."""
        self._check_open()
        return self._consolidation.retry_dead_letters(self._uid(user_id), llm)

    def conflicts(self, user_id: str, *, flagged_only: bool = False, limit: int = 100) -> list[Conflict]:
        """Contradictions found while applying facts, with the strategy applied; newest first."""
        self._check_open()
        return self._consolidation.conflicts(check_user(user_id, self.config.limits), flagged_only=flagged_only,
                                             limit=limit)

    def explain_confidence(
        self, user_id: str, fact_id: str, *, at: datetime | str | None = None
    ) -> ConfidenceExplanation:
        """Why a fact has its confidence: initial value, reinforcements, decay at ``at`` (default now)."""
        self._check_open()
        return self._consolidation.explain_confidence(check_user(user_id, self.config.limits), fact_id,
                                                      check_timestamp(at, "at"))

    def _uid(self, user_id: str | None) -> str | None:
        return None if user_id is None else check_user(user_id, self.config.limits)

    def _background_job(self) -> None:
        if not self._closed:
            self.consolidate()

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

        Turns added just before are included, never waiting for the vector index. Facts are those
        valid at ``as_of`` (default now), nothing learnt after it (as :meth:`context`). Hybrid
        retrieval with reranking: :meth:`retrieve`; a prompt-ready block: :meth:`context`.
        """
        uid, query = self._check_query(user_id, query, k)
        with reading():  # the indexer yields to it
            return dense_search(self.components, query, uid, k=k, kinds=kinds, session_id=session_id,
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

        At most ``k`` items, best first; adjacent turns of a session merge into one snippet
        (``SearchHit.provenance``; ``snippet_max_turns=1`` turns it off); ``as_of`` as :meth:`context`.
        """
        uid, query = self._check_query(user_id, query, k)
        cfg = self._search_config(preset)
        with reading():
            return retrieve_snippets(self._recall, query, uid, k=k, config=cfg, kinds=kinds, rerank=rerank,
                                     as_of=check_timestamp(as_of, "as_of"), session_id=session_id)

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

        ``as_of`` makes it a point-in-time recall, the context the store would have given then:
        nothing learnt after it (turns, summaries, facts, rules), relative dates counted from it
        (:mod:`~nova_memory_integrations.retrieval.point_in_time`). LangGraph items never reach it.
        """
        budget = self.config.retrieval.budget_tokens if budget_tokens is None else budget_tokens
        check_positive_int(budget, "budget_tokens")
        if format not in FORMATS:
            raise InvalidInputError(f"format must be one of {', '.join(FORMATS)}, not {reprlib.repr(format)}")
        uid, query = self._check_query(user_id, query, 1)
        with reading():  # the indexer yields to it
            return build_context(self._recall, query, uid, budget_tokens=budget,
                                 as_of=check_timestamp(as_of, "as_of"), fmt=format, session_id=session_id,
                                 config=self._search_config(preset), kinds=kinds)

    def compress(
        self, query: str, texts: Sequence[str], *, budget_tokens: int | None = None, k: int | None = None,
        max_item_tokens: int | None = None,
    ) -> CompressionResult:
        """Rerank, drop near-duplicates and fit any texts to a token budget (not only memories)."""
        self._check_open()  # query, budget_tokens, k, max_item_tokens: checked by @checked_arguments
        texts = check_texts(texts, self.config.limits)
        return compress_texts(self._recall, query, list(texts), budget_tokens=budget_tokens, k=k,
                              dedupe_threshold=self._search_config(None).dedupe_threshold,
                              max_item_tokens=max_item_tokens,
                              min_item_tokens=self._search_config(None).min_item_tokens)

    @property
    def token_counter(self) -> TokenCounter:
        """The tokenizer budgets are counted with (``retrieval.tokenizer``)."""
        return self.components.token_counter

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` as budgets count them."""
        return self.token_counter.count(text)

    def _check_query(self, user_id: str, query: str, k: int) -> tuple[str, str]:
        self._check_open()
        uid = check_user(user_id, self.config.limits)
        query = check_content(query, self.config.limits, "query")
        check_positive_int(k, "k")
        return uid, query

    def _search_config(self, preset: str | SearchConfig | None) -> SearchConfig:
        if isinstance(preset, SearchConfig):
            return preset
        return SearchConfig.preset(preset or self.config.retrieval.preset)
