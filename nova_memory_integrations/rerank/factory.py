"""Build the configured reranker, falling back to the model-free scorer in ``auto`` mode."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from .base import ModelNotAvailable, Reranker
from .cross_encoder import CrossEncoderReranker
from .fallback import EmbedFn, LexicalSemanticReranker
from .flashrank import DEFAULT_FLASHRANK_MODEL, FlashRankReranker

__all__ = ["KINDS", "make_reranker"]

KINDS = ("auto", "flashrank", "cross-encoder", "fallback")
"""The accepted values of ``make_reranker(kind=...)`` (``retrieval.reranker``)."""

logger = logging.getLogger("nova_memory_integrations.rerank")

_warn_lock = threading.Lock()
_fallback_warned = False

_LAYOUT_HINT = (
    "To use a cross-encoder, pre-place a flashrank model (nothing is ever downloaded) "
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
    global _fallback_warned
    with _warn_lock:
        _fallback_warned = False


def _warn_fallback_once(reason: str) -> None:
    global _fallback_warned
    with _warn_lock:
        if _fallback_warned:
            return
        _fallback_warned = True
    short = " ".join(reason.split()).split(". ")[0]
    short = short if len(short) <= 90 else short[:87] + "..."
    logger.warning(
        "No cross-encoder reranker model found (%s); using the fallback. Use one: "
        "retrieval.reranker_model_dir holding ms-marco-MiniLM-L-12-v2/flashrank-MiniLM-L-12-v2_Q.onnx; "
        "silence: retrieval.reranker = \"fallback\".",
        short,
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
) -> Reranker:
    """Create a reranker.

    Args:
        kind: ``"auto"`` (FlashRank from ``model_dir`` when its model is there, else
            the fallback, with one warning per process), ``"flashrank"``,
            ``"cross-encoder"`` or ``"fallback"``.
        model_name: The flashrank model name (default ``ms-marco-MiniLM-L-12-v2``),
            or for ``"cross-encoder"`` a sub-directory of ``model_dir`` (or a path).
        model_dir: For flashrank, the directory holding ``<model_name>/`` (the model
            folder itself is accepted too; ``None`` = flashrank's default cache dir for
            an explicit ``"flashrank"``, and straight to the fallback for ``"auto"``).
            For ``"cross-encoder"``, the model directory.
        embed: Embedding function for the fallback's cosine component.

    Returns:
        A :class:`~nova_memory_integrations.rerank.base.Reranker`.

    Raises:
        ModelNotAvailable: ``"flashrank"`` or ``"cross-encoder"`` was requested and its
            model (or library) is not available locally.
        ValueError: unknown ``kind``.
    """
    normalised = kind.strip().lower().replace("_", "-")
    directory = Path(model_dir).expanduser() if model_dir is not None else None
    if normalised == "fallback":
        return LexicalSemanticReranker(embed=embed)
    if normalised == "flashrank":
        name = model_name or DEFAULT_FLASHRANK_MODEL
        cache_dir = _flashrank_cache_dir(name, directory) if directory is not None else None
        try:
            return FlashRankReranker(name, cache_dir=cache_dir)
        except ModelNotAvailable as exc:
            raise ModelNotAvailable(f"{exc}. {_LAYOUT_HINT}") from exc
    if normalised == "cross-encoder":
        return CrossEncoderReranker(_cross_encoder_path(model_name, directory))
    if normalised == "auto":
        if directory is None:
            reason = "no reranker model_dir configured"
        else:
            name = model_name or DEFAULT_FLASHRANK_MODEL
            try:
                return FlashRankReranker(name, cache_dir=_flashrank_cache_dir(name, directory))
            except ModelNotAvailable as exc:
                reason = str(exc)
        _warn_fallback_once(reason)
        return LexicalSemanticReranker(embed=embed)
    raise ValueError(f"unknown reranker kind {kind!r}; expected one of {', '.join(KINDS)}")
