"""The pure rules of source and importance (memory/importance, text/requests)."""

from __future__ import annotations

import pytest

from nova_memory_integrations.memory.importance import (
    LEVELS,
    assess,
    decay_scale,
    level_of,
    outlives,
    source_of,
)
from nova_memory_integrations.text.requests import asks_to_remember, without_requests


@pytest.mark.parametrize(("text", "kept"), [
    ("I have a severe allergy to shellfish, never forget this", "I have a severe allergy to shellfish."),
    ("Remember that I prefer replies in Portuguese", "I prefer replies in Portuguese."),
    ("Please remember: my daughter Emma was born on 3 May 2015", "My daughter Emma was born on 3 May 2015."),
    ("I take metformin - please remember this!", "I take metformin."),
    ("Don't forget I'm vegetarian.", "I'm vegetarian."),
    ("keep in mind that I am diabetic", "I am diabetic."),
    ("Remember that!", ""),
])
def test_a_request_to_remember_is_found_and_cut_from_what_it_states(text: str, kept: str) -> None:
    assert asks_to_remember(text)
    assert without_requests(text) == kept


@pytest.mark.parametrize("text", [
    "I'll always remember that.", "Remember that time we went hiking?", "Do you remember what I said about Rome?",
    "I remember my first dog.", "Store my bike in the garage", "Today I worked on chapter 3 of my novel",
])
def test_talk_about_memory_is_not_a_request(text: str) -> None:
    assert not asks_to_remember(text)
    assert without_requests(text) == text


@pytest.mark.parametrize(("text", "level"), [
    ("I'm allergic to peanuts", 5), ("I take sertraline every morning", 5), ("I was diagnosed with asthma", 5),
    ("My daughter starts school in September", 4), ("My name is Ana", 4),
    ("My dentist appointment is on Friday", 4), ("Today I worked on chapter 3 of my novel", 3),
    ("It was a cold day at the beach", 3), ("Thanks!", 1), ("lol ok", 1), ("How are you?", 1),
])
def test_importance_by_what_the_memory_is_about(text: str, level: int) -> None:
    found = assess(text)
    assert (found.level, found.value) == (level, LEVELS[level])


def test_an_explicit_memory_is_of_the_highest_level_and_a_fact_is_judged_by_its_predicate_too() -> None:
    assert assess("I like jazz", explicit=True).level == 5
    assert assess("user allergic to shellfish").level == 5
    assert assess("user x y", predicate="takes_medication").level == 5
    assert assess("user x y", predicate="sister_name").level == 4
    assert assess("user x y", predicate="likes").level == 3


def test_only_a_person_asks_to_remember() -> None:
    assert source_of("Remember that I prefer tea", "user") == "explicit"
    assert source_of("Remember that I prefer tea", "Caroline") == "explicit"
    assert source_of("Remember that I prefer tea", "assistant") == "inferred"
    assert source_of("I prefer tea", "user") == "inferred"


def test_levels_map_both_ways_and_decay_and_protection_follow_them() -> None:
    assert [level_of(v) for v in LEVELS.values()] == list(LEVELS)
    assert level_of(0.0) == 1 and level_of(1.0) == 5 and level_of(0.6) == 4  # a tie goes up
    assert decay_scale(0.5, "inferred") == 1.0 and decay_scale(0.9, "explicit") == 0.0
    assert decay_scale(0.9, "inferred") < decay_scale(0.5, "inferred") < decay_scale(0.1, "inferred")
    assert outlives(0.1, "explicit") and outlives(0.9, "inferred") and not outlives(0.7, "inferred")
