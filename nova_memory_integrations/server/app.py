"""The ASGI app of ``nova-memory serve``: proxy, REST, MCP, the inspector (/ui) and health over one store.

One ``NovaStore`` per server process (the caller opens and closes it); uvicorn serves
the app. :func:`create_app` builds it, :func:`serve` runs it.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..errors import NovaMemoryError, needs_extra
from .auth import ApiError, error_response, store_error
from .guard import RequestGuard
from .proxy import MemoryProxy
from .rest import router
from .settings import ServerConfig
from .ui import UiSessions, ui_router

with needs_extra("server"):
    import anyio
    from fastapi import FastAPI, Request
    from fastapi.encoders import jsonable_encoder
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException as StarletteHTTPException
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from .. import NovaStore

__all__ = ["BodyLimit", "create_app", "serve"]

logger = logging.getLogger("nova_memory_integrations.server")


class BodyLimit:
    """Pure ASGI guard: request bodies over ``limit`` bytes get a 413 (declared or counted)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await self._too_large()(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise StarletteHTTPException(413, f"request body over the {self.limit}-byte limit")
            return message

        await self.app(scope, counted, send)

    def _too_large(self) -> JSONResponse:
        return error_response(413, f"request body over the {self.limit}-byte limit", code="request_too_large")


def create_app(store: NovaStore, config: ServerConfig | None = None) -> FastAPI:
    """The server's ASGI app over ``store`` (not closed by the app: its opener closes it)."""
    config = config or ServerConfig()
    proxy = MemoryProxy(store, config)
    mcp_server = None
    if config.mcp:
        from .mcp_server import build_mcp

        mcp_server = build_mcp(store, keys=config.api_keys)
        mcp_server.streamable_http_app(host=config.host, max_request_body_size=config.max_body_bytes,
                                       transport_security=_mcp_security(config))

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            await proxy.start()
            stack.push_async_callback(proxy.aclose)
            if mcp_server is not None:
                await stack.enter_async_context(mcp_server.session_manager.run())
            yield

    app = FastAPI(title="nova-memory", version=__version__, lifespan=lifespan,
                  description="Long-term memory as a service: an OpenAI-compatible memory proxy, a REST API "
                              "under /v1/memory, MCP at /mcp and a memory inspector at /ui.")
    app.state.store = store
    app.state.config = config
    app.state.proxy = proxy
    app.state.ui_sessions = UiSessions()
    app.add_middleware(BodyLimit, limit=config.max_body_bytes)
    app.add_middleware(RequestGuard, config=config)  # added last: the outermost layer, before any key check
    _handlers(app)

    @app.post("/v1/chat/completions", tags=["proxy"], summary="OpenAI chat completions, with memory")
    async def chat_completions(request: Request) -> Response:
        return await proxy.chat_completions(request)

    @app.get("/v1/models", tags=["proxy"], summary="The upstream's models (pass-through)")
    async def models(request: Request) -> Response:
        return await proxy.models(request)

    @app.get("/health", tags=["health"], summary="Store, index and upstream status")
    async def health() -> JSONResponse:
        return await _health(store, proxy)

    app.include_router(router)
    app.include_router(ui_router)
    if mcp_server is not None:
        with needs_extra("server"):
            from mcp.server.streamable_http_manager import StreamableHTTPASGIApp

        from .mcp_server import McpAuth

        endpoint = McpAuth(StreamableHTTPASGIApp(mcp_server.session_manager), config.api_keys)
        app.router.routes.append(Route("/mcp", endpoint=endpoint, include_in_schema=False))
    return app


def _mcp_security(config: ServerConfig) -> Any:
    """The MCP SDK's own Host / Origin check is off: :class:`RequestGuard` applies the same rules to
    every route, /mcp included, with the configured names (the SDK matches exact names only)."""
    with needs_extra("server"):
        from mcp.server.transport_security import TransportSecuritySettings

    return TransportSecuritySettings(enable_dns_rebinding_protection=False)


async def _health(store: NovaStore, proxy: MemoryProxy) -> JSONResponse:
    report: dict[str, Any] = {}
    try:
        stats = await anyio.to_thread.run_sync(store.stats)
        report["store"] = {"ok": True}
        report["index"] = {"ok": True, "pending": stats["pending_index"]}
    except Exception as exc:
        report["store"] = {"ok": False, "error": type(exc).__name__}
        report["index"] = {"ok": False, "error": type(exc).__name__}
    report["upstream"] = await proxy.upstream_health()
    healthy = all(part["ok"] for part in report.values())
    report["status"] = "ok" if healthy else "degraded"
    return JSONResponse(report, status_code=200 if report["store"]["ok"] else 503)


def _handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(NovaMemoryError)
    async def memory_error(request: Request, exc: NovaMemoryError) -> JSONResponse:
        return store_error(exc).response()

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {413: "request_too_large", 408: "request_timeout"}.get(exc.status_code)
        return error_response(exc.status_code, str(exc.detail), code=code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return error_response(400, "the request body is not valid JSON", code="invalid_json")
        first = errors[0] if errors else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or None
        message = f"{where}: {first.get('msg', 'invalid')}" if where else str(first.get("msg", "invalid request"))
        return error_response(422, message, type="RequestValidationError", param=where,
                              extra={"detail": jsonable_encoder(errors, exclude={"input", "ctx", "url"})})


def serve(store: NovaStore, config: ServerConfig, *, log_level: str = "info") -> None:
    """Run the server until interrupted (uvicorn; the root logger is left alone)."""
    with needs_extra("server"):
        import uvicorn

    from .protocol import uvicorn_config

    config.check_bind()
    app = create_app(store, config)
    server = uvicorn.Server(uvicorn_config(app, config, log_level=log_level))
    try:
        server.run()
    except KeyboardInterrupt:  # pragma: no cover - as uvicorn.run
        pass
    if not server.started:  # e.g. the port is taken: uvicorn has logged why
        raise SystemExit(3)
