"""The rule extractor on everyday shapes of issue #38 (pure: no store)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from nova_memory_integrations.extraction.deterministic import DeterministicExtractor

AT = datetime(2024, 3, 1, tzinfo=timezone.utc)


def _facts(text: str) -> set[tuple[str, str, str]]:
    return {(c.subject, c.predicate, c.object) for c in DeterministicExtractor().extract(text, timestamp=AT)
            if c.op == "assert"}


@pytest.mark.parametrize(("text", "fact"), [
    ("The new guy I'm seeing, Mateo, is taking me to a game on Saturday", ("user", "dating", "Mateo")),
    ("i've been seeing someone new since july, amara, she's a physio", ("user", "dating", "amara")),
    ("My new boyfriend Tom is lovely", ("user", "boyfriend_name", "Tom")),
    ("My brother Karim lives about ten minutes from me in Sheffield.", ("karim", "lives_in", "Sheffield")),
    ("We live just outside Bath and want a walk with a pub", ("user", "lives_in", "Bath")),
    ("My best friend Chloe is 7 months pregnant", ("chloe", "has_condition", "pregnant")),
    ("We moved Gran into Elm Court care home in Leeds last week.", ("gran", "lives_in", "Elm Court care home")),
    ("My mate Gaz runs the Red Lion in our village.", ("gaz", "owns", "Red Lion")),
    ("Carol was diagnosed with type 2 diabetes at her check-up.", ("carol", "has_condition", "type 2 diabetes")),
    ("My dad has been diagnosed with prostate cancer.", ("dad", "has_condition", "prostate cancer")),
    ("The van's unloaded and Bristol is officially home now!", ("user", "lives_in", "Bristol")),
])
def test_an_everyday_shape_is_read(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in _facts(text)


@pytest.mark.parametrize(("text", "subject"), [
    ("Lloyds have frozen my card again because I was abroad.", "lloyds"),
    ("Everything's on Starling now, salary and bills.", "everything"),
    ("I'm seeing my mum on Sunday", None),
])
def test_no_person_from_a_firm_or_a_pronoun(text: str, subject: str | None) -> None:
    found = _facts(text)
    assert not [f for f in found if f[0] == subject or f[1] == "dating"]


def test_no_home_from_a_gap_with_a_negation() -> None:
    assert not [f for f in _facts("My brother no longer lives near me in Leeds.") if f[2] == "Leeds"]


@pytest.mark.parametrize("text", ["My sister has a new job", "Paris is home to the Louvre", "Mum's home now"])
def test_no_condition_or_home_from_an_ordinary_sentence(text: str) -> None:
    assert not [f for f in _facts(text) if f[1] in ("has_condition", "lives_in")]



@pytest.mark.parametrize(("text", "job"), [
    ("I'm a freelance copy editor, mostly academic presses.", "freelance copy editor"),
    ("I'm a self-employed electrician these days.", "self-employed electrician"),
])
def test_the_way_of_working_stays_in_the_job(text: str, job: str) -> None:
    """"freelance" is part of what the user does: a later "went in-house" or "back to freelance" needs it."""
    assert ("user", "job_title", job) in _facts(text)
