"""Hidden memories where the SQL lives (``storage/hidden.py``): hide moves a user's rows onto the shelves,
restore moves them back as they were, the shelves reach an existing store on open (a migration), and no other user's
row is ever touched."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from nova_memory_integrations.storage.hidden import HIDDEN_TABLES, sync_hidden_shelves
from nova_memory_integrations.storage.migrations import MIGRATIONS_TABLE, Ledger
from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode, Fact, Rule

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
AT = 1_717_000_000.0


def _episode(eid: str, user: str, text: str) -> Episode:
    return Episode(id=eid, user_id=user, role="user", content=text, timestamp=T0, ingested_at=T0)


def _fact(fid: str, user: str, lineage: str, obj: str) -> Fact:
    return Fact(id=fid, lineage_id=lineage, user_id=user, subject="user", predicate="likes", object=obj,
                confidence=0.8, valid_from=T0, ingested_at=T0)


def _rows(db: SQLiteStore, table: str) -> list[tuple[object, ...]]:
    return [tuple(r) for r in db.query(f"SELECT * FROM {table} ORDER BY seq")]


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "memory.sqlite3")
    store.insert_episodes([_episode("ea1", "alice", "alice loves sailing boats"),
                           _episode("ea2", "alice", "alice went to Lisbon"),
                           _episode("eb1", "bob", "bob loves sailing boats too")])
    for fact in (_fact("fa1", "alice", "fa1", "tea"), _fact("fa2", "alice", "fa1", "green tea"),
                 _fact("fb1", "bob", "fb1", "tea")):
        store.insert_fact(fact, fact.object, AT)
    store.insert_rule(Rule(id="ra1", user_id="alice", condition="when asked", action="answer", confidence=0.8,
                           created_at=T0))
    yield store
    store.close()


def test_the_shelves_exist_in_a_new_store(db: SQLiteStore) -> None:
    assert set(HIDDEN_TABLES.values()) <= set(db.table_names())


def test_hide_reports_the_ids_moved(db: SQLiteStore) -> None:
    assert db.hide_rows("alice", ["ea1", "fa2", "ra1"], AT) == {"episodes": ["ea1"], "facts": ["fa1", "fa2"],
                                                              "rules": ["ra1"]}


def test_a_hidden_episode_is_not_read(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea1"], AT)
    assert [e.id for e in db.list_episodes("alice")] == ["ea2"]


def test_a_hidden_episode_leaves_the_keyword_index(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea1"], AT)
    assert db.fts_episodes("alice", "sailing", 10) == []


def test_a_hidden_fact_lineage_is_not_read(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["fa1"], AT)
    assert db.select_facts("alice", all_versions=True) == []


def test_a_hidden_rule_is_not_read(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ra1"], AT)
    assert db.list_rules("alice") == []


def test_another_users_id_is_not_hidden(db: SQLiteStore) -> None:
    assert db.hide_rows("alice", ["eb1", "fb1"], AT) == {"episodes": [], "facts": [], "rules": []}


def test_hiding_leaves_the_other_user_whole(db: SQLiteStore) -> None:
    before = [_rows(db, t) for t in ("episodes", "facts")]
    db.hide_rows("alice", ["ea1", "ea2", "fa1"], AT)
    after = [[r for r in _rows(db, t) if "bob" in r] for t in ("episodes", "facts")]
    assert after == [[r for r in rows if "bob" in r] for rows in before]


def test_restore_brings_the_rows_back_as_they_were(db: SQLiteStore) -> None:
    before = _rows(db, "episodes"), _rows(db, "facts"), _rows(db, "rules")
    db.hide_rows("alice", ["ea1", "fa1", "ra1"], AT)
    db.restore_rows("alice", ["ea1", "fa2", "ra1"])
    assert (_rows(db, "episodes"), _rows(db, "facts"), _rows(db, "rules")) == before  # seq and all (indexed = 0)


def test_restore_reports_the_ids_moved_back(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea1", "fa1"], AT)
    assert db.restore_rows("alice", ["ea1", "fa1"]) == {"episodes": ["ea1"], "facts": ["fa1", "fa2"], "rules": []}


def test_a_restored_episode_is_found_by_keywords_again(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea1"], AT)
    db.restore_rows("alice", ["ea1"])
    assert [i for i, _ in db.fts_episodes("alice", "sailing", 10)] == ["ea1"]


def test_another_user_cannot_restore_a_hidden_row(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea1"], AT)
    assert db.restore_rows("bob", ["ea1"]) == {"episodes": [], "facts": [], "rules": []}


def test_hidden_ids_list_the_users_shelf(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea2", "ra1"], AT)
    assert db.hidden_ids("alice") == {"episodes": [("ea2", AT)], "facts": [], "rules": [("ra1", AT)]}


def test_hidden_counts_per_user(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea1", "fa1"], AT)
    db.hide_rows("bob", ["eb1"], AT)
    assert db.hidden_counts() == {"alice": {"episodes": 1, "facts": 2, "rules": 0},
                                  "bob": {"episodes": 1, "facts": 0, "rules": 0}}


def test_delete_hidden_erases_one_users_shelf(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea1"], AT)
    db.hide_rows("bob", ["eb1"], AT)
    db.delete_hidden("alice")
    assert list(db.hidden_counts()) == ["bob"]


def test_delete_hidden_by_id(db: SQLiteStore) -> None:
    db.hide_rows("alice", ["ea1", "ea2"], AT)
    assert db.delete_hidden("alice", ["ea2", "eb1"]) == {"episodes": ["ea2"], "facts": [], "rules": []}


def test_an_old_store_gets_the_shelves_on_open(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    SQLiteStore(path).close()
    conn = sqlite3.connect(path)
    for shelf in [*HIDDEN_TABLES.values(), MIGRATIONS_TABLE]:  # as a version before both left it
        conn.execute(f"DROP TABLE {shelf}")
    conn.commit()
    conn.close()
    reopened = SQLiteStore(path)
    try:
        assert set(HIDDEN_TABLES.values()) <= set(reopened.table_names())
        assert "create_hidden_shelves" in Ledger(reopened).applied()
    finally:
        reopened.close()


def test_a_shelf_gains_a_column_its_live_table_gained(tmp_path: Path) -> None:
    """What a later migration that adds a column to a live table does at its end."""
    path = tmp_path / "grown.sqlite3"
    db = SQLiteStore(path)
    try:
        with db.transaction() as conn:
            conn.execute("ALTER TABLE episodes ADD COLUMN mood TEXT NOT NULL DEFAULT 'calm'")
            sync_hidden_shelves(conn)
        assert "mood" in {r["name"] for r in db.table_columns("hidden_episodes")}
        with db.transaction() as conn:
            sync_hidden_shelves(conn)  # current: nothing to add
    finally:
        db.close()
