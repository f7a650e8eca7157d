"""Named migrations: every change to a store's schema or files is a named step, applied once and
recorded with when it ran (the ``migrations`` style of sqlite-utils).

A :class:`Migrations` registry holds its steps in the order they were registered, which is the
order they run in; ``@registry()`` registers a function under its own name. Opening a store runs
the steps its ``migrations`` table does not list yet, each once, and records each with the UTC
time it was applied. Two registries share the one table:

- :data:`STORAGE` (here): steps over the SQLite connection alone. Each runs inside the
  transaction that records it, so a step is either applied and recorded or neither.
  :class:`~.sqlite.SQLiteStore` applies them when it opens the database.
- the engine's (:mod:`nova_memory_integrations.engine.migrations`): steps that need the vector
  index or the embedder. They cannot share a transaction with SQLite, so each is recorded after
  it succeeds and is written to be repeatable (a crash in between runs it again).

A store written before the table existed said what had run through ``meta`` flags; a step
registered with ``ran_before`` (see :func:`meta_is`) is recorded as applied, without running,
when those flags say it already ran. A fresh store applies every step.

Adding to the schema: register a new step at the end (never edit a step that has shipped, nor
:data:`~.schema.SCHEMA`, which is the ``create_tables`` step). A step that adds a column to
``episodes``, ``facts`` or ``rules`` calls :func:`~.hidden.sync_hidden_shelves` at its end, so
the shelves of hidden memories keep every column of their live table.

The runner needs a connection-like object only (:class:`Transactional`: ``query`` and an
``exclusive`` transaction) and standard SQL, with the placeholder as a parameter, so the Postgres
store (:mod:`.postgres`) records the same named steps in the same way. A step whose SQL differs
there registers its Postgres form beside it (``@STORAGE(postgres=...)``), under the same name.
On Postgres every step runs in a transaction holding the advisory lock :data:`MIGRATIONS_LOCK`,
and reads the ledger again inside it, so several processes opening one database at once apply
each step exactly once.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from .._time import utcnow
from ..errors import StorageError
from .dialect import statements
from .hidden import sync_hidden_shelves
from .pg_schema import (
    pg_create_hidden_shelves,
    pg_create_leases,
    pg_create_pinned_blocks,
    pg_create_refused_facts,
    pg_create_tables,
    pg_source_and_importance,
)
from .schema import FACTS_IMPORTANT_INDEX, PINNED_BLOCKS, REFUSED_FACTS, SCHEMA, SOURCE_AND_IMPORTANCE

__all__ = ["MIGRATIONS_LOCK", "MIGRATIONS_TABLE", "STORAGE", "Ledger", "Migration", "Migrations", "Transactional",
           "base_columns",
           "meta_is", "statements"]

logger = logging.getLogger(__name__)

MIGRATIONS_TABLE = "migrations"
"""The table recording which steps a store has applied: ``name``, ``applied_at`` (ISO-8601, UTC)."""

MIGRATIONS_LOCK = 0x6E6F76615F6D6967  # "nova_mig"
"""The advisory lock every migration transaction on Postgres holds (one database, many processes)."""

T = TypeVar("T")


class Transactional(Protocol):
    """What the runner needs of a database: reads, and a write transaction that yields an object
    with ``execute(sql, params)`` (``sqlite3.Connection``, a Postgres transaction ...). A database
    several processes migrate at once also offers ``exclusive(key)``, a transaction holding the
    lock ``key`` (the stores' :meth:`~.connection.Connection.exclusive`), which the runner then uses."""

    def query(self, sql: str, params: Sequence[Any] = ()) -> Sequence[Any]: ...

    def transaction(self) -> AbstractContextManager[Any]: ...


class Ledger:
    """The ``migrations`` table of one database (and its ``meta`` flags, for stores made before it).

    Args:
        db: the database (:class:`Transactional`).
        param: the placeholder of its driver (``?`` for sqlite3, ``%s`` for psycopg).
    """

    def __init__(self, db: Transactional, *, param: str = "?") -> None:
        self.db = db
        self.param = param

    def transaction(self) -> AbstractContextManager[Any]:
        """A transaction that runs alone among every migration of the database."""
        exclusive = getattr(self.db, "exclusive", None)
        return exclusive(MIGRATIONS_LOCK) if exclusive is not None else self.db.transaction()

    def create(self) -> None:
        """Create the table if it is missing (writes nothing when it exists)."""
        with self.transaction() as conn:
            conn.execute(f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (name TEXT PRIMARY KEY,"
                         " applied_at TEXT NOT NULL)")

    def exists(self) -> bool:
        """Whether the database has the table (a store made before it has not)."""
        try:
            self.db.query(f"SELECT name FROM {MIGRATIONS_TABLE} LIMIT 1")
        except Exception:  # the driver's "no such table" (any driver); a real fault shows at create()
            return False
        return True

    def applied(self) -> dict[str, str]:
        """The steps recorded so far: name -> when it was applied."""
        if not self.exists():
            return {}
        return {str(r[0]): str(r[1]) for r in self.db.query(f"SELECT name, applied_at FROM {MIGRATIONS_TABLE}")}

    def is_applied(self, conn: Any, name: str) -> bool:
        """Whether ``name`` is recorded, read through ``conn`` (inside the caller's transaction)."""
        sql = f"SELECT 1 FROM {MIGRATIONS_TABLE} WHERE name = {self.param}"
        return conn.execute(sql, (name,)).fetchone() is not None

    def record(self, conn: Any, name: str) -> None:
        """Record ``name`` as applied now, through ``conn`` (inside the caller's transaction)."""
        conn.execute(f"INSERT INTO {MIGRATIONS_TABLE} (name, applied_at) VALUES ({self.param}, {self.param})"
                     " ON CONFLICT (name) DO NOTHING", (name, utcnow().isoformat()))

    def meta(self, key: str) -> str | None:
        """A value of the ``meta`` table, ``None`` when it (or the table) is missing."""
        try:
            rows = self.db.query(f"SELECT value FROM meta WHERE key = {self.param}", [key])
        except Exception:  # no meta table (a fresh database), whatever the driver
            return None
        return str(rows[0][0]) if rows else None


def meta_is(key: str, value: str | None = None) -> Callable[[Ledger], bool]:
    """A ``ran_before`` test: the ``meta`` flag ``key`` is set (to ``value``, when given)."""

    def ran(ledger: Ledger) -> bool:
        found = ledger.meta(key)
        return found is not None and (value is None or found == value)

    return ran


@dataclass(frozen=True)
class Migration(Generic[T]):
    """One named step: ``run`` applies it; ``ran_before`` tells, from a store's older flags, that
    it already ran (then it is recorded without running); ``variants`` are its forms for other
    databases by dialect name (``postgres``), each applied and recorded under the same name."""

    name: str
    run: Callable[[T], None]
    ran_before: Callable[[Ledger], bool] | None = None
    variants: Mapping[str, Callable[[T], None]] = field(default_factory=dict)

    def runner(self, dialect: str) -> Callable[[T], None]:
        """The form of the step for ``dialect`` (``sqlite``: :attr:`run`)."""
        return self.variants.get(dialect, self.run)


class Migrations(Generic[T]):
    """An ordered registry of named steps.

    Args:
        label: what the steps are about, for messages (``storage``, ``engine``).
        atomic: each step receives the transaction's connection and runs in the transaction that
            records it; otherwise it receives the ``target`` given to :meth:`apply` and is recorded
            once it returns (it must be repeatable).
    """

    def __init__(self, label: str, *, atomic: bool) -> None:
        self.label = label
        self.atomic = atomic
        self._steps: list[Migration[T]] = []

    def __call__(self, *, ran_before: Callable[[Ledger], bool] | None = None, **variants: Callable[[T], None]
                 ) -> Callable[[Callable[[T], None]], Callable[[T], None]]:
        """Register the decorated function as the next step, named after it; ``variants`` are
        its forms for other dialects (``postgres=...``)."""

        def register(fn: Callable[[T], None]) -> Callable[[T], None]:
            if fn.__name__ in self.names():
                raise ValueError(f"a {self.label} migration is already named {fn.__name__!r}")
            self._steps.append(Migration(fn.__name__, fn, ran_before, dict(variants)))
            return fn

        return register

    def __iter__(self) -> Iterator[Migration[T]]:
        return iter(list(self._steps))

    def names(self) -> list[str]:
        """The steps' names, in the order they run."""
        return [step.name for step in self._steps]

    def pending(self, db: Transactional, *, param: str | None = None) -> list[str]:
        """The steps ``db`` has not recorded yet (read only)."""
        done = Ledger(db, param=param or str(getattr(db, "param", "?"))).applied()
        return [name for name in self.names() if name not in done]

    def apply(self, db: Transactional, target: T | None = None, *, param: str | None = None) -> list[str]:
        """Apply the steps ``db`` has not recorded, in order; returns the names recorded now.

        Writes nothing when every step is recorded already.

        Raises:
            StorageError: a step failed (the steps before it stay applied and recorded).
        """
        ledger = Ledger(db, param=param or str(getattr(db, "param", "?")))
        dialect = str(getattr(db, "dialect", "sqlite"))
        recorded = ledger.applied()
        todo = [step for step in self._steps if step.name not in recorded]
        if not todo:
            return []
        ledger.create()
        done: list[str] = []
        for step in todo:
            try:
                self._apply(ledger, step, target, dialect)
            except StorageError:
                raise
            except Exception as exc:
                raise StorageError(f"{self.label} migration {step.name!r} failed: {exc}") from exc
            done.append(step.name)
        return done

    def _apply(self, ledger: Ledger, step: Migration[T], target: T | None, dialect: str) -> None:
        run = step.runner(dialect)
        if step.ran_before is not None and step.ran_before(ledger):
            with ledger.transaction() as conn:
                ledger.record(conn, step.name)
            logger.info("nova-memory: %s migration %s had run before (recorded, not run again)", self.label,
                        step.name)
            return
        if self.atomic:
            with ledger.transaction() as conn:
                if not ledger.is_applied(conn, step.name):  # another connection may have just applied it
                    run(conn)
                    ledger.record(conn, step.name)
            return
        run(target)  # type: ignore[arg-type]
        with ledger.transaction() as conn:
            ledger.record(conn, step.name)


@functools.cache
def base_columns() -> dict[str, frozenset[str]]:
    """The columns of each table as :data:`~.schema.SCHEMA` (the first step) makes them: any other
    column of a live table was added by a later step, so a row written before may lack it."""
    conn = sqlite3.connect(":memory:")
    try:
        for sql in statements(SCHEMA):
            conn.execute(sql)
        tables = [str(r[0]) for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {t: frozenset(str(r[1]) for r in conn.execute(f"PRAGMA table_info({t})")) for t in tables}
    finally:
        conn.close()


STORAGE: Migrations[sqlite3.Connection] = Migrations("storage", atomic=True)
"""The storage steps, applied by :class:`~.sqlite.SQLiteStore` on open."""


@STORAGE(postgres=pg_create_tables)
def create_tables(conn: sqlite3.Connection) -> None:
    """The system of record's tables, indexes, full-text tables and triggers (:data:`~.schema.SCHEMA`).

    Every statement is ``IF NOT EXISTS``: on a store made before the ``migrations`` table it
    creates what that version lacked, as every open used to.
    """
    for sql in statements(SCHEMA):
        conn.execute(sql)


@STORAGE(postgres=pg_create_hidden_shelves)
def create_hidden_shelves(conn: sqlite3.Connection) -> None:
    """The shelves of hidden memories (``hidden_episodes``, ``hidden_facts``, ``hidden_rules``): the
    columns of their live table plus ``hidden_at`` (:func:`~.hidden.sync_hidden_shelves`)."""
    sync_hidden_shelves(conn)


@STORAGE(postgres=pg_source_and_importance)
def source_and_importance(conn: sqlite3.Connection) -> None:
    """Each turn and fact says whether it was asked for (``source``: ``explicit`` / ``inferred``), and
    facts get the ``importance`` turns had (:mod:`~nova_memory_integrations.memory.importance`); rows
    written before read as inferred, of the default importance. The index serves
    :meth:`~.fact_queries.FactQueries.important_facts`."""
    for table, column, definition in SOURCE_AND_IMPORTANCE:
        if column not in {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}:  # a store that lost
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")  # its ledger has them
    conn.execute(FACTS_IMPORTANT_INDEX)
    sync_hidden_shelves(conn)


@STORAGE(postgres=pg_create_pinned_blocks)
def create_pinned_blocks(conn: sqlite3.Connection) -> None:
    """Pinned blocks (:mod:`~.blocks`): named texts per user, each version kept (``valid_from`` /
    ``valid_to``), at most one current version per user and name."""
    for sql in statements(PINNED_BLOCKS):
        conn.execute(sql)


@STORAGE(postgres=pg_create_leases)
def create_leases(conn: sqlite3.Connection) -> None:
    """The leases of periodic jobs (:data:`~.pg_schema.PG_LEASES`), on Postgres only: many processes
    share that database, and one of them runs each period's lifecycle pass. Nothing on SQLite, whose
    one owner process runs every pass (:meth:`~.connection.Connection.try_lease`)."""


@STORAGE(postgres=pg_create_refused_facts)
def create_refused_facts(conn: sqlite3.Connection) -> None:
    """Facts a declared schema refused (:mod:`~.refusals`): which fact, the rule it broke, the episode
    it came from. Kept apart from ``dead_letters``, whose episodes wait unprocessed for a retry: a
    refused fact's episode is processed (its other facts stored), and the same value would be
    refused again."""
    for sql in statements(REFUSED_FACTS):
        conn.execute(sql)
