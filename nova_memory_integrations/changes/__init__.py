"""Belief changes: what a user message ends or corrects among the facts current at its time (issue #38).

Detect a change, then find what it changes. :func:`plan_changes` (pure) reads one message with the
user's current facts and returns a :class:`ChangePlan`: facts to end in valid time at the clause's
time (with the cue and the evidence as the reason), values to retract as never true (corrections),
the cues its guard layer kept from changing anything, and the facts an LLM should see first.
:class:`~.tracker.ChangeTracker` runs it in consolidation, after the extractor's own statements of
the episode are applied. Modules: :mod:`.lexicon` (the data), :mod:`.segments`, :mod:`.cues`,
:mod:`.guards`, :mod:`.targets` (the scoring function), :mod:`.corrections`, :mod:`.planner`,
:mod:`.tracker`. See ``docs/changes.md``.
"""

from __future__ import annotations

from .corrections import Correction, says_corrected
from .cues import has_cue
from .planner import ChangePlan, Ending, Guarded, Similarity, pending, plan_changes

__all__ = [
    "ChangePlan",
    "Correction",
    "Ending",
    "Guarded",
    "Similarity",
    "has_cue",
    "pending",
    "plan_changes",
    "says_corrected",
]
