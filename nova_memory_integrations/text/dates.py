"""Dates in text: the instant a statement names, and the stretches of time a query names.

Two readers share one vocabulary (:data:`MONTHS`, :data:`NUMBER_WORDS`, :data:`WORD_MONTHS`
and the :data:`MONTH_FIELD` / :data:`DAY_FIELD` / :data:`YEAR_FIELD` patterns), so the
extractor and recall read "25 May 2022" or "may 5" alike:

* :func:`resolve_relative_time` (the extractors' ``valid_from``, the time notes of recall's
  context) resolves the one time expression of a sentence to a day.
* :func:`named_windows` (recall's dated signal) turns a query into half-open ``[start, end)``
  windows of event time.

Pure functions over timezone-aware UTC datetimes; nothing here reads a clock.

**One instant.** :func:`resolve_relative_time` turns phrases such as ``"yesterday"``,
``"three weeks ago"``, ``"last Monday"``, ``"since 2019"``, ``"in March"`` or ``"on 3 May
2023"`` into a timezone-aware UTC datetime, resolved against a reference time (normally the
timestamp of the turn the phrase came from):

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

**Windows.** :func:`named_windows` reads "on 25 May, 2022", "in January 2022", "between
August 11 and August 15 2023", "yesterday", "last week"; recall then looks for turns whose
event time falls inside one (``retrieval/signals.dated``). Days are UTC days: the store knows
no user's time zone. Recognised, case-insensitive:

- a day: ``25 May 2022``, ``25th of May, 2022``, ``May 25, 2022``, ``May 25th 2022``,
  ``2022-05-25``; without a year (``on May 25``) the latest such day not after ``now``, but
  not a lower-case month name that is also a word (``may 5``: :data:`WORD_MONTHS`);
- a month: ``May 2022``, ``Sept. 2023`` (a month name alone is not a date: "May I ...");
- a span between two of those: ``between August 11 and August 15 2023``, ``from 3 to 9 June
  2023`` is not (a bare day number is no date), ``from 3 June to 9 June 2023`` is; the first
  takes the second's year, or the year before when that would put it after the second
  (``between December 30 and January 2``);
- relative to ``now``: ``today``, ``yesterday``, ``N days ago``, ``N weeks ago`` (N in digits
  or words, ``a couple of``, ``a few``: :data:`NUMBER_WORDS`), ``this week`` / ``last week``
  (weeks start on Monday), ``this month`` / ``last month``.

A year alone ("in 2022") names no window: over a year of history it would single out
nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ..errors import InvalidInputError

__all__ = [
    "CALENDAR_NAMES", "DAY_FIELD", "MONTHS", "MONTH_FIELD", "NUMBER_WORDS", "TIME_EXPRESSION", "WORD_MONTHS",
    "YEAR_FIELD", "Window", "named_windows", "resolve_ahead", "resolve_relative_time",
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
CALENDAR_NAMES = frozenset({*tuple(MONTHS)[:12], *_WEEKDAYS, "christmas", "easter"})  # MONTHS: whole names first
"""Months, weekdays and the two feasts by their whole names (lower case): capitalised words that name a time,
never a place, a person or a firm ("in June", "at Easter")."""

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
``MONTH_FIELD.format(name)``; :func:`resolve_relative_time` and :func:`named_windows` read dates alike."""
DAY_FIELD = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
"""A day of the month, with an optional ordinal suffix ("25th"), captured like :data:`MONTH_FIELD`."""
YEAR_FIELD = r"(?P<{}>(?:19|20)\d\d)"
"""A four-digit year from 1900 to 2099, captured like :data:`MONTH_FIELD`."""
_NUMBER = r"\d{1,3}|" + "|".join(re.escape(w) for w in sorted(NUMBER_WORDS, key=len, reverse=True))
"""A count in digits (up to three) or words ("a couple of", "twelve"), longest words first."""
WORD_MONTHS = frozenset({"may", "mar", "jan", "jun", "jul", "aug", "sep", "oct", "nov", "dec"})
"""Month names that are also (or start) ordinary words: in lower case and without a year ("I may
5x it"), they are not taken for a month."""


# -- one instant -----------------------------------------------------------------------------------
_MON = MONTH_FIELD.format("mon")
_DAY = DAY_FIELD.format("day")
_YEAR = YEAR_FIELD.format("year")
_NUM = rf"(?P<num>{_NUMBER})"

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


