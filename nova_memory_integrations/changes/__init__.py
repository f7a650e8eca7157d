"""Belief changes: what a user message ends or corrects among the facts current at its time.

Detect a change, then find what it changes. :func:`plan_changes` (pure) reads one message with the
user's current facts and returns a :class:`ChangePlan`: facts to end in valid time (with the cue and
the evidence as the reason), values to retract as never true (corrections), and the cues its guard
layer kept from changing anything. :class:`ChangeTracker` runs it in consolidation, after the
extractor's own statements of the episode are applied.
"""

from __future__ import annotations

from .corrections import Correction
from .cues import has_cue
from .planner import ChangePlan, Ending, Guarded, Similarity, plan_changes

__all__ = ["ChangePlan", "Correction", "Ending", "Guarded", "Similarity", "has_cue", "plan_changes"]
