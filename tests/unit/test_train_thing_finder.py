"""The thing finder's trainer (``benchmarks/train_thing_finder.py``): how it labels tokens, which clause it trains
on, and how it fits, without MiniLM (the token outputs and the cross-writer run are the benchmark's own;
``test_changes_thing_finder`` checks the shipped weights against the corpus they record)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from train_thing_finder import clause_with, content, fit, labelled, score

from nova_memory_integrations.changes.thing_finder import ThingFinder, words_of


def _word_states(text: str) -> tuple[list[tuple[int, int]], np.ndarray]:
    spans = words_of(text)
    return spans, np.zeros((len(spans), 2), np.float32)


def test_tokens_inside_the_things_words_are_labelled_and_others_not() -> None:
    text = "Sold the old Astra to my cousin"
    assert labelled(text, "the old Astra", _word_states(text)).tolist() == [0, 1, 1, 1, 0, 0, 0]
    assert labelled(text, "THE OLD ASTRA", _word_states(text)).tolist() == [0, 1, 1, 1, 0, 0, 0]  # any case
    assert labelled(text, "", _word_states(text)).sum() == 0  # an `other` line naming no state
    assert labelled(text, "Corsa", _word_states(text)).sum() == 0  # not in the text: nothing


def test_the_clause_holding_the_thing_is_a_second_text_only_when_it_is_not_the_whole() -> None:
    text = "Work is mad busy, but I finally sold the old Astra"
    assert clause_with(text, "the old Astra") == "I finally sold the old Astra"
    assert clause_with("Sold the old Astra", "the old Astra") is None  # one clause: the line itself
    assert clause_with(text, "") is None and clause_with(text, "Corsa") is None
    assert content("the old Astra") == {"astra"}  # "old" is a stopword of the change layer


def test_fit_learns_a_split_no_single_coordinate_gives_and_is_reproducible() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 2)).astype(np.float32)
    y = ((x[:, 0] > 0) ^ (x[:, 1] > 0)).astype(np.int8)  # XOR of the signs: no linear tagger separates it
    w1, b1, w2, b2 = fit(x, y)
    finder = ThingFinder(w2, b2, "s", "x", w1, b1)
    accuracy = float(((finder.probabilities(x) >= 0.5) == y.astype(bool)).mean())
    assert accuracy > 0.9
    again = fit(x, y)
    assert all(np.array_equal(a, b) for a, b in zip((w1, b1, w2, b2), again, strict=True))


def test_score_counts_hits_exact_things_and_false_finds() -> None:
    finder = ThingFinder(np.array([[1.0], [0.0]], np.float32), np.zeros(1, np.float32), "s", "x")
    texts = ["I drive the old Astra", "nothing to see here"]
    states = []
    for text, sure in zip(texts, ([False, False, False, True, True], [True, False, False, False]), strict=True):
        spans = words_of(text)
        states.append((spans, np.array([[4.0 if s else -4.0, 0.0] for s in sure], np.float32)))
    labels = [labelled(t, th, st) for t, th, st in zip(texts, ["the old Astra", ""], states, strict=True)]
    got = score(finder, texts, ["the old Astra", ""], states, labels)
    assert (got["hit"], got["exact"], got["false_find"]) == (1.0, 1.0, 1.0)  # "nothing" is found: a false find
    assert got["token_precision"] == 0.667 and got["token_recall"] == 0.667  # "the" missed
