"""``text.dates.named_windows``: the stretches of time a query names, as UTC windows."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.retrieval.signals import in_windows
from nova_memory_integrations.text.dates import named_windows

NOW = datetime(2026, 11, 27, 15, 30, tzinfo=timezone.utc)  # a Friday


@pytest.fixture()
def local_plus_14(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local zone set to UTC+14 (a POSIX rule: no tz database needed)."""
    monkeypatch.setenv("TZ", "XXX-14")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def day(y: int, m: int, d: int, days: int = 1) -> tuple[datetime, datetime]:
    start = datetime(y, m, d, tzinfo=timezone.utc)
    return start, start + timedelta(days=days)


def month(y: int, m: int) -> tuple[datetime, datetime]:
    start = datetime(y, m, 1, tzinfo=timezone.utc)
    return start, datetime(y + m // 12, m % 12 + 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("text", [
    "What did Nate do for Joanna on 25 May, 2022?",
    "on 25 May 2022",
    "on the 25th of May, 2022",
    "on May 25, 2022",
    "on May 25th 2022",
    "on 2022-05-25",
    "ON 25 MAY 2022",
])
def test_a_day_in_any_common_spelling(text: str) -> None:
    assert named_windows(text, NOW) == (day(2022, 5, 25),)


@pytest.mark.parametrize(("text", "expected"), [
    ("What did Joanna accomplish in January 2022?", month(2022, 1)),
    ("Was the first half of September 2022 a good month?", month(2022, 9)),
    ("in Sept. 2023", month(2023, 9)),
    ("in December 2023", month(2023, 12)),
])
def test_a_month_with_its_year(text: str, expected: tuple[datetime, datetime]) -> None:
    assert named_windows(text, NOW) == (expected,)


def test_a_span_between_two_days_takes_the_second_days_year() -> None:
    assert named_windows("Where was John between August 11 and August 15 2023?", NOW) == (day(2023, 8, 11, 5),)


def test_a_span_from_one_day_to_another() -> None:
    assert named_windows("from 3 June to 9 June 2023", NOW) == (day(2023, 6, 3, 7),)


def test_two_days_without_between_are_two_windows() -> None:
    assert named_windows("on 3 June 2023 and 9 June 2023", NOW) == (day(2023, 6, 3), day(2023, 6, 9))


def test_a_span_running_backwards_is_two_days() -> None:
    assert named_windows("between 9 June 2023 and 3 June 2023", NOW) == (day(2023, 6, 9), day(2023, 6, 3))


def test_a_day_without_a_year_is_the_latest_not_after_now() -> None:
    assert named_windows("what did I say on May 3?", NOW) == (day(2026, 5, 3),)


def test_a_day_later_in_the_year_than_now_is_last_years() -> None:
    assert named_windows("on December 24", NOW) == (day(2025, 12, 24),)


@pytest.mark.parametrize("text", [
    "May I ask you something?",
    "What did we plan for 2022?",
    "in 2022",
    "on 31 February 2023",
    "the 2023-13-01 build",
    "I ran 25 miles",
    "I may 5x the dose",
    "we jun 3 times",
    "",
])
def test_no_window_where_no_date_is_named(text: str) -> None:
    assert named_windows(text, NOW) == ()


@pytest.mark.parametrize(("text", "expected"), [
    ("what did I say today?", day(2026, 11, 27)),
    ("what did I say yesterday?", day(2026, 11, 26)),
    ("three days ago", day(2026, 11, 24)),
    ("3 days ago", day(2026, 11, 24)),
    ("a day ago", day(2026, 11, 26)),
    ("a couple of days ago", day(2026, 11, 25)),
    ("ten days ago", day(2026, 11, 17)),
    ("a few weeks ago", day(2026, 11, 3, 7)),
    ("two weeks ago", day(2026, 11, 10, 7)),
    ("this week", day(2026, 11, 23, 7)),
    ("last week", day(2026, 11, 16, 7)),
    ("this month", month(2026, 11)),
    ("last month", month(2026, 10)),
])
def test_relative_to_now(text: str, expected: tuple[datetime, datetime]) -> None:
    assert named_windows(text, NOW) == (expected,)


def test_last_month_in_january_is_last_years_december() -> None:
    assert named_windows("last month", datetime(2027, 1, 10, tzinfo=timezone.utc)) == (month(2026, 12),)


def test_a_naive_now_counts_as_utc() -> None:
    assert named_windows("yesterday", NOW.replace(tzinfo=None)) == (day(2026, 11, 26),)


def test_now_in_another_zone_counts_in_utc(local_plus_14: None) -> None:
    # 00:30 on the 28th in UTC+2 is still the 27th in UTC (and the 28th in the local zone)
    plus2 = timezone(timedelta(hours=2))
    assert named_windows("today", datetime(2026, 11, 28, 0, 30, tzinfo=plus2)) == (day(2026, 11, 27),)


def test_the_same_day_named_twice_is_one_window() -> None:
    assert named_windows("on 25 May 2022, yes, May 25, 2022", NOW) == (day(2022, 5, 25),)


def test_windows_keep_the_order_they_are_named_in() -> None:
    assert named_windows("in June 2023 or on 2 May 2023", NOW) == (month(2023, 6), day(2023, 5, 2))


def test_a_moment_at_the_start_of_a_window_is_inside() -> None:
    assert in_windows(datetime(2022, 5, 25, tzinfo=timezone.utc), [day(2022, 5, 25)])


def test_a_moment_at_the_end_of_a_window_is_outside() -> None:
    assert not in_windows(datetime(2022, 5, 26, tzinfo=timezone.utc), [day(2022, 5, 25)])


