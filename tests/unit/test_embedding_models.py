"""Embedding models by name: the mpnet extra's split archive joined and unpacked once (a local
stand-in archive; the real wheels are never needed by the tests)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from nova_memory_integrations.config import NovaConfig
from nova_memory_integrations.embeddings import models
from nova_memory_integrations.embeddings.base import packaged_model_path
from nova_memory_integrations.errors import ConfigError, EmbeddingError


def _split_archive(tmp_path: Path, files: dict[str, bytes], parts: int = 5) -> list[Path]:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    blob = buf.getvalue()
    size = -(-len(blob) // parts)
    out = []
    for i in range(parts):
        path = tmp_path / f"all-mpnet-base-v2.zip.{i + 1:03d}"
        path.write_bytes(blob[i * size:(i + 1) * size])
        out.append(path)
    return out


FILES = {
    "all-mpnet-base-v2/modules.json": b"[]",
    "all-mpnet-base-v2/config.json": b"{}",
    "all-mpnet-base-v2/desktop.ini": b"[.ShellClassInfo]",
    "all-mpnet-base-v2/1_Pooling/config.json": b"{}",
    "all-mpnet-base-v2/1_Pooling/desktop.ini": b"x",
}


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    split = _split_archive(tmp_path, FILES)
    monkeypatch.setattr(models, "_part_file", lambda dist, index: split[index - 1])
    return split


def test_the_parts_are_joined_and_unpacked_without_desktop_ini(tmp_path: Path, parts: list[Path]) -> None:
    target = models.resolve_model("all-mpnet-base-v2", tmp_path / "cache")
    found = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert found == ["1_Pooling/config.json", "config.json", "modules.json"]


def test_a_second_resolve_reuses_the_unpacked_directory(tmp_path: Path, parts: list[Path]) -> None:
    first = models.resolve_model("all-mpnet-base-v2", tmp_path / "cache")
    parts[0].write_bytes(b"damaged")  # never read again
    assert models.resolve_model("all-mpnet-base-v2", tmp_path / "cache") == first


def test_a_damaged_archive_is_an_embedding_error_and_leaves_nothing(tmp_path: Path, parts: list[Path]) -> None:
    parts[2].write_bytes(parts[2].read_bytes()[:-10] + b"0123456789")
    with pytest.raises(EmbeddingError):
        models.resolve_model("all-mpnet-base-v2", tmp_path / "cache")
    assert list((tmp_path / "cache" / "sentence-transformers").iterdir()) == []


def test_without_the_extra_the_error_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models, "_MPNET_PARTS", [f"nova-memory-test-absent-part-{i}" for i in range(1, 6)])
    with pytest.raises(EmbeddingError, match=r"nova-memory-integrations\[mpnet\]"):
        models.resolve_model("all-mpnet-base-v2", tmp_path / "cache")


def test_the_default_model_is_the_packaged_one(tmp_path: Path) -> None:
    assert models.resolve_model("all-MiniLM-L6-v2", tmp_path) == packaged_model_path()


def test_an_unknown_name_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        models.resolve_model("bert-large", tmp_path)


def test_the_config_accepts_only_known_names() -> None:
    with pytest.raises(ConfigError):
        NovaConfig.from_dict({"embeddings": {"model": "bert-large"}})
