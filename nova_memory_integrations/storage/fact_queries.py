"""Fact queries (a mixin of :class:`~.sqlite.SQLiteStore`), every one scoped by ``user_id``.

Bi-temporal versions, the decision log, contradiction lookup and keyword search.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from .._time import to_epoch
from ..types import Fact, FactDecision
from .connection import Connection
from .rows import UserFilter, dumps, row_to_decision, row_to_fact

__all__ = ["FactQueries"]


class FactQueries(Connection):
    """Write, read and search the fact versions and consolidation decisions of a user."""

    def insert_fact(self, fact: Fact, object_norm: str, last_reinforced: float) -> None:
        """Insert one fact version."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO facts (id, lineage_id, user_id, subject, predicate, object, object_norm, text,"
                " confidence, valid_from, valid_to, ingested_at, expired_at, provenance, occurrence_count,"
                " last_reinforced, metadata, importance, source)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    fact.id, fact.lineage_id, fact.user_id, fact.subject, fact.predicate, fact.object,
                    object_norm, fact.text, fact.confidence, to_epoch(fact.valid_from),
                    to_epoch(fact.valid_to), to_epoch(fact.ingested_at), to_epoch(fact.expired_at),
                    dumps(list(fact.provenance)), fact.occurrence_count, last_reinforced,
                    dumps(fact.metadata), fact.importance, fact.source,
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
        self, user_id: str, fact_id: str, confidence: float, provenance: Sequence[str], at: float, *,
        importance: float = 0.0, explicit: bool = False,
    ) -> None:
        """Record a repeat of a fact: count up, new confidence, provenance extended; its importance
        raised to ``importance`` if lower, and explicit from now on when the repeat is (standard SQL:
        no two-argument ``max``, no integer as a condition, so Postgres reads it as written)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE facts SET occurrence_count = occurrence_count + 1, confidence = ?, provenance = ?,"
                " last_reinforced = ?, importance = CASE WHEN importance < ? THEN ? ELSE importance END,"
                " source = CASE WHEN ? = 1 THEN 'explicit' ELSE source END WHERE user_id = ? AND id = ?",
                (confidence, dumps(list(provenance)), at, importance, importance, int(explicit), user_id, fact_id),
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

    def important_facts(self, user_id: str, *, min_importance: float, at: float, limit: int,
                        explicit_only: bool = False, predicates: Sequence[str] = ()) -> list[Fact]:
        """The user's believed facts valid at ``at`` of at least ``min_importance`` (and explicit, with
        ``explicit_only``, unless their predicate is one of ``predicates``: those the app declared
        that important), most important first (explicit before inferred, then the latest learnt):
        ``context()``'s guaranteed slots."""
        declared = f" OR predicate IN ({', '.join('?' * len(predicates))})" if predicates else ""
        sql = ("SELECT * FROM facts WHERE user_id = ? AND expired_at IS NULL AND importance >= ?"
               " AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)"
               + (f" AND (source = 'explicit'{declared})" if explicit_only else "")
               + " ORDER BY importance DESC, source = 'explicit' DESC, ingested_at DESC, seq DESC LIMIT ?")
        params = [user_id, min_importance, at, at, *(predicates if explicit_only else ()), limit]
        return self.readable(self.query(sql, params), "facts", row_to_fact)

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
        if ids is not None and not ids:
            return []
        # with ids, "+user_id" keeps SQLite on the id index (the user condition still applies)
        q = UserFilter("SELECT * FROM facts", user_id, user_column="user_id" if ids is None else "+user_id")
        q.where("(valid_to IS NULL OR valid_to > ?)", valid_after, when=valid_after is not None)
        q.where("subject = ?", subject, when=subject is not None)
        q.where("predicate = ?", predicate, when=predicate is not None)
        q.where("lineage_id = ?", lineage_id, when=lineage_id is not None)
        if ids is not None:
            q.where(f"id IN ({','.join('?' * len(ids))})", *ids)
        if not all_versions:
            q.where("expired_at IS NULL", when=known_at is None)
            q.where("ingested_at <= ? AND (expired_at IS NULL OR expired_at > ?)", known_at, known_at,
                    when=known_at is not None)
        return self.readable(self.query(q.sql + " ORDER BY valid_from, seq", q.params), "facts", row_to_fact)

    def fact_last_reinforced(self, user_id: str, ids: Sequence[str]) -> dict[str, float]:
        """When each fact was last asserted (for read-time decay)."""
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self.query(
            f"SELECT id, last_reinforced FROM facts WHERE +user_id = ? AND id IN ({marks})", [user_id, *ids]
        )
        return {r["id"]: float(r["last_reinforced"]) for r in self.readable(rows, "facts")}

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
        return self.readable(self.query(
            "SELECT * FROM facts WHERE user_id = ? AND subject = ? AND expired_at IS NULL"
            f" AND (valid_to IS NULL OR valid_to > ?) AND ({' OR '.join(clauses)}) ORDER BY valid_from, seq", params),
            "facts", row_to_fact, keep_row=True)

    def fts_facts(self, user_id: str, match: str, limit: int) -> list[tuple[str, float]]:
        """BM25 over a user's current-belief facts: ``(fact_id, score)``."""
        sql = (
            "SELECT f.id, -bm25(facts_fts) AS s FROM facts_fts JOIN facts f ON f.seq = facts_fts.rowid"
            " WHERE facts_fts MATCH ? AND f.user_id = ? AND f.expired_at IS NULL ORDER BY s DESC LIMIT ?"
        )
        return [(r[0], float(r[1])) for r in self.query(sql, [match, user_id, limit])]

    # -- decision log ---------------------------------------------------------------------
    def record_decision(self, user_id: str, decision: FactDecision, at: float) -> None:
        """Append a consolidation decision to the audit log."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO fact_events (user_id, op, fact_id, replaced_fact_id, subject, predicate, object,"
                " reason, episode_ids, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    user_id, decision.op, decision.fact_id, decision.replaced_fact_id, decision.subject,
                    decision.predicate, decision.object, decision.reason, dumps(list(decision.episode_ids)), at,
                ),
            )

    def decisions(self, user_id: str, limit: int = 100) -> list[FactDecision]:
        """The most recent consolidation decisions of a user, newest first."""
        rows = self.query("SELECT * FROM fact_events WHERE user_id = ? ORDER BY seq DESC LIMIT ?", [user_id, limit])
        return self.readable(rows, "fact_events", row_to_decision)

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
