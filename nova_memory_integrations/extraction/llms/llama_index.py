"""LlamaIndex LLMs as a :class:`~.base.StructuredLLM` (function calling or bare JSON)."""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from ..prompts import json_instruction, tool_name
from .base import LLMReply, Message, text_of

__all__ = ["LlamaIndexLLM"]


class LlamaIndexLLM:
    """Any LlamaIndex LLM as a :class:`StructuredLLM`.

    Setup:
        .. code-block:: bash

            pip install "nova-memory-integrations[openai]"   # llama-index-llms-openai-like

    Instantiate:
        .. code-block:: python

            from llama_index.llms.openai_like import OpenAILike
            from nova_memory_integrations.extraction.llms import LlamaIndexLLM

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

    def _force(self, name: str) -> dict[str, Any]:
        """``tool_choice=<the tool>`` where the LLM takes it: servers such as llama.cpp refuse
        ``"required"`` and accept only ``"auto"`` or a named function."""
        prepare = getattr(self.llm, "_prepare_chat_with_tools", None)
        try:
            takes = prepare is not None and "tool_choice" in inspect.signature(prepare).parameters
        except (TypeError, ValueError):
            takes = False
        return {"tool_choice": name} if takes else {}

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
            response = self.llm.chat_with_tools([tool], chat_history=chat, tool_required=True,
                                                **self._force(name))
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
            return LLMReply(text=text_of(response.message.content))
        chat.append(ChatMessage(role="user", content=json_instruction(schema)))
        return LLMReply(text=text_of(self.llm.chat(chat).message.content))
