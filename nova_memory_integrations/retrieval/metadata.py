"""Framework-neutral metadata of retrieved memories (one schema for every adapter).

LangChain ``Document.metadata`` and LlamaIndex ``TextNode.metadata`` describe a memory
with the same flat, JSON-serialisable dictionary:

``source`` (always ``"nova-memory"``), ``kind`` (episode / fact / rule; block for a pinned block), ``id`` (memory
id), ``score``, ``scores`` (per-signal), ``timestamp``, ``valid_from`` / ``valid_to``
(ISO-8601 strings or ``None``; for episodes ``valid_from`` is the turn's time, for rules
their creation), ``confidence``, ``provenance`` (ids of the episodes a memory came from;
an episode is its own provenance), ``session_id``, ``role``, ``memory_metadata`` (the
metadata stored with the memory); when known also ``ingested_at``, ``lineage_id``,
``subject`` / ``predicate`` / ``object`` for facts, ``condition`` / ``action`` for rules
and ``reason`` for items of a ``store.context`` result.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..types import ContextItem, SearchHit

__all__ = ["DEFAULT_LLM_METADATA_KEYS", "MEMORY_SOURCE", "context_item_metadata", "hit_metadata", "iso"]

MEMORY_SOURCE = "nova-memory"
"""``metadata["source"]`` of every document / node built from memory."""

DEFAULT_LLM_METADATA_KEYS: tuple[str, ...] = ("kind", "timestamp", "valid_to")
"""Metadata keys worth showing to an LLM next to a memory's text (the rest is bookkeeping).

For facts ``timestamp`` is the start of validity; ``valid_to`` only appears once set."""


def iso(moment: datetime | None) -> str | None:
    """ISO-8601 text of a datetime (``None`` stays ``None``)."""
    return None if moment is None else moment.isoformat()


def _base(kind: str, mem_id: str, score: float, scores: Mapping[str, float]) -> dict[str, Any]:
    return {
        "source": MEMORY_SOURCE,
        "kind": kind,
        "id": mem_id,
        "score": float(score),
        "scores": {k: float(v) for k, v in scores.items()},
        "timestamp": None,
        "valid_from": None,
        "valid_to": None,
        "confidence": None,
        "provenance": [],
        "session_id": None,
        "role": None,
        "memory_metadata": {},
    }


def hit_metadata(hit: SearchHit) -> dict[str, Any]:
    """Metadata of one ``store.retrieve`` / ``store.search`` hit (a new dictionary)."""
    meta = _base(hit.kind, hit.id, hit.score, hit.scores)
    meta["timestamp"] = iso(hit.timestamp)
    if hit.episode is not None:
        ep = hit.episode
        meta.update(session_id=ep.session_id, role=ep.role, valid_from=iso(ep.timestamp),
                    ingested_at=iso(ep.ingested_at), provenance=list(hit.provenance) or [ep.id],
                    memory_metadata=dict(ep.metadata))
    if hit.fact is not None:
        fact = hit.fact
        meta.update(valid_from=iso(fact.valid_from), valid_to=iso(fact.valid_to), confidence=fact.confidence,
                    provenance=list(fact.provenance), lineage_id=fact.lineage_id, subject=fact.subject,
                    predicate=fact.predicate, object=fact.object, ingested_at=iso(fact.ingested_at),
                    memory_metadata=dict(fact.metadata))
    if hit.rule is not None:
        rule = hit.rule
        meta.update(confidence=rule.confidence, condition=rule.condition, action=rule.action,
                    valid_from=iso(rule.created_at), memory_metadata=dict(rule.metadata))
    return meta


def context_item_metadata(item: ContextItem) -> dict[str, Any]:
    """Metadata of one source (or dropped item) of a ``store.context`` result."""
    meta = _base(item.kind, item.id, item.score, item.scores)
    own = dict(item.metadata)
    role = own.pop("role", None) if item.kind == "episode" else None
    lineage = own.pop("lineage_id", None) if item.kind == "fact" else None
    meta.update(timestamp=iso(item.timestamp), valid_from=iso(item.valid_from), valid_to=iso(item.valid_to),
                confidence=item.confidence, provenance=list(item.provenance), session_id=item.session_id,
                role=role, reason=item.reason, memory_metadata=own)
    if item.kind == "episode" and meta["valid_from"] is None:
        meta["valid_from"] = meta["timestamp"]
    if lineage is not None:
        meta["lineage_id"] = lineage
    return meta
