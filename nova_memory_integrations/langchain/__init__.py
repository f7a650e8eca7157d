"""LangChain integration: long-term memory for agents and chains, backed by ``NovaStore``.

- :class:`NovaMemory`: ``create_agent`` middleware that recalls memory into the system
  prompt and records every turn.
- :class:`NovaChatMessageHistory`: a ``BaseChatMessageHistory`` for
  ``RunnableWithMessageHistory``.
- :class:`NovaRetriever`: a user's episodes, facts and rules as ``Document`` objects.
- :class:`NovaCompressor`: rerank, deduplicate and compress any documents to a budget.
- :class:`NovaCallbackHandler`: record the conversation of any chain or agent run.
- :func:`create_memory_tools`: ``search_memory``, ``remember`` and ``forget`` tools for agents.
"""

from __future__ import annotations

from .callbacks import NovaCallbackHandler
from .compressor import NovaCompressor
from .history import NovaChatMessageHistory
from .middleware import NovaMemory, NovaMemoryState, render_memory_section
from .retriever import NovaRetriever
from .tools import create_memory_tools

__all__ = [
    "NovaCallbackHandler",
    "NovaChatMessageHistory",
    "NovaCompressor",
    "NovaMemory",
    "NovaMemoryState",
    "NovaRetriever",
    "create_memory_tools",
    "render_memory_section",
]
