"""Finding change cues in a message (pure): where a state is said to have ended or changed.

All cues of :data:`~.lexicon.CUES` are compiled into one alternation (one pass over the text; at one
position the first cue in table order wins). :func:`has_cue` is the cheap test consolidation runs on
every user turn before reading any fact.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .lexicon import ANCHORS, CORRECTION_CUES, CUES, CorrectionCue, Cue
from .segments import Sentence, words
from .verbs import lemma, verb_cue_at, verb_lemmas

__all__ = ["CorrectionHit", "CueHit", "cued_sentences", "find_corrections_cues", "find_cues", "has_cue", "locate"]

_FLAGS = re.IGNORECASE
# every cue starts at a word: one test of the position before trying the alternatives (several times faster)
_CUE_RE = re.compile(r"\b(?=\w)(?:" + "|".join(f"(?P<c{i}>{c.pattern})" for i, c in enumerate(CUES)) + ")", _FLAGS)
_CORRECTION_RE = re.compile(
    r"\b(?=\w)(?:" + "|".join(f"(?P<k{i}>{c.pattern})" for i, c in enumerate(CORRECTION_CUES)) + ")", _FLAGS)
_WORDS = re.compile(r"[a-z]+")
_VERB_LEMMAS = verb_lemmas()
_NOT_A_VERB_AFTER = frozenset("a an the my our his her their its your this that is 's was are 're were be been "
                              "being very so too".split())
"""Before a verb cue's word, these make it a noun or an adjective ("a *cut*", "my *close* friend", "the shop
*is shut*": a state that may be for the day, not an ending)."""


@dataclass(frozen=True)
class CueHit:
    """One cue in a message: offsets in the normalised text, and its sentence and clause indexes."""

    cue: Cue
    start: int
    end: int
    sentence: int
    clause: int


@dataclass(frozen=True)
class CorrectionHit:
    """One correction cue in a message, and the sentence it is in."""

    cue: CorrectionCue
    start: int
    end: int
    sentence: int


def has_cue(text: str) -> bool:
    """Whether ``text`` may hold a change or correction cue (the cheap pre-test: a verb of :mod:`.verbs` by
    its lemma, or a set lookup of its words in :data:`~.lexicon.ANCHORS` first, the cue expressions only then)."""
    found = _WORDS.findall(text.lower())
    if any(lemma(w) in _VERB_LEMMAS for w in found):
        return True
    if ANCHORS.isdisjoint(found):
        return False
    return _CUE_RE.search(text) is not None or _CORRECTION_RE.search(text) is not None


def _sentence_of(sentences: list[Sentence], pos: int) -> int | None:
    for si, s in enumerate(sentences):
        if s.start <= pos < s.end:
            return si
    return None


def locate(sentences: Sequence[Sentence], pos: int) -> tuple[int, int] | None:
    """``(sentence, clause)`` indices of the character at ``pos``; ``None`` outside every clause."""
    for si, s in enumerate(sentences):
        if s.start <= pos < s.end:
            for ci, c in enumerate(s.clauses):
                if c.start <= pos < c.end:
                    return si, ci
            return None  # in the gap between two clauses (a separator): no clause of its own
    return None


def find_cues(text: str, sentences: list[Sentence]) -> list[CueHit]:
    """The change cues of a normalised message, in text order, each located in its clause."""
    out: list[CueHit] = []
    for m in _CUE_RE.finditer(text):
        where = locate(sentences, m.start()) or locate(sentences, m.end() - 1)
        if where is None or m.lastgroup is None:
            continue
        out.append(CueHit(CUES[int(m.lastgroup[1:])], m.start(), m.end(), *where))
    return sorted(out + _verb_hits(text, sentences, out), key=lambda h: h.start)


def _verb_hits(text: str, sentences: list[Sentence], phrase_hits: list[CueHit]) -> list[CueHit]:
    """The verb cues (:mod:`.verbs`) of a message at words no phrase cue covers."""
    ws = words(text)
    tokens = [w.low for w in ws]
    out: list[CueHit] = []
    for i, w in enumerate(ws):
        if lemma(w.low) not in _VERB_LEMMAS or (i and tokens[i - 1] in _NOT_A_VERB_AFTER):
            continue
        if any(h.start <= w.start < h.end for h in phrase_hits):
            continue
        found = verb_cue_at(tokens, i)
        where = locate(sentences, w.start)
        if found is None or where is None:
            continue
        entry, last = found
        out.append(CueHit(entry.cue, w.start, ws[last].end, *where))
    return out


def find_corrections_cues(text: str, sentences: list[Sentence]) -> list[CorrectionHit]:
    """The correction cues of a normalised message, in text order."""
    out: list[CorrectionHit] = []
    for m in _CORRECTION_RE.finditer(text):
        where = _sentence_of(sentences, m.end() - 1)
        if where is None or m.lastgroup is None:
            continue
        out.append(CorrectionHit(CORRECTION_CUES[int(m.lastgroup[1:])], m.start(), m.end(), where))
    return out


def cued_sentences(text: str, sentences: list[Sentence], *, correction_strength: float = 0.0,
                   change_strength: float = 0.0) -> set[int]:
    """The sentences of a normalised message holding a change cue at least ``change_strength`` strong, or a
    correction cue at least ``correction_strength`` strong: those a reader of present states leaves to the
    change layer."""
    if not has_cue(text):
        return set()
    return {h.sentence for h in find_cues(text, sentences) if h.cue.strength >= change_strength} | {
        h.sentence for h in find_corrections_cues(text, sentences) if h.cue.strength >= correction_strength}
