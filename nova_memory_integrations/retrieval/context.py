"""Recall: retrieve -> rerank -> compress -> assemble, and compression of arbitrary texts.

The engine's ``context()``, ``retrieve()``, ``search()`` and ``compress()`` delegate here,
so ``NovaStore`` stays a thin facade and this file reads as the pipeline of one query.
The functions take the :class:`~.pipeline.RecallPipeline` (stages 1-2) or the engine's
:class:`~nova_memory_integrations.engine.components.Components`, never the facade.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import numpy as np

from .._time import to_epoch, utcnow
from ..embeddings.similarity import cosines
from ..engine.hooks import Veto
from ..engine.tokens import TokenCounter
from ..storage.vectors import Vector
from ..types import CompressedText, CompressionResult, ContextItem, ContextResult, MemoryKind, SearchHit
from .assemble import Format, fit, line, render, with_speaker
from .compress import extract_sentences, near_duplicates, sentence_memo, strip_phatic
from .config import SearchConfig
from .signals import Candidate, Key, dense_now, fill_vectors, index_down, keyword_dense, merge_hits, name_words

if TYPE_CHECKING:
    from ..engine.components import Components
    from .pipeline import RecallPipeline

__all__ = ["build_context", "compress_texts", "dense_search", "snippets", "to_hit", "to_item"]

_SIGNAL_NAMES = {
    "dense": "semantic match", "lexical": "keyword match (BM25)", "fact_dense": "semantic match",
    "fact_lexical": "keyword match (BM25)", "graph": "entity in the query's graph neighbourhood",
    "rule": "rule condition matches", "neighbour": "adjacent turn of a match",
}


def _vectors(components: Components, user_id: str, cands: Sequence[Candidate]) -> list[Sequence[float] | Vector]:
    """Vectors of candidates: stored ones (fetched once; reused when the reranker had them),
    else, for rows the indexer has not reached yet, those the read embedded itself (cached)."""
    fill_vectors(components.db, components.vectors, user_id, cands)
    missing = [c for c in cands if c.vector is None]
    cached = components.embedder.cached(c.text for c in missing) if missing else {}
    found: dict[Key, Sequence[float] | Vector] = {c.key: cached[c.text] for c in missing if c.text in cached}
    dim = next((len(c.vector) for c in cands if c.vector is not None), 0) or next((len(v) for v in found.values()), 1)
    zero = [0.0] * dim
    return [c.vector if c.vector is not None else found.get(c.key, zero) for c in cands]


def _reason(c: Candidate) -> str:
    found = [n for s, n in _SIGNAL_NAMES.items() if s in c.raw or (s == "graph" and "graph" in c.contributions)]
    reason = "found by " + ", ".join(dict.fromkeys(found)) if found else "prior score"
    if c.rerank is not None:
        reason += f"; reranker {c.rerank:.2f}"
    return reason


def to_item(c: Candidate) -> ContextItem:
    """A pipeline candidate as a public :class:`ContextItem`."""
    scores = {**{k: round(v, 6) for k, v in c.raw.items()}, "fused": round(c.score, 6)}
    if c.rerank is not None:
        scores["rerank"] = round(c.rerank, 6)
    if c.episode is not None:
        e = c.episode
        return ContextItem(kind="episode", id=e.id, text=e.content, score=c.score, scores=scores,
                           timestamp=e.timestamp, session_id=e.session_id, provenance=(e.id,),
                           metadata={**e.metadata, "role": e.role}, reason=_reason(c))
    if c.fact is not None:
        f = c.fact
        return ContextItem(kind="fact", id=f.id, text=f.text, score=c.score, scores=scores, timestamp=f.valid_from,
                           valid_from=f.valid_from, valid_to=f.valid_to, confidence=f.confidence,
                           provenance=f.provenance, metadata={"lineage_id": f.lineage_id, **f.metadata},
                           reason=_reason(c))
    assert c.rule is not None
    r = c.rule
    return ContextItem(kind="rule", id=r.id, text=c.text, score=c.score, scores=scores, timestamp=r.created_at,
                       confidence=r.confidence, metadata=dict(r.metadata), reason=_reason(c))


def to_hit(c: Candidate, snippet: Sequence[Candidate] = ()) -> SearchHit:
    """A pipeline candidate as a :class:`SearchHit` (with the turns of its snippet, if any)."""
    scores = {**c.raw, **{f"w_{k}": v for k, v in c.contributions.items()}}  # raw signals + weighted parts
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


def _sentence_relevance(
    components: Components, user_id: str, turns: Mapping[str, str], qvec: Sequence[float] | None
) -> dict[str, dict[str, float]]:
    """Per turn (id -> its text) with kept sentence vectors (one read), each of its sentences
    (:func:`~.compress.sentences_of`) by cosine to the dense query: what cutting the turn chooses
    by. A turn whose kept vectors do not match its sentences now (count or size) is left out
    (shared words choose there)."""
    if qvec is None or not turns:
        return {}
    q = np.asarray(qvec, dtype=np.float32)
    found: list[tuple[str, tuple[str, ...]]] = []
    blocks: list[np.ndarray] = []
    for eid, flat in components.db.sentence_vectors(user_id, list(turns)).items():
        sentences = sentence_memo(turns[eid])
        if len(sentences) > 1 and flat.size == len(sentences) * q.size:
            found.append((eid, sentences))
            blocks.append(flat.reshape(len(sentences), q.size))
    if not blocks:
        return {}
    m = np.concatenate(blocks)
    cos = cosines(m, q).tolist()
    out: dict[str, dict[str, float]] = {}
    at = 0
    for eid, sentences in found:
        out[eid] = dict(zip(sentences, cos[at:at + len(sentences)]))
        at += len(sentences)
    return out


def _speaker_names(cands: Sequence[Candidate]) -> frozenset[str]:
    """Words of the speakers' names (roles other than user/assistant/...), casefolded."""
    roles = {c.episode.role for c in cands if c.episode is not None}
    return frozenset(w for r in roles for w in name_words(r))


