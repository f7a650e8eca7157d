"""``compress`` input: a list of strings within ``limits.max_texts``; near-duplicates without an n x n matrix."""

from __future__ import annotations

import numpy as np
import pytest

from nova_memory_integrations import InvalidInputError
from nova_memory_integrations.config import LimitsConfig
from nova_memory_integrations.engine.validation import check_texts
from nova_memory_integrations.retrieval import compress
from nova_memory_integrations.retrieval.compress import near_duplicates

LIMITS = LimitsConfig(max_texts=3)


def test_a_bare_string_is_not_a_list_of_texts() -> None:
    with pytest.raises(InvalidInputError, match="list of strings"):
        check_texts("hello world", LIMITS)


def test_the_error_names_the_field() -> None:
    with pytest.raises(InvalidInputError) as err:
        check_texts("hello world", LIMITS)
    assert err.value.field == "texts"


def test_more_texts_than_the_limit_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="max_texts"):
        check_texts(["a", "b", "c", "d"], LIMITS)


def test_a_non_string_item_is_named_by_index() -> None:
    with pytest.raises(InvalidInputError, match=r"texts\[1\]"):
        check_texts(["a", 2], LIMITS)


def test_a_valid_list_is_returned_as_a_list() -> None:
    assert check_texts(("a", "b"), LIMITS) == ["a", "b"]


def _reference(vectors: np.ndarray, threshold: float) -> dict[int, int]:
    m = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
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


def test_blockwise_near_duplicates_match_the_full_matrix(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    base = rng.normal(size=(40, 8)).astype(np.float32)
    vectors = np.concatenate([base, base[::3] + 0.01 * rng.normal(size=(14, 8)).astype(np.float32)])
    monkeypatch.setattr(compress, "_DEDUPE_BLOCK", 7)  # many blocks, duplicates across block edges
    assert near_duplicates(vectors.tolist(), 0.95) == _reference(vectors, 0.95)


def test_a_duplicate_maps_to_the_earliest_kept_item() -> None:
    assert near_duplicates([[1.0, 0.0], [1.0, 0.001], [1.0, 0.002]], 0.99) == {1: 0, 2: 0}
