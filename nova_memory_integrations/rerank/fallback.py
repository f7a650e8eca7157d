"""Model-free fallback reranker: BM25-style lexical overlap blended with cosine.

Used when no cross-encoder model is on disk. The lexical part is BM25 computed over
the candidate set itself (IDF from the candidates' document frequencies), normalised
by the query's total IDF so that scores stay comparable across calls and lie in
``[0, 1]``. Tokens are lowercased, stripped of punctuation and possessives, filtered
against an English stopword list and stemmed with a Porter-style step-1 stemmer
("running" -> "run", "moved" -> "move", "cats" -> "cat").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from ..embeddings.similarity import cosines
from ..text.terms import FUNCTION_WORDS

__all__ = ["LexicalSemanticReranker", "stem", "tokenize"]

EmbedFn = Callable[[list[str]], Sequence[Sequence[float] | np.ndarray]]
"""Texts -> one vector each (lists of floats or 1-D arrays: they are stacked into one matrix)."""

_K1 = 1.2
_B = 0.75
_TOKEN_RE = re.compile(r"[^\W_]+")
_POSSESSIVE_RE = re.compile(r"'s\b")
_VOWELS = frozenset("aeiou")
_STOPWORDS = frozenset(w.replace("'", "") for w in FUNCTION_WORDS)
"""The text layer's function words as :func:`tokenize` spells them (apostrophes dropped: "dont")."""


def _is_consonant(word: str, i: int) -> bool:
    ch = word[i]
    if ch in _VOWELS:
        return False
    if ch == "y":
        return i == 0 or not _is_consonant(word, i - 1)
    return True


