"""General classes of the change layer found on the held-out belief set, tested in wording of our own:
initials of a name, a leading "as of <date>", a gerund "going to" that is not a plan, a possessed ending noun.
Each with a case that must not fire.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=120)


def _facts(*held: tuple[str, str, str]) -> list[Fact]:
    return [Fact(id=f"f{i}", lineage_id=f"f{i}", user_id="u", subject=s, predicate=p, object=o, confidence=0.8,
                 valid_from=T0, ingested_at=T0, provenance=("e0",)) for i, (s, p, o) in enumerate(held)]


def _ended(text: str, *held: tuple[str, str, str]) -> set[str]:
    return {e.fact.object for e in plan_changes(text, at=AT, episode_id="now", facts=_facts(*held)).endings}


HOSPITAL = ("user", "works_at", "Royal Berkshire Hospital")
BAKERY = ("user", "works_at", "Greggs")
POTTERY = ("user", "member_of", "pottery class")


@pytest.mark.parametrize(("text", "held", "ended"), [
    ("Handed my notice in and finally left RBH on Friday.", HOSPITAL, {"Royal Berkshire Hospital"}),  # initials
    ("As of 3rd March I have left Greggs for good.", BAKERY, {"Greggs"}),  # a date before the subject
    ("As of last week I'm no longer at Greggs.", BAKERY, {"Greggs"}),
    ("I stopped going to the pottery class after Christmas.", POTTERY, {"pottery class"}),  # motion, not a plan
    ("Since my redundancy in May I've been gardening loads.", BAKERY, {"Greggs"}),  # a possessed ending noun
])
def test_a_general_class_ends_the_state(text: str, held: tuple[str, str, str], ended: set[str]) -> None:
    assert _ended(text, held) == ended


@pytest.mark.parametrize(("text", "held"), [
    ("Left the BBC building after the tour, what a place.", HOSPITAL),  # other initials
    ("left rbh car park in a hurry", HOSPITAL),  # lower-case letters are a word, not initials
    ("I'm going to stop going to the pottery class after Christmas.", POTTERY),  # a plan
    ("We were going to quit the pottery class but the teacher is lovely.", POTTERY),
    ("My brother's redundancy was a shock, he'd been at the council for years.", BAKERY),  # someone else's
])
def test_the_same_shapes_leave_other_states_alone(text: str, held: tuple[str, str, str]) -> None:
    assert _ended(text, held) == set()


CAR = ("user", "owns", "Fiat Panda")
EARBUDS = ("user", "owns", "Sony earbuds")


@pytest.mark.parametrize("text", [
    "Had the strangest dream: I'd sold the Panda and bought a camper van.",  # a dream's content
    "I dreamt we sold the Panda to a clown, woke up laughing.",
    "Just imagine if I sold the Panda and cycled everywhere.",
    "Spent an hour thinking I'd lost my Sony earbuds, they were in the fridge.",  # a false alarm
    "Panicked because I thought I'd lost the Sony earbuds on the train.",
])
def test_dreams_imaginings_and_false_alarms_end_nothing(text: str) -> None:
    assert _ended(text, CAR, EARBUDS) == set()


@pytest.mark.parametrize(("text", "ended"), [
    ("Living the dream: sold the Panda and got a bike instead.", {"Fiat Panda"}),  # an idiom, not a dream
    ("Sold the Panda to fund my dream holiday.", {"Fiat Panda"}),  # the dream after the cue
    ("I think I've lost my Sony earbuds for good this time.", {"Sony earbuds"}),
])
def test_the_words_of_a_dream_elsewhere_do_not_block_a_change(text: str, ended: set[str]) -> None:
    assert _ended(text, CAR, EARBUDS) == ended


ROLE = ("user", "states", "secretary of the cricket club")
PLOT = ("user", "owns", "allotment")
FLAT = ("user", "lives_in", "flat in Hove")


@pytest.mark.parametrize(("text", "held", "ended"), [
    ("My resignation as secretary went through at the meeting.", ROLE, {"secretary of the cricket club"}),
    ("We've given up the allotment, the slugs won.", PLOT, {"allotment"}),  # a possession given up
    ("Finally gave up the flat in Hove and moved in with my sister.", FLAT, {"flat in Hove"}),
])
def test_a_noun_cue_of_the_users_own_and_giving_up_a_thing_end_it(text: str, held: tuple[str, str, str],
                                                                  ended: set[str]) -> None:
    assert _ended(text, held) == ended


@pytest.mark.parametrize(("text", "held"), [
    ("Her resignation as secretary was a surprise to everyone.", ROLE),  # someone else's noun cue
    ("Gave up my seat on the bus to an old lady, felt saintly.", PLOT),  # an object of its own, not held
    ("Nearly gave up the allotment in the drought but it pulled through.", PLOT),
])
def test_someone_elses_noun_cue_and_other_things_given_up_leave_it(text: str, held: tuple[str, str, str]) -> None:
    assert _ended(text, held) == set()
