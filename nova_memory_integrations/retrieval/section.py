"""The delimited memory section of a system prompt, shared by every front end.

The LangChain middleware (``render_memory_section``) and the memory server (``inject_memory``)
both put the recalled context into the system message between :data:`MEMORY_SECTION_START` and
:data:`MEMORY_SECTION_END`, so a later call replaces the section instead of piling up a second
one: :func:`with_memory_section` for a system message of one string, :func:`with_memory_parts`
for one of content parts. Pure helpers: no framework import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = [
    "MEMORY_SECTION_END", "MEMORY_SECTION_START", "SECTION_RE", "holds_memory_section", "memory_section",
    "with_memory_parts", "with_memory_section",
]

MEMORY_SECTION_START = "<nova-memory>"
MEMORY_SECTION_END = "</nova-memory>"
SECTION_RE = re.compile(re.escape(MEMORY_SECTION_START) + r".*?" + re.escape(MEMORY_SECTION_END), re.S)


def memory_section(memory_text: str) -> str:
    """``memory_text`` wrapped in the section markers ("" when there is nothing to say).

    Markers inside the memory text are defused, so stored content can never close the
    section early or open a second one.
    """
    body = memory_text.strip().replace(MEMORY_SECTION_START, "<nova_memory>").replace(MEMORY_SECTION_END,
                                                                                        "</nova_memory>")
    return f"{MEMORY_SECTION_START}\n{body}\n{MEMORY_SECTION_END}" if body else ""


def with_memory_section(text: str, memory_text: str) -> str:
    """``text`` with any previous memory section removed and ``memory_text``'s section appended."""
    base = SECTION_RE.sub("", text).strip()
    return "\n\n".join(part for part in (base, memory_section(memory_text)) if part)


def holds_memory_section(text: str) -> bool:
    """Whether ``text`` (one content part) is a memory section: it starts with the opening marker,
    or holds a whole section."""
    return text.lstrip().startswith(MEMORY_SECTION_START) or SECTION_RE.search(text) is not None


def with_memory_parts(parts: Sequence[Any], memory_text: str) -> list[Any]:
    """Content parts of a system message (strings, ``{"type": "text", "text": ...}`` dicts, any
    other part kept as it is) without the text parts that are a memory section
    (:func:`holds_memory_section`), and ``memory_text``'s section appended as a text part (none
    when it is empty). The input is never modified."""
    section = memory_section(memory_text)
    kept = [p for p in parts if not (isinstance(text := _part_text(p), str) and holds_memory_section(text))]
    return kept + ([{"type": "text", "text": section}] if section else [])


def _part_text(part: object) -> str | None:
    if isinstance(part, str):
        return part
    text = part.get("text") if isinstance(part, dict) else None
    return text if isinstance(text, str) else None
