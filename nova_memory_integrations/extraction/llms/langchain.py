"""LangChain chat models as a :class:`~.base.StructuredLLM` (tool calling or bare JSON)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel

from ..prompts import json_instruction, tool_name
from .base import LLMReply, Message, text_of

__all__ = ["LangChainChatLLM"]


class LangChainChatLLM:
    """Any LangChain chat model as a :class:`StructuredLLM`.

    Setup:
        .. code-block:: bash

            pip install "nova-memory-integrations[openai]"   # langchain-openai; or any chat model package

    Instantiate:
        .. code-block:: python

            from langchain_openai import ChatOpenAI
            from nova_memory_integrations.llms import LangChainChatLLM

            llm = LangChainChatLLM(ChatOpenAI(model="gpt-4o-mini", base_url="http://localhost:8000/v1"))

    Usage:
        .. code-block:: python

            store = NovaStore("./memory", llm=ChatOpenAI(...))   # wrapped automatically
            store.consolidate("alice")

    Args:
        model: a ``BaseChatModel`` (or any runnable with ``invoke`` and ``bind_tools``).
        method: ``"function_calling"`` (default; tool calling) or ``"json_mode"`` (bare
            JSON in the reply text).
    """

    def __init__(self, model: Any, *, method: Literal["function_calling", "json_mode"] = "function_calling") -> None:
        self.model = model
        self.method = method
        self.name = str(getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__)
        self._bound: dict[type[BaseModel], Any] = {}

    def _bind(self, schema: type[BaseModel]) -> Any:
        bound = self._bound.get(schema)
        if bound is None:
            try:
                bound = self.model.bind_tools([schema], tool_choice=tool_name(schema))
            except TypeError:  # a bind_tools without tool_choice
                bound = self.model.bind_tools([schema])
            self._bound[schema] = bound
        return bound

    def invoke_structured(self, messages: Sequence[Message], schema: type[BaseModel]) -> LLMReply:
        """Invoke the model once (tool calling, or bare JSON when unsupported)."""
        from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

        kinds: dict[str, type[BaseMessage]] = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
        bound: Any = None
        if self.method == "function_calling":
            try:
                bound = self._bind(schema)
            except NotImplementedError:
                bound = None
        if bound is None:
            msgs = [kinds[r](content=c) for r, c in messages] + [HumanMessage(content=json_instruction(schema))]
            return LLMReply(text=text_of(self.model.invoke(msgs).content))
        reply = bound.invoke([kinds[r](content=c) for r, c in messages])
        name = tool_name(schema)
        calls = [c for c in getattr(reply, "tool_calls", None) or [] if c.get("name") in (name, None, "")]
        if not calls:
            calls = list(getattr(reply, "tool_calls", None) or [])
        if calls:
            args = [c.get("args") for c in calls]
            return LLMReply(data=args[0] if len(args) == 1 else args)
        invalid = list(getattr(reply, "invalid_tool_calls", None) or [])
        if invalid:
            return LLMReply(text=str(invalid[0].get("args") or ""))
        return LLMReply(text=text_of(getattr(reply, "content", reply)))
