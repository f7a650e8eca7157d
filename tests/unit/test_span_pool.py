"""``char_spans`` and ``span_pool``: where a turn's sentences sit, and their vectors pooled from the
turn's own token outputs (pure functions over text and arrays, no model)."""

from __future__ import annotations

import numpy as np

from nova_memory_integrations.embeddings._onnx_runtime import char_spans, span_pool

TEXT = "Maria: I ran. I ran again!"


def test_spans_are_found_in_order() -> None:
    assert char_spans(TEXT, ["I ran.", "I ran again!"]) == [(7, 13), (14, 26)]


def test_a_repeated_sentence_is_found_after_the_last() -> None:
    assert char_spans("Ok. Ok.", ["Ok.", "Ok."]) == [(0, 3), (4, 7)]


def test_one_sentence_has_no_spans() -> None:
    assert char_spans(TEXT, ["I ran."]) is None


def test_a_missing_sentence_gives_none() -> None:
    assert char_spans(TEXT, ["I ran.", "I swam."]) is None


def test_sentences_out_of_order_give_none() -> None:
    assert char_spans(TEXT, ["I ran again!", "I ran."]) is None


def test_an_empty_sentence_gives_none() -> None:
    assert char_spans(TEXT, ["I ran.", ""]) is None


HIDDEN = np.array([[9.0, 9.0], [3.0, 0.0], [1.0, 0.0], [0.0, 2.0], [9.0, 9.0]], dtype=np.float32)
OFFSETS = [(0, 0), (0, 2), (3, 5), (6, 9), (0, 0)]  # [CLS], two tokens of span one, one of span two, [SEP]


def _pooled(spans: list[tuple[int, int]]) -> np.ndarray:
    """``span_pool`` of ``HIDDEN``; an empty array for ``None``."""
    out = span_pool(HIDDEN, OFFSETS, spans)
    return np.zeros((0, 2), dtype=np.float32) if out is None else out


def test_each_span_is_the_normalised_mean_of_its_tokens() -> None:
    assert _pooled([(0, 5), (6, 9)]).tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_special_tokens_are_left_out() -> None:
    expected = np.array([[1.0, 0.0], np.array([4.0, 2.0]) / np.linalg.norm([4.0, 2.0])])
    assert np.allclose(_pooled([(0, 2), (0, 9)]), expected)


def test_a_token_reaching_past_a_span_is_not_in_it() -> None:
    assert _pooled([(0, 4), (4, 9)]).tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_a_span_without_tokens_gives_none() -> None:
    assert span_pool(HIDDEN, OFFSETS, [(0, 5), (10, 20)]) is None


def test_the_vectors_are_float32() -> None:
    assert _pooled([(0, 5), (6, 9)]).dtype == np.float32
