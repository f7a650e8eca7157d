"""``mark_episodes_indexed`` with sentence vectors and ``sentence_vectors``: kept per turn, read
per user, gone with the row or its index entry (kills the mutants of those methods of
``storage/episodes.py``), against a real SQLite file."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
ONE = [0.5, -1.0, 2.0]
SENTENCES = [[1.0, 0.0, 0.0], [0.0, 0.25, -3.5]]


def ep(eid: str, user: str = "alice") -> Episode:
    return Episode(id=eid, user_id=user, session_id="s1", role="user", content=eid, timestamp=T0, ingested_at=T0)


@pytest.fixture()
def kept(db: SQLiteStore) -> SQLiteStore:
    """alice's a (two sentence vectors) and b (none), bob's c (two)."""
    db.insert_episodes([ep("a"), ep("b"), ep("c", "bob")])
    db.mark_episodes_indexed(["a", "b", "c"], [ONE, ONE, ONE], [SENTENCES, None, SENTENCES])
    return db


def _rows(db: SQLiteStore) -> int:
    return int(db.query("SELECT COUNT(*) FROM episode_sentence_vectors")[0][0])


def test_the_vectors_are_kept_one_after_the_other(kept: SQLiteStore) -> None:
    assert kept.sentence_vectors("alice", ["a"])["a"].tolist() == [x for v in SENTENCES for x in v]


def test_they_are_float32(kept: SQLiteStore) -> None:
    assert kept.sentence_vectors("alice", ["a"])["a"].dtype == np.float32


def test_a_turn_given_none_has_none(kept: SQLiteStore) -> None:
    assert "b" not in kept.sentence_vectors("alice", ["a", "b"])


def test_only_turns_given_some_get_a_row(kept: SQLiteStore) -> None:
    assert _rows(kept) == 2


def test_an_empty_list_keeps_nothing(db: SQLiteStore) -> None:
    db.insert_episodes([ep("e")])
    db.mark_episodes_indexed(["e"], [ONE], [[]])
    assert _rows(db) == 0


def test_without_sentence_vectors_only_the_turn_vector_is_kept(db: SQLiteStore) -> None:
    db.insert_episodes([ep("e")])
    db.mark_episodes_indexed(["e"], [ONE])
    assert (_rows(db), list(db.episode_vectors("alice", ["e"]))) == (0, ["e"])


def test_another_users_turn_is_not_read(kept: SQLiteStore) -> None:
    assert kept.sentence_vectors("alice", ["a", "c"]).keys() == {"a"}


def test_the_owner_reads_their_own(kept: SQLiteStore) -> None:
    assert kept.sentence_vectors("bob", ["a", "c"]).keys() == {"c"}


def test_a_deleted_turn_loses_them(kept: SQLiteStore) -> None:
    with kept.transaction() as conn:
        conn.execute("DELETE FROM episodes WHERE id = 'a'")
    assert _rows(kept) == 1


def test_a_turn_taken_out_of_the_index_loses_them(kept: SQLiteStore) -> None:
    with kept.transaction() as conn:
        conn.execute("UPDATE episodes SET indexed = 0 WHERE id = 'a'")
    assert kept.sentence_vectors("alice", ["a"]) == {}


def test_a_damaged_blob_is_left_out(kept: SQLiteStore) -> None:
    with kept.transaction() as conn:
        conn.execute("UPDATE episode_sentence_vectors SET vecs = x'010203'")
    assert kept.sentence_vectors("alice", ["a"]) == {}


def test_indexing_again_replaces_them(kept: SQLiteStore) -> None:
    kept.mark_episodes_indexed(["a"], [ONE], [[ONE]])
    assert kept.sentence_vectors("alice", ["a"])["a"].tolist() == ONE


def test_repeated_ids_are_read_once(kept: SQLiteStore) -> None:
    assert list(kept.sentence_vectors("alice", ["a", "a"])) == ["a"]


def test_more_than_a_chunk_of_ids_is_read(db: SQLiteStore) -> None:
    ids = [f"e{n}" for n in range(501)]
    db.insert_episodes([ep(i) for i in ids])
    db.mark_episodes_indexed(ids, [ONE] * len(ids), [[ONE, ONE]] * len(ids))
    assert len(db.sentence_vectors("alice", ids)) == 501


def test_a_list_per_id_is_required(db: SQLiteStore) -> None:
    db.insert_episodes([ep("e")])
    with pytest.raises(ValueError, match="sentence vector lists"):
        db.mark_episodes_indexed(["e"], [ONE], [])


def test_a_vector_per_id_is_required(db: SQLiteStore) -> None:
    db.insert_episodes([ep("e")])
    with pytest.raises(ValueError, match="1 ids but 2 vectors"):
        db.mark_episodes_indexed(["e"], [ONE, ONE])
