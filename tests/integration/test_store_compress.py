"""``store.compress`` on arbitrary texts, through a real store (real MiniLM, real Chroma)."""

from __future__ import annotations

import pytest

from nova_memory_integrations import InvalidInputError, NovaStore

LONG = ("The meeting started late because the projector was broken. "
        "We discussed the budget for the new office in Lisbon. "
        "Maya presented the hiring plan for next quarter. "
        "Everyone agreed the Lisbon office should open in March. "
        "Lunch was sandwiches and fruit.")


TEXTS = [
    "The Lisbon office opens in March, after the lease is signed.",
    "Lunch was sandwiches and fruit.",
    "The Lisbon office opens in March, after the lease is signed.",  # exact duplicate of 0
    "The Lisbon office will open in March once the lease is signed.",  # paraphrase of 0
    LONG,
    "Maya leads hiring for the Lisbon office and starts interviews in February.",
    "Unrelated: my cat likes to sleep on the keyboard.",
]


def test_store_compress_drops_duplicates_fits_budget_and_keeps_inputs(store: NovaStore) -> None:
    texts = list(TEXTS)
    before = list(texts)
    res = store.compress("When does the Lisbon office open?", texts, budget_tokens=60)
    assert texts == before  # inputs untouched
    assert 2 in res.duplicate_indices or 0 in res.duplicate_indices
    kept_idx = [i.index for i in res.items]
    assert not (0 in kept_idx and 2 in kept_idx)
    assert res.output_tokens == sum(i.tokens for i in res.items) <= 60
    for item in res.items:
        assert item.tokens == store.count_tokens(item.text) <= item.original_tokens
        assert item.original_tokens == store.count_tokens(TEXTS[item.index])
    assert res.input_tokens == sum(store.count_tokens(t) for t in TEXTS)
    assert res.ratio == pytest.approx(res.output_tokens / res.input_tokens) and 0 < res.ratio < 1
    scores = [i.score for i in res.items]
    assert scores == sorted(scores, reverse=True)
    assert "March" in res.items[0].text  # the most relevant text comes first
    accounted = set(kept_idx) | set(res.dropped_indices) | set(res.duplicate_indices)
    assert accounted == set(range(len(TEXTS)))


def test_store_compress_k_and_per_item_limit(store: NovaStore) -> None:
    res = store.compress("Lisbon office", TEXTS, k=2)
    assert len(res.items) == 2
    res = store.compress("Lisbon office", TEXTS, max_item_tokens=20)
    assert res.items and all(i.tokens <= 20 for i in res.items)
    long = next(i for i in res.items if i.index == 4)  # cut to its most relevant sentence(s)
    assert long.original_tokens > 20 and "Lisbon" in long.text


def test_store_compress_without_budget_keeps_all_distinct_texts(store: NovaStore) -> None:
    res = store.compress("anything", TEXTS)
    assert {i.index for i in res.items} | set(res.duplicate_indices) == set(range(len(TEXTS)))
    assert not res.dropped_indices
    for item in res.items:
        assert item.text == TEXTS[item.index]


def test_store_compress_edge_cases(store: NovaStore) -> None:
    empty = store.compress("q", [])
    assert empty.items == () and empty.ratio == 1.0
    tiny = store.compress("q", ["A fairly long sentence about nothing in particular at all."], budget_tokens=1)
    assert tiny.output_tokens <= 1
    for bad in ({"budget_tokens": 0}, {"k": -1}, {"max_item_tokens": True}):
        with pytest.raises(InvalidInputError):
            store.compress("q", ["x"], **bad)
    with pytest.raises(InvalidInputError):
        store.compress("q", ["x", 3])  # type: ignore[list-item]


def test_store_compress_leaves_no_stub_when_the_budget_is_nearly_spent(store: NovaStore) -> None:
    texts = ["The Lisbon office opens in March after the lease is signed by both parties.",
             "Budget talks for the Lisbon office went on for hours and covered rent, desks and travel costs."]
    first = store.count_tokens(texts[0])
    res = store.compress("Lisbon office", texts, budget_tokens=first + 4)
    for item in res.items:  # a cut item keeps a useful size (min_item_tokens), never a 2-token "A …"
        assert item.tokens == item.original_tokens or item.tokens >= 12
    assert res.output_tokens <= first + 4
