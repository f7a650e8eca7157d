"""Thin adapters: a LangChain chat model or a LlamaIndex LLM behind one internal protocol.

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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from ..consolidation.prompts import json_instruction, tool_name
from ..errors import InvalidInputError

__all__ = ["LLMReply", "LangChainChatLLM", "LlamaIndexLLM", "StructuredLLM", "as_structured_llm"]

Message = tuple[str, str]


@dataclass(frozen=True)
class LLMReply:
    """What a model answered, before validation.

    ``data`` holds the tool-call arguments when they were well-formed JSON (several calls
    of the tool are given as a list); ``text`` holds everything else worth repairing
    (malformed arguments, or the message text).
    """

    data: Any = None
    text: str | None = None


@runtime_checkable
class StructuredLLM(Protocol):
    """The one interface consolidation uses to talk to a model."""

    name: str

    def invoke_structured(self, messages: Sequence[Message], schema: type[BaseModel]) -> LLMReply:
        """Send ``messages`` asking for ``schema``; return the unvalidated answer."""
        ...


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        parts = [b.get("text", "") if isinstance(b, dict) else str(b) for b in content]
        return "".join(p for p in parts if isinstance(p, str))
    return "" if content is None else str(content)


class LangChainChatLLM:
    """Any LangChain chat model as a :class:`StructuredLLM`.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations langchain-openai   # or any chat model package

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
            return LLMReply(text=_text_of(self.model.invoke(msgs).content))
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
        return LLMReply(text=_text_of(getattr(reply, "content", reply)))


class LlamaIndexLLM:
    """Any LlamaIndex LLM as a :class:`StructuredLLM`.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations llama-index-llms-openai-like

    Instantiate:
        .. code-block:: python

            from llama_index.llms.openai_like import OpenAILike
            from nova_memory_integrations.llms import LlamaIndexLLM

            llm = LlamaIndexLLM(OpenAILike(model="qwen2.5", api_base="http://localhost:8000/v1"))

    Usage:
        .. code-block:: python

            store = NovaStore("./memory", llm=OpenAILike(...))   # wrapped automatically
            store.consolidate("alice")

    Args:
        llm: a LlamaIndex ``LLM``; function-calling models get the schema as a tool,
            others are asked for bare JSON.
    """

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.name = str(getattr(getattr(llm, "metadata", None), "model_name", None) or type(llm).__name__)

    def _function_calling(self) -> bool:
        meta = getattr(self.llm, "metadata", None)
        return bool(getattr(meta, "is_function_calling_model", False)) and hasattr(self.llm, "chat_with_tools")

    def invoke_structured(self, messages: Sequence[Message], schema: type[BaseModel]) -> LLMReply:
        """Invoke the model once (tool calling when supported, else bare JSON)."""
        from llama_index.core.llms import ChatMessage

        chat = [ChatMessage(role=r, content=c) for r, c in messages]
        if self._function_calling():
            from llama_index.core.tools import FunctionTool

            name = tool_name(schema)

            def _record(**kwargs: Any) -> dict[str, Any]:
                return kwargs

            tool = FunctionTool.from_defaults(fn=_record, name=name, description=schema.__doc__ or name,
                                              fn_schema=schema)
            response = self.llm.chat_with_tools([tool], chat_history=chat, tool_required=True)
            try:
                calls = self.llm.get_tool_calls_from_response(response, error_on_no_tool_call=False)
            except Exception:  # malformed arguments: fall back to the raw text
                calls = []
            args = [c.tool_kwargs for c in calls if getattr(c, "tool_name", name) == name]
            if args:
                return LLMReply(data=args[0] if len(args) == 1 else args)
            raw = response.message.additional_kwargs.get("tool_calls") or []
            for call in raw:
                fn = call.get("function", {}) if isinstance(call, dict) else {}
                if fn.get("arguments"):
                    return LLMReply(text=str(fn["arguments"]))
            return LLMReply(text=_text_of(response.message.content))
        chat.append(ChatMessage(role="user", content=json_instruction(schema)))
        return LLMReply(text=_text_of(self.llm.chat(chat).message.content))


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