# -- windows ---------------------------------------------------------------------------------------
Window = tuple[datetime, datetime]
"""A half-open ``[start, end)`` stretch of time, UTC."""

_FORMS = (  # the fields resolve_relative_time reads too: recall and extraction read dates alike
    rf"(?P<iso>{YEAR_FIELD.format('iy')}-(?P<im>[01]\d)-(?P<id>[0-3]\d))",
    rf"(?P<dmy>{DAY_FIELD.format('a_d')}(?:\s+of)?\s+{MONTH_FIELD.format('a_m')}(?:,?\s+{YEAR_FIELD.format('a_y')})?)",
    rf"(?P<mdy>{MONTH_FIELD.format('b_m')}\s+{DAY_FIELD.format('b_d')}(?!\d)(?:,?\s+{YEAR_FIELD.format('b_y')})?)",
    rf"(?P<my>{MONTH_FIELD.format('c_m')},?\s+{YEAR_FIELD.format('c_y')})",
)
_DATE = re.compile(r"\b(?:" + "|".join(_FORMS) + r")\b", re.IGNORECASE)
_JOIN = re.compile(r"^\s*(?:and|to|until|till|through|-|–)\s*$", re.IGNORECASE)
_OPEN = re.compile(r"\b(?:between|from)\s*$", re.IGNORECASE)
_RELATIVE = re.compile(
    rf"\b(?:(?P<today>today)|(?P<yesterday>yesterday)|(?P<n>{_NUMBER})\s+(?P<unit>days?|weeks?)\s+ago"
    r"|(?P<which>this|last)\s+(?P<span>week|month))\b",
    re.IGNORECASE)


@dataclass(frozen=True)
class _Mention:
    start: int
    end: int
    year: int | None
    month: int
    day: int | None

    def window(self, year: int) -> Window | None:
        """The day or month this mention names in ``year`` (None: no such day or month)."""
        try:
            first = datetime(year, self.month, 1 if self.day is None else self.day, tzinfo=timezone.utc)
        except ValueError:
            return None
        if self.day is not None:
            return first, first + timedelta(days=1)
        return first, _next_month(first)


def named_windows(text: str, now: datetime) -> tuple[Window, ...]:
    """The windows ``text`` names, in the order it names them, without repeats (``now``: the
    moment relative phrases and year-less dates count from; naive means UTC)."""
    now = now.replace(tzinfo=timezone.utc) if now.tzinfo is None else now.astimezone(timezone.utc)
    mentions = _mentions(text)
    out: list[Window] = []
    skip: set[int] = set()
    for n, m in enumerate(mentions):
        if n in skip:
            continue
        after = mentions[n + 1] if n + 1 < len(mentions) else None
        if (after is not None and _JOIN.match(text[m.end:after.start])
                and _OPEN.search(text[:m.start])):  # "between A and B": one span
            last = _resolve(after, now)
            wraps = m.year is None and m.month > after.month  # "between December 30 and January 2"
            first = (m.window(m.year if m.year is not None else last[0].year - wraps)
                     if last is not None else None)
            if first is not None and last is not None and first[0] < last[1]:
                out.append((first[0], last[1]))
                skip.add(n + 1)
                continue
        if (w := _resolve(m, now)) is not None:
            out.append(w)
    out += _relative(text, now)
    return tuple(dict.fromkeys(out))


def _mentions(text: str) -> list[_Mention]:
    out: list[_Mention] = []
    for m in _DATE.finditer(text):
        g = m.groupdict()
        if g["iso"]:  # a day that does not exist (month 13, 31 June) names no window (_Mention.window)
            out.append(_Mention(m.start(), m.end(), int(g["iy"]), int(g["im"]), int(g["id"])))
            continue
        prefix = "a" if g["dmy"] else "b" if g["mdy"] else "c"
        day, name, year = g.get(f"{prefix}_d"), g[f"{prefix}_m"], g[f"{prefix}_y"]
        if not year and name.islower() and name in WORD_MONTHS:
            continue  # "I may 5x it", as the extractor reads it
        out.append(_Mention(m.start(), m.end(), int(year) if year else None, MONTHS[name.casefold()],
                            int(day) if day is not None else None))
    return out


