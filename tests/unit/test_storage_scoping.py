"""Tenancy where the SQL lives: each named storage method sees and changes only its user's rows."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _episode(eid: str, user: str, text: str) -> Episode:
    return Episode(id=eid, user_id=user, role="user", content=text, timestamp=T0, ingested_at=T0)


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "memory.sqlite3")
    store.insert_episodes([_episode("ep_a", "alice", "alice loves sailing boats"),
                           _episode("ep_b", "bob", "bob loves sailing boats too")])
    yield store
    store.close()


def test_keyword_search_over_episodes_returns_only_the_users_rows(db: SQLiteStore) -> None:
    assert [i for i, _ in db.fts_episodes("alice", "sailing", 10)] == ["ep_a"]


def test_keyword_search_over_episodes_for_another_user(db: SQLiteStore) -> None:
    assert [i for i, _ in db.fts_episodes("bob", "sailing", 10)] == ["ep_b"]


def test_keyword_search_for_an_unknown_user_is_empty(db: SQLiteStore) -> None:
    assert db.fts_episodes("carol", "sailing", 10) == []


def test_keyword_search_over_facts_for_a_user_without_facts_is_empty(db: SQLiteStore) -> None:
    assert db.fts_facts("alice", "sailing", 10) == []


def test_user_rows_are_the_users_only(db: SQLiteStore) -> None:
    assert [r["id"] for r in db.user_rows("episodes", ["id", "user_id"], "alice", "seq")] == ["ep_a"]


def test_users_of_lists_every_user(db: SQLiteStore) -> None:
    assert db.users_of(["episodes"]) == ["alice", "bob"]


def test_owner_of_names_the_rows_user(db: SQLiteStore) -> None:
    assert db.owner_of("episodes", "ep_b") == "bob"


def test_table_names_are_checked_as_identifiers(db: SQLiteStore) -> None:
    with pytest.raises(ValueError):
        db.user_rows("episodes; DROP TABLE episodes", ["id"], "alice", "seq")


def test_entities_are_per_user(db: SQLiteStore) -> None:
    db.insert_entity("en_1", "alice", "Lisbon", "lisbon", "lisbon", 1.0)
    assert db.entity_rows("bob") == []


def test_the_same_entity_name_is_separate_per_user(db: SQLiteStore) -> None:
    first = db.insert_entity("en_1", "alice", "Lisbon", "lisbon", "lisbon", 1.0)
    second = db.insert_entity("en_2", "bob", "Lisbon", "lisbon", "lisbon", 1.0)
    assert first != second


def test_aliases_are_per_user(db: SQLiteStore) -> None:
    db.insert_entity("en_1", "alice", "Lisbon", "lisbon", "lisbon", 1.0)
    db.insert_alias("alice", "lisboa", "en_1", "manual", 1.0, 2.0)
    assert db.alias_rows("bob") == []


def test_dead_letter_attempts_change_only_the_users_letter(db: SQLiteStore) -> None:
    db.add_dead_letter("dl_1", "alice", ["ep_a"], "boom", 1.0)
    db.set_dead_letter_attempts("bob", "dl_1", 7)
    assert db.dead_letters("alice")[0]["attempts"] != 7


def test_counts_by_user_for_one_user(db: SQLiteStore) -> None:
    assert list(db.counts_by_user("alice")) == ["alice"]


def test_counts_by_user_counts_episodes(db: SQLiteStore) -> None:
    assert db.counts_by_user()["bob"]["episodes"] == 1


def test_unindexed_ids_reject_an_unknown_table(db: SQLiteStore) -> None:
    with pytest.raises(ValueError):
        db.unindexed_ids("meta")
