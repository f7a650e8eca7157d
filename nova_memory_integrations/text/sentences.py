"""Sentence splitting: one algorithm, three named rules of where a sentence ends.

The package cuts text into sentences for four readers, and they deliberately disagree:

* :data:`RECALL_SENTENCES` (compression, the sentence vectors the indexer keeps): a sentence
  ends at terminal punctuation before a capital, a digit or a bracket, or at a line break, so
  "3.5 euros, e.g. for tea. then more" stays whole. The indexer stores one vector per sentence
  *text*: changing this rule orphans every kept sentence vector, hence a rule of its own.
* :data:`FACT_SENTENCES` (the rule-based extractor): a semicolon ends a statement too, any
  character may follow a stop (chat is often lower case), and an abbreviation ("Dr.", "e.g.")
  does not end one.
* :data:`SUMMARY_SENTENCES` (the lifecycle's extractive summary): any stop followed by
  whitespace; a line break alone does not end a sentence.
* :data:`CHANGE_SENTENCES` (belief changes, ``changes/segments``): a stop and the closing quotes
  or brackets after it, or a line break; not after an abbreviation. Read with offsets, since
  change detection maps cues and words back into the message.

Each is a :class:`SentenceRule` row; one algorithm (cut at the boundaries, strip, drop empties,
glue a piece back after an abbreviation) gives the texts (:meth:`SentenceRule.split`) or their
offsets (:meth:`SentenceRule.spans`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "CHANGE_SENTENCES",
    "FACT_SENTENCES",
    "RECALL_SENTENCES",
    "SUMMARY_SENTENCES",
    "SentenceRule",
    "sentences_of",
    "split_sentences",
    "split_speaker",
]


@dataclass(frozen=True)
class SentenceRule:
    """Where a sentence ends, for one reader of the text.

    Attributes:
        name: what the rule is for (shown in reprs and test ids).
        boundary: matches the text between two sentences (no capturing group).
        abbreviation: matches the end of a piece that only looks finished ("Dr."): the next
            piece is glued back onto it. ``None``: every boundary ends a sentence.
    """

    name: str
    boundary: re.Pattern[str]
    abbreviation: re.Pattern[str] | None = None

    def split(self, text: str) -> list[str]:
        """The sentences of ``text``, stripped, without empty ones."""
        out: list[str] = []
        for piece in self.boundary.split(text):
            piece = piece.strip()
            if not piece:
                continue
            if out and self.abbreviation is not None and self.abbreviation.search(out[-1]):
                out[-1] = f"{out[-1]} {piece}"
            else:
                out.append(piece)
        return out

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the sentences of :meth:`split` are: ``(start, end)`` in ``text``, stripped. The same
        steps over offsets, so the same cuts and glues; a glued sentence ("Dr. Smith") spans both
        pieces and what the boundary held between them (``Dr." Smith`` keeps its quote, which
        :meth:`split` drops). :meth:`split` stays the string form: recall splits every candidate
        it compresses, and offsets would cost it about three times as much."""
        out: list[tuple[int, int]] = []
        start = 0
        for end, after in [(m.start(), m.end()) for m in self.boundary.finditer(text)] + [(len(text), len(text))]:
            piece = text[start:end]
            stripped = piece.strip()
            if stripped:
                a = start + len(piece) - len(piece.lstrip())
                b = a + len(stripped)
                if out and self.abbreviation is not None and self.abbreviation.search(text[out[-1][0]:out[-1][1]]):
                    out[-1] = (out[-1][0], b)
                else:
                    out.append((a, b))
            start = after
        return out


RECALL_SENTENCES = SentenceRule(
    "recall",
    re.compile(r"(?<=[.!?…])\s+(?=[\"'(\[]?[A-Z0-9]|\[)|\n+"),
)
"""A sentence ends at terminal punctuation before a capital, a digit or a bracket (an
annotation such as "[shares a photo: ...]" is a sentence of its own), or at a line break."""

_ABBREVIATIONS = r"St|Dr|Mr|Mrs|Ms|Mt|Jr|Sr|Prof|vs|etc|approx|e\.g|i\.e"
"""Abbreviations whose stop ends no sentence ("Dr. Smith", "e.g. tea")."""

FACT_SENTENCES = SentenceRule(
    "facts",
    re.compile(r"(?<=[.!?;])\s+|\s*\n+\s*"),
    abbreviation=re.compile(rf"\b(?:{_ABBREVIATIONS}|No)\.$", re.IGNORECASE),
)
"""A statement ends at ``.``, ``!``, ``?`` or ``;`` before whitespace, or at a line break; not
after a known abbreviation ("Dr. Smith", "e.g. tea")."""

SUMMARY_SENTENCES = SentenceRule("summary", re.compile(r"(?<=[.!?])\s+"))
"""A sentence ends at ``.``, ``!`` or ``?`` before whitespace."""

CHANGE_SENTENCES = SentenceRule(
    "changes",
    re.compile(r"(?<=[.!?])[\"')\]]*\s+|\n+"),
    abbreviation=re.compile(rf"\b(?:{_ABBREVIATIONS})\.$", re.IGNORECASE),
)
"""A sentence ends at ``.``, ``!`` or ``?`` (with the quotes and brackets that close after it) before
whitespace, or at a line break; not after a known abbreviation ("No." does end one here: "No. I sold it")."""

_SPEAKER = re.compile(r"^([^\W\d_][\w.' -]{0,38}):\s+(?=\S)")
"""A transcript line's speaker prefix: "Caroline: " (a name of up to 39 characters)."""


def split_sentences(text: str) -> list[str]:
    """Split text into sentences (on terminal punctuation or line breaks): :data:`RECALL_SENTENCES`."""
    return RECALL_SENTENCES.split(text)


def split_speaker(text: str) -> tuple[str, str]:
    """``("Caroline: ", rest)`` for a transcript line, ``("", text)`` otherwise."""
    m = _SPEAKER.match(text)
    return (m.group(0), text[m.end():]) if m else ("", text)


def sentences_of(text: str) -> tuple[str, ...]:
    """The sentences recall's compression chooses among in ``text`` (a speaker prefix such as
    "Melanie: " aside): the ones whose vectors the indexer keeps."""
    return tuple(split_sentences(split_speaker(text)[1]))
