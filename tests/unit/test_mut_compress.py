"""Compression's pure helpers at their edges: the cases mutation testing found unchecked (docs/mutation.md)."""

from __future__ import annotations

import math
import warnings

from nova_memory_integrations.retrieval.compress import is_phatic, near_duplicates


def _unit(degrees: float) -> list[float]:
    return [math.cos(math.radians(degrees)), math.sin(math.radians(degrees))]


def test_two_vectors_are_compared() -> None:
    assert near_duplicates([[1.0, 0.0], [1.0, 0.0]], 0.9) == {1: 0}


def test_a_cosine_exactly_at_the_threshold_is_a_duplicate() -> None:
    assert near_duplicates([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], 1.0) == {2: 0}


def test_a_dropped_duplicate_claims_nothing_after_it() -> None:
    # b is 20 degrees from a (a duplicate of it), c 20 degrees from b but 40 from a: c is kept
    assert near_duplicates([_unit(0), _unit(20), _unit(40)], math.cos(math.radians(25))) == {1: 0}


def test_zero_vectors_raise_no_numpy_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert near_duplicates([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]], 0.5) == {}


def test_a_sentence_of_exactly_the_most_words_can_be_phatic() -> None:
    assert is_phatic("Wow thanks so much that is really awesome and great")  # ten words


def test_a_sentence_over_the_most_words_is_not_phatic() -> None:
    assert not is_phatic("Wow thanks so much that is really awesome and great wow")  # eleven
