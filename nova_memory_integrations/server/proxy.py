"""The OpenAI-compatible memory proxy: recall into the system message, capture the exchange.

``POST /v1/chat/completions`` is forwarded to the configured upstream. Before: the memory
context of the user for the latest user message (within the token budget) goes into the
system message, in its own ``<nova-memory>`` section. After: the user message and the
assistant reply are recorded as turns of that user and session. A streamed reply is
passed to the client chunk by chunk while a tee (:class:`.sse.SSEAssembler`) reassembles
it; it is captured when the stream ends, marked ``incomplete`` when the client left early
or the stream was cut.

Fail open: a recall or capture failure logs one warning and the request goes upstream
unchanged. Upstream errors reach the client with their status and body. The client's
``Authorization`` is forwarded upstream and never stored or logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from opentelemetry.trace import SpanKind

from .. import _tracing
from ..engine.validation import printable
from ..errors import needs_extra
from .auth import SESSION_HEADER, USER_HEADER, ApiError, authenticate, resolve_user
from .messages import inject_memory, latest_user_text, longest_message, reply_text
from .settings import ServerConfig
from .sse import SSEAssembler

with needs_extra("server"):
    import anyio
    import httpx
    from starlette.requests import ClientDisconnect, Request
    from starlette.responses import Response, StreamingResponse
    from starlette.types import Receive, Scope, Send

if TYPE_CHECKING:
    from .. import NovaStore

__all__ = ["MemoryProxy", "read_body", "warn"]

logger = logging.getLogger("nova_memory_integrations.server")

_HOP_BY_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
                         "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding", "cookie",
                         "proxy-connection"})
_RESPONSE_DROP = frozenset({"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding",
                            "set-cookie", "server", "date"})
SOURCE = "nova-memory-proxy"
T = TypeVar("T")


def warn(what: str, exc: BaseException, consequence: str) -> None:
    """One single-line warning (no traceback, no request data beyond the error's own text)."""
    detail = " ".join(printable(str(exc)).split())[:300]
    logger.warning("nova-memory server: %s failed (%s%s); %s", what, type(exc).__name__,
                   f": {detail}" if detail else "", consequence)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused with 413 above ``limit`` bytes (counted while reading)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise ApiError(413, f"request body over the {limit}-byte limit", code="request_too_large")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, f"request body over the {limit}-byte limit", code="request_too_large")
            chunks.append(chunk)
    except ClientDisconnect:
        raise ApiError(400, "the client disconnected while sending the body", code="client_disconnect") from None
    return b"".join(chunks)


def parse_json_object(raw: bytes) -> dict[str, Any]:
    """A JSON object, or a 400 in OpenAI's shape."""
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, "the request body is not valid JSON", code="invalid_json") from None
    except RecursionError:
        raise _too_deep() from None
    if not isinstance(body, dict):
        raise ApiError(400, "the request body must be a JSON object", code="invalid_json")
    return body


def _too_deep() -> ApiError:
    return ApiError(400, "the request body is JSON nested too deeply", code="invalid_json")


@dataclass(frozen=True)
class Exchange:
    """One proxied request that has a user: what to capture once the reply is known."""

    user_id: str
    session_id: str | None
    user_text: str
    received_at: datetime
    model: str | None
    trace: Any = field(default=None, compare=False)
    """The OpenTelemetry context of the request, so that the capture's span, on the capture thread,
    nests under the request's (``_tracing.snapshot``)."""


