"""The date fields the extractor (``text.dates.resolve_relative_time``) and recall
(``text.dates.named_windows``) share: a day the one resolves is a day the other names."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.text.dates import (
    DAY_FIELD,
    MONTH_FIELD,
    MONTHS,
    YEAR_FIELD,
    named_windows,
    resolve_relative_time,
)

NOW = datetime(2026, 11, 27, 15, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize(("field", "text", "want"), [
    (MONTH_FIELD, "Sept.", "Sept"),
    (MONTH_FIELD, "september", "september"),
    (DAY_FIELD, "25th", "25"),
    (DAY_FIELD, "3", "3"),
    (YEAR_FIELD, "2023", "2023"),
    (YEAR_FIELD, "1999", "1999"),
])
def test_a_field_captures_under_the_name_given(field: str, text: str, want: str) -> None:
    m = re.fullmatch(field.format("x"), text, re.IGNORECASE)
    assert (m.group("x") if m else None) == want


@pytest.mark.parametrize(("field", "text"), [(DAY_FIELD, "45"), (YEAR_FIELD, "1899"), (YEAR_FIELD, "2100"),
                                             (MONTH_FIELD, "mayday")])
def test_a_field_refuses_what_is_no_date(field: str, text: str) -> None:
    assert re.fullmatch(field.format("x"), text, re.IGNORECASE) is None


def ninth(name: str) -> datetime:
    return datetime(2023, MONTHS[name], 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("name", sorted(MONTHS))
def test_the_extractor_resolves_every_month_spelling(name: str) -> None:
    assert resolve_relative_time(f"on 9 {name.title()} 2023", NOW) == ninth(name)


@pytest.mark.parametrize("name", sorted(MONTHS))
def test_recall_names_the_same_day_for_every_month_spelling(name: str) -> None:
    assert named_windows(f"on 9 {name.title()} 2023", NOW) == ((ninth(name), ninth(name) + timedelta(days=1)),)
