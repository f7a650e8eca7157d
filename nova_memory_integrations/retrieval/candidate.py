"""The record recall passes from stage to stage: one memory item under consideration."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from ..storage.rows import EpisodeRow
from ..storage.vectors import Vector
from ..types import Episode, Fact, MemoryKind, Rule
from .search_config import Signal

__all__ = ["Candidate", "Key"]

Key = tuple[MemoryKind, str]


@dataclass
class Candidate:
    """A memory item under consideration, with the raw score of each signal that found it."""

    kind: MemoryKind
    id: str
    text: str
    timestamp: datetime | None = None
    episode: Episode | None = None
    row: EpisodeRow | None = None
    """A turn found by a ranking signal: what ranking reads of its row; ``episode`` is filled
    once the turn is among those a read returns (:meth:`.pipeline.RecallPipeline.retrieve`)."""
    fact: Fact | None = None
    rule: Rule | None = None
    raw: dict[Signal, float] = field(default_factory=dict)
    contributions: dict[Signal, float] = field(default_factory=dict)
    score: float = 0.0
    rerank: float | None = None
    vector: Sequence[float] | Vector | None = None
    """Its vector, once a step of this recall has read it (later steps reuse it): the stored one,
    or for a row not indexed yet the one a read embedded (what compression compares)."""
    reason: str = ""

    @property
    def key(self) -> Key:
        return (self.kind, self.id)

    @property
    def turn(self) -> Episode | EpisodeRow | None:
        """The turn's episode, or its row before that is read (both carry what ranking uses)."""
        return self.episode if self.episode is not None else self.row
