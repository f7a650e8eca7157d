"""States by meaning (pure): the clauses no capture rule read that may tell a state of the user's in passing.

The capture rules (:mod:`.states`, the extractor's) read states from shapes: "I work at X", "my X is ...".
People as often tell a state only in passing, by an event that presumes it: "cycled in on the Brompton
today", "Vodafone have put my bill up again", "reading on my kindle on the commute". This module picks the
clauses such a state may hide in, for the learned clause reader (:mod:`.clause_reader`) to judge: a
statement (no question, no plan, wish, memory, dream or joke: the markers :mod:`.states` uses; no denial;
no change or correction cue: those are the change layer's), in a sentence no rule read and no open state
came from, about the user (no relation word, no he / she / they: someone else's news is not the user's
state), naming one *thing*: a capitalised name inside the clause ("on the Brompton", "at PureGym") or a
"my <thing>" ("my kindle paperwhite"). The thing is masked as "it" (as at training) so that the reader
judges the predicate: whether "cycled in on it today" presumes a lasting state, or tells a one-off event
("had a curry at it last night"). The caller keeps a candidate only when the reader's ``state`` reaches
its threshold; its value is the thing's words, its clause the clause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.dates import MONTHS
from ..text.lexicon import RELS, STARTERS
from .clause_reader import mask_phrase
from .cues import find_corrections_cues, find_cues, has_cue
from .lexicon import NEGATORS, STOPWORDS
from .segments import normalize_text, segment
from .states import JOKE, NOT_A_STATE

__all__ = ["MAX_CANDIDATES", "StateCandidate", "state_candidates"]

MAX_CANDIDATES = 3
"""At most this many clauses of one message are read (one embedding each)."""

_I = re.IGNORECASE
_SOMEONE_ELSE = re.compile(r"\b(?:" + RELS + r"|he|she|they|he's|she's|they're|his|her|their|him|them)\b", _I)
"""A clause about someone else (a relation word, a third-person pronoun)."""
_NAME = re.compile(r"(?<=[a-z,] )(?P<np>[A-Z][\w&+'-]*[a-z0-9+][\w&+'-]*(?:\s+(?:[A-Z0-9][\w&+'-]*))*)")
"""A capitalised name inside a clause (not its first word: a sentence starter is capitalised anyway)."""
_MY_THING = re.compile(r"\b(?:my|our)\s+(?P<np>[a-z][\w'-]{2,}(?:\s+[a-z][\w'-]{2,})?)\b")
"""A thing of the user's named in passing ("my kindle paperwhite")."""
_NOT_A_NAME = frozenset(w.lower() for w in STARTERS) | frozenset(MONTHS) | {"i", "i'm", "i've", "i'd", "i'll"}
_NOT_A_THING = frozenset("own way life day time week weekend morning night evening turn fault head mind god".split())


@dataclass(frozen=True)
class StateCandidate:
    """A clause that may tell a state of the user's in passing: its thing and the clause with the thing masked."""

    thing: str
    clause: str
    masked: str


def _thing(clause: str) -> str | None:
    """The one thing a clause names (a capitalised name, else "my <thing>"), or ``None`` (none, or several)."""
    names = [m.group("np") for m in _NAME.finditer(clause)
             if m.group("np").split()[0].lower().strip("'s") not in _NOT_A_NAME]
    if len(names) == 1:
        return names[0]
    if names:
        return None
    mine = [m.group("np") for m in _MY_THING.finditer(clause)
            if m.group("np").split()[0].lower() not in _NOT_A_THING | STOPWORDS]
    return mine[0] if len(mine) == 1 else None


def state_candidates(text: str, *, taken: tuple[str, ...] = (), covered: tuple[str, ...] = ()) -> list[StateCandidate]:
    """The clauses of ``text`` that may tell a state in passing (see the module docstring). ``taken``: the
    sentences or clauses a rule already read a statement or a state from (left to it); ``covered``: values a
    rule already stated (a thing among them is not read again)."""
    stated = {c.lower() for c in covered if c}
    named = [m.group("np") for pattern in (_NAME, _MY_THING) for m in pattern.finditer(text)]
    if all(n.lower() in stated for n in named):  # the cheap test: most turns name no thing a rule left
        return []
    norm = normalize_text(text)
    sentences = segment(norm)
    cued: set[int] = set()
    if has_cue(norm):
        cued = {h.sentence for h in find_cues(norm, sentences)} | {
            h.sentence for h in find_corrections_cues(norm, sentences)}
    marks = [m for m in (normalize_text(t).strip(" .!?") for t in taken) if m]
    out: list[StateCandidate] = []
    for i, sentence in enumerate(sentences):
        body = sentence.text.strip(" .!?")
        if sentence.question or i in cued or NOT_A_STATE.search(sentence.text) or JOKE.search(sentence.text) or \
                any(body in m or m in body for m in marks):
            continue
        for clause in sentence.clauses:
            piece = clause.text.strip(" ,;-")
            low = piece.lower().split()
            if len(low) < 3 or _SOMEONE_ELSE.search(piece) or any(w in NEGATORS or w.endswith("n't") for w in low):
                continue
            thing = _thing(piece)
            if thing and thing.lower() not in stated:
                out.append(StateCandidate(thing, piece, mask_phrase(piece, thing)))
    return out[:MAX_CANDIDATES]
