"""Stage 2 of recall: fusion, one score per candidate from what the signals found.

:func:`fuse` is the stage: :func:`gather` reads what scoring needs (the candidates' rows and
vectors, the cosines keyword hits lack, the turns near the best ones, fact confidences), then
:func:`score`, a pure function whose docstring is the formula, gives each candidate the parts
of its score. The priors' terms (:func:`recency`, :func:`saturating`, :func:`weight_at`) and
:func:`rrf` are pure functions over ranks, scores and timestamps.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

from ..memory.importance import decay_scale
from ..memory.lifecycle_rules import effective_weight
from .candidate import Candidate, Key
from .point_in_time import facts_known_by, rules_known_by
from .reads import fill_vectors
from .search_config import SearchConfig, Signal, SignalWeights
from .signals import Found, asks, cosines, in_windows, named_speakers

if TYPE_CHECKING:
    from ..engine.components import Components

__all__ = [
    "FusionInputs", "fuse", "gather", "min_max", "recency", "rrf", "saturating", "score", "weight_at",
    "weight_reference",
]

_S = TypeVar("_S", bound=Hashable)
_KINDS = (("episode", Signal.DENSE, Signal.LEXICAL), ("fact", Signal.FACT_DENSE, Signal.FACT_LEXICAL))
"""Per kind ranked by relevance: its dense and its keyword signal."""


@dataclass(frozen=True)
class FusionInputs:
    """Everything :func:`score` weighs (:func:`gather` reads it)."""

    found: Found
    """What the signals found (rankings, raw scores, graph hops, named windows, the moment)."""
    cands: dict[Key, Candidate]
    """Every candidate, in the order found: rows read, cosines to the query filled (weighted
    fusion); the turns near the best ones that no signal listed come last (``added``)."""
    added: frozenset[Key]
    """The candidates no signal listed: turns near a turn of the ``pool``."""
    pool: tuple[str, ...]
    """The turns that pass score to the turns near them (the ``neighbour_pool`` most relevant)."""
    links: Mapping[str, Sequence[tuple[str, int]]]
    """Per turn of the pool, the turns near it in its session with their offsets (-1: just before)."""
    confidence: Mapping[str, float]
    """Effective confidence of each fact candidate."""
    reference: datetime | None
    """The present effective weights decay towards (:func:`weight_reference`; ``None``: unused)."""
    access_mult: float
    decay_rate: float
    """The lifecycle's effective-weight parameters (``lifecycle.access_mult`` / ``decay_rate``)."""


def fuse(parts: Components, user_id: str, query: str, found: Found, config: SearchConfig) -> list[Candidate]:
    """Stage 2: the candidates of ``found``, each with the parts of its score (:func:`score`)
    and their sum, best first."""
    inputs = gather(parts, user_id, found, config)
    scored = score(inputs, config, query)
    for key, cand in inputs.cands.items():
        cand.contributions = scored[key]
        cand.score = sum(cand.contributions.values())
        if key in inputs.added:  # found by its neighbour alone
            cand.raw = {Signal.NEIGHBOUR: cand.contributions.get(Signal.NEIGHBOUR, 0.0), **cand.raw}
    return sorted(inputs.cands.values(), key=lambda c: c.score, reverse=True)


def gather(parts: Components, user_id: str, found: Found, config: SearchConfig) -> FusionInputs:
    """Read what scoring weighs: the rows (with kept vectors) of the episodes found, the facts
    valid at the moment and the rules; for weighted fusion the cosine to the query of every
    candidate (the vectors keyword hits lack read on their own), and the turns near the
    ``neighbour_pool`` most relevant turns (:func:`relevance`), with their rows and cosines;
    fact confidences and the effective weights' reference."""
    db = parts.db
    qvec = found.query_vector
    cands = _materialize(parts, user_id, found)
    pool: tuple[str, ...] = ()
    links: dict[str, list[tuple[str, int]]] = {}
    added: dict[Key, Candidate] = {}
    if config.fusion == "weighted":
        _fill_cosine(parts, user_id, cands, qvec)
        base = {key: sum(p.values()) for key, p in relevance(cands, config.weights).items() if key[0] == "episode"}
        turns = sorted((c for c in cands.values() if c.kind == "episode"), key=lambda c: base[c.key], reverse=True)
        if (config.neighbour_weight > 0 or config.reply_weight > 0) and config.neighbour_pool > 0 and turns:
            pool = tuple(c.id for c in turns[: config.neighbour_pool])
            links = db.nearby(user_id, list(pool), config.neighbour_reach)
            near = dict.fromkeys(n for i in pool for n, _ in links.get(i, ()))
            rows, kept = db.episode_rows_and_vectors(user_id, [i for i in near if ("episode", i) not in cands])
            for row in rows:
                if found.until is not None and row.timestamp > found.until:
                    continue  # said after the moment a point-in-time read asks about
                cands[("episode", row.id)] = added[("episode", row.id)] = Candidate(
                    "episode", row.id, row.content, row.timestamp, row=row, vector=kept.get(row.id))
            # a neighbour from beyond the dense and keyword lists still has its own similarity to
            # the query: without it, it ranked on what its neighbour passed it alone
            _fill_cosine(parts, user_id, added, qvec)
    confidence = parts.facts.effective_confidences(
        user_id, [c.fact for c in cands.values() if c.fact is not None], now=found.moment)
    reference = None
    if config.weights.effective_weight:  # one indexed read per query
        latest = db.list_episodes(user_id, limit=1, newest_first=True)
        reference = weight_reference(found.moment, latest[0].timestamp if latest else None)
    life = parts.config.lifecycle
    return FusionInputs(found, cands, frozenset(added), pool, links, confidence, reference, life.access_mult,
                        life.decay_rate)


