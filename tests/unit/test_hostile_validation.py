"""Hostile input at the validation boundary (#20): time range, nesting, huge counts, junk types."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nova_memory_integrations._time import EARLIEST, LATEST, from_epoch
from nova_memory_integrations.config import LimitsConfig
from nova_memory_integrations.engine.validation import (
    KINDS,
    MAX_K,
    MAX_METADATA_DEPTH,
    SESSION_ID,
    K,
    check_kinds,
    check_metadata,
    check_positive_int,
    check_timestamp,
    check_turn,
    checked_arguments,
    printable,
)
from nova_memory_integrations.errors import InvalidInputError, NovaMemoryError

LIMITS = LimitsConfig()
NOW = datetime(2024, 5, 1, tzinfo=timezone.utc)
PLUS5, MINUS5 = timezone(timedelta(hours=5)), timezone(timedelta(hours=-5))


def field_of(call: Any) -> str | None:
    with pytest.raises(InvalidInputError) as info:
        call()
    return info.value.field


@pytest.mark.parametrize("value", [
    datetime(1, 1, 1, tzinfo=timezone.utc),
    datetime(9999, 12, 31, 23, 59, tzinfo=timezone.utc),
    datetime(1, 1, 1, tzinfo=PLUS5),  # its UTC equivalent does not exist (OverflowError before)
    datetime.max.replace(tzinfo=MINUS5),  # idem, past year 9999
    "9999-12-31T23:00:00-05:00",
    "0001-01-01T00:00:00+00:00",
    EARLIEST - timedelta(microseconds=1),
    LATEST,
])
def test_timestamps_outside_the_safe_range_are_refused_with_the_field(value: object) -> None:
    for field in ("timestamp", "as_of", "since", "until", "valid_from", "known_at"):
        assert field_of(lambda field=field: check_timestamp(value, field)) == field


def test_the_range_bounds() -> None:
    assert check_timestamp(EARLIEST) == EARLIEST
    assert check_timestamp(LATEST - timedelta(microseconds=1)) == LATEST - timedelta(microseconds=1)
    assert EARLIEST.year <= 1900 and LATEST.year >= 2200  # at least the range the issue asks for


def test_a_turn_stamped_near_year_one_is_refused() -> None:
    turn = {"user_id": "u", "role": "user", "content": "hi", "timestamp": datetime(1, 1, 1, tzinfo=timezone.utc)}
    assert field_of(lambda: check_turn(turn, LIMITS, NOW)) == "timestamp"


@given(st.datetimes(timezones=st.timezones() | st.just(timezone.utc)))
@settings(max_examples=200, deadline=None)
def test_any_aware_datetime_is_accepted_in_range_or_refused_typed(value: datetime) -> None:
    try:
        out = check_timestamp(value)
    except NovaMemoryError:
        return
    assert out is not None and EARLIEST <= out < LATEST and from_epoch(out.timestamp()) == out


@pytest.mark.parametrize("stored", [1e20, -1e20, float("nan"), float("inf"), "soon", b"x", True, -62135596800.0])
def test_stored_times_that_are_no_times_raise_value_error(stored: object) -> None:
    with pytest.raises(ValueError):
        from_epoch(stored)  # type: ignore[arg-type]


def _nested(depth: int) -> dict[str, Any]:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return {"deep": value}


def test_deeply_nested_metadata_is_refused_not_a_recursion_error() -> None:
    assert field_of(lambda: check_metadata(_nested(100_000), LIMITS)) == "metadata"
    with pytest.raises(InvalidInputError, match=f"deeper than {MAX_METADATA_DEPTH}"):
        check_metadata(_nested(MAX_METADATA_DEPTH), LIMITS)
    assert check_metadata(_nested(MAX_METADATA_DEPTH - 1), LimitsConfig(max_metadata_bytes=10_000))


@pytest.mark.parametrize("value", [2**70, 2**63, MAX_K + 1])
def test_huge_counts_are_refused(value: int) -> None:
    assert field_of(lambda: check_positive_int(value, "k", maximum=MAX_K)) == "k"


def test_kinds() -> None:
    assert check_kinds(["fact", "fact", "rule"]) == ("fact", "rule")
    assert check_kinds("episode") == ("episode",)
    for bad in ([], [1], ["memo"], {"a": 1}, 3, None):
        assert field_of(lambda bad=bad: check_kinds(bad)) == "kinds"


def test_printable_strips_controls_and_replaces_surrogates() -> None:
    assert printable("a\x1b[2Jb\x07c\x9bd\x00e\r") == "a[2Jbcde"
    assert printable("tab\tnew\nline") == "tab\tnew\nline"
    assert printable("x\ud800y\uffff") == "x\ufffdy\ufffd"
    assert printable("plain é 漢字 🙂") == "plain é 漢字 🙂"


class _Config:
    limits = LIMITS


@checked_arguments({"read": {"k": K, "session_id": SESSION_ID, "kinds": KINDS}})
class _Facade:
    config = _Config()

    def read(self, user_id: str, k: int = 5, *, session_id: str | None = None,
             kinds: tuple[str, ...] = ("fact",)) -> str:
        return "ok"


@pytest.mark.parametrize("kwargs, field", [
    ({"session_id": {"$ne": ""}}, "session_id"), ({"session_id": 3}, "session_id"), ({"k": 2**70}, "k"),
    ({"k": "5"}, "k"), ({"k": None}, "k"), ({"kinds": None}, "kinds"), ({"kinds": [["fact"]]}, "kinds"),
])
def test_checked_arguments_check_the_declared_parameters(kwargs: dict[str, Any], field: str) -> None:
    assert field_of(lambda: _Facade().read("u", **kwargs)) == field


def test_checked_arguments_check_positional_arguments_too() -> None:
    assert field_of(lambda: _Facade().read("u", float("nan"))) == "k"
    assert _Facade().read("u", 3, session_id=None) == "ok"


def test_a_model_proposed_time_outside_the_range_is_dropped_not_stored() -> None:
    from nova_memory_integrations.extraction.prompts import parse_timestamp

    assert parse_timestamp("0001-01-01T00:00:00+05:00") is None  # OverflowError before
    assert parse_timestamp("9999-12-31") is None
    assert parse_timestamp("2024-05-01") == datetime(2024, 5, 1, tzinfo=timezone.utc)
