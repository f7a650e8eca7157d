"""The one memory section (``retrieval/section.py``) that the LangChain middleware and the memory
server both write: the same section, replaced the same way, in a string or in content parts."""

from __future__ import annotations

from langchain_core.messages import SystemMessage

from nova_memory_integrations.langchain import render_memory_section
from nova_memory_integrations.retrieval.section import holds_memory_section, memory_section, with_memory_parts
from nova_memory_integrations.server.messages import inject_memory

IMAGE = {"type": "image_url", "image_url": {"url": "data:,"}}
OLD = memory_section("- old fact")


def test_both_front_ends_write_the_same_string_section() -> None:
    system = SystemMessage("Be brief.")
    via_langchain = render_memory_section(system, "- a fact")
    via_server = inject_memory([{"role": "system", "content": "Be brief."}], "- a fact")
    assert via_langchain is not None and via_langchain.content == via_server[0]["content"]


def test_both_front_ends_replace_the_same_parts() -> None:
    parts = [{"type": "text", "text": "Rules."}, IMAGE, {"type": "text", "text": f"intro {OLD}"}, OLD]
    via_langchain = render_memory_section(SystemMessage(content=parts), "- new fact")  # type: ignore[arg-type]
    via_server = inject_memory([{"role": "system", "content": parts}], "- new fact")
    expected = [{"type": "text", "text": "Rules."}, IMAGE, {"type": "text", "text": memory_section("- new fact")}]
    assert via_langchain is not None and via_langchain.content == expected == via_server[0]["content"]
    assert with_memory_parts(parts, "") == expected[:2]


def test_what_counts_as_a_memory_part() -> None:
    assert holds_memory_section(OLD) and holds_memory_section("  " + OLD) and holds_memory_section(f"x {OLD} y")
    assert holds_memory_section("<nova-memory>\nunterminated")
    assert not holds_memory_section("mentions </nova-memory> only")
