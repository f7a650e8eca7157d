"""Fusion and priors: pure functions over ranks, scores and timestamps."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from datetime import datetime

__all__ = ["min_max", "recency", "rrf", "saturating"]


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
