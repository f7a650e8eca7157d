"""The SQLite connection every storage mixin shares: open, transactions, reads, scrub.

Opening sets the connection up only; the tables are the storage migrations' (:mod:`.migrations`,
applied by :class:`~.sqlite.SQLiteStore`).

One connection guarded by a re-entrant lock (SQLite serialises writers anyway); WAL
journal so readers in other processes are not blocked. A transaction holds the lock
from ``BEGIN`` to ``COMMIT``, so a named method called inside one (``query`` or a
nested ``transaction``) runs on the same connection and sees the uncommitted writes,
while other threads wait.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

from ..errors import StorageError, StoreClosedError
from .checkpoint import WAL_FALLBACK_PAGES, WalCheckpointer
from .outage import Outage
from .rows import readable

__all__ = ["SQLITE_HEADER", "Connection", "check_database_file"]

SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""
_EMPTY_GRACE_S = 0.5
"""How long a zero-byte file may stay empty before it is refused (another process may be creating it)."""


def check_database_file(path: Path) -> None:
    """Refuse an existing file that is not an SQLite database, before SQLite opens it as an empty one.

    A missing file is fine (a new store). SQLite itself would take a zero-byte file for an
    empty database and quietly start a new store over what was meant to be a copy of one.

    Raises:
        StorageError: the file is empty, or holds something other than an SQLite database.
    """
    deadline = time.monotonic() + _EMPTY_GRACE_S
    while True:
        try:
            with open(path, "rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
        except FileNotFoundError:
            return
        except OSError as exc:
            raise StorageError(f"cannot read SQLite database {path}: {exc}") from exc
        if head or time.monotonic() >= deadline:
            break
        time.sleep(0.05)  # a process creating the store writes the header within milliseconds
    if not head:
        raise StorageError(
            f"{path} is empty (0 bytes), not a database: this is what an interrupted copy or a full disk "
            "leaves. Restore the file from a backup, or delete it to start an empty store."
        )
    if head != SQLITE_HEADER:
        raise StorageError(f"{path} is not an SQLite database (it starts with {head[:8]!r}); refusing to open it")


class Connection:
    """Connection plumbing; the query mixins of :class:`~.sqlite.SQLiteStore` build on it."""

    dialect = "sqlite"
    """Which form of a migration step applies (:mod:`.migrations`); ``postgres`` on Postgres' store."""

    def __init__(self, path: Path, *, busy_timeout_ms: int = 10_000) -> None:
        self.path = path
        self._closed = False
        self.outage = Outage()  # a file has no outage; Postgres' store shares the attribute's meaning
        check_database_file(path)
        try:
            self._conn = sqlite3.connect(
                str(path), check_same_thread=False, isolation_level=None, timeout=busy_timeout_ms / 1000
            )
            self._conn.row_factory = sqlite3.Row
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute(f"PRAGMA wal_autocheckpoint={WAL_FALLBACK_PAGES}")  # see .checkpoint
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute("PRAGMA secure_delete=ON")  # deleted user data is zeroed in the file
        except sqlite3.Error as exc:
            raise StorageError(f"cannot open SQLite database {path}: {exc}") from exc
        self._lock = threading.RLock()
        self.checkpointer = WalCheckpointer(path, busy_timeout_s=busy_timeout_ms / 1000)
        self._depth = 0
        self._writer: int | None = None  # the thread inside transaction(), if any

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A write transaction (nested calls join the outer one); rolls back on error."""
        with self._lock:
            self._check_open()
            outer = self._depth == 0
            if outer:
                self._conn.execute("BEGIN IMMEDIATE")
                self._writer = threading.get_ident()
            self._depth += 1
            try:
                yield self._conn
            except BaseException:
                self._depth -= 1
                if outer:
                    self._writer = None
                    self._conn.execute("ROLLBACK")
                raise
            self._depth -= 1
            if outer:
                self._writer = None
                try:
                    self._conn.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._conn.execute("ROLLBACK")
                    raise StorageError(f"commit failed: {exc}") from exc
                self.checkpointer.poke()

    @contextmanager
    def exclusive(self, key: int) -> Iterator[sqlite3.Connection]:
        """A transaction that runs alone among the writers of this database: every write
        transaction of SQLite does (``BEGIN IMMEDIATE``), so ``key`` (which names the lock on
        Postgres, :meth:`~.pg_connection.PgConnection.exclusive`) is not needed here."""
        with self.transaction() as conn:
            yield conn

    def user_transaction(self, user_id: str) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction over one user's memories that no other such transaction of the user
        overlaps (on SQLite, every write transaction already runs alone), so what it reads (the
        user's current facts) still holds when it writes."""
        return self.transaction()

    def statement_undo(self, conn: sqlite3.Connection) -> AbstractContextManager[Any]:
        """Around one statement inside a transaction, so that its failure undoes it alone and the
        transaction goes on: SQLite does that for a failed statement by itself (Postgres needs a
        savepoint, :meth:`~.pg_connection.PgConnection.statement_undo`)."""
        return nullcontext()

    def try_lease(self, name: str, seconds: float) -> bool:
        """Take the periodic job ``name`` for ``seconds`` unless another process holds it: always
        granted here, where one process owns the database (Postgres:
        :meth:`~.pg_connection.PgConnection.try_lease`)."""
        return True

    @staticmethod
    def bump_revision(conn: Any, user_id: str) -> None:
        """Tell other processes' caches the user changed (inside the writing transaction): nothing
        to tell on SQLite, where one process owns the database."""

    def user_revision(self, user_id: str) -> int | None:
        """A counter of the changes to the user's memories, for caches other processes' writes can
        make stale; ``None``: no other process writes this database (SQLite: one owner per data
        directory), so a cache stays valid until this process drops it."""
        return None

    def user_lock(self, user_id: str) -> AbstractContextManager[None]:
        """Held while one user is consolidated, so one process at a time works on a user: the
        store's consolidation lock does that here (one process owns a SQLite data directory)."""
        return nullcontext()

    def in_transaction_here(self) -> bool:
        """Whether the calling thread is inside :meth:`transaction` (code a hook runs there, say):
        a read handed to another thread would then wait for this one to commit."""
        return self._writer == threading.get_ident()

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """Run a read query under the lock."""
        with self._lock:
            self._check_open()
            try:
                return self._conn.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StorageError(f"query failed: {exc}") from exc

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError("this NovaStore is closed (its SQLite connection was closed)")

    def readable(self, rows: Sequence[sqlite3.Row], table: str, convert: Any = None, *,
                 keep_row: bool = False) -> list[Any]:
        """``rows`` without the damaged ones (skipped with one warning each): :func:`.rows.readable`."""
        return readable(rows, table, str(self.path), convert, keep_row=keep_row)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self.checkpointer.stop()
        with self._lock:
            self._closed = True
            try:
                self._conn.close()
            except sqlite3.Error:  # pragma: no cover
                pass

    def scrub(self) -> None:
        """Make deleted rows unrecoverable from the files: merge FTS segments, checkpoint the WAL.

        A no-op inside an open transaction (the outermost caller scrubs after commit).
        """
        with self._lock:
            self._check_open()
            if self._depth:
                return
            try:
                self._conn.execute("INSERT INTO episodes_fts (episodes_fts) VALUES ('optimize')")
                self._conn.execute("INSERT INTO facts_fts (facts_fts) VALUES ('optimize')")
                with self.checkpointer.paused():  # a background checkpoint would keep the log from truncating
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            except sqlite3.Error as exc:
                raise StorageError(f"scrub failed: {exc}") from exc
