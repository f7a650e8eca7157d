"""``forget(user)`` then ``close()`` leaves no byte of the user's text and none of their vectors
anywhere under the data directory, Chroma's own files included; Chroma never holds text.

Every file under the data directory is read raw (``os.walk``) and searched for the user's
text markers (UTF-8, as written and lowercased) and for the float32 bytes of their stored
vectors (as Chroma returned them, and unit-normalised, as its cosine HNSW index keeps them).
"""

from __future__ import annotations

import json
import os
import platform
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from heap_probe import HashEmbeddings, heap_env

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langgraph import NovaLangGraphStore
from nova_memory_integrations.storage.items import ITEM_KIND, item_index
from nova_memory_integrations.storage.migrations import Ledger
from nova_memory_integrations.storage.vector_migrations import strip_text
from nova_memory_integrations.storage.vectors import SCRUB_KEY, VectorIndex

GONE, KEPT = "zebra-user-7731", "okapi-user-4410"
MARKS = {GONE: ["zebracorn-7731", "ZebraQuill-5521", "Zebrafen-9002"],
         KEPT: ["okapiberry-4410", "OkapiLute-3312", "okapimoor-6604"]}
_HEX = re.compile(r"[0-9a-f]{32}")


def _files(root: Path) -> dict[str, bytes]:
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            out[str(path.relative_to(root))] = path.read_bytes()
    return out


def _needles(user: str, vectors: list[np.ndarray]) -> dict[str, bytes]:
    needles = {}
    for mark in MARKS[user]:
        needles[mark] = mark.encode("utf-8")
        needles[mark.lower()] = mark.lower().encode("utf-8")
    needles["user id"] = user.encode("utf-8")
    for n, v in enumerate(vectors):
        v = np.asarray(v, dtype="<f4")
        needles[f"vector {n}"] = v.tobytes()
        needles[f"vector {n} (first 8 floats)"] = v[:8].tobytes()
        unit = (v / np.linalg.norm(v)).astype("<f4")
        needles[f"unit vector {n} (first 8 floats)"] = unit[:8].tobytes()
    return needles


def _found(root: Path, needles: dict[str, bytes]) -> list[tuple[str, str]]:
    return [(what, name) for name, data in _files(root).items() for what, needle in needles.items() if needle in data]


def _fill(store: NovaStore, user: str, extra: int = 0) -> None:
    a, b, c = MARKS[user]
    store.add_turns([
        {"user_id": user, "role": "user", "content": f"My secret garden password is {a}.", "session_id": f"{b}-chat"},
        {"user_id": user, "role": "assistant", "content": f"Noted: {a}. I will remember {b}."},
        {"user_id": user, "role": "user", "content": f"I live in {c} and I work at {b}."},
    ])
    if extra:
        store.add_turns([{"user_id": user, "role": "user", "content": f"Diary line {n}: {a} walked {n} km."}
                         for n in range(extra)])
    store.consolidate(user)
    store.add_fact(user, "user", "favorite_word", a)
    store.add_rule(user, f"user mentions {b}", f"reply with {c}")
    NovaLangGraphStore(store, index_fields=["text"]).put((user, "notes"), "k", {"text": f"{a} note about {c}"})
    store.flush()


def _user_vectors(store: NovaStore, user: str) -> list[np.ndarray]:
    """A few of the user's stored vectors, as Chroma returns them (float32)."""
    out = []
    for index, kind in ((store.components.vectors, "episode"), (store.components.vectors, "fact"),
                        (store.components.vectors, "rule"), (item_index(store.components.vectors), ITEM_KIND)):
        col = index.collection(kind, user)
        assert col is not None, kind
        got = col.get(limit=2, include=["embeddings"])
        out += [np.asarray(e, dtype="<f4") for e in got["embeddings"]]
    return out


def _assert_no_text_in_chroma(client: Any) -> None:
    cols = client.list_collections()
    assert cols
    for col in cols:
        rows = col.get(include=["documents", "metadatas"])
        assert rows["ids"], col.name
        assert all(d is None for d in rows["documents"]), col.name
        for meta in rows["metadatas"]:
            assert isinstance(meta.get("user_id"), str)
            hashed = {k: v for k, v in meta.items() if k != "user_id"}
            assert all(k.startswith("h_") and _HEX.fullmatch(str(v)) for k, v in hashed.items()), meta


def _assert_kept_user_readable(store: NovaStore) -> None:
    a, b, c = MARKS[KEPT]
    assert any(a in h.text for h in store.search(f"what is my secret garden password {a}", KEPT, k=5))
    assert a in store.context("what is my garden password?", KEPT, budget_tokens=400).text
    assert store.facts(KEPT, predicate="favorite_word")[0].object == a
    assert [r.action for r in store.rules(KEPT, f"user mentions {b}")] == [f"reply with {c}"]
    hit = NovaLangGraphStore(store, index_fields=["text"]).search((KEPT,), query=f"{a} note about {c}")
    assert hit and hit[0].key == "k" and hit[0].score and hit[0].score > 0.5
    assert len(store.components.vectors.get_user_ids("episode", KEPT)) >= 3


