"""Precision of the change planner (issue #38): what a cue must end, and what it must leave alone.

Each mechanism has cases that must fire and cases that must not. The wording is our own, varied on
purpose (other subjects, other objects, other word orders) so that a rule written to one sentence shape
fails here.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.segments import words
from nova_memory_integrations.changes.targets import KIND_EVIDENCE, fact_info, name_evidence, separate_lists
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=45)


def _facts(*rows: tuple[str, str, str, str]) -> list[Fact]:
    """``(subject, predicate, object, episode)`` rows: rows of one episode were stated together."""
    return [Fact(id=f"f{i}", lineage_id=f"f{i}", user_id="u", subject=s, predicate=p, object=o, confidence=0.8,
                 valid_from=T0, ingested_at=T0, provenance=(e,)) for i, (s, p, o, e) in enumerate(rows)]


def _ended(text: str, facts: list[Fact]) -> set[str]:
    plan = plan_changes(text, at=AT, episode_id="now", facts=facts)
    return {e.fact.object for e in plan.endings}


# -- a list stated in one breath is several states, not one ----------------------------------------------

STREAMING = _facts(("user", "subscribes_to", "Hulu", "e1"), ("user", "subscribes_to", "Max", "e1"),
                   ("user", "subscribes_to", "Peacock", "e1"))
CATS = _facts(("user", "has_pet", "cat named Salt", "e1"), ("user", "has_pet", "cat named Pepper", "e1"))
JOB = _facts(("user", "works_at", "Halfords", "e1"), ("user", "job_title", "fitter", "e1"))


@pytest.mark.parametrize(("text", "facts", "ended"), [
    ("Let Peacock lapse this week, nothing on it I watch.", STREAMING, {"Peacock"}),
    ("Sad day: Salt was put to sleep this morning, she was 17.", CATS, {"cat named Salt"}),
    ("Pepper ran away in the storm and never came back.", CATS, {"cat named Pepper"}),
])
def test_ending_one_item_of_a_list_leaves_the_other_items(text: str, facts: list[Fact], ended: set[str]) -> None:
    assert _ended(text, facts) == ended


def test_facts_of_one_job_stated_together_still_end_together() -> None:
    assert _ended("Retired on Friday after twenty years of it.", JOB) == {"Halfords", "fitter"}


def test_separate_lists_only_splits_one_predicate_with_several_values() -> None:
    infos = separate_lists([fact_info(f) for f in [*STREAMING, *JOB]])
    assert len({i.state for i in infos[:3]}) == 3
    assert infos[3].state == infos[4].state


# -- a preposition that ends the cue introduces what ended, not the new state ----------------------------

VEHICLES = _facts(("user", "owns", "VW campervan", "e1"), ("user", "owns", "Honda Jazz", "e2"))


@pytest.mark.parametrize(("text", "ended"), [
    ("Bid farewell to the campervan on Sunday, a young couple from Hull have it now.", {"VW campervan"}),
    ("We're done with the Jazz: clutch went again and that was that.", {"Honda Jazz"}),
])
def test_what_follows_a_cue_ending_in_a_preposition_is_what_ended(text: str, ended: set[str]) -> None:
    assert _ended(text, VEHICLES) == ended


def test_a_found_home_for_the_pet_ends_the_pet() -> None:
    facts = _facts(("user", "has_pet", "rabbit named Thumper", "e1"))
    assert _ended("We found a lovely new home for Thumper with a family who have a big garden.", facts) == \
        {"rabbit named Thumper"}


def test_saying_goodbye_to_a_person_ends_nothing() -> None:
    facts = _facts(("user", "sister_name", "Orla", "e1"), ("orla", "sibling_of", "user", "e1"),
                   ("user", "owns", "Honda Jazz", "e2"))
    assert _ended("Said goodbye to Orla at the airport, she flies back to Perth tonight.", facts) == set()


# -- "it" / "that" as the subject of a cue refers back ---------------------------------------------------

def test_that_as_the_subject_of_a_cue_means_the_thing_named_before() -> None:
    facts = _facts(("user", "hobby", "climbing", "e1"), ("user", "owns", "Honda Jazz", "e2"))
    text = "The surgeon was blunt about my shoulder and climbing. So that's over for me. Gutted."
    assert _ended(text, facts) == {"climbing"}


def test_it_after_another_subject_in_the_clause_still_refers_back() -> None:
    facts = _facts(("user", "owns", "Brompton", "e1"), ("user", "owns", "Honda Jazz", "e2"))
    text = "A bus clipped the Brompton on Tuesday. I'm okay but it's a total write-off."
    assert _ended(text, facts) == {"Brompton"}


def test_that_with_nothing_named_before_ends_nothing() -> None:
    facts = _facts(("user", "hobby", "climbing", "e1"))
    assert _ended("The heatwave finally broke last night, so that's over.", facts) == set()


# -- a kind noun names what it is a kind of ---------------------------------------------------------------

def test_a_kind_noun_is_weaker_than_a_name() -> None:
    info = fact_info(_facts(("user", "habit", "three lattes a day", "e1"))[0])
    assert name_evidence(info, words("coffee")) == KIND_EVIDENCE
    assert name_evidence(info, words("tea")) == 0.0


@pytest.mark.parametrize(("text", "facts", "ended"), [
    ("Gave up coffee in March, the jitters were awful.", _facts(("user", "habit", "three lattes a day", "e1")),
     {"three lattes a day"}),
    ("Kicked the habit: no cigarettes since my birthday and I'm counting.",
     _facts(("user", "habit", "smoking", "e1")), {"smoking"}),
    # the object names something else: not the user's only habit
    ("Gave up sugar for Lent, which is harder than it sounds.", _facts(("user", "habit", "three lattes a day", "e1")),
     set()),
])
def test_a_kind_noun_with_the_only_state_of_its_category(text: str, facts: list[Fact], ended: set[str]) -> None:
    assert _ended(text, facts) == ended


# -- abstinence: "N weeks without", "a month clean" -------------------------------------------------------

DRINKING = _facts(("user", "habit", "drinking", "e1"), ("user", "owns", "Honda Jazz", "e2"))


@pytest.mark.parametrize(("text", "ended"), [
    ("Ten weeks sober as of today, proudest thing I've done.", {"drinking"}),
    ("A whole month without booze and I'm sleeping like a baby.", {"drinking"}),
    ("Five days without wifi at the cottage, it was bliss.", set()),  # an object of its own
    ("I couldn't go a week without a drink back then.", set()),  # denied, and a memory
    ("Could I manage two months without it, do you think?", set()),  # a question
])
def test_a_stretch_of_abstinence_ends_the_habit(text: str, ended: set[str]) -> None:
    assert _ended(text, DRINKING) == ended


# -- corrections of a count or a kind -------------------------------------------------------------------

COUNTS = _facts(("user", "has_children", "3", "e1"), ("user", "age", "34", "e2"),
                ("user", "has_pet", "labrador named Bramble", "e3"), ("user", "keeps", "five hens", "e4"),
                ("nan", "age", "87", "e5"))


def _corrected(text: str, facts: list[Fact] = COUNTS) -> set[tuple[str, str]]:
    plan = plan_changes(text, at=AT, episode_id="now", facts=facts)
    return {(c.fact.fact.object, c.new_object) for c in plan.corrections}


@pytest.mark.parametrize(("text", "corrected"), [
    ("Oops, I have 2 children not 3, the other one is a neighbour's kid.", {("3", "2")}),
    ("I said three kids before but it's two, my mistake.", {("3", "2")}),
    ("Correction: it's not five hens, it's six.", {("five hens", "six hens")}),
    ("Sorry, she's actually 88, not 87", {("87", "88")}),
    ("Correction: I'm 43, not 34.", {("34", "43")}),
])
def test_a_count_is_corrected_in_the_form_it_was_stored(text: str, corrected: set[tuple[str, str]]) -> None:
    assert _corrected(text) == corrected


@pytest.mark.parametrize("text", [
    "Correction: the meeting is at two, not three.",  # a time, not a count of anything held
    "Oops, we've got 2 dogs not 3.",  # counts something the store does not count
    "My bad, I meant the 3 o'clock train.",  # a number with no count held of that noun
])
def test_a_number_that_counts_nothing_held_corrects_nothing(text: str) -> None:
    assert _corrected(text) == set()


@pytest.mark.parametrize(("text", "corrected"), [
    ("Wait no, Bramble is a cocker spaniel not a labrador.", {("labrador named Bramble", "cocker spaniel named Bramble")}),
    ("Actually he's a spaniel, not a lab.", {("labrador named Bramble", "spaniel named Bramble")}),  # a clipped word
])
def test_a_kind_is_corrected_keeping_the_rest_of_the_value(text: str, corrected: set[tuple[str, str]]) -> None:
    assert _corrected(text) == corrected


def test_a_clipped_word_that_begins_two_values_corrects_neither() -> None:
    facts = _facts(("user", "has_pet", "labrador named Bramble", "e1"), ("user", "works_at", "Labcorp", "e2"))
    assert _corrected("Actually it's a spaniel, not a lab.", facts) == set()


# -- an ending ahead changes nothing now ------------------------------------------------------------------

WORK = _facts(("user", "works_at", "Wickes", "e1"), ("user", "lives_in", "Derby", "e2"), ("user", "owns", "Vespa", "e3"))


@pytest.mark.parametrize("text", [
    "Leaving Wickes after Christmas, it's all signed off.",  # a gerund with a time ahead
    "Moving out of Derby on Saturday, the van's booked.",
    "My final shift at Wickes is the 21st.",  # a copula with a date
    "My last day at Wickes is at the end of the month.",
])
def test_an_ending_dated_ahead_ends_nothing_now(text: str) -> None:
    assert _ended(text, WORK) == set()


@pytest.mark.parametrize(("text", "ended"), [
    ("Leaving Wickes was the best decision I made all year.", {"Wickes"}),  # a gerund as a subject: done
    ("Moving out of Derby last weekend nearly broke me.", {"Derby"}),  # the time named is behind
    ("Left Wickes on Friday and slept all weekend.", {"Wickes"}),  # past tense with a weekday
])
def test_a_gerund_or_a_weekday_behind_is_still_an_ending(text: str, ended: set[str]) -> None:
    assert _ended(text, WORK) == ended


# -- a thing that acts is not what ended; "this week" is no pronoun; a pause is no end --------------------

CLUB = _facts(("user", "member_of", "Otley Cycling Club", "e1"), ("user", "subscribes_to", "Now TV", "e2"),
              ("user", "habit", "smoking", "e3"), ("user", "owns", "Raleigh bike", "e4"))


@pytest.mark.parametrize("text", [
    "The club cancelled Sunday's ride because of the ice.",  # the club acts; the ride ended
    "Now TV dropped my favourite series, annoying.",
    "Rode the Raleigh to the tip and sold that lawnmower this week.",  # "that", "this": determiners
    "The club is done for the winter, rides start again in March.",  # a pause
    "I've stopped smoking for the time being, doctor's orders while I'm on these meds.",
])
def test_what_is_not_the_end_of_a_held_state(text: str) -> None:
    assert _ended(text, CLUB) == set()


@pytest.mark.parametrize(("text", "ended"), [
    ("The Raleigh got nicked from outside the station.", {"Raleigh bike"}),  # passive: the thing is what ended
    ("Otley Cycling Club has shut down for good, the lease ran out.", {"Otley Cycling Club"}),  # intransitive
    ("Haven't smoked for a while now, not since new year.", {"smoking"}),  # abstinence is no pause
])
def test_a_thing_that_undergoes_the_cue_still_ends(text: str, ended: set[str]) -> None:
    assert _ended(text, CLUB) == ended


# -- a near miss, a relative clause, someone indefinite, a person as the object --------------------------

HOME = _facts(("user", "lives_in", "Exeter", "e1"), ("user", "owns", "Fiat Panda", "e2"),
              ("user", "works_at", "Lidl", "e3"), ("user", "job_title", "shift manager", "e3"),
              ("user", "member_of", "Exeter Chess Club", "e4"), ("user", "husband_name", "Rob", "e5"),
              ("rob", "spouse_of", "user", "e5"))


@pytest.mark.parametrize("text", [
    "I very nearly sold the Panda in March, glad I didn't.",  # a near miss
    "We almost moved out of Exeter last year.",
    "The woman who ran the chess club retired at Easter.",  # a relative clause: her news
    "My friend who worked at Lidl quit on Friday.",
    "They sold the flat upstairs, and new tenants moved in.",  # someone indefinite's "the flat"
    "Lidl fired my manager today, no warning at all.",  # a person as the object: their job
])
def test_news_that_is_not_a_change_of_the_users_state(text: str) -> None:
    assert _ended(text, HOME) == set()


@pytest.mark.parametrize(("text", "ended"), [
    ("Sold the Panda in March, nearly a year after buying it.", {"Fiat Panda"}),  # "nearly" after the cue
    ("I left Rob in the spring and I'm doing fine.", {"Rob", "user"}),  # a person as the object: the relationship
    ("Lidl let me go on Friday.", {"Lidl"}),  # the user as the object
])
def test_the_users_own_change_next_to_those_words_still_counts(text: str, ended: set[str]) -> None:
    assert _ended(text, HOME) == ended


# -- what goes on, what a thing's own part is, whose thing a possessive names -----------------------------

GARAGE = _facts(("user", "works_at", "Screwfix", "e1"), ("user", "owns", "Mazda MX-5", "e2"),
                ("user", "has_pet", "dog named Biscuit", "e3"), ("user", "hobby", "bouldering", "e4"),
                ("user", "member_of", "Leeds Bouldering Centre", "e5"))


@pytest.mark.parametrize("text", [
    "Quit my weekend job at the chippy, still at Screwfix though.",  # "still": goes on
    "I quit my other job, the bar one.",  # "my other job": not the one held
    "The MX-5's clutch is done, another 600 quid.",  # a thing's part is what is done
    "My Screwfix rota got cancelled this week so I went bouldering instead.",  # the rota, not bouldering
    "Finished a brilliant book about bouldering on the train.",  # the book, not the hobby
    "Gave away a bag of Biscuit's old toys he never plays with.",  # Biscuit owns the toys
])
def test_what_goes_on_or_is_only_part_of_a_state_does_not_end(text: str) -> None:
    assert _ended(text, GARAGE) == set()


@pytest.mark.parametrize(("text", "ended"), [
    ("Quit Screwfix on Friday, still bouldering three times a week.", {"Screwfix"}),  # the other part goes on
    ("The MX-5's gone, sold it to a lad in Hull.", {"Mazda MX-5"}),
    ("Gave Biscuit to my aunt's farm, he's happier there.", {"dog named Biscuit"}),
])
def test_the_state_named_beside_them_still_ends(text: str, ended: set[str]) -> None:
    assert _ended(text, GARAGE) == ended
