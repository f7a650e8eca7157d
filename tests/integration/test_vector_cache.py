"""Stored vectors as reads get them: read-only float32 arrays from a shared cache (real Chroma)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nova_memory_integrations.storage.vectors import VectorIndex

VECTORS = {"a": [1.0, 0.0, 0.25], "b": [0.0, 1.0, 0.5]}


@pytest.fixture
def index(tmp_path: Path) -> VectorIndex:
    index = VectorIndex(path=tmp_path / "chroma")
    index.upsert("episode", list(VECTORS), list(VECTORS.values()), [{"user_id": "alice"} for _ in VECTORS])
    return index


def test_a_vector_reads_back_as_stored(index: VectorIndex) -> None:
    got = index.get_embeddings("episode", ["a"], user_id="alice")
    assert got["a"].tolist() == VECTORS["a"]


def test_a_vector_is_float32(index: VectorIndex) -> None:
    assert index.get_embeddings("episode", ["a"], user_id="alice")["a"].dtype == np.float32


def test_a_vector_is_one_dimensional(index: VectorIndex) -> None:
    assert index.get_embeddings("episode", ["a"], user_id="alice")["a"].shape == (3,)


def test_a_cached_vector_cannot_be_changed_by_a_reader(index: VectorIndex) -> None:
    vec = index.get_embeddings("episode", ["a"], user_id="alice")["a"]
    with pytest.raises(ValueError, match="read-only"):
        vec[0] = 9.0


def test_a_second_read_is_served_from_the_cache(index: VectorIndex) -> None:
    first = index.get_embeddings("episode", ["a"], user_id="alice")["a"]
    assert index.get_embeddings("episode", ["a"], user_id="alice")["a"] is first


def test_a_cached_vector_can_be_queried_with(index: VectorIndex) -> None:
    """Consolidation looks up facts near an episode with the episode's own stored vector."""
    vec = index.get_embeddings("episode", ["b"], user_id="alice")["b"]
    assert index.query("episode", vec, user_id="alice", k=1)[0][0] == "b"


def test_another_users_vector_is_not_read(index: VectorIndex) -> None:
    assert index.get_embeddings("episode", ["a"], user_id="bob") == {}
