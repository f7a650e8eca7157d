"""Table-generic row access for export and import (a mixin of :class:`~.sqlite.SQLiteStore`).

Export and import move whole rows of every user table without knowing each schema, so
these methods take table and column names (checked against the live schema's
identifiers) and, wherever user rows are read, a ``user_id``.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from typing import Any

from ..errors import InvalidInputError, StorageError
from .connection import Connection
from .dialect import is_bad_row

__all__ = ["TableRows"]

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _ident(*names: str) -> None:
    for name in names:
        if not _IDENT.match(name):
            raise ValueError(f"not an SQL identifier: {name!r}")


class TableRows(Connection):
    """Schema introspection and row copy by table name."""

    def table_names(self) -> list[str]:
        """Every table of the database, sorted."""
        return [str(r[0]) for r in self.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]

    def table_columns(self, table: str) -> list[sqlite3.Row]:
        """``PRAGMA table_info`` of one table (name, type, notnull, pk ...)."""
        _ident(table)
        return self.query(f"PRAGMA table_info({table})")

    def user_rows(self, table: str, columns: Sequence[str], user_id: str, order: str) -> list[sqlite3.Row]:
        """The user's rows of ``table`` (only ``columns``), in ``order``; damaged rows are left out."""
        _ident(table, order, *columns)
        return self.readable(self.query(f"SELECT {', '.join(columns)} FROM {table} WHERE user_id = ?"
                                        f" ORDER BY {self._ordered(order)}", [user_id]), table)

    def _ordered(self, column: str) -> str:
        """``ORDER BY``'s term for ``column`` (SQLite compares text byte by byte: ``BINARY``)."""
        return column

    def users_of(self, tables: Sequence[str]) -> list[str]:
        """Every user id found in any of ``tables``, sorted."""
        if not tables:
            return []
        _ident(*tables)
        union = " UNION ".join(f"SELECT user_id FROM {t}" for t in tables)
        return [str(r[0]) for r in self.query(f"{union} ORDER BY 1")]

    def find_row(self, table: str, key: Sequence[str], values: Sequence[Any]) -> sqlite3.Row | None:
        """The row whose ``key`` columns equal ``values`` (NULL-safe), if any."""
        _ident(table, *key)
        where = " AND ".join(f"{c} IS ?" for c in key)
        rows = self.query(f"SELECT * FROM {table} WHERE {where} LIMIT 1", list(values))
        return rows[0] if rows else None

    def owner_of(self, table: str, row_id: str) -> str | None:
        """The user a row id belongs to, if the row exists."""
        _ident(table)
        rows = self.query(f"SELECT user_id FROM {table} WHERE id = ?", [row_id])
        return str(rows[0][0]) if rows else None

    def insert_row(self, table: str, columns: Sequence[str], values: Sequence[Any]) -> None:
        """Insert one row (joins the caller's transaction).

        Raises:
            InvalidInputError: the row breaks a constraint (a UNIQUE key already taken, a
                value the database cannot hold); only this statement is undone (SQLite does so
                by itself, Postgres by :meth:`statement_undo`'s savepoint).
            StorageError: SQLite failed otherwise.
        """
        _ident(table, *columns)
        with self.transaction() as conn, self.statement_undo(conn):
            try:
                conn.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({','.join('?' * len(columns))})",
                             list(values))
            except Exception as exc:
                if is_bad_row(exc):
                    raise InvalidInputError(f"breaks a constraint of {table} ({exc})") from exc
                if isinstance(exc, sqlite3.Error):
                    raise StorageError(f"insert into {table} failed: {exc}") from exc
                raise

    def delete_row(self, table: str, key: Sequence[str], values: Sequence[Any]) -> None:
        """Delete the rows whose ``key`` columns equal ``values`` (fires the FTS delete triggers)."""
        _ident(table, *key)
        where = " AND ".join(f"{c} IS ?" for c in key)
        with self.transaction() as conn:
            try:
                conn.execute(f"DELETE FROM {table} WHERE {where}", list(values))
            except sqlite3.Error as exc:
                raise StorageError(f"delete from {table} failed: {exc}") from exc
