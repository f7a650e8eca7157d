"""The inspector's routes under ``/ui``: server-rendered pages (GET) and the actions (JSON POST / PUT).

Pages read through ``NovaStore`` for the user :func:`.access.ui_user` resolved (the REST
rule: a pinned key sees its own user only). Actions call the REST route functions
themselves (:mod:`..rest`) with the same bodies, so hide, restore, delete, forget and block
writes validate, scope and answer exactly as the REST API does; this module only
translates. Errors on pages are HTML pages with the REST status (401 shows the sign-in
form); errors of actions are the REST API's JSON errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict

from ...engine.validation import check_timestamp
from ...errors import NovaMemoryError, needs_extra
from .. import rest
from ..auth import ApiError, authenticate, store_error
from .access import COOKIE, sessions_of, ui_principal, ui_user, visible_users
from .render import page, static_file
from .views import graph_view, timeline, users_overview

with needs_extra("server"):
    from fastapi import APIRouter, Query, Request
    from starlette.responses import JSONResponse, RedirectResponse, Response

__all__ = ["ui_router"]

ui_router = APIRouter(prefix="/ui", include_in_schema=False)

SEARCH_K = 10
DEFAULT_HOPS = 2
MAX_HOPS = 4


class _LoginIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    key: str


class _ForgetIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    confirm: str


def _store(request: Request) -> Any:
    return request.app.state.store


def _keyed(request: Request) -> bool:
    return bool(request.app.state.config.api_keys)


def _render(request: Request, build: Callable[[], Response]) -> Response:
    """``build()``, or the page for its error: the sign-in form on a 401, an error page otherwise."""
    try:
        return build()
    except ApiError as exc:
        if exc.status == 401:
            return page("login.html", status=401, message=exc.message, keyed=True, user=None)
        return page("error.html", status=exc.status, message=exc.message, user=None, keyed=_keyed(request))
    except NovaMemoryError as exc:
        err = store_error(exc)
        return page("error.html", status=err.status, message=err.message, user=None, keyed=_keyed(request))


def _user_page(request: Request, user_id: str, template: str, tab: str,
               values: Callable[[str], dict[str, Any]]) -> Response:
    def build() -> Response:
        user = ui_user(request, user_id)
        return page(template, user=user, tab=tab, keyed=_keyed(request), **values(user))

    return _render(request, build)


# -- sign-in, static files, the users page --------------------------------------------------------------


@ui_router.get("/static/{name}")
def static(name: str) -> Response:
    found = static_file(name)
    return found if found is not None else Response(status_code=404)


@ui_router.get("/login")
def login_page(request: Request) -> Response:
    return page("login.html", message="", keyed=_keyed(request), user=None)


@ui_router.post("/login")
def login(body: _LoginIn, request: Request) -> JSONResponse:
    """Check the key as the REST API would, then open a session for it (the cookie names the session)."""
    principal = authenticate({"x-nova-key": body.key.strip()}, request.app.state.config.api_keys, bearer=False)
    sessions = sessions_of(request)
    response = JSONResponse({"signed_in": True, "user": principal.pinned_user})
    sessions.set_cookie(response, sessions.open(body.key.strip()), secure=request.url.scheme == "https")
    return response


@ui_router.post("/logout")
def logout(request: Request) -> JSONResponse:
    sessions_of(request).close(request.cookies.get(COOKIE))
    response = JSONResponse({"signed_out": True})
    response.delete_cookie(COOKIE, path="/ui")
    return response


@ui_router.get("")
@ui_router.get("/")
def users_page(request: Request) -> Response:
    def build() -> Response:
        principal = ui_principal(request)
        users = visible_users(principal, _store(request).users())
        if principal.pinned_user is not None:  # one user: straight to their timeline
            return RedirectResponse(f"/ui/users/{quote(principal.pinned_user, safe='')}", status_code=303)
        return page("users.html", rows=users_overview(_store(request), users), user=None, keyed=_keyed(request))

    return _render(request, build)


# -- a user's pages ---------------------------------------------------------------------------------------


@ui_router.get("/users/{user_id}")
def timeline_page(request: Request, user_id: str, as_of: str | None = None, known_at: str | None = None) -> Response:
    def values(user: str) -> dict[str, Any]:
        store = _store(request)
        when, known = check_timestamp(as_of or None, "as_of"), check_timestamp(known_at or None, "known_at")
        return {"timeline": timeline(store, user, as_of=when, known_at=known),
                "believed": store.facts(user, as_of=when, known_at=known),
                "pinned_as_of": as_of or "", "pinned_known_at": known_at or "",
                "hidden": store.hidden(user)}

    return _user_page(request, user_id, "timeline.html", "timeline", values)


@ui_router.get("/users/{user_id}/episodes/{episode_id}")
def episode_page(request: Request, user_id: str, episode_id: str) -> Response:
    def values(user: str) -> dict[str, Any]:
        store = _store(request)
        found = store.get_episodes(user, [episode_id])
        if not found:
            raise ApiError(404, "no such episode for this user (it may be hidden or forgotten)")
        derived = [f for f in store.facts(user, include_history=True) if episode_id in f.provenance]
        return {"episode": found[0], "derived": derived}

    return _user_page(request, user_id, "episode.html", "timeline", values)


@ui_router.get("/users/{user_id}/graph")
def graph_page(request: Request, user_id: str, entity: str | None = None,
               hops: int = Query(default=DEFAULT_HOPS, ge=0, le=MAX_HOPS), as_of: str | None = None) -> Response:
    def values(user: str) -> dict[str, Any]:
        when = check_timestamp(as_of or None, "as_of")
        return {"graph": graph_view(_store(request), user, entity or None, hops=hops, as_of=when)}

    return _user_page(request, user_id, "graph.html", "graph", values)


@ui_router.get("/users/{user_id}/changes")
def changes_page(request: Request, user_id: str) -> Response:
    def values(user: str) -> dict[str, Any]:
        store = _store(request)
        return {"conflicts": store.conflicts(user), "decisions": store.decisions(user)}

    return _user_page(request, user_id, "changes.html", "changes", values)


@ui_router.get("/users/{user_id}/procedural")
def procedural_page(request: Request, user_id: str) -> Response:
    def values(user: str) -> dict[str, Any]:
        store = _store(request)
        return {"rules": store.rules(user), "blocks": store.blocks(user)}

    return _user_page(request, user_id, "procedural.html", "procedural", values)


@ui_router.get("/users/{user_id}/search")
def search_page(request: Request, user_id: str, q: str = "") -> Response:
    def values(user: str) -> dict[str, Any]:
        hits = _store(request).search(q, user, k=SEARCH_K, kinds=("episode", "fact", "rule")) if q.strip() else []
        return {"q": q, "hits": hits}

    return _user_page(request, user_id, "search.html", "search", values)


@ui_router.get("/users/{user_id}/context")
def context_page(request: Request, user_id: str, q: str = "", budget: int | None = Query(default=None, ge=1),
                 as_of: str | None = None) -> Response:
    def values(user: str) -> dict[str, Any]:
        result = None
        if q.strip():
            result = _store(request).context(q, user, budget_tokens=budget, as_of=as_of or None)
        return {"q": q, "budget": budget or "", "as_of": as_of or "", "result": result}

    return _user_page(request, user_id, "context.html", "context", values)


# -- actions: the REST routes' own functions ----------------------------------------------------------------


def _by_ids(route: Callable[[rest.IdsIn, Request, str], dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """The UI's form of a REST route that takes ids: the same function, with the UI's user resolution."""

    def action(body: rest.IdsIn, request: Request, user_id: str) -> dict[str, Any]:
        return route(body, request, ui_user(request, user_id))

    return action


for _name, _route in (("hide", rest.hide), ("restore", rest.restore), ("delete", rest.delete)):
    ui_router.add_api_route(f"/users/{{user_id}}/{_name}", _by_ids(_route), methods=["POST"], name=f"ui_{_name}")


@ui_router.post("/users/{user_id}/forget")
def forget(body: _ForgetIn, request: Request, user_id: str) -> dict[str, Any]:
    """Erase the user; the body must repeat the user id (the page asks for it to be typed)."""
    user = ui_user(request, user_id)
    if body.confirm != user:
        raise ApiError(400, "type the user id to confirm forgetting this user", param="confirm",
                       code="confirmation_required")
    return rest.forget(request, user)


@ui_router.put("/users/{user_id}/blocks/{name}")
def set_block(name: str, body: rest.BlockIn, request: Request, user_id: str) -> dict[str, Any]:
    return rest.set_block(name, body, request, ui_user(request, user_id))
