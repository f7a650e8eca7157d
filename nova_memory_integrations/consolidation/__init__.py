"""Consolidation: unprocessed episodes -> ADD / UPDATE / DELETE / NOOP on the fact memory.

- :mod:`.types`: the tally of a run (and, re-exported, the proposal types).
- :mod:`.consolidator`: applies proposals per batch in one transaction, dead letters.
- :mod:`.negation`: what an ending closes, planned before ``FactMemory.apply`` (pure).
- :mod:`.service`: what ``NovaStore.consolidate`` and its companions call.
- :mod:`.by_model`: batched background consolidation with an agent's own chat model.

The proposals, batch plans and sources (:mod:`nova_memory_integrations.extraction.proposals`)
and the LLM prompts (:mod:`nova_memory_integrations.extraction.prompts`) live with the
extractors that make them: consolidation imports extraction, never the reverse.
"""

from __future__ import annotations

from ..extraction.proposals import (
    BatchExtractor,
    BatchPlan,
    ConsolidationSource,
    ExtractorSource,
    Proposal,
    deterministic_batch,
)
from .types import tally

__all__ = [
    "BatchExtractor",
    "BatchPlan",
    "ConsolidationSource",
    "ExtractorSource",
    "Proposal",
    "deterministic_batch",
    "tally",
]
