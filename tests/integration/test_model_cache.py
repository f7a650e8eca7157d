"""The per-machine ONNX model cache: one export shared by every data directory, checked by sha256.

The session's model cache (conftest ``model_cache``, ``NOVA_MEMORY_MODEL_CACHE``) already holds
the export made by the ``minilm_onnx`` fixture; these tests show stores use it without exporting
again, in this process and in another one, and that a damaged file is made again, not used.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations import onnx_embeddings as oe
from nova_memory_integrations.config import model_cache_dir
from nova_memory_integrations.embeddings import _cache_file as cf
from nova_memory_integrations.embeddings import default_embeddings
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings

TEXTS = ["I adopted a cat called Miso.", "What pet do I have?", "ok"]


def _stamps(folder: Path) -> dict[str, tuple[int, int, int]]:
    return {f.name: (f.stat().st_ino, f.stat().st_mtime_ns, f.stat().st_size) for f in sorted(folder.iterdir())}


def _no_export(*args: object, **kwargs: object) -> None:
    raise AssertionError("exported again")


def test_two_stores_in_two_data_dirs_share_one_export(
    tmp_path: Path, model_cache: Path, minilm_onnx: OnnxMiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = model_cache / "embeddings"
    assert minilm_onnx.cache_dir == cache
    before = _stamps(cache)
    assert sorted(n for n in before if n.endswith(".onnx")) == sorted(
        n.removesuffix(".sha256") for n in before if n.endswith(".sha256"))  # every file has its digest
    monkeypatch.setattr(oe, "export_onnx", _no_export)
    monkeypatch.setattr(oe, "quantize_onnx", _no_export)
    old = tmp_path / "b" / "models"  # a data dir of an older version, with its own (broken) copy
    old.mkdir(parents=True)
    (old / "all-MiniLM-L6-v2-0000000000000000-int8.onnx").write_bytes(b"stale")
    used = []
    for name in ("a", "b"):
        with NovaStore(tmp_path / name) as store:  # default embeddings: the per-machine cache
            store.add_turn("alice", "user", TEXTS[0])
            assert store.search(TEXTS[1], "alice", k=1)[0].text == TEXTS[0]
            emb = store.components.embedder.inner
            assert isinstance(emb, OnnxMiniLMEmbeddings) and emb.backend == "onnx-int8-documents"
            used.append(emb.model_file)
    assert used[0] == used[1] == minilm_onnx.model_file and used[0] is not None and used[0].parent == cache
    assert _stamps(cache) == before  # nothing exported, copied or rewritten
    assert not [p for p in (tmp_path / "a").rglob("*.onnx*")]
    assert [p.name for p in (tmp_path / "b").rglob("*.onnx*")] == ["all-MiniLM-L6-v2-0000000000000000-int8.onnx"]


def test_another_process_uses_the_cache_without_torch(tmp_path: Path, model_cache: Path,
                                                      minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    before = _stamps(model_cache / "embeddings")
    code = textwrap.dedent(f"""
        import json, sys
        from nova_memory_integrations import NovaStore
        with NovaStore({str(tmp_path / "c")!r}) as store:
            store.add_turn("bob", "user", "I play the cello.")
            hits = store.search("which instrument?", "bob", k=1)
            emb = store.components.embedder.inner
            print(json.dumps([emb.backend, str(emb.model_file), hits[0].text,
                              [m for m in ("torch", "transformers") if m in sys.modules]]))
    """)
    env = {**os.environ, "NOVA_MEMORY_MODEL_CACHE": str(model_cache)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    backend, model_file, text, heavy = json.loads(out.stdout.strip().splitlines()[-1])
    assert (backend, model_file, text, heavy) == ("onnx-int8-documents", str(minilm_onnx.model_file),
                                                  "I play the cello.", [])
    assert _stamps(model_cache / "embeddings") == before
    assert not list((tmp_path / "c").rglob("*.onnx*"))


def _flip(path: Path) -> None:
    """Flip one byte in the middle, keeping the size and the modification time."""
    st = path.stat()
    with open(path, "r+b") as fh:
        fh.seek(st.st_size // 2)
        byte = fh.read(1)
        fh.seek(st.st_size // 2)
        fh.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _copy_entry(src: Path, dst_dir: Path) -> Path:
    dst_dir.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dst_dir / src.name)
    shutil.copy2(cf.sidecar(src), cf.sidecar(dst_dir / src.name))
    return dst_dir / src.name


def test_a_corrupted_cached_file_is_detected_by_hash_and_exported_again(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    fp32 = minilm_onnx.cache_dir / minilm_onnx.model_file.name.replace("-int8", "-fp32")  # type: ignore[union-attr]
    target = _copy_entry(fp32, tmp_path / "cache")
    assert cf.is_intact(target)
    cf.forget(target)
    _flip(target)
    assert not cf.is_intact(target)  # same size and mtime: only the hash tells

    exports: list[str] = []
    real_export = oe.export_onnx

    def counting_export(model_dir: object, out: object) -> None:
        exports.append(str(out))
        real_export(model_dir, out)  # type: ignore[arg-type]

    monkeypatch.setattr(oe, "export_onnx", counting_export)
    monkeypatch.setattr(oe, "_files", {})  # no checked copy to take: a real export
    monkeypatch.setattr(oe, "_sessions", {})
    with caplog.at_level(logging.INFO, logger="nova_memory_integrations"):
        emb = OnnxMiniLMEmbeddings(cache_dir=tmp_path / "cache", quantize=False, fallback=False).load()
    assert len(exports) == 1 and emb.model_file == target
    assert any("unchecked or damaged" in r.getMessage() for r in caplog.records)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    assert cf.recorded_digest(target) == digest and cf.is_intact(target)
    queries = np.asarray([emb.embed_query(t) for t in TEXTS])
    reference = np.asarray([minilm_onnx.embed_query(t) for t in TEXTS])  # fp32 queries
    assert np.sum(queries * reference, axis=1).min() >= 0.9999
    assert sorted(p.name for p in (tmp_path / "cache").iterdir() if not p.name.endswith(".lock")) == [
        target.name, cf.sidecar(target).name]  # no temporary file left


def test_a_truncated_or_unrecorded_file_is_made_again_from_the_checked_copy(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert minilm_onnx.model_file is not None
    monkeypatch.setattr(oe, "export_onnx", _no_export)
    monkeypatch.setattr(oe, "quantize_onnx", _no_export)
    cache = tmp_path / "cache"
    truncated = _copy_entry(minilm_onnx.model_file, cache)
    with open(truncated, "r+b") as fh:
        fh.truncate(truncated.stat().st_size // 3)
    unrecorded = _copy_entry(minilm_onnx.cache_dir / minilm_onnx.model_file.name.replace("-int8", "-fp32"), cache)
    cf.sidecar(unrecorded).unlink()  # e.g. a file from before the digests
    for path, quantize in ((truncated, True), (unrecorded, False)):
        assert oe.onnx_model_file(minilm_onnx.model_path, cache, quantize=quantize) == path
        source = minilm_onnx.cache_dir / path.name
        assert path.read_bytes() == source.read_bytes() and cf.recorded_digest(path) == cf.recorded_digest(source)


def test_the_env_var_and_the_config_choose_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOVA_MEMORY_MODEL_CACHE", str(tmp_path / "env"))
    auto = default_embeddings(NovaConfig().embeddings, tmp_path / "data")
    assert isinstance(auto, OnnxMiniLMEmbeddings) and auto.cache_dir == tmp_path / "env" / "embeddings"
    assert OnnxMiniLMEmbeddings().cache_dir == tmp_path / "env" / "embeddings"
    configured = NovaConfig.from_dict({"embeddings": {"model_cache_dir": str(tmp_path / "cfg")}}).embeddings
    assert default_embeddings(configured).cache_dir == tmp_path / "cfg" / "embeddings"  # type: ignore[attr-defined]

    monkeypatch.delenv("NOVA_MEMORY_MODEL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert model_cache_dir() == tmp_path / "xdg" / "nova-memory" / "models"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert model_cache_dir() == tmp_path / "home" / ".cache" / "nova-memory" / "models"
    assert model_cache_dir("~/models") == tmp_path / "home" / "models"
    assert not any(p.exists() for p in (tmp_path / "env", tmp_path / "cfg", tmp_path / "xdg", tmp_path / "home"))


def test_a_store_honours_the_configured_cache(
    tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "read-only-store-cache"
    (cache / "embeddings").mkdir(parents=True)
    for f in minilm_onnx.cache_dir.iterdir():
        if f.suffix in (".onnx", ".sha256"):
            os.link(f, cache / "embeddings" / f.name)
    monkeypatch.setenv("NOVA_MEMORY_MODEL_CACHE", str(tmp_path / "not-this-one"))
    monkeypatch.setattr(oe, "export_onnx", _no_export)
    monkeypatch.setattr(oe, "quantize_onnx", _no_export)
    cfg = NovaConfig.from_dict({"embeddings": {"model_cache_dir": str(cache)}})
    with NovaStore(tmp_path / "data", config=cfg) as store:
        store.add_turn("alice", "user", TEXTS[0])
        emb = store.components.embedder.inner
        assert store.search(TEXTS[1], "alice", k=1)[0].text == TEXTS[0]
        assert isinstance(emb, OnnxMiniLMEmbeddings) and emb.model_file is not None
        assert emb.model_file.parent == cache / "embeddings"
    assert not (tmp_path / "not-this-one").exists()


WRITER = """
import sys, time
from pathlib import Path
from nova_memory_integrations.embeddings import _cache_file as cf

target = Path(sys.argv[1])
with cf.file_lock(target.with_name(".lock")):
    if cf.is_intact(target):
        print("found")
    else:
        tmp = cf.tmp_name(target)
        tmp.write_bytes(b"model bytes " * 1000)
        time.sleep(0.5)
        cf.install(tmp, target, cf.sha256_file(tmp))
        print("made")
"""


def test_two_processes_writing_at_once_make_the_file_once(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(target)], stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = sorted(p.communicate(timeout=120)[0].strip() for p in procs)
    assert outputs == ["found", "made"]
    assert cf.is_intact(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", "model.onnx", "model.onnx.sha256"]
