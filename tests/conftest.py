"""Shared fixtures: real MiniLM embeddings (loaded once), real Chroma and SQLite in tmp dirs.

Stores embed with the default backend, ONNX Runtime (``minilm_onnx``: int8 documents and fp32
queries, exported once per session); ``minilm`` is the same model on torch (sentence-transformers),
the reference.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.embeddings import MiniLMEmbeddings
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbeddings:
    """The packaged all-MiniLM-L6-v2, loaded once per test session."""
    emb = MiniLMEmbeddings()
    emb.embed_query("warm up")
    return emb


@pytest.fixture(scope="session")
def minilm_onnx(tmp_path_factory: pytest.TempPathFactory) -> OnnxMiniLMEmbeddings:
    """The packaged all-MiniLM-L6-v2 on ONNX Runtime as stores use it by default (int8 documents,
    fp32 queries), exported once per session.

    Later data directories of the session copy these files instead of exporting again.
    """
    return OnnxMiniLMEmbeddings(cache_dir=tmp_path_factory.mktemp("onnx") / "models", fallback=False).load()


@pytest.fixture
def store(tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings) -> Iterator[NovaStore]:
    """A fresh store with real SQLite, real Chroma and real embeddings (the default backend)."""
    s = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    yield s
    s.close()


@pytest.fixture
def make_store(tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings) -> Iterator[object]:
    """Factory for stores with custom config / path (closed at teardown)."""
    opened: list[NovaStore] = []

    def factory(path: Path | None = None, config: NovaConfig | None = None, **kw: object) -> NovaStore:
        s = NovaStore(path or tmp_path / "mem", embeddings=kw.pop("embeddings", minilm_onnx), config=config, **kw)  # type: ignore[arg-type]
        opened.append(s)
        return s

    yield factory
    for s in opened:
        s.close()


@pytest.fixture(autouse=True)
def _root_logger_untouched() -> Iterator[None]:
    """No code path may configure the root logger."""
    root = logging.getLogger()

    def state() -> tuple[list[logging.Handler], int]:
        own = [h for h in root.handlers if not type(h).__module__.startswith("_pytest")]
        return own, root.level

    before = state()
    yield
    assert state() == before, "root logger was reconfigured"
