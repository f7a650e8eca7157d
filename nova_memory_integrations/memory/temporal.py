"""Pure functions of bi-temporal fact maintenance: no storage, no clocks.

They decide *what* changes when a statement arrives; :mod:`facts` applies the plan to
storage. All datetimes are timezone-aware UTC.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Literal

__all__ = [
    "Interval",
    "Plan",
    "Retraction",
    "decayed_confidence",
    "expiry_ahead",
    "normalize_value",
    "plan_assertion",
    "plan_negation",
    "plan_retraction",
    "reinforced_confidence",
]

_EXPIRY = re.compile(
    r"\b(?:runs? out|ends?|expires?|is up|finish(?:es)?|last day (?:is|will be))\b"  # present tense: ahead
    r"[^.;!?]{0,30}?\b(?:on |by )?(?:the )?(?:(?P<day>\d{1,2})(?:st|nd|rd|th)\b|(?P<end>end of (?:the|this) month)\b)",
    re.IGNORECASE)
_ARTICLES = re.compile(r"^(?:the|a|an|my|our)\s+")
_PUNCT = re.compile(r"[^\w\s+#.-]")
_SPACES = re.compile(r"\s+")


def normalize_value(text: str) -> str:
    """Normalise an entity or object for comparison (case, accents, punctuation, articles)."""
    s = unicodedata.normalize("NFKC", text).casefold().strip()
    s = _PUNCT.sub(" ", s)
    s = _SPACES.sub(" ", s).strip(" .-")
    s = _ARTICLES.sub("", s)
    return s


def reinforced_confidence(current: float, *, rate: float, cap: float) -> float:
    """Confidence after one more observation: closes ``rate`` of the gap to ``cap``."""
    current = min(current, cap)
    return min(cap, current + (cap - current) * rate)


def decayed_confidence(confidence: float, *, age_days: float, half_life_days: float) -> float:
    """Passive decay at read time: halves every ``half_life_days`` since last reinforced."""
    if age_days <= 0:
        return confidence
    return confidence * math.pow(0.5, age_days / half_life_days)


@dataclass(frozen=True)
class Interval:
    """An existing fact version's identity and event-time validity."""

    id: str
    object_norm: str
    valid_from: datetime
    valid_to: datetime | None


@dataclass(frozen=True)
class Plan:
    """What to do with one incoming statement.

    ``close`` maps existing fact ids to their new ``valid_to``; ``new_valid_to`` bounds
    the added fact when it is older than a fact already known (out-of-order arrival).
    """

    op: Literal["ADD", "UPDATE", "DELETE", "NOOP"]
    reason: str
    reinforce_id: str | None = None
    close: dict[str, datetime] = field(default_factory=dict)
    new_valid_to: datetime | None = None
    add: bool = False


def _overlaps_from(iv: Interval, at: datetime) -> bool:
    return iv.valid_to is None or iv.valid_to > at


def plan_assertion(
    object_norm: str, at: datetime, existing: Sequence[Interval], *, single_valued: bool
) -> Plan:
    """Plan for "subject predicate object holds from ``at``".

    ``existing`` are the current-belief versions with the same subject and predicate.
    A repeat of a fact valid at ``at`` is reinforced (NOOP). For a single-valued
    predicate a different object closes the older value at ``at`` (UPDATE); when the
    newcomer predates a known value (another one, or the same one stated from a later
    time) it is added as history, ending where that one starts: never two open versions.
    """
    for iv in existing:
        if iv.object_norm == object_norm and iv.valid_from <= at and _overlaps_from(iv, at):
            return Plan("NOOP", "repeat of a fact already valid; reinforced", reinforce_id=iv.id)
    if not single_valued:
        for iv in existing:  # same value known from later: extend back in time rather than duplicate
            if iv.object_norm == object_norm and iv.valid_from > at and iv.valid_to is None:
                return Plan("NOOP", "same value already known from a later time; reinforced", reinforce_id=iv.id)
        return Plan("ADD", "new value of a multi-valued predicate", add=True)
    close: dict[str, datetime] = {}
    new_valid_to: datetime | None = None
    for iv in existing:
        if not _overlaps_from(iv, at) or (iv.object_norm == object_norm and iv.valid_from <= at):
            continue
        if iv.valid_from <= at:
            close[iv.id] = at
        elif new_valid_to is None or iv.valid_from < new_valid_to:
            new_valid_to = iv.valid_from
    if close:
        return Plan("UPDATE", "single-valued predicate: new value supersedes the old one", close=close, add=True,
                    new_valid_to=new_valid_to)
    if new_valid_to is not None:
        return Plan("ADD", "older value learnt after a newer one: kept as history", add=True, new_valid_to=new_valid_to)
    return Plan("ADD", "new fact", add=True)


