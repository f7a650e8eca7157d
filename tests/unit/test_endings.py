"""Endings, transitions and named relatives in the deterministic extractor (no store, no model)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from nova_memory_integrations.extraction import DeterministicExtractor
from nova_memory_integrations.types import Episode

REF = datetime(2024, 6, 10, 12, 0, tzinfo=timezone.utc)  # a Monday
Triple = tuple[str, str, str, str]


def facts(text: str) -> set[Triple]:
    return {(f.subject, f.predicate, f.object, f.op) for f in DeterministicExtractor().extract(text, timestamp=REF)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I sold my car and now drive a Tesla.", {("user", "owns", "car", "negate"), ("user", "owns", "Tesla", "assert")}),
        ("I traded my Honda for a Mazda.", {("user", "owns", "Honda", "negate"), ("user", "owns", "Mazda", "assert")}),
        ("My dog Rex died yesterday.", {("user", "has_pet", "dog named Rex", "negate")}),
        ("We had to put our cat Tiger to sleep.", {("user", "has_pet", "cat named Tiger", "negate")}),
        ("I quit my job at Oracle.", {("user", "works_at", "Oracle", "negate")}),
        ("I retired.", {("user", "employment_status", "retired", "assert")}),
        ("I divorced Sofia.", {("user", "married_to", "Sofia", "negate")}),
        ("Tom and I broke up.", {("user", "dating", "Tom", "negate")}),
        ("I moved out of Leeds.", {("user", "lives_in", "Leeds", "negate")}),
        ("I gave up painting for pottery.",
         {("user", "hobby", "painting", "negate"), ("user", "hobby", "pottery", "assert")}),
        ("I stopped speaking German.", {("user", "speaks", "German", "negate")}),
        ("I finished studying law.", {("user", "studies", "law", "negate")}),
        ("I recovered from asthma.", {("user", "has_condition", "asthma", "negate")}),
        ("I'm no longer vegetarian.", {("user", "diet", "vegetarian", "negate")}),
        ("I used to play the piano.", {("user", "plays", "piano", "negate")}),
        ("I quit smoking.", {("user", "habit", "smoking", "negate")}),
        ("I cancelled my trip to Peru.", {("user", "plans_to", "trip to Peru", "negate")}),
        ("My sister sold her flat.", {("sister", "owns", "flat", "negate")}),
        ("My grandmother passed away.", {("grandmother", "life_status", "deceased", "assert")}),
    ],
)
def test_endings_and_replacements(text: str, expected: set[Triple]) -> None:
    assert facts(text) == expected


@pytest.mark.parametrize(
    "text",
    ["I'm not selling my car.", "I haven't quit smoking yet.", "I used to think cats were boring.",
     "My phone died.", "What if my dog dies?", "Should I quit my job at Lidl?", "I don't have any pets."],
)
def test_non_endings_yield_nothing(text: str) -> None:
    assert facts(text) == set()


def test_the_ending_is_dated_at_the_event() -> None:
    (fact,) = DeterministicExtractor().extract("I sold my motorbike last week.", timestamp=REF)
    assert fact.valid_from == datetime(2024, 6, 3, tzinfo=timezone.utc)


def test_a_few_years_ago_is_a_time_expression_not_part_of_the_object() -> None:
    (fact,) = DeterministicExtractor().extract("I stopped playing the violin a few years ago.", timestamp=REF)
    assert (fact.object, fact.valid_from) == ("violin", datetime(2021, 6, 10, tzinfo=timezone.utc))


def test_a_named_relative_is_the_subject() -> None:
    assert facts("My brother Luis is a chef in Sevilla.") == {
        ("user", "brother_name", "Luis", "assert"), ("luis", "sibling_of", "user", "assert"),
        ("luis", "job_title", "chef", "assert")}


def test_later_mentions_in_the_turn_resolve_to_the_named_relative() -> None:
    got = facts("My sister Elena lives in Oslo. My sister is a dentist, and she loves chess.")
    assert ("elena", "job_title", "dentist", "assert") in got
    assert ("elena", "likes", "chess", "assert") in got
    assert not any(s == "sister" for s, *_ in got)


def test_extract_batch_carries_the_named_relative_to_later_turns() -> None:
    turns = ["My brother Luis is a chef.", "My brother quit his job at Zara."]
    episodes = [Episode(id=f"e{i}", user_id="u", role="user", content=t, timestamp=REF, ingested_at=REF)
                for i, t in enumerate(turns)]
    batch = DeterministicExtractor().extract_batch(episodes)
    assert [(f.subject, f.predicate, f.object, f.op) for f in batch[1]] == [("luis", "works_at", "Zara", "negate")]
    alone = DeterministicExtractor().extract(turns[1], timestamp=REF)
    assert [(f.subject, f.predicate) for f in alone] == [("brother", "works_at")]


def test_extract_batch_names_the_speaker_of_a_transcript() -> None:
    episode = Episode(id="e", user_id="u", role="Alice", content="I sold my bike.", timestamp=REF, ingested_at=REF)
    (found,) = DeterministicExtractor().extract_batch([episode])
    assert [(f.subject, f.predicate, f.op) for f in found] == [("Alice", "owns", "negate")]
