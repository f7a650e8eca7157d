"""LLM adapters: a LangChain chat model or a LlamaIndex LLM behind one internal protocol.

One provider shape: :mod:`.base` (the protocol), one module per backend
(:mod:`.langchain`, :mod:`.llama_index`), :mod:`.factory` (``as_structured_llm``).

Consolidation only needs "send these messages, get this pydantic schema back". The
:class:`StructuredLLM` protocol says exactly that and returns the model's answer
*unvalidated* (:class:`LLMReply`: parsed tool arguments when the model produced
well-formed ones, else the raw text), so that the caller can repair near-misses,
retry, and record what failed.

* LangChain: tool calling via ``bind_tools([schema], tool_choice=<name>)`` — what
  ``with_structured_output(schema, method="function_calling")`` does underneath, and the
  method that works with local OpenAI-compatible servers. ``method="json_mode"`` (or a
  model without tool support) asks for bare JSON in the text instead.
* LlamaIndex: a function-calling LLM gets the schema as a tool (``chat_with_tools``);
  any other LLM is asked for bare JSON through ``chat``.

Framework imports are lazy: nothing here loads LangChain or LlamaIndex until used.
"""


from __future__ import annotations

from .base import LLMReply, Message, StructuredLLM
from .factory import as_structured_llm
from .langchain import LangChainChatLLM
from .llama_index import LlamaIndexLLM

__all__ = ["LLMReply", "LangChainChatLLM", "LlamaIndexLLM", "Message", "StructuredLLM", "as_structured_llm"]
