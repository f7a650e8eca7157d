"""The ONNX Runtime backend of the default MiniLM, against the real model and real torch.

The model is exported once per test session (the ``minilm_onnx`` fixture of conftest: int8
documents, fp32 queries) into the session's model cache, which every store of the session uses;
another cache directory in this process copies those files instead of exporting again.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nova_memory_integrations import EmbeddingError, NovaConfig, NovaStore
from nova_memory_integrations import onnx_embeddings as oe
from nova_memory_integrations.embeddings import MiniLMEmbeddings, default_embeddings
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings

SENTENCES = [
    "I moved to Berlin last spring and started a new job at a robotics startup.",
    "What did I say about the dentist?",
    "ok",
    "Ünïcödé façade: 東京 in the spring 😀",
    "My sister Maya lives in Lisbon and works on a vegan recipe app; she kayaks on weekends. " * 12,  # > 128 tokens
    "Remind me that Jonas wants the invoice by Friday.",
    *[f"Turn {i}: we talked about the {w} again" for i, w in enumerate(["budget", "flight", "garden", "guitar"] * 10)],
]


def _cosines(a: list[list[float]], b: list[list[float]]) -> np.ndarray:
    x, y = np.asarray(a), np.asarray(b)
    out: np.ndarray = np.sum(x * y, axis=1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))
    return out


def test_fp32_matches_sentence_transformers(minilm_onnx: OnnxMiniLMEmbeddings, minilm: MiniLMEmbeddings) -> None:
    fp32 = OnnxMiniLMEmbeddings(cache_dir=minilm_onnx.cache_dir, quantize=False, fallback=False).load()
    assert fp32.backend == "onnx-fp32" and fp32.model_file is not None and fp32.model_file.name.endswith("-fp32.onnx")
    assert len(SENTENCES) > fp32.batch_size  # several sorted batches, rows back in input order
    cos = _cosines(fp32.embed_documents(SENTENCES), minilm.embed_documents(SENTENCES))
    assert cos.min() >= 0.999, cos
    query = fp32.embed_query(SENTENCES[1])
    assert len(query) == 384 and abs(float(np.linalg.norm(query)) - 1.0) < 1e-4
    assert _cosines([query], [minilm.embed_query(SENTENCES[1])])[0] >= 0.999


def test_int8_is_close_to_torch(minilm_onnx: OnnxMiniLMEmbeddings, minilm: MiniLMEmbeddings) -> None:
    int8 = OnnxMiniLMEmbeddings(cache_dir=minilm_onnx.cache_dir, quantize=True).load()
    assert int8.backend == "onnx-int8" and int8.model_file is not None
    assert int8.model_file.name.endswith("-int8.onnx") and int8.model_file.parent == minilm_onnx.cache_dir
    cos = _cosines(int8.embed_documents(SENTENCES), minilm.embed_documents(SENTENCES))
    assert cos.min() >= 0.9 and cos.mean() >= 0.98, cos
    queries = _cosines([int8.embed_query(t) for t in SENTENCES[:3]], minilm.embed_documents(SENTENCES[:3]))
    assert queries.min() < 0.9999  # int8 for queries too: not the fp32 model


def test_int8_keeps_the_feed_forward_down_projections_in_fp32(minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    import onnx

    assert minilm_onnx.model_file is not None
    model = onnx.load(str(minilm_onnx.model_file))
    shapes = {i.name: list(i.dims) for i in model.graph.initializer}
    weights: dict[str, list[list[int]]] = {"MatMul": [], "MatMulInteger": []}
    for node in model.graph.node:
        for name in node.input:
            if len(shapes.get(name, [])) == 2 and node.op_type in weights:
                weights[node.op_type].append(shapes[name])
    assert sorted(map(tuple, weights["MatMul"])) == [(1536, 384)] * 6  # the six down-projections, fp32
    assert len(weights["MatMulInteger"]) == 30 and all(rows <= cols for rows, cols in weights["MatMulInteger"])


def test_default_embeds_documents_in_int8_and_queries_in_fp32(
    minilm_onnx: OnnxMiniLMEmbeddings, minilm: MiniLMEmbeddings
) -> None:
    assert minilm_onnx.quantize == "documents" and minilm_onnx.backend == "onnx-int8-documents"
    assert minilm_onnx.model_file is not None and minilm_onnx.model_file.name.endswith("-int8.onnx")
    reference = minilm.embed_documents(SENTENCES)
    docs = _cosines(minilm_onnx.embed_documents(SENTENCES), reference)
    assert docs.min() >= 0.9 and docs.mean() >= 0.98 and docs.mean() < 0.9995, docs  # the int8 model
    queries = _cosines([minilm_onnx.embed_query(t) for t in SENTENCES], reference)
    assert queries.min() >= 0.999, queries  # the fp32 model
    # one vector space: a query finds its own text among the int8 documents
    sims = np.asarray(minilm_onnx.embed_documents(SENTENCES)) @ np.asarray(minilm_onnx.embed_query(SENTENCES[5]))
    assert int(np.argmax(sims)) == 5 and sims[5] >= 0.95
    # a document's int8 vector does not depend on the texts embedded with it
    alone = minilm_onnx.embed_documents([SENTENCES[0]])[0]
    with_others = minilm_onnx.embed_documents([*SENTENCES[1:], SENTENCES[0]])[-1]
    assert np.allclose(alone, with_others, atol=1e-6)
    with pytest.raises(ValueError):
        OnnxMiniLMEmbeddings(cache_dir=minilm_onnx.cache_dir, quantize="queries")  # type: ignore[arg-type]


def test_documents_fall_back_to_fp32_when_int8_fails(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise EmbeddingError("no int8 kernels here")

    monkeypatch.setattr(oe, "quantize_onnx", broken)
    monkeypatch.setattr(oe, "_files", {k: v for k, v in oe._files.items() if k.endswith("-fp32")})  # no int8 to copy
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        emb = OnnxMiniLMEmbeddings(cache_dir=tmp_path / "models", fallback=False).load()
    assert emb.backend == "onnx-fp32"  # not torch: the fp32 model serves both sides
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == [
        "nova-memory: int8 embedding model unavailable (EmbeddingError: no int8 kernels here); "
        "embedding documents with the fp32 model too"
    ]
    assert _cosines(emb.embed_documents(SENTENCES[:2]), [emb.embed_query(t) for t in SENTENCES[:2]]).min() >= 0.9999


def test_cache_file_lives_in_the_model_cache_and_is_reused(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    with NovaStore(data) as store:  # the default config: backend "auto", int8 documents + fp32 queries
        store.add_turn("alice", "user", "I adopted a cat called Miso.")
        assert store.search("what pet do I have?", "alice", k=1)[0].text.startswith("I adopted")
        emb = store.components.embedder.inner
        assert isinstance(emb, OnnxMiniLMEmbeddings) and emb.backend == "onnx-int8-documents"
        assert emb.model_file is not None and emb.model_file.parent == minilm_onnx.cache_dir  # the per-machine cache
    assert not (data / "models").exists()
    names = sorted(f.name for f in minilm_onnx.cache_dir.iterdir() if f.suffix == ".onnx")
    assert len(names) == 2 and emb.model_file.name in names and not any(n.startswith(".") for n in names)
    mtime = emb.model_file.stat().st_mtime_ns

    def no_export(*args: object, **kwargs: object) -> None:
        raise AssertionError("exported again")

    monkeypatch.setattr(oe, "export_onnx", no_export)
    monkeypatch.setattr(oe, "quantize_onnx", no_export)
    with NovaStore(data) as store:
        store.add_turn("alice", "user", "Miso likes tuna.")
        hits = store.search("Miso likes tuna", "alice", k=2)
        assert {h.text for h in hits} == {"I adopted a cat called Miso.", "Miso likes tuna."}
        assert store.components.embedder.inner.backend == "onnx-int8-documents"  # type: ignore[attr-defined]
    assert emb.model_file.stat().st_mtime_ns == mtime
    assert sorted(f.name for f in minilm_onnx.cache_dir.iterdir() if f.suffix == ".onnx") == names
    # another data directory in this process copies the checked files instead of exporting
    other = OnnxMiniLMEmbeddings(cache_dir=tmp_path / "other" / "models").load()
    assert minilm_onnx.model_file is not None and other.model_file is not None
    assert other.model_file.read_bytes() == minilm_onnx.model_file.read_bytes()
    assert sorted(f.name for f in (tmp_path / "other" / "models").iterdir() if f.suffix == ".onnx") == names


def test_a_new_process_loads_the_cached_file_without_torch(minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    # the int8 model: quantised from the cached fp32 export when missing, still without torch
    code = (
        "import json, sys; from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings as O; "
        f"e = O(cache_dir={str(minilm_onnx.cache_dir)!r}, quantize=True).load(); v = e.embed_query('hello'); "
        "print(json.dumps([e.backend, len(v), [m for m in ('torch', 'transformers', 'sentence_transformers') "
        "if m in sys.modules]]))"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300, env=env)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == ["onnx-int8", 384, []]


def test_a_damaged_cache_file_is_made_again(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "models"
    assert minilm_onnx.model_file is not None
    cache.mkdir()
    (cache / minilm_onnx.model_file.name).write_bytes(b"not an onnx model")
    monkeypatch.setattr(oe, "_sessions", {})  # sessions are opened anew from this directory
    emb = OnnxMiniLMEmbeddings(cache_dir=cache, fallback=False).load()
    assert emb.backend == "onnx-int8-documents"
    assert (cache / minilm_onnx.model_file.name).read_bytes() == minilm_onnx.model_file.read_bytes()


def test_falls_back_to_torch_with_one_warning_without_onnxruntime(
    tmp_path: Path, minilm: MiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime -> ImportError
    emb = OnnxMiniLMEmbeddings(cache_dir=tmp_path / "models")
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        docs = emb.embed_documents(SENTENCES[:3])
        query = emb.embed_query(SENTENCES[1])
        emb.embed_documents(SENTENCES[3:5])
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "ONNX embedding backend unavailable" in warnings[0].getMessage(), caplog.text
    assert emb.backend == "torch"
    assert _cosines(docs, minilm.embed_documents(SENTENCES[:3])).min() >= 0.9999
    assert _cosines([query], [docs[1]])[0] >= 0.9999  # queries and documents share the backend
    assert not (tmp_path / "models").exists()  # nothing exported

    strict = OnnxMiniLMEmbeddings(cache_dir=tmp_path / "models", fallback=False)
    with pytest.raises(EmbeddingError):
        strict.embed_query("hello")


def test_config_selects_the_backend(tmp_path: Path) -> None:
    cfg = NovaConfig()
    assert cfg.embeddings.backend == "auto" and cfg.embeddings.quantize == "documents"
    auto = default_embeddings(cfg.embeddings, tmp_path)
    assert isinstance(auto, OnnxMiniLMEmbeddings) and auto.fallback and auto.quantize == "documents"
    assert auto.cache_dir == Path(os.environ["NOVA_MEMORY_MODEL_CACHE"]) / "embeddings"  # not the data dir
    assert auto.backend == "unloaded"  # nothing loads before the first embedding
    strict = default_embeddings(NovaConfig.from_dict({"embeddings": {"backend": "onnx", "quantize": False}}).embeddings,
                                tmp_path)
    assert isinstance(strict, OnnxMiniLMEmbeddings) and not strict.fallback and strict.quantize is False
    for raw, value in (("documents", "documents"), (True, True), (False, False)):
        loaded = NovaConfig.from_dict({"embeddings": {"quantize": raw}}).embeddings
        assert loaded.quantize == value and type(loaded.quantize) is type(value)
    torch_cfg = NovaConfig.from_dict({"embeddings": {"backend": "torch", "torch_threads": 1}}).embeddings
    torch_model = default_embeddings(torch_cfg, tmp_path)
    assert isinstance(torch_model, MiniLMEmbeddings) and torch_model.torch_threads == 1
    from nova_memory_integrations import ConfigError

    with pytest.raises(ConfigError):
        NovaConfig.from_dict({"embeddings": {"backend": "tensorflow"}})
    with pytest.raises(ConfigError):
        NovaConfig.from_dict({"embeddings": {"quantize": "queries"}})
    assert not (tmp_path / "models").exists()


def test_unsupported_model_directory_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "st-model"
    model.mkdir()
    (model / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
    ]))
    with pytest.raises(EmbeddingError, match="cannot reproduce"):
        OnnxMiniLMEmbeddings(model, cache_dir=tmp_path / "models", fallback=False).load()
