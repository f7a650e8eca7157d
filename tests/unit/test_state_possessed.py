"""Capture by mention (#38): a named thing put with a possessive is its owner's state whatever the sentence's
mood (``changes/state_mentions.possessed``, read by ``changes/states.open_states`` in questions too).

Every phrasing here is written for these tests (no belief set's sentence); each exclusion class has a
must-not-fire case.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.changes.state_mentions import possessed
from nova_memory_integrations.changes.states import open_states

T0 = datetime(2025, 3, 3, 8, 0, tzinfo=timezone.utc)


def _held(text: str) -> set[tuple[str, str]]:
    return {(s.subject, s.value) for s in open_states(text)}


@pytest.mark.parametrize(("text", "expected"), [
    ("Why does my Kia Picanto rattle over speed bumps?", ("user", "Kia Picanto")),
    ("Where can I get our Dyson V8 serviced in town?", ("user", "Dyson V8")),
    ("Is it normal that my Pixel 7's battery drains overnight?", ("user", "Pixel 7")),
    ("Can you suggest cheap accessories for my trusty Brompton?", ("user", "Brompton")),
    ("How do I reset the router on my Sky account, it's been slow all week?", ("user", "Sky")),
])
def test_a_possessed_name_inside_a_question_is_the_users(text: str, expected: tuple[str, str]) -> None:
    assert expected in _held(text)


@pytest.mark.parametrize(("text", "expected"), [
    ("Does my nephew Kofi's Yamaha need premium fuel?", ("kofi", "Yamaha")),
    ("What insurance would suit Dad's Skoda Octavia now he's 70?", ("dad", "Skoda Octavia")),
    ("Could my Mum's Toyota Yaris take a roof box?", ("mom", "Toyota Yaris")),
])
def test_a_name_possessed_by_a_person_in_the_users_life_is_theirs(text: str, expected: tuple[str, str]) -> None:
    assert expected in _held(text)
    assert ("user", expected[1]) not in _held(text)


@pytest.mark.parametrize("text", [
    "How fast is my neighbour's Porsche, do you reckon?",  # someone else's, and no one the store can hold
    "Thinking of swapping my Fiesta for something bigger, which estate cars are good?",  # a plan over it
    "I'll be picking up my Tesla next month, what charger should I fit?",  # a future
    "What should I name my next Labrador?",  # a wished-for one (no name after it anyway)
    "Back in my student days my Nokia survived everything, why are phones so fragile now?",  # a memory
    "Do you remember when my first Clio broke down?",  # an earlier one
    "My old Polo was bulletproof, are the new ones any good?",  # told in the past
    "I don't have my Garmin any more, what else tracks sleep?",  # a denial in its clause
    "Any tips for my Grade 3 flute exam?",  # an event the name only qualifies
    "Is my Spotify playlist too long for a party?",  # a head noun the name qualifies
    "Should my Monday mornings be for deep work?",  # a date, not a thing held
    "Can my Mum come to the parents' evening?",  # a person, not a thing
    "my Vespa lol, what a machine",  # a joke's sentence
])
def test_what_no_possessive_presupposes_is_not_captured(text: str) -> None:
    assert not {v for _, v in _held(text)} & {"Porsche", "Fiesta", "Tesla", "Labrador", "Nokia", "Clio", "Polo",
                                              "Garmin", "Grade 3", "Spotify", "Monday", "Monday mornings", "Mum",
                                              "Vespa"}


def test_a_possessive_helper_reads_only_what_is_possessed() -> None:
    assert possessed("Ordered pizza from Domino's while my Switch updated") == [("user", "Switch")]
    assert possessed("Met Priya at Costa near my office") == []


def test_a_change_cue_leaves_the_sentence_to_the_change_layer() -> None:
    assert ("user", "Golf") not in _held("Sold my Golf at last, anyone know a good bike shop?")


def _say(store: NovaStore, user: str, text: str, at: datetime) -> None:
    store.add_turn(user, "user", text, timestamp=at, consolidation="manual")
    store.consolidate(user)


def test_a_possessed_name_told_again_is_one_fact_and_stays_current(store: NovaStore) -> None:
    _say(store, "p1", "Why does my Kia Picanto rattle over speed bumps?", T0)
    _say(store, "p1", "Is my Kia Picanto due a cambelt at 60k?", T0 + timedelta(days=20))
    held = [f for f in store.facts("p1") if "Picanto" in f.object]
    assert len(held) == 1 and held[0].predicate == "owns"  # a known car: its kind's predicate (issue #38)
    assert store.facts("p2") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Dominic (husband) wants a quiet anniversary, any restaurant ideas near Bath?", ("user", "husband Dominic")),
    ("Ayesha (my flatmate) keeps the heating at 25, how do I raise it kindly?", ("user", "flatmate Ayesha")),
    ("How do I cheer up my sister Ruth after her exams?", ("user", "sister Ruth")),
])
def test_a_person_named_beside_their_relation_is_told_in_any_mood(text: str, expected: tuple[str, str]) -> None:
    assert expected in _held(text)


@pytest.mark.parametrize("text", [
    "Is Lisbon (the capital) worth three days?",  # no relation in the brackets
    "Can Theo (my boss's son) join the kids' club?",  # someone else's relation
    "Would Hannah (a friend of a friend) like a candle?",  # no relation of the user's in the bracket
])
def test_a_bracket_that_is_no_relation_of_the_users_is_not_one(text: str) -> None:
    assert not any(v.split()[-1] in ("Lisbon", "Theo", "Hannah") for _, v in _held(text))


@pytest.mark.parametrize(("text", "expected"), [
    ("Late finish after my rota at the Lidl depot, what can I cook in ten minutes?", ("user", "Lidl")),
    ("Is it normal that our broadband with Plusnet drops every evening?", ("user", "Plusnet")),
    ("The pool at my club, Nuffield Health, has been shut a month, can I pause it?", ("user", "Nuffield Health")),
])
def test_a_name_a_kind_of_the_users_is_placed_at_is_the_users(text: str, expected: tuple[str, str]) -> None:
    assert expected in _held(text)


@pytest.mark.parametrize("text", [
    "What should I wear to my interview at Deloitte?",  # a one-off event
    "How do I congratulate my cousin at Unilever on her promotion?",  # someone else at the place
    "Thinking about moving my savings to Monzo, good idea?",  # a plan over it
    "I never liked my time at Barclays, how do I explain that?",  # a denial in its clause
    "Is my team, the best in the league, going up?",  # an appositive that names nothing
])
def test_a_place_no_state_of_the_users_is_at_is_not_captured(text: str) -> None:
    assert not {v for _, v in _held(text)} & {"Deloitte", "Unilever", "Monzo", "Barclays"}
