"""Recall's read services over the stages, and compression of arbitrary texts.

:func:`build_context` reads as the pipeline of one query: :meth:`~.pipeline.RecallPipeline.retrieve`
(signals -> fusion -> rerank) -> :func:`.compress.compress_items` -> :func:`.assemble.assemble`,
each one call. The engine's ``context()``, ``retrieve()``, ``search()`` and ``compress()``
delegate here, so ``NovaStore`` stays a thin facade. The functions take the
:class:`~.pipeline.RecallPipeline` or the engine's
:class:`~nova_memory_integrations.engine.components.Components`, never the facade.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

from .. import _tracing
from .._time import to_epoch, utcnow
from ..engine.blocks import block_items
from ..engine.hooks import Veto
from ..memory.importance import level_of
from ..types import LEARNT, CompressedText, CompressionResult, ContextItem, ContextResult, Fact, MemoryKind, SearchHit
from .assemble import Format, assemble, with_speaker
from .candidate import Candidate
from .compress import compress_items, extract_sentences, near_duplicates
from .floor import gated, relevance_of
from .point_in_time import facts_known_by, overfetch, rules_known_by
from .reads import read_database
from .rerank import reranker_scores
from .search_config import SearchConfig, Signal
from .signals import dense_now, keyword_dense, merge_hits

if TYPE_CHECKING:
    from ..engine.components import Components
    from .pipeline import RecallPipeline

__all__ = ["build_context", "compress_texts", "dense_search", "guaranteed", "learnt_rules", "retrieve_snippets",
           "snippets", "to_hit", "to_item"]

_FOUND_BY: dict[Signal, str] = {
    Signal.DENSE: "semantic match", Signal.LEXICAL: "keyword match (BM25)", Signal.FACT_DENSE: "semantic match",
    Signal.FACT_LEXICAL: "keyword match (BM25)", Signal.GRAPH: "entity in the query's graph neighbourhood",
    Signal.RULE: "rule condition matches", Signal.NEIGHBOUR: "adjacent turn of a match",
}
"""What an item's explanation says of the signals that found it (others say nothing)."""


def _reason(c: Candidate) -> str:
    found = [n for s, n in _FOUND_BY.items() if s in c.raw or (s is Signal.GRAPH and s in c.contributions)]
    reason = "relevance: " + ("found by " + ", ".join(dict.fromkeys(found)) if found else "prior score")
    if c.rerank is not None:
        reason += f"; reranker {c.rerank:.2f}"
    return reason


def to_item(c: Candidate) -> ContextItem:
    """A pipeline candidate as a public :class:`ContextItem`."""
    scores: dict[str, float] = {**{k: round(v, 6) for k, v in c.raw.items()}, "fused": round(c.score, 6)}
    if c.rerank is not None:
        scores[Signal.RERANK] = round(c.rerank, 6)
    if c.episode is not None:
        e = c.episode
        return ContextItem(kind="episode", id=e.id, text=e.content, score=c.score, scores=scores,
                           timestamp=e.timestamp, session_id=e.session_id, provenance=(e.id,),
                           metadata={**e.metadata, "role": e.role}, reason=_reason(c))
    if c.fact is not None:
        return _fact_item(c.fact, c.score, scores, _reason(c))
    assert c.rule is not None
    r = c.rule
    return ContextItem(kind="rule", id=r.id, text=c.text, score=c.score, scores=scores, timestamp=r.created_at,
                       confidence=r.confidence, metadata=dict(r.metadata), reason=_reason(c))


def _fact_item(f: Fact, score: float, scores: dict[str, float], reason: str) -> ContextItem:
    return ContextItem(kind="fact", id=f.id, text=f.text, score=score, scores=scores, timestamp=f.valid_from,
                       valid_from=f.valid_from, valid_to=f.valid_to, confidence=f.confidence,
                       provenance=f.provenance, metadata={"lineage_id": f.lineage_id, **f.metadata,
                                                          "importance": f.importance, "source": f.source},
                       reason=reason)


