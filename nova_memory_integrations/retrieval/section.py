"""The delimited memory section of a system prompt, shared by every front end.

The LangChain middleware and the memory server both put the recalled context into the
system message between :data:`MEMORY_SECTION_START` and :data:`MEMORY_SECTION_END`, so a
later call replaces the section instead of piling up a second one. Pure string helpers:
no framework import.
"""

from __future__ import annotations

import re

__all__ = ["MEMORY_SECTION_END", "MEMORY_SECTION_START", "SECTION_RE", "memory_section", "with_memory_section"]

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