def test_chroma_never_holds_text(make_store: Any) -> None:
    store = make_store()
    for user in (GONE, KEPT):
        _fill(store, user)
    _assert_no_text_in_chroma(store.components.vectors.client)
    chroma = store.path / "chroma"
    marks = {m: m.encode("utf-8") for user in (GONE, KEPT) for m in MARKS[user]}
    assert _found(chroma, marks) == []  # not even in Chroma's write-ahead queue or full-text tables
    assert any(MARKS[KEPT][0].encode() in data for data in _files(store.path).values())  # SQLite holds it
    assert "text_free_vector_index" in Ledger(store.components.db).applied()


_PROBE = Path(__file__).resolve().parents[1] / "heap_probe.py"
_GLIBC = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the heap is filled through glibc's tunables")


def _probe(scenario: str, root: Path, *, perturb: bool = False) -> dict[str, list[list[str]]]:
    """What ``tests/heap_probe.py`` finds in Chroma's files (markers of the heap, unwritten bytes)."""
    proc = subprocess.run([sys.executable, str(_PROBE), scenario, str(root)], env=heap_env(perturb=perturb),
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    found: dict[str, list[list[str]]] = json.loads(proc.stdout.strip().splitlines()[-1])
    return found


@_GLIBC
@pytest.mark.parametrize("scenario", ["fresh", "long"])
def test_chroma_files_hold_no_byte_of_the_heap(tmp_path: Path, scenario: str) -> None:
    """Chroma writes a collection's HNSW files with room for 100 vectors, from memory it never
    initialised: after the heap held the users' text (filled with it here, in a fresh process and in
    one that opened, wrote and closed stores before), none of it may reach those files."""
    assert _probe(scenario, tmp_path / "mem") == {"open": [], "closed": []}


@_GLIBC
def test_a_process_that_only_reads_writes_no_byte_of_the_heap(tmp_path: Path) -> None:
    """A collection not yet persisted (under 1,000 vectors) gets its HNSW files written again by
    the first read of each process."""
    assert _probe("write", tmp_path / "mem") == {"open": [], "closed": []}
    assert _probe("reopen", tmp_path / "mem") == {"open": [], "closed": []}


@_GLIBC
@pytest.mark.parametrize("scenario", ["fresh", "reopen"])
def test_chroma_files_hold_no_unwritten_byte(tmp_path: Path, scenario: str) -> None:
    """glibc fills every allocation with one byte (``perturb``): no run of it reaches Chroma's files,
    whatever the heap held."""
    if scenario == "reopen":
        _probe("write", tmp_path / "mem")
    assert _probe(scenario, tmp_path / "mem", perturb=True) == {"open": [], "closed": []}


def _forget_and_scan(store: NovaStore, reopen: Any) -> None:
    gone_vectors = _user_vectors(store, GONE)
    kept_vectors = _user_vectors(store, KEPT)
    root = store.path
    assert _found(root, _needles(GONE, gone_vectors))  # the scan sees the user before forget
    store.forget(GONE)
    assert store.components.db.get_meta(SCRUB_KEY) == "0"
    _assert_kept_user_readable(store)
    store.close()

    assert _found(root, _needles(GONE, gone_vectors)) == []
    kept = {what for what, _ in _found(root, _needles(KEPT, kept_vectors))}
    assert set(MARKS[KEPT]) <= kept and any(w.startswith(("vector", "unit vector")) for w in kept)  # still there
    again = reopen()
    try:
        _assert_kept_user_readable(again)
        assert again.search(MARKS[GONE][0], GONE, k=5) == []
    finally:
        again.close()


def test_forget_then_close_leaves_no_byte_of_the_user(make_store: Any, tmp_path: Path) -> None:
    store = make_store()
    for user in (GONE, KEPT):
        _fill(store, user)
    _forget_and_scan(store, lambda: make_store())


def test_forget_scrubs_persisted_hnsw_files_and_the_purged_queue(make_store: Any) -> None:
    """Past Chroma's sync threshold (1,000 rows) a collection's HNSW index is written to its
    segment directory and its write-ahead queue purged: both places are scrubbed too."""
    store = make_store(embeddings=HashEmbeddings())
    for user in (GONE, KEPT):
        _fill(store, user, extra=1100)
    segment_dirs = [p for p in (store.path / "chroma").iterdir() if p.is_dir()]
    assert any((p / "index_metadata.pickle").exists() for p in segment_dirs)  # an HNSW index on disk
    _forget_and_scan(store, lambda: make_store(embeddings=HashEmbeddings()))


def test_a_scrub_interrupted_by_a_crash_runs_at_the_next_open(make_store: Any, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    store = make_store()
    for user in (GONE, KEPT):
        _fill(store, user)
    gone_vectors = _user_vectors(store, GONE)
    monkeypatch.setattr(VectorIndex, "scrub", lambda self: False)  # the process dies before the scrub
    store.forget(GONE)
    assert store.components.db.get_meta(SCRUB_KEY) == "1"
    store.close()
    assert _found(store.path, _needles(GONE, gone_vectors))  # Chroma's free pages / HNSW files still hold them
    monkeypatch.undo()
    again = make_store()
    assert again.components.db.get_meta(SCRUB_KEY) == "0"
    _assert_kept_user_readable(again)
    again.close()
    assert _found(store.path, _needles(GONE, gone_vectors)) == []


def test_an_index_written_with_text_is_rewritten_without_it_once(make_store: Any) -> None:
    store = make_store()
    for user in (GONE, KEPT):
        _fill(store, user)
    client = store.components.vectors.client
    before: dict[str, dict[str, np.ndarray]] = {}
    for col in client.list_collections():  # rewrite it as earlier versions left it: documents, text metadata
        rows = col.get(include=["embeddings", "metadatas"])
        before[col.name] = dict(zip(rows["ids"], np.asarray(rows["embeddings"], dtype="<f4")))
        col.delete(ids=rows["ids"])
        col.add(ids=rows["ids"], embeddings=rows["embeddings"], documents=[f"{MARKS[KEPT][0]} {i}" for i in rows["ids"]],
                   metadatas=[{"user_id": m["user_id"], "session_id": "legacy-chat", "role": "user", "ts": 1.5,
                               "subject": MARKS[KEPT][1], "item": "it_1", "s0": "notes"} for m in rows["metadatas"]])
    interrupted = sorted(before)[0]  # an earlier attempt died while copying this one
    client.create_collection(interrupted + ".m", embedding_function=None, metadata={"user_id": "half"})
    store.close()
    conn = sqlite3.connect(store.path / "nova.sqlite3")  # as a version before the migration left it
    conn.execute("DELETE FROM migrations WHERE name = 'text_free_vector_index'")
    conn.commit()
    conn.close()
    chroma = store.path / "chroma"
    assert _found(chroma, {"document": MARKS[KEPT][0].encode(), "metadata": MARKS[KEPT][1].encode()})

    again = make_store()
    try:
        assert "text_free_vector_index" in Ledger(again.components.db).applied()
        _assert_no_text_in_chroma(client)
        assert {c.name for c in client.list_collections()} == set(before)
        for name, vectors in before.items():  # the same vectors (Chroma re-normalises them), none embedded again
            rows = client.get_collection(name).get(include=["embeddings"])
            assert sorted(rows["ids"]) == sorted(vectors)
            assert all(np.allclose(e, vectors[i], atol=1e-6) for i, e in zip(rows["ids"], rows["embeddings"]))
        vec = again.components.embedder.embed_query("garden password")
        assert again.components.vectors.query("episode", vec, user_id=KEPT, k=9, where={"session_id": "legacy-chat"})
        _assert_kept_user_readable(again)
    finally:
        again.close()
    assert _found(chroma, {m: m.encode() for user in (GONE, KEPT) for m in MARKS[user]}) == []  # scrubbed too
    third = make_store()  # once: a store already migrated opens without rewriting anything
    try:
        assert strip_text(third.components.vectors) == 0
    finally:
        third.close()


def test_a_copy_whose_original_is_gone_takes_its_name(tmp_path: Path) -> None:
    index = VectorIndex(path=tmp_path / "chroma")
    index.upsert("episode", ["a1", "a2"], [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [{"user_id": "alice"}] * 2)
    name = index.collection_name("episode", "alice")
    col = index.client.get_collection(name)
    copy = index.client.create_collection(name + ".m", embedding_function=None, metadata=col.metadata)
    rows = col.get(include=["embeddings", "metadatas"])
    copy.add(ids=rows["ids"], embeddings=rows["embeddings"], metadatas=rows["metadatas"])
    index.client.delete_collection(name)  # the crash came after dropping the original
    assert strip_text(VectorIndex(index.client)) == 1
    fresh = VectorIndex(index.client)
    assert [c.name for c in fresh.collections()] == [name] and sorted(fresh.get_user_ids("episode", "alice")) == [
        "a1", "a2"]
    assert fresh.query("episode", [0.0, 1.0, 0.0], user_id="alice", k=1)[0][0] == "a2"
    assert strip_text(fresh) == 0