def _resolve(m: _Mention, now: datetime) -> Window | None:
    """``m``'s window: in its own year, else the latest one not after ``now``."""
    if m.year is not None:
        return m.window(m.year)
    for y in (now.year, now.year - 1):
        w = m.window(y)
        if w is not None and w[0] <= now:
            return w
    return None


def _relative(text: str, now: datetime) -> list[Window]:
    today = _midnight(now)
    out: list[Window] = []
    for m in _RELATIVE.finditer(text):
        if m["today"]:
            out.append((today, today + timedelta(days=1)))
        elif m["yesterday"]:
            out.append((today - timedelta(days=1), today))
        elif m["unit"]:
            n = int(m["n"]) if m["n"].isdigit() else NUMBER_WORDS[" ".join(m["n"].casefold().split())]
            if m["unit"].casefold().startswith("day"):
                day = today - timedelta(days=n)
                out.append((day, day + timedelta(days=1)))
            else:  # "two weeks ago": the seven days around that day
                day = today - timedelta(weeks=n)
                out.append((day - timedelta(days=3), day + timedelta(days=4)))
        elif m["span"].casefold() == "week":
            monday = today - timedelta(days=today.weekday())
            out.append((monday, monday + timedelta(days=7)) if m["which"].casefold() == "this"
                       else (monday - timedelta(days=7), monday))
        else:
            first = today.replace(day=1)
            out.append((first, _next_month(first)) if m["which"].casefold() == "this"
                       else ((first - timedelta(days=1)).replace(day=1), first))
    return out


def _next_month(first: datetime) -> datetime:
    """The first day of the month after that of ``first`` (itself the first day of a month)."""
    return first.replace(year=first.year + first.month // 12, month=first.month % 12 + 1)


_AHEAD_RE = re.compile(
    r"\b(?:(?P<end>end of (?:the month|(?P<emon>" + _MONTH_ALT + r")))|(?P<mon>" + _MONTH_ALT + r") "
    r"(?P<day>\d{1,2})(?:st|nd|rd|th)?\b|(?:the )?(?P<day2>\d{1,2})(?:st|nd|rd|th)?(?: of)? (?P<mon2>"
    + _MONTH_ALT + r")\b|(?:the )?(?P<day3>\d{1,2})(?:st|nd|rd|th)\b|(?P<wd>" + _WEEKDAY_ALT + r")\b)",
    re.IGNORECASE)


def resolve_ahead(text: str, reference: datetime) -> datetime | None:
    """The first date ``text`` names on or after ``reference``'s day (a day told ahead: "last day is Friday the
    29th", "my lease is up on June 30", "ends may 31", "end of June", "on the 30th"), or ``None``. A month day
    without a month is the next such day; a weekday alone the next such weekday; "end of <month>" its last day."""
    today = _midnight(reference)
    weekday: datetime | None = None  # "Friday the 29th": the day of the month decides
    for m in _AHEAD_RE.finditer(text):
        if m["end"]:
            month = MONTHS[m["emon"].lower().rstrip(".")] if m["emon"] else today.month
            year = today.year + (1 if month < today.month else 0)
            return _next_month(today.replace(year=year, month=month, day=1)) - timedelta(days=1)
        if m["mon"] or m["mon2"]:
            mon, day = (m["mon"], m["day"]) if m["mon"] else (m["mon2"], m["day2"])
            if mon.lower() in WORD_MONTHS and not mon[0].isupper() and m["mon"] and not re.search(
                    r"\b(?:ends?|up|until|on|by|expires?)\s+$", text[:m.start()], re.IGNORECASE):
                continue  # "may 5" as a modal verb, unless a date is clearly meant ("ends may 31")
            month = MONTHS[mon.lower().rstrip(".")]
            found = _date(today.year, month, int(day))
            if found is not None and found < today:
                found = _date(today.year + 1, month, int(day))
            if found is not None:
                return found
            continue
        if m["day3"]:
            day = int(m["day3"])
            for k in range(0, 3):
                month = (today.month - 1 + k) % 12 + 1
                found = _date(today.year + (today.month - 1 + k) // 12, month, day)
                if found is not None and found >= today:
                    return found
            continue
        if m["wd"] and weekday is None:
            weekday = today + timedelta(days=(_WEEKDAYS[m["wd"].lower()] - today.weekday()) % 7 or 7)
    return weekday

