"""sentence-transformers ``CrossEncoder`` reranker loaded from a local directory only."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .base import ModelNotAvailable

__all__ = ["CrossEncoderReranker"]

_MARKER_FILES = ("config.json", "modules.json")
_BATCH_SIZE = 32


def _sigmoid(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out: npt.NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(x, -60.0, 60.0)))
    return out


class CrossEncoderReranker:
    """Reranking with a sentence-transformers cross-encoder saved on local disk.

    The directory is what ``CrossEncoder.save_pretrained`` (or a Hugging Face snapshot
    of e.g. ``cross-encoder/ms-marco-MiniLM-L6-v2``) produces: ``config.json``, the
    weights and the tokenizer files. It is loaded with ``local_files_only=True``.

    Args:
        model_path: The local model directory.
        max_length: Maximum tokens per (query, passage) pair.
        device: Torch device (``"cpu"``, ``"cuda"``, ...); ``None`` lets
            sentence-transformers choose.

    Raises:
        ModelNotAvailable: sentence-transformers is not installed, the directory does
            not exist or holds no model, or the model fails to load.
        ValueError: ``max_length`` is not positive.
    """

    def __init__(
        self,
        model_path: str | Path,
        max_length: int = 256,
        *,
        device: str | None = None,
    ) -> None:
        if max_length < 1:
            raise ValueError(f"max_length must be positive, got {max_length}")
        path = Path(model_path).expanduser()
        if not path.is_dir():
            raise ModelNotAvailable(f"cross-encoder model directory {path} does not exist")
        if not any((path / name).is_file() for name in _MARKER_FILES):
            raise ModelNotAvailable(
                f"{path} holds no model (expected {' or '.join(_MARKER_FILES)}, weights "
                "and tokenizer files as written by CrossEncoder.save_pretrained)"
            )
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as exc:
            raise ModelNotAvailable("the 'sentence-transformers' package is not installed") from exc
        try:
            self._model: Any = CrossEncoder(str(path), max_length=max_length, local_files_only=True, device=device)
        except Exception as exc:  # transformers raises OSError/ValueError/...
            raise ModelNotAvailable(f"cross-encoder in {path} failed to load: {exc}") from exc
        self.model_path = path
        self.name = f"cross-encoder:{path.name}"
        self._outputs_probabilities = self._activation_is("Sigmoid")
        self._outputs_logits = self._activation_is("Identity")

    def _activation_is(self, class_name: str) -> bool:
        activation = getattr(self._model, "activation_fn", None)
        return activation is not None and type(activation).__name__ == class_name

    def __repr__(self) -> str:
        return f"CrossEncoderReranker(model_path={str(self.model_path)!r})"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Score every text against the query with the cross-encoder.

        Single-label models: the model's own activation is applied (sigmoid by
        default); when it is the identity, or when its outputs leave ``[0, 1]``, the
        logits are passed through a sigmoid. Multi-label models: softmax, probability
        of label 1 (the "relevant" class of binary rerankers).

        Args:
            query: The search query.
            texts: The candidate passages.

        Returns:
            Relevance scores in ``[0, 1]``, in input order.
        """
        if not texts:
            return []
        raw = self._model.predict(
            [(query, text) for text in texts],
            batch_size=_BATCH_SIZE,
            show_progress_bar=False,
            convert_to_numpy=True,
        )
        scores = np.asarray(raw, dtype=np.float64)
        if scores.ndim == 2 and scores.shape[1] > 1:
            if np.any(scores < 0.0) or np.any(scores > 1.0) or not np.allclose(scores.sum(1), 1.0):
                shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
                scores = shifted / shifted.sum(axis=1, keepdims=True)
            scores = scores[:, 1]
        else:
            scores = scores.reshape(len(texts))
            if not self._outputs_probabilities and (
                self._outputs_logits or np.any(scores < 0.0) or np.any(scores > 1.0)
            ):
                scores = _sigmoid(scores)
        return [float(s) for s in scores]
