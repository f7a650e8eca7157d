"""The effective-weight ranking signal (#17) through ``store.retrieve`` on real MiniLM, Chroma and SQLite.

Two memories with the same text are equally relevant to any query; with every other prior
at zero, only ``weights.effective_weight`` can tell them apart. On, the heavier one (more
accessed, more important, more recent) ranks first; off, their scores are equal and the
ranking is the one without the signal. The weight decays towards the user's latest turn,
not towards the wall clock, and costs one SQL read per query, not one per candidate.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig, SignalWeights

USER = "dana"
TEXT = "Dana: my sister's cat is called Pepper and she is three years old."
QUERY = "What is the name of the cat?"
T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)  # dated years before the test runs, like LoCoMo
FILLER = [
    "Dana: I went hiking in the mountains last weekend.",
    "Dana: can you recommend a recipe for vegetable lasagna?",
    "Dana: the weather in Lisbon was sunny all week.",
    "Dana: my flight to Toronto got delayed by three hours.",
]


def config(weight: float) -> SearchConfig:
    """Balanced, turns unmerged, every prior but the effective weight at zero."""
    return SearchConfig(snippet_max_turns=1, weights=SignalWeights(recency=0.0, importance=0.0, access=0.0,
                                                                    confidence=0.0, effective_weight=weight))


def twins(store: NovaStore, case: str) -> tuple[str, str]:
    """Two turns with the same text, ``(heavier, lighter)`` in the way ``case`` names; the lighter is added last."""
    recent = case == "recent"
    heavy = store.add_turn(USER, "user", TEXT, timestamp=T0 + timedelta(days=60 if recent else 0),
                           importance=0.9 if case == "important" else 0.5)
    light = store.add_turn(USER, "user", TEXT, timestamp=T0, importance=0.3 if case == "important" else 0.5)
    for i, text in enumerate(FILLER):
        store.add_turn(USER, "user", text, timestamp=T0 + timedelta(days=61 + i))
    store.flush()
    if case == "accessed":
        for _ in range(3):
            store.components.db.touch_episodes(USER, [heavy.id], T0.timestamp())
    return heavy.id, light.id


def ranked(store: NovaStore, weight: float) -> list[tuple[str, float, dict[str, float]]]:
    hits = store.retrieve(QUERY, USER, k=2, preset=config(weight), kinds=("episode",))
    return [(h.id, h.score, h.scores) for h in hits]


@pytest.mark.parametrize("case", ["accessed", "important", "recent"])
def test_with_the_signal_on_the_heavier_twin_ranks_first(store: NovaStore, case: str) -> None:
    heavy, _ = twins(store, case)
    assert ranked(store, 0.5)[0][0] == heavy


@pytest.mark.parametrize("case", ["accessed", "important", "recent"])
def test_with_the_signal_on_the_heavier_twin_scores_more(store: NovaStore, case: str) -> None:
    heavy, light = twins(store, case)
    scores = {i: s for i, s, _ in ranked(store, 0.5)}
    assert scores[heavy] > scores[light]


@pytest.mark.parametrize("case", ["accessed", "important", "recent"])
def test_with_the_signal_off_the_twins_score_the_same(store: NovaStore, case: str) -> None:
    twins(store, case)
    first, second = ranked(store, 0.0)
    assert first[1] == pytest.approx(second[1], abs=1e-9)


@pytest.mark.parametrize("case", ["accessed", "important", "recent"])
def test_with_the_signal_off_no_weight_contribution_is_added(store: NovaStore, case: str) -> None:
    twins(store, case)
    assert [s for _, _, s in ranked(store, 0.0) if "w_weight" in s] == []


@pytest.mark.parametrize("case", ["accessed", "important", "recent"])
def test_with_the_signal_off_the_ranking_is_the_one_without_it(store: NovaStore, case: str) -> None:
    twins(store, case)
    without = store.retrieve(QUERY, USER, k=2, kinds=("episode",), preset=SearchConfig(
        snippet_max_turns=1, weights=SignalWeights(recency=0.0, importance=0.0, access=0.0, confidence=0.0)))
    assert [(i, s) for i, s, _ in ranked(store, 0.0)] == [(h.id, h.score) for h in without]


def test_the_weight_decays_towards_the_latest_turn_not_the_wall_clock(store: NovaStore) -> None:
    """Turns dated 2023, queried years later without ``as_of``: the newest turn keeps its full
    weight (importance 0.5, never accessed) instead of ~exp(-0.01 * 1000) of it."""
    store.add_turns([{"user_id": USER, "role": "user", "content": t, "timestamp": T0 + timedelta(days=i)}
                     for i, t in enumerate([TEXT, *FILLER])])
    store.flush()
    newest = store.retrieve("flight to Toronto delayed", USER, k=1, preset=config(0.5), kinds=("episode",))[0]
    assert newest.scores["w_weight"] == pytest.approx(0.5 * 0.5)


def test_an_as_of_before_the_latest_turn_is_the_reference(store: NovaStore) -> None:
    store.add_turns([{"user_id": USER, "role": "user", "content": t, "timestamp": T0 + timedelta(days=100 * i),
                      "importance": 0.5}  # the default level: its decay is the configured rate, unscaled
                     for i, t in enumerate([TEXT, *FILLER])])
    store.flush()
    hit = store.retrieve(QUERY, USER, k=1, preset=config(0.5), kinds=("episode",), as_of=T0 + timedelta(days=50))[0]
    assert hit.scores["w_weight"] == pytest.approx(0.5 * 0.5 * math.exp(-0.01 * 50))


def _statements(store: NovaStore, weight: float, *, k: int) -> int:
    seen: list[str] = []
    conn = store.components.db._conn
    conn.set_trace_callback(seen.append)
    try:
        store.retrieve(QUERY, USER, k=k, preset=config(weight), kinds=("episode",))
    finally:
        conn.set_trace_callback(None)
    return len(seen)


def test_the_signal_costs_one_read_per_query_however_many_candidates(store: NovaStore) -> None:
    store.add_turns([{"user_id": USER, "role": "user", "content": f"{FILLER[i % 4]} (note {i})",
                      "timestamp": T0 + timedelta(hours=i)} for i in range(60)])
    twins(store, "accessed")
    _statements(store, 0.5, k=2)  # the first read of a store warms caches
    extra = {k: _statements(store, 0.5, k=k) - _statements(store, 0.0, k=k) for k in (2, 40)}
    assert extra == {2: 1, 40: 1}
