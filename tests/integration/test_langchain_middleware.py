"""NovaMemory middleware: injection, capture (exactly once), async, fail-open, end to end."""

from __future__ import annotations

import asyncio
import logging
import statistics
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.runtime import Runtime

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langchain import NovaMemory
from nova_memory_integrations.langchain._shared import close_shared_stores, shared_store
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel, FakeToolChatModel, parse_memory

USER = "alice"
LOGGER = "nova_memory_integrations.langchain"


def _ask(agent: Any, text: str, thread: str) -> str:
    out = agent.invoke({"messages": [{"role": "user", "content": text}]}, {"configurable": {"thread_id": thread}})
    return str(out["messages"][-1].content)


def _agent(store: NovaStore, model: Any, tools: list[Any] | None = None, **kw: Any) -> Any:
    memory = NovaMemory(store, user_id=USER, consolidation="immediate", **kw)
    return create_agent(
        model,
        tools or [],
        system_prompt="You are a helpful assistant.",
        middleware=[memory],
        checkpointer=InMemorySaver(),
    )


def _sections(system_prompt: str) -> int:
    return system_prompt.count("<nova-memory>")


# -- end to end -----------------------------------------------------------------------------
def test_agent_remembers_across_sessions_and_updates(store: NovaStore) -> None:
    model = EchoMemoryChatModel()
    agent = _agent(store, model)
    for text in ("My favorite color is blue.", "I live in Paris.", "I work at Acme."):
        assert _ask(agent, text, "session-1").startswith("Noted")

    facts = {f.predicate: f for f in store.facts(USER)}
    assert {"favorite_color", "lives_in", "works_at"} <= set(facts)

    # session 2 (new thread): the model receives the remembered facts with their sources
    answer = _ask(agent, "What is my favorite color?", "session-2")
    system = model.system_prompts()[-1]
    assert system.startswith("You are a helpful assistant.")
    assert _sections(system) == 1
    for predicate in ("favorite_color", "lives_in", "works_at"):
        fact = facts[predicate]
        assert fact.object in system and fact.id in system  # fact text and its source id
    assert f'<turn id="{facts["favorite_color"].provenance[0]}"' in system  # the episode it came from
    assert "blue" in answer and facts["favorite_color"].id in answer

    # a preference changed in session 2 is answered with the new value afterwards
    _ask(agent, "Actually my favorite color is green now.", "session-2")
    answer = _ask(agent, "What is my favorite color?", "session-2")
    assert "green" in answer and "blue" not in answer
    current = [f for f in store.facts(USER, predicate="favorite_color")]
    assert [f.object for f in current] == ["green"]
    assert _sections(model.system_prompts()[-1]) == 1  # replaced, never piled up

    # every turn captured exactly once, with its session
    episodes = store.episodes(USER)
    assert [e.role for e in episodes] == ["user", "assistant"] * 6
    assert [e.session_id for e in episodes] == ["session-1"] * 6 + ["session-2"] * 6
    assert len({e.content for e in episodes if e.role == "user"}) == 5  # the question asked twice is 2 turns
    assert all(e.metadata["source"] == "langchain.NovaMemory" for e in episodes)


async def test_async_agent_recalls_and_captures(store: NovaStore) -> None:
    model = EchoMemoryChatModel()
    agent = _agent(store, model)
    cfg: Any = {"configurable": {"thread_id": "a1"}}
    await agent.ainvoke({"messages": [{"role": "user", "content": "I live in Paris."}]}, cfg)
    out = await agent.ainvoke(
        {"messages": [{"role": "user", "content": "Where do I live?"}]}, {"configurable": {"thread_id": "a2"}}
    )
    assert "Paris" in out["messages"][-1].content
    assert "Paris" in model.system_prompts()[-1]
    assert [(e.role, e.session_id) for e in store.episodes(USER)] == [
        ("user", "a1"),
        ("assistant", "a1"),
        ("user", "a2"),
        ("assistant", "a2"),
    ]


# -- capture exactly once ---------------------------------------------------------------------
@tool
def get_weather(city: str) -> str:
    """Weather of a city."""
    return f"It is sunny in {city}."


def test_tool_loop_captures_each_message_once(store: NovaStore) -> None:
    model = FakeToolChatModel(tool_name="get_weather", tool_args={"city": "Paris"}, trigger="weather")
    agent = _agent(store, model, [get_weather], capture_tools=True)
    answer = _ask(agent, "What is the weather in Paris today?", "t1")
    assert "sunny" in answer
    assert len(model.received) == 2  # tool call, then the answer
    assert all(_sections(p) <= 1 for p in model.system_prompts())
    episodes = store.episodes(USER)
    assert [e.role for e in episodes] == ["user", "tool", "assistant"]  # tool-call-only AI message has no text
    assert episodes[1].metadata["tool_call_id"] == "call_1"
    assert episodes[1].metadata["name"] == "get_weather"

    _ask(agent, "What is the weather in Paris tomorrow?", "t1")  # same thread: history is not re-captured
    assert [e.role for e in store.episodes(USER)] == ["user", "tool", "assistant"] * 2


