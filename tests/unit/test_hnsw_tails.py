"""The unused capacity of Chroma's HNSW files is zeroed after each operation that (re)wrote them
(``storage/_hnsw_tails.py``, ``storage/_chroma_scrub.py``), over a real embedded Chroma.

What Chroma writes from uninitialised memory is stood in for by bytes written into the files the
way it writes them (the whole file again, a new modification time); the heap itself is the
subject of ``tests/integration/test_forget_bytes.py``."""

from __future__ import annotations

import json
import logging
import struct
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nova_memory_integrations.storage import _hnsw_tails
from nova_memory_integrations.storage._chroma_scrub import DATA_FILE, run_child, zero_unused
from nova_memory_integrations.storage.vectors import VectorIndex

SECRET = b"zebracorn-7731 "


def _vec(n: int, dim: int = 3) -> list[list[float]]:
    return np.random.default_rng(n).standard_normal((n, dim)).astype(np.float32).tolist()


def _segments(root: Path) -> dict[str, str]:
    """Collection id -> segment directory, read in a child (as the store reads it)."""
    proc = run_child("segments", root, 60)
    assert proc.returncode == 0, proc.stderr
    found: dict[str, str] = json.loads(proc.stdout)
    return found


def _segment(index: VectorIndex, user: str) -> Path:
    col = index.collection("episode", user)
    root = index.local_path()
    assert col is not None and root is not None
    return root / _segments(root)[str(col.id)]


def _used(segment: Path) -> int:
    _, _, _, count, per = struct.unpack_from("<iQQQQ", (segment / "header.bin").read_bytes())
    return int(count * per)


def _dirty(segment: Path) -> None:
    """Rewrite the file as Chroma's ``initPersistentIndex`` does: the vectors kept, heap bytes after them."""
    data = (segment / DATA_FILE).read_bytes()
    used = _used(segment)
    (segment / DATA_FILE).write_bytes(data[:used] + (SECRET * len(data))[: len(data) - used])


