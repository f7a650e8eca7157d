"""Attitude conflicts across predicates: polarity, the category table, and the clash rules (pure).

The same on the real store, with MiniLM, is in ``tests/integration/test_attitude_conflicts.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from nova_memory_integrations.memory.attitudes import Attitude, attitude, clashes, polarity, related
from nova_memory_integrations.text.categories import PARENTS, chain, key, kinds


@pytest.mark.parametrize(("predicate", "sign"), [
    ("likes", 1), ("loves", 1), ("favorite_drink", 1), ("favourite_band", 1), ("Enjoys", 1),
    ("dislikes", -1), ("hates", -1), ("avoids", -1), ("not_likes", -1), ("does_not_enjoy", 0),
    ("does_not_enjoys", -1), ("lives_in", 0), ("allergic_to", 0), ("not_lives_in", 0),
])
def test_polarity_of_predicates(predicate: str, sign: int) -> None:
    assert polarity(predicate) == sign


@pytest.mark.parametrize(("phrase", "spelt"), [
    ("The E-mails", "email"), ("horror films", "horror movie"), ("Brussels sprouts", "brussels sprout"),
    ("movies", "movie"), ("berries", "berry"), ("my emails", "email"), ("news", "news"), ("buses", "bus"),
])
def test_key_spells_a_phrase_as_the_table_does(phrase: str, spelt: str) -> None:
    assert key(phrase) == spelt


def test_kinds_climb_the_table_and_the_head() -> None:
    assert kinds("email newsletters") == (
        "email newsletter", "newsletter", "email", "electronic communication", "communication")
    assert kinds("salmon")[:3] == ("salmon", "fish", "seafood")
    assert "dog" not in kinds("hot dogs")  # the table knows the compound: no head rule
    assert kinds("dog walking") == ("dog walking",)  # unknown head: only itself
    assert "thing" not in kinds("food")  # generic roots relate nothing


def test_chain_is_one_way_and_names_each_step() -> None:
    assert chain("email newsletters", "electronic communication") == (
        "email newsletter", "newsletter", "email", "electronic communication")
    assert chain("electronic communication", "email newsletters") is None
    assert chain("dogs", "cats") is None and chain("dogs", "dogs") is None
    assert chain("salmon", "thing") is None


def test_every_parent_in_the_table_is_reachable_and_acyclic() -> None:
    for child in PARENTS:
        assert child not in kinds(child)[1:], f"{child} is a kind of itself"


@pytest.mark.parametrize(("new", "held", "relation"), [
    ("electronic communication", "email newsletters", "includes"),
    ("email newsletters", "electronic communication", "includes"),
    ("E-mails", "emails", "same"),
    ("seafood", "salmon", "includes"),
])
def test_related_topics(new: str, held: str, relation: str) -> None:
    found = related(new, held)
    assert found is not None and found[0] == relation


@pytest.mark.parametrize(("a", "b"), [("dogs", "cats"), ("tea", "coffee"), ("hot dogs", "dogs"),
                                      ("chocolate", "chocolate cake"), ("spicy food", "italian food")])
def test_unrelated_topics(a: str, b: str) -> None:
    assert related(a, b) is None and related(b, a) is None


def _att(fact_id: str, predicate: str, topic: str) -> Attitude:
    found = attitude(fact_id, predicate, topic)
    assert found is not None
    return found


def _cosine(table: dict[frozenset[str], float]):  # type: ignore[no-untyped-def]
    def score(topic: str, others: Sequence[str]) -> list[float]:
        return [table.get(frozenset({topic, o}), 0.0) for o in others]
    return score


def test_clash_by_inclusion_is_logged_with_the_chain_and_cosine() -> None:
    new = _att("new", "dislikes", "electronic communication")
    held = [_att("a", "likes", "email newsletters"), _att("b", "likes", "cats"),
            _att("c", "dislikes", "email"), _att("d", "favorite_drink", "tea")]
    found = clashes(new, held, cosine=_cosine({frozenset({"electronic communication", "email newsletters"}): 0.18}),
                    threshold=0.73)
    assert [(c.held.fact_id, c.relation) for c in found] == [("a", "includes")]  # c: same polarity
    assert "newsletter is a kind of email" in found[0].reason and "cosine 0.18" in found[0].reason
    assert found[0].cosine == pytest.approx(0.18)


def test_clash_by_meaning_needs_the_threshold() -> None:
    new = _att("new", "hates", "football")
    held = [_att("a", "loves", "soccer"), _att("b", "likes", "tennis")]
    table = {frozenset({"football", "soccer"}): 0.84, frozenset({"football", "tennis"}): 0.6}
    found = clashes(new, held, cosine=_cosine(table), threshold=0.73)
    assert [(c.held.fact_id, c.relation) for c in found] == [("a", "similar")]
    assert clashes(new, held, cosine=_cosine(table), threshold=0.9) == []
    assert clashes(new, held, cosine=None, threshold=0.73) == []  # no model: only spelling and the table


def test_siblings_and_modifiers_never_clash_whatever_the_cosine() -> None:
    new = _att("new", "dislikes", "chocolate cake")
    held = [_att("a", "likes", "chocolate"), _att("b", "likes", "cats")]
    near = {frozenset({"chocolate cake", "chocolate"}): 0.95, frozenset({"chocolate cake", "cats"}): 0.1}
    assert clashes(new, held, cosine=_cosine(near), threshold=0.73) == []
    assert clashes(_att("n", "hates", "cats"), [_att("a", "loves", "dogs")], cosine=None, threshold=0.73) == []


def test_a_pair_judged_elsewhere_is_skipped() -> None:
    new = _att("new", "dislikes", "coffee")
    held = [_att("a", "likes", "coffee"), _att("b", "favorite_drink", "coffee")]
    found = clashes(new, held, cosine=None, threshold=0.73, skip=lambda h: h.predicate == "likes")
    assert [c.held.fact_id for c in found] == ["b"]