def test_tool_results_not_captured_by_default(store: NovaStore) -> None:
    model = FakeToolChatModel(tool_name="get_weather", tool_args={"city": "Oslo"})
    _ask(_agent(store, model, [get_weather]), "Is it cold?", "t1")
    assert [e.role for e in store.episodes(USER)] == ["user", "assistant"]


def test_history_passed_without_checkpointer_is_not_recaptured(store: NovaStore) -> None:
    memory = NovaMemory(store, user_id=USER, consolidation="manual")
    agent = create_agent(EchoMemoryChatModel(), [], middleware=[memory])
    agent.invoke({"messages": [HumanMessage("I live in Paris.")]})
    history = [HumanMessage("I live in Paris."), AIMessage("Noted: I live in Paris."), HumanMessage("Where do I live?")]
    agent.invoke({"messages": history})
    contents = [e.content for e in store.episodes(USER)]
    assert contents.count("I live in Paris.") == 1
    assert contents[-2:] == ["Where do I live?", contents[-1]] and contents[-1].startswith("From memory")


# -- the system prompt section ---------------------------------------------------------------


def test_budget_is_respected(store: NovaStore) -> None:
    store.add_turns(
        [
            {
                "user_id": USER,
                "role": "user",
                "content": f"Note {i}: I like hiking trail number {i} "
                "near the lake, especially in autumn when the leaves turn.",
            }
            for i in range(30)
        ]
    )
    model = EchoMemoryChatModel()
    agent = _agent(store, model, budget_tokens=120)
    _ask(agent, "Which hiking trails do I like?", "b1")
    system = model.system_prompts()[-1]
    section = system.split("<nova-memory>\n", 1)[1].split("\n</nova-memory>", 1)[0]
    assert 0 < store.count_tokens(section) <= 120
    assert 0 < len(parse_memory(section)) < 30  # the budget cut the 30 matching turns


