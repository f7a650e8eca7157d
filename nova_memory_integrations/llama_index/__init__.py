"""LlamaIndex integration: retriever, node postprocessor, memory block and event handler.

Every object is a thin adapter over one :class:`~nova_memory_integrations.NovaStore`::

    from nova_memory_integrations.llama_index import (
        NovaEventHandler, NovaLlamaMemory, NovaMemoryBlock, NovaNodePostprocessor, NovaRetriever,
        create_memory_tools,
    )
"""

from __future__ import annotations

from .events import NovaEventHandler
from .memory_block import NovaLlamaMemory, NovaMemoryBlock, nova_memory
from .postprocessor import NovaNodePostprocessor
from .retriever import NovaRetriever
from .tools import create_memory_tools

__all__ = [
    "NovaEventHandler",
    "NovaLlamaMemory",
    "NovaMemoryBlock",
    "NovaNodePostprocessor",
    "NovaRetriever",
    "create_memory_tools",
    "nova_memory",
]
