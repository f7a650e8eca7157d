"""Procedural-rule queries (a mixin of :class:`~.sqlite.SQLiteStore`), scoped by ``user_id``."""

from __future__ import annotations

from collections.abc import Sequence

from .._time import to_epoch
from ..types import Rule
from .connection import Connection
from .rows import dumps, row_to_rule

__all__ = ["RuleQueries"]


class RuleQueries(Connection):
    """Insert, list and count the use of a user's rules."""

    def insert_rule(self, rule: Rule) -> None:
        """Insert a procedural rule."""
        with self.transaction() as conn:
            conn.execute(
                "INSERT INTO rules (id, user_id, condition, action, confidence, created_at, metadata)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (rule.id, rule.user_id, rule.condition, rule.action, rule.confidence,
                 to_epoch(rule.created_at), dumps(rule.metadata)),
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
        return self.readable(self.query(sql + " ORDER BY seq", params), "rules", row_to_rule)

    def use_rules(self, user_id: str, ids: Sequence[str], at: float) -> None:
        """Count a use of these rules."""
        with self.transaction() as conn:
            conn.executemany(
                "UPDATE rules SET usage_count = usage_count + 1, last_used = ? WHERE user_id = ? AND id = ?",
                [(at, user_id, i) for i in ids],
            )