def guaranteed(
    components: Components, user_id: str, *, as_of: datetime | None, config: SearchConfig,
    kinds: Sequence[MemoryKind],
) -> list[ContextItem]:
    """What ``context()`` reserves its ``reserved_share`` for, whatever the query: the user's pinned
    blocks (:mod:`..engine.blocks`) and learnt rules (:func:`learnt_rules`), then the most important
    current facts (``reserved_importance`` and above, explicit ones unless ``reserved_inferred`` or
    their predicate is declared that important by the app's schema; most important first), each
    saying why it is there."""
    if not config.reserved_share:
        return []
    blocks = block_items(components, user_id, as_of=as_of) + (
        learnt_rules(components, user_id, as_of=as_of) if "rule" in kinds else [])
    if "fact" not in kinds or not config.reserved_facts:
        return blocks
    moment = to_epoch(as_of or utcnow()) or 0.0
    level = level_of(config.reserved_importance)  # predicates the app declared this important qualify inferred too
    declared = [p.name for p in components.config.facts.predicates if (p.importance or 0) >= level]
    facts = components.db.important_facts(user_id, min_importance=config.reserved_importance, at=moment,
                                          limit=config.reserved_facts, explicit_only=not config.reserved_inferred,
                                          predicates=declared)
    return blocks + [_fact_item(f, f.importance, {"importance": f.importance},
                       f"guaranteed slot: importance {level_of(f.importance)} of 5"
                       + (", asked to keep" if f.source == "explicit" else "")) for f in facts]


def learnt_rules(components: Components, user_id: str, *, as_of: datetime | None) -> list[ContextItem]:
    """The user's learnt rules (:mod:`..consolidation.learning`): instructions about every reply, so
    in every context, not only when a query resembles their condition."""
    rules = [r for r in components.db.list_rules(user_id) if r.metadata.get(LEARNT)]
    return [ContextItem(kind="rule", id=r.id, text=f"When {r.condition}: {r.action}", score=r.confidence,
                        timestamp=r.created_at, confidence=r.confidence, metadata=dict(r.metadata),
                        reason=f"guaranteed slot: rule learnt from {len(r.metadata.get('sessions', ()))} sessions")
            for r in (rules if as_of is None else rules_known_by(rules, as_of))]


def to_hit(c: Candidate, snippet: Sequence[Candidate] = ()) -> SearchHit:
    """A pipeline candidate as a :class:`SearchHit` (with the turns of its snippet, if any)."""
    scores: dict[str, float] = {k: v for k, v in c.raw.items()}  # raw signals + weighted parts
    scores.update((f"w_{k}", v) for k, v in c.contributions.items())
    if c.fact is not None:
        return SearchHit(kind="fact", id=c.id, text=c.text, score=c.score, timestamp=c.timestamp, fact=c.fact,
                         scores=scores, provenance=c.fact.provenance)
    if c.episode is not None:
        turns = sorted(snippet or [c], key=lambda t: (t.timestamp, t.id))
        text = c.text if len(turns) == 1 else "\n".join(_turn_text(t) for t in turns)
        return SearchHit(kind="episode", id=c.id, text=text, score=c.score, timestamp=c.timestamp,
                         episode=c.episode, scores=scores, provenance=tuple(t.id for t in turns))
    return SearchHit(kind=c.kind, id=c.id, text=c.text, score=c.score, timestamp=c.timestamp, rule=c.rule,
                     scores=scores)


def _turn_text(c: Candidate) -> str:
    return with_speaker(c.episode.role if c.episode is not None else "", c.text)