def _expand(
    kept: list[ContextItem], fuller: dict[str, str], text: str, tokens: int, *, query: str, fmt: Format,
    budget: int, counter: TokenCounter, names: frozenset[str], attempts: int = 6,
    relevance: Mapping[str, Mapping[str, float]] | None = None,
) -> tuple[str, int, list[ContextItem]]:
    """Spend what the budget has left on giving back cut sentences, best items first.

    Each change is costed by its own line; the result is rendered and counted once and
    the cut version is kept if the real count would exceed the budget.
    """
    grown = list(kept)
    estimate = tokens
    for pos, item in enumerate(kept):
        if attempts <= 0 or budget - estimate < 6:
            break
        original = fuller.get(item.id)
        if original is None:
            continue
        attempts -= 1
        room = counter.count(item.text) + budget - estimate - 2
        longer = extract_sentences(original, query, room, counter, names=names,
                                   relevance=(relevance or {}).get(item.id))
        if len(longer) <= len(item.text):
            continue
        reason = item.reason.replace("; compressed extractively", "") if longer == original else item.reason
        wider = item.model_copy(update={"text": longer, "reason": reason})
        delta = counter.count(line(wider, fmt)) - counter.count(line(item, fmt))
        if estimate + delta <= budget:
            grown[pos], estimate = wider, estimate + delta
    if grown == kept:
        return text, tokens, kept
    grown_text = render(grown, fmt)
    grown_tokens = counter.count(grown_text)
    return (grown_text, grown_tokens, grown) if grown_tokens <= budget else (text, tokens, kept)


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
    """The full pipeline for one query (see :meth:`NovaStore.context`)."""
    timings: dict[str, float] = {}
    start = time.perf_counter()
    qvecs: list[list[float]] = []
    cands = pipeline.retrieve(query, user_id, k=config.candidates_for(budget_tokens), config=config, kinds=kinds,
                            as_of=as_of, session_id=session_id, timings=timings, query_vectors=qvecs)
    clock = time.perf_counter()
    components = pipeline.components
    counter = components.token_counter
    # compress: near-duplicates out, long items cut to their most relevant sentences
    dropped: list[ContextItem] = []
    dups = near_duplicates(_vectors(components, user_id, cands), config.dedupe_threshold) if len(cands) > 1 else {}
    items: list[ContextItem] = []
    original = 0
    names = _speaker_names(cands)
    fuller: dict[str, str] = {}
    caps: dict[int, int] = {}  # position in items -> the cap of an item to cut
    episodes = {c.id: c.episode.content for c in cands if c.episode is not None}
    for i, c in enumerate(cands):
        item = to_item(c)
        if i in dups:
            dropped.append(item.model_copy(update={"reason": f"near-duplicate of {cands[dups[i]].id}"}))
            continue
        n = counter.count(item.text)
        original += n
        if item.kind == "episode":
            bare = strip_phatic(item.text, names)
            if not bare:
                dropped.append(item.model_copy(update={"reason": "greeting or thanks only"}))
                continue
            if bare != item.text:
                item = item.model_copy(update={"text": bare, "reason": item.reason + "; small talk removed"})
                n = counter.count(bare)
        cap = config.lead_item_tokens if len(items) < config.lead_items else config.max_item_tokens
        if n > cap:
            fuller[item.id] = item.text
            caps[len(items)] = cap
        items.append(item)
    # long items cut to their sentences closest to the query (one read of the kept sentence vectors)
    relevance = _sentence_relevance(components, user_id, {items[i].id: episodes[items[i].id] for i in caps
                                                          if items[i].id in episodes}, qvecs[0] if qvecs else None)
    for i, cap in caps.items():
        item = items[i]
        short = extract_sentences(item.text, query, cap, counter, names=names,
                                  stretch_to=int(cap * config.item_stretch), relevance=relevance.get(item.id))
        items[i] = item.model_copy(update={"text": short, "reason": item.reason + "; compressed extractively"})
    timings["compress_ms"] = round((time.perf_counter() - clock) * 1000, 3)

    clock = time.perf_counter()
    items = components.hooks.run_list("before_assemble", user_id, items)  # a hook may filter or redact items
    text, tokens, kept, over = fit(items, fmt, budget_tokens, counter, fact_share=config.fact_share)
    text, tokens, kept = _expand(kept, fuller, text, tokens, query=query, fmt=fmt, budget=budget_tokens,
                                 counter=counter, names=names, relevance=relevance)
    dropped += [i.model_copy(update={"reason": "over the token budget"}) for i in over]
    timings["assemble_ms"] = round((time.perf_counter() - clock) * 1000, 3)
    kept_eps = [i.id for i in kept if i.kind == "episode"]
    components.db.touch_episodes(user_id, kept_eps, to_epoch(utcnow()) or 0.0)
    timings["total_ms"] = round((time.perf_counter() - start) * 1000, 3)
    kept_tokens = sum(counter.count_many([i.text for i in kept])) if kept else 0
    result = ContextResult(
        query=query, user_id=user_id, text=text, tokens=tokens, budget_tokens=budget_tokens, format=fmt,
        tokenizer=counter.name, sources=tuple(kept), dropped=tuple(dropped), timings=timings,
        compression_ratio=round(kept_tokens / original, 4) if original else 1.0,
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
    with pipeline.known_vectors({**dict(zip(texts, vectors)), query: embedder.embed_query(query)}):
        scores = [float(s) for s in pipeline.reranker.score(query, list(texts))]
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
    user's keyword (BM25) matches are scored by cosine too, so older memories stay findable."""
    moment = as_of or utcnow()
    vector = components.embedder.embed_query(query)
    hits: list[SearchHit] = []

    def nearest(kind: MemoryKind, n: int) -> dict[str, float]:
        found = dense_now(components, kind, vector, user_id, n, session_id=session_id)
        if index_down(components.vectors):  # keyword candidates, scored by cosine: never only the newest rows
            found = merge_hits(found, keyword_dense(components, kind, query, vector, user_id, n, session_id=session_id))
        return dict(found[:n])

    if "episode" in kinds:
        found = nearest("episode", k)
        for ep in components.db.get_episodes(user_id, list(found)):
            hits.append(SearchHit(kind="episode", id=ep.id, text=ep.content, score=found[ep.id],
                                  timestamp=ep.timestamp, episode=ep, scores={"dense": found[ep.id]},
                                  provenance=(ep.id,)))
    if "fact" in kinds:
        found = nearest("fact", k * 2)
        for fact in components.db.select_facts(user_id, ids=list(found)):
            if fact.is_valid_at(moment):
                hits.append(SearchHit(kind="fact", id=fact.id, text=fact.text, score=found[fact.id],
                                      timestamp=fact.valid_from, fact=fact, scores={"dense": found[fact.id]},
                                      provenance=fact.provenance))
    if "rule" in kinds:
        found = nearest("rule", k)
        for rule in components.db.list_rules(user_id, ids=list(found)):
            hits.append(SearchHit(kind="rule", id=rule.id, text=f"When {rule.condition}: {rule.action}",
                                  score=found[rule.id], timestamp=rule.created_at, rule=rule,
                                  scores={"dense": found[rule.id]}))
    hits.sort(key=lambda h: h.score, reverse=True)
    return hits[:k]
