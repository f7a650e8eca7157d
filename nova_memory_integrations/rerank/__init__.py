"""Reranking stage: score retrieved candidates against the query.

Implementations:

* :class:`FlashRankReranker` - flashrank ONNX cross-encoder from a local directory: a
  pre-placed one, or the per-machine model cache, fetched into on first use (:mod:`.fetch`).
* :class:`CrossEncoderReranker` - sentence-transformers ``CrossEncoder`` from local disk.
* :class:`LexicalSemanticReranker` - model-free BM25 overlap blended with embedding
  cosine, the fallback when no cross-encoder is on disk.

Use :func:`make_reranker` (or :func:`make_reranker_from_config`) to build one from
configuration. Only :mod:`.fetch` downloads, only into the model cache, and never when
fetching is off (``retrieval.reranker_fetch = false``, ``NOVA_MEMORY_OFFLINE=1``,
``HF_HUB_OFFLINE=1``). Heavy libraries (flashrank, onnxruntime, sentence-transformers,
torch) are imported only when a model-backed reranker is constructed.
"""

from __future__ import annotations

from .base import ModelNotAvailable as ModelNotAvailable
from .base import Reranker
from .cross_encoder import CrossEncoderReranker
from .factory import make_reranker, make_reranker_from_config
from .fallback import LexicalSemanticReranker
from .flashrank import FlashRankReranker

__all__ = [
    "Reranker",
    "FlashRankReranker",
    "CrossEncoderReranker",
    "LexicalSemanticReranker",
    "make_reranker",
    "make_reranker_from_config",
]