def _materialize(parts: Components, user_id: str, found: Found) -> dict[Key, Candidate]:
    db = parts.db
    raw = found.raw
    out: dict[Key, Candidate] = {}
    ep_ids = [i for kind, i in raw if kind == "episode"]
    rows, kept = db.episode_rows_and_vectors(user_id, ep_ids)  # fusion and compression compare the vectors
    until = found.until  # a point-in-time read: nothing learnt after it (point_in_time)
    for row in rows:
        if until is None or row.timestamp <= until:
            out[("episode", row.id)] = Candidate("episode", row.id, row.content, row.timestamp, row=row,
                                                 raw=dict(raw[("episode", row.id)]), vector=kept.get(row.id))
    fact_ids = [i for kind, i in raw if kind == "fact"]
    facts = db.select_facts(user_id, ids=fact_ids)
    valid = (facts_known_by(db, user_id, facts, until) if until is not None
             else [f for f in facts if f.is_valid_at(found.moment)])
    for fact in valid:
        out[("fact", fact.id)] = Candidate("fact", fact.id, fact.text, fact.valid_from, fact=fact,
                                           raw=dict(raw[("fact", fact.id)]))
    rule_scores = dict(found.rule_hits)
    rules = db.list_rules(user_id, ids=list(rule_scores))
    for rule in rules if until is None else rules_known_by(rules, until):
        out[("rule", rule.id)] = Candidate("rule", rule.id, f"When {rule.condition}: {rule.action}",
                                           rule.created_at, rule=rule, raw={Signal.RULE: rule_scores[rule.id]})
    return out


def _fill_cosine(parts: Components, user_id: str, cands: Mapping[Key, Candidate], qvec: Sequence[float]) -> None:
    """Cosine to the query for every candidate (fetching vectors BM25-only hits lack)."""
    cosine = Signal.COSINE  # an Enum member read once: as a class attribute it costs ~4 globals
    for kind, sig, _ in _KINDS:
        group = [c for c in cands.values() if c.kind == kind]
        for c in group:
            if sig in c.raw:
                c.raw[cosine] = c.raw[sig]
        missing = [c for c in group if sig not in c.raw]
        if not missing:
            continue
        # most came with their rows; compression's dedupe compares them next, not read again
        fill_vectors(parts.db, parts.vectors, user_id, missing)
        found = [(c, c.vector) for c in missing if c.vector is not None]
        if found:  # one matrix product for the lot
            for (c, _), cos in zip(found, cosines([v for _, v in found], qvec)):
                c.raw[cosine] = float(cos)


def relevance(cands: Mapping[Key, Candidate], weights: SignalWeights, skip: frozenset[Key] = frozenset()
              ) -> dict[Key, dict[Signal, float]]:
    """The parts of weighted fusion that the signals' own scores make, per candidate (but those
    in ``skip``); its relevance is their sum:

    - a turn: ``dense * cosine + lexical * bm25 / max bm25`` (the max over the turns);
    - a fact: ``fact_dense * cosine + fact_lexical * bm25 / max bm25`` (the max over the facts);
    - a rule: its similarity (``rule``).
    """
    out: dict[Key, dict[Signal, float]] = {}
    cosine, rule = Signal.COSINE, Signal.RULE
    for kind, sig_d, sig_l in _KINDS:
        group = [(key, c.raw) for key, c in cands.items() if c.kind == kind and key not in skip]
        top_lex = max((raw.get(sig_l, 0.0) for _, raw in group), default=0.0) or 1.0
        wd, wl = weights.of(sig_d), weights.of(sig_l)
        for key, raw in group:
            out[key] = {sig_d: wd * raw.get(cosine, 0.0), sig_l: wl * raw.get(sig_l, 0.0) / top_lex}
    for key, c in cands.items():
        if c.kind == "rule" and key not in skip:
            out[key] = {rule: c.raw.get(rule, 0.0)}
    return out


