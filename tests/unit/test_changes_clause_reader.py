"""The learned clause reader (:mod:`nova_memory_integrations.changes.clause_reader`): the shipped weights, read
with the real MiniLM the store embeds with, on clauses of our own wording (none from the training corpus or
any belief set), and the reader's plumbing (masking, loading, the tracker's choice of reader).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from nova_memory_integrations.changes.clause_reader import (
    LABELS,
    MASK,
    WEIGHTS_PATH,
    ClauseReader,
    mask_phrase,
    shipped,
)
from nova_memory_integrations.changes.tracker import ChangeTracker
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.errors import ConfigError
from nova_memory_integrations.storage.sqlite import SQLiteStore

CORPUS = Path(__file__).resolve().parents[1] / "data" / "clause_corpus"

OBVIOUS = [  # the thing already masked, as the change layer hands clauses over
    ("I work at it as a nurse", "state"),
    ("my sister lives in it with her two kids", "state"),
    ("we split up in the summer and it is over", "ended"),
    ("it died last week and we buried it in the garden", "ended"),
    ("I swapped it for a newer one from Toyota", "changed"),
    ("I moved from it to Manchester in May", "changed"),
    ("sorry, I got that wrong earlier, it is actually Tuesday not Monday", "corrected"),
    ("I said it was blue but I meant green", "corrected"),
    ("should I sell it?", "other"),
    ("if I won the lottery I would buy it", "other"),
]


def test_the_shipped_weights_load_once_and_record_their_corpus_and_space() -> None:
    reader = shipped()
    assert shipped() is reader  # read once
    assert reader.hidden_weights is not None and reader.hidden_bias is not None
    assert reader.dimension == 384 and reader.hidden_weights.shape[1] == reader.weights.shape[0]
    assert reader.weights.shape[1] == len(LABELS) and reader.bias.shape == (len(LABELS),)
    assert reader.space == "sentence-transformers:all-MiniLM-L6-v2"
    # reproducible from the repository: trained on exactly the corpus shipped beside the tests, every writer's
    # file in name order
    files = sorted(CORPUS.glob("*.jsonl"))
    assert [f.stem for f in files] == ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]
    assert reader.corpus_sha == hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()


@pytest.mark.parametrize(("clause", "label"), OBVIOUS)
def test_obvious_clauses_are_read_as_what_they_do(clause: str, label: str, minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    [probs] = shipped().read([clause], minilm_onnx.embed_documents)
    assert max(probs, key=probs.__getitem__) == label, probs
    assert sum(probs.values()) == pytest.approx(1.0, abs=1e-5)


def test_all_clauses_are_embedded_in_one_call(minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> list[list[float]]:
        calls.append(texts)
        return minilm_onnx.embed_documents(texts)

    read = shipped().read([c for c, _ in OBVIOUS[:3]], embed)
    assert len(read) == 3 and len(calls) == 1
    assert shipped().read([], embed) == [] and len(calls) == 1  # nothing to read: no call


@pytest.mark.parametrize(("text", "phrase", "masked"), [
    ("Sold my old Corolla to a neighbour", "old Corolla", f"Sold {MASK} to a neighbour"),
    ("the allotment went back to the council", "The allotment", f"{MASK} went back to the council"),
    ("Quit the choir", "", "Quit the choir"),  # nothing named: the text as it is
    ("Quit the choir", "orchestra", "Quit the choir"),  # not in the text: as it is
])
def test_mask_phrase_hides_the_words_naming_the_state(text: str, phrase: str, masked: str) -> None:
    assert mask_phrase(text, phrase) == masked


def test_weights_that_are_missing_or_of_other_labels_are_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unreadable"):
        ClauseReader.load(tmp_path / "absent.npz")
    bad = tmp_path / "three.npz"
    np.savez(bad, weights=np.zeros((4, 3)), bias=np.zeros(3), labels=np.array(["a", "b", "c"]),
             space=np.array("s"), corpus_sha=np.array("x"))
    with pytest.raises(ConfigError, match="labels"):
        ClauseReader.load(bad)


def test_save_and_load_round_trip_and_vectors_of_another_size_are_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    reader = ClauseReader(rng.normal(size=(8, len(LABELS))).astype(np.float32), np.zeros(len(LABELS), np.float32),
                          "space-x", "sha-x")
    reader.save(tmp_path / "w.npz", l2=0.1)
    again = ClauseReader.load(tmp_path / "w.npz")
    assert (again.space, again.corpus_sha) == ("space-x", "sha-x")
    v = rng.normal(size=(2, 8))
    assert np.allclose(again.probabilities(v), reader.probabilities(v))
    assert np.allclose(reader.probabilities(v), reader.probabilities(3 * v))  # vectors are normalised first
    with pytest.raises(ValueError, match="dimension 8"):
        reader.probabilities(np.zeros((1, 5)))


def test_a_reader_with_a_hidden_layer_reads_through_it_and_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    w1, b1 = rng.normal(size=(8, 6)).astype(np.float32), rng.normal(size=6).astype(np.float32)
    w2, b2 = rng.normal(size=(6, len(LABELS))).astype(np.float32), rng.normal(size=len(LABELS)).astype(np.float32)
    reader = ClauseReader(w2, b2, "space-x", "sha-x", w1, b1)
    v = rng.normal(size=(3, 8))
    unit = v / np.linalg.norm(v, axis=1, keepdims=True)
    logits = np.maximum(unit @ w1 + b1, 0) @ w2 + b2
    expected = np.exp(logits - logits.max(1, keepdims=True))
    assert np.allclose(reader.probabilities(v), expected / expected.sum(1, keepdims=True), atol=1e-5)
    reader.save(tmp_path / "net.npz")
    again = ClauseReader.load(tmp_path / "net.npz")
    assert again.dimension == 8 and np.allclose(again.probabilities(v), reader.probabilities(v))
    with pytest.raises(ValueError, match="dimension 8"):
        reader.probabilities(np.zeros((1, 6)))  # the hidden size is not the input size


def test_a_hidden_layer_that_does_not_fit_the_output_layer_is_a_config_error(tmp_path: Path) -> None:
    bad = tmp_path / "misfit.npz"
    np.savez(bad, weights=np.zeros((6, len(LABELS))), bias=np.zeros(len(LABELS)), labels=np.array(LABELS),
             space=np.array("s"), corpus_sha=np.array("x"), hidden_weights=np.zeros((8, 7)), hidden_bias=np.zeros(7))
    with pytest.raises(ConfigError, match="hidden layer"):
        ClauseReader.load(bad)
    with pytest.raises(ValueError, match="hidden layer"):  # built directly: half a hidden layer is refused too
        ClauseReader(np.zeros((6, len(LABELS))), np.zeros(len(LABELS)), "s", "x", np.zeros((8, 6)))


class _OtherModel:
    """An embedder of another vector space (a different model): the reader's weights mean nothing there."""

    embedding_space = "some-other-model"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


def test_the_tracker_reads_clauses_only_in_the_space_the_weights_were_trained_in(
        db: SQLiteStore, minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    assert ChangeTracker(db, minilm_onnx).reader is shipped()
    assert ChangeTracker(db, _OtherModel()).reader is None
    assert ChangeTracker(db, None).reader is None
    assert WEIGHTS_PATH.name == "clause_reader.npz" and WEIGHTS_PATH.parent.name == "changes"
