"""The SQLite connection every storage mixin shares: open, transactions, reads, scrub.

One connection guarded by a re-entrant lock (SQLite serialises writers anyway); WAL
journal so readers in other processes are not blocked. A transaction holds the lock
from ``BEGIN`` to ``COMMIT``, so a named method called inside one (``query`` or a
nested ``transaction``) runs on the same connection and sees the uncommitted writes,
while other threads wait.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import StorageError
from .schema import SCHEMA, SCHEMA_VERSION

__all__ = ["Connection"]


class Connection:
    """Connection plumbing; the query mixins of :class:`~.sqlite.SQLiteStore` build on it."""

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
