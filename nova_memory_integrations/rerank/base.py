"""The reranker protocol and its shared error type.

A reranker scores ``(query, text)`` pairs for relevance. Every implementation returns
one score per text, aligned with the input order, where a higher score means more
relevant and scores lie roughly in ``[0, 1]`` (cross-encoder logits are squashed with a
sigmoid), so that scores from different calls can be compared against a threshold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import NovaMemoryError

__all__ = ["ModelNotAvailable", "Reranker", "ScoresWithVectors"]


class ModelNotAvailable(NovaMemoryError, RuntimeError):
    """A reranking model (or the library that runs it) is not available locally.

    Raised instead of downloading (flashrank's own download is never used): models are
    pre-placed on disk or fetched into the model cache by :mod:`.fetch` when allowed.
    """


@runtime_checkable
class Reranker(Protocol):
    """Scores candidate texts for relevance to a query.

    Attributes:
        name: A short, human-readable identifier of the scorer (e.g.
            ``"flashrank:ms-marco-MiniLM-L-12-v2"``).
    """

    name: str

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Score every text against the query.

        Args:
            query: The search query.
            texts: The candidate passages.

        Returns:
            One score per text, in input order; higher is more relevant, roughly in
            ``[0, 1]``. An empty ``texts`` gives an empty list.
        """
        ...


@runtime_checkable
class ScoresWithVectors(Protocol):
    """A :class:`Reranker` that embeds what it compares, and can take the embeddings its caller
    already holds instead (the model-free fallback: recall hands it the vectors it has read)."""

    def score_with_vectors(
        self, query: str, texts: Sequence[str], vectors: Mapping[str, Sequence[float] | np.ndarray]
    ) -> list[float]:
        """:meth:`Reranker.score`, reusing ``vectors`` (text -> its embedding; the query's may be
        among them) and embedding only the texts missing from it."""
        ...
