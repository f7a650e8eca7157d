"""Reranking stage: score retrieved candidates against the query.

Implementations:

* :class:`FlashRankReranker` - flashrank ONNX cross-encoder from a pre-placed directory.
* :class:`CrossEncoderReranker` - sentence-transformers ``CrossEncoder`` from local disk.
* :class:`LexicalSemanticReranker` - model-free BM25 overlap blended with embedding
  cosine, the fallback when no cross-encoder is on disk.

Use :func:`make_reranker` to build one from configuration. No model is ever
downloaded; heavy libraries (flashrank, onnxruntime, sentence-transformers, torch) are
imported only when a model-backed reranker is constructed.
"""

from __future__ import annotations

from .base import ModelNotAvailable as ModelNotAvailable
from .base import Reranker
from .cross_encoder import CrossEncoderReranker
from .factory import make_reranker
from .fallback import LexicalSemanticReranker
from .flashrank import FlashRankReranker

__all__ = [
    "Reranker",
    "FlashRankReranker",
    "CrossEncoderReranker",
    "LexicalSemanticReranker",
    "make_reranker",
]