class MemoryProxy:
    """The proxy routes over one store, one upstream HTTP client and one capture thread."""

    def __init__(self, store: NovaStore, config: ServerConfig) -> None:
        self.store = store
        self.config = config
        self._client: httpx.AsyncClient | None = None
        # One worker: captures are SQLite inserts, kept in arrival order and off the event loop.
        self._captures = ThreadPoolExecutor(max_workers=1, thread_name_prefix="nova-memory-capture")

    # -- lifecycle ----------------------------------------------------------------------------
    async def start(self) -> None:
        timeout = httpx.Timeout(self.config.upstream_timeout, connect=10.0)
        self._client = httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False,
                                         limits=httpx.Limits(max_connections=256, max_keepalive_connections=64))

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None
        await anyio.to_thread.run_sync(partial(self._captures.shutdown, wait=True))

    @property
    def client(self) -> httpx.AsyncClient:
        if self._client is None:
            raise ApiError(503, "the server is not started")
        return self._client

    def _url(self, path: str) -> str:
        if self.config.upstream is None:
            raise ApiError(503, "no upstream is configured (nova-memory serve --upstream URL)",
                           code="no_upstream")
        return f"{self.config.upstream}/{path}"

    # -- routes -------------------------------------------------------------------------------
    async def chat_completions(self, request: Request) -> Response:
        principal = authenticate(request.headers, self.config.api_keys, bearer=False)
        raw = await read_body(request, self.config.max_body_bytes)
        body = parse_json_object(raw)
        messages = body.get("messages")
        if not isinstance(messages, list):
            raise ApiError(400, "'messages' must be an array of messages", param="messages")
        try:
            longest = longest_message(messages)
        except RecursionError:  # a body just shallow enough to parse, too deep to measure
            raise _too_deep() from None
        if longest > self.config.max_message_chars:
            raise ApiError(413, f"a message is over the {self.config.max_message_chars}-character limit",
                           param="messages", code="message_too_large")
        user = resolve_user(principal, request.headers.get(USER_HEADER), body.get("user"))
        url = self._url("chat/completions")
        with _tracing.span("nova_memory.proxy.chat", lambda: {_tracing.USER_ID: user or ""}, kind=SpanKind.SERVER):
            exchange = self._exchange(user, request.headers.get(SESSION_HEADER), messages, body.get("model"))
            content = raw
            if exchange is not None:
                memory = await self._recall(exchange)
                if memory:
                    try:
                        content = json.dumps({**body, "messages": inject_memory(messages, memory)},
                                             ensure_ascii=False).encode("utf-8")
                    except RecursionError:
                        raise _too_deep() from None
            model = body.get("model")
            with _tracing.span(f"chat {model}" if isinstance(model, str) else "chat", lambda: _chat_attributes(
                    self.config.upstream, model, body.get("stream") is True), kind=SpanKind.CLIENT) as call:
                upstream = await self._until_disconnect(request, self._send("POST", url, request.headers, content))
                if upstream is not None and call.is_recording():
                    call.set_attribute("http.response.status_code", upstream.status_code)
        if upstream is None:  # the client left before the upstream answered: the upstream call is dropped
            self._left_early(exchange)
            return Response(status_code=499)
        if body.get("stream") is True and upstream.is_success:
            tee = _Tee(self, upstream, exchange)
            return _TeeResponse(tee, status_code=upstream.status_code, headers=_response_headers(upstream.headers))
        try:
            data = await self._until_disconnect(request, upstream.aread())
        except httpx.TimeoutException:
            raise ApiError(504, "the upstream stopped answering in time", type="upstream_error",
                           code="upstream_timeout") from None
        except httpx.HTTPError as exc:
            raise ApiError(502, f"the upstream failed while answering ({type(exc).__name__})",
                           code="upstream_error") from None
        finally:
            with anyio.CancelScope(shield=True):
                await upstream.aclose()
        if data is None:
            self._left_early(exchange)
            return Response(status_code=499)
        if upstream.is_success:
            reply = _json_reply(data)
            if reply is None:  # a success status with a body that is no JSON object: nothing to pass on as a reply
                warn("the upstream reply", ValueError("a success status with a body that is not a JSON object"),
                     "the client gets a 502 and only the user message is captured, marked incomplete")
                self._left_early(exchange)
                raise ApiError(502, f"the upstream answered {upstream.status_code} with a body that is not "
                                    "a JSON object", code="upstream_invalid_response")
            if exchange is not None:
                await asyncio.wrap_future(self._submit(exchange, reply, incomplete=False))
        return Response(data, status_code=upstream.status_code, headers=_response_headers(upstream.headers))

    async def models(self, request: Request) -> Response:
        authenticate(request.headers, self.config.api_keys, bearer=False)
        upstream = await self._send("GET", self._url("models"), request.headers, None)
        try:
            data = await upstream.aread()
        finally:
            await upstream.aclose()
        return Response(data, status_code=upstream.status_code, headers=_response_headers(upstream.headers))

    async def upstream_health(self) -> dict[str, Any]:
        """Whether the upstream answers at all (any HTTP status below 500 counts as reachable)."""
        if self.config.upstream is None:
            return {"ok": True, "configured": False}
        try:
            resp = await self.client.get(self._url("models"), timeout=3.0)
        except (httpx.HTTPError, ApiError) as exc:
            return {"ok": False, "configured": True, "error": type(exc).__name__}
        return {"ok": resp.status_code < 500, "configured": True, "status": resp.status_code}

    # -- memory -------------------------------------------------------------------------------
    def _exchange(self, user: str | None, session: str | None, messages: list[Any], model: object) -> Exchange | None:
        if user is None:
            return None  # no user, no memory: a plain pass-through, never a shared bucket
        text = latest_user_text(messages)
        if not text:
            return None
        return Exchange(user, session or None, text, datetime.now(timezone.utc),
                        model[:200] if isinstance(model, str) else None, _tracing.snapshot())

    async def _recall(self, exchange: Exchange) -> str:
        limit = self.store.config.limits.max_content_chars
        try:
            result = await anyio.to_thread.run_sync(partial(
                self.store.context, exchange.user_text[:limit], exchange.user_id,
                budget_tokens=self.config.budget_tokens))
        except Exception as exc:
            warn("memory recall", exc, "the request goes upstream without memory")
            return ""
        return str(result.text)

    def _submit(self, exchange: Exchange, reply: str, *, incomplete: bool) -> Future[None]:
        try:
            return self._captures.submit(self._capture, exchange, reply, incomplete)
        except RuntimeError as exc:  # executor shut down: the server is stopping
            warn("memory capture", exc, "this exchange is not recorded")
            done: Future[None] = Future()
            done.set_result(None)
            return done

    def _capture(self, exchange: Exchange, reply: str, incomplete: bool) -> None:
        limit = self.store.config.limits.max_content_chars
        meta: dict[str, Any] = {"source": SOURCE}
        if exchange.model:
            meta["model"] = exchange.model
        if incomplete:
            meta["incomplete"] = True
        turns = [_turn(exchange, "user", exchange.user_text, limit, meta, exchange.received_at)]
        if reply.strip():
            turns.append(_turn(exchange, "assistant", reply, limit, meta, datetime.now(timezone.utc)))
        try:
            with _tracing.resumed(exchange.trace):
                self.store.add_turns(turns)
        except Exception as exc:
            warn("memory capture", exc, "this exchange is not recorded")

    def _left_early(self, exchange: Exchange | None) -> None:
        """Capture the user message alone, marked incomplete (no reply reached the client)."""
        if exchange is not None:
            self._submit(exchange, "", incomplete=True)

    async def _until_disconnect(self, request: Request, work: Awaitable[T]) -> T | None:
        """The result of ``work``, or None (``work`` cancelled) when the client disconnects first.

        Only used once the request body is read: the next ASGI message is then the disconnect.
        """
        outcome: list[T] = []
        failure: list[BaseException] = []

        async def watch(scope: anyio.CancelScope) -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass
            scope.cancel()

        async with anyio.create_task_group() as group:
            group.start_soon(watch, group.cancel_scope)
            try:
                outcome.append(await work)
            except Exception as exc:  # re-raised outside the group (no exception group)
                failure.append(exc)
            group.cancel_scope.cancel()
        if failure:
            raise failure[0]
        return outcome[0] if outcome else None

    # -- upstream ---    # -- upstream -----------------------------------------------------------------------------
    async def _send(self, method: str, url: str, headers: Mapping[str, str], content: bytes | None) -> httpx.Response:
        request = self.client.build_request(method, url, content=content, headers=_upstream_headers(headers))
        try:
            return await self.client.send(request, stream=True)
        except httpx.TimeoutException:
            raise ApiError(504, "the upstream did not answer in time", type="upstream_error",
                           code="upstream_timeout") from None
        except httpx.HTTPError as exc:
            raise ApiError(502, f"the upstream is unreachable ({type(exc).__name__})", code="upstream_error") from None


