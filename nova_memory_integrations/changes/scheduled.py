"""Endings told ahead, with their day (pure): "Last day is Friday the 29th", "my lease is up on June 30".

A state the speaker says will end on a named day holds until that day: the store believes it until then and
not after (bi-temporal: as of a day before, held; as of a day after, ended; learnt when it was told). Read only
in the speaker's own statement (:data:`ROWS`, each a way of saying it with the category of state it ends), never
in a question, a possibility or a condition, never of someone else ("his lease is up ..."), and only with a
day :func:`~..text.dates.resolve_ahead` finds after the message.

What ends is the one held state of the row's category the sentence names (its words), else the only one of that
category the user holds; nothing when several could be meant.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..text.dates import resolve_ahead
from .guard_words import MODAL_MARKERS
from .planner import Ending
from .segments import segment, words
from .targets import FactInfo, name_evidence

__all__ = ["ROWS", "ScheduledRow", "may_schedule", "scheduled_endings"]

_I = re.IGNORECASE


@dataclass(frozen=True)
class ScheduledRow:
    """One way of telling an ending ahead: its name (in the decision's reason), its words and the category of
    state it ends (:data:`~.lexicon.CATEGORIES`)."""

    name: str
    pattern: re.Pattern[str]
    category: str


ROWS: tuple[ScheduledRow, ...] = (
    ScheduledRow("last day", re.compile(r"\b(?:my )?(?:last|final) (?:day|shift)(?: at [\w' &-]+?)? "
                                        r"(?:is|will be|'s)\b", _I), "job"),
    ScheduledRow("notice ends", re.compile(r"\bmy notice (?:period )?(?:ends|runs out|is up)\b", _I), "job"),
    ScheduledRow("lease ends", re.compile(r"\b(?:my|our) (?:lease|tenancy|rental contract)\b[^.!?]{0,50}?\b(?:ends|"
                                          r"is up|runs out|expires|finishes)\b", _I), "home"),
    ScheduledRow("contract ends", re.compile(r"\b(?:my|our) [\w'+ -]{0,30}?\b(?:contract|membership|subscription)\b"
                                             r"[^.!?]{0,30}?\b(?:ends|is up|runs out|expires|finishes)\b", _I),
                 "membership"),
)
"""The ways of telling an ending ahead that are read."""

_NOT_TOLD = re.compile("|".join((*MODAL_MARKERS, r"\bif\b", r"\bunless\b", r"\bnot\b", r"n't\b")), _I)


def may_schedule(text: str) -> bool:
    """Cheap test: whether ``text`` may tell an ending ahead (only then are facts read)."""
    return any(row.pattern.search(text) for row in ROWS)


def scheduled_endings(text: str, infos: Sequence[FactInfo], at: datetime) -> list[Ending]:
    """The endings ``text`` tells ahead of the user's states in ``infos`` (held at ``at``), each at its day."""
    out: dict[str, Ending] = {}
    for sentence in segment(text):
        body = sentence.text
        if "?" in body:
            continue
        for row in ROWS:
            m = row.pattern.search(body)
            if m is None or _NOT_TOLD.search(body[:m.end()]):
                continue
            day = resolve_ahead(body[m.start():], at)
            if day is None or day <= at:
                continue
            pool = [i for i in infos if i.fact.subject == "user" and i.category == row.category]
            named = [i for i in pool if name_evidence(i, words(body)) >= 0.8]
            chosen = named or (pool if len({i.state for i in pool}) == 1 else [])
            for info in chosen:
                out.setdefault(info.fact.id, Ending(info.fact, day, row.name, f"told ahead: ends on {day:%Y-%m-%d}"))
    return list(out.values())
