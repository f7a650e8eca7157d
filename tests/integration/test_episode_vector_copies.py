"""The copy of each indexed episode's vector SQLite keeps beside the row (real SQLite, Chroma, MiniLM).

Recall reads the vectors of keyword-only hits and of neighbours there instead of from Chroma;
the copy must be the vector the index holds, follow the row's index entry through every
change, stay scoped by user, and be rebuilt from the index for rows indexed before copies
were kept.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
TURNS = [
    "I adopted a grey cat called Miso last spring.",
    "That's lovely, how is Miso settling in?",
    "She sleeps on my keyboard whenever I try to work.",
    "My sister Ana is getting married in Lisbon in June.",
    "Are you going to give a speech at the wedding?",
    "Yes, and I'm terrified of speaking in front of people.",
]


def _fill(store: NovaStore, user: str = "alice") -> list[str]:
    eps = store.add_turns([{"user_id": user, "role": "user" if n % 2 == 0 else "assistant", "content": t,
                            "timestamp": T0 + timedelta(minutes=n), "session_id": "s1"} for n, t in enumerate(TURNS)])
    assert store.flush(timeout=60)
    return [e.id for e in eps]


def _copies(store: NovaStore) -> int:
    return int(store.components.db.query("SELECT COUNT(*) FROM episode_vectors")[0][0])


def _in_chroma(store: NovaStore, user: str, ids: list[str]) -> dict[str, np.ndarray]:
    col = store.components.vectors.collection("episode", user)
    assert col is not None
    got = col.get(ids=ids, include=["embeddings"])
    return {i: np.asarray(e, dtype=np.float32) for i, e in zip(got["ids"], got["embeddings"])}


def _gap(copies: dict[str, np.ndarray], held: dict[str, np.ndarray]) -> float:
    """The largest difference between a copy and the vector the index holds (inf: not the same ids).
    Chroma renormalises what it stores for cosine space: the last bit of a component may differ."""
    if set(copies) != set(held):
        return float("inf")
    return max(float(np.abs(copies[i] - held[i]).max()) for i in copies)


@pytest.fixture
def filled(store: NovaStore) -> tuple[NovaStore, list[str]]:
    return store, _fill(store)


def test_indexing_keeps_a_copy_of_every_episode_vector(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    assert set(store.components.db.episode_vectors("alice", ids)) == set(ids)


def test_a_copy_is_the_vector_the_index_holds(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    assert _gap(store.components.db.episode_vectors("alice", ids), _in_chroma(store, "alice", ids)) < 1e-7


def test_a_copy_reads_as_a_read_only_float32_vector(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    vec = store.components.db.episode_vectors("alice", ids[:1])[ids[0]]
    assert (str(vec.dtype), vec.shape, vec.flags.writeable) == ("float32", (384,), False)


def test_another_users_copy_is_not_read(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    assert store.components.db.episode_vectors("mallory", ids) == {}


def test_a_row_marked_for_indexing_loses_its_copy(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    store.components.db.mark_indexed("episodes", ids[:2], 0)
    assert _copies(store) == len(ids) - 2


def test_a_rewritten_episode_gets_the_copy_of_its_new_vector(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    before = store.components.db.episode_vectors("alice", ids[:1])[ids[0]].tobytes()
    store.components.db.rewrite_episodes("alice", [(ids[0], "Miso the cat, adopted in spring.", {})])
    store.components.indexer.submit("episodes", [(ids[0], "alice")])
    assert store.flush(timeout=60)
    after = store.components.db.episode_vectors("alice", ids[:1])
    assert (after[ids[0]].tobytes() != before, _gap(after, _in_chroma(store, "alice", ids[:1])) < 1e-7) == (True, True)


def test_deleting_an_episode_deletes_its_copy(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    store.delete("alice", ids[:1])
    assert _copies(store) == len(ids) - 1


def test_forgetting_a_user_leaves_no_copy_of_theirs(store: NovaStore) -> None:
    _fill(store, "alice")
    bob = _fill(store, "bob")
    store.forget("alice")
    assert (_copies(store), set(store.components.db.episode_vectors("bob", bob))) == (len(bob), set(bob))


def test_hiding_drops_the_copy_and_restoring_brings_it_back(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    store.hide("alice", ids[:1])
    hidden = _copies(store)
    store.restore("alice", ids[:1])
    assert store.flush(timeout=60)
    assert (hidden, _copies(store)) == (len(ids) - 1, len(ids))


def test_reindexing_rebuilds_every_copy(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    with store.components.db.transaction() as conn:
        conn.execute("UPDATE episode_vectors SET vec = zeroblob(1536)")  # reindex must not keep these
    store.reindex()
    assert _gap(store.components.db.episode_vectors("alice", ids), _in_chroma(store, "alice", ids)) < 1e-7


def test_a_damaged_copy_is_skipped(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    with store.components.db.transaction() as conn:
        conn.execute("UPDATE episode_vectors SET vec = x'0102' WHERE seq = (SELECT seq FROM episodes WHERE id = ?)",
                     (ids[0],))
    assert ids[0] not in store.components.db.episode_vectors("alice", ids)


def test_rows_read_with_their_vectors_are_the_rows_read_alone(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    rows, _ = store.components.db.episode_rows_and_vectors("alice", ids)
    assert [r.id for r in rows] == [r.id for r in store.components.db.episode_rows("alice", ids)]


def test_vectors_read_with_their_rows_are_the_copies(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    _, got = store.components.db.episode_rows_and_vectors("alice", ids)
    alone = store.components.db.episode_vectors("alice", ids)
    assert {i: v.tobytes() for i, v in got.items()} == {i: v.tobytes() for i, v in alone.items()}


def test_another_users_rows_and_vectors_are_not_read(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    assert store.components.db.episode_rows_and_vectors("mallory", ids) == ([], {})


def test_a_row_not_indexed_comes_without_a_vector(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    db = store.components.db
    blob = db.episode_vectors("alice", ids[:1])[ids[0]].tobytes()
    db.mark_indexed("episodes", ids[:1], 0)
    with db.transaction() as conn:  # a stray copy: the flag, not the copy, says whether it stands
        conn.execute("INSERT INTO episode_vectors (seq, vec) SELECT seq, ? FROM episodes WHERE id = ?", (blob, ids[0]))
    rows, got = db.episode_rows_and_vectors("alice", ids[:1])
    assert ([r.id for r in rows], got) == ([ids[0]], {})


def test_a_damaged_copy_read_with_its_row_leaves_the_row(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    with store.components.db.transaction() as conn:
        conn.execute("UPDATE episode_vectors SET vec = x'0102' WHERE seq = (SELECT seq FROM episodes WHERE id = ?)",
                     (ids[0],))
    rows, got = store.components.db.episode_rows_and_vectors("alice", ids[:1])
    assert ([r.id for r in rows], got) == ([ids[0]], {})


def test_ids_and_vectors_must_pair_up(store: NovaStore) -> None:
    with pytest.raises(ValueError, match="2 ids but 1 vectors"):
        store.components.db.mark_episodes_indexed(["a", "b"], [[0.0, 1.0]])


def _count_index_reads(store: NovaStore, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    reads: list[list[str]] = []
    real: Callable[..., Any] = store.components.vectors.get_embeddings

    def counted(kind: Any, ids: Any, *, user_id: str) -> Any:
        reads.append(list(ids))
        return real(kind, ids, user_id=user_id)

    monkeypatch.setattr(store.components.vectors, "get_embeddings", counted)
    return reads


QUESTION = "Who is getting married, and where?"
ONE_DENSE_HIT = SearchConfig.preset("balanced").model_copy(update={"dense_k": 1})
"""The other turns come in as keyword hits and neighbours, whose vectors fusion reads."""


def test_a_recall_reads_episode_vectors_from_sqlite_not_the_index(
    filled: tuple[NovaStore, list[str]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, _ = filled
    reads = _count_index_reads(store, monkeypatch)
    store.context(QUESTION, "alice", budget_tokens=400)
    assert reads == []


def _ranking(store: NovaStore) -> list[tuple[str, float]]:
    return [(h.id, round(h.score, 6)) for h in store.retrieve(QUESTION, "alice", k=6)]


def test_a_store_without_copies_ranks_the_same(filled: tuple[NovaStore, list[str]]) -> None:
    store, _ = filled
    with_copies = _ranking(store)
    with store.components.db.transaction() as conn:
        conn.execute("DELETE FROM episode_vectors")  # as a store indexed by an earlier version
    assert _ranking(store) == with_copies


def test_vectors_read_from_the_index_are_kept_for_the_next_read(
    filled: tuple[NovaStore, list[str]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, _ = filled
    with store.components.db.transaction() as conn:
        conn.execute("DELETE FROM episode_vectors")
    store.context(QUESTION, "alice", budget_tokens=400)
    reads = _count_index_reads(store, monkeypatch)
    store.context(QUESTION, "alice", budget_tokens=400)
    assert (reads, _copies(store) > 0) == ([], True)


def test_a_vector_read_for_a_row_not_indexed_now_is_not_kept(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    stale = store.components.db.episode_vectors("alice", ids[:1])
    store.components.db.mark_indexed("episodes", ids[:1], 0)
    store.components.db.keep_episode_vectors("alice", stale)
    assert _copies(store) == len(ids) - 1


def test_a_vector_is_not_kept_for_another_users_row(filled: tuple[NovaStore, list[str]]) -> None:
    store, ids = filled
    vec = store.components.db.episode_vectors("alice", ids[:1])
    store.components.db.mark_indexed("episodes", ids[:1], 0)
    store.components.db.mark_indexed("episodes", ids[:1], 1)  # indexed, copy gone
    store.components.db.keep_episode_vectors("mallory", vec)
    assert _copies(store) == len(ids) - 1


def test_a_recall_reads_each_episode_vector_once(
    filled: tuple[NovaStore, list[str]], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Vectors come with the rows fusion reads (or for the rest on their own); compression's
    dedupe and the reranker reuse them."""
    store, _ = filled
    db = store.components.db
    read: list[str] = []
    alone, with_rows = db.episode_vectors, db.episode_rows_and_vectors

    def counted(user_id: str, ids: Any) -> Any:
        got = alone(user_id, ids)
        read.extend(got)
        return got

    def counted_with_rows(user_id: str, ids: Any) -> Any:
        rows, got = with_rows(user_id, ids)
        read.extend(got)
        return rows, got

    monkeypatch.setattr(db, "episode_vectors", counted)
    monkeypatch.setattr(db, "episode_rows_and_vectors", counted_with_rows)
    store.context(QUESTION, "alice", budget_tokens=400, preset=ONE_DENSE_HIT)
    assert (len(read) > 0, sorted(read)) == (True, sorted(set(read)))