def _chat_attributes(upstream: str | None, model: object, stream: bool) -> dict[str, str | int | bool]:
    """The GenAI semantic conventions' attributes of the upstream chat call (no message text)."""
    out: dict[str, str | int | bool] = {"gen_ai.operation.name": "chat", "gen_ai.request.stream": stream}
    if isinstance(model, str):
        out["gen_ai.request.model"] = model[:200]
    where = httpx.URL(upstream) if upstream else None
    if where is not None and where.host:
        out["server.address"] = where.host
        out["server.port"] = where.port or (443 if where.scheme == "https" else 80)
    return out


def _turn(exchange: Exchange, role: str, text: str, limit: int, meta: dict[str, Any],
          when: datetime) -> dict[str, Any]:
    extra = {"truncated": True} if len(text) > limit else {}
    return {"user_id": exchange.user_id, "role": role, "content": text[:limit], "session_id": exchange.session_id,
            "timestamp": when, "metadata": {**meta, **extra}}


def _json_reply(data: bytes) -> str | None:
    """The reply text of a chat completion body ("" without one), None when it is no JSON object."""
    try:
        body = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return reply_text(body) if isinstance(body, dict) else None


def _upstream_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The client's headers minus hop-by-hop ones and the server's own ``X-Nova-*`` headers.

    ``Authorization`` (the upstream's key) passes through untouched.
    """
    out = {k: v for k, v in headers.items() if k.lower() not in _HOP_BY_HOP and not k.lower().startswith("x-nova-")}
    out["accept-encoding"] = "identity"
    return out


def _response_headers(headers: httpx.Headers) -> dict[str, str]:
    return {k: v for k, v in headers.items() if k.lower() not in _RESPONSE_DROP}



class _Tee:
    """A streamed reply on its way to the client: chunks pass through as they arrive while an
    :class:`SSEAssembler` rebuilds the text; :meth:`close` captures it exactly once."""

    def __init__(self, proxy: MemoryProxy, upstream: httpx.Response, exchange: Exchange | None) -> None:
        self.proxy = proxy
        self.upstream = upstream
        self.exchange = exchange
        self.assembler = SSEAssembler()
        self.finished = False
        self.closed = False

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self.upstream.aiter_bytes():
                if self.exchange is not None:
                    self.assembler.feed(chunk)
                yield chunk
            self.finished = True
        except httpx.HTTPError as exc:
            warn("the upstream stream", exc, "the reply was cut")
        finally:
            await self.close()

    async def close(self) -> None:
        """Capture (``incomplete`` unless the stream ended with ``[DONE]``) and release the upstream."""
        if self.closed:
            return
        self.closed = True
        # Also on a client disconnect (cancellation): no awaiting the capture, only submitting it.
        if self.exchange is not None:
            self.proxy._submit(self.exchange, self.assembler.text,
                               incomplete=not (self.finished and self.assembler.done))
        with anyio.CancelScope(shield=True):
            await self.upstream.aclose()


class _TeeResponse(StreamingResponse):
    """A streaming response that closes its tee however it ends, even when the client left
    before the first chunk (the body generator then never starts, so its ``finally`` never runs)."""

    def __init__(self, tee: _Tee, *, status_code: int, headers: Mapping[str, str]) -> None:
        super().__init__(tee.chunks(), status_code=status_code, headers=headers)
        self.tee = tee

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.tee.close()
