"""``merge_hits``: one signal's rankings (the vector index's and the unindexed rows') merged."""

from __future__ import annotations

from nova_memory_integrations.retrieval.signals import merge_hits


def test_merged_best_first() -> None:
    assert merge_hits([("a", 0.5), ("b", 0.2)], [("c", 0.9)]) == [("c", 0.9), ("a", 0.5), ("b", 0.2)]


def test_an_id_in_both_keeps_its_best_score() -> None:
    assert merge_hits([("a", 0.3)], [("a", 0.7)]) == [("a", 0.7)]


def test_an_id_in_both_keeps_its_best_score_whichever_comes_first() -> None:
    assert merge_hits([("a", 0.7)], [("a", 0.3)]) == [("a", 0.7)]


def test_nothing_to_merge() -> None:
    assert merge_hits([], []) == []