def snippets(
    components: Components, user_id: str, ranked: Sequence[Candidate], k: int, max_turns: int
) -> list[SearchHit]:
    """The ``k`` best items, adjacent turns of one session merged into one snippet.

    A turn right before or after a turn already selected joins its snippet (up to
    ``max_turns`` turns) instead of taking a slot of its own; a fact whose source turns
    are all selected already is redundant and only fills slots left over.
    """
    if max_turns <= 1:
        return [to_hit(c) for c in ranked[:k]]
    turn_ids = [c.id for c in ranked if c.kind == "episode"]
    links = components.db.neighbours(user_id, turn_ids) if turn_ids else {}
    owner: dict[str, int] = {}
    groups: list[list[Candidate]] = []
    deferred: list[Candidate] = []
    for cand in ranked:
        if cand.fact is not None and cand.fact.provenance and all(p in owner for p in cand.fact.provenance):
            deferred.append(cand)  # says nothing its source turns, already selected, do not
            continue
        if cand.kind == "episode":
            joined = next((owner[n] for n in links.get(cand.id, (None, None))
                           if n in owner and len(groups[owner[n]]) < max_turns), None)
            if joined is not None:
                groups[joined].append(cand)
                owner[cand.id] = joined
                continue
        if len(groups) >= k:
            break
        groups.append([cand])
        owner[cand.id] = len(groups) - 1
    groups += [[c] for c in deferred[: max(0, k - len(groups))]]
    return [to_hit(g[0], g) for g in groups]


def retrieve_snippets(
    pipeline: RecallPipeline, query: str, user_id: str, *, k: int, config: SearchConfig,
    kinds: Sequence[MemoryKind], as_of: datetime | None, session_id: str | None, rerank: bool | None,
) -> list[SearchHit]:
    """Hybrid retrieval as :meth:`NovaStore.retrieve` returns it: the pipeline's ranking, cut into
    the ``k`` best items (:func:`snippets`); nothing while the database is down (:func:`.reads.read_database`)."""
    def read() -> list[SearchHit]:
        retrieved = pipeline.retrieve(query, user_id, k=k * config.snippet_max_turns, config=config, kinds=kinds,
                                      as_of=as_of, session_id=session_id, rerank=rerank)
        return snippets(pipeline.components, user_id, retrieved.hits, k, config.snippet_max_turns)

    return read_database(pipeline.components.db, read, list)


F = TypeVar("F", bound=Callable[..., ContextResult])


def _traced(build: F) -> F:
    """``build_context`` inside the span and metrics of one ``context()`` call (``_tracing.context_call``):
    a decorator, so that the pipeline's own lines stay as they are."""

    @functools.wraps(build)
    def run(pipeline: RecallPipeline, query: str, user_id: str, *, budget_tokens: int, **rest: Any) -> ContextResult:
        content = pipeline.components.config.tracing.content
        with _tracing.context_call(user_id, query, budget_tokens, content=content) as done:
            result: ContextResult = build(pipeline, query, user_id, budget_tokens=budget_tokens, **rest)
            done(result)
            return result

    return cast(F, run)


@_traced
def build_context(
    pipeline: RecallPipeline,
    query: str,
    user_id: str,
    *,
    budget_tokens: int,
    as_of: datetime | None,
    fmt: Format,
    session_id: str | None,
    config: SearchConfig,
    kinds: Sequence[MemoryKind] = ("episode", "fact", "rule"),
) -> ContextResult:
    """The full pipeline for one query (see :meth:`NovaStore.context`): retrieve (signals ->
    fusion -> rerank, and the vectors compression compares) -> compress -> assemble, which packs
    the :func:`guaranteed` items into their reserved share first and the relevant ones after. While
    the database is down, an empty context (:func:`.reads.read_database`: recall fails open)."""
    def empty() -> ContextResult:
        return ContextResult(query=query, user_id=user_id, text="", tokens=0, budget_tokens=budget_tokens,
                             format=fmt, tokenizer=pipeline.components.token_counter.name)

    return read_database(pipeline.components.db, lambda: _context(
        pipeline, query, user_id, budget_tokens=budget_tokens, as_of=as_of, fmt=fmt, session_id=session_id,
        config=config, kinds=kinds), empty)


