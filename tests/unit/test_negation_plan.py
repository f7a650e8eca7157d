"""``consolidation.negation``: what an ending closes, planned before ``FactMemory.apply`` (pure).

The consolidator reads the canonical subject and the values held, asks for the plan, then applies
each ending; these tests pin the plan itself, with no store. The applied behaviour (history kept,
NOOP recorded) is in ``tests/integration/test_belief_matrix.py`` and the consolidation tests.
"""

from __future__ import annotations

import pytest

from nova_memory_integrations.consolidation.negation import (
    NOTHING_HELD,
    Ending,
    NegationPlan,
    opposite_predicates,
    plan_entailed,
    plan_negation,
)


def _plan(obj: str, held: list[str], *, target: Ending | None = None) -> NegationPlan:
    return plan_negation("My Sister", "Owns", obj, subject_n="sister", predicate_n="owns", held=held, target=target)


def test_a_named_target_alone_is_closed() -> None:
    target = Ending("user", "works_at", "Acme")
    plan = plan_negation("user", "works_at", "Globex", subject_n="user", predicate_n="works_at",
                         held=["Globex", "Initech"], target=target)
    assert plan.endings == (target,)


def test_a_held_value_is_closed_as_proposed() -> None:
    """The proposal's own subject and predicate: ``FactMemory.apply`` resolves and normalises them."""
    assert _plan("Honda Civic", ["Honda Civic", "bike"]).endings == (Ending("My Sister", "Owns", "Honda Civic"),)


@pytest.mark.parametrize(("obj", "held", "closed"), [
    ("car", ["Honda Civic", "piano"], ["Honda Civic"]),  # the one held value of that kind
    ("dog", ["dog named Rex", "cat named Tom"], ["dog named Rex"]),
    ("car", ["Honda Civic", "Tesla Model 3"], ["car"]),  # two of that kind: only the value itself
    ("boat", ["Honda Civic"], ["boat"]),  # nothing of that kind held: the value itself (a NOOP when applied)
    ("boat", [], ["boat"]),
])
def test_a_kind_closes_the_one_held_value_of_that_kind(obj: str, held: list[str], closed: list[str]) -> None:
    assert [e.object for e in _plan(obj, held).endings] == closed


def test_no_object_closes_every_held_value_once_in_order() -> None:
    plan = _plan("  ", ["Acme", "Globex", "Acme"])
    assert plan.endings == (Ending("sister", "owns", "Acme"), Ending("sister", "owns", "Globex"))


def test_no_object_and_nothing_held_is_nothing_to_close() -> None:
    plan = _plan("", [])
    assert plan == NegationPlan("sister", "owns", ())
    assert NOTHING_HELD == "nothing held to negate"  # the recorded NOOP's reason, as before the plan


def test_a_value_proposed_twice_is_closed_once() -> None:
    plan = plan_negation("user", "owns", "Honda Civic", subject_n="user", predicate_n="owns",
                         held=["Honda Civic", "Honda Civic"])
    assert plan.endings == (Ending("user", "owns", "Honda Civic"),)


def test_retiring_implies_the_end_of_work_and_title() -> None:
    held = {("user", "works_at"): ["Acme"], ("user", "job_title"): ["engineer"]}
    assert plan_entailed("user", "employment_status", "retired", held) == (
        Ending("user", "works_at", "Acme"), Ending("user", "job_title", "engineer"))


def test_a_pets_death_ends_having_it() -> None:
    held = {("user", "has_pet"): ["dog named Rex", "cat named Tom"]}
    assert plan_entailed("rex", "life_status", "deceased", held) == (Ending("user", "has_pet", "dog named Rex"),)


def test_an_ordinary_value_implies_no_ending() -> None:
    assert plan_entailed("user", "lives_in", "Lisbon", {("user", "works_at"): ["Acme"]}) == ()


def test_opposite_predicates_both_ways_normalised() -> None:
    assert opposite_predicates([["Likes", "dislikes"], ["is-for", "Is Against"]]) == {
        "likes": "dislikes", "dislikes": "likes", "is_for": "is_against", "is_against": "is_for"}


def test_entries_that_are_not_pairs_are_ignored() -> None:
    assert opposite_predicates([["likes"], ["a", "b", "c"], []]) == {}
