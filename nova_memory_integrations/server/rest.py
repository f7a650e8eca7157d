"""The REST API under ``/v1/memory/``: capture, recall, facts, pinned blocks, rules and their
proposals, consolidation, hiding and erasure.

Every route is scoped to the user in its path, ``/v1/memory/users/{user_id}/...``; a key
pinned to a user reaches only that user (403 otherwise). The request models only give
the payload its shape: the engine validates the values (``InvalidInputError`` -> 422
with the error's name as ``type``). Handlers are plain functions, run in the threadpool,
so the blocking engine never stalls the event loop.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ..config import ConsolidationMode
from ..errors import needs_extra
from ..types import ContextFormat, MemoryKind, MemorySource
from .auth import USER_HEADER, authenticate, resolve_user

with needs_extra("server"):
    from fastapi import APIRouter, Depends, Query, Request

__all__ = ["router"]

router = APIRouter(prefix="/v1/memory", tags=["memory"])

MemoryKindName = MemoryKind
FormatName = ContextFormat
ModeName = ConsolidationMode
_DEFAULT_KINDS: tuple[MemoryKindName, ...] = ("episode", "fact")


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TurnIn(_In):
    role: str = "user"
    content: str
    session_id: str | None = None
    timestamp: str | None = Field(default=None, description="ISO-8601 event time (default now).")
    metadata: dict[str, Any] | None = None
    importance: float | None = Field(default=None, description="0-1 (default: assessed from the content).")
    source: MemorySource | None = Field(
        default=None, description="explicit: the user asked for it to be kept (default: found in the content).")


class FactIn(_In):
    subject: str
    predicate: str
    object: str
    confidence: float | None = None
    valid_from: str | None = Field(default=None, description="ISO-8601 event time the fact holds from (default now).")
    metadata: dict[str, Any] | None = None
    importance: float | None = Field(default=None, description="0-1 (default: assessed from the fact).")


class BlockIn(_In):
    content: str
    limit: int | None = Field(default=None, description="Size limit in characters (default: the block's own).")


class AppendIn(_In):
    text: str


class AddTurnsIn(_In):
    turns: list[TurnIn]
    consolidation: ModeName | None = Field(default=None, description="Override the store's consolidation mode.")


class SearchIn(_In):
    query: str
    k: int = 10
    kinds: list[MemoryKindName] = Field(default_factory=lambda: list(_DEFAULT_KINDS))
    session_id: str | None = None
    as_of: str | None = Field(default=None, description="Facts valid at this ISO-8601 time.")


class ContextIn(_In):
    query: str
    budget_tokens: int | None = None
    as_of: str | None = Field(default=None, description="Memory as it was valid at this ISO-8601 time.")
    format: FormatName = "markdown"
    session_id: str | None = None


class IdsIn(_In):
    ids: list[str] = Field(description="Ids of the user's episodes, facts (whole lineages) or rules.")


def _dump(items: Any) -> list[Any]:
    return [item.model_dump(mode="json") for item in items]


def user_scope(request: Request, user_id: str) -> str:
    """The path's user, if the caller's key may touch it (401 / 403 / 400 otherwise)."""
    principal = authenticate(request.headers, request.app.state.config.api_keys, bearer=True)
    user = resolve_user(principal, user_id, request.headers.get(USER_HEADER))
    return user if user is not None else user_id


def _store(request: Request) -> Any:
    return request.app.state.store


@router.post("/users/{user_id}/turns", summary="Record conversation turns (atomically)")
def add_turns(body: AddTurnsIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    turns = [{**t.model_dump(exclude_none=True), "user_id": user} for t in body.turns]
    episodes = _store(request).add_turns(turns, consolidation=body.consolidation)
    return {"episodes": _dump(episodes)}


@router.get("/users/{user_id}/episodes", summary="A user's recorded turns, newest first")
def episodes(request: Request, user: str = Depends(user_scope), session_id: str | None = None,
             limit: int = Query(default=50, ge=1, le=1000)) -> dict[str, Any]:
    found = _store(request).episodes(user, session_id=session_id, limit=limit, newest_first=True)
    return {"episodes": _dump(found)}


@router.post("/users/{user_id}/search", summary="Dense similarity search over a user's memory")
def search(body: SearchIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    hits = _store(request).search(body.query, user, k=body.k, kinds=tuple(body.kinds), session_id=body.session_id,
                                  as_of=body.as_of)
    return {"hits": _dump(hits)}


@router.post("/users/{user_id}/context", summary="The budgeted memory context an LLM should see")
def context(body: ContextIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    result = _store(request).context(body.query, user, budget_tokens=body.budget_tokens, as_of=body.as_of,
                                     format=body.format, session_id=body.session_id)
    return dict(result.model_dump(mode="json"))


@router.get("/users/{user_id}/facts", summary="Facts valid at as_of, as believed at known_at")
def facts(request: Request, user: str = Depends(user_scope), subject: str | None = None,
          predicate: str | None = None, as_of: str | None = None, known_at: str | None = None,
          history: bool = Query(default=False, description="Every version believed at known_at.")) -> dict[str, Any]:
    found = _store(request).facts(user, subject, predicate, as_of=as_of, known_at=known_at, include_history=history)
    return {"facts": _dump(found)}


@router.post("/users/{user_id}/facts", summary="Assert a fact (an explicit memory)")
def add_fact(body: FactIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    decision = _store(request).add_fact(user, body.subject, body.predicate, body.object, confidence=body.confidence,
                                        valid_from=body.valid_from, metadata=body.metadata,
                                        importance=body.importance, source="explicit")
    return dict(decision.model_dump(mode="json"))


@router.get("/users/{user_id}/facts/{fact_id}/history", summary="Every version of one fact's lineage")
def fact_history(fact_id: str, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"facts": _dump(_store(request).fact_history(user, fact_id))}


@router.post("/users/{user_id}/consolidate", summary="Turn the user's new turns into facts")
def consolidate(request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return dict(_store(request).consolidate(user).model_dump(mode="json"))


@router.delete("/users/{user_id}", summary="Erase every trace of a user")
def forget(request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"forgotten": _store(request).forget(user)}


@router.post("/users/{user_id}/hide", summary="Hide memories from every read, restorably (soft forget)")
def hide(body: IdsIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"hidden": _store(request).hide(user, body.ids)}


@router.post("/users/{user_id}/restore", summary="Bring hidden memories back")
def restore(body: IdsIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"restored": _store(request).restore(user, body.ids)}


@router.get("/users/{user_id}/hidden", summary="Ids of the user's hidden memories, per kind")
def hidden(request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"hidden": _store(request).hidden(user)}


@router.post("/users/{user_id}/delete", summary="Erase memories by id (facts with their whole lineage)")
def delete(body: IdsIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"deleted": _store(request).delete(user, body.ids)}


@router.get("/users/{user_id}/blocks", summary="The user's pinned blocks (in every context)")
def blocks(request: Request, user: str = Depends(user_scope), as_of: str | None = None) -> dict[str, Any]:
    return {"blocks": _dump(_store(request).blocks(user, as_of=as_of))}


@router.put("/users/{user_id}/blocks/{name}", summary="Write a pinned block (the old version is kept)")
def set_block(name: str, body: BlockIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return dict(_store(request).set_block(user, name, body.content, limit=body.limit).model_dump(mode="json"))


@router.post("/users/{user_id}/blocks/{name}/append", summary="Add a line to a pinned block")
def append_to_block(name: str, body: AppendIn, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return dict(_store(request).append_to_block(user, name, body.text).model_dump(mode="json"))


@router.get("/users/{user_id}/blocks/{name}/history", summary="Every version of a pinned block")
def block_history(name: str, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"blocks": _dump(_store(request).block_history(user, name))}


@router.delete("/users/{user_id}/blocks/{name}", summary="Take a pinned block out of every context (history kept)")
def delete_block(name: str, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"deleted": _store(request).delete_block(user, name)}


@router.get("/users/{user_id}/rules", summary="The user's procedural rules, learnt or added")
def rules(request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"rules": _dump(_store(request).rules(user))}


@router.get("/users/{user_id}/rules/proposals", summary="Rules the user's repeated instructions would teach")
def rule_proposals(request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"proposals": _dump(_store(request).rule_proposals(user))}


@router.post("/users/{user_id}/rules/proposals/{key}/adopt", summary="Adopt a proposal as a rule (404: none now)")
def adopt_rule(key: str, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"rule": _store(request).adopt_rule(user, key).model_dump(mode="json")}


@router.delete("/users/{user_id}/rules/{rule_id}", summary="Delete one of the user's rules (learnt ones too)")
def delete_rule(rule_id: str, request: Request, user: str = Depends(user_scope)) -> dict[str, Any]:
    return {"deleted": _store(request).delete_rule(user, rule_id)}