def _context(
    pipeline: RecallPipeline, query: str, user_id: str, *, budget_tokens: int, as_of: datetime | None, fmt: Format,
    session_id: str | None, config: SearchConfig, kinds: Sequence[MemoryKind],
) -> ContextResult:
    start = time.perf_counter()
    retrieved = pipeline.retrieve(query, user_id, k=config.candidates_for(budget_tokens), config=config,
                                  kinds=kinds, as_of=as_of, session_id=session_id, with_vectors=True)
    timings = dict(retrieved.timings)
    components = pipeline.components
    counter = components.token_counter
    clock = time.perf_counter()
    relevance = relevance_of(retrieved.hits, retrieved.query_vector)
    floored = gated(relevance, config)  # a weak best match: nothing for relevance (why, or None)
    hits = [] if floored else retrieved.hits
    reserved = guaranteed(components, user_id, as_of=as_of, config=config, kinds=kinds)
    with _tracing.span("nova_memory.recall.compress"):
        compressed = compress_items([to_item(c) for c in hits], [c.vector for c in hits], retrieved.sentence_vectors,
                                    query, retrieved.query_vector, counter=counter, config=config)
    timings["compress_ms"] = round((time.perf_counter() - clock) * 1000, 3)

    clock = time.perf_counter()
    items = components.hooks.run_list("before_assemble", user_id, [*reserved, *compressed.items])  # may filter
    held = {i.id for i in reserved}  # or redact items, reserved ones too; those first, as given
    slots: dict[str, ContextItem] = {}
    for item in items:
        if item.id in held:
            slots.setdefault(item.id, item)
    with _tracing.span("nova_memory.recall.assemble"):
        text, tokens, kept, over = assemble([i for i in items if i.id not in held], fmt, budget_tokens, counter,
                                            fact_share=config.fact_share, query=query, fuller=compressed.fuller,
                                            relevance=compressed.relevance, names=compressed.names,
                                            reserved=list(slots.values()), reserved_share=config.reserved_share)
    below = [to_item(c).model_copy(update={"reason": floored}) for c in retrieved.hits] if floored else []
    dropped = below + compressed.dropped + [i.model_copy(update={"reason": "over the reserved share of the budget"
                                                         if i.id in held else "over the token budget"}) for i in over]
    timings["assemble_ms"] = round((time.perf_counter() - clock) * 1000, 3)
    kept_eps = [i.id for i in kept if i.kind == "episode"]
    components.db.touch_episodes(user_id, kept_eps, to_epoch(utcnow()) or 0.0)
    timings["total_ms"] = round((time.perf_counter() - start) * 1000, 3)
    ranked = [i.text for i in kept if i.id not in held]  # what compression worked on (not the reserved)
    kept_tokens = sum(counter.count_many(ranked)) if ranked else 0
    original = compressed.original_tokens
    result = ContextResult(
        query=query, user_id=user_id, text=text, tokens=tokens, budget_tokens=budget_tokens, format=fmt,
        tokenizer=counter.name, sources=tuple(kept), dropped=tuple(dropped), timings=timings,
        compression_ratio=round(kept_tokens / original, 4) if original else 1.0,
        best_match=relevance.best, keyword_match=relevance.keyword,
    )
    try:
        return components.hooks.run("after_assemble", user_id, result)
    except Veto:
        dropped_all = result.dropped + result.sources
        return result.model_copy(update={"text": "", "tokens": 0, "sources": (), "dropped": dropped_all})


