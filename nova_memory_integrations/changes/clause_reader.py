"""A learned clause reader: what one clause of a user's message does to a lasting state, by meaning.

Word lists and clause shapes generalise poorly to a writer they were not written for: "we handed the
club over to Jo", "the nurse has taken me off the tablets" hold no word a list knows. This reader is a
small network (one hidden ReLU layer, then softmax) over the sentence embedding the store already computes
(MiniLM), trained on a corpus of clauses written by twelve independent writers (``tests/data/clause_corpus/``;
``benchmarks/train_clause_reader.py``), and returns per clause the probability of each of
:data:`LABELS`: ``state`` (a state holding now), ``ended``, ``changed`` (to a named new value),
``corrected`` (the speaker takes back an earlier claim), ``other`` (plans, questions, pauses, one-off
events, jokes, denials ...). The words naming the state are masked as "it" (:func:`mask_phrase` at
training, the fallback's own mask at inference) so the layer reads the *predicate*, not the thing.

The weights (``clause_reader.npz`` beside this module, package data) record the sha256 of the corpus
they were trained on and the embedding space they expect; they are read once, lazily
(:func:`shipped`). Pure apart from that read: vectors come from the caller's ``embed`` callable.
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

__all__ = ["LABELS", "MASK", "WEIGHTS_PATH", "ClauseReader", "Embed", "mask_phrase", "shipped"]

LABELS: tuple[str, ...] = ("state", "ended", "changed", "corrected", "other")
"""What a clause does, in the order of the layer's outputs."""
MASK = "it"
"""What the words naming the state are replaced with, at training and at inference."""
WEIGHTS_PATH = Path(__file__).with_name("clause_reader.npz")
"""The shipped weights (package data)."""

Embed = Callable[[list[str]], Sequence[Sequence[float]]]
"""Texts -> one vector each (the store's ``embed_documents`` / ``embed_cached``)."""

_DETERMINER = re.compile(r"\b(?:the|my|our|his|her|their|your|a|an)\s+$", re.IGNORECASE)


def mask_phrase(text: str, phrase: str) -> str:
    """``text`` with the first occurrence of ``phrase`` (case-insensitive; a determiner or possessive
    just before it too) replaced by :data:`MASK`; ``text`` itself when the phrase is empty or absent."""
    phrase = phrase.strip()
    at = text.lower().find(phrase.lower()) if phrase else -1
    if at < 0:
        return text
    head = _DETERMINER.sub("", text[:at])
    return re.sub(r"\s+", " ", f"{head}{MASK}{text[at + len(phrase):]}").strip()


@dataclass(frozen=True)
class ClauseReader:
    """A trained layer over unit-length sentence vectors: softmax of ``relu(v @ hidden_weights + hidden_bias)
    @ weights + bias``, or of ``v @ weights + bias`` when there is no hidden layer (a linear reader).

    Attributes:
        weights: the output layer, ``(inputs, len(LABELS))``: inputs are the hidden units, else the dimension.
        bias: ``(len(LABELS),)``.
        space: the embedding space the vectors must come from (``embedding_space`` of the embedder).
        corpus_sha: sha256 of the training corpus (the concatenated files, in order).
        hidden_weights: ``(dimension, hidden units)``, or ``None`` for a linear reader.
        hidden_bias: ``(hidden units,)``, or ``None``.
    """

    weights: np.ndarray
    bias: np.ndarray
    space: str
    corpus_sha: str
    hidden_weights: np.ndarray | None = None
    hidden_bias: np.ndarray | None = None

    def __post_init__(self) -> None:
        """A hidden layer comes whole and fits the output layer, else ``ValueError``."""
        check_hidden(self.weights, self.hidden_weights, self.hidden_bias)

    @property
    def dimension(self) -> int:
        """The length of the vectors the reader reads."""
        return input_dimension(self.weights, self.hidden_weights)

    @classmethod
    def load(cls, path: str | Path = WEIGHTS_PATH) -> ClauseReader:
        """Read weights written by :meth:`save`; :class:`~..errors.ConfigError` when missing or malformed."""
        try:
            with np.load(path, allow_pickle=False) as data:
                labels = tuple(str(x) for x in data["labels"])
                reader = cls(np.asarray(data["weights"], dtype=np.float32), np.asarray(data["bias"], dtype=np.float32),
                             str(data["space"]), str(data["corpus_sha"]), *read_hidden(data))
        except (OSError, KeyError, ValueError) as exc:
            raise ConfigError(f"clause reader weights unreadable at {path}: {exc}") from exc
        if labels != LABELS or reader.weights.shape[1] != len(LABELS) or reader.bias.shape != (len(LABELS),):
            raise ConfigError(f"clause reader weights at {path} do not match the labels {LABELS}")
        return reader

    def save(self, path: str | Path, **extra: object) -> None:
        """Write the weights, their labels, space and corpus sha (and ``extra`` scalars: the trainer's figures)."""
        arrays: dict[str, np.ndarray] = {k: np.array(v) for k, v in extra.items()}
        arrays.update(weight_arrays(self.weights, self.bias, self.hidden_weights, self.hidden_bias))
        arrays.update(labels=np.array(LABELS), space=np.array(self.space), corpus_sha=np.array(self.corpus_sha))
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]

    def probabilities(self, vectors: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Per row of ``vectors`` (normalised here), the probability of each of :data:`LABELS`."""
        v = np.asarray(vectors, dtype=np.float32)
        if v.ndim != 2 or v.shape[1] != self.dimension:
            raise ValueError(f"expected vectors of dimension {self.dimension}, got shape {v.shape}")
        norms = np.linalg.norm(v, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        v = v / norms
        v = hidden(v, self.hidden_weights, self.hidden_bias)
        logits = v @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        out: np.ndarray = e / e.sum(axis=1, keepdims=True)
        return out

    def read(self, texts: Sequence[str], embed: Embed) -> list[dict[str, float]]:
        """Per text, ``{label: probability}``: the texts embedded in one ``embed`` call."""
        if not texts:
            return []
        probs = self.probabilities(embed(list(texts)))
        return [dict(zip(LABELS, (float(p) for p in row), strict=True)) for row in probs]


@lru_cache(maxsize=1)
def shipped() -> ClauseReader:
    """The weights shipped with the package, read once."""
    return ClauseReader.load(WEIGHTS_PATH)
