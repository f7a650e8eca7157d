"""Named, user-scoped queries for entities, conflicts, contradictions and bookkeeping.

A mixin of :class:`~.sqlite.SQLiteStore` (it uses the store's ``query`` and
``transaction``): the domain services call these methods instead of writing SQL, so
every statement that touches user rows filters by ``user_id`` here, where no caller can
forget it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from .._time import from_epoch
from .connection import Connection
from .rows import chunks, dumps, row_to_episode, row_to_fact, row_to_rule

__all__ = ["RecordQueries"]

_INDEXED_TABLES = frozenset({"episodes", "facts", "rules"})
_CONVERTERS = {"episodes": row_to_episode, "facts": row_to_fact, "rules": row_to_rule}


class RecordQueries(Connection):
    """Entity, alias, conflict and contradiction queries, all scoped by ``user_id``."""

    # -- indexing bookkeeping -------------------------------------------------------------
    def unindexed_ids(self, table: str) -> list[tuple[str, str]]:
        """``(id, user_id)`` of every row of ``table`` not yet in the vector index, oldest first."""
        if table not in _INDEXED_TABLES:
            raise ValueError(f"not an indexed table: {table!r}")
        return [(r[0], r[1]) for r in self.query(f"SELECT id, user_id FROM {table} WHERE indexed = 0 ORDER BY seq")]

    def unindexed(self, table: str, limit: int) -> list[sqlite3.Row]:
        """Rows not yet in the vector index (oldest first)."""
        if table not in {"episodes", "facts", "rules"}:
            raise ValueError(table)
        return self.query(f"SELECT * FROM {table} WHERE indexed = 0 ORDER BY seq LIMIT ?", [limit])

    def rows_by_id(self, table: str, ids: Sequence[str]) -> list[sqlite3.Row]:
        """Raw rows by id, any user (for the indexer, which carries user_id along); damaged rows
        are left out (the indexer then treats them as gone)."""
        if table not in {"episodes", "facts", "rules"}:
            raise ValueError(table)
        out: list[sqlite3.Row] = []
        for chunk in chunks(list(ids), 500):
            marks = ",".join("?" * len(chunk))
            out.extend(self.query(f"SELECT * FROM {table} WHERE id IN ({marks})", chunk))
        return self.readable(out, table, _CONVERTERS[table], keep_row=True)

    def claim_rows(self, table: str, ids: Sequence[str]) -> AbstractContextManager[list[str]]:
        """The indexer's claim on rows of ``table`` it is about to index (or drop from the index):
        the ids it is to work on, for as long as the block runs. On SQLite every id is this process's
        (one process owns the data directory); Postgres' store claims rows against its peers."""
        if table not in _INDEXED_TABLES:
            raise ValueError(table)
        return nullcontext(list(dict.fromkeys(ids)))

    def live_ids(self, table: str, ids: Sequence[str]) -> set[str]:
        """Which of ``ids`` are rows of ``table`` that belong in the index (a fact: not expired)."""
        if table not in _INDEXED_TABLES:
            raise ValueError(table)
        live = " AND expired_at IS NULL" if table == "facts" else ""
        out: set[str] = set()
        for chunk in chunks(list(ids), 500):
            out |= {str(r[0]) for r in self.query(
                f"SELECT id FROM {table} WHERE id IN ({','.join('?' * len(chunk))}){live}", chunk)}
        return out

    def mark_indexed(self, table: str, ids: Sequence[str], value: int = 1) -> None:
        """Set the ``indexed`` flag of rows."""
        if table not in {"episodes", "facts", "rules"}:
            raise ValueError(table)
        with self.transaction() as conn:
            conn.executemany(f"UPDATE {table} SET indexed = ? WHERE id = ?", [(value, i) for i in ids])

    def reset_indexed(self) -> None:
        """Mark every row as needing (re)indexing."""
        with self.transaction() as conn:
            for table in ("episodes", "facts", "rules"):
                conn.execute(f"UPDATE {table} SET indexed = 0")

    def count(self, table: str, user_id: str | None = None) -> int:
        """Row count of ``episodes``, ``facts`` or ``rules`` (optionally for one user)."""
        if table not in {"episodes", "facts", "rules", "fact_events", "dead_letters"}:
            raise ValueError(table)
        if user_id is None:
            return int(self.query(f"SELECT COUNT(*) FROM {table}")[0][0])
        return int(self.query(f"SELECT COUNT(*) FROM {table} WHERE user_id = ?", [user_id])[0][0])

    # -- dead letters ---------------------------------------------------------------------
    def add_dead_letter(self, letter_id: str, user_id: str, episode_ids: Sequence[str], error: str, at: float) -> None:
        """Record a consolidation batch that failed (its episodes stay unprocessed)."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO dead_letters (id, user_id, episode_ids, error, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET attempts = dead_letters.attempts + 1,"
                " error = excluded.error, updated_at = excluded.updated_at",
                (letter_id, user_id, dumps(list(episode_ids)), error, at, at),
            )

    def dead_letters(self, user_id: str | None = None) -> list[dict[str, Any]]:
        """Failed consolidation batches (all users when ``user_id`` is None)."""
        sql, params = "SELECT * FROM dead_letters", []
        if user_id is not None:
            sql, params = sql + " WHERE user_id = ?", [user_id]
        rows = self.readable(self.query(sql + " ORDER BY created_at", params), "dead_letters")
        return [
            {
                "id": r["id"], "user_id": r["user_id"], "episode_ids": json.loads(r["episode_ids"]),
                "error": r["error"], "attempts": r["attempts"],
                "created_at": from_epoch(r["created_at"]), "updated_at": from_epoch(r["updated_at"]),
            }
            for r in rows
        ]

    def remove_dead_letter(self, user_id: str, letter_id: str) -> None:
        """Drop a dead letter (after a successful retry)."""
        with self.transaction() as conn:
            conn.execute("DELETE FROM dead_letters WHERE user_id = ? AND id = ?", (user_id, letter_id))

    def set_dead_letter_attempts(self, user_id: str, letter_id: str, attempts: int) -> None:
        """How many times the episodes of a dead letter were tried."""
        with self.transaction() as conn:
            conn.execute("UPDATE dead_letters SET attempts = ? WHERE user_id = ? AND id = ?",
                         (attempts, user_id, letter_id))


    # -- conflicts ------------------------------------------------------------------------
    def insert_conflict(self, row: Mapping[str, Any]) -> None:
        """Append one conflict verdict (inside the caller's transaction if any)."""
        columns = ("id", "user_id", "kind", "subject", "predicate", "existing_fact_id", "existing_object",
                   "new_predicate", "new_object", "new_fact_id", "strategy", "winner", "status", "reason",
                   "episode_ids", "detected_at")
        with self.transaction() as conn:
            conn.execute(f"INSERT INTO conflicts ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})",
                         tuple(row[c] for c in columns))

    def list_conflicts(self, user_id: str, *, flagged_only: bool, limit: int) -> list[sqlite3.Row]:
        """Conflict rows of a user, newest first."""
        flagged = " AND status = 'flagged'" if flagged_only else ""
        return self.readable(self.query(f"SELECT * FROM conflicts WHERE user_id = ?{flagged} ORDER BY seq DESC"
                                        " LIMIT ?", [user_id, limit]), "conflicts")

    # -- entities -------------------------------------------------------------------------
    def entity_rows(self, user_id: str) -> list[sqlite3.Row]:
        """Every entity of a user, oldest first."""
        return self.readable(self.query("SELECT * FROM entities WHERE user_id = ? ORDER BY created_at, id", [user_id]),
                             "entities")

    def alias_rows(self, user_id: str) -> list[sqlite3.Row]:
        """Every ``(alias, entity_id)`` of a user, oldest first."""
        return self.query("SELECT alias, entity_id FROM entity_aliases WHERE user_id = ? ORDER BY created_at",
                          [user_id])

    def insert_entity(self, entity_id: str, user_id: str, name: str, norm: str, key: str,
                      at: float) -> tuple[str, str]:
        """Create the entity named ``norm`` unless the user has it; its ``(id, name)`` either way."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO entities (id, user_id, name, norm, key, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (entity_id, user_id, name, norm, key, at),
            )
            row = conn.execute("SELECT id, name FROM entities WHERE user_id = ? AND norm = ?",
                               (user_id, norm)).fetchone()
        return str(row["id"]), str(row["name"])

    def insert_alias(self, user_id: str, alias: str, entity_id: str, method: str, score: float, at: float) -> None:
        """Record an alias of one of the user's entities (a known alias is kept as it is)."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO entity_aliases (user_id, alias, entity_id, method, score, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (user_id, alias, entity_id, method, score, at),
            )

    def reassign_entity(self, user_id: str, source_id: str, target_id: str) -> int:
        """Point every alias of the user's entity ``source_id`` at ``target_id`` and remove the
        source entity (an entity merge); returns how many aliases moved."""
        with self.transaction() as conn:
            moved = conn.execute("UPDATE entity_aliases SET entity_id = ? WHERE user_id = ? AND entity_id = ?",
                                 (target_id, user_id, source_id)).rowcount
            conn.execute("DELETE FROM entities WHERE user_id = ? AND id = ?", (user_id, source_id))
        return int(moved)

    # -- statistics -----------------------------------------------------------------------
    def counts_by_user(self, user_id: str | None = None) -> dict[str, dict[str, int]]:
        """Per user (one, or all): episodes, unconsolidated, tombstones, summaries, current facts,
        fact versions, fact events, rules and dead letters."""
        where, params = ("WHERE user_id = ?", [user_id]) if user_id is not None else ("", [])
        also = "AND" if where else "WHERE"
        queries = {
            "episodes": f"SELECT user_id, COUNT(*) FROM episodes {where} GROUP BY user_id",
            "unconsolidated": "SELECT user_id, SUM(CASE WHEN processed = 0 THEN 1 ELSE 0 END) FROM episodes"
                              f" {where} GROUP BY user_id",
            "tombstones": f"SELECT user_id, COUNT(*) FROM episodes {where} {also} role = 'tombstone' GROUP BY user_id",
            "summaries": f"SELECT user_id, COUNT(*) FROM episodes {where} {also} role = 'summary' GROUP BY user_id",
            "facts_current": "SELECT user_id, SUM(CASE WHEN expired_at IS NULL AND valid_to IS NULL THEN 1 ELSE 0 END)"
                             " FROM facts"
                             f" {where} GROUP BY user_id",
            "fact_versions": f"SELECT user_id, COUNT(*) FROM facts {where} GROUP BY user_id",
            "fact_events": f"SELECT user_id, COUNT(*) FROM fact_events {where} GROUP BY user_id",
            "rules": f"SELECT user_id, COUNT(*) FROM rules {where} GROUP BY user_id",
            "dead_letters": f"SELECT user_id, COUNT(*) FROM dead_letters {where} GROUP BY user_id",
        }
        users: dict[str, dict[str, int]] = {}
        for name, sql in queries.items():
            for row in self.query(sql, params):
                users.setdefault(str(row[0]), {})[name] = int(row[1])
        return {uid: {name: counts.get(name, 0) for name in queries} for uid, counts in users.items()}

    # -- meta -----------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        """A value of the ``meta`` table."""
        rows = self.query("SELECT value FROM meta WHERE key = ?", [key])
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the ``meta`` table."""
        with self.transaction() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)"
                         " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))
