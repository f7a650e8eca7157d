"""Resolving a change's target by meaning (pure): rank the candidates, end the first only when it is clear.

Names, references and "the only state of its kind" resolve most cues (:mod:`.targets`); what they leave open
("switched to Firefox" with ``uses Chrome`` held, "switched over to Spanish" with ``learns German`` held) is
decided here, as a *resolver*, not as a bonus added to a score. The cosine (the store's MiniLM) of the new
value the change names and each held value (floor :data:`VALUE_COSINE`), else of the cue's clause and each
candidate's own words (an open fact's clause, a typed fact's source sentence, else the fact rendered as
text; floor :data:`RESOLVE_COSINE`) ranks the candidates the cue can end (never a relationship). The first
ends only when it reaches the floor and leads the best candidate of another state (a lone candidate: the
floor itself) by :data:`RESOLVE_MARGIN`. Ties and thin margins leave every fact alone (precision first).
Calibrated on the tuning set (no new false change) and checked on the test set (``benchmarks/beliefs.py``);
MiniLM is weak on bare brand names ("Neovim" is as close to "Nationwide" as to "Sublime Text"), which the
category restriction and the margin are there for.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .targets import FactInfo

__all__ = ["another_model", "RESOLVE_COSINE", "RESOLVE_MARGIN", "VALUE_COSINE", "Similarity", "meaning_text", "resolve"]

Similarity = Callable[[str, Sequence[str]], Sequence[float]]
"""A text and others -> the cosine of the text with each (the store's embedder; ``ChangeTracker.similarity``)."""

RESOLVE_COSINE = 0.45
"""Lowest cosine of the cue's clause and a candidate's words at which meaning alone may pick it."""
RESOLVE_MARGIN = 0.1
"""How far the first candidate's cosine must lead the best one of another state."""
VALUE_COSINE = 0.3
"""Lowest cosine of the new value a change names and a held value at which the held one is what it replaces."""
MIN_CLAUSE_WORDS = 4
"""A clause shorter than this ("Cut it.") is compared with its whole sentence instead."""


def meaning_text(info: FactInfo) -> str:
    """The words a candidate was told in: an open fact's clause, a typed fact's source sentence, else the
    fact rendered as text."""
    if info.clause:
        return info.clause
    source = (info.fact.metadata or {}).get("source_text")
    return str(source) if source else info.text


def resolve(candidates: Sequence[FactInfo], cosines: Sequence[float], *, floor: float = RESOLVE_COSINE,
            ) -> FactInfo | None:
    """The candidate meaning picks clearly (see the module docstring), else ``None``."""
    best: dict[str, tuple[float, FactInfo]] = {}
    for info, cosine in zip(candidates, cosines, strict=True):
        if info.state not in best or cosine > best[info.state][0]:
            best[info.state] = (cosine, info)
    ranked = sorted(best.values(), key=lambda x: -x[0])
    if not ranked or ranked[0][0] < floor:
        return None
    runner_up = ranked[1][0] if len(ranked) > 1 else floor  # a lone candidate must clear the floor by the margin
    if ranked[0][0] - runner_up < RESOLVE_MARGIN:
        return None
    return ranked[0][1]


_MODEL = re.compile(r"\b([a-z]+)[ -]?(\d+)\b", re.IGNORECASE)


def another_model(value: str, text: str) -> bool:
    """Whether ``text`` names another model of the line ``value`` holds ("PS4" for a held "PS5", "iPhone 12" for
    "iPhone 15"), and not that one: an ending of it is of another thing, however alike their meanings."""
    held = {(m.group(1).lower(), m.group(2)) for m in _MODEL.finditer(value)}
    said = {(m.group(1).lower(), m.group(2)) for m in _MODEL.finditer(text)}
    return not held & said and any(a == b and n != k for a, n in held for b, k in said)
