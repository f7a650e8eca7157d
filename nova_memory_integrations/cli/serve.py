"""``nova-memory serve`` (proxy, REST and MCP over HTTP) and ``nova-memory mcp`` (MCP over stdio).

Both need the ``server`` extra: ``pip install "nova-memory-integrations[server]"``.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Annotated

import typer

from ..config import database_url as database_url_of
from ..config import default_home, load_config
from ..errors import MissingExtraError, needs_extra
from ..server.settings import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    ENV_ALLOWED_HOSTS,
    ENV_API_KEYS,
    ENV_UPSTREAM,
    LOG_LEVELS,
    ServerConfig,
)
from ._common import DatabaseOpt, PathOpt, choice, session

if TYPE_CHECKING:
    from ..store import NovaStore

__all__ = ["mcp_cmd", "serve_cmd"]



def _need_server_extra() -> None:
    try:
        with needs_extra("server"):
            import fastapi  # noqa: F401
            import httpx  # noqa: F401
            import mcp  # noqa: F401
            import uvicorn  # noqa: F401
    except MissingExtraError as exc:
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(1) from None


def serve_cmd(
    ctx: typer.Context,
    upstream: Annotated[str | None, typer.Option(
        help=f"Base URL of the OpenAI-compatible upstream, e.g. https://api.openai.com/v1 (or ${ENV_UPSTREAM}).")
    ] = None,
    host: Annotated[str, typer.Option(help="Address to bind; not loopback: needs --api-key.")] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(min=1, max=65535)] = DEFAULT_PORT,
    api_key: Annotated[list[str] | None, typer.Option(
        "--api-key", help=f"A key clients send as X-Nova-Key; KEY=USER pins it to one user (repeatable). Prefer "
                          f"${ENV_API_KEYS} (comma-separated): a key on the command line shows in `ps` to every "
                          "local user.")] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        "--allowed-host", help=f"A host name clients may use besides localhost / 127.0.0.1 / [::1], any port; "
                               f"*.domain allowed (repeatable; or ${ENV_ALLOWED_HOSTS}). Other names get a 421 "
                               "on a server without keys (DNS rebinding).")] = None,
    budget_tokens: Annotated[int | None, typer.Option(min=1, help="Token budget of injected memory.")] = None,
    max_body_bytes: Annotated[int, typer.Option(min=1, help="Largest request body.")] = ServerConfig.max_body_bytes,
    max_message_chars: Annotated[int, typer.Option(min=1, help="Largest chat message.")] = (
        ServerConfig.max_message_chars),
    upstream_timeout: Annotated[float, typer.Option(
        min=0.1, help="Seconds to wait for the upstream's next byte (first byte included): 504 or a cut stream "
                      "after that.")] = ServerConfig.upstream_timeout,
    max_header_bytes: Annotated[int, typer.Option(min=1024, help="Largest request head (431 above).")] = (
        ServerConfig.max_header_bytes),
    max_headers: Annotated[int, typer.Option(min=1, help="Most header fields (431 above).")] = (
        ServerConfig.max_headers),
    header_timeout: Annotated[float, typer.Option(
        min=0.1, help="Seconds a connection has to send a complete request head, idle time included "
                      "(then it is closed).")] = ServerConfig.header_timeout,
    body_timeout: Annotated[float, typer.Option(
        min=0.1, help="Seconds a request body has to arrive in full (408 after).")] = ServerConfig.body_timeout,
    max_connections: Annotated[int, typer.Option(
        min=1, help="Most open connections (a 503 past it).")] = ServerConfig.max_connections,
    no_mcp: Annotated[bool, typer.Option("--no-mcp", help="Do not mount MCP at /mcp.")] = False,
    log_level: Annotated[str, typer.Option(callback=choice(LOG_LEVELS), help=", ".join(LOG_LEVELS))] = "info",
    workers: Annotated[int, typer.Option(
        min=1, help="Server processes on the one port, each with its own store on the database: needs"
                    " --database-url (an embedded store has one owner process).")] = 1,
    path: PathOpt = None,
    database_url: DatabaseOpt = None,
) -> None:
    """Serve memory over HTTP: OpenAI-compatible proxy, REST API (/docs) and MCP (/mcp)."""
    _need_server_extra()
    from ..server.app import serve
    from ..server.workers import serve_workers

    if api_key:
        typer.echo(f"Warning: --api-key shows the key in the process list (ps) to every local user; set "
                   f"{ENV_API_KEYS} instead (no warning then).", err=True)
    with session(ctx, path, False, database_url=database_url) as s:
        config = ServerConfig.from_env(upstream=upstream, api_keys=api_key or (), allowed_hosts=allowed_host or (),
                                       host=host, port=port, budget_tokens=budget_tokens,
                                       max_body_bytes=max_body_bytes, max_message_chars=max_message_chars,
                                       upstream_timeout=upstream_timeout, max_header_bytes=max_header_bytes,
                                       max_headers=max_headers, header_timeout=header_timeout,
                                       body_timeout=body_timeout, max_connections=max_connections, mcp=not no_mcp)
        if workers > 1:  # the workers open their own stores; this process only supervises them
            home = path or default_home()
            url = database_url_of(database_url, load_config(None, home))
            serve_workers(partial(_open_store, str(home), url), url, config, workers=workers, log_level=log_level)
            return
        serve(s.store, config, log_level=log_level)


def _open_store(path: str, database_url: str | None) -> NovaStore:
    """A worker's store (``serve --workers``): opened in the worker, on the shared database."""
    from ..store import NovaStore

    return NovaStore(path, database_url=database_url)


def mcp_cmd(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option("--user", "-u", help="Pin every tool call to this user.")] = None,
    path: PathOpt = None,
) -> None:
    """Serve the memory tools over MCP on stdio (for Claude Desktop, IDEs and agent hosts)."""
    _need_server_extra()
    from ..server.mcp_server import build_mcp

    with session(ctx, path, False) as s:
        build_mcp(s.store, pinned_user=user).run("stdio")
