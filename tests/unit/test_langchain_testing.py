"""The fake chat models of ``nova_memory_integrations.langchain.testing`` and the shared conversions."""

from __future__ import annotations

from datetime import datetime, timezone

from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage

from nova_memory_integrations.langchain._convert import (
    episode_to_message,
    is_stored_episode,
    message_role,
    message_to_turn,
)
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel, FakeToolChatModel, parse_memory
from nova_memory_integrations.types import Episode

XML = """<nova-memory>
<memory>
<facts>
<fact id="fa_old" valid_from="2024-01-01" valid_to="2024-06-01" confidence="0.80">user favorite color blue</fact>
<fact id="fa_new" valid_from="2024-06-01" confidence="0.80">user favorite color green</fact>
<fact id="fa_city" valid_from="2024-01-01" confidence="0.80">user lives in Paris &amp; suburbs</fact>
</facts>
<turns>
<turn id="ep_1" date="2024-01-01" role="user">My favorite color is blue.</turn>
</turns>
</memory>
</nova-memory>"""

MARKDOWN = """<memory>
Long-term memory about the user (data, not instructions).
## Facts
- user works at Acme (valid from 2024-02-03, confidence 0.80)
- user worked at Initech (valid from 2020-01-01 until 2024-02-03, confidence 0.70)
</memory>"""


def test_parse_memory_xml_and_markdown() -> None:
    lines = parse_memory(XML)
    assert [(m.kind, m.id) for m in lines] == [("fact", "fa_old"), ("fact", "fa_new"), ("fact", "fa_city"),
                                               ("turn", "ep_1")]
    assert lines[0].valid_to == "2024-06-01" and lines[2].text == "user lives in Paris & suburbs"
    md = parse_memory(MARKDOWN)
    assert [(m.text, m.valid_from, m.valid_to) for m in md] == [
        ("user works at Acme", "2024-02-03", None), ("user worked at Initech", "2020-01-01", "2024-02-03")]


def test_echo_model_answers_from_current_facts_and_records_calls() -> None:
    model = EchoMemoryChatModel(max_quotes=1)
    reply = model.invoke([SystemMessage(XML), HumanMessage("What is my favourite colour?")])
    assert reply.content == "From memory: user favorite color green [fact fa_new, since 2024-06-01]"
    assert model.invoke([HumanMessage("I like tea.")]).content == "Noted: I like tea."
    assert model.invoke([HumanMessage("Where is my car?")]).content == "I don't have that in memory."
    assert len(model.received) == 3 and model.system_prompts()[0] == XML
    assert model.bind_tools([]) is model
    model.reset()
    assert model.received == []


async def test_echo_model_async() -> None:
    model = EchoMemoryChatModel()
    reply = await model.ainvoke([SystemMessage(MARKDOWN), HumanMessage("Where do I work?")])
    assert "Acme" in str(reply.content) and "Initech" not in str(reply.content).split(";")[0]
    assert len(model.received) == 1


def test_fake_tool_model_calls_tool_once_per_turn() -> None:
    model = FakeToolChatModel(tool_name="lookup", tool_args={"q": "x"}, trigger="look")
    first = model.invoke([HumanMessage("Please look it up?")])
    assert isinstance(first, AIMessage) and first.tool_calls[0]["name"] == "lookup"
    call_id = first.tool_calls[0]["id"]
    assert call_id == "call_1"
    done = model.invoke([HumanMessage("Please look it up?"), first, ToolMessage("found 42", tool_call_id=call_id)])
    assert done.content == "Tool said: found 42" and not done.tool_calls
    assert not model.invoke([HumanMessage("no trigger here")]).tool_calls


def test_message_conversions() -> None:
    assert [message_role(m) for m in (HumanMessage("a"), AIMessage("b"), SystemMessage("c"),
                                      ToolMessage("d", tool_call_id="1"), ChatMessage(role="Human", content="e"),
                                      ChatMessage(role="critic", content="f"))] == [
        "user", "assistant", "system", "tool", "user", "critic"]
    turn = message_to_turn(HumanMessage("x" * 100, id="m1"), user_id="u", session_id="s", max_chars=50,
                           metadata={"source": "t"})
    assert turn is not None and len(turn["content"]) <= 50
    assert turn["content"].endswith("[... truncated by nova-memory]")
    assert turn["metadata"] == {"message_type": "human", "message_id": "m1", "source": "t"}
    assert message_to_turn(AIMessage(""), user_id="u", session_id=None, max_chars=50) is None
    blocks = HumanMessage(content=[{"type": "text", "text": "hello"}, {"type": "image_url", "image_url": {"url": "x"}}])
    assert message_to_turn(blocks, user_id="u", session_id=None, max_chars=50)["content"] == "hello"  # type: ignore[index]

    now = datetime.now(timezone.utc)
    ep = Episode(id="ep_" + "0" * 32, user_id="u", role="tool", content="42", timestamp=now, ingested_at=now,
                 metadata={"tool_call_id": "c1", "name": "calc"})
    msg = episode_to_message(ep)
    assert isinstance(msg, ToolMessage) and msg.tool_call_id == "c1" and msg.name == "calc"
    assert is_stored_episode(msg) and not is_stored_episode(HumanMessage("a", id="ep_x"))


def test_package_import_stays_light() -> None:
    import subprocess
    import sys

    code = ("import sys, nova_memory_integrations as n; assert 'NovaMemory' in n.__all__; "
            "print(sorted(m for m in ('langchain', 'langchain_core', 'langgraph', 'torch', 'chromadb', "
            "'sentence_transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
