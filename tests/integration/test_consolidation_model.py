"""``NovaMemory(consolidation_model=...)``: the agent's own model consolidates, batched, off-thread.

The consolidation model is a fake LangChain chat model answering with tool calls (the only
fake); store, SQLite, Chroma and MiniLM are real.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from fake_llms import FakeToolChatModel, scripted_responder
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langchain import NovaMemory
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel

SCRIPT = {f"Fact number {i}: I like topic{i}.": [
    {"op": "ADD", "subject": "user", "predicate": "likes", "object": f"topic{i}", "reason": "taste"}] for i in range(12)}


def _agent(memory: NovaMemory) -> Any:
    return create_agent(EchoMemoryChatModel(), [], middleware=[memory], checkpointer=InMemorySaver())


def _say(agent: Any, text: str, user: str = "ann") -> None:
    agent.invoke({"messages": [{"role": "user", "content": text}]},
                 {"configurable": {"thread_id": f"t-{user}", "user_id": user}})


def _likes(store: NovaStore, user: str = "ann") -> set[str]:
    return {f.object for f in store.facts(user) if f.predicate == "likes"}


def test_turns_are_consolidated_by_the_model_in_batches(store: NovaStore) -> None:
    model = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    memory = NovaMemory(store, consolidation_model=model, consolidation_batch_turns=10, consolidation_idle_seconds=0)
    agent = _agent(memory)
    for i in range(5):  # 10 turns: 5 user messages and 5 replies
        _say(agent, f"Fact number {i}: I like topic{i}.")
    memory.flush_consolidation(timeout=60)
    assert _likes(store) == {f"topic{i}" for i in range(5)}
    assert memory.llm_calls == 1


def test_below_the_batch_nothing_is_consolidated_until_idle(store: NovaStore) -> None:
    model = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    memory = NovaMemory(store, consolidation_model=model, consolidation_batch_turns=50, consolidation_idle_seconds=0.5)
    agent = _agent(memory)
    _say(agent, "Fact number 7: I like topic7.")
    assert memory.llm_calls == 0
    deadline = time.monotonic() + 30
    while _likes(store) != {"topic7"} and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _likes(store) == {"topic7"}


def test_consolidation_never_runs_on_the_agents_thread(store: NovaStore) -> None:
    threads: list[str] = []
    responder = scripted_responder(SCRIPT)

    def respond(prompt: Any, tools: Any) -> Any:
        threads.append(threading.current_thread().name)
        return responder(prompt, tools)

    memory = NovaMemory(store, consolidation_model=FakeToolChatModel(respond=respond), consolidation_batch_turns=2,
                        consolidation_idle_seconds=0)
    _say(_agent(memory), "Fact number 3: I like topic3.")
    memory.flush_consolidation(timeout=60)
    assert threads and all(t.startswith("nova-memory-model-consolidation") for t in threads)


def test_a_failing_model_never_breaks_the_agent_and_loses_nothing(store: NovaStore) -> None:
    def respond(prompt: Any, tools: Any) -> Any:
        raise TimeoutError("model down")

    memory = NovaMemory(store, consolidation_model=FakeToolChatModel(respond=respond), consolidation_batch_turns=2,
                        consolidation_idle_seconds=0)
    _say(_agent(memory), "Fact number 1: I like topic1.")
    memory.flush_consolidation(timeout=120)
    assert [e.processed for e in store.episodes("ann")] == [False, False]


def test_each_users_turns_go_to_their_own_memory(store: NovaStore) -> None:
    memory = NovaMemory(store, consolidation_model=FakeToolChatModel(respond=scripted_responder(SCRIPT)),
                        consolidation_batch_turns=2, consolidation_idle_seconds=0)
    agent = _agent(memory)
    _say(agent, "Fact number 1: I like topic1.", user="ann")
    _say(agent, "Fact number 2: I like topic2.", user="bob")
    memory.flush_consolidation(timeout=60)
    assert (_likes(store, "ann"), _likes(store, "bob")) == ({"topic1"}, {"topic2"})


async def test_llamaindex_memory_block_consolidates_with_its_model(store: NovaStore) -> None:
    from llama_index.core.base.llms.types import ChatMessage

    from nova_memory_integrations.llama_index import NovaMemoryBlock

    block = NovaMemoryBlock(store, user_id="ann", consolidation_model=FakeToolChatModel(respond=scripted_responder(SCRIPT)),
                            consolidation_batch_turns=2, consolidation_idle_seconds=0)
    await block.aput([ChatMessage(role="user", content="Fact number 4: I like topic4."),
                      ChatMessage(role="assistant", content="Noted.")])
    block.flush_consolidation(timeout=60)
    assert (_likes(store), block.llm_calls) == ({"topic4"}, 1)
