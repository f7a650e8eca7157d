"""Clause shapes of a present state (#38): every clause and its pieces, not only a sentence's start.

The wording is written for these tests (neither belief set's). Each shape has a case that must be
captured and a near one that must not: a one-off event, a plan, a denial before the state, a feeling.
"""

from __future__ import annotations

import pytest

from nova_memory_integrations.changes.state_shapes import (
    apposition,
    coordinated,
    durative,
    joint_subject,
    relation_value,
    strip_time_lead,
    subjectless,
)
from nova_memory_integrations.changes.states import open_states


def _values(text: str, **kw: tuple[str, ...]) -> set[tuple[str, str]]:
    return {(s.subject, s.value) for s in open_states(text, **kw)}


@pytest.mark.parametrize(("text", "expected"), [
    # a later clause of the sentence, after a one-off event in another piece
    ("I coach the under-9s at Kirkby Juniors and yesterday one of them called me grandad.",
     ("user", "under-9s at Kirkby Juniors")),
    ("huge Saints supporter here, derby is on Sunday and I can't sleep", ("user", "huge Saints supporter")),
    # a leading duration or start
    ("Nine years I've owned a narrowboat on the Kennet and it still leaks.", ("user", "narrowboat on the Kennet")),
    ("Since 2019 we've rented an allotment by the railway.", ("user", "allotment by the railway")),
    ("Twenty-six years running the chippy on Marsh Lane and I still love it.", ("user", "chippy on Marsh Lane")),
    # the subject dropped
    ("renting a tiny studio in Hackney, the walls are paper thin", ("user", "tiny studio in Hackney")),
    ("been volunteering at the Oxfam bookshop for two years", ("user", "Oxfam bookshop")),
    ("Coaching netball at St Anne's is the highlight of my week.", ("user", "netball at St Anne's")),
    # a perfect with a duration
    ("I've been with Octopus Energy for about three years now.", ("user", "Octopus Energy")),
    ("We've been pescatarian for ages.", ("user", "pescatarian")),
    ("Priya and I have been engaged six months.", ("user", "engaged to Priya")),
    ("My housemate Tom and I have shared a flat in Leith for two years.", ("tom", "flat in Leith")),
    ("Ines and I have been together five years next week.", ("user", "together with Ines")),  # an anniversary
    # a coordination keeping its subject
    ("My mum's 70 and still runs the village post office.", ("mom", "village post office")),
    # a third party with a status or a proper adjective
    ("My cousin Aled is Welsh and proud of it.", ("aled", "Welsh")),
    ("My mate Kofi is self-employed these days.", ("kofi", "self-employed")),
    # a person's thing
    ("My uncle Ray's Land Rover is older than me.", ("ray", "Land Rover")),
    # appositions
    ("Pepper (our tabby) sleeps on the boiler.", ("user", "tabby Pepper")),
    ("Nadia, the analyst who sits opposite me at Arup, is hilarious.", ("nadia", "analyst who sits opposite me at Arup")),
    # verbless self-descriptions
    ("Lifelong Hibs supporter here, don't judge.", ("user", "Lifelong Hibs supporter")),
    ("Night nurse life at the Royal Infirmary means I sleep at noon.", ("user", "Night nurse life at the Royal Infirmary")),
    ("As a postman I walk about twelve miles a day.", ("user", "postman")),
    # a name typed in lower case after a relation, known by the verb after it
    ("my girlfriend freya is doing the cooking tonight", ("user", "girlfriend Freya")),
    # a streak is a habit that holds; a birthplace never ends
    ("45 day streak on the rowing machine, who even am I", ("user", "45 day streak on the rowing machine")),
    ("I was born in Cork, for the record.", ("user", "born in Cork")),
    # a recurring event is a habit, its marker told after it or first
    ("I ring my grandad every Sunday after lunch.", ("user", "ring my grandad after lunch")),
    ("On Thursdays I teach pottery at the community centre.", ("user", "pottery at the community centre")),
    # a negation after the state denies something else
    ("I drive a Skoda Octavia and it never breaks down.", ("user", "Skoda Octavia")),
])
def test_a_state_is_read_in_each_clause_shape(text: str, expected: tuple[str, str]) -> None:
    assert expected in _values(text)


