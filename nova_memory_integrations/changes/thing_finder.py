"""A learned thing finder: which words of a clause name the lasting state it is about, by meaning.

The clause reader (:mod:`.clause_reader`) judges what a clause does to a state once the state's words are
known; the capture rules and the candidates of :mod:`.state_reading` find those words only in the shapes
they know (a capitalised name, "my <thing>"). People name the state any way at all: "I play squash twice a
week", "I've got a frozen shoulder", "run with Hyde Park Harriers on Tuesdays". This finder tags the words:
a small network (one hidden ReLU layer, then a sigmoid) over each token's output of the store's own MiniLM
(the last hidden state, before pooling: each token's vector already reads the whole clause), trained on the
``thing`` spans of the clause corpus (``tests/data/clause_corpus/``, twelve independent writers;
``benchmarks/train_thing_finder.py``) to give each token the probability that it is part of the words
naming the state. A word's probability is the highest of its tokens'; a *thing* is a run of adjacent words
(no punctuation between) each at :data:`WORD_PROBABILITY` or more, scored by the mean of its words'; a
clause's thing is its best run whose score reaches :data:`THING_PROBABILITY`, with any leading determiner or
possessive and a trailing "'s" left out (the value a fact keeps).

The weights (``thing_finder.npz`` beside this module, package data) record the corpus sha256 and the
embedding space; read once, lazily (:func:`shipped`). Pure apart from that read: token vectors come from the
caller's ``tokens`` callable (``embed_tokens`` of the ONNX MiniLM).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from ._layers import check_hidden, hidden, input_dimension, read_hidden, weight_arrays

__all__ = ["THING_PROBABILITY", "WEIGHTS_PATH", "WORD_PROBABILITY", "FoundThing", "ThingFinder", "TokenStates",
           "shipped", "words_of"]

WEIGHTS_PATH = Path(__file__).with_name("thing_finder.npz")
"""The shipped weights (package data)."""
WORD_PROBABILITY = 0.5
"""A word belongs to a thing when one of its tokens has this probability or more."""
THING_PROBABILITY = 0.5
"""A run of such words is a clause's thing when their mean probability reaches this."""
MAX_WORDS = 5
"""A longer run is no thing's name (a whole predicate tagged)."""

TokenStates = tuple[Sequence[tuple[int, int]], np.ndarray]
"""One text's tokens: each token's ``(start, end)`` characters in the text, and its output vector (a row)."""
Tokens = Callable[[list[str]], Sequence[TokenStates]]
"""Texts -> their token states (special tokens left out)."""

_WORD = re.compile(r"[\w][\w'’&+.-]*[\w]|[\w]")
_LEADING = frozenset("the a an my our his her their your this that these those".split())
_POSSESSIVE = re.compile(r"['’]s$", re.IGNORECASE)


@dataclass(frozen=True)
class FoundThing:
    """Words of a text naming a state: the words (as the text has them, determiner left out), where they are,
    and their mean probability."""

    text: str
    start: int
    end: int
    probability: float


def words_of(text: str) -> list[tuple[int, int]]:
    """The words of ``text`` as ``(start, end)`` character spans (inner apostrophes, hyphens, dots kept)."""
    return [(m.start(), m.end()) for m in _WORD.finditer(text)]