def _measure(word: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``word``."""
    m = 0
    prev_vowel = False
    for i in range(len(word)):
        consonant = _is_consonant(word, i)
        if consonant and prev_vowel:
            m += 1
        prev_vowel = not consonant
    return m


def _has_vowel(word: str) -> bool:
    return any(not _is_consonant(word, i) for i in range(len(word)))


def _ends_cvc(word: str) -> bool:
    return (
        len(word) >= 3
        and _is_consonant(word, len(word) - 3)
        and not _is_consonant(word, len(word) - 2)
        and _is_consonant(word, len(word) - 1)
        and word[-1] not in "wxy"
    )


def _ends_double_consonant(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _is_consonant(word, len(word) - 1)


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Light suffix stemming (Porter steps 1a-1c and 5a) of a lowercase word.

    Args:
        word: A lowercase token.

    Returns:
        The stem; one- and two-letter words and non-alphabetic tokens unchanged.
    """
    if len(word) <= 2 or not word.isalpha():
        return word
    # Step 1a: plurals.
    if word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("ies"):  # "cities" -> "citi", "ties" -> "tie"
        word = word[:-2] if len(word) > 4 else word[:-1]
    elif word.endswith(("ches", "shes", "xes", "zzes")):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    # Step 1b: -eed / -ed / -ing.
    if word.endswith("eed"):
        if _measure(word[:-3]) > 0:
            word = word[:-1]
    else:
        for suffix in ("ed", "ing"):
            base = word[: -len(suffix)]
            if word.endswith(suffix) and _has_vowel(base):
                if base.endswith(("at", "bl", "iz")):
                    base += "e"
                elif _ends_double_consonant(base) and base[-1] not in "lsz":
                    base = base[:-1]
                elif _measure(base) == 1 and _ends_cvc(base):
                    base += "e"
                word = base
                break
    # Step 1c: terminal y -> i when the stem has a vowel ("cities", "city" -> "citi").
    if word.endswith("y") and len(word) > 2 and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    # Step 5a: drop a final e unless it marks a short syllable ("use"/"used" -> "us").
    if word.endswith("e") and len(word) > 2:
        base = word[:-1]
        m = _measure(base)
        if m > 1 or (m == 1 and not _ends_cvc(base)):
            word = base
    return word


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Normalise and stem ``text`` into index terms.

    Args:
        text: Any text.
        keep_stopwords: Keep stopwords (used when a query has nothing else).

    Returns:
        Stemmed lowercase tokens, punctuation and possessives removed.
    """
    lowered = _POSSESSIVE_RE.sub("", text.lower().replace("\u2019", "'")).replace("'", "")
    return [
        stem(token)
        for token in _TOKEN_RE.findall(lowered)
        if keep_stopwords or (token not in _STOPWORDS and (len(token) > 1 or token.isdigit()))
    ]


class LexicalSemanticReranker:
    """Blend of in-candidate-set BM25 overlap and (optional) embedding cosine.

    Args:
        embed: Embeds a list of texts; called once per :meth:`score` with
            ``[query, *texts]``. ``None`` scores lexically only.
        lexical_weight: Weight of the lexical score in the blend, in ``[0, 1]``; the
            cosine gets ``1 - lexical_weight``. Ignored without ``embed``.

    Raises:
        ValueError: ``lexical_weight`` is outside ``[0, 1]``.
    """

    def __init__(self, embed: EmbedFn | None = None, lexical_weight: float = 0.5) -> None:
        if not 0.0 <= lexical_weight <= 1.0:
            raise ValueError(f"lexical_weight must be in [0, 1], got {lexical_weight}")
        self._embed = embed
        self.lexical_weight = lexical_weight
        self.name = "lexical+semantic" if embed is not None else "lexical"

    def __repr__(self) -> str:
        return f"LexicalSemanticReranker(name={self.name!r}, lexical_weight={self.lexical_weight})"

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """Score every text against the query.

        Args:
            query: The search query.
            texts: The candidate passages.

        Returns:
            Scores in ``[0, 1]``, in input order (deterministic).

        Raises:
            ValueError: ``embed`` returned the wrong number of vectors.
        """
        return self.score_with_vectors(query, texts, {})

    def score_with_vectors(
        self, query: str, texts: Sequence[str], vectors: Mapping[str, Sequence[float] | np.ndarray]
    ) -> list[float]:
        """:meth:`score`, with the embeddings the caller already holds (text -> vector; the query's
        may be among them): only the texts missing from ``vectors`` are embedded.

        Raises:
            ValueError: ``embed`` returned the wrong number of vectors.
        """
        if not texts:
            return []
        lexical = self.lexical_scores(query, texts)
        if self._embed is None:
            return lexical
        semantic = self.semantic_scores(query, texts, vectors)
        w = self.lexical_weight
        return [w * lex + (1.0 - w) * sem for lex, sem in zip(lexical, semantic, strict=True)]

    @staticmethod
    def lexical_scores(query: str, texts: Sequence[str]) -> list[float]:
        """BM25 of each text for the query, IDF taken over ``texts``, in ``[0, 1]``.

        The BM25 sum is divided by the summed IDF of the distinct query terms, so a
        text containing every query term about once (at average length) scores ~1
        and one containing none scores 0.

        Args:
            query: The search query.
            texts: The candidate passages.

        Returns:
            One score per text, in input order.
        """
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms:  # a query made only of stopwords: match on them instead
            terms = list(dict.fromkeys(tokenize(query, keep_stopwords=True)))
            docs = [Counter(tokenize(text, keep_stopwords=True)) for text in texts]
        else:
            docs = [Counter(tokenize(text)) for text in texts]
        if not terms:
            return [0.0] * len(texts)
        n = len(docs)
        lengths = [sum(doc.values()) for doc in docs]
        avg_len = max(sum(lengths) / n, 1.0)
        idf = {}
        for term in terms:
            df = sum(1 for doc in docs if term in doc)
            idf[term] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        total_idf = sum(idf.values())
        scores = []
        for doc, length in zip(docs, lengths, strict=True):
            norm = _K1 * (1.0 - _B + _B * length / avg_len)
            acc = 0.0
            for term in terms:
                tf = doc.get(term, 0)
                if tf:
                    acc += idf[term] * tf * (_K1 + 1.0) / (tf + norm)
            scores.append(min(acc / total_idf, 1.0))
        return scores

    def semantic_scores(
        self, query: str, texts: Sequence[str], known: Mapping[str, Sequence[float] | np.ndarray] | None = None
    ) -> list[float]:
        """Cosine similarity of each text's embedding to the query's, clipped to ``[0, 1]``.

        Args:
            query: The search query.
            texts: The candidate passages.
            known: Embeddings already at hand (text -> vector, the query's too): only the
                others are embedded, once each.

        Returns:
            One score per text, in input order (zeros without ``embed``).

        Raises:
            ValueError: ``embed`` returned the wrong number of vectors.
        """
        if self._embed is None or not texts:
            return [0.0] * len(texts)
        wanted = [query, *texts]
        if known:
            missing = [t for t in dict.fromkeys(wanted) if t not in known]
            if missing:
                known = {**known, **dict(zip(missing, self._embed(missing)))}
            vectors = np.asarray([known[t] for t in wanted], dtype=np.float64)
        else:
            vectors = np.asarray(self._embed(wanted), dtype=np.float64)
        if vectors.ndim != 2 or vectors.shape[0] != len(texts) + 1:
            raise ValueError(f"embed returned shape {vectors.shape}, expected ({len(texts) + 1}, dim)")
        cosine = cosines(vectors[1:], vectors[0], np.float64)
        return [float(c) for c in np.clip(cosine, 0.0, 1.0)]
