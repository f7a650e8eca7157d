"""Shared data types (pydantic models) of the memory engine.

These are the values the public API returns. They are plain data: no methods that touch
storage, so they can be serialised, compared and passed across threads freely.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CONTEXT_FORMATS",
    "ContextFormat",
    "ContextKind",
    "new_id",
    "CompressedText",
    "CompressionResult",
    "ContextItem",
    "ContextResult",
    "ConsolidationResult",
    "Episode",
    "Fact",
    "FactDecision",
    "MemoryKind",
    "MemorySource",
    "PinnedBlock",
    "RefusedFact",
    "Rule",
    "RuleProposal",
    "SearchHit",
]

MemoryKind = Literal["episode", "fact", "rule"]
MemorySource = Literal["explicit", "inferred"]
"""Whether a memory was asked for (explicit) or captured and extracted by the store (inferred);
see :mod:`nova_memory_integrations.memory.importance`."""


ContextFormat = Literal["markdown", "json", "xml", "plain"]
"""The formats a memory context is rendered in (one type for every adapter)."""

CONTEXT_FORMATS: tuple[ContextFormat, ...] = get_args(ContextFormat)


def new_id(prefix: str) -> str:
    """A random id with a kind prefix (``ep_``, ``fa_``, ``ru_``)."""
    return f"{prefix}_{uuid.uuid4().hex}"


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Episode(_Model):
    """One captured turn of a conversation (episodic memory).

    ``timestamp`` is event time (when the turn happened); ``ingested_at`` is when the
    store recorded it.
    """

    id: str
    user_id: str
    session_id: str | None = None
    role: str
    content: str
    timestamp: datetime
    ingested_at: datetime
    metadata: dict[str, Any] = Field(default_factory=dict)
    importance: float = 0.5
    """0-1; the 1-5 levels and how it is computed at capture: :mod:`.memory.importance`."""
    access_count: int = 0
    last_access: datetime | None = None
    processed: bool = False
    source: MemorySource = "inferred"


class Fact(_Model):
    """A bi-temporal statement ``subject -predicate-> object`` (semantic memory).

    Event time: the fact held in the world from ``valid_from`` until ``valid_to``
    (``None`` = still valid). Belief time: the store held this version from
    ``ingested_at`` until ``expired_at`` (``None`` = current belief). Updates never
    delete: a superseded version gets ``expired_at`` and a closed copy replaces it, so
    "what was true on date X" (``as_of``) and "what did we believe on date X"
    (``known_at``) are both answerable. ``lineage_id`` is shared by all versions of one
    fact.
    """

    id: str
    lineage_id: str
    user_id: str
    subject: str
    predicate: str
    object: str
    confidence: float
    valid_from: datetime
    valid_to: datetime | None = None
    ingested_at: datetime
    expired_at: datetime | None = None
    provenance: tuple[str, ...] = ()
    occurrence_count: int = 1
    metadata: dict[str, Any] = Field(default_factory=dict)
    importance: float = 0.5
    """0-1, as for episodes (:mod:`.memory.importance`)."""
    source: MemorySource = "inferred"

    @property
    def text(self) -> str:
        """The fact as a short sentence, used for embedding and display."""
        return f"{self.subject} {self.predicate.replace('_', ' ')} {self.object}"

    def is_valid_at(self, moment: datetime) -> bool:
        """Whether the fact held in the world at ``moment`` (event time)."""
        return self.valid_from <= moment and (self.valid_to is None or moment < self.valid_to)


class Rule(_Model):
    """A procedural rule: when ``condition`` applies, do ``action``."""

    id: str
    user_id: str
    condition: str
    action: str
    confidence: float
    created_at: datetime
    usage_count: int = 0
    last_used: datetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


LEARNT = "learnt_from"
"""The metadata key of a learnt rule (:class:`RuleProposal` adopted): the instruction it was learnt from."""


class RuleProposal(_Model):
    """A rule the store would learn: a standing instruction (``key``, such as ``"bullets"``) the user
    gave in ``sessions`` distinct sessions, in the turns ``episode_ids`` (its provenance)."""

    user_id: str
    key: str
    condition: str
    action: str
    confidence: float
    sessions: tuple[str, ...]
    episode_ids: tuple[str, ...]


class PinnedBlock(_Model):
    """One version of a pinned block: a named text about the user (``"human"``), the agent
    (``"persona"``) or anything the app names, in every context whatever the query, of at most
    ``limit`` characters. Each edit is a new version; the one it replaced keeps its text and
    gets ``valid_to`` (``NovaStore.block_history``)."""

    id: str
    user_id: str
    name: str
    content: str
    limit: int
    author: str = "app"
    """Who wrote this version: ``app`` (``NovaStore.set_block``) or ``agent`` (a memory tool)."""
    valid_from: datetime
    valid_to: datetime | None = None
    ingested_at: datetime


class RefusedFact(_Model):
    """A fact a declared schema refused (``NovaStore(schemas=...)``): it was not stored. ``rule`` says
    what the model found wrong, ``episode_id`` which turn it came from, ``origin`` which source
    proposed it (``llm``, ``rules``: the deterministic extractor and the declared reader)."""

    id: str
    user_id: str
    episode_id: str | None = None
    kind: str
    subject: str
    predicate: str
    object: str
    rule: str
    origin: str
    created_at: datetime


class SearchHit(_Model):
    """One retrieved memory item with its score and where it came from."""

    kind: MemoryKind
    id: str
    text: str
    score: float
    timestamp: datetime | None = None
    episode: Episode | None = None
    fact: Fact | None = None
    rule: Rule | None = None
    scores: dict[str, float] = Field(default_factory=dict)
    provenance: tuple[str, ...] = ()
    """Episode ids the item is derived from (a snippet's turns, a fact's sources)."""


class FactDecision(_Model):
    """One consolidation decision (ADD / UPDATE / DELETE / NOOP) and why it was taken."""

    op: Literal["ADD", "UPDATE", "DELETE", "NOOP"]
    subject: str
    predicate: str
    object: str
    reason: str
    fact_id: str | None = None
    replaced_fact_id: str | None = None
    episode_ids: tuple[str, ...] = ()


class ConsolidationResult(_Model):
    """Counts of what one consolidation run did, with the decisions behind them."""

    added: int = 0
    updated: int = 0
    invalidated: int = 0
    noop: int = 0
    episodes_processed: int = 0
    failed_episodes: int = 0
    fallback_episodes: int = 0
    """Of ``episodes_processed``: those a model answered for unusably, consolidated by the
    deterministic extractor instead (``consolidation.llm_fallback``)."""
    decisions: tuple[FactDecision, ...] = ()


ContextKind = Literal["episode", "fact", "rule", "block"]
"""What a context item is: a memory of one of the :data:`MemoryKind` kinds, or a pinned block."""


class ContextItem(_Model):
    """One memory item selected for the assembled context, with why it is there."""

    kind: ContextKind
    id: str
    text: str
    score: float
    scores: dict[str, float] = Field(default_factory=dict)
    timestamp: datetime | None = None
    session_id: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    confidence: float | None = None
    provenance: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    reason: str = ""


class ContextResult(_Model):
    """The memory an LLM should see for a query, within a token budget.

    ``text`` is ready to put in a prompt (``format`` = markdown, json, xml or plain) and
    never exceeds ``budget_tokens`` as counted by ``tokenizer``. ``sources`` are the items
    included, ``dropped`` those retrieved but left out (budget, duplicates), ``timings``
    the milliseconds spent per stage.
    """

    query: str
    user_id: str
    text: str
    tokens: int
    budget_tokens: int
    format: ContextFormat = "markdown"
    tokenizer: str = ""
    sources: tuple[ContextItem, ...] = ()
    dropped: tuple[ContextItem, ...] = ()
    timings: dict[str, float] = Field(default_factory=dict)
    compression_ratio: float = 1.0
    best_match: float | None = None
    """The best cosine of any retrieved item to the query: what the relevance floor
    (``SearchConfig.relevance_floor``) compares; ``None`` when not every item could be compared
    (one not indexed yet), which the floor lets through."""
    keyword_match: bool | None = None
    """Whether any retrieved item was found by a keyword of the query (without one, the best
    match must reach ``SearchConfig.unmatched_floor``)."""

    def explain(self) -> str:
        """A human-readable account of why each item is in the context (or not)."""
        lines = [f"context for {self.query!r}: {self.tokens}/{self.budget_tokens} tokens, "
                 f"{len(self.sources)} items, compression {self.compression_ratio:.2f}"
                 + (f", best match {self.best_match:.2f}" if self.best_match is not None else "")]
        for item in self.sources:
            sig = ", ".join(f"{k}={v:.3f}" for k, v in sorted(item.scores.items()))
            lines.append(f"+ [{item.kind} {item.id}] score={item.score:.3f} ({sig}) {item.reason}")
        for item in self.dropped:
            lines.append(f"- [{item.kind} {item.id}] dropped: {item.reason}")
        if self.timings:
            lines.append("timings ms: " + ", ".join(f"{k}={v:.1f}" for k, v in self.timings.items()))
        return "\n".join(lines)


class CompressedText(_Model):
    """One input text kept by :meth:`NovaStore.compress`, possibly shortened."""

    index: int
    text: str
    score: float
    original_tokens: int
    tokens: int


class CompressionResult(_Model):
    """What :meth:`NovaStore.compress` kept of arbitrary texts, best first."""

    items: tuple[CompressedText, ...]
    dropped_indices: tuple[int, ...] = ()
    duplicate_indices: tuple[int, ...] = ()
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def ratio(self) -> float:
        """Output tokens / input tokens (1.0 for empty input)."""
        return self.output_tokens / self.input_tokens if self.input_tokens else 1.0
