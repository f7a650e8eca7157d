"""The relevance floor: a query whose best match is weak gets no memories for relevance.

Recall always returns *something*: a question about a thing never discussed still ranks the
user's turns and fills the budget with the least unrelated ones, tokens the model may read as
relevant. The floor reads two absolute facts of one recall (:func:`relevance_of`): the best cosine
of any retrieved item's vector to the dense query (fused and reranked scores are scaled per query,
so they cannot say "nothing here"), and whether any item was found by a keyword of the query (BM25
over turns or facts). A query is gated (:func:`gated`) when its best match is below
``SearchConfig.relevance_floor``, or when no keyword matched and its best match is below
``SearchConfig.unmatched_floor``: a question whose words the user never used needs a closer
meaning to count. Gated, every relevant item is dropped; the guaranteed slots (pinned blocks,
important facts) are not relevance items and stay.

The gate is per query, not per item: a turn that carries the answer next to the turn that matched
often has a low cosine of its own, and cutting it would cost recall. Both floors were calibrated
on LoCoMo's held-out folds (``benchmarks/locomo.py --cv --cv-floors``; see ``SearchConfig``).
Pure: numpy through the package's one cosine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..embeddings.similarity import cosines
from .candidate import Candidate
from .search_config import SearchConfig, Signal

__all__ = ["Relevance", "gated", "relevance_of"]

_KEYWORD = (Signal.LEXICAL, Signal.FACT_LEXICAL)


@dataclass(frozen=True)
class Relevance:
    """What the floor compares: ``best`` (``None`` when nothing was compared: no query vector or no
    hit with a vector) and ``keyword`` (an item was found by a keyword of the query)."""

    best: float | None
    keyword: bool


def relevance_of(hits: Sequence[Candidate], query_vector: Sequence[float] | None) -> Relevance:
    """The :class:`Relevance` of one recall's hits; ``best`` is ``None`` when a hit has no vector
    (a turn the indexer has not reached, found by its keywords): it may be the match, so the
    floor fails open."""
    keyword = any(s in c.raw for c in hits for s in _KEYWORD)
    vectors = [c.vector for c in hits if c.vector is not None]
    if query_vector is None or not vectors or len(vectors) < len(hits):
        return Relevance(None, keyword)
    return Relevance(round(float(cosines(vectors, query_vector).max()), 6), keyword)


def gated(rel: Relevance, config: SearchConfig) -> str | None:
    """Why a query of relevance ``rel`` gets no relevance items under ``config``'s floors, or
    ``None`` when it does get them (floors at ``0`` are off; an unknown best match never gates:
    fail open)."""
    if rel.best is None:
        return None
    if rel.best < config.relevance_floor:
        return f"below the relevance floor: best match {rel.best:.2f} < {config.relevance_floor:g}"
    if not rel.keyword and rel.best < config.unmatched_floor:
        return (f"below the relevance floor: no keyword matched and best match {rel.best:.2f} < "
                f"{config.unmatched_floor:g}")
    return None
