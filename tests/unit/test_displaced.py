"""Open states a new specific fact displaces, and where an ending's subject went next (pure): issue #38."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes.displaced import displaced
from nova_memory_integrations.changes.replacements import onward
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _fact(subject: str, predicate: str, obj: str, day: int, *, ended: bool = False) -> Fact:
    at = T0 + timedelta(days=day)
    return Fact(id=f"{subject}-{predicate}-{obj}", lineage_id=f"l-{obj}", user_id="u", subject=subject,
                predicate=predicate, object=obj, confidence=0.7, valid_from=at, ingested_at=at,
                valid_to=at + timedelta(days=1) if ended else None)


def test_a_new_home_ends_the_open_home_of_the_same_person() -> None:
    old = _fact("dad", "states", "bungalow in Bournemouth", 0)
    new = _fact("dad", "lives_in", "Seaview care home", 90)
    (ending,) = displaced([new], [old])
    assert ending.fact is old and ending.at == new.valid_from
    assert "lives_in 'Seaview care home'" in ending.reason


@pytest.mark.parametrize(("old", "new"), [
    (_fact("mum", "states", "bungalow in Bournemouth", 0), _fact("dad", "lives_in", "Poole", 90)),  # another person
    (_fact("dad", "states", "allotment on Mill Lane", 0), _fact("dad", "lives_in", "Poole", 90)),  # not a home
    (_fact("dad", "states", "bungalow in Poole", 0), _fact("dad", "lives_in", "Poole", 90)),  # the same home
    (_fact("dad", "states", "bungalow in Bournemouth", 90), _fact("dad", "lives_in", "Poole", 0)),  # not older
    (_fact("dad", "states", "bungalow in Bournemouth", 0), _fact("dad", "owns", "Volvo", 90)),  # not one at a time
    (_fact("dad", "states", "bungalow in Bournemouth", 0, ended=True), _fact("dad", "lives_in", "Poole", 90)),
])
def test_nothing_displaced(old: Fact, new: Fact) -> None:
    assert displaced([new], [old]) == []


def test_a_school_ends_a_nursery_and_a_job_a_job() -> None:
    nursery = _fact("leo", "states", "Little Acorns nursery three days", 0)
    shifts = _fact("leo", "states", "shifts at the call centre job", 0)
    found = displaced([_fact("leo", "studies_at", "Brookfield Primary", 200)], [nursery, shifts])
    assert [e.fact for e in found] == [nursery]


@pytest.mark.parametrize(("text", "found"), [
    (" Arup - she's gone to Google to lead a team.", "Google"),
    (" Sage, he's gone over to Accenture", "Accenture"),
    (" the Nuffield and joined PureGym last week", "PureGym"),
    (" Arup. She might have gone to Google", None),  # a possibility
    (" Arup - she's gone to the pub to celebrate", None),  # no proper name
])
def test_onward(text: str, found: str | None) -> None:
    assert onward(text) == found