# -- fail open --------------------------------------------------------------------------------
def test_recall_failure_logs_and_continues(
    store: NovaStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("index unavailable")

    monkeypatch.setattr(store, "context", boom)
    model = EchoMemoryChatModel()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        answer = _ask(_agent(store, model), "Where do I live?", "f1")
    assert answer == "I don't have that in memory."
    assert model.system_prompts()[-1] == "You are a helpful assistant."
    assert any(
        "memory recall failed" in r.getMessage() and "index unavailable" in r.getMessage() for r in caplog.records
    )
    assert len(store.episodes(USER)) == 2  # capture still works


def test_capture_failure_logs_and_continues(
    store: NovaStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "add_turns", boom)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert _ask(_agent(store, EchoMemoryChatModel()), "I live in Paris.", "f2") == "Noted: I live in Paris."
    assert any("memory capture failed" in r.getMessage() for r in caplog.records)


async def test_async_failure_is_fail_open(
    store: NovaStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store.close()  # every engine call now raises StoreClosedError
    agent = _agent(store, EchoMemoryChatModel())
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        out = await agent.ainvoke(
            {"messages": [{"role": "user", "content": "Hi?"}]}, {"configurable": {"thread_id": "x"}}
        )
    assert out["messages"][-1].content == "I don't have that in memory."
    assert {"memory recall failed", "memory capture failed"} <= {
        m for r in caplog.records for m in ("memory recall failed", "memory capture failed") if m in r.getMessage()
    }


# -- construction -----------------------------------------------------------------------------


@pytest.fixture
def shared_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("NOVA_MEMORY_HOME", str(tmp_path / "home"))
    yield tmp_path / "home"
    close_shared_stores()


def test_store_none_opens_one_shared_store_lazily(shared_home: Path) -> None:
    first, second = NovaMemory(user_id="u1"), NovaMemory(user_id="u2")
    assert first._store is None and not shared_home.exists()  # nothing opened at construction
    assert first.store is second.store is shared_store()
    assert first.store.path == shared_home.resolve()


# -- one agent, per-call users -----------------------------------------------------------------
@dataclass
class Context:
    user_id: str


def test_no_arguments_two_users_in_one_agent(shared_home: Path) -> None:
    model = EchoMemoryChatModel()
    agent = create_agent(model, [], middleware=[NovaMemory()], context_schema=Context, checkpointer=InMemorySaver())

    def ask(text: str, thread: str, user: str) -> str:
        out = agent.invoke(
            {"messages": [{"role": "user", "content": text}]},
            {"configurable": {"thread_id": thread}},
            context=Context(user_id=user),
        )
        return str(out["messages"][-1].content)

    ask("I live in Paris.", "a1", "alice")
    ask("I live in Oslo.", "b1", "bob")
    store = shared_store()  # NovaMemory() opened the default store
    assert store.path == shared_home.resolve()
    store.flush()
    assert "Paris" in ask("Where do I live?", "a2", "alice") and "Oslo" not in model.system_prompts()[-1]
    assert "Oslo" in ask("Where do I live?", "b2", "bob") and "Paris" not in model.system_prompts()[-1]
    assert [(e.role, e.session_id) for e in store.episodes("alice")] == [
        ("user", "a1"),
        ("assistant", "a1"),
        ("user", "a2"),
        ("assistant", "a2"),
    ]
    assert store.episodes("bob")[0].content == "I live in Oslo."


def test_user_from_configurable_and_no_user_means_no_memory(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    model = EchoMemoryChatModel()
    agent = create_agent(model, [], system_prompt="Sys.", middleware=[NovaMemory(store, consolidation="immediate")])
    agent.invoke(
        {"messages": [{"role": "user", "content": "I live in Paris."}]},
        {"configurable": {"user_id": "carol", "thread_id": "c1"}},
    )
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for _ in range(2):
            out = agent.invoke({"messages": [{"role": "user", "content": "Where do I live?"}]})
            assert out["messages"][-1].content == "I don't have that in memory."
            assert model.system_prompts()[-1] == "Sys."
    assert len([r for r in caplog.records if "found no user" in r.getMessage()]) == 1
    assert [e.session_id for e in store.episodes("carol")] == ["c1", "c1"]
    assert store.stats()["episodes"] == 2  # the user-less calls recorded nothing, under no user


def test_thread_shared_by_two_users_files_each_message_under_its_user(store: NovaStore) -> None:
    memory = NovaMemory(store, consolidation="manual")
    agent = create_agent(EchoMemoryChatModel(), [], middleware=[memory], checkpointer=InMemorySaver())

    def say(text: str, user: str | None) -> None:
        configurable = {"thread_id": "shared"} | ({"user_id": user} if user else {})
        agent.invoke({"messages": [{"role": "user", "content": text}]}, {"configurable": configurable})

    say("Alice speaking.", "alice")
    say("Nobody speaking.", None)
    say("Bob speaking.", "bob")
    say("Alice again.", "alice")
    assert [e.content for e in store.episodes("alice") if e.role == "user"] == ["Alice speaking.", "Alice again."]
    assert [e.content for e in store.episodes("bob") if e.role == "user"] == ["Bob speaking."]


# -- the event loop keeps running during recall ------------------------------------------------
async def _max_loop_lag_during(call: Any) -> tuple[float, float]:
    """(worst delay of a 5 ms sleep ticker, duration) while ``await call()`` runs, in seconds."""
    loop = asyncio.get_running_loop()
    done, delays = asyncio.Event(), [0.0]

    async def ticker() -> None:
        while not done.is_set():
            t0 = loop.time()
            await asyncio.sleep(0.005)
            delays.append(loop.time() - t0 - 0.005)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.02)
    t0 = time.perf_counter()
    await call()
    elapsed = time.perf_counter() - t0
    done.set()
    await task
    return max(delays), elapsed


async def test_async_recall_does_not_block_the_event_loop(store: NovaStore) -> None:
    store.add_turns(
        [
            {
                "user_id": USER,
                "role": "user" if i % 2 == 0 else "assistant",
                "session_id": f"s{i // 20}",
                "content": f"Turn {i}: we talked about the garden, the {i}th tomato plant and the coffee "
                f"machine that broke on day {i}.",
            }
            for i in range(400)
        ]
    )
    store.flush()
    memory = NovaMemory(store, user_id=USER)
    seen: list[ModelRequest[Any]] = []

    async def handler(request: ModelRequest[Any]) -> ModelResponse[Any]:
        seen.append(request)
        return ModelResponse(result=[AIMessage("ok")])

    def request(question: str) -> ModelRequest[Any]:
        msg = HumanMessage(question, id=str(uuid.uuid4()))  # a new id: no cache hit
        return ModelRequest(
            model=EchoMemoryChatModel(),
            messages=[msg],
            system_message=SystemMessage("Sys."),
            state={"messages": [msg]},
            runtime=Runtime(),
        )

    await memory.awrap_model_call(request("warm up the query path"), handler)
    ratios, inline_ratios = [], []
    for i in range(5):
        req = request(f"What happened to tomato plant {i} and the coffee machine?")
        lag, elapsed = await _max_loop_lag_during(lambda req=req: memory.awrap_model_call(req, handler))
        ratios.append(lag / elapsed)

        async def inline(req: ModelRequest[Any] = request(f"What about day {i} in the garden?")) -> None:
            memory.wrap_model_call(req, lambda r: ModelResponse(result=[AIMessage("ok")]))  # engine on the loop

        lag, elapsed = await _max_loop_lag_during(inline)
        inline_ratios.append(lag / elapsed)
    assert "<nova-memory>" in str(seen[-1].system_prompt)  # recall did run
    assert statistics.median(inline_ratios) > 0.8  # the ticker sees a blocked loop when there is one
    assert statistics.median(ratios) < 0.5, ratios  # off the loop: the worst tick delay is a fraction of a recall
