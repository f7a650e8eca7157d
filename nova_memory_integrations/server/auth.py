"""Errors as JSON, API keys and whose memory a request may touch.

Every error body has OpenAI's shape, ``{"error": {"message", "type", "param", "code"}}``,
so OpenAI clients raise their usual exceptions; on the memory routes ``type`` is the name
of the typed error (``InvalidInputError``, ``NotFoundError``, ...).
"""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..engine.validation import printable
from ..errors import (
    ConfigError,
    ConsolidationError,
    EmbeddingError,
    InvalidInputError,
    NotFoundError,
    NovaMemoryError,
    StorageError,
    StoreClosedError,
    needs_extra,
)

with needs_extra("server"):
    from starlette.responses import JSONResponse

__all__ = ["ApiError", "KEY_HEADER", "Principal", "authenticate", "error_response", "resolve_user", "store_error"]

KEY_HEADER = "x-nova-key"
USER_HEADER = "x-nova-user"
SESSION_HEADER = "x-nova-session"
_STATUS_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                 404: "not_found_error", 405: "invalid_request_error", 408: "invalid_request_error",
                 413: "invalid_request_error", 415: "invalid_request_error", 421: "invalid_request_error",
                 422: "invalid_request_error", 429: "rate_limit_error", 431: "invalid_request_error",
                 502: "upstream_error", 503: "server_error"}
# Most specific first: InvalidInputError and ConfigError are also ValueErrors, NotFoundError a KeyError.
_STORE_STATUS: tuple[tuple[type[NovaMemoryError], int], ...] = (
    (InvalidInputError, 422), (ConfigError, 400), (NotFoundError, 404), (StoreClosedError, 503),
    (StorageError, 503), (EmbeddingError, 503), (ConsolidationError, 500),
)
_MAX_MESSAGE = 2_000


class ApiError(Exception):
    """An HTTP error answer: status, message and OpenAI's ``type`` / ``code`` / ``param``."""

    def __init__(self, status: int, message: str, *, type: str | None = None, code: str | None = None,
                 param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.type = type or _STATUS_TYPES.get(status, "server_error")
        self.code = code
        self.param = param

    def response(self, headers: Mapping[str, str] | None = None) -> JSONResponse:
        return error_response(self.status, self.message, type=self.type, code=self.code, param=self.param,
                              headers=headers)


def error_response(status: int, message: str, *, type: str | None = None, code: str | None = None,
                   param: str | None = None, headers: Mapping[str, str] | None = None,
                   extra: Mapping[str, Any] | None = None) -> JSONResponse:
    """A JSON error in OpenAI's shape (message reduced to printable text, bounded)."""
    text = printable(message)[:_MAX_MESSAGE]
    error = {"message": text, "type": type or _STATUS_TYPES.get(status, "server_error"), "param": param,
             "code": code, **(extra or {})}
    return JSONResponse({"error": error}, status_code=status, headers=dict(headers or {}))


def store_error(exc: NovaMemoryError) -> ApiError:
    """The HTTP answer to a typed error of the engine: its class name as ``type``."""
    status = next((s for cls, s in _STORE_STATUS if isinstance(exc, cls)), 500)
    param = getattr(exc, "field", None)
    return ApiError(status, str(exc) or type(exc).__name__, type=type(exc).__name__,
                    param=param if isinstance(param, str) else None)


@dataclass(frozen=True)
class Principal:
    """Who is calling: ``pinned_user`` is the only user a pinned key may touch (None: any)."""

    pinned_user: str | None = None
    authenticated: bool = False


def _presented_key(headers: Mapping[str, str], bearer: bool) -> str | None:
    key = headers.get(KEY_HEADER)
    if key:
        return key.strip()
    if bearer:
        scheme, _, token = (headers.get("authorization") or "").partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    return None


def authenticate(headers: Mapping[str, str], keys: Mapping[str, str | None], *, bearer: bool) -> Principal:
    """The caller of a request; raises a 401 ``ApiError`` when keys are configured and none matches.

    The key is read from ``X-Nova-Key``; with ``bearer=True`` (memory and MCP routes, whose
    ``Authorization`` is not meant for an upstream) also from ``Authorization: Bearer``.
    Comparison is constant-time over every configured key.
    """
    if not keys:
        return Principal()
    presented = _presented_key(headers, bearer)
    if presented is None:
        where = "the X-Nova-Key header" + (" or Authorization: Bearer" if bearer else "")
        raise ApiError(401, f"this server requires an API key in {where}", code="missing_api_key")
    match: str | None = None
    found = False
    for key, user in keys.items():
        if hmac.compare_digest(key.encode(), presented.encode()):
            match, found = user, True
    if not found:
        raise ApiError(401, "invalid API key", code="invalid_api_key")
    return Principal(pinned_user=match, authenticated=True)


def resolve_user(principal: Principal, *named: object) -> str | None:
    """The user whose memory a request reads and writes, from what the request names.

    ``named`` are the places a request can name a user (header, body field, path); empty
    ones are ignored. Two different names are a 400. A pinned key always gets its own
    user, and naming anyone else is a 403: whatever a client puts in a header, field or
    path, it never reaches another user's memory. None: the request names no user and
    the key is not pinned (no memory).
    """
    given = [n for n in named if n is not None and n != ""]
    if any(not isinstance(n, str) for n in given):  # a list or an object: checked before hashing
        raise ApiError(400, "a user id must be a string", param="user", code="invalid_user")
    names = set(given)
    if len(names) > 1:
        raise ApiError(400, "the request names two different users (X-Nova-User header and user field)",
                       param="user", code="conflicting_user")
    user = next(iter(names), None)
    if principal.pinned_user is not None:
        if user is not None and user != principal.pinned_user:
            raise ApiError(403, "this API key may only access its own user's memory", type="PermissionDeniedError",
                           code="user_not_allowed")
        return principal.pinned_user
    return user if isinstance(user, str) else None