def score(inputs: FusionInputs, config: SearchConfig, query: str) -> dict[Key, dict[Signal, float]]:
    """The parts of each candidate's fused score (the score is their sum), in this order.

    Weighted fusion (``config.fusion == "weighted"``; ``w`` = ``config.weights``)::

        rel(c)        = relevance(c)          (see relevance(): cosines and BM25, rule similarity)
                        + w.graph / (1 + hop) for a fact reached through the fact graph
        neighbour(n)  = sum, over the pool turns t with n within neighbour_reach of t in its session
                        (offset d: n is d turns after t, d < 0 before), of
                          neighbour_weight * rel(t) / |d|  +  (reply_weight * rel(t) if d = 1 and t asks)
                        and a turn no signal listed also gets  dense = w.dense * cosine(n)  (rel 0)
        session(t)    = session_weight * (sum of the best 3 rel of t's session's turns) / 3
        s(t)          = rel(t) + neighbour(t) + session(t)
        speaker(t)    = w.speaker * s(t)  if the query names t's speaker
        date(t)       = w.date * s(t)     if t's event time falls in a window the query names

    Reciprocal rank fusion (``"rrf"``): each signal that ranked c, ``w.of(signal) / (rrf_k + rank)``
    (:func:`rrf`); a rule, ``rule similarity / (rrf_k + 1)``.

    Then the priors (``u`` = 1 weighted, ``1 / (rrf_k + 1)`` RRF)::

        recency    = w.recency * u * 0.5 ** (age_days / recency_half_life_days)
        importance = w.importance * u * importance           (turns: memory/importance; facts rank by
                                                              confidence here, important ones get
                                                              context()'s guaranteed slots)
        access     = w.access * u * ln(1 + n) / ln(6 + n)    (turns, n accesses)
        weight     = w.effective_weight * u * importance * (1 + access_mult * ln(1 + n))
                       * exp(-decay_rate * decay_scale * age_days to the reference)   (turns; weight_at)
        confidence = w.confidence * u * effective confidence (facts)
    """
    cands = inputs.cands
    if config.fusion == "rrf":
        rankings = inputs.found.rankings
        fused = rrf({s: [key for key in r if key in cands] for s, r in rankings.items()},
                    {s: config.weights.of(s) for s in rankings}, config.rrf_k)
        unit = 1.0 / (config.rrf_k + 1)
        parts: dict[Key, dict[Signal, float]] = {}
        for key, cand in cands.items():
            parts[key] = dict(fused.get(key, {}))
            if cand.kind == "rule":
                parts[key][Signal.RULE] = unit * cand.raw.get(Signal.RULE, 0.0)
    else:
        unit = 1.0
        parts = _weighted(inputs, config, query)
    w = config.weights
    moment, half_life = inputs.found.moment, config.recency_half_life_days
    reference = inputs.reference if w.effective_weight else None  # access counts came with the row read
    s_recency, s_importance, s_access, s_weight, s_confidence = (
        Signal.RECENCY, Signal.IMPORTANCE, Signal.ACCESS, Signal.WEIGHT, Signal.CONFIDENCE)
    for key, cand in cands.items():
        c = parts.setdefault(key, {})
        if w.recency:
            c[s_recency] = w.recency * unit * recency(cand.timestamp, moment, half_life)
        if (turn := cand.episode if cand.episode is not None else cand.row) is not None:
            c[s_importance] = w.importance * unit * turn.importance
            c[s_access] = w.access * unit * saturating(turn.access_count)
            if reference is not None:
                c[s_weight] = w.effective_weight * unit * weight_at(
                    turn.importance, turn.access_count, turn.timestamp, reference,
                    access_mult=inputs.access_mult, decay_rate=inputs.decay_rate * decay_scale(turn.importance,
                                                                                              turn.source))
        if cand.fact is not None:
            c[s_confidence] = w.confidence * unit * inputs.confidence[cand.fact.id]
    return parts


