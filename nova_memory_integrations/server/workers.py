"""``nova-memory serve --workers N``: N server processes on one listening socket, each with its own
``NovaStore`` on one Postgres database.

uvicorn's own ``workers`` option needs the app as an import string and pickles its config into
each child, which the guarded protocol (:mod:`.protocol`, a class built per server) and the
store the app is built over do not allow. So this process binds the socket once and starts the
workers with multiprocessing's ``spawn`` (nothing inherited but the arguments and the socket):
each opens its store, builds the app (:func:`~.app.create_app`) and runs uvicorn on the shared
socket; the kernel hands each new connection to one of them. Each worker is a peer on the
database (issue #39: indexing claims, per-user locks and revisions, the lifecycle lease), so a
turn is stored and embedded once, whichever worker took the request.

An embedded store (SQLite + Chroma in a data directory) has one owner process:
:func:`check_workers` refuses ``--workers`` above 1 without a database URL.

The parent only supervises: SIGINT / SIGTERM stop the workers (uvicorn's graceful shutdown, then
each store's close), and if one worker exits on its own the others are stopped and the command
fails (exit 3), as a single server that cannot start does.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import ConfigError, needs_extra
from .settings import ServerConfig

if TYPE_CHECKING:
    from .. import NovaStore

__all__ = ["STOP_TIMEOUT_S", "check_workers", "run_worker", "serve_workers"]

logger = logging.getLogger("nova_memory_integrations.server")

STOP_TIMEOUT_S = 30.0
"""How long a worker has to finish its requests and close its store once told to stop (then it is killed)."""


def check_workers(workers: int, database_url: str | None) -> None:
    """Refuse several workers on an embedded store.

    Raises:
        ConfigError: ``workers`` below 1, or above 1 without a Postgres ``database_url``.
    """
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, not {workers}")
    if workers > 1 and database_url is None:
        raise ConfigError(
            f"--workers {workers} needs Postgres as the system of record: pass --database-url postgresql://... "
            "(or set NOVA_MEMORY_DATABASE_URL). An embedded store (SQLite + Chroma in the data directory) "
            "has one owner process, so it is served by one worker")


def serve_workers(open_store: Callable[[], NovaStore], database_url: str | None, config: ServerConfig, *,
                  workers: int, log_level: str = "info") -> None:
    """Serve with ``workers`` processes until interrupted (see the module docstring).

    ``open_store`` opens each worker's store on ``database_url``, in the worker: a module-level
    function (or a ``functools.partial`` of one), since spawn pickles it by name (the server never
    imports the facade; its opener, the CLI, does).

    Raises:
        SystemExit: 3, when a worker stopped on its own (it could not open its store, or bind).
    """
    with needs_extra("server"):
        import uvicorn

    check_workers(workers, database_url)
    config.check_bind()
    sock = uvicorn.Config(app="", host=config.host, port=config.port, log_level=log_level).bind_socket()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=run_worker, args=(open_store, config, log_level, sock),
                         name=f"nova-memory-worker-{n}") for n in range(workers)]
    stop = threading.Event()

    def on_signal(signum: int, frame: Any) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for p in procs:
            p.start()
        logger.info("nova-memory: %d workers (pids %s) on %s:%d", workers, ", ".join(str(p.pid) for p in procs),
                    config.host, config.port)
        while not stop.is_set() and all(p.is_alive() for p in procs):
            stop.wait(0.5)
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()  # SIGTERM: uvicorn's graceful shutdown, then the store closes
        for p in procs:
            p.join(STOP_TIMEOUT_S)
            if p.is_alive():
                p.kill()
                p.join()
        sock.close()
        for s, handler in previous.items():
            signal.signal(s, handler)
    if not stop.is_set():
        died = [f"{p.name} (exit {p.exitcode})" for p in procs if p.exitcode not in (0, -signal.SIGTERM)]
        logger.error("nova-memory: a worker stopped on its own: %s; the server stopped", ", ".join(died) or "?")
        raise SystemExit(3)


def run_worker(open_store: Callable[[], NovaStore], config: ServerConfig, log_level: str, sock: Any) -> None:
    """One worker (the target of each spawned process): its own store on the database, the app, and
    uvicorn on the shared socket, until SIGTERM."""
    with needs_extra("server"):
        import uvicorn

    from .app import create_app
    from .protocol import uvicorn_config

    store = open_store()
    try:
        server = uvicorn.Server(uvicorn_config(create_app(store, config), config, log_level=log_level))
        server.run(sockets=[sock])
    finally:
        store.close()
    if not server.started:
        raise SystemExit(3)
    logger.info("nova-memory: worker %d stopped", os.getpid())
