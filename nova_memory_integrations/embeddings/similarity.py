"""Cosine similarity: the package's one implementation (a leaf: numpy only).

Retrieval (dense scores, sentence relevance, near-duplicates), the fallback reranker and the ONNX
export check all compare vectors through these two functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["Vectors", "cosines", "unit_rows"]

Vectors: TypeAlias = npt.ArrayLike | Sequence[Sequence[float] | npt.NDArray[Any]]
"""One vector or several: lists of floats, arrays, or a mix of both (one per row)."""


def unit_rows(vectors: Vectors, dtype: npt.DTypeLike = np.float32) -> npt.NDArray[Any]:
    """``vectors`` (one vector, or a matrix of one per row) scaled to length 1; a zero vector stays zero."""
    m: npt.NDArray[Any] = np.asarray(vectors, dtype=dtype)  # type: ignore[arg-type]
    norms = np.linalg.norm(m, axis=-1, keepdims=True)
    out: npt.NDArray[Any] = m / np.where(norms == 0, 1.0, norms).astype(m.dtype)
    return out


def cosines(vectors: Vectors, query: Vectors, dtype: npt.DTypeLike = np.float32) -> npt.NDArray[Any]:
    """The cosine of each of ``vectors`` (at least one) to ``query``, in one matrix product (0 for a
    zero vector)."""
    out: npt.NDArray[Any] = unit_rows(vectors, dtype) @ unit_rows(query, dtype)
    return out
