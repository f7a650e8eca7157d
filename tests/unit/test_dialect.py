"""storage/dialect.to_postgres: SQLite's spelling of a statement, written in Postgres' (no server needed)."""

from __future__ import annotations

import sqlite3

import pytest

from nova_memory_integrations.storage.dialect import column_names, is_integrity_error, to_postgres


@pytest.mark.parametrize(("sqlite", "postgres"), [
    ("SELECT * FROM episodes WHERE user_id = ? AND id IN (?,?)",
     "SELECT * FROM episodes WHERE user_id = %s AND id IN (%s,%s)"),
    # optimizer hints go; arithmetic stays
    ("SELECT id FROM facts WHERE +user_id = ? AND id IN (?)", "SELECT id FROM facts WHERE user_id = %s AND id IN (%s)"),
    ("SELECT e.id FROM episodes e WHERE +e.user_id = ?", "SELECT e.id FROM episodes e WHERE e.user_id = %s"),
    ("UPDATE rules SET usage_count = usage_count + 1 WHERE id = ?",
     "UPDATE rules SET usage_count = usage_count + 1 WHERE id = %s"),
    ("SELECT e.seq FROM episodes_fts JOIN episodes e INDEXED BY episodes_seq_user ON e.seq = 1",
     "SELECT e.seq FROM episodes_fts JOIN episodes e ON e.seq = 1"),
    # NULL-safe equality, literal percent signs
    ("SELECT * FROM t WHERE a IS ? AND b IS ?", "SELECT * FROM t WHERE a IS NOT DISTINCT FROM %s AND b IS NOT DISTINCT FROM %s"),
    ("SELECT '100%' WHERE x = ?", "SELECT '100%%' WHERE x = %s"),
    ("INSERT OR IGNORE INTO entity_aliases (user_id, alias) VALUES (?, ?)",
     "INSERT INTO entity_aliases (user_id, alias) VALUES (%s, %s) ON CONFLICT DO NOTHING"),
    ("INSERT OR REPLACE INTO episode_vectors (seq, vec) SELECT seq, ? FROM episodes WHERE id = ?",
     "INSERT INTO episode_vectors (seq, vec) SELECT seq, %s FROM episodes WHERE id = %s"
     " ON CONFLICT (seq) DO UPDATE SET vec = excluded.vec"),
])
def test_each_sqlite_spelling_has_its_postgres_one(sqlite: str, postgres: str) -> None:
    assert to_postgres(sqlite) == postgres


def test_a_replace_into_a_table_without_a_known_key_is_refused() -> None:
    with pytest.raises(ValueError, match="no conflict key"):
        to_postgres("INSERT OR REPLACE INTO facts (id, text) VALUES (?, ?)")


def test_sqlite_columns_and_constraint_errors() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (a TEXT PRIMARY KEY, b INTEGER)")
    assert column_names(conn, "t") == ["a", "b"] and column_names(conn, "missing") == []
    conn.execute("INSERT INTO t VALUES ('x', 1)")
    with pytest.raises(sqlite3.IntegrityError) as caught:
        conn.execute("INSERT INTO t VALUES ('x', 2)")
    assert is_integrity_error(caught.value) and not is_integrity_error(ValueError("x"))
