"""The Postgres connection every storage mixin shares when the system of record is Postgres.

It offers what :class:`~.connection.Connection` offers SQLite's mixins (``transaction``,
``query``, ``readable``, ``close``, ``scrub``), over a psycopg 3 connection pool instead of one
locked connection: each thread takes a connection for a statement, or for a whole transaction,
so readers and writers of many threads and processes run side by side (Postgres' MVCC), where
SQLite serialises them. A transaction belongs to the thread that opened it: a named method
called inside it (a nested ``transaction`` or ``query``) joins it and sees its uncommitted
writes, as on SQLite.

Statements arrive in SQLite's spelling and are written in Postgres' by
:func:`~.dialect.to_postgres`; a statement without parameters (DDL, a script) runs as given.

Failures are typed: an unreachable or restarting server, a pool with no connection to give in
time or a statement past its timeout raise :class:`~..errors.DatabaseUnavailableError`; any
other database error :class:`~..errors.StorageError`. The pool checks a connection before
lending it and reconnects in the background, so the store recovers by itself once the server
answers again.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import DatabaseUnavailableError, StorageError, StoreClosedError, needs_extra
from .connection import Connection
from .dialect import to_postgres
from .outage import Outage
from .rows import readable

__all__ = ["PgConnection", "PgRow", "PgSettings", "lock_key", "redacted"]

logger = logging.getLogger(__name__)
_LOCK_POLL_S = 0.05
"""How often a process waiting for a user's consolidation lock tries it again."""


@dataclass(frozen=True)
class PgSettings:
    """How the store talks to Postgres (``storage.database_*`` settings)."""

    pool_size: int = 8
    """Connections per store at most (one per thread in a statement or transaction)."""
    connect_timeout_s: float = 5.0
    """How long opening the store, or a statement waiting for a free connection, may wait."""
    statement_timeout_ms: int = 30_000
    """A statement running longer is cancelled (``DatabaseUnavailableError``)."""


class PgRow(tuple):  # type: ignore[type-arg]
    """A row read by name or position, as ``sqlite3.Row`` is (``row["id"]``, ``row[0]``, ``keys()``)."""

    _index: dict[str, int]

    def __new__(cls, values: Sequence[Any], index: dict[str, int]) -> PgRow:
        row = super().__new__(cls, values)
        row._index = index
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        """The column names, in order."""
        return list(self._index)


def _row_factory(cursor: Any) -> Callable[[Sequence[Any]], PgRow]:
    index = {col.name: n for n, col in enumerate(cursor.description or ())}
    return lambda values: PgRow(values, index)


def _lost(exc: Exception) -> bool:
    """Whether an error means the server is out of reach (no connection in time, a connection
    refused or lost, the server shutting down or starting), not a statement or lock timeout."""
    state = getattr(exc, "sqlstate", None)
    return state is None or state.startswith("08") or state in ("57P01", "57P02", "57P03")