@pytest.mark.parametrize("text", [
    "Went swimming at the lido this morning, freezing.",          # a one-off event
    "Played squash with Rhys last night and lost badly.",         # a one-off event, past
    "If we get the house I'd be renting out the spare room.",     # a hypothetical before the state
    "Next year I'm going to be teaching Year 6.",                 # a plan
    "Next month I'll have been renting here two years.",          # a plan told first holds over the state
    "I haven't been in a choir for ages.",                        # a denial before the state
    "Been feeling rough for two weeks.",                          # a feeling, however long
    "Thinking about renting a place in Bristol.",                 # a plan, not a state
    "Winter here, the heating's on full.",                        # 'here' after a word that names no one
    "I've been ill for a week.",                                  # a passing condition, not a status
    "EDF have put the direct debit up.",                          # a perfect, not a possession
    "Adore living by the sea but the damp is grim.",              # a feeling verb is no one's name
    "Every month with this landlord is a saga.",                  # 'every' is no number of months
    "my sister really is the worst at texting back",              # an adverb is no lower-case name
    "I worry about money every single day.",                      # a mind's habit is a mood
    "I burnt the rice again.",                                    # 'again' alone: a one-off told twice
    "I cycled to work every day last year.",                      # a past habit
    "I text them every evening.",                                 # whom a pronoun names is not a state's phrase
    "I only cycle twice a month.",                                # how often, with no thing done
    # small talk that reads like a state and is none
    "Gardening is such a good way to switch off.",               # a generic activity as a subject
    "Baking helps me calm down after work.",                     # the same, before another verb
    "Cooking and reading with the kids!",                        # activities listed
    "Sorry, I'm doing alright, honestly.",                       # how someone is
    "Honesty is important in a friendship.",                     # a capitalised word is not a name
    "Four times a week, that's the plan.",                       # a number is not a name
    "I do love a long walk on a Sunday.",                        # an emphatic do before a feeling
    "I got picked for the pub quiz team finals!",                # a passive event
    "We're thinking of getting our kids swimming lessons and a tutor.",  # a plan; 'kids swimming' no name
])
def test_what_is_not_a_state_is_not_read_in_any_shape(text: str) -> None:
    assert open_states(text) == []


def test_a_read_sentence_leaves_its_rule_clause_but_not_the_others() -> None:
    text = "Studying Mandarin online, and my Spanish is rusty."
    found = _values(text, covered=("Spanish",), read=(text,))
    assert ("user", "Mandarin online") in found
    assert not any("Spanish" in v for _, v in found)
    single = "I run 10k along the river most evenings."
    assert open_states(single, covered=("running",), read=(single,)) == []  # the rule read it, in its own words


def test_a_state_shared_with_the_user_is_the_users_though_a_rule_read_it_of_the_other() -> None:
    text = "me and my husband have been teetotal for six years"
    assert ("user", "teetotal") in _values(text, covered=("teetotal",), read=(text,))


def test_a_one_letter_covered_value_is_not_in_every_word() -> None:
    text = "Learning the cello from a book, and my A string keeps snapping."
    assert ("user", "cello from a book") in _values(text, covered=("A",), read=(text,))


def test_the_shape_helpers_each_read_one_shape() -> None:
    assert strip_time_lead("Three years I've had it") == "I've had it"
    assert strip_time_lead("Three kids I have") == "Three kids I have"
    assert strip_time_lead("Forty-one years nursing") == "nursing"
    assert subjectless("renting a flat") == ("renting", " a flat", False)
    assert subjectless("watching the news") is None
    assert durative("vegan", " for ten years") == "vegan"
    assert durative("ill", "") is None
    assert joint_subject("Sam and I have") == ("sam", 9)
    assert joint_subject("me and my wife have")[1] > 0
    assert joint_subject("Sam has a dog") == (None, 0)
    assert relation_value("married", "sam") == "married to Sam"
    assert relation_value("together in Leeds", "sam") == "together in Leeds"
    assert coordinated("is 80 and still drives a bus") == ("drives", " a bus")
    assert coordinated("is 80 and drives a bus") is None
    assert apposition("Mochi (our shiba) barks") == [("user", "shiba Mochi")]
    assert apposition("put my ride on strava (@hill_repeats) lol") == [("user", "strava @hill_repeats")]
    assert apposition("email me at jo@example.com") == []


def test_grandparents_are_a_relation_the_rules_read() -> None:
    from nova_memory_integrations.extraction import DeterministicExtractor

    found = {(p.subject, p.predicate, p.object) for p in DeterministicExtractor().extract(
        "My grandkids live in Dunedin, which is a long way to fly.")}
    assert ("grandkids", "lives_in", "Dunedin") in found


@pytest.mark.parametrize(("text", "ends"), [
    ("Everyone else moved on, so it's only me left on the night shift.", False),  # what remains
    ("There's nothing left in the budget for the gym.", False),
    ("I left the night shift in March.", True),
])
def test_left_for_what_remains_is_no_ending(text: str, ends: bool) -> None:
    from nova_memory_integrations.changes.cues import find_cues
    from nova_memory_integrations.changes.segments import segment

    assert any(h.cue.name == "left" for h in find_cues(text, segment(text))) is ends



def test_a_relation_word_is_spelt_as_the_extractor_spells_it() -> None:
    """One person, one subject: "mum" and "gf" name whom the typed rules call "mom" and "girlfriend"."""
    assert {s.subject for s in open_states("Mum still sings in the church choir on Sundays.")} == {"mom"}
    assert {s.subject for s in open_states("My gf's a paramedic at St Mary's.")} == {"girlfriend"}
