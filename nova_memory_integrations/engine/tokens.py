"""Token counting with a real tokenizer that works offline.

The default counts with the WordPiece tokenizer shipped with the packaged
all-MiniLM-L6-v2 (loaded from its ``tokenizer.json`` through the ``tokenizers`` library,
no torch). ``tiktoken:<encoding>`` uses tiktoken when it and its encoding files are
available locally; ``whitespace`` is a crude fallback for tests of the budgeting logic.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

from ..errors import ConfigError, needs_extra

__all__ = ["TokenCounter", "get_token_counter"]

_WS = re.compile(r"\S+")
_MEMO_SIZE = 100_000
_SMALL_BATCH = 16
"""Batches up to this size are encoded one text at a time (see ``_minilm``)."""


class TokenCounter:
    """Counts tokens of texts; ``name`` says which tokenizer.

    ``additive`` tokenizers split words at every space before anything else (WordPiece
    after a BERT pre-tokenizer), so a text's count is the sum of its space-separated
    pieces' counts: those are memoised, and a new text whose words were seen before is
    counted without calling the tokenizer (a recall renders and counts hundreds of lines
    made of the same few thousand words).
    """

    def __init__(self, name: str, encode: Callable[[str], int], encode_batch: Callable[[Sequence[str]], list[int]],
                 *, additive: bool = False):
        self.name = name
        self._count = encode
        self._count_batch = encode_batch
        self._additive = additive
        self._memo: OrderedDict[str, int] = OrderedDict()  # FIFO-bounded; dict reads are thread-safe
        self._lock = threading.Lock()

    def count(self, text: str) -> int:
        """Number of tokens in ``text`` (no special tokens); memoised, memories recur."""
        if not text:
            return 0
        hit = self._memo.get(text)
        if hit is None:
            hit = sum(self.count_many(text.split(" "))) if self._additive else self._count(text)
            self._remember(text, hit)
        return hit

    def count_many(self, texts: Sequence[str]) -> list[int]:
        """Token counts of several texts (batched where the tokenizer supports it)."""
        memo = self._memo
        if not self._additive:
            self._fill(texts)
            return [memo.get(t, 0) for t in texts]
        counted = [memo.get(t) for t in texts]
        if None in counted:
            self._fill([p for t, n in zip(texts, counted) if n is None for p in t.split(" ")])
        return [n if n is not None else sum(memo.get(p, 0) for p in t.split(" ")) for t, n in zip(texts, counted)]

    def _fill(self, texts: Sequence[str]) -> None:
        """Count and memoise those of ``texts`` not counted yet, in one batch."""
        missing = [t for t in dict.fromkeys(texts) if t and t not in self._memo]
        if missing:
            for text, n in zip(missing, self._count_batch(missing)):
                self._remember(text, n)

    def _remember(self, text: str, n: int) -> None:
        with self._lock:
            self._memo[text] = n
            if len(self._memo) > _MEMO_SIZE:
                self._memo.popitem(last=False)

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest whitespace-token prefix of ``text`` within ``max_tokens``."""
        if self.count(text) <= max_tokens:
            return text
        words = text.split()
        lo, hi = 0, len(words)
        while lo < hi:  # binary search on the number of words
            mid = (lo + hi + 1) // 2
            if self.count(" ".join(words[:mid]) + " …") <= max_tokens:
                lo = mid
            else:
                hi = mid - 1
        return (" ".join(words[:lo]) + " …") if lo else ""


def _minilm() -> TokenCounter:
    from tokenizers import Tokenizer

    from ..embeddings.base import packaged_model_path

    tok: Any = Tokenizer.from_file(str(packaged_model_path() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    lock = threading.Lock()  # the Rust tokenizer is thread-safe; the lock guards the batch API's config

    def one(text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)

    def many(texts: Sequence[str]) -> list[int]:
        if len(texts) <= _SMALL_BATCH:  # a few new words: the batch API's thread pool costs more than it saves
            return [one(t) for t in texts]
        with lock:
            return [len(e.ids) for e in tok.encode_batch(list(texts), add_special_tokens=False)]

    return TokenCounter("minilm-wordpiece", one, many, additive=True)


def _tiktoken(encoding: str) -> TokenCounter:
    try:
        with needs_extra("openai"):
            import tiktoken
        enc = tiktoken.get_encoding(encoding)
        enc.encode("probe")
    except Exception as exc:
        raise ConfigError(f"tokenizer tiktoken:{encoding} is not available offline: {exc}") from exc

    def one(text: str) -> int:
        return len(enc.encode(text, disallowed_special=()))

    def many(texts: Sequence[str]) -> list[int]:
        return [len(x) for x in enc.encode_batch(list(texts), disallowed_special=())]

    return TokenCounter(f"tiktoken:{encoding}", one, many)


def _whitespace() -> TokenCounter:
    def one(text: str) -> int:
        return len(_WS.findall(text))

    return TokenCounter("whitespace", one, lambda texts: [one(t) for t in texts])


@lru_cache(maxsize=8)
def get_token_counter(name: str = "minilm") -> TokenCounter:
    """A token counter by name: ``minilm``, ``tiktoken:<encoding>`` or ``whitespace``."""
    if name == "minilm":
        return _minilm()
    if name == "whitespace":
        return _whitespace()
    if name.startswith("tiktoken:"):
        return _tiktoken(name.split(":", 1)[1])
    raise ConfigError(f"unknown tokenizer {name!r} (use minilm, whitespace or tiktoken:<encoding>)")
