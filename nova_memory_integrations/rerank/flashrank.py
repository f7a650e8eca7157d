"""FlashRank (ONNX cross-encoder) reranker that never downloads.

flashrank's ``Ranker`` downloads and unzips a model whenever
``<cache_dir>/<model_name>/`` does not exist, and calls ``logging.basicConfig`` on
every construction. :class:`FlashRankReranker` checks the on-disk layout itself first
and raises :class:`~nova_memory_integrations.rerank.base.ModelNotAvailable` when a file
is missing, and it restores the root logger after constructing the ``Ranker``.

On-disk layout expected under ``cache_dir`` (the names come from flashrank's
``flashrank.Config.model_file_map``)::

    <cache_dir>/<model_name>/
        <model file>              e.g. flashrank-MiniLM-L-12-v2_Q.onnx
        tokenizer.json            read with tokenizers.Tokenizer.from_file
        tokenizer_config.json     needs "model_max_length" and "pad_token"
        special_tokens_map.json   every value is added as a special token
        config.json               needs "pad_token_id"
        vocab.txt                 optional

Listwise LLM rankers (``rank_zephyr_7b_v1_full``) only need their ``.gguf`` file and the
``llama_cpp`` package; they return an order, not scores, so scores are derived from
the rank.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from .base import ModelNotAvailable

__all__ = ["DEFAULT_FLASHRANK_MODEL", "FlashRankReranker", "required_files"]

DEFAULT_FLASHRANK_MODEL = "ms-marco-MiniLM-L-12-v2"
"""The default flashrank model name (a quantised ms-marco MiniLM-L-12 cross-encoder)."""

_TOKENIZER_FILES: tuple[str, ...] = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "config.json",
)
_BATCH_SIZE = 64
"""Pairwise models score at most this many passages per ONNX run (bounds memory)."""

_ROOT_LOGGER_LOCK = threading.Lock()


def _flashrank_config() -> tuple[Mapping[str, str], frozenset[str], str]:
    """Read flashrank's model table, its listwise models and its default cache dir.

    Raises:
        ModelNotAvailable: flashrank is not installed.
    """
    try:
        from flashrank import Config
    except ImportError as exc:
        raise ModelNotAvailable("the 'flashrank' package is not installed (pip install flashrank)") from exc
    model_file_map: Mapping[str, str] = dict(Config.model_file_map)
    listwise: frozenset[str] = frozenset(Config.listwise_rankers)
    default_cache_dir: str = str(Config.default_cache_dir)
    return model_file_map, listwise, default_cache_dir


def required_files(model_name: str) -> tuple[str, ...]:
    """The file names flashrank reads from ``<cache_dir>/<model_name>/``.

    Args:
        model_name: A model name known to flashrank.

    Returns:
        The model file first, then the tokenizer files (none for listwise models).

    Raises:
        ModelNotAvailable: flashrank is missing or does not know ``model_name``.
    """
    model_file_map, listwise, _ = _flashrank_config()
    model_file = model_file_map.get(model_name)
    if model_file is None:
        known = ", ".join(sorted(model_file_map))
        raise ModelNotAvailable(f"flashrank has no model named {model_name!r} (known: {known})")
    if model_name in listwise:
        return (model_file,)
    return (model_file, *_TOKENIZER_FILES)


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelNotAvailable(f"{path}: unreadable JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise ModelNotAvailable(f"{path}: expected a JSON object")
    return data


def _check_layout(model_dir: Path, files: Sequence[str]) -> None:
    """Verify that every file flashrank will open exists and has the keys it reads.

    Raises:
        ModelNotAvailable: naming the missing files or keys.
    """
    missing = [name for name in files if not (model_dir / name).is_file()]
    if missing:
        raise ModelNotAvailable(
            f"flashrank model directory {model_dir} is missing {', '.join(missing)} "
            f"(expected: {', '.join(files)}); refusing to let flashrank download it"
        )
    if "config.json" not in files:
        return
    config = _read_json(model_dir / "config.json")
    if not isinstance(config.get("pad_token_id"), int):
        raise ModelNotAvailable(f"{model_dir / 'config.json'}: needs an integer 'pad_token_id'")
    tok_config = _read_json(model_dir / "tokenizer_config.json")
    for key in ("model_max_length", "pad_token"):
        if key not in tok_config:
            raise ModelNotAvailable(f"{model_dir / 'tokenizer_config.json'}: needs {key!r}")


def _module_available(name: str) -> bool:
    """Whether ``name`` can be imported, without importing it."""
    if name in sys.modules:
        return sys.modules[name] is not None
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


@contextlib.contextmanager
def _preserve_root_logger() -> Iterator[None]:
    """Undo any handler or level change made to the root logger inside the block.

    flashrank's ``Ranker.__init__`` calls ``logging.basicConfig``, which installs a
    stderr handler on an unconfigured root logger; an application's logging setup
    must not be changed by merely constructing a reranker.
    """
    root = logging.getLogger()
    with _ROOT_LOGGER_LOCK:
        handlers = list(root.handlers)
        level = root.level
        try:
            yield
        finally:
            for handler in list(root.handlers):
                if handler not in handlers:
                    root.removeHandler(handler)
                    handler.close()
            for handler in handlers:
                if handler not in root.handlers:
                    root.addHandler(handler)
            root.setLevel(level)


class FlashRankReranker:
    """Cross-encoder reranking with a pre-placed flashrank model (ONNX, CPU).

    Args:
        model_name: A flashrank model name (a key of ``flashrank.Config.model_file_map``).
        cache_dir: The directory holding ``<model_name>/``; ``None`` uses flashrank's
            own default cache directory (``/tmp``).
        max_length: Maximum tokens per (query, passage) pair (capped by the
            tokenizer's ``model_max_length``; the context size for listwise models).

    Raises:
        ModelNotAvailable: flashrank is not installed, the model name is unknown, a
            file is missing, or the model fails to load. Nothing is ever downloaded.
        ValueError: ``max_length`` is not positive.
    """

    def __init__(
        self,
        model_name: str = DEFAULT_FLASHRANK_MODEL,
        cache_dir: str | Path | None = None,
        max_length: int = 256,
    ) -> None:
        if max_length < 1:
            raise ValueError(f"max_length must be positive, got {max_length}")
        _, listwise, default_cache_dir = _flashrank_config()
        files = required_files(model_name)
        base = Path(cache_dir).expanduser() if cache_dir is not None else Path(default_cache_dir)
        self.model_name = model_name
        self.model_dir = base / model_name
        self.name = f"flashrank:{model_name}"
        self._listwise = model_name in listwise
        _check_layout(self.model_dir, files)
        if self._listwise and not _module_available("llama_cpp"):
            raise ModelNotAvailable(
                f"flashrank listwise model {model_name!r} needs the 'llama_cpp' package "
                "(pip install flashrank[listwise])"
            )

        from flashrank import Ranker

        with _preserve_root_logger():
            try:
                self._ranker: Any = Ranker(
                    model_name=model_name,
                    cache_dir=str(base),
                    max_length=max_length,
                    log_level="WARNING",
                )
            except Exception as exc:  # onnxruntime/tokenizers raise assorted types
                raise ModelNotAvailable(
                    f"flashrank model {model_name!r} in {self.model_dir} failed to load: {exc}"
                ) from exc

    def __repr__(self) -> str:
        return f"FlashRankReranker(model_name={self.model_name!r}, model_dir={str(self.model_dir)!r})"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Score every text against the query with the cross-encoder.

        Args:
            query: The search query.
            texts: The candidate passages.

        Returns:
            Sigmoid (or softmax) relevance probabilities in ``[0, 1]``, in input order.
            Listwise models give ``1 - rank / n`` with a 0-based rank (0 for passages
            the model omits).
        """
        if not texts:
            return []
        if self._listwise:
            return self._score_listwise(query, texts)
        scores = [0.0] * len(texts)
        for start in range(0, len(texts), _BATCH_SIZE):
            chunk = texts[start : start + _BATCH_SIZE]
            for item in self._rerank(query, chunk, offset=start):
                scores[int(item["id"])] = float(item["score"])
        return scores

    def _rerank(self, query: str, texts: Sequence[str], *, offset: int) -> list[dict[str, Any]]:
        from flashrank import RerankRequest

        passages: list[dict[str, Any]] = [{"id": offset + i, "text": text} for i, text in enumerate(texts)]
        results: list[dict[str, Any]] = self._ranker.rerank(RerankRequest(query=query, passages=passages))
        return results

    def _score_listwise(self, query: str, texts: Sequence[str]) -> list[float]:
        n = len(texts)
        scores = [0.0] * n
        seen: set[int] = set()
        for item in self._rerank(query, texts, offset=0):
            index = int(item["id"])
            if index not in seen:
                scores[index] = 1.0 - len(seen) / n
                seen.add(index)
        return scores
