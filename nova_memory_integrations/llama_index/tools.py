"""Memory tools for LlamaIndex agents: ``search_memory``, ``remember`` and ``forget`` as
``FunctionTool``s over one user's memory (the same behaviour as the LangChain tools)."""

from __future__ import annotations

from typing import Any

from llama_index.core.tools import FunctionTool

from ..engine import agent_tools as impl
from ..engine.validation import check_user, require_store

__all__ = ["create_memory_tools"]


def create_memory_tools(store: Any, *, user_id: str, session_id: str | None = None) -> list[FunctionTool]:
    """``search_memory``, ``remember``, ``forget`` and ``edit_pinned_block`` as LlamaIndex ``FunctionTool``s.

    LlamaIndex agents carry no user per call, so the tools are bound to ``user_id``: build
    one set per user (cheap; the store is shared).

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations   # llama-index-core is a dependency

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations.llama_index import create_memory_tools

            tools = create_memory_tools(store, user_id="alice")

    Usage:
        .. code-block:: python

            agent = FunctionAgent(tools=create_memory_tools(store, user_id="alice"), llm=my_llm)

    Args:
        store: the :class:`~nova_memory_integrations.NovaStore`.
        user_id: whose memory the tools read and write.
        session_id: recorded on notes.
    """
    from ..store import NovaStore

    store = require_store(store, NovaStore, "create_memory_tools")
    user = check_user(user_id, store.config.limits)

    def search_memory(query: str, k: int = 5) -> str:
        return impl.search_memory(store, user, query, k)

    def remember(note: str | None = None, subject: str | None = None, predicate: str | None = None,
                 object: str | None = None, valid_from: str | None = None) -> str:
        return impl.remember(store, user, note=note, subject=subject, predicate=predicate, object=object,
                             valid_from=valid_from, session_id=session_id)

    def forget(memory_id: str) -> str:
        return impl.forget_memory(store, user, memory_id)

    def edit_pinned_block(name: str, content: str | None = None, append: str | None = None) -> str:
        return impl.edit_pinned_block(store, user, name, content=content, append=append)

    return [
        FunctionTool.from_defaults(fn=search_memory, name="search_memory",
                                   description=impl.TOOL_DESCRIPTIONS["search_memory"]),
        FunctionTool.from_defaults(fn=remember, name="remember", description=impl.TOOL_DESCRIPTIONS["remember"]),
        FunctionTool.from_defaults(fn=forget, name="forget", description=impl.TOOL_DESCRIPTIONS["forget"]),
        FunctionTool.from_defaults(fn=edit_pinned_block, name="edit_pinned_block",
                                   description=impl.TOOL_DESCRIPTIONS["edit_pinned_block"]),
    ]
