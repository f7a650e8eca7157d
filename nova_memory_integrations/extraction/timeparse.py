"""Resolve relative and absolute time expressions in a sentence to a UTC datetime.

:func:`resolve_relative_time` turns phrases such as ``"yesterday"``, ``"three weeks ago"``,
``"last Monday"``, ``"since 2019"``, ``"in March"`` or ``"on 3 May 2023"`` into a
timezone-aware UTC datetime, resolved against a reference time (normally the timestamp
of the turn the phrase came from).

Resolution rules:

* Results are day-granular: the returned datetime is midnight UTC of the resolved day.
* Only past and present expressions are resolved; future expressions ("tomorrow",
  "next week") return ``None`` because they do not date when a fact became true.
* ``"last week"`` is seven days before the reference, ``"last month"`` / ``"last year"``
  the same calendar day one month / year earlier (clamped to the month's end).
* A month without a year (``"in March"``, ``"since January"``, ``"on May 3"``) is the
  most recent such month/day at or before the reference.
* A bare year (``"in 2019"``, ``"since 2019"``) is 1 January of that year.
* When several expressions occur, the most specific wins: explicit dates, then
  ``N units ago``, then named days, then months, then years.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from ..errors import InvalidInputError

__all__ = [
    "DAY_FIELD", "MONTHS", "MONTH_FIELD", "NUMBER_WORDS", "TIME_EXPRESSION", "WORD_MONTHS", "YEAR_FIELD",
    "resolve_relative_time",
]

NUMBER_WORDS: dict[str, int] = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
    "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40,
    "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "a couple of": 2, "a couple": 2, "couple of": 2, "a few": 3, "few": 3,
}

MONTHS: dict[str, int] = {
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6,
    "july": 7, "august": 8, "september": 9, "october": 10, "november": 11,
    "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7,
    "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
}
"""Month names and their usual abbreviations (lower case) -> month number."""
_WEEKDAYS: dict[str, int] = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3, "friday": 4,
    "saturday": 5, "sunday": 6,
}

# A regex (no groups, lowercase/IGNORECASE) matching one time expression, used by extractors to strip
# time phrases from the end of captured objects ("I moved to Denver last month" -> "Denver").
_MONTH_ALT = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|"
    r"jun|jul|aug|sept?|oct|nov|dec)\.?"
)
_WEEKDAY_ALT = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_SEASON_ALT = r"(?:summer|spring|fall|autumn|winter)"
TIME_EXPRESSION = (
    r"(?:(?:a few|a couple of|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple of|\d+) "
    r"(?:days?|weeks?|months?|"
    r"years?) ago|(?:the day before )?yesterday|today|tonight|tomorrow|(?:last|this|next|on) (?:week|month|year|"
    r"night|weekend|morning|evening|" + _SEASON_ALT + "|" + _WEEKDAY_ALT + "|" + _MONTH_ALT + r")|soon|later|"
    r"(?:in|since|from|back in|during|on) (?:the )?(?:\d{1,2}(?:st|nd|rd|th)? (?:of )?)?(?:\d{4}|" + _MONTH_ALT
    + r")(?: \d{1,2}(?:st|nd|rd|th)?)?(?:,? \d{4})?|in (?:the )?" + _SEASON_ALT + r"|for (?:a while|years|ages|"
    r"a long time|(?:about |almost |over |nearly )?\w+ (?:years|months|weeks|days)))"
)

MONTH_FIELD = "(?P<{}>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
"""A month's name or abbreviation, with an optional dot ("Sept."), captured in the group named by
``MONTH_FIELD.format(name)``; the extractor and recall's :mod:`~..retrieval.when` read dates alike."""
DAY_FIELD = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
"""A day of the month, with an optional ordinal suffix ("25th"), captured like :data:`MONTH_FIELD`."""
YEAR_FIELD = r"(?P<{}>(?:19|20)\d\d)"
"""A four-digit year from 1900 to 2099, captured like :data:`MONTH_FIELD`."""
_MON = MONTH_FIELD.format("mon")
_DAY = DAY_FIELD.format("day")
_YEAR = YEAR_FIELD.format("year")
_NUM = r"(?P<num>\d{1,3}|" + "|".join(
    re.escape(w) for w in sorted(NUMBER_WORDS, key=len, reverse=True)
) + r")"

_FLAGS = re.IGNORECASE
_ISO_RE = re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<mon>[01]\d)-(?P<day>[0-3]\d)\b")
_DMY_RE = re.compile(rf"\b{_DAY}(?:\s+of)?\s+{_MON}(?:,?\s+{_YEAR})?\b", _FLAGS)
_MDY_RE = re.compile(rf"\b{_MON}\s+{_DAY}(?:,?\s+{_YEAR})?\b(?!:)", _FLAGS)
_AGO_RE = re.compile(rf"\b{_NUM}\s+(?P<unit>day|week|month|year)s?\s+ago\b", _FLAGS)
_NAMED_RE = re.compile(
    r"\b(?P<what>the day before yesterday|yesterday|today|tonight|this morning"
    r"|this afternoon|this evening|last night|last week|last month|last year)\b",
    _FLAGS,
)
_WEEKDAY_ABBR: dict[str, int] = {
    "mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4, "sat": 5, "sun": 6,
}
_WEEKDAY_RE = re.compile(
    r"\b(?:last|on|this past|past)\s+(?P<wd>" + "|".join(_WEEKDAYS) + r")\b"
    r"|\b(?:last|this past)\s+(?P<abbr>" + "|".join(_WEEKDAY_ABBR) + r")\.?(?!\w)", _FLAGS
)
_MONTH_RE = re.compile(
    rf"\b(?:in|since|during|from|back in|last|this past)\s+(?:early\s+|late\s+|mid\s+)?"
    rf"{_MON}(?:,?\s+{_YEAR})?\b",
    _FLAGS,
)
_YEAR_RE = re.compile(rf"\b(?:in|since|during|from|back in|around|circa)\s+{_YEAR}\b", _FLAGS)
WORD_MONTHS = frozenset({"may", "mar", "jan", "jun", "jul", "aug", "sep", "oct", "nov", "dec"})
"""Month names that are also (or start) ordinary words: in lower case and without a year ("I may
5x it"), they are not taken for a month."""


