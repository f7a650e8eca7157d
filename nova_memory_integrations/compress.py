"""Compression: near-duplicate removal and extractive sentence selection to a budget.

Pure functions over texts, vectors and a token counter; the store wires them to its
embedder and reranker in :meth:`NovaStore.compress` and :meth:`NovaStore.context`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from .retrieval.lexical import terms
from .tokens import TokenCounter

__all__ = ["extract_sentences", "near_duplicates", "split_sentences"]

_SENTENCE = re.compile(r"(?<=[.!?…])\s+(?=[\"'(\[]?[A-Z0-9])|\n+")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences (on terminal punctuation or line breaks)."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def near_duplicates(vectors: Sequence[Sequence[float]], threshold: float) -> dict[int, int]:
    """Map of index -> the earlier index it nearly duplicates (cosine >= ``threshold``).

    Inputs are taken in priority order: the first of a group of duplicates is kept.
    """
    if len(vectors) < 2:
        return {}
    m = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    m = (m / np.where(norms == 0, 1.0, norms)).astype(np.float32)
    sims = m @ m.T
    dup: dict[int, int] = {}
    kept: list[int] = []
    for i in range(len(m)):
        match = next((j for j in kept if sims[i, j] >= threshold), None)
        if match is None:
            kept.append(i)
        else:
            dup[i] = match
    return dup


def extract_sentences(text: str, query: str, max_tokens: int, counter: TokenCounter) -> str:
    """The sentences of ``text`` most related to ``query`` that fit ``max_tokens``.

    Sentences are scored by the query words they contain (ties favour earlier ones)
    and returned in their original order, joined by " … " where text was skipped. A
    single sentence that is still too long is truncated.
    """
    if max_tokens <= 0:
        return ""
    if counter.count(text) <= max_tokens:
        return text
    sentences = split_sentences(text)
    qterms = set(terms(query))
    scored = sorted(
        range(len(sentences)),
        key=lambda i: (-len(qterms & set(terms(sentences[i]))), i),
    )
    chosen: list[int] = []
    for i in scored:
        trial = sorted([*chosen, i])
        if counter.count(_join(sentences, trial)) <= max_tokens:
            chosen = trial
    if not chosen:
        return counter.truncate(sentences[scored[0]] if sentences else text, max_tokens)
    return _join(sentences, chosen)


def _join(sentences: Sequence[str], idx: Sequence[int]) -> str:
    parts: list[str] = []
    prev = -1
    for i in idx:
        if parts and i != prev + 1:
            parts.append("…")
        parts.append(sentences[i])
        prev = i
    return " ".join(parts)