def plan_negation(object_norm: str | None, at: datetime, existing: Sequence[Interval]) -> Plan:
    """Plan for "subject predicate object no longer holds from ``at``".

    ``object_norm=None`` negates every current value of the predicate. Matching facts
    get their validity closed at ``at`` (DELETE); nothing is removed.
    """
    close = {
        iv.id: max(at, iv.valid_from)
        for iv in existing
        if (object_norm is None or iv.object_norm == object_norm) and _overlaps_from(iv, at)
    }
    if close:
        return Plan("DELETE", "statement says the fact no longer holds; validity closed", close=close)
    return Plan("NOOP", "negation of a fact that is not currently held")


@dataclass(frozen=True)
class Retraction:
    """What to do when a value is corrected: it was never true, the corrected one held instead.

    ``expire`` are the believed versions of the wrong value (belief ends now; no closed copy is
    kept, so the latest belief never shows it valid, while ``known_at`` before still does);
    ``rebase`` are versions of the corrected value that start later than the wrong one did
    (replaced by one version from ``valid_from``); ``add`` inserts that version, unless
    ``reinforce_id`` already covers the start.
    """

    op: Literal["UPDATE", "NOOP"]
    reason: str
    expire: tuple[str, ...] = ()
    rebase: tuple[str, ...] = ()
    add: bool = False
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    reinforce_id: str | None = None


def plan_retraction(wrong: Sequence[Interval], corrected: Sequence[Interval], at: datetime) -> Retraction:
    """Plan for "the value of ``wrong`` was a mistake; it is the value of ``corrected``", said at ``at``.

    ``wrong`` are the believed versions of the mistaken value's lineage; ``corrected`` the believed
    versions of the same subject and predicate holding the corrected value (often the one the same
    message just added from ``at``). The corrected value takes the wrong one's ``valid_from``; it
    ends where the wrong one had ended before ``at`` (a closing at ``at`` itself was the mistaken
    supersession), else stays open. Nothing is deleted: versions are expired.
    """
    if not wrong:
        return Retraction("NOOP", "nothing believed to correct")
    start = min(iv.valid_from for iv in wrong)
    ends = [iv.valid_to for iv in wrong]
    closed = [e for e in ends if e is not None]
    end = max(closed) if closed and len(closed) == len(ends) and max(closed) < at else None
    expire = tuple(iv.id for iv in wrong)
    covering = [iv for iv in corrected if iv.valid_from <= start and _overlaps_from(iv, start)]
    if covering:
        return Retraction("UPDATE", "corrected: the old value was never true; the corrected one already held",
                          expire=expire, reinforce_id=covering[0].id)
    later = [iv for iv in corrected if iv.valid_from > start]
    if later and end is None and any(iv.valid_to is not None for iv in later):
        closed_later = [iv.valid_to for iv in later if iv.valid_to is not None]
        end = max(closed_later) if len(closed_later) == len(later) else None
    return Retraction("UPDATE", "corrected: the old value was never true; the corrected one holds from its start",
                      expire=expire, rebase=tuple(iv.id for iv in later), add=True, valid_from=start, valid_to=end)


def expiry_ahead(text: str, now: datetime) -> datetime | None:
    """The day ahead of ``now`` on which ``text`` says a state runs out ("my lease *is up on the 30th*", "the
    membership *runs out at the end of the month*"): that day-of-month this month, else next month; ``None``
    when the text names no such day. An ending said now but dated ahead holds until then."""
    m = _EXPIRY.search(text)
    if m is None:
        return None
    start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if m.group("end"):
        nxt = (start.replace(day=28) + timedelta(days=4)).replace(day=1)
        return nxt - timedelta(days=1)
    day = int(m.group("day"))
    for months in (0, 1, 2):
        year, month = start.year + (start.month - 1 + months) // 12, (start.month - 1 + months) % 12 + 1
        try:
            when = start.replace(year=year, month=month, day=day)
        except ValueError:  # no such day that month ("the 31st" in June)
            continue
        if when > now:
            return when
    return None
