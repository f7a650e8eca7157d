"""Sentences, clauses and words of one message, with their offsets (pure).

Change detection reads a message at three scopes: the clause holding a cue (where its actor and its
object usually are), the sentence around it, and the message before it (where a pronoun's antecedent
is). Quoted speech is blanked out (same length, so offsets still hold): what the user quotes someone
saying is not the user's statement.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.sentences import CHANGE_SENTENCES

__all__ = ["Clause", "Sentence", "Word", "asks", "normalize_text", "segment", "words"]

_STRAIGHT = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
                           "\u2014": "—"})
_CLAUSE_SPLIT = re.compile(
    r"\s*;\s*|\s+[—-]+\s+|\s*\(\s*|\s*\)\s*|:\s+"
    r"|,?\s+(?:but|although|though|whereas|while|because|cause|cos|so|and then|and now|then)\s+"
    r"|,?\s+and\s+(?=(?:now\s+|then\s+|also\s+|just\s+)?(?:I|i|we|my|My|she|he|they|it|we've|I've|I'm|"
    r"she's|he's|they've|it's)\b)"
    r"|,\s+(?=(?:now\s+|then\s+)?(?:I|i|we|she|he|they|it|my|My|our|Our)\b)",
)
_QUOTED = re.compile(r"\"[^\"\n]{1,200}\"|(?<![\w])'(?=\S)(?:[^'\n]|(?<=\w)'(?=\w)){2,200}?(?<=[^\s])'(?![\w])")
_WORD = re.compile(r"[A-Za-zÀ-ÿ0-9][\w&+'’-]*")


@dataclass(frozen=True)
class Word:
    """A word of the message: its text, lower-cased text and offsets."""

    text: str
    low: str
    start: int
    end: int


@dataclass(frozen=True)
class Clause:
    """A clause: ``text`` is ``message[start:end]``."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Sentence:
    """A sentence and its clauses; ``question`` when it asks rather than tells."""

    text: str
    start: int
    end: int
    clauses: tuple[Clause, ...]
    question: bool


def normalize_text(text: str) -> str:
    """Straight quotes and dashes, quoted speech blanked out; same length as ``text``."""
    plain = text.translate(_STRAIGHT)
    return _QUOTED.sub(lambda m: " " * len(m.group(0)), plain)


def _pieces(text: str, pattern: re.Pattern[str], start: int, end: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = start
    for m in pattern.finditer(text, start, end):
        if m.start() > pos:
            out.append((pos, m.start()))
        pos = max(pos, m.end())
    if pos < end:
        out.append((pos, end))
    return [(a, b) for a, b in out if text[a:b].strip()]


_QUESTION_START = re.compile(
    r"^\W*(?:(?:so|and|but|ok|well)\W+)?(?:should I|should we|do I|do we|do you|did I|did you|can I|can we|could I|"
    r"would I|would you|is it|is that|isn't it|are there|was it|what if|have you|has anyone|how (?:do|can|should|much|"
    r"long|would)|what (?:do|should|would|can|is|are)|where (?:do|should|can)|why (?:do|would|did)|"
    r"any (?:tips|ideas|advice))\b", re.IGNORECASE)


def asks(text: str) -> bool:
    """Whether a sentence or clause opens as a question ("should I ...", "is it ...", "what if ...")."""
    return bool(_QUESTION_START.match(text))


_RHETORICAL = re.compile(r"(?:^|[\s,])(?:and |but |so )?(?:honestly|seriously|really|right|tbh|lol|eh|surely|innit|"
                         r"yeah|no|ok|okay)\s*\?+[\"') ]*$", re.IGNORECASE)
"""A sentence whose "?" ends on a word said for effect ("on a pixel 8 now and *honestly?*"): told, not asked."""


def segment(text: str) -> list[Sentence]:
    """Sentences of a normalised message (see :func:`normalize_text`), each split into clauses; where a
    sentence ends is the text layer's :data:`~..text.sentences.CHANGE_SENTENCES`."""
    out: list[Sentence] = []
    for a, b in CHANGE_SENTENCES.spans(text):
        body = text[a:b]
        question = (body.rstrip("\"') ").endswith("?") and not _RHETORICAL.search(body)) or \
            bool(_QUESTION_START.match(body))
        pieces: list[tuple[int, int]] = []
        for x, y in _pieces(text, _CLAUSE_SPLIT, a, b):  # "Leo and I are done": a one- or two-word piece joins on
            if pieces and len(text[pieces[-1][0]:pieces[-1][1]].split()) <= 2:
                x = pieces.pop()[0]
            pieces.append((x, y))
        clauses = tuple(Clause(text[x:y], x, y) for x, y in pieces)
        out.append(Sentence(body, a, b, clauses or (Clause(body, a, b),), question))
    return out


def words(text: str, start: int = 0, end: int | None = None) -> list[Word]:
    """The words of ``text[start:end]`` with their offsets in ``text``."""
    end = len(text) if end is None else end
    return [Word(m.group(0), m.group(0).lower().replace("’", "'"), m.start(), m.end())
            for m in _WORD.finditer(text, start, end)]
