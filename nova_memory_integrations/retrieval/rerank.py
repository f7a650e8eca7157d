"""Stage 3 of recall: the reranker's scores blended into the fused ones, for the head of the ranking.

The reranker itself is a provider (:mod:`nova_memory_integrations.rerank`); one that embeds what
it compares (the model-free fallback) is handed the vectors recall has read, as an argument.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ..rerank.base import Reranker, ScoresWithVectors
from ..storage.vectors import Vector
from .candidate import Candidate
from .fusion import min_max
from .search_config import Signal

__all__ = ["blend", "rerank", "reranker_scores"]


def rerank(
    reranker: Reranker, query: str, ranked: Sequence[Candidate], vectors: Mapping[str, Sequence[float] | Vector],
    *, top_n: int, weight: float,
) -> list[Candidate]:
    """``ranked`` (best first, fused scores) with its first ``top_n`` reranked: each gets the
    reranker's score (``rerank``, and that part of its score) and the :func:`blend` of both as
    its score; the rest keep their order below them, just under the lowest of the head.

    ``vectors`` (text -> vector, the query's too) go to a reranker that embeds
    (:class:`~nova_memory_integrations.rerank.base.ScoresWithVectors`), which then embeds only the
    texts missing from them.
    """
    head, tail = list(ranked[:top_n]), list(ranked[top_n:])
    scores = reranker_scores(reranker, query, [c.text for c in head], vectors)
    for cand, r, s in zip(head, scores, blend([c.score for c in head], scores, weight)):
        cand.rerank = float(r)
        cand.contributions[Signal.RERANK] = r
        cand.score = s
    floor = min((c.score for c in head), default=0.0)
    for i, cand in enumerate(tail):
        cand.score = floor - (i + 1) * 1e-6
    return sorted(head, key=lambda c: c.score, reverse=True) + tail


def reranker_scores(
    reranker: Reranker, query: str, texts: Sequence[str], vectors: Mapping[str, Sequence[float] | Vector],
) -> list[float]:
    """The reranker's score of each of ``texts`` (one that embeds reuses ``vectors``)."""
    if isinstance(reranker, ScoresWithVectors):
        return reranker.score_with_vectors(query, texts, vectors)
    return reranker.score(query, texts)


def blend(fused: Sequence[float], reranked: Sequence[float], weight: float) -> list[float]:
    """The head's new scores: ``(1 - weight) * f + weight * r``, with ``f`` the fused scores
    scaled to [0, 1] (:func:`~.fusion.min_max`) and ``r`` the reranker's; ``f`` alone where
    ``r`` is not finite."""
    return [(1 - weight) * f + weight * float(r) if math.isfinite(r) else f
            for f, r in zip(min_max(fused), reranked)]
