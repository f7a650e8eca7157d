"""MCP tools over the store (official ``mcp`` SDK): remember, recall, search, facts, pinned_blocks,
edit_pinned_block, rules, rule_proposals, adopt_rule, delete_rule, hide, restore, forget.

The same tools serve stdio (``nova-memory mcp``) and streamable HTTP (``/mcp`` on the
``nova-memory serve`` app). Over HTTP the caller's API key (``X-Nova-Key`` or
``Authorization: Bearer``) is checked before the MCP session sees the request, and a key
pinned to a user only reaches that user, whatever ``user_id`` a tool call names; over
stdio ``pinned_user`` does the same for the whole process.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from ..engine import agent_tools
from ..errors import NovaMemoryError, needs_extra
from .auth import ApiError, Principal, authenticate, resolve_user

with needs_extra("server"):
    import anyio
    from mcp.server.mcpserver import Context, MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Receive, Scope, Send

    from .. import NovaStore

__all__ = ["McpAuth", "build_mcp"]

INSTRUCTIONS = (
    "Long-term memory per user. Call recall with the user's message before answering to get what is known "
    "about them; call remember with anything worth keeping. Every tool is scoped to one user_id."
)


def build_mcp(store: NovaStore, *, keys: Mapping[str, str | None] | None = None,
              pinned_user: str | None = None) -> MCPServer:
    """An ``MCPServer`` whose tools read and write ``store``.

    Args:
        keys: the server's API keys (HTTP transport): a request's key decides the user it
            may reach. Requests without headers (stdio) use ``pinned_user``.
        pinned_user: the only user reachable over stdio (None: any user named by a call).
    """
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    try:
        server: MCPServer = MCPServer("nova-memory", instructions=INSTRUCTIONS)
    finally:  # the SDK calls logging.basicConfig: the root logger is the application's, not ours
        root.handlers[:] = handlers
        root.setLevel(level)
    api_keys = dict(keys or {})

    def scope(ctx: Context | None, user_id: str) -> str:
        headers = ctx.headers if ctx is not None else None
        try:
            if headers is None:
                principal = Principal(pinned_user=pinned_user)
            else:
                principal = authenticate({k.lower(): v for k, v in headers.items()}, api_keys, bearer=True)
            user = resolve_user(principal, user_id)
        except ApiError as exc:
            raise ToolError(exc.message) from None
        return user if user is not None else user_id

    async def call(fn: Any, *args: Any, **kw: Any) -> Any:
        try:
            return await anyio.to_thread.run_sync(partial(fn, *args, **kw))
        except NovaMemoryError as exc:
            raise ToolError(f"{type(exc).__name__}: {exc}") from None

    @server.tool()
    async def remember(user_id: str, content: str, role: str = "user", session_id: str | None = None,
                       ctx: Context | None = None) -> dict[str, Any]:
        """Record one turn (or a note) in the user's long-term memory, as an explicit memory."""
        ep = await call(store.add_turn, scope(ctx, user_id), role, content, session_id=session_id,
                        metadata={"source": "nova-memory-mcp"}, source="explicit")
        return {"id": ep.id, "user_id": ep.user_id, "role": ep.role, "timestamp": ep.timestamp.isoformat()}

    @server.tool()
    async def recall(user_id: str, query: str, budget_tokens: int | None = None, as_of: str | None = None,
                     ctx: Context | None = None) -> str:
        """The memory worth knowing for `query`, within a token budget, ready for a prompt."""
        result = await call(store.context, query, scope(ctx, user_id), budget_tokens=budget_tokens, as_of=as_of)
        return str(result.text)

    @server.tool()
    async def search(user_id: str, query: str, k: int = 5, ctx: Context | None = None) -> list[dict[str, Any]]:
        """Episodes and facts most similar to `query`, best first."""
        hits = await call(store.search, query, scope(ctx, user_id), k=k)
        return [{"kind": h.kind, "id": h.id, "text": h.text, "score": round(h.score, 4),
                 "timestamp": h.timestamp.isoformat() if h.timestamp else None} for h in hits]

    @server.tool()
    async def facts(user_id: str, subject: str | None = None, predicate: str | None = None, as_of: str | None = None,
                    known_at: str | None = None, ctx: Context | None = None) -> list[dict[str, Any]]:
        """Facts valid at `as_of` (default now) as believed at `known_at` (ISO-8601 times)."""
        found = await call(store.facts, scope(ctx, user_id), subject, predicate, as_of=as_of, known_at=known_at)
        return [f.model_dump(mode="json", include={"id", "subject", "predicate", "object", "confidence",
                                                   "valid_from", "valid_to"}) for f in found]

    @server.tool()
    async def hide(user_id: str, ids: list[str], ctx: Context | None = None) -> dict[str, list[str]]:
        """Hide memories (ids from `search`) from every read, restorably: "forget that" without erasing."""
        return dict(await call(store.hide, scope(ctx, user_id), ids))

    @server.tool()
    async def restore(user_id: str, ids: list[str], ctx: Context | None = None) -> dict[str, list[str]]:
        """Bring hidden memories back."""
        return dict(await call(store.restore, scope(ctx, user_id), ids))

    @server.tool()
    async def pinned_blocks(user_id: str, ctx: Context | None = None) -> list[dict[str, Any]]:
        """The user's pinned blocks (e.g. human, persona): always in the memory `recall` returns."""
        found = await call(store.blocks, scope(ctx, user_id))
        return [b.model_dump(mode="json", include={"name", "content", "limit", "author", "valid_from"}) for b in found]

    @server.tool()
    async def edit_pinned_block(user_id: str, name: str, content: str | None = None, append: str | None = None,
                                ctx: Context | None = None) -> str:
        """Replace a pinned block with `content`, or add `append` as a line (the old version stays in its history)."""
        return str(await call(agent_tools.edit_pinned_block, store, scope(ctx, user_id), name, content=content,
                              append=append))

    @server.tool()
    async def rules(user_id: str, ctx: Context | None = None) -> list[dict[str, Any]]:
        """The user's procedural rules (how to reply), learnt from repeated instructions or added."""
        found = await call(store.rules, scope(ctx, user_id))
        return [r.model_dump(mode="json", include={"id", "condition", "action", "confidence", "metadata"})
                for r in found]

    @server.tool()
    async def rule_proposals(user_id: str, ctx: Context | None = None) -> list[dict[str, Any]]:
        """Rules the user's instructions, repeated over sessions, would teach: each with its key and evidence."""
        return [p.model_dump(mode="json") for p in await call(store.rule_proposals, scope(ctx, user_id))]

    @server.tool()
    async def adopt_rule(user_id: str, key: str, ctx: Context | None = None) -> dict[str, Any]:
        """Adopt the proposal `key` (from rule_proposals) as a rule."""
        rule = await call(store.adopt_rule, scope(ctx, user_id), key)
        return dict(rule.model_dump(mode="json"))

    @server.tool()
    async def delete_rule(user_id: str, rule_id: str, ctx: Context | None = None) -> bool:
        """Delete one of the user's rules by id (from rules); false when the user has no such rule."""
        return bool(await call(store.delete_rule, scope(ctx, user_id), rule_id))

    @server.tool()
    async def forget(user_id: str, ctx: Context | None = None) -> dict[str, int]:
        """Erase every trace of the user: turns, facts, rules, vectors."""
        return dict(await call(store.forget, scope(ctx, user_id)))

    return server


class McpAuth:
    """ASGI guard in front of the MCP endpoint: 401 without a valid key (when keys are set)."""

    def __init__(self, app: ASGIApp, keys: Mapping[str, str | None]) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self.keys:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            try:
                authenticate(headers, self.keys, bearer=True)
            except ApiError as exc:
                await exc.response()(scope, receive, send)
                return
        await self.app(scope, receive, send)
