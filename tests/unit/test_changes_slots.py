"""Which held state a change's new value replaces (:mod:`nova_memory_integrations.changes.slots`), and the new
value a change tells when nothing it could replace was held, in wording of our own.

A change verb's "from X" names what ended whatever category the verb is listed for; a destination that
differs from a held value only in a modifier of a shared word is that state's new value; the message's own
statement of the new value names the predicate it replaces. Kinds held several at once never supersede.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.planner import Similarity
from nova_memory_integrations.changes.slots import same_slot
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 2, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=90)


def _fact(i: int, subject: str, predicate: str, obj: str, *, episode: str = "") -> Fact:
    at = AT if episode else T0
    return Fact(id=f"g{i}", lineage_id=f"g{i}", user_id="u", subject=subject, predicate=predicate, object=obj,
                confidence=0.8, valid_from=at, ingested_at=at, provenance=(episode or f"e{i}",))


def _plan(text: str, facts: list[Fact]):
    return plan_changes(text, at=AT, episode_id="now", facts=facts)


def _ended(text: str, facts: list[Fact]) -> set[str]:
    return {e.fact.object for e in _plan(text, facts).endings}


def _new(text: str, facts: list[Fact]) -> set[str]:
    return {f"{n.subject}:{n.predicate}={n.object}" for n in _plan(text, facts).new_values}


@pytest.mark.parametrize(("value", "held", "same"), [
    ("night team", "the day team at the depot", True),
    ("Year 4", "Year 1", True),
    ("Priya Shah", "Priya Patel", True),
    ("senior designer", "junior designer at Arcadia", True),
    ("Leeds", "Leeds Building Society", False),  # a part of the held name: the same thing
    ("team", "payments team", False),  # no modifier of its own
    ("oat milk", "lactose intolerant", False),
    ("the Tuesday quiz", "quiz night at the Crown", False),  # the shared word has no rival modifier beside it
])
def test_same_slot(value: str, held: str, same: bool) -> None:
    assert same_slot(value, held) is same


LEAGUE = [_fact(0, "user", "states", "play in the Thursday darts league"), _fact(1, "user", "owns", "Vauxhall Corsa")]


def test_what_from_names_ends_whatever_the_verb_is_listed_for() -> None:
    text = "I've switched from the darts league to a pool team at the Crown."
    assert _ended(text, LEAGUE) == {"play in the Thursday darts league"}
    assert _new(text, LEAGUE) == {"user:states=pool team"}


def test_a_new_value_of_the_same_slot_replaces_the_held_one() -> None:
    facts = [_fact(0, "user", "states", "junior designer at Arcadia"), _fact(1, "user", "states", "swim on Sundays")]
    text = "They promoted me to senior designer in the spring!"
    assert _ended(text, facts) == {"junior designer at Arcadia"}
    assert _new(text, facts) == {"user:states=senior designer"}


def test_the_predicate_the_message_states_the_new_value_with_is_the_slot() -> None:
    facts = [_fact(0, "user", "studies", "chemistry"), _fact(1, "user", "studies_at", "Leeds"),
             _fact(2, "user", "studies", "biochemistry", episode="now")]
    assert _ended("Switched to biochemistry after the first term, much happier.", facts) == {"chemistry"}


@pytest.mark.parametrize("text", [
    "Thinking of switching from the darts league to pool.",  # a plan
    "Should I switch from the darts league to a pool team?",  # a question
    "Switched from the darts league to pool and straight back to the darts league, pool was dull.",  # held again
    "Swapped the Corsa's tyres for winter ones.",  # a part of a thing
])
def test_no_slot_change(text: str) -> None:
    assert _ended(text, LEAGUE) == set()


def test_a_new_kind_of_thing_held_several_at_once_replaces_nothing_by_likeness() -> None:
    facts = [_fact(0, "user", "has_pet", "tabby cat called Miso")]
    assert _ended("We switched to a ginger cat food for Miso.", facts) == set()


def test_a_change_tells_its_new_value_when_nothing_was_held() -> None:
    assert _new("ported my number over to Lebara, way cheaper", []) == {"user:states=Lebara"}
    brother = [_fact(0, "user", "brother_name", "Idris"), _fact(1, "idris", "sibling_of", "user")]
    assert _new("Idris switched to Octopus Energy last month.", brother) == {"idris:states=Octopus Energy"}


@pytest.mark.parametrize("text", [
    "Might switch to Lebara next month.",  # a plan
    "Would you switch to Lebara?",  # a question
    "Swapped shifts with a colleague so I can make the wedding.",  # who took part, not a destination
    "She moved out to live with her boyfriend.",  # a purpose, not a place
    "The company relocated the whole office to Slough.",  # a thing acts: not a state of the user's
])
def test_no_new_value_is_told(text: str) -> None:
    assert _new(text, []) == set()


BIKE = [_fact(0, "user", "owns", "Raleigh tourer"), _fact(1, "user", "states", "swim at the lido")]


@pytest.mark.parametrize(("text", "new"), [
    ("Sold the Raleigh last month and bought a Trek hybrid.", {"user:owns=Trek hybrid"}),
    ("Gave the Raleigh to my nephew. Work gave me an e-bike through the scheme!", {"user:owns=e-bike"}),
])
def test_what_the_user_got_beside_a_possession_that_ended_holds_instead(text: str, new: set[str]) -> None:
    assert _new(text, BIKE) == new


@pytest.mark.parametrize("text", [
    "Sold the Raleigh. My brother bought a Trek hybrid.",  # someone else got it
    "Sold the Raleigh, might get a Trek hybrid next.",  # a possibility
    "Sold the Raleigh, should I buy a Trek hybrid?",  # a question
    "Sold the Raleigh and got a good price for it.",  # no new possession
])
def test_no_acquisition_is_a_successor(text: str) -> None:
    assert _new(text, BIKE) == set()


def test_likeness_finds_the_open_state_a_change_moves_on_from(similarity: Similarity) -> None:
    orchestra = [_fact(0, "user", "states", "violin in the youth orchestra"), _fact(1, "user", "owns", "Honda Jazz")]
    assert _ended_by("Big change: I've moved to viola!", orchestra, similarity) == {"violin in the youth orchestra"}
    assert _ended_by("Big change: I've moved to Leeds!", orchestra, similarity) == set()  # like nothing held


def _ended_by(text: str, facts: list[Fact], similarity: Similarity) -> set[str]:
    return {e.fact.object for e in plan_changes(text, at=AT, episode_id="now", facts=facts,
                                                similarity=similarity).endings}
