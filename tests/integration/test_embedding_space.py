"""A store remembers which embedding model made its vectors, and says so when that changes.

The "other model" is a real (if simple) embedder: hashed bag-of-words vectors of another
dimension, as a user switching from MiniLM to, say, an API model would bring.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from pathlib import Path

import numpy as np
import pytest

from nova_memory_integrations import NovaConfig, NovaStore, StorageError
from nova_memory_integrations.embeddings import MiniLMEmbeddings, embedding_space
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings

_SPACE_WARNING = "the vectors of this store were made by"


class HashedBagOfWords:
    """Hashed word counts, L2-normalised: a 64-d embedding space unlike MiniLM's."""

    model = "hashed-bow-64"

    def _vector(self, text: str) -> list[float]:
        v = np.zeros(64)
        for word in re.findall(r"\w+", text.lower()):
            v[int(hashlib.blake2b(word.encode(), digest_size=4).hexdigest(), 16) % 64] += 1.0
        n = float(np.linalg.norm(v))
        return [float(x) for x in (v / n if n else v)]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def _fill(path: Path, embeddings: object, turns: list[tuple[str, str]]) -> None:
    with NovaStore(path, embeddings=embeddings) as store:  # type: ignore[arg-type]
        for user, text in turns:
            store.add_turn(user, "user", text)


def _space_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if _SPACE_WARNING in r.getMessage()]


def test_space_names(minilm_onnx: OnnxMiniLMEmbeddings, minilm: MiniLMEmbeddings, tmp_path: Path) -> None:
    assert embedding_space(minilm_onnx) == embedding_space(minilm) == "sentence-transformers:all-MiniLM-L6-v2"
    fp32 = OnnxMiniLMEmbeddings(cache_dir=tmp_path, quantize=False)
    assert embedding_space(fp32) == embedding_space(minilm_onnx)  # precision is not a different space
    assert embedding_space(HashedBagOfWords()) == f"{__name__}.HashedBagOfWords:hashed-bow-64"
    other_dir = tmp_path / "my-model"
    other_dir.mkdir()
    assert embedding_space(MiniLMEmbeddings(other_dir)) == f"sentence-transformers:{other_dir.resolve()}"


def test_changing_precision_or_runtime_keeps_the_index(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, minilm: MiniLMEmbeddings, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mem"
    _fill(path, minilm_onnx, [("alice", "I adopted a cat called Miso.")])
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        with NovaStore(path, embeddings=minilm) as store:  # torch: the same space
            assert store.search("what pet do I have?", "alice", k=1)[0].text == "I adopted a cat called Miso."
    assert _space_warnings(caplog) == []


def test_another_model_is_reported_until_reindexed(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mem"
    _fill(path, minilm_onnx, [("alice", "I adopted a cat called Miso."), ("alice", "My sister lives in Lisbon.")])
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        with NovaStore(path, embeddings=HashedBagOfWords()) as store:
            assert len(_space_warnings(caplog)) == 1
            assert "all-MiniLM-L6-v2" in _space_warnings(caplog)[0] and "hashed-bow-64" in _space_warnings(caplog)[0]
            with pytest.raises(StorageError, match="reindex"):  # 64-d queries against 384-d vectors
                store.components.vectors.query("episode", HashedBagOfWords().embed_query("cat"), user_id="alice", k=2)
            assert store.reindex() == 2  # nothing lost: rebuilt from SQLite in the new space
            hits = store.search("where does my sister live", "alice", k=1)
            assert hits[0].text == "My sister lives in Lisbon."
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        with NovaStore(path, embeddings=HashedBagOfWords()) as store:
            assert store.stats("alice")["episodes"] == 2
    assert _space_warnings(caplog) == []


def test_on_model_change_reindex_rebuilds_while_opening(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "mem"
    _fill(path, minilm_onnx, [("alice", "My sister lives in Lisbon."), ("bob", "I play the cello.")])
    with NovaStore(path, embeddings=minilm_onnx) as store:
        store.add_turn("alice", "user", "I moved to Porto in May.")
        store.flush()
        store.components.db.reset_indexed()  # as after a crash: rows SQLite has not seen indexed
    config = NovaConfig.from_dict({"embeddings": {"on_model_change": "reindex"}})
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        started = time.monotonic()
        with NovaStore(path, embeddings=HashedBagOfWords(), config=config) as store:
            # nothing was embedded into the old 384-d collections first (that failed and retried)
            assert time.monotonic() - started < 20 and store.components.indexer.last_error is None
            assert store.search("Porto May", "alice", k=1)[0].text == "I moved to Porto in May."
            assert store.search("sister Lisbon", "alice", k=1)[0].text == "My sister lives in Lisbon."
            assert store.search("cello", "bob", k=1)[0].text == "I play the cello."
            assert [len(v) for v in store.components.vectors.get_embeddings(
                "episode", [h.id for h in store.search("cello", "bob", k=1)], user_id="bob").values()] == [64]
    assert len(_space_warnings(caplog)) == 1
    assert not [r for r in caplog.records if "indexer: batch" in r.getMessage()]  # no failed batch either
