"""SQLite system of record: episodes, bi-temporal facts, rules, history, dead letters.

One connection guarded by a re-entrant lock (SQLite serialises writers anyway); WAL
journal so readers in other processes are not blocked. Every query that touches user
data takes ``user_id``: tenancy is enforced here, where no caller can forget it.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .._time import from_epoch, to_epoch
from ..errors import StorageError
from ..types import Episode, Fact, FactDecision, Rule
from .records import RecordQueries
from .schema import SCHEMA, SCHEMA_VERSION
from .tables import TableRows

__all__ = ["SQLiteStore", "row_to_episode", "row_to_fact", "row_to_rule"]

_FAR_FUTURE = None  # open validity / belief intervals are stored as NULL


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def row_to_episode(row: sqlite3.Row) -> Episode:
    """Convert an ``episodes`` row to an :class:`Episode`."""
    return Episode(
        id=row["id"],
        user_id=row["user_id"],
        session_id=row["session_id"],
        role=row["role"],
        content=row["content"],
        timestamp=from_epoch(row["ts"]),  # type: ignore[arg-type]
        ingested_at=from_epoch(row["ingested_at"]),  # type: ignore[arg-type]
        metadata=json.loads(row["metadata"]),
        importance=row["importance"],
        access_count=row["access_count"],
        last_access=from_epoch(row["last_access"]),
        processed=bool(row["processed"]),
    )


def row_to_fact(row: sqlite3.Row) -> Fact:
    """Convert a ``facts`` row to a :class:`Fact`."""
    return Fact(
        id=row["id"],
        lineage_id=row["lineage_id"],
        user_id=row["user_id"],
        subject=row["subject"],
        predicate=row["predicate"],
        object=row["object"],
        confidence=row["confidence"],
        valid_from=from_epoch(row["valid_from"]),  # type: ignore[arg-type]
        valid_to=from_epoch(row["valid_to"]),
        ingested_at=from_epoch(row["ingested_at"]),  # type: ignore[arg-type]
        expired_at=from_epoch(row["expired_at"]),
        provenance=tuple(json.loads(row["provenance"])),
        occurrence_count=row["occurrence_count"],
        metadata=json.loads(row["metadata"]),
    )


def row_to_rule(row: sqlite3.Row) -> Rule:
    """Convert a ``rules`` row to a :class:`Rule`."""
    return Rule(
        id=row["id"],
        user_id=row["user_id"],
        condition=row["condition"],
        action=row["action"],
        confidence=row["confidence"],
        created_at=from_epoch(row["created_at"]),  # type: ignore[arg-type]
        usage_count=row["usage_count"],
        last_used=from_epoch(row["last_used"]),
        metadata=json.loads(row["metadata"]),
    )


class SQLiteStore(RecordQueries, TableRows):
    """The system of record. Thread-safe; every method is scoped by ``user_id``."""

    def __init__(self, path: Path, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = path
        try:
            self._conn = sqlite3.connect(
                str(path), check_same_thread=False, isolation_level=None, timeout=busy_timeout_ms / 1000
            )
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute("PRAGMA secure_delete=ON")  # deleted user data is zeroed in the file
            self._conn.executescript(SCHEMA)
            self._conn.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open SQLite database {path}: {exc}") from exc
        self._lock = threading.RLock()
        self._depth = 0

    # -- plumbing ---------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (nested calls join the outer one); rolls back on error."""
        with self._lock:
            outer = self._depth == 0
            if outer:
                self._conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield self._conn
            except BaseException:
                self._depth -= 1
                if outer:
                    self._conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outer:
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._conn.execute("ROLLBACK")
                    raise StorageError(f"commit failed: {exc}") from exc

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Run a read query under the lock."""
        with self._lock:
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StorageError(f"query failed: {exc}") from exc

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock:
            try:
                self._conn.close()
            except sqlite3.Error:  # pragma: no cover
                pass

    # -- episodes ---------------------------------------------------------------------
    def insert_episodes(self, episodes: Sequence[Episode]) -> None:
        """Insert episodes in one transaction (all or nothing; joins the caller's transaction)."""
        rows = [
            (
                e.id, e.user_id, e.session_id, e.role, e.content, to_epoch(e.timestamp), to_epoch(e.ingested_at),
                _dumps(e.metadata), e.importance, e.access_count, to_epoch(e.last_access), int(e.processed),
            )
            for e in episodes
        ]
        with self.transaction() as conn:
            conn.executemany(
                "INSERT INTO episodes (id, user_id, session_id, role, content, ts, ingested_at,"
                " metadata, importance, access_count, last_access, processed)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )

    def get_episodes(self, user_id: str, ids: Sequence[str]) -> list[Episode]:
        """Episodes of ``user_id`` among ``ids`` (others' ids are silently absent)."""
        if not ids:
            return []
        out: list[Episode] = []
        for chunk in _chunks(list(ids), 500):
            marks = ",".join("?" * len(chunk))
            rows = self.query(
                f"SELECT * FROM episodes WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk]
            )
            out.extend(row_to_episode(r) for r in rows)
        return out

    def list_episodes(
        self,
        user_id: str,
        *,
        session_id: str | None = None,
        since: float | None = None,
        until: float | None = None,
        unprocessed_only: bool = False,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> list[Episode]:
        """Episodes of a user in event-time order, optionally filtered."""
        sql = "SELECT * FROM episodes WHERE user_id = ?"
        params: list[Any] = [user_id]
        if session_id is not None:
            sql += " AND session_id = ?"
            params.append(session_id)
        if since is not None:
            sql += " AND ts >= ?"
            params.append(since)
        if until is not None:
            sql += " AND ts < ?"
            params.append(until)
        if unprocessed_only:
            sql += " AND processed = 0"
        sql += " ORDER BY ts DESC, seq DESC" if newest_first else " ORDER BY ts, seq"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        return [row_to_episode(r) for r in self.query(sql, params)]

    def neighbours(self, user_id: str, ids: Sequence[str]) -> dict[str, tuple[str | None, str | None]]:
        """The previous and next turn of each episode in its session (event-time order)."""
        out: dict[str, tuple[str | None, str | None]] = {}
        side = ("SELECT id FROM episodes WHERE user_id = ? AND session_id = ?"
                " AND (ts {op} ? OR (ts = ? AND seq {op} ?))"
                " ORDER BY ts {order}, seq {order} LIMIT 1")
        prev_sql, next_sql = side.format(op="<", order="DESC"), side.format(op=">", order="ASC")
        with self._lock:
            for row in self.query(f"SELECT id, session_id, ts, seq FROM episodes WHERE +user_id = ? AND id IN"
                                  f" ({','.join('?' * len(ids))}) AND session_id IS NOT NULL", [user_id, *ids]):
                args = (user_id, row["session_id"], row["ts"], row["ts"], row["seq"])
                prev = self._conn.execute(prev_sql, args).fetchone()
                nxt = self._conn.execute(next_sql, args).fetchone()
                out[row["id"]] = (prev[0] if prev else None, nxt[0] if nxt else None)
        return out

    def users_with_unprocessed(self) -> list[str]:
        """User ids that have episodes not yet consolidated."""
        return self.user_ids(unprocessed_only=True)

    def user_ids(self, *, unprocessed_only: bool = False) -> list[str]:
        """User ids with episodes (only those with episodes not yet consolidated), sorted."""
        where = " WHERE processed = 0" if unprocessed_only else ""
        return [r[0] for r in self.query(f"SELECT DISTINCT user_id FROM episodes{where} ORDER BY user_id")]

    def count(self, table: str, user_id: str | None = None) -> int:
        """Row count of ``episodes``, ``facts`` or ``rules`` (optionally for one user)."""
        if table not in {"episodes", "facts", "rules", "fact_events", "dead_letters"}:
            raise ValueError(table)
        if user_id is None:
            return int(self.query(f"SELECT COUNT(*) FROM {table}")[0][0])
        return int(self.query(f"SELECT COUNT(*) FROM {table} WHERE user_id = ?", [user_id])[0][0])

    def mark_processed(self, user_id: str, ids: Sequence[str]) -> None:
        """Flag episodes as consolidated (inside the caller's transaction if any)."""
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE episodes SET processed = 1 WHERE user_id = ? AND id = ?", [(user_id, i) for i in ids]
            )

    def touch_episodes(self, user_id: str, ids: Sequence[str], at: float) -> None:
        """Count an access (retrieval) of these episodes."""
        if not ids:
            return
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE episodes SET access_count = access_count + 1, last_access = ?"
                " WHERE user_id = ? AND id = ?",
                [(at, user_id, i) for i in ids],
            )

    # -- indexing bookkeeping -----------------------------------------------------------
    def unindexed(self, table: str, limit: int) -> list[sqlite3.Row]:
        """Rows not yet in the vector index (oldest first)."""
        if table not in {"episodes", "facts", "rules"}:
            raise ValueError(table)
        return self.query(f"SELECT * FROM {table} WHERE indexed = 0 ORDER BY seq LIMIT ?", [limit])

    def rows_by_id(self, table: str, ids: Sequence[str]) -> list[sqlite3.Row]:
        """Raw rows by id, any user (for the indexer, which carries user_id along)."""
        if table not in {"episodes", "facts", "rules"}:
            raise ValueError(table)
        out: list[sqlite3.Row] = []
        for chunk in _chunks(list(ids), 500):
            marks = ",".join("?" * len(chunk))
            out.extend(self.query(f"SELECT * FROM {table} WHERE id IN ({marks})", chunk))
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

    # -- lexical search -------------------------------------------------------------------
    def fts_episodes(
        self, user_id: str, match: str, limit: int, session_id: str | None = None
    ) -> list[tuple[str, float]]:
        """BM25 over a user's episodes: ``(episode_id, score)``, higher is better."""
        sql = (
            "SELECT e.id, -bm25(episodes_fts) AS s FROM episodes_fts JOIN episodes e"
            " ON e.seq = episodes_fts.rowid WHERE episodes_fts MATCH ? AND e.user_id = ?"
        )
        params: list[Any] = [match, user_id]
        if session_id is not None:
            sql += " AND e.session_id = ?"
            params.append(session_id)
        sql += " ORDER BY s DESC LIMIT ?"
        params.append(limit)
        return [(r[0], float(r[1])) for r in self.query(sql, params)]

    def fts_facts(self, user_id: str, match: str, limit: int) -> list[tuple[str, float]]:
        """BM25 over a user's current-belief facts: ``(fact_id, score)``."""
        sql = (
            "SELECT f.id, -bm25(facts_fts) AS s FROM facts_fts JOIN facts f ON f.seq = facts_fts.rowid"
            " WHERE facts_fts MATCH ? AND f.user_id = ? AND f.expired_at IS NULL ORDER BY s DESC LIMIT ?"
        )
        return [(r[0], float(r[1])) for r in self.query(sql, [match, user_id, limit])]

    # -- facts ------------------------------------------------------------------------
    def insert_fact(self, fact: Fact, object_norm: str, last_reinforced: float) -> None:
        """Insert one fact version."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO facts (id, lineage_id, user_id, subject, predicate, object, object_norm, text,"
                " confidence, valid_from, valid_to, ingested_at, expired_at, provenance, occurrence_count,"
                " last_reinforced, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    fact.id, fact.lineage_id, fact.user_id, fact.subject, fact.predicate, fact.object,
                    object_norm, fact.text, fact.confidence, to_epoch(fact.valid_from),
                    to_epoch(fact.valid_to), to_epoch(fact.ingested_at), to_epoch(fact.expired_at),
                    _dumps(list(fact.provenance)), fact.occurrence_count, last_reinforced,
                    _dumps(fact.metadata),
                ),
            )

    def expire_fact(self, user_id: str, fact_id: str, at: float) -> None:
        """End the belief in one fact version (it stays in history)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE facts SET expired_at = ? WHERE user_id = ? AND id = ? AND expired_at IS NULL",
                (at, user_id, fact_id),
            )

    def reinforce_fact(
        self, user_id: str, fact_id: str, confidence: float, provenance: Sequence[str], at: float
    ) -> None:
        """Record a repeat of a fact: count up, new confidence, provenance extended."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE facts SET occurrence_count = occurrence_count + 1, confidence = ?, provenance = ?,"
                " last_reinforced = ? WHERE user_id = ? AND id = ?",
                (confidence, _dumps(list(provenance)), at, user_id, fact_id),
            )

    def has_rows(self, table: str, user_id: str) -> bool:
        """Whether the user has any (believed) facts / rules: lets recall skip empty indexes."""
        sql = {"facts": "SELECT 1 FROM facts WHERE user_id = ? AND expired_at IS NULL LIMIT 1",
               "rules": "SELECT 1 FROM rules WHERE user_id = ? LIMIT 1"}[table]
        return bool(self.query(sql, [user_id]))

    def current_facts(
        self, user_id: str, subject: str | None = None, predicate: str | None = None,
        *, valid_after: float | None = None,
    ) -> list[Fact]:
        """Facts currently believed (not expired), any validity (or still valid after ``valid_after``)."""
        return self.select_facts(user_id, subject=subject, predicate=predicate, known_at=None, valid_after=valid_after)

    def select_facts(
        self,
        user_id: str,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        known_at: float | None = None,
        ids: Sequence[str] | None = None,
        lineage_id: str | None = None,
        all_versions: bool = False,
        valid_after: float | None = None,
    ) -> list[Fact]:
        """Facts of a user as believed at ``known_at`` (``None`` = now), oldest first."""
        sql = "SELECT * FROM facts WHERE user_id = ?"
        params: list[Any] = [user_id]
        if valid_after is not None:
            sql += " AND (valid_to IS NULL OR valid_to > ?)"
            params.append(valid_after)
        if subject is not None:
            sql += " AND subject = ?"
            params.append(subject)
        if predicate is not None:
            sql += " AND predicate = ?"
            params.append(predicate)
        if lineage_id is not None:
            sql += " AND lineage_id = ?"
            params.append(lineage_id)
        if ids is not None:
            if not ids:
                return []
            sql = sql.replace("WHERE user_id = ?", "WHERE +user_id = ?", 1)  # stay on the id index
            sql += f" AND id IN ({','.join('?' * len(ids))})"
            params.extend(ids)
        if not all_versions:
            if known_at is None:
                sql += " AND expired_at IS NULL"
            else:
                sql += " AND ingested_at <= ? AND (expired_at IS NULL OR expired_at > ?)"
                params.extend([known_at, known_at])
        sql += " ORDER BY valid_from, seq"
        return [row_to_fact(r) for r in self.query(sql, params)]

    def fact_last_reinforced(self, user_id: str, ids: Sequence[str]) -> dict[str, float]:
        """When each fact was last asserted (for read-time decay)."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.query(
            f"SELECT id, last_reinforced FROM facts WHERE +user_id = ? AND id IN ({marks})", [user_id, *ids]
        )
        return {r[0]: float(r[1]) for r in rows}

    def record_decision(self, user_id: str, decision: FactDecision, at: float) -> None:
        """Append a consolidation decision to the audit log."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO fact_events (user_id, op, fact_id, replaced_fact_id, subject, predicate, object,"
                " reason, episode_ids, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    user_id, decision.op, decision.fact_id, decision.replaced_fact_id, decision.subject,
                    decision.predicate, decision.object, decision.reason, _dumps(list(decision.episode_ids)), at,
                ),
            )

    def decisions(self, user_id: str, limit: int = 100) -> list[FactDecision]:
        """The most recent consolidation decisions of a user, newest first."""
        rows = self.query("SELECT * FROM fact_events WHERE user_id = ? ORDER BY seq DESC LIMIT ?", [user_id, limit])
        return [
            FactDecision(
                op=r["op"], subject=r["subject"], predicate=r["predicate"], object=r["object"],
                reason=r["reason"], fact_id=r["fact_id"], replaced_fact_id=r["replaced_fact_id"],
                episode_ids=tuple(json.loads(r["episode_ids"])),
            )
            for r in rows
        ]

    # -- rules ------------------------------------------------------------------------
    def insert_rule(self, rule: Rule) -> None:
        """Insert a procedural rule."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO rules (id, user_id, condition, action, confidence, created_at, metadata)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (rule.id, rule.user_id, rule.condition, rule.action, rule.confidence,
                 to_epoch(rule.created_at), _dumps(rule.metadata)),
            )

    def list_rules(self, user_id: str, ids: Sequence[str] | None = None) -> list[Rule]:
        """Rules of a user (optionally only ``ids``)."""
        sql, params = "SELECT * FROM rules WHERE user_id = ?", [user_id]
        if ids is not None:
            if not ids:
                return []
            sql = sql.replace("WHERE user_id = ?", "WHERE +user_id = ?", 1)  # stay on the id index
            sql += f" AND id IN ({','.join('?' * len(ids))})"
            params.extend(ids)
        return [row_to_rule(r) for r in self.query(sql + " ORDER BY seq", params)]

    def use_rules(self, user_id: str, ids: Sequence[str], at: float) -> None:
        """Count a use of these rules."""
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE rules SET usage_count = usage_count + 1, last_used = ? WHERE user_id = ? AND id = ?",
                [(at, user_id, i) for i in ids],
            )

    # -- dead letters -------------------------------------------------------------------
    def add_dead_letter(self, letter_id: str, user_id: str, episode_ids: Sequence[str], error: str, at: float) -> None:
        """Record a consolidation batch that failed (its episodes stay unprocessed)."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO dead_letters (id, user_id, episode_ids, error, created_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET attempts = attempts + 1,"
                " error = excluded.error, updated_at = excluded.updated_at",
                (letter_id, user_id, _dumps(list(episode_ids)), error, at, at),
            )

    def dead_letters(self, user_id: str | None = None) -> list[dict[str, Any]]:
        """Failed consolidation batches (all users when ``user_id`` is None)."""
        sql, params = "SELECT * FROM dead_letters", []
        if user_id is not None:
            sql, params = sql + " WHERE user_id = ?", [user_id]
        rows = self.query(sql + " ORDER BY created_at", params)
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

    # -- deletion -----------------------------------------------------------------------
    def delete_user(self, user_id: str) -> dict[str, int]:
        """Remove every row of a user from every table; returns counts per table."""
        counts: dict[str, int] = {}
        with self.transaction() as conn:
            for table in ("episodes", "facts", "fact_events", "rules", "dead_letters", "entities", "entity_aliases",
                          "conflicts"):
                cur = conn.execute(f"DELETE FROM {table} WHERE user_id = ?", (user_id,))
                counts[table] = cur.rowcount
        self.scrub()
        return counts

    def delete_ids(self, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """Delete episodes, fact versions (whole lineages) and rules of a user by id."""
        removed: dict[str, list[str]] = {"episodes": [], "facts": [], "rules": []}
        with self.transaction() as conn:
            for chunk in _chunks(list(ids), 500):
                marks = ",".join("?" * len(chunk))
                ep = [r[0] for r in conn.execute(
                    f"SELECT id FROM episodes WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk])]
                conn.execute(f"DELETE FROM episodes WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk])
                lineages = [r[0] for r in conn.execute(
                    f"SELECT DISTINCT lineage_id FROM facts WHERE user_id = ? AND (id IN ({marks})"
                    f" OR lineage_id IN ({marks}))", [user_id, *chunk, *chunk])]
                fa: list[str] = []
                for lin in lineages:
                    fa += [r[0] for r in conn.execute(
                        "SELECT id FROM facts WHERE user_id = ? AND lineage_id = ?", (user_id, lin))]
                    conn.execute("DELETE FROM facts WHERE user_id = ? AND lineage_id = ?", (user_id, lin))
                ru = [r[0] for r in conn.execute(
                    f"SELECT id FROM rules WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk])]
                conn.execute(f"DELETE FROM rules WHERE +user_id = ? AND id IN ({marks})", [user_id, *chunk])
                removed["episodes"] += ep
                removed["facts"] += fa
                removed["rules"] += ru
            self._delete_history(conn, user_id, removed["facts"], removed["episodes"])
        self.scrub()
        return removed

    @staticmethod
    def _delete_history(conn: sqlite3.Connection, user_id: str, fact_ids: list[str], episode_ids: list[str]) -> None:
        """Drop the history of deleted facts (events, conflicts, orphaned entities) and
        deleted episodes from dead letters."""
        for chunk in _chunks(fact_ids, 400):
            marks = ",".join("?" * len(chunk))
            conn.execute(f"DELETE FROM fact_events WHERE user_id = ? AND (fact_id IN ({marks})"
                         f" OR replaced_fact_id IN ({marks}))", [user_id, *chunk, *chunk])
            conn.execute(f"DELETE FROM conflicts WHERE user_id = ? AND (existing_fact_id IN ({marks})"
                         f" OR new_fact_id IN ({marks}))", [user_id, *chunk, *chunk])
        if fact_ids:  # entities no remaining fact of the user mentions
            conn.execute("DELETE FROM entities WHERE user_id = ? AND norm NOT IN (SELECT subject FROM facts"
                         " WHERE user_id = ?) AND norm NOT IN (SELECT object_norm FROM facts WHERE user_id = ?)",
                         (user_id, user_id, user_id))
            conn.execute("DELETE FROM entity_aliases WHERE user_id = ? AND entity_id NOT IN"
                         " (SELECT id FROM entities WHERE user_id = ?)", (user_id, user_id))
        gone = set(episode_ids)
        if not gone:
            return
        for letter_id, raw in conn.execute("SELECT id, episode_ids FROM dead_letters WHERE user_id = ?",
                                           (user_id,)).fetchall():
            keep = [i for i in json.loads(raw) if i not in gone]
            if not keep:
                conn.execute("DELETE FROM dead_letters WHERE id = ?", (letter_id,))
            elif len(keep) != len(json.loads(raw)):
                conn.execute("UPDATE dead_letters SET episode_ids = ? WHERE id = ?", (_dumps(keep), letter_id))

    def scrub(self) -> None:
        """Make deleted rows unrecoverable from the files: merge FTS segments, checkpoint the WAL.

        A no-op inside an open transaction (the outermost caller scrubs after commit).
        """
        with self._lock:
            if self._depth:
                return
            try:
                self._conn.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')")
                self._conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('optimize')")
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise StorageError(f"scrub failed: {exc}") from exc

    def get_meta(self, key: str) -> str | None:
        """A value of the ``meta`` table."""
        rows = self.query("SELECT value FROM meta WHERE key = ?", [key])
        return str(rows[0][0]) if rows else None

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the ``meta`` table."""
        with self.transaction() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)"
                         " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))


def _chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
