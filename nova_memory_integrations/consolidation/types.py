"""The vocabulary of consolidation: the tally of a run, and the proposal types it applies.

Proposals, batch plans and the sources that make them are made by the extractors and live in
:mod:`nova_memory_integrations.extraction.proposals`; they are re-exported here, the same
objects, for callers of their old path (consolidation imports extraction, never the reverse).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..extraction.proposals import (
    BatchExtractor,
    BatchPlan,
    ConsolidationSource,
    ExtractorSource,
    OpName,
    Proposal,
    deterministic_batch,
)
from ..types import ConsolidationResult, FactDecision

__all__ = [
    "BatchExtractor",
    "BatchPlan",
    "ConsolidationSource",
    "ExtractorSource",
    "OpName",
    "Proposal",
    "deterministic_batch",
    "tally",
]


def tally(
    decisions: Sequence[FactDecision], *, processed: int = 0, failed: int = 0, fallback: int = 0
) -> ConsolidationResult:
    """Count decisions by operation (pure)."""
    ops = [d.op for d in decisions]
    return ConsolidationResult(
        added=ops.count("ADD"),
        updated=ops.count("UPDATE"),
        invalidated=ops.count("DELETE"),
        noop=ops.count("NOOP"),
        episodes_processed=processed,
        failed_episodes=failed,
        fallback_episodes=fallback,
        decisions=tuple(decisions),
    )
