"""Fixtures of the fast unit tests: a real SQLite system of record in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from nova_memory_integrations.changes.planner import Similarity
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.storage.sqlite import SQLiteStore


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    """An empty SQLite store of record (real SQLite, closed after the test)."""
    store = SQLiteStore(tmp_path / "memory.sqlite3")
    yield store
    store.close()


@pytest.fixture(scope="module")
def similarity(minilm_onnx: OnnxMiniLMEmbeddings) -> Similarity:
    """Cosine of a text and others under the real MiniLM the store embeds with (the change layer's meaning)."""
    def cosines(text: str, others: Sequence[str]) -> list[float]:
        v = np.asarray(minilm_onnx.embed_documents([text, *others]), dtype=np.float32)
        v = v / np.linalg.norm(v, axis=1)[:, None]
        return [float(x) for x in v[1:] @ v[0]]
    return cosines
