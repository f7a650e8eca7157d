"""NovaMemoryBlock in LlamaIndex ``Memory`` and the immediately-capturing NovaLlamaMemory."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from llama_index.core.agent.workflow import ReActAgent
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms import ChatMessage
from llama_index.core.memory import Memory
from llama_index.core.utils import get_tokenizer

from nova_memory_integrations import NovaConfig, NovaStore, StoreClosedError
from nova_memory_integrations.config import ConsolidationConfig
from nova_memory_integrations.llama_index import NovaLlamaMemory, NovaMemoryBlock, nova_memory
from nova_memory_integrations.llama_index.testing import ExtractiveMemoryLLM


def _system(messages: list[ChatMessage]) -> str:
    assert messages and messages[0].role == "system"
    return messages[0].content or ""


def test_block_puts_memory_context_into_the_system_message(store: NovaStore) -> None:
    store.add_turn("alice", "user", "I live in Lisbon and I work at Acme.", session_id="old")
    block = NovaMemoryBlock(store, user_id="alice", budget_tokens=200)
    memory = Memory.from_defaults(session_id="new", memory_blocks=[block], token_limit=4000)
    memory.put(ChatMessage(role="system", content="You are a helpful assistant."))
    messages = memory.get(input="Where do I live?")
    expected = store.context("Where do I live?", "alice", budget_tokens=200).text
    assert expected.startswith("<memory>\n") and expected.endswith("\n</memory>")
    system = _system(messages)
    # Memory wraps the block as <memory><nova_memory>...</nova_memory></memory>: one <memory> level
    assert expected[len("<memory>\n"):-len("\n</memory>")] in system and "<nova_memory>" in system
    assert system.count("<memory>") == 1 and system.count("</memory>") == 1, system
    assert "You are a helpful assistant." in system  # the caller's system prompt is kept
    assert memory.get_all()[0].content == "You are a helpful assistant."  # the stored history is not edited


def test_single_turn_is_in_the_system_message_with_immediate_capture(make_store: Any) -> None:
    store = make_store(config=NovaConfig(consolidation=ConsolidationConfig(mode="immediate")))
    memory = nova_memory(store, "bob", session_id="monday", budget_tokens=200)
    assert isinstance(memory, NovaLlamaMemory)
    memory.put(ChatMessage(role="user", content="I adopted a dog named Rex."))
    memory.put(ChatMessage(role="assistant", content="Congratulations on adopting Rex!"))
    stored = store.episodes("bob")
    assert [(e.role, e.content, e.session_id) for e in stored] == [
        ("user", "I adopted a dog named Rex.", "monday"),
        ("assistant", "Congratulations on adopting Rex!", "monday"),
    ]
    assert stored[0].metadata == {"source": "llama_index.memory"}
    messages = memory.get(input="What is my dog called?")
    system = _system(messages)
    # after one turn the memory block holds what the store learnt from it (the fact) ...
    assert "<nova_memory>" in system and "user has pet dog named Rex" in system
    # ... but not the turns the LLM already sees in the chat history
    assert "Congratulations" not in system and [m.content for m in messages[1:]] == [e.content for e in stored]
    # a new session (a fresh Memory, empty history) recalls the turn itself too
    later = NovaLlamaMemory.from_store(store, "bob", session_id="tuesday")
    assert "I adopted a dog named Rex." in _system(later.get(input="What is my dog called?"))


def test_immediate_capture_stores_each_message_once_even_when_flushing(store: NovaStore) -> None:
    memory = NovaLlamaMemory.from_store(store, "carol", session_id="s", token_limit=60, token_flush_size=20)
    texts = [f"Message number {i}: today I practised the cello for {i} hours in the morning." for i in range(8)]
    for i, text in enumerate(texts):
        memory.put(ChatMessage(role="user" if i % 2 == 0 else "assistant", content=text))
    assert len(memory.get_all()) > len(memory.get())  # some messages were flushed to the blocks
    assert [e.content for e in store.episodes("carol")] == texts


async def test_plain_memory_flushes_to_the_block(store: NovaStore) -> None:
    block = NovaMemoryBlock(store, user_id="dave")
    memory = Memory.from_defaults(session_id="sess-1", memory_blocks=[block], token_limit=60, token_flush_size=20)
    for i in range(6):
        await memory.aput(ChatMessage(role="user", content=f"Note {i}: my locker code is {1000 + i} this week."))
    stored = store.episodes("dave")
    assert stored and all(e.session_id == "sess-1" and e.role == "user" for e in stored)
    assert len({e.content for e in stored}) == len(stored) < 6  # flushed ones only, once each
    pinned = NovaMemoryBlock(store, user_id="dave", session_id="pinned")
    await pinned.aput([ChatMessage(role="user", content="Pinned note."), ChatMessage(role="tool", content="x"),
                       ChatMessage(role="assistant", content="  ")])
    assert [(e.content, e.session_id) for e in store.episodes("dave", session_id="pinned")] == [("Pinned note.",
                                                                                                  "pinned")]


async def test_block_without_a_question_adds_nothing(store: NovaStore) -> None:
    block = NovaMemoryBlock(store, user_id="erin")
    assert await block.aget([]) == ""
    assert await block.aget([ChatMessage(role="system", content="rules")]) == ""
    store.add_turn("erin", "user", "I am allergic to peanuts.")
    text = await block.aget([ChatMessage(role="assistant", content="Any allergies I should know about?")])
    assert "peanuts" in text


async def test_truncation_repacks_the_context(store: NovaStore) -> None:
    facts = ["I play the cello.", "I live in Lisbon.", "I work at Acme as a nurse.", "My sister is called Ana.",
             "I am allergic to peanuts.", "My favourite colour is blue."]
    for text in facts:
        store.add_turn("u", "user", text)
    block = NovaMemoryBlock(store, user_id="u", budget_tokens=400, priority=1)
    content = await block.aget([ChatMessage(role="user", content="Tell me about my life: city, job, family?")])
    full = store.count_tokens(content)
    shorter = await block.atruncate(content, 25)
    assert not content.startswith("<memory>") and "Long-term memory about the user" in content
    assert shorter is not None and "Long-term memory about the user" in shorter and "<memory>" not in shorter
    assert store.count_tokens(shorter) <= full - 25
    assert await block.atruncate(content, 10_000) is None
    assert await block.atruncate(content, 0) == content
    assert await block.atruncate("something else", 5) is None
    # Memory itself shrinks the block when history + memory exceed its token limit
    limit = len(get_tokenizer()(content)) - 20
    memory = Memory.from_defaults(session_id="x", memory_blocks=[block], token_limit=limit)
    messages = memory.get(input="Tell me about my life: city, job, family?")
    items = [ln for ln in _system(messages).splitlines() if ln.startswith("- ")]
    assert 0 < len(items) < len([ln for ln in content.splitlines() if ln.startswith("- ")])


async def test_turns_already_in_the_history_are_not_repeated(store: NovaStore) -> None:
    store.add_turn("v", "user", "I live in Lisbon.", session_id="old")
    memory = nova_memory(store, "v", session_id="new")
    await memory.aput(ChatMessage(role="user", content="My cat is called Miso and I live in Lisbon."))
    system = _system(await memory.aget(input="Where do I live, and what is my cat called?"))
    assert "I live in Lisbon." in system and "Miso" not in system


async def test_agent_and_chat_engine_runs_are_captured(store: NovaStore) -> None:
    memory = nova_memory(store, "frank", session_id="agent")
    llm = ExtractiveMemoryLLM(responses=["Thought: I can answer without using any more tools.\nAnswer: Noted, Oslo."])
    agent = ReActAgent(tools=[], llm=llm)
    await agent.run(user_msg="I moved to Oslo.", memory=memory)
    assert [(e.role, e.content) for e in store.episodes("frank")] == [("user", "I moved to Oslo."),
                                                                       ("assistant", "Noted, Oslo.")]
    chat_memory = nova_memory(store, "frank", session_id="chat")
    engine = SimpleChatEngine.from_defaults(llm=ExtractiveMemoryLLM(), memory=chat_memory)
    reply = engine.chat("Which city did I move to?")
    assert "Oslo" in str(reply)  # recalled from the agent session through the memory block
    assert [e.role for e in store.episodes("frank", session_id="chat")] == ["user", "assistant"]


def test_fail_open(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    memory = nova_memory(store, "gina", session_id="s")
    loud = nova_memory(store, "gina", session_id="t", raise_on_error=True)
    store.close()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        memory.put(ChatMessage(role="user", content="hello"))
        messages = memory.get(input="hello again")
    assert [m.content for m in messages] == ["hello"]  # history without memory
    assert "storing 1 message(s) failed" in caplog.text and "memory context for gina failed" in caplog.text
    with pytest.raises(StoreClosedError):  # async: LlamaIndex's sync wrapper re-wraps RuntimeErrors
        asyncio.run(loud.aput(ChatMessage(role="user", content="hello")))


def test_validation(store: NovaStore) -> None:
    with pytest.raises(ValueError):
        NovaMemoryBlock(store, user_id="")
    with pytest.raises(ValueError):
        NovaMemoryBlock(store, user_id="u", budget_tokens=0)
    block = NovaMemoryBlock(store, user_id="u")
    memory = NovaLlamaMemory(token_limit=1000, memory_blocks=[block], nova_store=store, nova_user_id="u")
    assert block.accept_short_term_memory is False and memory.memory_blocks[0] is block