@pytest.fixture()
def children(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The child processes run to read Chroma's segments table."""
    ran: list[str] = []
    real = _hnsw_tails.run_child

    def counted(command: str, root: Path, timeout: float) -> subprocess.CompletedProcess[str]:
        ran.append(command)
        return real(command, root, timeout)

    monkeypatch.setattr(_hnsw_tails, "run_child", counted)
    return ran


def test_a_read_after_chroma_rewrote_the_files_zeroes_what_lies_past_the_vectors(tmp_path: Path,
                                                                                 children: list[str]) -> None:
    index = VectorIndex(path=tmp_path / "chroma")
    index.upsert("episode", ["a1", "a2"], _vec(2), [{"user_id": "alice"}] * 2)
    segment = _segment(index, "alice")
    assert children == []  # a collection this process created is the one new directory: no child
    assert (segment / DATA_FILE).read_bytes().count(0) == (segment / DATA_FILE).stat().st_size
    _dirty(segment)
    assert index.query("episode", _vec(1)[0], user_id="alice", k=2)  # still answers
    data = (segment / DATA_FILE).read_bytes()
    assert SECRET not in data and data.count(0) == len(data)


def test_a_persisted_collection_keeps_its_vectors_and_loses_the_rest(tmp_path: Path) -> None:
    index = VectorIndex(path=tmp_path / "chroma")
    vectors = _vec(1100)  # past Chroma's sync threshold (1,000): the index is written to its files
    ids = [f"e{n}" for n in range(1100)]
    for start in range(0, 1100, 256):
        index.upsert("episode", ids[start:start + 256], vectors[start:start + 256],
                     [{"user_id": "alice"}] * len(ids[start:start + 256]))
    segment = _segment(index, "alice")
    used = _used(segment)
    assert used > 0
    before = (segment / DATA_FILE).read_bytes()[:used]
    with open(segment / DATA_FILE, "ab") as fh:  # capacity past the vectors, as a resize leaves it
        fh.write(SECRET * 1000)
    index.get_user_ids("episode", "alice")
    data = (segment / DATA_FILE).read_bytes()
    assert data[:used] == before and data[used:].count(0) == len(data) - used
    fresh = VectorIndex(path=tmp_path / "chroma")
    assert fresh.query("episode", vectors[7], user_id="alice", k=1)[0][0] == "e7"


def test_a_store_reopened_maps_its_collections_with_one_child(tmp_path: Path, children: list[str]) -> None:
    first = VectorIndex(path=tmp_path / "chroma")
    for user in ("alice", "bob"):
        first.upsert("episode", [f"{user}1"], _vec(1), [{"user_id": user}])
    segments = {user: _segment(first, user) for user in ("alice", "bob")}
    for segment in segments.values():
        _dirty(segment)
    again = VectorIndex(path=tmp_path / "chroma")  # as the next open of the store does
    for user in ("alice", "bob"):
        again.get_user_ids("episode", user)
        again.get_user_ids("episode", user)
    assert children == ["segments"]
    assert all(SECRET not in (s / DATA_FILE).read_bytes() for s in segments.values())


def test_count_reads_every_collection_and_zeroes_each(tmp_path: Path) -> None:
    index = VectorIndex(path=tmp_path / "chroma")
    for user in ("alice", "bob", "carol"):
        index.upsert("episode", [f"{user}1"], _vec(1), [{"user_id": user}])
    for user in ("alice", "bob", "carol"):
        _dirty(_segment(index, user))
    assert index.count("episode") == 3
    assert all(SECRET not in _segment(index, u).joinpath(DATA_FILE).read_bytes() for u in ("alice", "bob", "carol"))


def test_a_failing_child_never_fails_the_operation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    VectorIndex(path=tmp_path / "chroma").upsert("episode", ["a1"], _vec(1), [{"user_id": "alice"}])

    def broken(command: str, root: Path, timeout: float) -> Any:
        raise subprocess.TimeoutExpired(command, timeout)

    monkeypatch.setattr(_hnsw_tails, "run_child", broken)
    _hnsw_tails._FAILED.reset()
    again = VectorIndex(path=tmp_path / "chroma")
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.storage._hnsw_tails"):
        assert again.get_user_ids("episode", "alice") == ["a1"]
        assert again.get_user_ids("episode", "alice") == ["a1"]
    assert [r.getMessage() for r in caplog.records if "could not zero" in r.getMessage()] == [
        f"nova-memory: could not zero the unused capacity of Chroma's HNSW files in {tmp_path / 'chroma'} "
        "(the next erase scrubs them): Command 'segments' timed out after 60.0 seconds"]


def test_zero_unused_writes_only_what_holds_something(tmp_path: Path) -> None:
    segment = tmp_path / "seg"
    segment.mkdir()
    (segment / "header.bin").write_bytes(struct.pack("<iQQQQ", 1, 0, 100, 2, 10) + bytes(64))
    (segment / DATA_FILE).write_bytes(b"v" * 20 + bytes(50) + SECRET)
    (segment / "length.bin").write_bytes(b"ll" * 4 + SECRET)
    assert zero_unused(segment) == 50 + len(SECRET) + len(SECRET)  # one chunk of each file
    assert (segment / DATA_FILE).read_bytes() == b"v" * 20 + bytes(50 + len(SECRET))
    assert (segment / "length.bin").read_bytes() == b"ll" * 4 + bytes(len(SECRET))
    assert zero_unused(segment) == 0
    (segment / "header.bin").write_bytes(struct.pack("<iQQQQ", 2, 0, 100, 0, 10))  # another format: left alone
    (segment / DATA_FILE).write_bytes(SECRET)
    assert zero_unused(segment) == 0


def test_the_files_an_older_version_left_are_zeroed_by_one_sweep(tmp_path: Path) -> None:
    """The migration ``zero_hnsw_capacity``: every segment directory, a dropped collection's included."""
    index = VectorIndex(path=tmp_path / "chroma")
    for user in ("alice", "bob"):
        index.upsert("episode", [f"{user}1"], _vec(1), [{"user_id": user}])
    segments = [_segment(index, user) for user in ("alice", "bob")]
    index.delete_user("bob")  # its directory stays until a scrub
    for segment in segments:
        _dirty(segment)
    assert index.zero_all_unused() == 2 * (segments[0] / DATA_FILE).stat().st_size
    assert all(SECRET not in (s / DATA_FILE).read_bytes() for s in segments)
    assert index.zero_all_unused() == 0
