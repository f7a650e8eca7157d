"""The one protocol consolidation talks to a model through, and its unvalidated reply."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

__all__ = ["LLMReply", "Message", "StructuredLLM", "text_of"]

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


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content blocks
        parts = [b.get("text", "") if isinstance(b, dict) else str(b) for b in content]
        return "".join(p for p in parts if isinstance(p, str))
    return "" if content is None else str(content)
