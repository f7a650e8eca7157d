"""The learned thing finder (:mod:`nova_memory_integrations.changes.thing_finder`): its decoding of token
probabilities into things (with hand-made weights, so each rule of the decoding is seen), its plumbing (loading,
saving, refusals), the shipped weights read with the real MiniLM on clauses of our own wording (none from the
training corpus or any belief set), and the ONNX model's token outputs it reads.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from nova_memory_integrations.changes.thing_finder import (
    THING_PROBABILITY,
    WORD_PROBABILITY,
    ThingFinder,
    shipped,
    words_of,
)
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.errors import ConfigError

CORPUS = Path(__file__).resolve().parents[1] / "data" / "clause_corpus"

# a linear finder over 2-d "token vectors": the first coordinate is the token's logit
IDENTITY = ThingFinder(np.array([[1.0], [0.0]], np.float32), np.zeros(1, np.float32), "space-x", "sha-x")
YES, MAYBE, NO = 4.0, 0.3, -4.0  # sigmoid: 0.982, 0.574, 0.018
UNSURE = -0.5  # sigmoid 0.378: below both thresholds


def _states(text: str, logits: list[float]) -> tuple[list[tuple[int, int]], np.ndarray]:
    """One token per word of ``text`` with the given logits (the token spans are the words')."""
    spans = words_of(text)
    assert len(spans) == len(logits), spans
    return spans, np.array([[x, 0.0] for x in logits], np.float32)


def test_adjacent_thing_words_make_one_thing_and_the_best_comes_first() -> None:
    text = "I play squash with Hyde Park Harriers"
    found = IDENTITY.things(text, _states(text, [NO, NO, MAYBE, NO, YES, YES, YES]))
    assert [f.text for f in found] == ["Hyde Park Harriers", "squash"]
    best = found[0]
    assert text[best.start:best.end] == best.text and best.probability == pytest.approx(0.982, abs=1e-3)
    assert found[1].probability == pytest.approx(0.574, abs=1e-3)


def test_a_leading_determiner_and_a_trailing_possessive_are_left_out() -> None:
    text = "the old Astra's clutch went"
    [found] = IDENTITY.things(text, _states(text, [YES, YES, YES, NO, NO]))
    assert found.text == "old Astra" and text[found.start:found.end] == "old Astra"


def test_punctuation_between_words_parts_two_things_and_long_runs_are_no_thing() -> None:
    text = "Portland, Oregon"
    assert [f.text for f in IDENTITY.things(text, _states(text, [YES, YES]))] == ["Portland", "Oregon"]
    text = "one two three four five six"
    assert IDENTITY.things(text, _states(text, [YES] * 6)) == []  # a whole predicate tagged
    assert IDENTITY.things("", ([], np.zeros((0, 2), np.float32))) == []


def test_a_word_takes_the_best_of_its_tokens() -> None:
    text = "at the allotment today"
    # "allotment" as three sub-word tokens, only one of them sure
    offsets = [(0, 2), (3, 6), (7, 10), (10, 13), (13, 16), (17, 22)]
    vectors = np.array([[NO, 0], [NO, 0], [NO, 0], [YES, 0], [NO, 0], [NO, 0]], np.float32)
    [found] = IDENTITY.things(text, (offsets, vectors))
    assert found.text == "allotment"
    assert WORD_PROBABILITY <= 0.5  # a word with one sure token is in


def test_find_keeps_a_texts_best_thing_only_when_it_is_probable_enough_in_one_tokens_call() -> None:
    texts = ["took the Brompton in", "maybe something", "took up pottery"]
    calls: list[list[str]] = []

    def tokens(batch: list[str]) -> list[tuple[list[tuple[int, int]], np.ndarray]]:
        calls.append(batch)
        return [_states(texts[0], [NO, NO, YES, NO]), _states(texts[1], [UNSURE, NO]),
                _states(texts[2], [NO, NO, MAYBE])]

    found = IDENTITY.find(texts, tokens)
    assert len(calls) == 1
    assert found[0] is not None and found[0].text == "Brompton"
    assert found[1] is None  # no word reaches WORD_PROBABILITY: nothing
    assert THING_PROBABILITY <= 0.574 and found[2] is not None and found[2].text == "pottery"
    assert IDENTITY.find([], tokens) == [] and len(calls) == 1


def test_save_and_load_round_trip_with_a_hidden_layer(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    w1, b1 = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=3).astype(np.float32)
    w2, b2 = rng.normal(size=(3, 1)).astype(np.float32), rng.normal(size=1).astype(np.float32)
    finder = ThingFinder(w2, b2, "space-x", "sha-x", w1, b1)
    v = rng.normal(size=(5, 4)).astype(np.float32)
    expected = 1 / (1 + np.exp(-(np.maximum(v @ w1 + b1, 0) @ w2 + b2)[:, 0]))
    assert np.allclose(finder.probabilities(v), expected, atol=1e-6)
    finder.save(tmp_path / "f.npz", hit=0.5)
    again = ThingFinder.load(tmp_path / "f.npz")
    assert (again.space, again.corpus_sha, again.dimension) == ("space-x", "sha-x", 4)
    assert np.allclose(again.probabilities(v), finder.probabilities(v))
    with pytest.raises(ValueError, match="dimension 4"):
        finder.probabilities(np.zeros((1, 3)))


def test_weights_that_do_not_fit_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unreadable"):
        ThingFinder.load(tmp_path / "absent.npz")
    bad = tmp_path / "two.npz"
    np.savez(bad, weights=np.zeros((4, 2)), bias=np.zeros(2), space=np.array("s"), corpus_sha=np.array("x"))
    with pytest.raises(ConfigError, match="one unit"):
        ThingFinder.load(bad)
    with pytest.raises(ValueError, match="hidden layer"):
        ThingFinder(np.zeros((6, 1)), np.zeros(1), "s", "x", np.zeros((8, 5)), np.zeros(5))


def test_the_shipped_weights_record_their_corpus_and_space() -> None:
    finder = shipped()
    assert shipped() is finder  # read once
    assert finder.dimension == 384 and finder.space == "sentence-transformers:all-MiniLM-L6-v2"
    files = sorted(CORPUS.glob("*.jsonl"))
    assert finder.corpus_sha == hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()


def test_the_onnx_model_gives_each_token_its_span_and_output(minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    text = "Swam at Ponds Forge"
    [(offsets, vectors)] = minilm_onnx.embed_tokens([text])
    assert vectors.shape == (len(offsets), 384)  # no [CLS] / [SEP]
    assert "".join(text[a:b] for a, b in offsets) == text.replace(" ", "")
    # the same text alone or beside another gets the same outputs (one text per run)
    [(_, again), _] = minilm_onnx.embed_tokens([text, "a much longer text than the first one by far"])
    assert np.allclose(vectors, again, atol=1e-5)


@pytest.mark.parametrize(("clause", "thing"), [
    ("I sing alto with the Wharfedale Singers every Thursday", "Wharfedale Singers"),
    ("been doing pottery on Tuesday evenings for a couple of years now", "pottery"),
    ("I've got coeliac disease so bread is a nightmare", "coeliac disease"),
    ("drive a little red Fiat Panda to work", "Fiat Panda"),
])
def test_the_shipped_finder_names_the_state_of_a_plain_clause(clause: str, thing: str,
                                                              minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    [found] = shipped().find([clause], minilm_onnx.embed_tokens)
    assert found is not None and set(thing.lower().split()) & set(found.text.lower().split()), found
