"""Build the configured reranker, falling back to the model-free scorer in ``auto`` mode.

Without a local model directory, ``auto`` and ``flashrank`` take the flashrank model from the
per-machine model cache, fetching it there on first use (:mod:`.fetch`) unless fetching is off.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .._once import WarnOnce
from .base import ModelNotAvailable, Reranker
from .cross_encoder import CrossEncoderReranker
from .fallback import EmbedFn, LexicalSemanticReranker
from .fetch import FETCH_MODEL, ensure_model, rerankers_dir
from .flashrank import DEFAULT_FLASHRANK_MODEL, FlashRankReranker, required_files

if TYPE_CHECKING:
    from ..config import NovaConfig

__all__ = ["KINDS", "make_reranker", "make_reranker_from_config"]

KINDS = ("auto", "flashrank", "cross-encoder", "fallback")
"""The accepted values of ``make_reranker(kind=...)`` (``retrieval.reranker``)."""

logger = logging.getLogger("nova_memory_integrations.rerank")

_FALLBACK_WARNING = WarnOnce(logger)
"""The one line of a process that falls back to the lexical-semantic reranker."""

_LAYOUT_HINT = (
    "To use a cross-encoder, pre-place a flashrank model (nothing is downloaded into it) "
    "and set retrieval.reranker_model_dir (make_reranker(model_dir=...)) to its parent: "
    "<model_dir>/ms-marco-MiniLM-L-12-v2/ holding flashrank-MiniLM-L-12-v2_Q.onnx, "
    "tokenizer.json, tokenizer_config.json, special_tokens_map.json and config.json "
    "(the unzipped https://huggingface.co/prithivida/flashrank/resolve/main/"
    "ms-marco-MiniLM-L-12-v2.zip; other flashrank models use the .onnx name from "
    "flashrank.Config.model_file_map), or use reranker='cross-encoder' with a local "
    "sentence-transformers CrossEncoder directory."
)


def _reset_fallback_warning() -> None:
    """Forget that the fallback warning was logged (for tests)."""
    _FALLBACK_WARNING.reset()


def _one_line(reason: str) -> str:
    """The whole reason on one line (never cut: its end says what to do)."""
    return " ".join(reason.split()).rstrip(".")


def _warn_unfetched_once(reason: str) -> None:
    """The one line when the cache has no model and fetching is off or failed: why, what to do, how to silence it."""
    _FALLBACK_WARNING.warn("nova-memory: no reranker model, using the fallback reranker: %s. To silence this, set "
                           "retrieval.reranker = \"fallback\"", _one_line(reason))


def _warn_fallback_once(reason: str) -> None:
    """The one line when ``retrieval.reranker_model_dir`` holds no usable model."""
    _FALLBACK_WARNING.warn(
        "nova-memory: no reranker model in retrieval.reranker_model_dir, using the fallback reranker: %s. "
        "Put ms-marco-MiniLM-L-12-v2/ (flashrank-MiniLM-L-12-v2_Q.onnx and its tokenizer files) there; "
        "to silence this, set retrieval.reranker = \"fallback\"",
        _one_line(reason),
    )


def _flashrank_cache_dir(model_name: str, model_dir: Path) -> Path:
    """Accept ``model_dir`` pointing at the model folder itself, not only its parent."""
    if not (model_dir / model_name).is_dir() and model_dir.name == model_name:
        return model_dir.parent
    return model_dir


def _cross_encoder_path(model_name: str | None, model_dir: Path | None) -> Path:
    if model_dir is not None and model_name is not None:
        return model_dir / model_name
    if model_dir is not None:
        return model_dir
    if model_name is not None:
        return Path(model_name).expanduser()
    raise ModelNotAvailable(
        "reranker='cross-encoder' needs a local model directory: pass model_dir "
        "(and optionally model_name, a sub-directory of it)"
    )


def make_reranker(
    kind: str = "auto",
    *,
    model_name: str | None = None,
    model_dir: str | Path | None = None,
    embed: EmbedFn | None = None,
    fetch: bool | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    url: str | None = None,
) -> Reranker:
    """Create a reranker.

    Args:
        kind: ``"auto"`` (FlashRank from ``model_dir`` when its model is there; without
            ``model_dir``, from the model cache, fetched on first use; else the fallback,
            with one warning per process), ``"flashrank"``, ``"cross-encoder"`` or
            ``"fallback"``.
        model_name: The flashrank model name (default ``ms-marco-MiniLM-L-12-v2`` in
            ``model_dir``, ``ms-marco-TinyBERT-L-2-v2`` from the model cache), or for
            ``"cross-encoder"`` a sub-directory of ``model_dir`` (or a path).
        model_dir: For flashrank, the directory holding ``<model_name>/`` (the model
            folder itself is accepted too; nothing is ever fetched into it); ``None`` =
            ``<model cache>/rerankers``, fetched into when allowed. For
            ``"cross-encoder"``, the model directory.
        embed: Embedding function for the fallback's cosine component.
        fetch: Whether a model missing from the model cache may be downloaded
            (``retrieval.reranker_fetch``; ``None`` = yes). ``NOVA_MEMORY_OFFLINE=1`` or
            ``HF_HUB_OFFLINE=1`` in the environment always means no.
        cache_dir: The model cache (``embeddings.model_cache_dir``); ``None`` = the default
            (``$NOVA_MEMORY_MODEL_CACHE`` or ``~/.cache/nova-memory/models``).
        url: Base URL of fetched models (``retrieval.reranker_url``); ``None`` =
            ``$NOVA_MEMORY_MODEL_URL`` or flashrank's.

    Returns:
        A :class:`~nova_memory_integrations.rerank.base.Reranker`.

    Raises:
        ModelNotAvailable: ``"flashrank"`` or ``"cross-encoder"`` was requested and its
            model (or library) is not available (for ``"flashrank"`` without ``model_dir``:
            neither cached nor fetched). ``"auto"`` never raises it.
        ValueError: unknown ``kind``.
    """
    normalised = kind.strip().lower().replace("_", "-")
    directory = Path(model_dir).expanduser() if model_dir is not None else None
    if normalised == "fallback":
        return LexicalSemanticReranker(embed=embed)
    if normalised == "flashrank":
        if directory is None:
            return _cached_flashrank(model_name or FETCH_MODEL, fetch, cache_dir, url)
        name = model_name or DEFAULT_FLASHRANK_MODEL
        try:
            return FlashRankReranker(name, cache_dir=_flashrank_cache_dir(name, directory))
        except ModelNotAvailable as exc:
            raise ModelNotAvailable(f"{exc}. {_LAYOUT_HINT}") from exc
    if normalised == "cross-encoder":
        return CrossEncoderReranker(_cross_encoder_path(model_name, directory))
    if normalised == "auto":
        if directory is None:
            try:
                return _cached_flashrank(model_name or FETCH_MODEL, fetch, cache_dir, url)
            except ModelNotAvailable as exc:
                _warn_unfetched_once(str(exc))
                return LexicalSemanticReranker(embed=embed)
        name = model_name or DEFAULT_FLASHRANK_MODEL
        try:
            return FlashRankReranker(name, cache_dir=_flashrank_cache_dir(name, directory))
        except ModelNotAvailable as exc:
            _warn_fallback_once(str(exc))
        return LexicalSemanticReranker(embed=embed)
    raise ValueError(f"unknown reranker kind {kind!r}; expected one of {', '.join(KINDS)}")


def _cached_flashrank(
    name: str, fetch: bool | None, cache_dir: str | os.PathLike[str] | None, url: str | None
) -> FlashRankReranker:
    """flashrank from ``<model cache>/rerankers/<name>``, fetched there first when missing and allowed."""
    required_files(name)  # flashrank installed and the name known, before any download
    path = ensure_model(name, rerankers_dir(cache_dir), fetch=fetch, url=url)
    return FlashRankReranker(name, cache_dir=path.parent)


def make_reranker_from_config(config: NovaConfig, *, embed: EmbedFn | None = None) -> Reranker:
    """:func:`make_reranker` with every setting of ``config`` (``[retrieval]`` and the model cache).

    Args:
        config: a store's configuration.
        embed: Embedding function for the fallback's cosine component.
    """
    rc = config.retrieval
    return make_reranker(rc.reranker, model_name=rc.reranker_model_name, model_dir=rc.reranker_model_dir,
                         embed=embed, fetch=rc.reranker_fetch, cache_dir=config.embeddings.model_cache_dir,
                         url=rc.reranker_url)