def test_no_moment_is_in_no_window() -> None:
    assert not in_windows(None, [day(2022, 5, 25)])


def test_a_span_then_another_day() -> None:
    assert named_windows("between 1 May and 3 May 2023, and on 9 May 2023", NOW) == (
        day(2023, 5, 1, 3), day(2023, 5, 9))


def test_a_day_then_a_span() -> None:
    assert named_windows("on 9 May 2023, and between 1 May and 3 May 2023", NOW) == (
        day(2023, 5, 9), day(2023, 5, 1, 3))


def test_a_span_without_years_counts_from_now() -> None:
    assert named_windows("between May 1 and May 3", NOW) == (day(2026, 5, 1, 3),)


def test_a_span_without_years_takes_the_years_of_its_end() -> None:
    # the latest 3 May not after 2 May 2026 is 3 May 2025, and the span starts that year too
    assert named_windows("between May 1 and May 3", datetime(2026, 5, 2, tzinfo=timezone.utc)) == (
        day(2025, 5, 1, 3),)


def test_a_span_across_new_year() -> None:
    assert named_windows("between December 30 and January 2", NOW) == (
        (datetime(2025, 12, 30, tzinfo=timezone.utc), datetime(2026, 1, 3, tzinfo=timezone.utc)),)


def test_a_span_from_a_month_to_a_day_in_it() -> None:
    assert named_windows("between June 2023 and 10 June 2023", NOW) == (day(2023, 6, 1, 10),)


def test_a_span_one_day_backwards_is_two_days() -> None:
    assert named_windows("between 3 June 2023 and 2 June 2023", NOW) == (day(2023, 6, 3), day(2023, 6, 2))


def test_a_span_of_iso_dates() -> None:
    assert named_windows("between 2023-05-01 and 2023-05-03", NOW) == (day(2023, 5, 1, 3),)


def test_an_iso_date_then_another_date() -> None:
    assert named_windows("on 2023-05-01 and on 3 May 2023", NOW) == (day(2023, 5, 1), day(2023, 5, 3))


@pytest.mark.parametrize(("text", "expected"), [
    ("2023-01-15", day(2023, 1, 15)),
    ("2023-12-15", day(2023, 12, 15)),
    ("on 1 May 2023", day(2023, 5, 1)),
    ("on 31 May 2023", day(2023, 5, 31)),
])
def test_the_first_and_last_month_and_day(text: str, expected: tuple[datetime, datetime]) -> None:
    assert named_windows(text, NOW) == (expected,)


def test_a_day_zero_is_skipped_and_the_next_date_still_read() -> None:
    assert named_windows("on 0 May 2023 or on 3 May 2023", NOW) == (day(2023, 5, 3),)


def test_a_month_zero_is_skipped_and_the_next_date_still_read() -> None:
    assert named_windows("on 2023-00-10 or on 3 May 2023", NOW) == (day(2023, 5, 3),)


def test_a_day_without_a_year_that_is_today_is_this_years() -> None:
    assert named_windows("on November 27", NOW) == (day(2026, 11, 27),)


def test_a_day_without_a_year_that_starts_now_is_this_years() -> None:
    assert named_windows("on November 27", datetime(2026, 11, 27, tzinfo=timezone.utc)) == (day(2026, 11, 27),)


def test_today_starts_at_midnight_whatever_the_seconds() -> None:
    assert named_windows("today", datetime(2026, 11, 27, 15, 30, 45, 123456, tzinfo=timezone.utc)) == (
        day(2026, 11, 27),)


def test_a_naive_now_is_utc_whatever_the_local_zone(local_plus_14: None) -> None:
    # 05:00 read as local (UTC+14) would be 15:00 on the 26th
    assert named_windows("today", datetime(2026, 11, 27, 5, 0)) == (day(2026, 11, 27),)


def test_a_span_whose_end_is_no_day_leaves_its_start() -> None:
    assert named_windows("between May 1 and February 30", NOW) == (day(2026, 5, 1),)


def test_a_backwards_span_without_years_is_two_days_not_a_year() -> None:
    assert named_windows("between May 3 and May 1", NOW) == (day(2026, 5, 3), day(2026, 5, 1))


@pytest.mark.parametrize("text", ["on 2023-13-01", "on 2023-06-31", "on 32 May 2023", "on May 0, 2023"])
def test_a_day_that_does_not_exist_names_no_window(text: str) -> None:
    assert named_windows(text, NOW) == ()


def test_a_span_ending_on_new_years_eve_keeps_its_year() -> None:
    # the latest 31 December not after 27 Nov 2026 is in 2025; the span ends at midnight, 2026
    assert named_windows("between December 30 and December 31", NOW) == (day(2025, 12, 30, 2),)


def test_a_span_across_new_year_with_both_years() -> None:
    assert named_windows("between 30 December 2022 and 2 January 2023", NOW) == (
        (datetime(2022, 12, 30, tzinfo=timezone.utc), datetime(2023, 1, 3, tzinfo=timezone.utc)),)


@pytest.mark.parametrize(("text", "expected"), [
    ("what did i say on may 3 2026", day(2026, 5, 3)),
    ("what did I say on May 3", day(2026, 5, 3)),
    ("what did i say on june 3", day(2026, 6, 3)),
])
def test_a_lower_case_month_counts_with_a_year_or_when_it_is_no_word(
        text: str, expected: tuple[datetime, datetime]) -> None:
    assert named_windows(text, NOW) == (expected,)


def test_a_month_word_taken_for_a_word_leaves_the_dates_after_it() -> None:
    assert named_windows("I may 2 of them return on June 3", NOW) == (day(2026, 6, 3),)
