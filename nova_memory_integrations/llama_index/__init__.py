"""LlamaIndex integration: retriever, node postprocessor, memory block and event handler.

Every object is a thin adapter over one :class:`~nova_memory_integrations.NovaStore`::

    from nova_memory_integrations.llama_index import (
        NovaEventHandler, NovaLlamaMemory, NovaMemoryBlock, NovaNodePostprocessor, NovaRetriever,
    )
"""

from __future__ import annotations

from .events import NovaEventHandler
from .memory_block import NovaLlamaMemory, NovaMemoryBlock, nova_memory
from .postprocessor import NovaNodePostprocessor
from .retriever import NovaRetriever

__all__ = [
    "NovaEventHandler",
    "NovaLlamaMemory",
    "NovaMemoryBlock",
    "NovaNodePostprocessor",
    "NovaRetriever",
    "nova_memory",
]
