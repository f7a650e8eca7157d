"""uvicorn's HTTP/1.1 protocol with the limits a server facing untrusted clients needs.

Plain uvicorn reads a request head of any size (httptools: a 100 MB header is parsed
while every other client waits), keeps a connection that sends nothing open forever
(its keep-alive timer only starts after a first response, and any byte cancels it), and
accepts connections until the process runs out of descriptors. ``limit_concurrency``
does not help: it counts idle connections in its cap, so a few hundred silent sockets
turn every real request into a 503, and connections past the cap are still accepted
and kept. The protocol here, used by :func:`uvicorn_config` (so by ``nova-memory
serve``), adds at the connection level, before the app or any key check:

- a bound on the request head (``max_header_bytes``): past it a **431** and the
  connection closes (httptools: counted as bytes arrive; h11: its own
  ``max_incomplete_event_size``);
- a **header deadline** (``header_timeout``): a connection must deliver a complete
  request head within that time of opening, or of its previous response ending; idle
  time and a head sent a byte at a time count alike. Then it closes (a **408** first
  when part of a head came);
- a **connection cap** (``max_connections``): a connection past it gets a **503** and is
  closed at once, so no descriptor stays held.

The header count and the body deadline are checked by :class:`.guard.RequestGuard`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from ..errors import needs_extra

with needs_extra("server"):
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

if TYPE_CHECKING:
    import uvicorn

    from .settings import ServerConfig

__all__ = ["guarded_protocol", "uvicorn_config"]

logger = logging.getLogger("nova_memory_integrations.server")

_REASONS = {408: "Request Timeout", 431: "Request Header Fields Too Large", 503: "Service Unavailable"}
_TYPES = {408: "invalid_request_error", 431: "invalid_request_error", 503: "server_error"}
_WARN_EVERY_S = 60.0
_LINGER_S = 1.0


def _raw_response(status: int, message: str, code: str) -> bytes:
    """A complete HTTP/1.1 error response in OpenAI's error shape, closing the connection."""
    body = json.dumps({"error": {"message": message, "type": _TYPES[status], "param": None, "code": code}}).encode()
    head = (f"HTTP/1.1 {status} {_REASONS[status]}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n")
    if status == 503:
        head += "retry-after: 1\r\n"
    return head.encode("ascii") + b"\r\n" + body


class _Guard:
    """The limits, over either of uvicorn's HTTP/1.1 protocols (mixed in before it)."""

    settings: ServerConfig  # set on the class by :func:`guarded_protocol`
    _last_cap_warning = 0.0
    transport: asyncio.Transport
    connections: set[Any]
    cycle: Any
    loop: asyncio.AbstractEventLoop

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        self._in_head = True  # waiting for (the rest of) a request head
        self._head_bytes = 0
        self._head_started = False
        self._head_done_in_chunk = False
        self._refused = False
        super().connection_made(transport)  # type: ignore[misc]
        if len(self.connections) > self.settings.max_connections:
            self._warn_cap()
            self._refuse(503, f"the server has {self.settings.max_connections} connections open, its limit "
                              "(--max-connections); retry shortly", "too_many_connections")
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)  # type: ignore[misc]

    def data_received(self, data: bytes) -> None:
        if self._refused or self.transport.is_closing():
            return  # refused or timed out: nothing more is parsed
        if self._in_head and data:
            self._head_started = True
        was_in_head = self._in_head
        self._head_done_in_chunk = False
        before = self.cycle
        super().data_received(data)  # type: ignore[misc]
        self._after_parse(before)
        if not self._counts_head_bytes or self._refused or self.transport.is_closing():
            return
        if self._in_head and was_in_head and not self._head_done_in_chunk:
            self._head_bytes += len(data)  # the whole chunk is part of one unfinished head
            if self._head_bytes > self.settings.max_header_bytes:
                self._refuse(431, f"the request head is over the {self.settings.max_header_bytes}-byte limit",
                             "headers_too_large")

    def on_response_complete(self) -> None:
        before = self.cycle
        super().on_response_complete()  # type: ignore[misc]
        self._after_parse(before)  # a pipelined request may have been parsed
        if not self._refused and not self.transport.is_closing() \
                and (self.cycle is None or self.cycle.response_complete):
            self._head_started = False
            self._arm()  # the next head (or the rest of an unread body) must come in time

    # -- head state (called by the parser adapters) --------------------------------------------
    _counts_head_bytes = True

    def _after_parse(self, before: Any) -> None:
        """After the parser ran: note what it completed (for parsers without callbacks)."""

    def _head_complete(self) -> None:
        self._in_head = False
        self._head_bytes = 0
        self._head_done_in_chunk = True
        self._disarm()

    def _message_complete(self) -> None:
        self._in_head = True
        self._head_started = False

    # -- refusals -------------------------------------------------------------------------------
    def _refuse(self, status: int, message: str, code: str) -> None:
        """Answer ``status`` and end the connection: our side is shut at once, and what the client
        still sends is read and dropped for a moment before closing (closing on unread data would
        reset the connection and could destroy the answer before the client reads it)."""
        self._disarm()
        if self._refused or self.transport.is_closing():
            return
        self._refused = True
        self.transport.write(_raw_response(status, message, code))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(_LINGER_S, self.transport.close)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.settings.header_timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self._refused or self.transport.is_closing():
            return
        if self._head_started:
            self._refuse(408, f"the request head did not arrive within {self.settings.header_timeout:g} seconds "
                              "(--header-timeout)", "request_timeout")
        else:
            self.transport.close()  # idle: nothing to answer

    @classmethod
    def _warn_cap(cls) -> None:
        now = time.monotonic()
        if now - _Guard._last_cap_warning >= _WARN_EVERY_S:
            _Guard._last_cap_warning = now
            logger.warning("nova-memory server: %d connections open, new ones get a 503 (at most one such "
                           "warning a minute; raise --max-connections to allow more)", cls.settings.max_connections)


