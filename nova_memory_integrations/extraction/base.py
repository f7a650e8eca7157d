"""Candidate facts and the extractor protocol.

An extractor reads one conversation turn and proposes :class:`CandidateFact` values;
consolidation later decides whether each candidate adds, confirms, supersedes or
negates a stored fact. Extractors are pure: they never touch storage.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol, runtime_checkable

__all__ = ["READ_BY_TOPIC", "CandidateFact", "Extractor", "FactOp"]

FactOp = Literal["assert", "negate"]


@dataclass(frozen=True)
class CandidateFact:
    """A ``subject -predicate-> object`` statement proposed by an extractor.

    Attributes:
        subject: ``"user"`` for first-person statements, else a normalised lowercase
            entity name such as ``"sister"`` or ``"bob"``.
        predicate: snake_case relation, e.g. ``"lives_in"``, ``"works_at"``,
            ``"likes"``, ``"favorite_color"``, ``"sister_name"``.
        object: The value, whitespace-trimmed, as written in the text (leading
            ``a``/``an`` dropped).
        op: ``"assert"`` for a statement that holds, ``"negate"`` for one that stopped
            holding ("I no longer live in X", "I quit my job at X").
        confidence: Extractor confidence in ``[0, 1]``.
        valid_from: Event time stated in the text ("yesterday", "since 2019"),
            timezone-aware UTC, or ``None`` when the text gives no time.
        source_text: The sentence the fact came from.
        reason: How the fact was read when not stated outright (``""``: stated); a reading by topic is
            :data:`READ_BY_TOPIC`.
    """

    subject: str
    predicate: str
    object: str
    op: Literal["assert", "negate"] = "assert"
    confidence: float = 0.8
    valid_from: datetime | None = None
    source_text: str = ""
    reason: str = ""


READ_BY_TOPIC = "read from the topic of the sentence"
"""The ``reason`` of a relation told only by the topic around a name (:mod:`._context`)."""


@runtime_checkable
class Extractor(Protocol):
    """Anything that turns one conversation turn into candidate facts."""

    def extract(
        self, text: str, *, role: str = "user", timestamp: datetime | None = None
    ) -> list[CandidateFact]:
        """Propose candidate facts stated in ``text``.

        Args:
            text: The content of one turn.
            role: Who said it (``"user"``, ``"assistant"``, ...).
            timestamp: When it was said (timezone-aware), used to resolve relative
                time expressions such as "yesterday".

        Returns:
            The candidate facts, in the order they appear in the text.
        """
        ...
