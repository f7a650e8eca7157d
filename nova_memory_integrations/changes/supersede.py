"""A new value told alone supersedes the held one (pure): "I'm *head chef* now" while "sous chef" is held.

Many changes carry no ending word: the speaker states the present value of a state and marks it as new by
time ("now", "these days", "nowadays", "officially"). This module reads such a clause — a copula with its
complement ("I'm head chef now", "Leila's a charge nurse these days"), or a verbless one at the start of a
sentence ("Officially Sarah Okonkwo now!") — and, when the complement is another value of exactly one state
its subject holds (:func:`~.slots.same_slot`: the same word with a modifier of its own, "head chef" /
"sous chef at Dishoom"), ends that state and adds the value in its place, from the message's time.

A **known thing of a kind** told with "now" / "instead" ("got a pixel 8 instead", "I've got a Vivaro now",
"we're with Octopus now") succeeds the one held thing of that kind (:func:`~.named_states.same_kind`: the phone,
the van, the supplier), whatever the category: the marker says it replaces (:func:`kind_successors`).

Cardinality decides: a kind held several at once (:data:`~.slots.MANY_VALUED`: pets, possessions, people)
is never superseded, and neither is anything when the clause adds rather than replaces ("also", "too", "as
well", "another", "second"). A question, a denial, a plan or a possibility supersedes nothing; nor does a
value said of someone the message does not name ("she" / "he" is the last person of that gender named before
it in the message).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..text.known_names import find_names
from .guard_words import ADDITIVE_OR_MORE
from .guards import POSSIBLE, Known
from .lexicon import NEGATORS
from .named_states import same_kind
from .replacements import NewValue, clean_value
from .segments import segment, words
from .slots import MANY_VALUED, same_slot
from .targets import FactInfo

__all__ = ["Superseded", "kind_successors", "may_supersede", "superseded"]

_I = re.IGNORECASE
_MARK = r"(?:now|these days|nowadays)"
_MARKED = re.compile(rf"\b{_MARK}\b|\bofficially\b", _I)
_COPULA = re.compile(
    rf"(?:^|[.!?,;:—–]\s*|\band\s+)(?:(?:so|well|and|but|ok|okay)\s+)?(?:{_MARK}\s+)?(?P<who>i|we|he|she|[A-Z][\w-]+)"
    rf"(?:'m|'re|'s|\s+am|\s+are|\s+is)\s+(?:{_MARK}\s+|officially\s+)?(?P<value>[^.!?,;:—–()]{{2,60}}?)"
    rf"\s+{_MARK}\b", _I)
_VERBLESS = re.compile(rf"^\W*(?:officially\s+)(?P<value>[^.!?,;:—–()]{{2,60}}?)\s+{_MARK}\b", _I)
_OFFICIALLY = re.compile(r"\bofficially\b", _I)
_REPLACING = re.compile(rf"\b(?:{_MARK}|instead)\b", _I)
_SOMEONE = re.compile(r"\b(?:he|she|they|he's|she's|they're|his|her|their)\b", _I)
_SPEAKER = re.compile(r"\b(?:i|i've|i'm|we|we've|we're|my|our|me)\b|^\W*(?:got|bought|ordered|picked up|switched|"
                      r"moved|went)\b", _I)
_ADDED = re.compile(ADDITIVE_OR_MORE, _I)
_PART = re.compile(r"[,;:]|\s[-—–]\s|\b(?:so|but|and|because)\b", _I)
"""Where the part of a sentence that holds a name begins: a denial before it is of something else."""


@dataclass(frozen=True)
class Superseded:
    """``new`` takes the place of ``old`` (ended at ``new.at``)."""

    old: FactInfo
    new: NewValue


def may_supersede(text: str) -> bool:
    """Whether a message may state a new value by time alone (regex passes, and a known name for
    :func:`kind_successors`; the facts are read only then)."""
    return (_MARKED.search(text) is not None and (_COPULA.search(text) is not None or _OFFICIALLY.search(text)
                                                   is not None)) or (_REPLACING.search(text) is not None
                                                                     and bool(find_names(text)))


def _subject(who: str, known: Known, before: str) -> str | None:
    """Whose value the clause tells: the user, a person the message names, or for "she" / "he" the last
    person of that gender named before it in the message (never a guess from earlier messages)."""
    low = who.lower()
    if low in ("i", "we"):
        return "user"
    if low in ("he", "she"):
        gender = "f" if low == "she" else "m"
        for w in reversed(words(before)):
            person = known.people.get(w.low.removesuffix("'s"))
            if person is not None and known.genders.get(person, "x") in (gender, "x"):
                return person
        return None
    return known.people.get(low)


def superseded(text: str, infos: Sequence[FactInfo], known: Known, at: datetime) -> list[Superseded]:
    """The held states ``text`` gives a new value of by time alone (see the module docstring)."""
    if not may_supersede(text):
        return []
    out: list[Superseded] = []
    for sentence in segment(text):
        body = sentence.text
        if "?" in body:
            continue
        for m in [*_COPULA.finditer(body), *_VERBLESS.finditer(body)]:
            if POSSIBLE.search(body, 0, m.end()):  # "I'm head chef now, new menu due in 3 weeks": the menu's plan
                continue
            who = m.groupdict().get("who")
            subject = _subject(who, known, text[:sentence.start + m.start()]) if who else "user"
            raw = m.group("value")
            if subject is None or _ADDED.search(raw) or any(w in NEGATORS for w in raw.lower().split()):
                continue
            value = clean_value(raw)
            if value is None:
                continue
            slotted = {i.state: i for i in infos if i.fact.subject == subject and i.category not in MANY_VALUED
                       and same_slot(value, i.fact.object)}
            if len(slotted) != 1:
                continue
            old = next(iter(slotted.values()))
            out.append(Superseded(old, NewValue(old.fact, value, at, "new value")))
    return out


def kind_successors(text: str, infos: Sequence[FactInfo], at: datetime) -> list[Superseded]:
    """The held things of the user that a known thing of their kind, told with "now" or "instead" in a statement
    of the speaker's, replaces ("got a pixel 8 instead" while "iphone 12" is held); none beside an addition
    ("another", "too"), a denial, a plan or a possibility, or when another person is the subject."""
    out: list[Superseded] = []
    held = [(i.fact.id, i.fact.object) for i in infos if i.fact.subject == "user"]
    if not held:
        return []
    for sentence in segment(text):
        body = sentence.text
        if "?" in body or not _REPLACING.search(body) or _ADDED.search(body) or POSSIBLE.search(body):
            continue
        for hit in find_names(body):
            before = body[:hit.start]
            part = max(m.end() for m in _PART.finditer(before)) if _PART.search(before) else 0
            if _SOMEONE.search(before) or not _SPEAKER.search(before) or any(  # "the cough never went away so
                    w.low in NEGATORS for w in words(body[part:])):  # the GP's put me on X instead": not denied
                continue
            found = same_kind(body[hit.start:], held)
            if found is None or any(s.old.fact.id == found[0] for s in out):
                continue
            old = next(i for i in infos if i.fact.id == found[0])
            out.append(Superseded(old, NewValue(old.fact, found[1], at, "new value")))
    return out
