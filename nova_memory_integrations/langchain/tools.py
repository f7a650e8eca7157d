"""Memory tools for LangChain agents: ``search_memory``, ``remember``, ``forget`` and ``edit_pinned_block``.

The agent decides for itself what to look up, store or drop; the user is resolved per
call exactly as :class:`~nova_memory_integrations.langchain.NovaMemory` does (the run's
context ``user_id``, then ``configurable["user_id"]``, then the ``user_id`` default).
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from ..engine import agent_tools as impl
from ..engine.validation import require_store
from ..store import NovaStore
from ._shared import WarnOnce, field, first_id, run_configurable, run_context, shared_store

__all__ = ["create_memory_tools"]

logger = logging.getLogger(__name__)


class SearchMemoryInput(BaseModel):
    """Arguments of ``search_memory``."""

    query: str = Field(description="What to look for, in plain words.")
    k: int = Field(default=5, ge=1, le=50, description="How many memories to return.")


class RememberInput(BaseModel):
    """Arguments of ``remember``: a fact (subject, predicate, object) or a note."""

    note: str | None = Field(default=None, description="A free-text note to remember (when it is not a fact).")
    subject: str | None = Field(default=None, description='Whom or what the fact is about; "user" for the user.')
    predicate: str | None = Field(default=None, description="The relation in snake_case, e.g. lives_in, likes.")
    object: str | None = Field(default=None, description="The value, e.g. Lisbon.")
    valid_from: str | None = Field(default=None, description="ISO date from which it holds, if known.")


class ForgetInput(BaseModel):
    """Arguments of ``forget``."""

    memory_id: str = Field(description="The id of the memory to forget, as shown by search_memory.")


class EditPinnedBlockInput(BaseModel):
    """Arguments of ``edit_pinned_block``: the block, and its whole new text or a line to add."""

    name: str = Field(description="The block, e.g. human (about the user) or persona (about you).")
    content: str | None = Field(default=None, description="The whole new text of the block.")
    append: str | None = Field(default=None, description="A line to add at the end of the block.")


def create_memory_tools(store: NovaStore | None = None, *, user_id: str | None = None) -> list[BaseTool]:
    """``search_memory``, ``remember``, ``forget`` and ``edit_pinned_block`` as LangChain tools over ``store``.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations   # langchain (create_agent) is a dependency

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations.langchain import create_memory_tools

            tools = create_memory_tools()                  # the shared store; user per call
            tools = create_memory_tools(store, user_id="alice")   # a default user

    Usage:
        .. code-block:: python

            agent = create_agent(model, tools=create_memory_tools(), context_schema=Context)
            agent.invoke({"messages": [...]}, context=Context(user_id="alice"))

    Args:
        store: the store (default: the shared store at the default path, opened on first use).
        user_id: the user when a call names none (context and config win).

    Returns:
        The four tools. A call without a user gets a one-line refusal (and one warning per
        tool set), never another user's memory.
    """
    if store is not None:
        store = require_store(store, NovaStore, "create_memory_tools", optional=True)
    warn_no_user = WarnOnce(logger, "nova-memory tools: a call without a user_id got no memory; pass "
                                    "context={'user_id': ...} or config={'configurable': {'user_id': ...}}")

    def resolve() -> tuple[NovaStore, str, str | None] | None:
        context = run_context()
        configurable = run_configurable()
        user = first_id(field(context, "user_id"), configurable.get("user_id"), user_id)
        if user is None:
            warn_no_user()
            return None
        session = first_id(field(context, "session_id"), field(context, "thread_id"), configurable.get("thread_id"))
        return (store if store is not None else shared_store()), user, session

    def search(query: str, k: int = 5) -> str:
        scope = resolve()
        return impl.NO_USER if scope is None else impl.search_memory(scope[0], scope[1], query, k)

    def remember(**kwargs: Any) -> str:
        scope = resolve()
        return impl.NO_USER if scope is None else impl.remember(scope[0], scope[1], session_id=scope[2], **kwargs)

    def forget(memory_id: str) -> str:
        scope = resolve()
        return impl.NO_USER if scope is None else impl.forget_memory(scope[0], scope[1], memory_id)

    def edit_block(name: str, content: str | None = None, append: str | None = None) -> str:
        scope = resolve()
        return impl.NO_USER if scope is None else impl.edit_pinned_block(scope[0], scope[1], name, content=content,
                                                                         append=append)

    return [
        StructuredTool.from_function(search, name="search_memory", description=impl.TOOL_DESCRIPTIONS["search_memory"],
                                     args_schema=SearchMemoryInput),
        StructuredTool.from_function(remember, name="remember", description=impl.TOOL_DESCRIPTIONS["remember"],
                                     args_schema=RememberInput),
        StructuredTool.from_function(forget, name="forget", description=impl.TOOL_DESCRIPTIONS["forget"],
                                     args_schema=ForgetInput),
        StructuredTool.from_function(edit_block, name="edit_pinned_block",
                                     description=impl.TOOL_DESCRIPTIONS["edit_pinned_block"],
                                     args_schema=EditPinnedBlockInput),
    ]
