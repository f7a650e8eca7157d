"""The guard classes added for issue #38's precision target, read one message at a time (pure).

Must-not-fire cases by class live in ``tests/integration/test_belief_guards.py`` (through a real store);
here each new guard is also shown *not* to block a real change told next to the same kind of words, so a
guard that blocks everything fails.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.guards import Known, adds_to_held, find_actor, restates
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=30)


def _fact(predicate: str, obj: str, subject: str = "user") -> Fact:
    return Fact(id=f"f-{obj}", lineage_id=f"f-{obj}", user_id="u", subject=subject, predicate=predicate, object=obj,
                confidence=0.8, valid_from=T0, ingested_at=T0, provenance=("e1",))


def _ended(text: str, *facts: Fact) -> set[str]:
    return {e.fact.object for e in plan_changes(text, at=AT, episode_id="now", facts=list(facts)).endings}


@pytest.mark.parametrize(("guarded", "control", "fact"), [
    # banter: a change not told as done, beside laughter
    ("selling the allotment to a developer lol", "Sold the allotment to a developer.", _fact("rents", "allotment")),
    ("gonna quit the bakery and join the circus haha", "Quit the bakery on Friday.", _fact("works_at", "bakery")),
    # a short stretch right after the cue, or a breakdown: a pause or a fault
    ("Cancelled the violin lessons for three weeks while I'm recovering from the op.",
     "Cancelled the violin lessons.", _fact("states", "violin lessons on Mondays")),
    ("The Kindle froze and died on me mid-chapter.", "Got rid of the Kindle, I read paper now.",
     _fact("owns", "Kindle")),
    # a false alarm told of the thing: the cue did not happen
    ("panicked for a sec that my Audible subscription had lapsed. nope, it auto-renewed",
     "My Audible subscription lapsed in March.", _fact("subscribes_to", "Audible")),
    # one occasion of a passive cue
    ("Salsa class was cancelled tonight, the hall flooded.", "Salsa class was cancelled for good, the teacher left.",
     _fact("states", "salsa class on Fridays")),
    # the state goes on, came back, or spared the user
    ("Kiwi ran away on Sunday, but she came back by teatime.", "Kiwi ran away on Sunday.",
     _fact("has_pet", "parrot named Kiwi")),
    ("Fed up with choir, quit in my head, but we keep turning up there every week.", "Quit choir in March.",
     _fact("member_of", "choir")),
    ("Redundancies at the warehouse, not me though.", "Redundancies at the warehouse.",
     _fact("works_at", "warehouse")),
    # an attempt, a rumour asked about
    ("Trying to give up caffeine, it's grim.", "Gave up caffeine, it's grim.", _fact("habit", "caffeine")),
    ("My aunt keeps asking whether I've left the bank yet.", "I've left the bank.", _fact("works_at", "bank")),
])
def test_the_new_guard_classes_end_nothing(guarded: str, control: str, fact: Fact) -> None:
    assert _ended(control, fact) == {fact.object}, "the control must end the fact, or the case cannot fail"
    assert _ended(guarded, fact) == set()


@pytest.mark.parametrize(("text", "fact"), [
    ("sold the Fiesta to my cousin lol, one less bill", _fact("owns", "Ford Fiesta")),  # done: laughter is no guard
    ("Worked at the warehouse for two weeks, quit on Friday.", _fact("works_at", "warehouse")),
    ("Quit the choir in March but I'm still singing in the shower.", _fact("member_of", "choir")),
    ("Sold the Kindle on Sunday, it kept freezing on me.", _fact("owns", "Kindle")),
])
def test_a_change_told_beside_those_words_still_ends(text: str, fact: Fact) -> None:
    assert _ended(text, fact) == {fact.object}


@pytest.mark.parametrize(("prefix", "name"), [
    ("The darts team's captain ", "darts team's captain"),
    ("Our choir's old conductor ", "choir's conductor"),
    ("Kemi's husband ", "kemi's husband"),
    ("my former manager ", "manager"),
])
def test_a_possessed_person_is_a_third_party_not_the_possessor(prefix: str, name: str) -> None:
    actor = find_actor(prefix, Known({}, {}))
    assert (actor.kind, actor.name) == ("third", name)


@pytest.mark.parametrize(("prefix", "kind", "name"), [
    ("So glad she ", "pronoun", "she"),  # words that are no subject, then the pronoun
    ("Small win: GP agreed I was ready to ", "user", ""),  # someone else agreeing; the speaker acts
    ("the vet said I was able to ", "user", ""),
    ("my brother ", "third", "brother"),  # a subject at the start still wins
    ("the car ", "thing", "car"),
])
def test_a_subject_pronoun_right_before_the_cue_is_who_acts(prefix: str, kind: str, name: str) -> None:
    actor = find_actor(prefix, Known({}, {}))
    assert (actor.kind, actor.name) == (kind, name)


def test_a_possessed_thing_is_still_a_thing() -> None:
    assert find_actor("The darts team's board ", Known({}, {})).kind == "thing"


@pytest.mark.parametrize(("held", "new", "same"), [
    ("Leeds", "Leeds city centre", True),  # longer from the same start
    ("the Co-op is fine", "the Co-op", True),
    ("teacher", "Year 4 teacher", True),  # a kind noun made precise
    ("York", "New York", False),  # a name ending another name is another place
    ("sous chef", "head chef", False),  # a different role
    ("Tesco", "Aldi", False),
])
def test_a_value_told_again_longer_or_shorter_is_a_restatement(held: str, new: str, same: bool) -> None:
    assert restates(held, new) is same


@pytest.mark.parametrize(("predicate", "sentence", "more"), [
    ("job_title", "I'm a tutor on the side too", True),
    ("works_at", "Doing a few shifts at the pub as well", True),
    ("works_at", "I work at the pub now", False),
    ("lives_in", "We've got a caravan in Wales too", False),  # a home is not held twice
])
def test_a_second_job_told_as_one_more_adds_to_the_held_one(predicate: str, sentence: str, more: bool) -> None:
    assert adds_to_held(predicate, sentence) is more
