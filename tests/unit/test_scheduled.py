"""Days told ahead and the endings told with them (pure): issue #38."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from nova_memory_integrations.changes.scheduled import scheduled_endings
from nova_memory_integrations.changes.targets import fact_info
from nova_memory_integrations.text.dates import resolve_ahead
from nova_memory_integrations.types import Fact

REF = datetime(2024, 3, 4, 15, tzinfo=timezone.utc)  # a Monday
T0 = datetime(2023, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(("text", "day"), [
    ("Last day is Friday the 29th", (2024, 3, 29)),
    ("my lease is up on June 30", (2024, 6, 30)),
    ("our tenancy ends may 31", (2024, 5, 31)),
    ("my contract ends end of June", (2024, 6, 30)),
    ("on the 2nd", (2024, 4, 2)),  # the next 2nd
    ("leaving on Friday", (2024, 3, 8)),
    ("ends on 2 April", (2024, 4, 2)),
    ("my lease was up on January 3", (2025, 1, 3)),  # the reader's tense is the caller's to check
])
def test_resolve_ahead(text: str, day: tuple[int, int, int]) -> None:
    assert resolve_ahead(text, REF) == datetime(*day, tzinfo=timezone.utc)


@pytest.mark.parametrize("text", ["I may 5x the budget", "no date here", "last week was busy"])
def test_no_day_ahead(text: str) -> None:
    assert resolve_ahead(text, REF) is None


def _info(predicate: str, obj: str, subject: str = "user") -> object:
    return fact_info(Fact(id=f"{subject}-{predicate}-{obj}", lineage_id=f"l-{obj}", user_id="u", subject=subject,
                          predicate=predicate, object=obj, confidence=0.8, valid_from=T0, ingested_at=T0))


JOB, HOME, GYM = _info("works_at", "Barclays"), _info("lives_in", "Elm Street"), _info("member_of", "PureGym")


@pytest.mark.parametrize(("text", "ended", "day"), [
    ("Handed in my notice this morning. Last day is Friday the 29th!", JOB, (2024, 3, 29)),
    ("My lease on the Elm Street flat is up on June 30 and I'm not renewing.", HOME, (2024, 6, 30)),
    ("my PureGym membership runs out on the 31st, not renewing", GYM, (2024, 3, 31)),
])
def test_an_ending_told_ahead_ends_on_its_day(text: str, ended: object, day: tuple[int, int, int]) -> None:
    (ending,) = scheduled_endings(text, [JOB, HOME, GYM], REF)  # type: ignore[list-item]
    assert ending.fact is ended.fact and ending.at == datetime(*day, tzinfo=timezone.utc)  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", [
    "Is my last day Friday the 29th?",  # a question
    "If my lease is up on June 30 we'll move to Leeds.",  # a condition
    "My lease isn't up until June 30, annoyingly.",  # denied
    "His lease is up on June 30.",  # someone else's
    "Last day was Friday the 1st.",  # past
])
def test_no_ending_told_ahead(text: str) -> None:
    assert scheduled_endings(text, [JOB, HOME, GYM], REF) == []  # type: ignore[list-item]
