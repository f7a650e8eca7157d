"""Fusion and priors: pure functions over ranks, scores and timestamps."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from datetime import datetime

from ..memory.lifecycle_rules import effective_weight

__all__ = ["min_max", "recency", "rrf", "saturating", "weight_at", "weight_reference"]


def rrf(rankings: Mapping[str, Sequence[Hashable]], weights: Mapping[str, float], k: float = 60.0
        ) -> dict[Hashable, dict[str, float]]:
    """Weighted reciprocal rank fusion.

    Returns, per item, the contribution of every signal that ranked it
    (``weight / (k + rank)``, rank starting at 1); the fused score is their sum.
    """
    out: dict[Hashable, dict[str, float]] = {}
    for signal, ranked in rankings.items():
        w = weights.get(signal, 0.0)
        if w <= 0:
            continue
        for rank, key in enumerate(ranked, start=1):
            out.setdefault(key, {})[signal] = w / (k + rank)
    return out


def recency(ts: datetime | None, now: datetime, half_life_days: float) -> float:
    """1.0 for now, 0.5 one half-life ago; future times count as now."""
    if ts is None:
        return 0.0
    age = max(0.0, (now - ts).total_seconds() / 86400)
    return math.pow(0.5, age / half_life_days)


def saturating(count: int, scale: float = 5.0) -> float:
    """Diminishing-returns map of a count to [0, 1): ``ln(1+n)/ln(1+n+scale)``."""
    if count <= 0:
        return 0.0
    return math.log1p(count) / math.log1p(count + scale)


def min_max(values: Sequence[float]) -> list[float]:
    """Scale to [0, 1] (all equal -> all 1.0)."""
    if not values:
        return []
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        return [1.0 for _ in values]
    return [(v - lo) / (hi - lo) for v in values]


def weight_reference(moment: datetime, latest: datetime | None) -> datetime:
    """The present that effective weights decay towards: ``moment`` (the query's ``as_of``, or
    now), but no later than the user's latest turn ``latest`` (``None``: no turns, ``moment``).

    Within one user's candidates, moving the reference only scales every decay factor by the
    same amount (the decay is exponential), but the prior is added to relevance scores, so its
    scale matters: time in which the user said nothing (an imported history, a user back after
    a year, LoCoMo's conversations dated years ago) would otherwise shrink every weight towards
    zero and switch the signal off unasked. Anchored at the latest turn, the newest memory has
    its full weight and older ones decay with the time that passed in the user's own timeline.
    """
    return moment if latest is None or latest >= moment else latest


def weight_at(
    importance: float, access_count: int, event_time: datetime | None, reference: datetime, *,
    access_mult: float, decay_rate: float,
) -> float:
    """The lifecycle's effective weight of a memory at ``reference``
    (:func:`~nova_memory_integrations.memory.lifecycle_rules.effective_weight`, age in days from
    ``event_time``; an event after the reference counts as age 0, no event time as no decay)."""
    age_days = 0.0 if event_time is None else (reference - event_time).total_seconds() / 86400
    return effective_weight(importance, access_count, age_days, access_mult=access_mult, decay_rate=decay_rate)