def lock_key(purpose: str, name: str) -> int:
    """An advisory lock's key: a signed 64-bit digest of ``purpose`` and ``name`` (a user id)."""
    digest = hashlib.blake2b(f"{purpose}\0{name}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def redacted(url: str) -> str:
    """``url`` without its password (for messages and warnings)."""
    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", url)


class PgTx:
    """One thread's open transaction: ``execute`` / ``executemany`` as on ``sqlite3.Connection``,
    returning the cursor (``fetchone``, ``fetchall``, ``rowcount``, iteration)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.depth = 1

    def execute(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        cur = self.conn.cursor()
        if params is None:
            return cur.execute(sql)  # a script as written: no placeholders, several statements allowed
        return cur.execute(to_postgres(sql), list(params))

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> Any:
        cur = self.conn.cursor()
        rows = [list(r) for r in rows]
        if rows:
            cur.executemany(to_postgres(sql), rows)
        return cur


class PgConnection(Connection):
    """Connection plumbing over a psycopg pool; the query mixins of :class:`~.postgres.PostgresStore`
    build on it as SQLite's build on :class:`~.connection.Connection`."""

    dialect = "postgres"
    """Which form of a migration step applies (statements are still given in SQLite's spelling)."""

    def __init__(self, url: Any, *, busy_timeout_ms: int = 10_000, settings: PgSettings | None = None) -> None:
        with needs_extra("postgres"):
            import psycopg  # noqa: F401
            import psycopg_pool  # noqa: F401
        self.url = str(url)
        self.path = redacted(self.url)  # type: ignore[assignment]  # what warnings name (a Path on SQLite)
        self.settings = settings or PgSettings()
        self._closed = False
        self.outage = Outage()
        """Whether recall finds the database unavailable (:func:`~..retrieval.reads.read_database`):
        shared with the pgvector index, which lives in the same database; any statement that
        succeeds ends it."""
        self._lock = threading.RLock()  # guards the mixins' per-store memos only: Postgres orders the writes
        self._local = threading.local()
        self._options = (f"-c statement_timeout={int(self.settings.statement_timeout_ms)}"
                         f" -c lock_timeout={int(busy_timeout_ms)}")
        self._failing = False  # the last statement found the server unavailable: see _revive
        self._revive_lock = threading.Lock()
        self._pool = self._new_pool()
        try:
            with self._errors("connect"):
                self._pool.open(wait=True, timeout=self.settings.connect_timeout_s)
        except BaseException:
            self._pool.close()
            raise
        self.checkpointer = None  # type: ignore[assignment]  # Postgres checkpoints its own WAL

    def _new_pool(self) -> Any:
        with needs_extra("postgres"):
            from psycopg_pool import ConnectionPool

        s = self.settings
        return ConnectionPool(
            self.url, min_size=1, max_size=max(1, s.pool_size), timeout=s.connect_timeout_s, open=False,
            kwargs={"autocommit": True, "row_factory": _row_factory, "options": self._options,
                    "connect_timeout": max(1, int(s.connect_timeout_s))},
            check=ConnectionPool.check_connection, name="nova-memory",
        )

    def _revive(self) -> None:
        """After a statement found the server unavailable, try it directly before the pool: if it
        answers, the pool is replaced by a fresh one (the old one closes as its connections come
        back). psycopg_pool retries a lost connection with exponential backoff (1, 2, 4 ... s), so
        after an outage of a minute its next try could be a minute away while the server is up: the
        store would stay unavailable that long. If it does not answer, the caller gets
        ``DatabaseUnavailableError`` at once instead of waiting for the pool's timeout."""
        if not self._failing:
            return
        with self._revive_lock:
            if not self._failing:
                return
            with needs_extra("postgres"):
                import psycopg

            with self._errors("reconnect"):
                psycopg.connect(self.url, autocommit=True, connect_timeout=max(1, int(self.settings.connect_timeout_s)),
                                options=self._options).close()
            old, self._pool = self._pool, self._new_pool()
            self._pool.open(wait=False)
            self._failing = False
            old.close(timeout=0)

    # -- errors ---------------------------------------------------------------------------------
    @contextmanager
    def _errors(self, what: str) -> Iterator[None]:
        """Postgres' failures as the package's typed errors (anything else passes through)."""
        with needs_extra("postgres"):
            import psycopg
            from psycopg_pool import PoolTimeout

        try:
            yield
        except (psycopg.OperationalError, PoolTimeout) as exc:
            self._failing = self._failing or _lost(exc)
            raise DatabaseUnavailableError(f"Postgres at {self.path} is unavailable ({what}): {exc}") from exc
        except psycopg.Error as exc:
            raise StorageError(f"Postgres {what} failed: {exc}") from exc
        if self.outage.down and (lasted := self.outage.recovered()) is not None:
            logger.info("nova-memory: Postgres at %s is reachable again after %.1f s", self.path, lasted)

    # -- transactions and reads -------------------------------------------------------------------
    @property
    def _depth(self) -> int:  # type: ignore[override]
        tx = getattr(self._local, "tx", None)
        return 0 if tx is None else tx.depth

    @contextmanager
    def transaction(self) -> Iterator[Any]:  # type: ignore[override]
        """A write transaction of this thread (nested calls join the outer one); rolls back on error."""
        self._check_open()
        tx: PgTx | None = getattr(self._local, "tx", None)
        if tx is not None:
            tx.depth += 1
            try:
                yield tx
            finally:
                tx.depth -= 1
            return
        self._revive()
        with self._errors("transaction"), self._pool.connection() as conn, conn.transaction():
            tx = PgTx(conn)
            self._local.tx = tx
            try:
                yield tx
            finally:
                self._local.tx = None

    @contextmanager
    def exclusive(self, key: int) -> Iterator[Any]:
        """A transaction holding the advisory lock ``key`` until it ends: whoever holds it runs
        alone among every process on the database (schema migrations, one user's consolidation)."""
        with self.transaction() as tx:
            tx.execute("SELECT pg_advisory_xact_lock(?)", (key,))
            yield tx

    @contextmanager
    def user_transaction(self, user_id: str) -> Iterator[Any]:
        """A write transaction over one user's memories holding the user's write lock from its first
        statement: what it reads (the user's current facts) holds until it commits, whichever
        thread or process writes next (a nested call joins the outer transaction). It raises the
        user's revision (:meth:`user_revision`), so other processes drop their caches of the user."""
        with self.exclusive(lock_key("writes", user_id)) as tx:
            if tx.depth == 1:
                self.bump_revision(tx, user_id)
            yield tx

    @staticmethod
    def bump_revision(tx: Any, user_id: str) -> None:
        """Raise the user's revision inside ``tx`` (visible to others when it commits)."""
        tx.execute("INSERT INTO user_revisions (user_id, revision) VALUES (?, 1) ON CONFLICT (user_id)"
                   " DO UPDATE SET revision = user_revisions.revision + 1", (user_id,))

    def try_lease(self, name: str, seconds: float) -> bool:
        """Take the periodic job ``name`` (the lifecycle's passes) for ``seconds``, if nobody holds it:
        whether this process got it. One statement on the ``leases`` row, timed by the database's
        clock (hosts' clocks may differ): taken when absent or run out, so among any number of
        processes one runs each period's job; a holder that dies leaves it to whoever wakes after
        it runs out."""
        holder = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        with self.transaction() as tx:
            row = tx.execute(
                "INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, extract(epoch FROM clock_timestamp()) + ?)"
                " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at"
                " WHERE leases.expires_at <= extract(epoch FROM clock_timestamp()) RETURNING holder",
                (name, holder, float(seconds))).fetchone()
        return row is not None

    def statement_undo(self, tx: Any) -> Any:
        """A savepoint around one statement of ``tx``: a failed statement aborts a whole Postgres
        transaction, so without it one bad row of an import would end the import's transaction."""
        return tx.conn.transaction()

    def user_revision(self, user_id: str) -> int | None:
        """The user's revision: raised by every commit that changed the user's memories (in any
        process); a cache filled after reading it is current while it is unchanged."""
        rows = self.query("SELECT revision FROM user_revisions WHERE user_id = ?", [user_id])
        return int(rows[0][0]) if rows else 0

    @contextmanager
    def user_lock(self, user_id: str) -> Iterator[None]:
        """Held while one user is consolidated: a session advisory lock on a connection of its own,
        so one process at a time consolidates a user (another waits, then finds nothing pending).

        Raises:
            DatabaseUnavailableError: not acquired within the statement timeout.
        """
        self._check_open()
        key = lock_key("consolidation", user_id)
        limit = self.settings.statement_timeout_ms / 1000 or None
        deadline = None if limit is None else time.monotonic() + limit
        self._revive()
        with self._errors("user lock"), self._pool.connection() as conn:
            while not conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
                if deadline is not None and time.monotonic() > deadline:
                    raise DatabaseUnavailableError(f"user {user_id!r} stayed locked by another process")
                time.sleep(_LOCK_POLL_S)
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    def in_transaction_here(self) -> bool:
        return getattr(self._local, "tx", None) is not None

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Run a read (inside this thread's transaction, if it has one)."""
        self._check_open()
        tx: PgTx | None = getattr(self._local, "tx", None)
        if tx is not None:
            with self._errors("query"):
                return list(tx.execute(sql, params).fetchall())
        self._revive()
        with self._errors("query"), self._pool.connection() as conn:
            return list(conn.execute(to_postgres(sql), list(params)).fetchall())

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosedError("this NovaStore is closed (its Postgres pool was closed)")

    def readable(self, rows: Sequence[Any], table: str, convert: Any = None, *, keep_row: bool = False) -> list[Any]:
        return readable(rows, table, str(self.path), convert, keep_row=keep_row)

    def close(self) -> None:
        """Close the pool (idempotent)."""
        self._closed = True
        self._pool.close()

    def scrub(self) -> None:
        """Nothing to do: Postgres keeps no full-text segments or log of its own in the data directory
        (deleted rows stay in its files until vacuumed; see the report of issue #39)."""