def compress_texts(
    pipeline: RecallPipeline,
    query: str,
    texts: Sequence[str],
    *,
    budget_tokens: int | None,
    k: int | None,
    dedupe_threshold: float,
    max_item_tokens: int | None = None,
    min_item_tokens: int = 12,
) -> CompressionResult:
    """Rerank, dedupe and fit arbitrary texts to a budget (see :meth:`NovaStore.compress`)."""
    embedder = pipeline.components.embedder
    counter = pipeline.components.token_counter
    if not texts:
        return CompressionResult(items=())
    vectors = embedder.embed_cached(list(texts))
    known = {**dict(zip(texts, vectors)), query: embedder.embed_query(query)}
    scores = [float(s) for s in reranker_scores(pipeline.reranker, query, list(texts), known)]
    order = sorted(range(len(texts)), key=lambda i: scores[i], reverse=True)
    dups_local = near_duplicates([vectors[i] for i in order], dedupe_threshold)
    duplicates = tuple(order[i] for i in dups_local)
    lengths = counter.count_many(list(texts))
    kept: list[CompressedText] = []
    dropped: list[int] = []
    used = 0
    for pos, idx in enumerate(order):
        if pos in dups_local:
            continue
        if k is not None and len(kept) >= k:
            dropped.append(idx)
            continue
        text, n = texts[idx], lengths[idx]
        limit = max_item_tokens or n
        if budget_tokens is not None:
            limit = min(limit, budget_tokens - used)
        if limit <= 0:
            dropped.append(idx)
            continue
        if n > limit:
            text = extract_sentences(text, query, limit, counter)
            n = counter.count(text)
            budget_bound = budget_tokens is not None and budget_tokens - used < (max_item_tokens or lengths[idx])
            floor = min(min_item_tokens, lengths[idx]) if budget_bound else 1
            if not text or n > limit or n < floor:  # no stubs cut by a nearly spent budget
                dropped.append(idx)
                continue
        kept.append(CompressedText(index=idx, text=text, score=scores[idx], original_tokens=lengths[idx], tokens=n))
        used += n
    return CompressionResult(items=tuple(kept), dropped_indices=tuple(dropped), duplicate_indices=duplicates,
                             input_tokens=sum(lengths), output_tokens=used)


def dense_search(
    components: Components,
    query: str,
    user_id: str,
    *,
    k: int,
    kinds: Sequence[MemoryKind],
    session_id: str | None,
    as_of: datetime | None,
) -> list[SearchHit]:
    """Plain dense search (see :meth:`NovaStore.search`). While the vector index is down, the
    user's keyword (BM25) matches are scored by cosine too, so older memories stay findable;
    while the database is down, nothing (:func:`.reads.read_database`). With ``as_of``, a
    point-in-time search: nothing learnt after it (:mod:`.point_in_time`)."""
    return read_database(components.db, lambda: _dense_search(
        components, query, user_id, k=k, kinds=kinds, session_id=session_id, as_of=as_of), list)


def _dense_search(
    components: Components, query: str, user_id: str, *, k: int, kinds: Sequence[MemoryKind],
    session_id: str | None, as_of: datetime | None,
) -> list[SearchHit]:
    moment = as_of or utcnow()
    vector = components.embedder.embed_query(query)
    db = components.db
    hits: list[SearchHit] = []

    def nearest(kind: MemoryKind, n: int) -> dict[str, float]:
        found = dense_now(components, kind, vector, user_id, n, session_id=session_id)
        if components.vectors.outage.down:  # keyword candidates, scored by cosine: never only the newest rows
            found = merge_hits(found, keyword_dense(components, kind, query, vector, user_id, n, session_id=session_id))
        return dict(found[:n])

    if "episode" in kinds:
        found = nearest("episode", k + overfetch(db, user_id, as_of))
        for ep in db.get_episodes(user_id, list(found)):
            if as_of is not None and ep.timestamp > as_of:
                continue
            hits.append(SearchHit(kind="episode", id=ep.id, text=ep.content, score=found[ep.id],
                                  timestamp=ep.timestamp, episode=ep, scores={"dense": found[ep.id]},
                                  provenance=(ep.id,)))
    if "fact" in kinds:
        found = nearest("fact", k * 2)
        facts = db.select_facts(user_id, ids=list(found))
        for fact in (facts_known_by(db, user_id, facts, as_of) if as_of is not None
                     else [f for f in facts if f.is_valid_at(moment)]):
            hits.append(SearchHit(kind="fact", id=fact.id, text=fact.text, score=found[fact.id],
                                  timestamp=fact.valid_from, fact=fact, scores={"dense": found[fact.id]},
                                  provenance=fact.provenance))
    if "rule" in kinds:
        found = nearest("rule", k)
        rules = db.list_rules(user_id, ids=list(found))
        for rule in rules if as_of is None else rules_known_by(rules, as_of):
            hits.append(SearchHit(kind="rule", id=rule.id, text=f"When {rule.condition}: {rule.action}",
                                  score=found[rule.id], timestamp=rule.created_at, rule=rule,
                                  scores={"dense": found[rule.id]}))
    hits.sort(key=lambda h: h.score, reverse=True)
    return hits[:k]
