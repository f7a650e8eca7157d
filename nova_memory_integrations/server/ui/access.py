"""Who may see which inspector page: the REST API's keys and tenancy rules, plus a sign-in cookie.

A browser cannot send ``X-Nova-Key`` on a page load, so on a server with keys the sign-in
form posts the key once (JSON, as every body here) and gets an opaque session cookie:
``HttpOnly`` (no script reads it), ``SameSite=Strict`` (no other site's page sends it),
``Path=/ui`` (the REST, proxy and MCP routes never accept it). Each request then presents
the key that session was opened with to the same :func:`~..auth.authenticate` and
:func:`~..auth.resolve_user` the REST routes use: a key pinned to a user reaches that
user's pages only, whatever the URL names. A request that sends a key header itself
(``X-Nova-Key`` / ``Authorization: Bearer``) is judged by that header alone.

A keyless server (loopback only, :mod:`..guard`) needs no sign-in: its rules are the
guard's (loopback host names, same-origin browser requests).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping

from ...errors import needs_extra
from ..auth import KEY_HEADER, USER_HEADER, Principal, authenticate, resolve_user

with needs_extra("server"):
    from fastapi import Request
    from starlette.responses import Response

__all__ = ["COOKIE", "UiSessions", "sessions_of", "ui_principal", "ui_user", "visible_users"]

COOKIE = "nova_ui"
COOKIE_PATH = "/ui"
SESSION_SECONDS = 12 * 3600
MAX_SESSIONS = 1000


class UiSessions:
    """Open sign-ins: token -> (key, expiry), in memory (a restart signs everyone out), bounded."""

    def __init__(self, ttl: float = SESSION_SECONDS, limit: int = MAX_SESSIONS) -> None:
        self._ttl = ttl
        self._limit = limit
        self._open: OrderedDict[str, tuple[str, float]] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, key: str) -> str:
        token = secrets.token_urlsafe(32)
        with self._lock:
            self._open[token] = (key, time.monotonic() + self._ttl)
            while len(self._open) > self._limit:  # the oldest sign-in goes first
                self._open.popitem(last=False)
        return token

    def key(self, token: str | None) -> str | None:
        if not token:
            return None
        with self._lock:
            found = self._open.get(token)
            if found is None:
                return None
            if found[1] < time.monotonic():
                del self._open[token]
                return None
            return found[0]

    def close(self, token: str | None) -> None:
        with self._lock:
            self._open.pop(token or "", None)

    def set_cookie(self, response: Response, token: str, *, secure: bool) -> None:
        response.set_cookie(COOKIE, token, max_age=int(self._ttl), path=COOKIE_PATH, httponly=True,
                            samesite="strict", secure=secure)


def sessions_of(request: Request) -> UiSessions:
    sessions: UiSessions = request.app.state.ui_sessions
    return sessions


def _headers(request: Request) -> Mapping[str, str]:
    """The request's headers, with the session's key as ``X-Nova-Key`` when it sends no key itself."""
    headers = {k.lower(): v for k, v in request.headers.items()}
    if KEY_HEADER not in headers and "authorization" not in headers:
        key = sessions_of(request).key(request.cookies.get(COOKIE))
        if key is not None:
            headers[KEY_HEADER] = key
    return headers


def ui_principal(request: Request) -> Principal:
    """The caller (401 ``ApiError`` when the server has keys and the request brings none that matches)."""
    return authenticate(_headers(request), request.app.state.config.api_keys, bearer=True)


def ui_user(request: Request, user_id: str) -> str:
    """The path's user if the caller may touch it: the REST routes' rule (401 / 403 / 400 otherwise)."""
    principal = ui_principal(request)
    user = resolve_user(principal, user_id, request.headers.get(USER_HEADER))
    return user if user is not None else user_id


def visible_users(principal: Principal, all_users: list[str]) -> list[str]:
    """The users a caller's key may list: its own when pinned, every user otherwise."""
    if principal.pinned_user is not None:
        return [principal.pinned_user]
    return all_users
