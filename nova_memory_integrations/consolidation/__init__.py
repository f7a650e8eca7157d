"""Consolidation: unprocessed episodes -> ADD / UPDATE / DELETE / NOOP on the fact memory.

- :mod:`.types`: proposals, batch plans and the sources that make them.
- :mod:`.consolidator`: applies proposals per batch in one transaction, dead letters.
- :mod:`.service`: what ``NovaStore.consolidate`` and its companions call.
- :mod:`.prompts`: the versioned LLM prompts and their output schemas.
"""

from __future__ import annotations

from .types import (
    BatchExtractor,
    BatchPlan,
    ConsolidationSource,
    ExtractorSource,
    Proposal,
    deterministic_batch,
    tally,
)

__all__ = [
    "BatchExtractor",
    "BatchPlan",
    "ConsolidationSource",
    "ExtractorSource",
    "Proposal",
    "deterministic_batch",
    "tally",
]
