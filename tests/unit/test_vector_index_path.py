"""``VectorIndex`` knows the directory it opened its embedded Chroma in (``storage/vectors.py``), over a
real embedded Chroma: erasure (``maintenance/erasure``), the scrub and the zeroing of HNSW tails all
start from :meth:`VectorIndex.local_path`."""

from __future__ import annotations

from pathlib import Path

import chromadb
import pytest
from chromadb.config import Settings

from nova_memory_integrations.storage.vectors import VectorIndex


def _refuse_settings(index: VectorIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> object:
        raise RuntimeError("settings unavailable")

    monkeypatch.setattr(index.client, "get_settings", refuse)


def test_an_index_that_opened_its_directory_knows_it_without_asking_the_client(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The constructor replaces a missing client by the one it opens, so the path must be kept by
    whether it opened one, not by whether ``client`` is still ``None`` afterwards (it never is)."""
    index = VectorIndex(path=tmp_path / "chroma")
    _refuse_settings(index, monkeypatch)
    assert index.local_path() == tmp_path / "chroma"


def test_a_given_client_is_asked_where_it_keeps_its_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A path beside a given client is not this index's: the client's own settings say where it writes."""
    client = chromadb.PersistentClient(path=str(tmp_path / "theirs"), settings=Settings(anonymized_telemetry=False))
    index = VectorIndex(client, path=tmp_path / "ignored")
    assert index.local_path() == tmp_path / "theirs"
    _refuse_settings(index, monkeypatch)
    assert index.local_path() is None
