"""The SQL dialects of the system of record: SQLite (the default) and Postgres.

The named storage methods (:mod:`.episodes`, :mod:`.facts` ...) are written once, in the SQL
SQLite runs: ``?`` placeholders, optimizer hints (``+user_id`` keeps SQLite off an index,
``INDEXED BY``), ``INSERT OR IGNORE`` / ``INSERT OR REPLACE`` and ``x IS ?``. Every one of those
has a Postgres spelling with the same meaning, which :func:`to_postgres` writes (and caches),
so a statement has one text and one review, whatever the database. What has no such spelling
(full-text search, the catalog, ``rowid``) is a method the Postgres store overrides
(:mod:`.postgres`), never a rewrite here.
"""

from __future__ import annotations

import re
import sqlite3
import sys
from functools import lru_cache
from typing import Any

__all__ = ["UPSERT_KEYS", "column_names", "is_bad_row", "is_integrity_error", "statements", "to_postgres"]


def is_integrity_error(exc: BaseException) -> bool:
    """Whether ``exc`` is a statement breaking a constraint (a UNIQUE key taken ...), on either
    database (psycopg is looked up only once something has imported it: SQLite users never pay)."""
    psycopg = sys.modules.get("psycopg")
    return isinstance(exc, sqlite3.IntegrityError) or (psycopg is not None and isinstance(exc, psycopg.IntegrityError))


def is_bad_row(exc: BaseException) -> bool:
    """Whether ``exc`` is a row the table cannot take: a broken constraint, or a value out of the
    column's range (SQLite: ``OverflowError`` before the statement; Postgres: a data error)."""
    psycopg = sys.modules.get("psycopg")
    return is_integrity_error(exc) or isinstance(exc, OverflowError) or (
        psycopg is not None and isinstance(exc, psycopg.DataError))

UPSERT_KEYS: dict[str, tuple[str, ...]] = {
    "episode_vectors": ("seq",),
    "episode_sentence_vectors": ("seq",),
}
"""The conflict target of each table written with ``INSERT OR REPLACE`` (its primary key)."""

_HINT_PLUS = re.compile(r"(?<=[\s(])\+(?=[A-Za-z_])")
"""SQLite's ``+column`` (a unary plus that keeps the planner off that column's index)."""
_INDEXED_BY = re.compile(r"\s+INDEXED BY \w+")
_IS_PARAM = re.compile(r"\bIS \?")
_OR_REPLACE = re.compile(r"INSERT OR REPLACE INTO (\w+) \(([^)]*)\)")


@lru_cache(maxsize=4096)
def to_postgres(sql: str) -> str:
    """``sql`` (as SQLite runs it, with parameters) in Postgres' spelling for psycopg.

    Placeholders become ``%s`` (a literal ``%`` doubles), hints go, ``x IS ?`` becomes
    ``x IS NOT DISTINCT FROM %s`` (NULL-safe equality, as in SQLite), ``INSERT OR IGNORE``
    becomes ``ON CONFLICT DO NOTHING`` and ``INSERT OR REPLACE`` an upsert on the table's
    :data:`UPSERT_KEYS`.

    Raises:
        ValueError: an ``INSERT OR REPLACE`` into a table without a known key.
    """
    out = sql.replace("%", "%%")
    out = _HINT_PLUS.sub("", out)
    out = _INDEXED_BY.sub("", out)
    out = _IS_PARAM.sub("IS NOT DISTINCT FROM ?", out)
    if "INSERT OR IGNORE INTO" in out:
        out = out.replace("INSERT OR IGNORE INTO", "INSERT INTO", 1) + " ON CONFLICT DO NOTHING"
    found = _OR_REPLACE.search(out)
    if found is not None:
        table, columns = found.group(1), [c.strip() for c in found.group(2).split(",")]
        if table not in UPSERT_KEYS:
            raise ValueError(f"INSERT OR REPLACE into {table}: no conflict key known for Postgres")
        key = UPSERT_KEYS[table]
        updates = ", ".join(f"{c} = excluded.{c}" for c in columns if c not in key)
        out = (out.replace("INSERT OR REPLACE INTO", "INSERT INTO", 1)
               + f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {updates}")
    return out.replace("?", "%s")


def column_names(conn: Any, table: str) -> list[str]:
    """The columns of ``table`` in their order, read through ``conn`` (an ``sqlite3.Connection``
    or a Postgres transaction of :mod:`.pg_connection`); ``[]`` when it does not exist.
    ``table`` must be a checked identifier."""
    if isinstance(conn, sqlite3.Connection):
        return [str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})").fetchall()]
    rows = conn.execute("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                        " AND table_name = ? ORDER BY ordinal_position", (table,)).fetchall()
    return [str(r[0]) for r in rows]


def statements(script: str) -> list[str]:
    """The complete SQL statements of ``script``, one by one (``executescript`` would commit the
    transaction a step runs in)."""
    out: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            out.append(pending.strip())
            pending = ""
    if pending.strip() and not all(ln.strip().startswith("--") or not ln.strip() for ln in pending.splitlines()):
        raise ValueError(f"an incomplete SQL statement: {pending.strip()[:80]!r}")
    return out
