"""Fact extraction: turn conversation turns into candidate ``subject-predicate-object`` facts.

- :mod:`.base`: candidate facts and the extractor protocol.
- :mod:`.deterministic`: the rule-based extractor (with ``_rules``, ``_endings``, ``_objects``,
  ``_clauses``; its words, sentences and dates come from the text layer, ``text/``).
- :mod:`.llm`: the LLM extractor, :mod:`.prompts` its versioned prompts, :mod:`.llms` the chat
  model adapters.
- :mod:`.proposals`: what a source proposes to consolidation (proposals, batch plans, the source
  protocol). Consolidation imports extraction; extraction never imports consolidation.
"""

from __future__ import annotations

from ..text.dates import resolve_relative_time
from .base import CandidateFact, Extractor
from .deterministic import DeterministicExtractor

__all__ = ["CandidateFact", "DeterministicExtractor", "Extractor", "resolve_relative_time"]
