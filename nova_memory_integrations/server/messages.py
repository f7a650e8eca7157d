"""Pure helpers over OpenAI chat payloads: text of a message, memory injection, the reply.

No I/O and no framework: the proxy calls these on the parsed JSON of a request or a
response; they never modify their input.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..retrieval.section import memory_section, with_memory_parts, with_memory_section

__all__ = ["SYSTEM_ROLES", "content_text", "inject_memory", "latest_user_text", "longest_message", "reply_text"]

SYSTEM_ROLES = ("system", "developer")


def content_text(content: object) -> str:
    """The text of a message ``content``: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text") if isinstance(p, dict) and p.get("type") == "text" else None
                 for p in content]
        return "\n".join(p for p in parts if isinstance(p, str) and p)
    return ""


def latest_user_text(messages: Sequence[object]) -> str:
    """Text of the latest user message that has text ("" when there is none)."""
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user":
            text = content_text(message.get("content")).strip()
            if text:
                return text
    return ""


def longest_message(messages: Sequence[object]) -> int:
    """Characters of the largest message content (text and non-text parts alike)."""
    longest = 0
    for message in messages:
        content = message.get("content") if isinstance(message, dict) else message
        size = len(content) if isinstance(content, str) else len(json.dumps(content, ensure_ascii=False))
        longest = max(longest, size)
    return longest


def inject_memory(messages: Sequence[Any], memory_text: str) -> list[Any]:
    """``messages`` with ``memory_text`` in its own delimited section of the system message.

    Appended to the first system (or developer) message, replacing a memory section it
    may already hold; with no system message, a new one goes first. An empty
    ``memory_text`` only removes a previous section. The input is never modified.
    """
    out = list(messages)
    for i, message in enumerate(out):
        if not isinstance(message, dict) or message.get("role") not in SYSTEM_ROLES:
            continue
        content = message.get("content")
        new_content: Any = (with_memory_parts(content, memory_text) if isinstance(content, list)
                            else with_memory_section(content if isinstance(content, str) else "", memory_text))
        out[i] = {**message, "content": new_content}
        return out
    section = memory_section(memory_text)
    if section:
        out.insert(0, {"role": "system", "content": section})
    return out


def reply_text(body: object) -> str:
    """The assistant text of a non-streaming chat completion (first choice; "" if none)."""
    if not isinstance(body, dict):
        return ""
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return ""
    message = choices[0].get("message")
    return content_text(message.get("content")) if isinstance(message, dict) else ""
