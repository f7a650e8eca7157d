"""The default embedder of a store, per ``[embeddings] backend``: ONNX Runtime or torch."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..config import model_cache_dir
from .base import PACKAGED_MODEL_NAME, EmbeddingsLike
from .models import resolve_model
from .torch import MiniLMEmbeddings

if TYPE_CHECKING:
    from ..config import EmbeddingConfig

__all__ = ["default_embeddings"]


def default_embeddings(config: EmbeddingConfig, data_dir: str | os.PathLike[str] | None = None) -> EmbeddingsLike:
    """The default embedder of a store, per ``config.backend`` (nothing is loaded yet).

    Args:
        config: the ``[embeddings]`` section.
        data_dir: the store's data directory. Unused: the ONNX backend exports its model once
            per machine into ``<model cache>/embeddings`` (``config.model_cache_dir``, else
            ``$NOVA_MEMORY_MODEL_CACHE``, else ``~/.cache/nova-memory/models``), never into
            the data directory (a ``<data_dir>/models`` left by older versions is ignored).

    Returns:
        An :class:`~.onnx_embeddings.OnnxMiniLMEmbeddings` (``auto``: falls back to torch
        with one warning; ``onnx``: raises instead) or a :class:`MiniLMEmbeddings` (``torch``).
    """
    del data_dir  # kept for callers of the old signature
    cache = model_cache_dir(config.model_cache_dir)
    model_path = config.model_path
    if model_path is None and config.model != PACKAGED_MODEL_NAME:
        model_path = str(resolve_model(config.model, cache))
    if config.backend == "torch":
        return MiniLMEmbeddings(model_path, batch_size=config.batch_size,
                                max_seq_length=config.max_seq_length, torch_threads=config.torch_threads)
    from .onnx import OnnxMiniLMEmbeddings

    return OnnxMiniLMEmbeddings(
        model_path, cache_dir=cache / "embeddings",
        quantize=config.quantize, batch_size=config.batch_size, max_seq_length=config.max_seq_length,
        threads=config.onnx_threads, fallback=config.backend == "auto", torch_threads=config.torch_threads,
    )