def _weighted(inputs: FusionInputs, config: SearchConfig, query: str) -> dict[Key, dict[Signal, float]]:
    """:func:`score`'s weighted parts before the priors."""
    w = config.weights
    cands = inputs.cands
    parts = relevance(cands, w, inputs.added)
    for fact, hop in inputs.found.graph_hits:
        if ("fact", fact.id) in parts:
            parts[("fact", fact.id)][Signal.GRAPH] = w.graph / (1 + hop)
    base = {key[1]: sum(parts[key].values()) for key, c in cands.items() if c.kind == "episode" and key in parts}
    passed: dict[str, float] = {}
    for i in inputs.pool:
        reply = config.reply_weight * base[i] if config.reply_weight and asks(cands[("episode", i)].text) else 0.0
        for n, offset in inputs.links.get(i, ()):
            passed[n] = passed.get(n, 0.0) + config.neighbour_weight * base[i] / abs(offset)
            if offset == 1 and reply:
                passed[n] += reply
    for key, c in cands.items():
        if key in inputs.added:
            parts[key] = {Signal.DENSE: w.dense * c.raw.get(Signal.COSINE, 0.0)}
            base[key[1]] = 0.0
    neighbour = Signal.NEIGHBOUR
    for i, value in passed.items():
        if ("episode", i) in cands:
            parts[("episode", i)][neighbour] = value
    turns = [(key, turn) for key, c in cands.items()
             if (turn := c.episode if c.episode is not None else c.row) is not None]
    if config.session_weight > 0:
        by_session: dict[str, list[float]] = {}
        for key, turn in turns:
            if turn.session_id:
                by_session.setdefault(turn.session_id, []).append(base.get(key[1], 0.0))
        boost = {s: sum(sorted(v)[-3:]) / 3 for s, v in by_session.items()}
        session = Signal.SESSION
        for key, turn in turns:
            if turn.session_id in boost:
                parts[key][session] = config.session_weight * boost[turn.session_id]
    named = named_speakers(query, {turn.role for _, turn in turns}) if w.speaker else set()
    windows = inputs.found.windows
    if named or (w.date and windows):  # else no boost applies: no turn's score is summed for one
        for key, turn in turns:
            p = parts[key]
            s = sum(p.values())
            if turn.role in named:
                p[Signal.SPEAKER] = w.speaker * s
            if w.date and in_windows(turn.timestamp, windows):
                p[Signal.DATE] = w.date * s
    return parts


def rrf(rankings: Mapping[_S, Sequence[Hashable]], weights: Mapping[_S, float], k: float = 60.0
        ) -> dict[Hashable, dict[_S, float]]:
    """Weighted reciprocal rank fusion.

    Returns, per item, the contribution of every signal that ranked it
    (``weight / (k + rank)``, rank starting at 1); the fused score is their sum.
    """
    out: dict[Hashable, dict[_S, float]] = {}
    for signal, ranked in rankings.items():
        w = weights.get(signal, 0.0)
        if w <= 0:
            continue
        for rank, key in enumerate(ranked, start=1):
            out.setdefault(key, {})[signal] = w / (k + rank)
    return out


def recency(ts: datetime | None, now: datetime, half_life_days: float) -> float:
    """1.0 for now, 0.5 one half-life ago; future times count as now."""
    if ts is None:
        return 0.0
    age = max(0.0, (now - ts).total_seconds() / 86400)
    return math.pow(0.5, age / half_life_days)


def saturating(count: int, scale: float = 5.0) -> float:
    """Diminishing-returns map of a count to [0, 1): ``ln(1+n)/ln(1+n+scale)``."""
    if count <= 0:
        return 0.0
    return math.log1p(count) / math.log1p(count + scale)


def min_max(values: Sequence[float]) -> list[float]:
    """Scale to [0, 1] (all equal -> all 1.0)."""
    if not values:
        return []
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return [1.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]


def weight_reference(moment: datetime, latest: datetime | None) -> datetime:
    """The present that effective weights decay towards: ``moment`` (the query's ``as_of``, or
    now), but no later than the user's latest turn ``latest`` (``None``: no turns, ``moment``).

    Within one user's candidates, moving the reference only scales every decay factor by the
    same amount (the decay is exponential), but the prior is added to relevance scores, so its
    scale matters: time in which the user said nothing (an imported history, a user back after
    a year, LoCoMo's conversations dated years ago) would otherwise shrink every weight towards
    zero and switch the signal off unasked. Anchored at the latest turn, the newest memory has
    its full weight and older ones decay with the time that passed in the user's own timeline.
    """
    return moment if latest is None or latest >= moment else latest


def weight_at(
    importance: float, access_count: int, event_time: datetime | None, reference: datetime, *,
    access_mult: float, decay_rate: float,
) -> float:
    """The lifecycle's effective weight of a memory at ``reference``
    (:func:`~nova_memory_integrations.memory.lifecycle_rules.effective_weight`, age in days from
    ``event_time``; an event after the reference counts as age 0, no event time as no decay)."""
    age_days = 0.0 if event_time is None else (reference - event_time).total_seconds() / 86400
    return effective_weight(importance, access_count, age_days, access_mult=access_mult, decay_rate=decay_rate)
