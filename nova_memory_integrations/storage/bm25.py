"""BM25 as SQLite's FTS5 computes it (``bm25()`` of ``fts5_aux.c``), for stores without FTS5.

The Postgres store finds a keyword query's rows with Postgres full text (a tsquery over the GIN
indexes) and ranks them here, so a keyword hit weighs the same on either database: ``ts_rank``
(Postgres' own ranking) has no IDF and no length normalisation, and with it the LoCoMo held-out
figures were 0.012 to 0.021 below SQLite's (issue #39). Pure: the caller counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["B", "K1", "bm25", "idf"]

K1 = 1.2
"""FTS5's term-frequency saturation."""
B = 0.75
"""FTS5's length normalisation."""
_IDF_FLOOR = 1e-6
"""FTS5's IDF for a phrase in half the rows or more (its formula would make it 0 or negative)."""


def idf(rows: int, found: int) -> float:
    """The weight of a phrase found in ``found`` of ``rows`` rows (FTS5's, floored at 1e-6)."""
    value = math.log((rows - found + 0.5) / (found + 0.5))
    return value if value > 0 else _IDF_FLOOR


def bm25(freqs: Sequence[int], length: float, mean_length: float, idfs: Sequence[float]) -> float:
    """One row's BM25 (higher is better; FTS5's ``-bm25()``): ``freqs[i]`` occurrences of phrase
    ``i`` (weight ``idfs[i]``) in a row of ``length`` tokens, rows holding ``mean_length`` on average.

    Raises:
        ValueError: ``freqs`` and ``idfs`` differ in length.
    """
    if len(freqs) != len(idfs):
        raise ValueError(f"{len(freqs)} phrase counts but {len(idfs)} weights")
    norm = K1 * (1 - B + B * length / mean_length) if mean_length > 0 else K1
    return sum(w * f * (K1 + 1) / (f + norm) for f, w in zip(freqs, idfs) if f)