class GuardedH11Protocol(_Guard, H11Protocol):  # type: ignore[misc]
    """h11 (pure Python): the head size is bounded by h11 itself (``max_incomplete_event_size``)."""

    _counts_head_bytes = False

    def _after_parse(self, before: Any) -> None:
        if self.cycle is not before:  # a head was parsed into a new request cycle
            self._head_complete()
        if self.conn.their_state is h11.IDLE and not self._in_head:
            self._message_complete()

    def send_400_response(self, msg: str) -> None:
        if len(self.conn.trailing_data[0]) >= self.settings.max_header_bytes:
            self._refuse(431, f"the request head is over the {self.settings.max_header_bytes}-byte limit",
                         "headers_too_large")
            return
        super().send_400_response(msg)


def _httptools_protocol() -> type[Any] | None:
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools is not installed: uvicorn itself would use h11
        return None

    class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):  # type: ignore[misc, valid-type]
        """httptools (C): the head's bytes are counted as they arrive (the parser keeps a
        partial header value without telling)."""

        def on_headers_complete(self) -> None:
            self._head_complete()
            super().on_headers_complete()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._message_complete()

    return GuardedHttpToolsProtocol


def guarded_protocol(settings: ServerConfig, parser: str = "auto") -> type[Any]:
    """The guarded protocol class for ``settings``: over httptools (``auto``: when installed, as
    uvicorn chooses) or h11."""
    if parser not in ("auto", "httptools", "h11"):
        raise ValueError(f"parser must be auto, httptools or h11, not {parser!r}")
    base = None if parser == "h11" else _httptools_protocol()
    if base is None and parser == "httptools":
        raise ImportError("httptools is not installed")
    base = base or GuardedH11Protocol
    return type(base.__name__, (base,), {"settings": settings})


def uvicorn_config(app: Any, settings: ServerConfig, *, parser: str = "auto", **kw: Any) -> uvicorn.Config:
    """The ``uvicorn.Config`` of ``nova-memory serve`` for ``app``: the guarded protocol and its limits."""
    with needs_extra("server"):
        import uvicorn

    return uvicorn.Config(app, host=settings.host, port=settings.port, http=guarded_protocol(settings, parser),
                          h11_max_incomplete_event_size=settings.max_header_bytes, proxy_headers=False,
                          server_header=False, **kw)
