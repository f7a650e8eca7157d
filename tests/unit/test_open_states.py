"""Open-predicate state capture (#38): present states no specific rule reads become ``states`` facts.

The phrasings here are written for these tests (neither belief set's): capture of several shapes, the
filter against what is not a state, repeats counted once, and endings that reach an open fact.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.changes.states import OPEN_PREDICATE, open_states
from nova_memory_integrations.changes.targets import Evidence, rescale_similarity, target_score

T0 = datetime(2024, 2, 5, 9, 0, tzinfo=timezone.utc)
REFEREE = "I referee under-12s football at Hollins Park on Sundays."


def _values(text: str) -> set[tuple[str, str]]:
    return {(s.subject, s.value) for s in open_states(text)}


@pytest.mark.parametrize(("text", "expected"), [
    ("I referee under-12s football at Hollins Park on Sundays.", ("user", "under-12s football at Hollins Park on Sundays")),
    ("We bank with Nationwide and it's fine.", ("user", "Nationwide")),
    ("I'm in a five-a-side league with people from work.", ("user", "five-a-side league with people from work")),
    ("I've been using Notion for all my lesson plans.", ("user", "Notion for all my lesson plans")),
    ("Month two of the couch to 5k plan.", ("user", "Month two of the couch to 5k plan")),
    ("As captain of the darts team I get the blame for everything.", ("user", "captain of the darts team")),
    ("My aunt Rosa runs a bakery in Porto.", ("rosa", "bakery in Porto")),
    ("Tea with my sister Imogen and her husband Piotr.", ("imogen", "husband Piotr")),
])
def test_a_present_state_is_captured_in_any_of_its_shapes(text: str, expected: tuple[str, str]) -> None:
    assert expected in _values(text)


def test_a_list_of_names_is_one_state_per_item() -> None:
    assert {("user", "Audible"), ("user", "Headspace"), ("user", "Strava")} <= \
        _values("We subscribe to Audible, Headspace and Strava every month.")


@pytest.mark.parametrize("text", [
    "I feel so flat today.",                                   # a feeling
    "I'm exhausted after the drive.",                          # a feeling with a copula
    "I went to a pub quiz at the Red Lion last night.",        # a one-off event in the past
    "Do I have to renew my passport before June?",             # a question
    "If I joined a climbing gym, would I stick with it?",      # a hypothetical
    "I might take up the cello next year.",                    # a plan
    "I don't have a car any more.",                            # a denial
    "I sold my Vespa to a neighbour.",                         # a change: the change layer's, never a state
    "Back in 2015 I worked at a call centre in Leeds.",        # a memory
    "My husband keeps asking 'have you fed the cat?' all evening.",  # someone going on, and their quoted words
])
def test_what_is_not_a_present_state_is_not_captured(text: str) -> None:
    assert open_states(text) == []


def test_a_clause_a_specific_rule_already_read_is_left_to_it() -> None:
    text = "I referee under-12s football at Hollins Park on Sundays."
    assert open_states(text, read=(text,)) == []
    assert open_states(text, covered=("Hollins Park",)) == []


def test_an_open_fact_is_scored_by_meaning_and_a_typed_one_is_not_changed() -> None:
    weak = Evidence(sim=rescale_similarity(0.62, open_fact=True))
    assert target_score(weak, fit=0.8, strength=0.9, open_fact=True) >= 0.5  # meaning alone can end it
    assert target_score(weak, fit=0.8, strength=0.9) < 0.5  # a typed fact still needs structure
    unrelated = Evidence(sim=rescale_similarity(0.3, open_fact=True))
    assert target_score(unrelated, fit=0.8, strength=1.0, open_fact=True) == 0.0
    assert target_score(weak, fit=0.0, strength=1.0, open_fact=True) == 0.0  # a cue that cannot end it


def _say(store: NovaStore, user: str, text: str, at: datetime) -> None:
    store.add_turn(user, "user", text, timestamp=at, consolidation="manual")
    store.consolidate(user)


def _open(store: NovaStore, user: str, **kw: object) -> list[str]:
    return [f.object for f in store.facts(user, **kw) if f.predicate == OPEN_PREDICATE]  # type: ignore[arg-type]


def test_an_open_state_is_stored_with_its_clause_and_several_hold_at_once(store: NovaStore) -> None:
    _say(store, "u1", REFEREE, T0)
    _say(store, "u1", "We bank with Nationwide, mostly for the app.", T0 + timedelta(days=3))
    held = {f.object: f for f in store.facts("u1")}
    assert held["under-12s football at Hollins Park on Sundays"].predicate == OPEN_PREDICATE
    # a known bank is stored under its kind's predicate, its clause kept the same way (issue #38)
    assert held["Nationwide"].predicate == "customer_of"
    assert held["Nationwide"].metadata["clause"].startswith("We bank with Nationwide")
    assert len(held) == 2


def test_an_open_state_told_again_is_one_fact(store: NovaStore) -> None:
    _say(store, "u2", REFEREE, T0)
    _say(store, "u2", "I'm still refereeing the under-12s at Hollins Park, the parents are worse than the kids.",
         T0 + timedelta(days=9))
    assert len([o for o in _open(store, "u2") if "Hollins" in o]) == 1


def test_other_tenants_never_see_an_open_state(store: NovaStore) -> None:
    _say(store, "u3", REFEREE, T0)
    assert _open(store, "u3") and _open(store, "someone-else") == []


def test_an_ending_reaches_an_open_state(store: NovaStore) -> None:
    _say(store, "u4", REFEREE, T0)
    _say(store, "u4", "I quit refereeing at Hollins Park, Sundays are mine again.", T0 + timedelta(days=40))
    assert _open(store, "u4", as_of=T0 + timedelta(days=10))
    assert not [o for o in _open(store, "u4", as_of=T0 + timedelta(days=50)) if "Hollins" in o]


def test_a_feeling_after_an_open_state_ends_nothing(store: NovaStore) -> None:
    _say(store, "u5", REFEREE, T0)
    _say(store, "u5", "Honestly I feel a bit flat this week.", T0 + timedelta(days=5))
    assert [o for o in _open(store, "u5", as_of=T0 + timedelta(days=20)) if "Hollins" in o]
    assert [f for f in store.facts("u5", include_history=True) if f.valid_to is not None] == []


def test_open_states_reach_recall_by_relevance_not_through_the_graph(store: NovaStore) -> None:
    from nova_memory_integrations.retrieval.signals import graph_facts

    _say(store, "u6", REFEREE, T0)
    assert _open(store, "u6") == ["under-12s football at Hollins Park on Sundays"]
    via_graph = graph_facts(store.components.graph, "u6", "what do I do on Sundays?", hops=2, k=20, as_of=None)
    assert [f for f, _ in via_graph if f.predicate == OPEN_PREDICATE] == []