def _midnight(value: datetime) -> datetime:
    return value.replace(hour=0, minute=0, second=0, microsecond=0)


def _shift_months(value: datetime, months: int) -> datetime:
    """Move ``value`` back by ``months`` calendar months, clamping the day."""
    total = value.year * 12 + (value.month - 1) - months
    year, month = divmod(total, 12)
    month += 1
    for day in (value.day, 30, 29, 28):
        try:
            return value.replace(year=year, month=month, day=day)
        except ValueError:
            continue
    return value.replace(year=year, month=month, day=28)  # pragma: no cover


def _date(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day, tzinfo=timezone.utc)
    except ValueError:
        return None


def _month_day(mon: str, day: str, year: str | None, today: datetime) -> datetime | None:
    month = MONTHS[mon.lower().rstrip(".")]
    if year:
        return _date(int(year), month, int(day))
    found = _date(today.year, month, int(day))
    if found is not None and found > today:
        found = _date(today.year - 1, month, int(day))
    return found


def _explicit_date(text: str, today: datetime) -> datetime | None:
    match = _ISO_RE.search(text)
    if match:
        return _date(int(match["year"]), int(match["mon"]), int(match["day"]))
    for pattern in (_DMY_RE, _MDY_RE):
        for match in pattern.finditer(text):
            mon = match["mon"]
            # "may 5" without a year is too often the modal verb ("I may 5x ...").
            if mon.lower() in WORD_MONTHS and not mon[0].isupper() and not match["year"]:
                continue
            if not 1 <= int(match["day"]) <= 31:
                continue
            return _month_day(mon, match["day"], match["year"], today)
    return None


def _ago(text: str, today: datetime) -> datetime | None:
    match = _AGO_RE.search(text)
    if match is None:
        return None
    raw = match["num"].lower()
    count = int(raw) if raw.isdigit() else NUMBER_WORDS[raw]
    unit = match["unit"].lower()
    if unit == "day":
        return today - timedelta(days=count)
    if unit == "week":
        return today - timedelta(weeks=count)
    if unit == "month":
        return _shift_months(today, count)
    return _shift_months(today, 12 * count)


def _named(text: str, today: datetime) -> datetime | None:
    match = _NAMED_RE.search(text)
    if match is not None:
        what = match["what"].lower()
        if what == "the day before yesterday":
            return today - timedelta(days=2)
        if what in ("yesterday", "last night"):
            return today - timedelta(days=1)
        if what == "last week":
            return today - timedelta(days=7)
        if what == "last month":
            return _shift_months(today, 1)
        if what == "last year":
            return _shift_months(today, 12)
        return today
    weekday = _WEEKDAY_RE.search(text)
    if weekday is not None:
        day = _WEEKDAYS[weekday["wd"].lower()] if weekday["wd"] else _WEEKDAY_ABBR[weekday["abbr"].lower()]
        back = (today.weekday() - day) % 7
        return today - timedelta(days=back or 7)
    return None


def _month_or_year(text: str, today: datetime) -> datetime | None:
    for match in _MONTH_RE.finditer(text):
        mon = match["mon"]
        if mon.lower() == "may" and not mon[0].isupper() and not match["year"]:
            continue  # "in may" is usually the modal verb in lowercase text
        month = MONTHS[mon.lower().rstrip(".")]
        if match["year"]:
            return _date(int(match["year"]), month, 1)
        year = today.year if month <= today.month else today.year - 1
        return _date(year, month, 1)
    bare = _YEAR_RE.search(text)
    if bare is not None:
        year = int(bare["year"])
        return _date(year, 1, 1) if year <= today.year else None
    return None


def resolve_relative_time(text: str, reference: datetime) -> datetime | None:
    """Resolve the time expression in ``text`` against ``reference``.

    Args:
        text: A sentence or phrase, e.g. ``"I moved to Denver last month"``.
        reference: The time the text was said; must be timezone-aware.

    Returns:
        Midnight UTC of the resolved day, or ``None`` when ``text`` carries no
        resolvable past or present time expression.

    Raises:
        InvalidInputError: ``reference`` is naive (a subclass of ``ValueError``).
    """
    if reference.tzinfo is None or reference.tzinfo.utcoffset(reference) is None:
        raise InvalidInputError(
            "reference: naive datetime - pass a timezone-aware value "
            "(e.g. datetime.now(timezone.utc))"
        )
    if not text:
        return None
    today = _midnight(reference.astimezone(timezone.utc))
    for resolver in (_explicit_date, _ago, _named, _month_or_year):
        found = resolver(text, today)
        if found is not None:
            return found if found <= today else None
    return None
