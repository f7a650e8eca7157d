"""What a source proposes to consolidation: proposals, batch plans and the source protocol.

A *source* proposes statements for a batch of episodes: the deterministic extractor (wrapped by
:func:`deterministic_batch` and :class:`ExtractorSource`) or an LLM (:class:`~.llm.LLMExtractor`,
which also sees the existing facts relevant to the batch and decides the operation).
:class:`~nova_memory_integrations.consolidation.consolidator.Consolidator` applies what they
propose. These types live with the extractors that make them, so ``extraction/`` never imports
``consolidation/``: consolidation depends on extraction, one way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal, Protocol

from ..errors import ConsolidationError
from ..text.roles import is_named_speaker
from ..types import Episode, Fact
from .base import READ_BY_TOPIC, CandidateFact, Extractor

__all__ = [
    "BatchExtractor",
    "BatchPlan",
    "ConsolidationSource",
    "ExtractorSource",
    "OpName",
    "Proposal",
    "deterministic_batch",
    "stated",
]

BatchExtractor = Callable[[Sequence[Episode]], list[list[CandidateFact]]]
"""Candidates per episode of a batch, in the batch's order."""
OpName = Literal["ADD", "UPDATE", "DELETE", "NOOP"]


@dataclass(frozen=True)
class Proposal:
    """One statement to apply: from an extractor (``op=None``) or an LLM decision.

    ``target_fact_id`` names the existing fact an LLM's UPDATE / DELETE / NOOP is about;
    ``reason`` is recorded with the decision. ``importance`` is the source's rating of the fact
    (0-1, :data:`~nova_memory_integrations.memory.importance.LEVELS`; a model's): it replaces the
    deterministic rating, never a caller's, a declared predicate's or an explicit request's.
    ``refused`` says why a declared schema refused it already where the source parsed it (a field
    its model lacks): the consolidator records it as refused, never stores it.
    """

    subject: str
    predicate: str
    object: str
    negate: bool = False
    op: OpName | None = None
    valid_from: datetime | None = None
    confidence: float | None = None
    importance: float | None = None
    target_fact_id: str | None = None
    reason: str | None = None
    source_text: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    refused: str = ""

    @classmethod
    def from_candidate(cls, cand: CandidateFact) -> Proposal:
        """A deterministic extractor's candidate as a proposal (the planner decides the op)."""
        return cls(cand.subject, cand.predicate, cand.object, negate=cand.op == "negate",
                   valid_from=cand.valid_from, confidence=cand.confidence, source_text=cand.source_text,
                   reason=cand.reason or None)


@dataclass
class BatchPlan:
    """A source's answer for one batch: proposals per episode id, errors for the rest.

    ``unusable`` names the failed episodes the source did get an answer for, but not one it
    could use (unparseable, the wrong shape, empty, implausible), as opposed to calls that
    failed outright: a model that answers like that will answer like that again, so
    retrying later is pointless and the consolidator falls back to the deterministic
    extractor for them; a timeout may pass, so those episodes wait as dead letters.
    """

    proposals: dict[str, list[Proposal]] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    calls: int = 0
    unusable: set[str] = field(default_factory=set)


class ConsolidationSource(Protocol):
    """What the consolidator asks for each batch."""

    needs_context: bool
    batch_size: int | None

    def plan(self, user_id: str, episodes: Sequence[Episode], related: Sequence[Fact]) -> BatchPlan:
        """Proposals for ``episodes`` given the existing ``related`` facts."""
        ...


class ExtractorSource:
    """A batch extractor (e.g. :func:`deterministic_batch`) as a consolidation source."""

    needs_context = False
    batch_size: int | None = None

    def __init__(self, extract_batch: BatchExtractor) -> None:
        self.extract_batch = extract_batch

    def plan(self, user_id: str, episodes: Sequence[Episode], related: Sequence[Fact]) -> BatchPlan:
        """Run the extractor; a wrong result count fails the whole batch."""
        found = self.extract_batch(episodes)
        if len(found) != len(episodes):
            raise ConsolidationError(f"extractor returned {len(found)} results for {len(episodes)} episodes")
        pairs = zip(episodes, found, strict=True)
        return BatchPlan({e.id: [Proposal.from_candidate(c) for c in cands] for e, cands in pairs})


def deterministic_batch(extractor: Extractor) -> BatchExtractor:
    """Adapt a per-text extractor to the batch interface (its own ``extract_batch`` when it has
    one: the deterministic extractor carries "my brother Luis" over to a later "my brother")."""
    own = getattr(extractor, "extract_batch", None)
    if callable(own):
        return own  # type: ignore[no-any-return]

    def run(batch: Sequence[Episode]) -> list[list[CandidateFact]]:
        out: list[list[CandidateFact]] = []
        for e in batch:
            found = extractor.extract(e.content, role=e.role, timestamp=e.timestamp)
            if is_named_speaker(e.role):  # a named speaker of a multi-party transcript: "I" is them
                found = [replace(c, subject=e.role) if c.subject == "user" else c for c in found]
            out.append(found)
        return out

    return run


def stated(proposals: Sequence[Proposal]) -> list[Proposal]:
    """The ``proposals`` told outright: without those read only from the topic of a sentence
    (:data:`~.base.READ_BY_TOPIC`), which leave the sentence's states (a colleague's, the user's own words) to be read
    as if they were not there."""
    return [p for p in proposals if p.reason != READ_BY_TOPIC]
