"""Hidden memories: a soft "forgotten" state, restorable (a mixin of :class:`~.sqlite.SQLiteStore`).

Hiding moves rows out of ``episodes`` / ``facts`` / ``rules`` into a shelf table of the same
columns plus ``hidden_at`` (``hidden_episodes``, ``hidden_facts``, ``hidden_rules``), in one
transaction; restoring moves them back (``indexed = 0``, so they are embedded again). Every
read path of the engine (context, retrieve, search, facts, traverse, episodes, rules,
consolidation, the lifecycle, the CLI's list and show) reads the live tables only, so a
hidden memory is out of all of them by construction, and out of the full-text index (the
FTS triggers fire on the move). Export writes the shelves as their own record kinds
(``hidden_episodes`` ...), so an export keeps hidden memories with their state; ``forget``
erases the shelves with the rest of the user.

The shelves are created by the storage migration ``create_hidden_shelves``
(:mod:`.migrations`, with :func:`sync_hidden_shelves`, which a later step that adds a column to
a live table calls too). A fact is hidden and restored by lineage (every stored version), as
``delete`` removes it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from ..errors import StorageError
from .connection import Connection
from .dialect import column_names, is_integrity_error
from .rows import chunks

__all__ = ["HIDDEN_TABLES", "HiddenQueries", "sync_hidden_shelves"]

HIDDEN_TABLES = {"episodes": "hidden_episodes", "facts": "hidden_facts", "rules": "hidden_rules"}
"""Each memory table and the shelf its hidden rows are kept in."""
HIDDEN_AT = "hidden_at"
"""The shelf column recording when a row was hidden (seconds since the epoch)."""
_SHELF_ONLY = frozenset({HIDDEN_AT})


def sync_hidden_shelves(conn: sqlite3.Connection) -> None:
    """Create the shelves that are missing, and add to each the columns its live table has and it
    lacks (through ``conn``, inside the caller's transaction; nothing is written when they are current).

    Raises:
        StorageError: SQLite refused a statement.
    """
    statements: list[str] = []
    for live, shelf in HIDDEN_TABLES.items():
        columns = conn.execute(f"PRAGMA table_info({live})").fetchall()
        have = {str(r["name"]) for r in conn.execute(f"PRAGMA table_info({shelf})").fetchall()}
        if not have:
            defs = [_column_def(r, new_table=True) for r in columns]
            statements.append(f"CREATE TABLE IF NOT EXISTS {shelf} ({', '.join(defs)}, {HIDDEN_AT} REAL NOT NULL)")
            statements.append(f"CREATE INDEX IF NOT EXISTS {shelf}_user ON {shelf} (user_id, {HIDDEN_AT})")
            continue
        statements += [f"ALTER TABLE {shelf} ADD COLUMN {_column_def(r, new_table=False)}"
                       for r in columns if str(r["name"]) not in have]
    try:
        for sql in statements:
            conn.execute(sql)
    except sqlite3.Error as exc:
        raise StorageError(f"cannot create or extend the hidden memory tables: {exc}") from exc


class HiddenQueries(Connection):
    """Hide, restore, list and count a user's hidden memories."""

    # -- hide / restore ---------------------------------------------------------------------
    def hide_rows(self, user_id: str, ids: Sequence[str], at: float) -> dict[str, list[str]]:
        """Move the user's episodes, facts (whole lineages) and rules among ``ids`` onto the shelves.

        Returns:
            The ids hidden per table (ids of other users, unknown or already hidden ids are absent).
        """
        moved: dict[str, list[str]] = {table: [] for table in HIDDEN_TABLES}
        with self.user_transaction(user_id) as conn:
            for table, shelf in HIDDEN_TABLES.items():
                columns = ", ".join(self._shared_columns(conn, table, shelf))
                for chunk in chunks(list(dict.fromkeys(ids)), 400):
                    rows = _matching(conn, table, user_id, chunk)
                    if not rows:
                        continue
                    marks = ",".join("?" * len(rows))
                    conn.execute(f"INSERT INTO {shelf} ({columns}, {HIDDEN_AT}) SELECT {columns}, ? FROM {table}"
                                 f" WHERE +user_id = ? AND id IN ({marks})", [at, user_id, *rows])
                    conn.execute(f"DELETE FROM {table} WHERE +user_id = ? AND id IN ({marks})", [user_id, *rows])
                    moved[table] += rows
        return moved

    def restore_rows(self, user_id: str, ids: Sequence[str]) -> dict[str, list[str]]:
        """Move the user's hidden rows among ``ids`` (facts: whole lineages) back, to be indexed again.

        Returns:
            The ids restored per table.

        Raises:
            StorageError: a restored id was stored again meanwhile (e.g. by an import).
        """
        moved: dict[str, list[str]] = {table: [] for table in HIDDEN_TABLES}
        with self.user_transaction(user_id) as conn:
            for table, shelf in HIDDEN_TABLES.items():
                shared = [c for c in self._shared_columns(conn, table, shelf) if c != "indexed"]
                plain = [c for c in shared if c != "seq"]
                for chunk in chunks(list(dict.fromkeys(ids)), 400):
                    rows = _matching(conn, shelf, user_id, chunk)
                    if not rows:
                        continue
                    marks = ",".join("?" * len(rows))
                    where = f"WHERE +user_id = ? AND id IN ({marks})"
                    try:  # the original row order (seq) comes back unless the row was imported hidden
                        conn.execute(f"INSERT INTO {table} ({', '.join(shared)}, indexed) SELECT {', '.join(shared)},"
                                     f" 0 FROM {shelf} {where} AND seq IS NOT NULL ORDER BY seq", [user_id, *rows])
                        conn.execute(f"INSERT INTO {table} ({', '.join(plain)}, indexed) SELECT {', '.join(plain)},"
                                     f" 0 FROM {shelf} {where} AND seq IS NULL ORDER BY rowid", [user_id, *rows])
                    except Exception as exc:
                        if not is_integrity_error(exc):
                            raise
                        raise StorageError(f"cannot restore into {table}: an id is stored again ({exc})") from exc
                    conn.execute(f"DELETE FROM {shelf} {where}", [user_id, *rows])
                    moved[table] += rows
        return moved

    def delete_hidden(self, user_id: str, ids: Sequence[str] | None = None) -> dict[str, list[str]]:
        """Erase hidden rows of the user (all of them, or those among ``ids``; facts by lineage)."""
        removed: dict[str, list[str]] = {table: [] for table in HIDDEN_TABLES}
        with self.user_transaction(user_id) as conn:
            for table, shelf in HIDDEN_TABLES.items():
                if ids is None:
                    found = [str(r[0]) for r in conn.execute(f"SELECT id FROM {shelf} WHERE user_id = ?", (user_id,))]
                    conn.execute(f"DELETE FROM {shelf} WHERE user_id = ?", (user_id,))
                    removed[table] += found
                    continue
                for chunk in chunks(list(dict.fromkeys(ids)), 400):
                    rows = _matching(conn, shelf, user_id, chunk)
                    if rows:
                        conn.execute(f"DELETE FROM {shelf} WHERE +user_id = ? AND id IN ({','.join('?' * len(rows))})",
                                     [user_id, *rows])
                        removed[table] += rows
        return removed

    # -- reads ------------------------------------------------------------------------------
    def hidden_ids(self, user_id: str) -> dict[str, list[tuple[str, float]]]:
        """``(id, hidden_at)`` of the user's hidden rows per table, oldest hidden first."""
        return {table: [(str(r[0]), float(r[1])) for r in self.query(
            f"SELECT id, {HIDDEN_AT} FROM {shelf} WHERE user_id = ? ORDER BY {HIDDEN_AT}, rowid", [user_id])]
            for table, shelf in HIDDEN_TABLES.items()}

    def hidden_counts(self, user_id: str | None = None) -> dict[str, dict[str, int]]:
        """Hidden rows per user (one, or all) and table; users without any are absent."""
        where, params = ("WHERE user_id = ?", [user_id]) if user_id is not None else ("", [])
        out: dict[str, dict[str, int]] = {}
        for table, shelf in HIDDEN_TABLES.items():
            for row in self.query(f"SELECT user_id, COUNT(*) FROM {shelf} {where} GROUP BY user_id", params):
                out.setdefault(str(row[0]), dict.fromkeys(HIDDEN_TABLES, 0))[table] = int(row[1])
        return out

    @staticmethod
    def _shared_columns(conn: Any, table: str, shelf: str) -> list[str]:
        kept = set(column_names(conn, shelf)) - _SHELF_ONLY
        return [c for c in column_names(conn, table) if c in kept]


def _matching(conn: sqlite3.Connection, table: str, user_id: str, ids: list[str]) -> list[str]:
    """The ids of ``table`` (a live table or a shelf) among ``ids`` owned by ``user_id``; for facts,
    every version of the lineages those ids belong to."""
    marks = ",".join("?" * len(ids))
    if "facts" in table:
        sql = (f"SELECT id FROM {table} WHERE user_id = ? AND lineage_id IN (SELECT lineage_id FROM {table}"
               f" WHERE +user_id = ? AND (id IN ({marks}) OR lineage_id IN ({marks}))) ORDER BY seq")
        return [str(r[0]) for r in conn.execute(sql, [user_id, user_id, *ids, *ids])]
    return [str(r[0]) for r in conn.execute(f"SELECT id FROM {table} WHERE +user_id = ? AND id IN ({marks})",
                                            [user_id, *ids])]


def _column_def(row: Any, *, new_table: bool) -> str:
    """A shelf column like the live one: same type, NOT NULL and default (``seq`` is a plain integer,
    kept to restore the original row order; ``id`` stays unique)."""
    name, kind = str(row["name"]), str(row["type"])
    if name == "seq":
        return "seq INTEGER"
    out = f"{name} {kind}"
    default = row["dflt_value"]
    if row["notnull"] and (new_table or default is not None):
        out += " NOT NULL"
    if default is not None:
        out += f" DEFAULT {default}"
    if name == "id" and new_table:
        out += " UNIQUE"
    return out
