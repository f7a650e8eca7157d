"""The stretches of time a query names: "on 25 May, 2022", "in January 2022", "between
August 11 and August 15 2023", "yesterday", "last week".

Pure functions over UTC datetimes. :func:`named_windows` turns a query into half-open
``[start, end)`` windows; recall then looks for turns whose event time falls inside one
(:func:`~.signals.dated`). Days are UTC days: the store knows no user's time zone.

Recognised, case-insensitive:

- a day: ``25 May 2022``, ``25th of May, 2022``, ``May 25, 2022``, ``May 25th 2022``,
  ``2022-05-25``; without a year (``on May 25``) the latest such day not after ``now``, but
  not a lower-case month name that is also a word (``may 5``:
  :data:`~..extraction.timeparse.WORD_MONTHS`);
- a month: ``May 2022``, ``Sept. 2023`` (a month name alone is not a date: "May I ...");
- a span between two of those: ``between August 11 and August 15 2023``, ``from 3 to 9 June
  2023`` is not (a bare day number is no date), ``from 3 June to 9 June 2023`` is; the first
  takes the second's year, or the year before when that would put it after the second
  (``between December 30 and January 2``);
- relative to ``now``: ``today``, ``yesterday``, ``N days ago``, ``N weeks ago`` (N in digits
  or words, ``a couple of``, ``a few``: :data:`~..extraction.timeparse.NUMBER_WORDS`), ``this
  week`` / ``last week`` (weeks start on Monday), ``this month`` / ``last month``.

A year alone ("in 2022") names no window: over a year of history it would single out
nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ..extraction.timeparse import DAY_FIELD, MONTH_FIELD, MONTHS, NUMBER_WORDS, WORD_MONTHS, YEAR_FIELD

__all__ = ["Window", "named_windows"]

Window = tuple[datetime, datetime]
"""A half-open ``[start, end)`` stretch of time, UTC."""

_FORMS = (  # the extractor's fields (timeparse): recall and extraction read dates alike
    rf"(?P<iso>{YEAR_FIELD.format('iy')}-(?P<im>[01]\d)-(?P<id>[0-3]\d))",
    rf"(?P<dmy>{DAY_FIELD.format('a_d')}(?:\s+of)?\s+{MONTH_FIELD.format('a_m')}(?:,?\s+{YEAR_FIELD.format('a_y')})?)",
    rf"(?P<mdy>{MONTH_FIELD.format('b_m')}\s+{DAY_FIELD.format('b_d')}(?!\d)(?:,?\s+{YEAR_FIELD.format('b_y')})?)",
    rf"(?P<my>{MONTH_FIELD.format('c_m')},?\s+{YEAR_FIELD.format('c_y')})",
)
_DATE = re.compile(r"\b(?:" + "|".join(_FORMS) + r")\b", re.IGNORECASE)
_JOIN = re.compile(r"^\s*(?:and|to|until|till|through|-|–)\s*$", re.IGNORECASE)
_OPEN = re.compile(r"\b(?:between|from)\s*$", re.IGNORECASE)
_NUMBER = r"(?P<n>\d{1,3}|" + "|".join(re.escape(w) for w in sorted(NUMBER_WORDS, key=len, reverse=True)) + ")"
_RELATIVE = re.compile(
    rf"\b(?:(?P<today>today)|(?P<yesterday>yesterday)|{_NUMBER}\s+(?P<unit>days?|weeks?)\s+ago"
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
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
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
