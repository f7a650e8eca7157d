"""Ending verbs read by lemma (:mod:`nova_memory_integrations.changes.verbs`), in wording of our own.

A verb of the table ends a state in any inflection, through the same guards and target scoring as a
phrase cue; an ambiguous verb ends only what its clause names, and a noun or adjective use of the word
("a close friend", "the shop is shut") is no cue.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from change_helpers import T0, held_fact

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.cues import find_cues, has_cue
from nova_memory_integrations.changes.segments import normalize_text, segment
from nova_memory_integrations.changes.verbs import VERB_CUES, lemma

AT = T0 + timedelta(days=90)


FACTS = [held_fact(i, *t) for i, t in enumerate([
    ("user", "uses", "TikTok"), ("user", "subscribes_to", "Audible"), ("user", "takes_medication", "citalopram"),
    ("user", "runs_business", "pottery stall"), ("user", "member_of", "Hackney Rowing Club"),
    ("user", "owns", "Peloton bike"), ("user", "friend_name", "Olu"), ("olu", "works_at", "Brightside Games"),
    ("user", "habit", "haircut every month"),
])]


def _ended(text: str) -> set[str]:
    plan = plan_changes(text, at=AT, episode_id="now", facts=FACTS)
    return {f"{e.fact.subject}:{e.fact.object}" for e in plan.endings}


@pytest.mark.parametrize(("form", "base"), [
    ("deleted", "delete"), ("deletes", "delete"), ("deleting", "delete"), ("shutting", "shut"), ("shut", "shut"),
    ("folds", "fold"), ("folded", "fold"), ("came", "come"), ("cutting", "cut"), ("uninstalled", "uninstall"),
    ("needed", "needed"), ("closet", "closet"), ("cuts", "cut"),
])
def test_the_lemmatiser_reads_inflections_and_invents_no_verb(form: str, base: str) -> None:
    assert lemma(form) == base


def test_every_verb_cue_is_well_formed_data() -> None:
    for v in VERB_CUES:
        assert v.lemma == v.lemma.lower().strip() and " " not in v.lemma
        assert v.cue.categories and 0 < v.cue.strength <= 1
        assert lemma(v.lemma) == v.lemma


@pytest.mark.parametrize("text", ["I uninstalled TikTok", "she's closing the account", "we came off it"])
def test_the_prefilter_lets_verb_cues_through(text: str) -> None:
    assert has_cue(normalize_text(text))


@pytest.mark.parametrize(("text", "ended"), [
    ("Finally uninstalled TikTok, my screen time halved.", {"user:TikTok"}),
    ("I've deleted TikTok off my phone.", {"user:TikTok"}),
    ("Weaned off the citalopram over the winter with my doctor's help.", {"user:citalopram"}),
    ("Got off the citalopram in February and feel fine.", {"user:citalopram"}),
    ("Closed the pottery stall at the market, not worth the pitch fee.", {"user:pottery stall"}),
    ("Unsubscribed from Audible, too many unread books.", {"user:Audible"}),
    ("Olu's studio, Brightside Games, folded last month.", {"olu:Brightside Games"}),
    ("Parted with the Peloton bike, it was a clothes horse anyway.", {"user:Peloton bike"}),
    # a subject pronoun right before the verb, after words that are no subject
    ("So relieved he finally folded Brightside Games, the crunch was awful.", {"olu:Brightside Games"}),
    # a cue whose table lists other kinds of state ends what its own clause names
    ("Olu's packed in Brightside Games, the crunch was killing him", {"olu:Brightside Games"}),
    # an idiom of a thing's end
    ("nvm the Peloton bike bit the dust, the motor's gone", {"user:Peloton bike"}),
])
def test_an_ending_verb_in_any_form_ends_what_it_names(text: str, ended: set[str]) -> None:
    assert _ended(text) == ended


@pytest.mark.parametrize("text", [
    "I cut my hair short for summer.",  # "cut" names nothing held: not the monthly haircut habit
    "My close friend from the rowing club came round.",  # an adjective
    "The pottery stall is shut today because of the rain.",  # a state for the day
    "I didn't delete TikTok, just muted it.",  # denied
    "Thinking of closing the pottery stall.",  # a possibility
    "Should I unsubscribe from Audible?",  # a question
    "Olu said the rowing club might fold.",  # someone else's words, a possibility
    "I folded the laundry and went for a run.",  # "fold" of something not held
    "I gave up on Olu, he never answers his phone.",  # who someone is to the user: never ended by a cue
    "Audible was a present from my aunt the year I graduated.",  # a name in the clause, not the cue's object
])
def test_ending_verbs_must_not_fire_outside_an_ending(text: str) -> None:
    assert _ended(text) == set()


def test_emigrating_tells_a_new_home_of_the_person_who_went() -> None:
    plan = plan_changes("Olu emigrated to Toronto at the start of the month.", at=AT, episode_id="now", facts=FACTS)
    assert {(n.subject, n.object) for n in plan.new_values} == {("olu", "Toronto")}


def test_a_phrase_cue_wins_over_a_verb_cue_at_the_same_word() -> None:
    norm = normalize_text("We shut the stall down last week.")
    names = [h.cue.name for h in find_cues(norm, segment(norm))]
    assert names == ["wound down"]
