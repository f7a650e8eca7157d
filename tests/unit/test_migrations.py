"""Named migrations (``storage/migrations.py``, ``engine/migrations.py``): each step applied once, in
order, recorded with when it ran; a store made before the ``migrations`` table records the steps its
``meta`` flags say already ran without running them; a fresh store applies them all."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from integration.test_embedding_space import HashedBagOfWords

from nova_memory_integrations.embeddings import CachedEmbedder, embedding_space
from nova_memory_integrations.engine import migrations
from nova_memory_integrations.engine.indexer import SPACE_KEY, Indexer
from nova_memory_integrations.engine.migrations import ENGINE, apply_engine_migrations
from nova_memory_integrations.errors import StorageError
from nova_memory_integrations.storage.migrations import (
    MIGRATIONS_TABLE,
    STORAGE,
    Ledger,
    Migrations,
    meta_is,
    statements,
)
from nova_memory_integrations.storage.schema import SCHEMA
from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.storage.vector_migrations import TEXT_FREE_KEY
from nova_memory_integrations.storage.vectors import VectorIndex
from nova_memory_integrations.types import Episode

SCHEMA_DIGEST = "993598ecad0bc68f6d3a35bc6ad4a2d5"


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "nova.sqlite3")
    yield store
    store.close()


def _episode(eid: str) -> Episode:
    t = datetime.fromisoformat("2024-01-01T00:00:00+00:00")
    return Episode(id=eid, user_id="alice", role="user", content="I keep bees.", timestamp=t, ingested_at=t)


def _made_before_migrations(path: Path) -> None:
    """Rewrite a closed store as a version before the ``migrations`` table left it."""
    conn = sqlite3.connect(path)
    conn.execute(f"DROP TABLE {MIGRATIONS_TABLE}")
    conn.execute("DROP TABLE episode_sentence_vectors")  # a table that version did not have yet
    conn.execute("INSERT INTO meta (key, value) VALUES ('schema_version', '1')")
    conn.commit()
    conn.close()


# -- the storage steps --------------------------------------------------------------------------------------


def test_a_fresh_store_records_every_storage_step_in_order(db: SQLiteStore) -> None:
    applied = Ledger(db).applied()
    assert list(applied) == STORAGE.names() == ["create_tables", "create_hidden_shelves", "source_and_importance",
                                             "create_pinned_blocks", "create_leases",
                                             "create_refused_facts"]
    assert all(datetime.fromisoformat(at).utcoffset() is not None for at in applied.values())  # aware UTC times
    assert STORAGE.pending(db) == [] and STORAGE.apply(db) == []


def test_reopening_a_migrated_store_writes_nothing(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "nova.sqlite3").close()
    again = SQLiteStore(tmp_path / "nova.sqlite3")
    try:
        assert again._conn.total_changes == 0
    finally:
        again.close()


def test_a_store_made_before_the_table_keeps_its_rows_and_gets_what_it_lacked(tmp_path: Path) -> None:
    path = tmp_path / "nova.sqlite3"
    old = SQLiteStore(path)
    old.insert_episodes([_episode("e1")])
    old.close()
    _made_before_migrations(path)
    db = SQLiteStore(path)
    try:
        assert list(Ledger(db).applied()) == STORAGE.names()
        assert "episode_sentence_vectors" in db.table_names()
        assert [e.id for e in db.get_episodes("alice", ["e1"])] == ["e1"]
    finally:
        db.close()


def test_the_base_schema_is_frozen() -> None:
    """``SCHEMA`` is the ``create_tables`` step: a store that applied it never reads it again."""
    digest = hashlib.blake2b(SCHEMA.encode("utf-8"), digest_size=16).hexdigest()
    assert digest == SCHEMA_DIGEST, ("storage/schema.py changed: existing stores will not see the change. "
                                     "Register a new named step in storage/migrations.py instead")


def test_the_schema_splits_into_the_statements_executescript_runs(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "a.sqlite3")
    conn.executescript(SCHEMA)
    one_by_one = sqlite3.connect(tmp_path / "b.sqlite3")
    for sql in statements(SCHEMA):
        one_by_one.execute(sql)
    master = "SELECT type, name, sql FROM sqlite_master ORDER BY name"
    assert conn.execute(master).fetchall() == one_by_one.execute(master).fetchall()
    with pytest.raises(ValueError, match="incomplete"):
        statements("CREATE TABLE t (a INTEGER);\nCREATE TABLE u (")


# -- the mechanism ------------------------------------------------------------------------------------------


def test_steps_run_in_order_once_each(db: SQLiteStore) -> None:
    ran: list[str] = []
    steps: Migrations[sqlite3.Connection] = Migrations("test", atomic=True)

    @steps()
    def second_first(conn: sqlite3.Connection) -> None:
        ran.append("second_first")
        conn.execute("CREATE TABLE t1 (a INTEGER)")

    @steps()
    def then_this(conn: sqlite3.Connection) -> None:
        ran.append("then_this")
        conn.execute("INSERT INTO t1 (a) VALUES (1)")

    assert steps.pending(db) == ["second_first", "then_this"]
    assert steps.apply(db) == ["second_first", "then_this"]
    assert steps.apply(db) == [] and ran == ["second_first", "then_this"]
    assert db.query("SELECT a FROM t1")[0][0] == 1


def test_a_name_is_registered_once() -> None:
    steps: Migrations[Any] = Migrations("test", atomic=True)

    @steps()
    def only(conn: Any) -> None: ...

    with pytest.raises(ValueError, match="only"):
        steps()(only)


def test_a_failed_step_is_neither_applied_nor_recorded(db: SQLiteStore) -> None:
    steps: Migrations[sqlite3.Connection] = Migrations("test", atomic=True)

    @steps()
    def half_done(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE t2 (a INTEGER)")
        raise RuntimeError("disk on fire")

    with pytest.raises(StorageError, match=r"half_done.*disk on fire"):
        steps.apply(db)
    assert "t2" not in db.table_names() and "half_done" not in Ledger(db).applied()


def test_a_step_the_flags_say_ran_is_recorded_without_running(db: SQLiteStore) -> None:
    steps: Migrations[sqlite3.Connection] = Migrations("test", atomic=True)

    @steps(ran_before=meta_is("old_flag", "1"))
    def flagged(conn: sqlite3.Connection) -> None:
        raise AssertionError("ran again")

    db.set_meta("old_flag", "1")
    assert steps.apply(db) == ["flagged"] and "flagged" in Ledger(db).applied()


def test_a_flag_with_another_value_runs_the_step(db: SQLiteStore) -> None:
    ran: list[str] = []
    steps: Migrations[sqlite3.Connection] = Migrations("test", atomic=True)

    @steps(ran_before=meta_is("old_flag", "1"))
    def flagged(conn: sqlite3.Connection) -> None:
        ran.append("flagged")

    db.set_meta("old_flag", "0")
    assert steps.apply(db) == ["flagged"] and ran == ["flagged"]


def test_a_repeatable_step_that_fails_runs_again_next_time(db: SQLiteStore) -> None:
    calls: list[int] = []
    steps: Migrations[list[int]] = Migrations("test", atomic=False)

    @steps()
    def flaky(target: list[int]) -> None:
        target.append(1)
        if len(target) == 1:
            raise OSError("index unreachable")

    with pytest.raises(StorageError, match="flaky"):
        steps.apply(db, calls)
    assert steps.pending(db) == ["flaky"]
    assert steps.apply(db, calls) == ["flaky"] and calls == [1, 1]


@dataclass
class _Percent:
    """A connection-like object with another placeholder (``%s``, as psycopg's): the runner uses
    the one it is given, and nothing but ``query`` and ``transaction``."""

    conn: sqlite3.Connection

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.conn.execute(sql.replace("%s", "?"), params).fetchall()

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        class Cursor:
            def execute(_, sql: str, params: Sequence[Any] = ()) -> Any:
                assert "?" not in sql
                return self.conn.execute(sql.replace("%s", "?"), params)

        with self.conn:
            yield Cursor()


def test_the_runner_takes_any_connection_like_object(tmp_path: Path) -> None:
    target = _Percent(sqlite3.connect(tmp_path / "other.db"))
    target.conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    target.conn.execute("INSERT INTO meta VALUES ('done_before', 'yes')")
    steps: Migrations[Any] = Migrations("test", atomic=True)

    @steps(ran_before=meta_is("done_before"))
    def adopted(conn: Any) -> None:
        raise AssertionError("ran again")

    @steps()
    def fresh(conn: Any) -> None:
        conn.execute("CREATE TABLE made (a INTEGER)")

    assert steps.apply(target, param="%s") == ["adopted", "fresh"]
    assert steps.pending(target, param="%s") == []


# -- the engine's steps -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Parts:
    db: SQLiteStore
    vectors: VectorIndex
    indexer: Indexer
    embedder: CachedEmbedder


@pytest.fixture()
def parts(db: SQLiteStore, tmp_path: Path) -> Iterator[_Parts]:
    vectors = VectorIndex(path=tmp_path / "chroma")
    embedder = CachedEmbedder(HashedBagOfWords())
    indexer = Indexer(db, vectors, embedder)
    yield _Parts(db, vectors, indexer, embedder)
    indexer.stop(timeout=5)


def test_a_fresh_store_applies_every_engine_step(parts: _Parts) -> None:
    assert apply_engine_migrations(parts) == ENGINE.names() == [
        "per_user_collections", "text_free_vector_index", "adopt_embedding_space", "zero_hnsw_capacity"]
    assert parts.db.get_meta(SPACE_KEY) == embedding_space(HashedBagOfWords())
    assert apply_engine_migrations(parts) == []


def test_an_older_store_records_what_its_flags_say_ran(parts: _Parts, monkeypatch: pytest.MonkeyPatch) -> None:
    parts.db.set_meta(TEXT_FREE_KEY, "1")
    parts.db.set_meta(SPACE_KEY, "an.older:model")
    monkeypatch.setattr(migrations, "strip_text", lambda index: pytest.fail("the text was stripped already"))
    assert apply_engine_migrations(parts) == ENGINE.names()
    assert parts.db.get_meta(SPACE_KEY) == "an.older:model"  # adopted, not overwritten
    assert parts.indexer.space_matches() is False


def test_an_older_store_without_the_flags_runs_the_steps(parts: _Parts, monkeypatch: pytest.MonkeyPatch) -> None:
    stripped: list[str] = []
    monkeypatch.setattr(migrations, "strip_text", lambda index: stripped.append(index.prefix) or 0)
    parts.db.set_meta(TEXT_FREE_KEY, "0")  # an interrupted earlier attempt
    apply_engine_migrations(parts)
    assert stripped == ["nova", "nova_items"]


def test_every_migration_name_is_unique() -> None:
    names = STORAGE.names() + ENGINE.names()
    assert len(names) == len(set(names))
