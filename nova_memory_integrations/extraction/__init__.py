"""Fact extraction: turn conversation turns into candidate ``subject-predicate-object`` facts."""

from __future__ import annotations

from .base import CandidateFact, Extractor
from .deterministic import DeterministicExtractor
from .timeparse import resolve_relative_time

__all__ = ["CandidateFact", "DeterministicExtractor", "Extractor", "resolve_relative_time"]
