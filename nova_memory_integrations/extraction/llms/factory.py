"""Pick the adapter for a model: LangChain chat model, LlamaIndex LLM, or an adapter as is."""

from __future__ import annotations

from typing import Any

from ...errors import InvalidInputError
from .base import StructuredLLM
from .langchain import LangChainChatLLM
from .llama_index import LlamaIndexLLM

__all__ = ["as_structured_llm"]


def as_structured_llm(llm: Any) -> StructuredLLM:
    """Wrap a LangChain chat model or a LlamaIndex LLM (adapters pass through).

    Raises:
        InvalidInputError: ``llm`` is none of these.
    """
    if isinstance(llm, StructuredLLM):
        return llm
    module = type(llm).__module__
    if module.startswith("llama_index"):
        return LlamaIndexLLM(llm)
    if hasattr(llm, "invoke") and (hasattr(llm, "bind_tools") or module.startswith("langchain")):
        return LangChainChatLLM(llm)
    try:
        from llama_index.core.base.llms.base import BaseLLM
    except ImportError:  # pragma: no cover - llama-index is a dependency
        BaseLLM = None  # type: ignore[assignment,misc]
    if BaseLLM is not None and isinstance(llm, BaseLLM):
        return LlamaIndexLLM(llm)
    raise InvalidInputError(
        f"llm must be a LangChain chat model, a LlamaIndex LLM or a StructuredLLM, got {type(llm).__name__}"
    )
