"""The first checks every HTTP request meets, before routing and before any key check.

:class:`RequestGuard` is the outermost ASGI layer of the app:

- **Host** (DNS rebinding): a web page can point its own name at 127.0.0.1 and then read
  this server as same-origin. A request must name a loopback host (``localhost``,
  ``127.x``, ``[::1]``, any port) or one of ``allowed_hosts``; a server with API keys and
  no ``allowed_hosts`` accepts any name. Otherwise: **421 Misdirected Request**, the
  status for "this server does not serve that authority" (it is not about who the
  caller is, so not 403; the MCP SDK answers the same).
- **Origin**: on a server without keys, a browser request from a page whose origin is
  not an allowed host gets a **403** (a cross-site request, which no key stops either).
- **Content-Type**: a request with a body must say ``application/json`` (or
  ``application/*+json``): **415** otherwise. A browser sends a ``text/plain`` (or
  type-less) POST cross-site without a CORS preflight; JSON needs one, which this
  server never grants.
- **Header count**: more than ``max_headers`` fields is a **431** (the head's size is
  bounded earlier, while it is read: :mod:`.protocol`).
- **Body deadline**: a body that has not arrived in full ``body_timeout`` seconds after
  the head gets a **408** (and the connection is closed).

Every refusal is a JSON error in OpenAI's shape.
"""

from __future__ import annotations

import time

from ..errors import needs_extra
from .auth import error_response
from .settings import ServerConfig, host_name

with needs_extra("server"):
    import anyio
    from starlette.exceptions import HTTPException as StarletteHTTPException
    from starlette.responses import JSONResponse
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["RequestGuard", "json_media_type"]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


def json_media_type(value: str | None) -> bool:
    """Whether a ``Content-Type`` value is JSON (``application/json``, ``application/x+json``)."""
    if not value:
        return False
    media = value.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


def _origin_host(origin: str) -> str | None:
    scheme, sep, rest = origin.strip().partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return None
    return host_name(rest.split("/", 1)[0])


class RequestGuard:
    """Pure ASGI guard: Host, Origin, Content-Type, header count and the body deadline."""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, self._timed(receive), send)

    def _refusal(self, scope: Scope) -> JSONResponse | None:
        raw = scope["headers"]
        if len(raw) > self.config.max_headers:
            return error_response(431, f"the request has more than {self.config.max_headers} header fields",
                                  code="headers_too_large", headers={"Connection": "close"})
        headers: dict[bytes, bytes] = {}
        for name, value in raw:
            headers.setdefault(name, value)
        host = host_name(headers.get(b"host", b"").decode("latin-1"))
        if host is None or not self.config.host_allowed(host):
            return error_response(
                421, "this server does not serve that host name: use localhost or 127.0.0.1, or allow the "
                     "name with --allowed-host (NOVA_MEMORY_ALLOWED_HOSTS)", code="host_not_allowed")
        origin = headers.get(b"origin")
        if origin is not None and not self.config.api_keys:
            named = _origin_host(origin.decode("latin-1"))
            if named is None or not self.config.host_allowed(named):
                return error_response(403, "cross-origin requests are refused by a server without API keys "
                                           "(allow the page's host with --allowed-host)",
                                      type="permission_error", code="origin_not_allowed")
        if scope["method"] in _BODY_METHODS and _has_body(headers) \
                and not json_media_type(headers.get(b"content-type", b"").decode("latin-1")):
            return error_response(415, "the request body must be JSON, sent with Content-Type: application/json",
                                  code="unsupported_media_type")
        return None

    def _timed(self, receive: Receive) -> Receive:
        """``receive`` with a deadline on the body: a 408 when it is not in by ``body_timeout``."""
        deadline = time.monotonic() + self.config.body_timeout
        done = False

        async def timed() -> Message:
            nonlocal done
            if done:
                return await receive()
            with anyio.move_on_after(max(0.0, deadline - time.monotonic())):
                message = await receive()
                if message["type"] != "http.request" or not message.get("more_body", False):
                    done = True
                return message
            raise StarletteHTTPException(408, f"the request body did not arrive within {self.config.body_timeout:g} "
                                              "seconds", headers={"Connection": "close"})

        return timed


def _has_body(headers: dict[bytes, bytes]) -> bool:
    length = headers.get(b"content-length")
    if length is not None:
        return length.strip() not in (b"0", b"")
    return b"transfer-encoding" in headers
