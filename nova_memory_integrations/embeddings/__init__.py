"""Embedders: one protocol (:mod:`.base`), one module per backend, one factory.

- :mod:`.base`: ``EmbeddingsLike`` (any LangChain ``Embeddings`` fits), the query/document
  cache every store wraps its embedder in, and the name of the vector space it writes.
- :mod:`.onnx`: the packaged all-MiniLM-L6-v2 on ONNX Runtime (the default).
- :mod:`.torch`: the same model on sentence-transformers (and the ONNX fallback).
- :mod:`.factory`: :func:`default_embeddings`, the backend per ``[embeddings] backend``.

Importing this package is cheap: numpy, onnxruntime and torch load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .base import (
    PACKAGED_MODEL_NAME,
    CachedEmbedder,
    EmbeddingsLike,
    embedding_space,
    is_packaged_model,
    minilm_space,
    packaged_model_path,
)
from .factory import default_embeddings
from .torch import MiniLMEmbeddings

if TYPE_CHECKING:
    from .onnx import OnnxMiniLMEmbeddings

__all__ = [
    "PACKAGED_MODEL_NAME",
    "CachedEmbedder",
    "EmbeddingsLike",
    "MiniLMEmbeddings",
    "OnnxMiniLMEmbeddings",
    "default_embeddings",
    "embedding_space",
    "is_packaged_model",
    "minilm_space",
    "packaged_model_path",
]


def __getattr__(name: str) -> Any:
    if name == "OnnxMiniLMEmbeddings":
        value = import_module(".onnx", __name__).OnnxMiniLMEmbeddings
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
