"""Named, user-scoped queries for entities, conflicts, contradictions and bookkeeping.

A mixin of :class:`~.sqlite.SQLiteStore` (it uses the store's ``query`` and
``transaction``): the domain services call these methods instead of writing SQL, so
every statement that touches user rows filters by ``user_id`` here, where no caller can
forget it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any

__all__ = ["RecordQueries"]

_INDEXED_TABLES = frozenset({"episodes", "facts", "rules"})


class RecordQueries:
    """Entity, alias, conflict and contradiction queries, all scoped by ``user_id``."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:  # pragma: no cover - SQLiteStore's
        raise NotImplementedError

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:  # pragma: no cover - SQLiteStore's
        raise NotImplementedError

    # -- indexing bookkeeping -------------------------------------------------------------
    def unindexed_ids(self, table: str) -> list[tuple[str, str]]:
        """``(id, user_id)`` of every row of ``table`` not yet in the vector index, oldest first."""
        if table not in _INDEXED_TABLES:
            raise ValueError(f"not an indexed table: {table!r}")
        return [(r[0], r[1]) for r in self.query(f"SELECT id, user_id FROM {table} WHERE indexed = 0 ORDER BY seq")]

    # -- dead letters ---------------------------------------------------------------------
    def set_dead_letter_attempts(self, user_id: str, letter_id: str, attempts: int) -> None:
        """How many times the episodes of a dead letter were tried."""
        with self.transaction() as conn:
            conn.execute("UPDATE dead_letters SET attempts = ? WHERE user_id = ? AND id = ?",
                         (attempts, user_id, letter_id))

    # -- contradictions -------------------------------------------------------------------
    def contradicting_facts(
        self, user_id: str, subject: str, valid_after: float | None, *,
        other_than: tuple[str, str] | None = None, same_as: tuple[str, str] | None = None,
    ) -> list[sqlite3.Row]:
        """Believed versions about ``subject`` still valid after ``valid_after`` that contradict a claim.

        Args:
            other_than: ``(predicate, object_norm)``: versions of that predicate with another
                value (a single-valued predicate's rivals).
            same_as: ``(predicate, object_norm)``: versions of that (opposite) predicate with
                the same value.
        """
        clauses: list[str] = []
        params: list[Any] = [user_id, subject, valid_after]
        if other_than is not None:
            clauses.append("(predicate = ? AND object_norm != ?)")
            params += list(other_than)
        if same_as is not None:
            clauses.append("(predicate = ? AND object_norm = ?)")
            params += list(same_as)
        if not clauses:
            return []
        return self.query(
            "SELECT * FROM facts WHERE user_id = ? AND subject = ? AND expired_at IS NULL"
            f" AND (valid_to IS NULL OR valid_to > ?) AND ({' OR '.join(clauses)}) ORDER BY valid_from, seq", params)

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
        return self.query(f"SELECT * FROM conflicts WHERE user_id = ?{flagged} ORDER BY seq DESC LIMIT ?",
                          [user_id, limit])

    # -- entities -------------------------------------------------------------------------
    def entity_rows(self, user_id: str) -> list[sqlite3.Row]:
        """Every entity of a user, oldest first."""
        return self.query("SELECT * FROM entities WHERE user_id = ? ORDER BY created_at, id", [user_id])

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



    # -- statistics -----------------------------------------------------------------------
    def counts_by_user(self, user_id: str | None = None) -> dict[str, dict[str, int]]:
        """Per user (one, or all): episodes, unconsolidated, tombstones, summaries, current facts,
        fact versions, fact events, rules and dead letters."""
        where, params = ("WHERE user_id = ?", [user_id]) if user_id is not None else ("", [])
        also = "AND" if where else "WHERE"
        queries = {
            "episodes": f"SELECT user_id, COUNT(*) FROM episodes {where} GROUP BY user_id",
            "unconsolidated": f"SELECT user_id, SUM(processed = 0) FROM episodes {where} GROUP BY user_id",
            "tombstones": f"SELECT user_id, COUNT(*) FROM episodes {where} {also} role = 'tombstone' GROUP BY user_id",
            "summaries": f"SELECT user_id, COUNT(*) FROM episodes {where} {also} role = 'summary' GROUP BY user_id",
            "facts_current": "SELECT user_id, SUM(expired_at IS NULL AND valid_to IS NULL) FROM facts"
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

    def last_fact_event(self, user_id: str | None = None, *, excluding_reason: str | None = None) -> float | None:
        """When the user's (or anyone's) facts last changed, optionally ignoring one reason."""
        clauses, params = [], []
        if user_id is not None:
            clauses.append("user_id = ?")
            params.append(user_id)
        if excluding_reason is not None:
            clauses.append("reason != ?")
            params.append(excluding_reason)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        value = self.query(f"SELECT MAX(at) FROM fact_events{where}", params)[0][0]
        return None if value is None else float(value)
