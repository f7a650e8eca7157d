"""The fusion formula (``retrieval.fusion.score``): a pure function of what ``gather`` read.

Hand-built inputs, no store: each part of the weighted score as its docstring states it, RRF,
and that scoring reads its inputs only (the candidates come back as they went in).
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.retrieval.candidate import Candidate, Key
from nova_memory_integrations.retrieval.fusion import FusionInputs, relevance, score
from nova_memory_integrations.retrieval.search_config import SearchConfig, Signal, SignalWeights
from nova_memory_integrations.retrieval.signals import Found
from nova_memory_integrations.types import Episode

NOW = datetime(2024, 1, 10, tzinfo=timezone.utc)
NO_PRIORS = SignalWeights(recency=0, importance=0, access=0, confidence=0)


def _turn(i: str, text: str, *, role: str = "user", session: str = "s1", minutes: int = 0,
          raw: dict[Signal, float] | None = None) -> Candidate:
    ep = Episode(id=i, user_id="u", session_id=session, role=role, content=text,
                 timestamp=NOW - timedelta(days=1, minutes=-minutes), ingested_at=NOW)
    return Candidate("episode", i, text, ep.timestamp, episode=ep, raw=dict(raw or {}))


def _inputs(cands: list[Candidate], *, pool: tuple[str, ...] = (), links: dict | None = None,
            added: frozenset[Key] = frozenset(), windows: tuple = ()) -> FusionInputs:
    found = Found([1.0], NOW, windows, {}, {}, [], [], {})
    return FusionInputs(found, {c.key: c for c in cands}, added, pool, links or {}, {}, None, 0.5, 0.01)


def _config(**update: object) -> SearchConfig:
    return SearchConfig(weights=NO_PRIORS, session_weight=0, **update)  # type: ignore[arg-type]


def test_relevance_is_dense_cosine_plus_lexical_over_the_best() -> None:
    a = _turn("a", "alpha", raw={Signal.COSINE: 0.5, Signal.LEXICAL: 4.0})
    b = _turn("b", "beta", raw={Signal.COSINE: 0.2, Signal.LEXICAL: 2.0})
    w = SignalWeights()
    got = relevance({a.key: a, b.key: b}, w)
    assert got[b.key] == {Signal.DENSE: w.dense * 0.2, Signal.LEXICAL: w.lexical * 2.0 / 4.0}


def test_a_turn_passes_its_relevance_to_its_neighbours_and_more_to_the_reply_of_a_question() -> None:
    ask = _turn("q", "Got any tips?", raw={Signal.COSINE: 1.0})
    reply = _turn("r", "Yes: brand identity.", minutes=1)
    before = _turn("p", "Hi.", minutes=-1)
    cfg = _config(neighbour_weight=0.2, reply_weight=0.3)
    links = {"q": [("p", -1), ("r", 1)]}
    parts = score(_inputs([ask, reply, before], pool=("q",), links=links, added=frozenset({reply.key, before.key})),
                  cfg, "tips")
    rel = cfg.weights.dense * 1.0
    assert parts[before.key][Signal.NEIGHBOUR] == pytest.approx(0.2 * rel)
    assert parts[reply.key][Signal.NEIGHBOUR] == pytest.approx(0.2 * rel + 0.3 * rel)
    assert parts[reply.key][Signal.DENSE] == 0.0  # listed by no signal: its own cosine (none here)


def test_the_session_boost_is_the_mean_of_its_best_three() -> None:
    turns = [_turn(str(i), f"t{i}", raw={Signal.COSINE: c}) for i, c in enumerate((0.9, 0.6, 0.3, 0.1))]
    cfg = SearchConfig(weights=NO_PRIORS, session_weight=0.5)
    parts = score(_inputs(turns), cfg, "x")
    best3 = sum(cfg.weights.dense * c for c in (0.9, 0.6, 0.3)) / 3
    assert all(p[Signal.SESSION] == pytest.approx(0.5 * best3) for p in parts.values())


def test_the_speaker_boost_is_a_share_of_the_score_so_far() -> None:
    mel = _turn("m", "I painted a lake.", role="Melanie", raw={Signal.COSINE: 0.5})
    other = _turn("o", "Nice lake.", role="Caroline", raw={Signal.COSINE: 0.5})
    parts = score(_inputs([mel, other]), _config(), "What did Melanie paint?")
    assert parts[mel.key][Signal.SPEAKER] == pytest.approx(SignalWeights().speaker * parts[mel.key][Signal.DENSE])
    assert Signal.SPEAKER not in parts[other.key]


def test_rrf_gives_each_ranking_weight_over_k_plus_rank() -> None:
    a, b = _turn("a", "alpha"), _turn("b", "beta")
    found = Found([1.0], NOW, (), {Signal.DENSE: [a.key, b.key], Signal.LEXICAL: [b.key]}, {}, [], [], {})
    inputs = FusionInputs(found, {a.key: a, b.key: b}, frozenset(), (), {}, {}, None, 0.5, 0.01)
    cfg = SearchConfig(fusion="rrf", weights=NO_PRIORS)
    parts = score(inputs, cfg, "x")
    w = cfg.weights
    assert parts[b.key] == {Signal.DENSE: w.dense / (cfg.rrf_k + 2), Signal.LEXICAL: w.lexical / (cfg.rrf_k + 1),
                            Signal.IMPORTANCE: 0.0, Signal.ACCESS: 0.0}  # priors weighted 0 here


def test_scoring_reads_its_inputs_only() -> None:
    turns = [_turn("q", "Any tips?", raw={Signal.COSINE: 0.8, Signal.LEXICAL: 1.0}), _turn("r", "Yes.", minutes=1)]
    inputs = _inputs(turns, pool=("q",), links={"q": [("r", 1)]}, added=frozenset({turns[1].key}))
    before = copy.deepcopy(inputs.cands)
    first = score(inputs, SearchConfig(), "tips")
    assert inputs.cands == before
    assert score(inputs, SearchConfig(), "tips") == first