@dataclass(frozen=True)
class ThingFinder:
    """A trained tagger over token vectors: ``sigmoid(relu(v @ hidden_weights + hidden_bias) @ weights + bias)``
    per token, or ``sigmoid(v @ weights + bias)`` with no hidden layer.

    Attributes:
        weights: the output layer, ``(inputs, 1)``: inputs are the hidden units, else the dimension.
        bias: ``(1,)``.
        space: the embedding space the token vectors must come from.
        corpus_sha: sha256 of the training corpus (the concatenated files, in order).
        hidden_weights: ``(dimension, hidden units)``, or ``None``.
        hidden_bias: ``(hidden units,)``, or ``None``.
    """

    weights: np.ndarray
    bias: np.ndarray
    space: str
    corpus_sha: str
    hidden_weights: np.ndarray | None = None
    hidden_bias: np.ndarray | None = None

    def __post_init__(self) -> None:
        """One output, and a hidden layer that comes whole and fits it, else ``ValueError``."""
        if self.weights.ndim != 2 or self.weights.shape[1] != 1 or self.bias.shape != (1,):
            raise ValueError("the output layer must have one unit")
        check_hidden(self.weights, self.hidden_weights, self.hidden_bias)

    @property
    def dimension(self) -> int:
        """The length of the token vectors the finder reads."""
        return input_dimension(self.weights, self.hidden_weights)

    @classmethod
    def load(cls, path: str | Path = WEIGHTS_PATH) -> ThingFinder:
        """Read weights written by :meth:`save`; :class:`~..errors.ConfigError` when missing or malformed."""
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls(np.asarray(data["weights"], dtype=np.float32), np.asarray(data["bias"], dtype=np.float32),
                           str(data["space"]), str(data["corpus_sha"]), *read_hidden(data))
        except (OSError, KeyError, ValueError) as exc:
            raise ConfigError(f"thing finder weights unreadable at {path}: {exc}") from exc

    def save(self, path: str | Path, **extra: object) -> None:
        """Write the weights, space and corpus sha (and ``extra`` scalars: the trainer's figures)."""
        arrays: dict[str, np.ndarray] = {k: np.array(v) for k, v in extra.items()}
        arrays.update(weight_arrays(self.weights, self.bias, self.hidden_weights, self.hidden_bias))
        arrays.update(space=np.array(self.space), corpus_sha=np.array(self.corpus_sha))
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        """Per row of ``vectors`` (token outputs, as the model gives them), the probability that the token is
        part of the words naming the state."""
        v = np.asarray(vectors, dtype=np.float32)
        if v.ndim != 2 or v.shape[1] != self.dimension:
            raise ValueError(f"expected token vectors of dimension {self.dimension}, got shape {v.shape}")
        v = hidden(v, self.hidden_weights, self.hidden_bias)
        logits = (v @ self.weights + self.bias)[:, 0]
        out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))
        return out

    def things(self, text: str, states: TokenStates) -> list[FoundThing]:
        """Every run of thing words in ``text`` (see the module docstring), best first; ``states`` are the
        text's own tokens."""
        offsets, vectors = states
        if not len(offsets):
            return []
        token_p = self.probabilities(vectors)
        spans = words_of(text)
        word_p = [max((float(p) for (a, b), p in zip(offsets, token_p, strict=True) if a < end and b > start),
                      default=0.0) for start, end in spans]
        runs: list[list[int]] = []
        for i, p in enumerate(word_p):
            if p < WORD_PROBABILITY:
                continue
            if runs and runs[-1][-1] == i - 1 and not text[spans[i - 1][1]:spans[i][0]].strip():
                runs[-1].append(i)
            else:
                runs.append([i])
        out = []
        for run in runs:
            while run and text[slice(*spans[run[0]])].lower() in _LEADING:
                run = run[1:]
            if not run or len(run) > MAX_WORDS:
                continue
            start, end = spans[run[0]][0], spans[run[-1]][1]
            words = _POSSESSIVE.sub("", text[start:end])
            out.append(FoundThing(words, start, start + len(words), sum(word_p[i] for i in run) / len(run)))
        return sorted(out, key=lambda f: (-f.probability, f.start))

    def find(self, texts: Sequence[str], tokens: Tokens) -> list[FoundThing | None]:
        """Per text, its best thing at :data:`THING_PROBABILITY` or more (``None``: none); the texts' tokens
        come from one ``tokens`` call."""
        if not texts:
            return []
        found = [self.things(text, states) for text, states in zip(texts, tokens(list(texts)), strict=True)]
        return [next((f for f in runs if f.probability >= THING_PROBABILITY), None) for runs in found]


@lru_cache(maxsize=1)
def shipped() -> ThingFinder:
    """The weights shipped with the package, read once."""
    return ThingFinder.load(WEIGHTS_PATH)
