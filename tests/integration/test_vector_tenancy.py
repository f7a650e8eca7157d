"""Per-user Chroma collections: isolation, deletion, lazy creation, legacy migration."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.errors import StorageError
from nova_memory_integrations.storage.vectors import VectorIndex

KINDS = ("episode", "fact", "rule")


@pytest.fixture
def index(tmp_path: Path) -> VectorIndex:
    return VectorIndex(path=tmp_path / "chroma")


def _names(index: VectorIndex) -> set[str]:
    return {c.name for c in index.client.list_collections()}


def _put(index: VectorIndex, user: str, ids: list[str], kind: Any = "episode") -> None:
    index.upsert(kind, ids, [[1.0, 0.0, float(n)] for n in range(len(ids))], [{"user_id": user} for _ in ids])


def test_collection_names_are_valid_per_user_and_per_kind(index: VectorIndex) -> None:
    name = index.collection_name("episode", "alice")
    assert name.startswith("nova_episode_") and len(name) == len("nova_episode_") + 32
    assert name != index.collection_name("episode", "bob") != index.collection_name("fact", "alice")
    assert index.collection_name("rule", "ü" * 5000).isascii()  # any user id maps to a short, valid name
    for bad in ("", "-x", "a b", "a..b", "x" * 500):
        with pytest.raises(StorageError):
            VectorIndex(index.client, prefix=bad)


def test_one_upsert_routes_each_vector_to_its_users_collection(index: VectorIndex) -> None:
    index.upsert("episode", ["a1", "b1", "a2"], [[1.0, 0.0, 0.0]] * 3,
                 [{"user_id": "alice"}, {"user_id": "bob"}, {"user_id": "alice"}])
    alice, bob = index.collection("episode", "alice"), index.collection("episode", "bob")
    assert alice is not None and bob is not None
    assert sorted(alice.get()["ids"]) == ["a1", "a2"] and bob.get()["ids"] == ["b1"]
    assert alice.metadata == {"hnsw:space": "cosine", "user_id": "alice"}
    # identical vectors and text: a query of one user never sees the other's
    assert sorted(i for i, _ in index.query("episode", [1.0, 0.0, 0.0], user_id="alice", k=10)) == ["a1", "a2"]
    assert [i for i, _ in index.query("episode", [1.0, 0.0, 0.0], user_id="bob", k=10)] == ["b1"]
    assert index.get_embeddings("episode", ["a1", "b1"], user_id="alice").keys() == {"a1"}
    assert index.count("episode") == 3
    with pytest.raises(StorageError, match="user_id"):
        index.upsert("episode", ["x"], [[1.0, 0.0, 0.0]], [{"role": "user"}])


def test_query_drops_a_vector_filed_under_another_user(index: VectorIndex) -> None:
    _put(index, "alice", ["a1"])
    col = index.collection("episode", "alice")
    assert col is not None
    col.upsert(ids=["stray"], embeddings=[[1.0, 0.0, 0.0]], metadatas=[{"user_id": "bob"}])  # a bug elsewhere
    assert [i for i, _ in index.query("episode", [1.0, 0.0, 0.0], user_id="alice", k=5)] == ["a1"]


def test_query_keeps_other_where_clauses(index: VectorIndex) -> None:
    index.upsert("episode", ["s1", "s2"], [[1.0, 0.0, 0.0], [1.0, 0.1, 0.0]],
                 [{"user_id": "u", "session_id": "one", "role": "user"},
                  {"user_id": "u", "session_id": "two", "role": "user"}])
    assert [i for i, _ in index.query("episode", [1.0, 0.0, 0.0], user_id="u", k=5, where={"session_id": "two"})
            ] == ["s2"]
    assert index.query("episode", [1.0, 0.0, 0.0], user_id="u", k=5,
                       where={"session_id": "two", "role": "assistant"}) == []


def test_reads_for_an_unknown_user_create_no_collection(index: VectorIndex) -> None:
    _put(index, "alice", ["a1"])
    before = _names(index)
    for kind in KINDS:
        assert index.query(kind, [1.0, 0.0, 0.0], user_id="ghost", k=3) == []  # type: ignore[arg-type]
        assert index.get_embeddings(kind, ["a1"], user_id="ghost") == {}  # type: ignore[arg-type]
        assert index.get_user_ids(kind, "ghost") == []  # type: ignore[arg-type]
        assert index.collection(kind, "ghost") is None  # type: ignore[arg-type]
        index.delete(kind, ["a1"], user_id="ghost")  # type: ignore[arg-type]
    index.delete_user("ghost")
    assert _names(index) == before
    assert index.get_user_ids("episode", "alice") == ["a1"]  # ghost's delete did not reach alice


def test_store_reads_for_an_unknown_user_create_no_collection(store: NovaStore) -> None:
    store.add_turn("alice", "user", "I keep bees on the roof.")
    store.flush()
    before = _names(store.components.vectors)
    assert store.search("bees", "ghost", k=3, kinds=("episode", "fact", "rule")) == []
    assert store.context("what do I keep on the roof?", "ghost").sources == ()
    assert store.rules("ghost", "anything") == []
    assert _names(store.components.vectors) == before


def test_delete_user_drops_only_that_users_collections(index: VectorIndex) -> None:
    for kind in KINDS:
        _put(index, "alice", [f"a-{kind}"], kind)
        _put(index, "bob", [f"b-{kind}"], kind)
    assert index.get_embeddings("episode", ["a-episode"], user_id="alice")  # cached
    index.delete_user("alice")
    names = _names(index)
    for kind in KINDS:
        assert index.collection_name(kind, "alice") not in names  # type: ignore[arg-type]
        assert index.collection_name(kind, "bob") in names  # type: ignore[arg-type]
        assert index.get_user_ids(kind, "bob") == [f"b-{kind}"]  # type: ignore[arg-type]
    assert index.get_embeddings("episode", ["a-episode"], user_id="alice") == {}  # the cache forgot it too
    assert index.count("episode") == 1


def test_a_collection_dropped_by_another_process_is_reopened(index: VectorIndex) -> None:
    _put(index, "alice", ["a1"])
    assert index.query("episode", [1.0, 0.0, 0.0], user_id="alice", k=1)  # handle cached
    other = VectorIndex(index.client)  # e.g. another worker sharing the Chroma server
    other.delete_user("alice")
    assert index.query("episode", [1.0, 0.0, 0.0], user_id="alice", k=1) == []
    _put(index, "alice", ["a2"])  # re-created, not written through the stale handle
    assert other.get_user_ids("episode", "alice") == ["a2"]


def test_reset_drops_every_collection_of_the_prefix_only(index: VectorIndex) -> None:
    _put(index, "alice", ["a1"])
    neighbour = VectorIndex(index.client, prefix="other")
    _put(neighbour, "alice", ["o1"])
    index.client.get_or_create_collection("nova_episodes", embedding_function=None)  # legacy
    index.reset()
    assert _names(index) == {neighbour.collection_name("episode", "alice")}
    assert index.count("episode") == 0 and neighbour.count("episode") == 1


def test_legacy_shared_collections_are_migrated(tmp_path: Path, minilm: Any, caplog: pytest.LogCaptureFixture
                                                ) -> None:
    path = tmp_path / "legacy"
    with NovaStore(path, embeddings=minilm) as s:
        s.add_turns([{"user_id": "alice", "role": "user", "content": "My cat Miso sleeps on the piano."},
                     {"user_id": "bob", "role": "user", "content": "My cat Miso sleeps on the piano."}])
        s.add_fact("alice", "user", "lives_in", "Porto")
        s.add_rule("bob", "user asks for code", "answer in Rust")
        s.flush()
        # rewrite the index as an earlier version left it: three shared collections, user_id in metadata
        client = s.components.vectors.client
        for kind in KINDS:
            shared = client.get_or_create_collection(f"nova_{kind}s", embedding_function=None,
                                                     metadata={"hnsw:space": "cosine"})
            for col in s.components.vectors.collections(kind):  # type: ignore[arg-type]
                rows = col.get(include=["embeddings", "documents", "metadatas"])
                shared.upsert(ids=rows["ids"], embeddings=rows["embeddings"], documents=rows["documents"],
                              metadatas=rows["metadatas"])
                client.delete_collection(col.name)
        assert s.components.vectors.legacy_collections() == ["nova_episodes", "nova_facts", "nova_rules"]
    conn = sqlite3.connect(path / "nova.sqlite3")  # as a version before the migration left it
    conn.execute("DELETE FROM migrations WHERE name = 'per_user_collections'")
    conn.commit()
    conn.close()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        s = NovaStore(path, embeddings=minilm)
    try:
        assert sum("per-user collections" in r.getMessage() for r in caplog.records) == 1
        assert s.components.vectors.legacy_collections() == []
        assert s.flush(timeout=120)
        for user in ("alice", "bob"):
            ids = s.components.vectors.get_user_ids("episode", user)
            assert len(ids) == 1 and {e.id for e in s.episodes(user)} == set(ids)
            hits = s.search("where does the cat sleep?", user, k=1, kinds=("episode",))
            assert hits[0].id == ids[0] and hits[0].episode is not None and hits[0].episode.user_id == user
        assert s.search("Porto", "alice", kinds=("fact",))[0].fact.object == "Porto"  # type: ignore[union-attr]
        assert s.rules("bob", "can you write some code for me?")[0].action == "answer in Rust"
        assert s.components.vectors.get_user_ids("rule", "alice") == []
    finally:
        s.close()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"), NovaStore(path, embeddings=minilm):
        pass
    assert not any("per-user collections" in r.getMessage() for r in caplog.records)  # once only
