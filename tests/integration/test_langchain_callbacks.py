"""NovaCallbackHandler: capture once (also under concurrency), fail-open, shared memory across adapters."""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langchain import NovaCallbackHandler, NovaMemory, NovaRetriever
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel, FakeToolChatModel

USER = "alice"
PROMPT = ChatPromptTemplate.from_messages([("system", "You are helpful."), ("human", "{question}")])


def _contents(store: NovaStore, role: str | None = None) -> list[str]:
    return [e.content for e in store.episodes(USER) if role is None or e.role == role]


def test_lcel_chain_turns_captured_once_with_run_ids(store: NovaStore) -> None:
    handler = NovaCallbackHandler(store, USER, session_id="s1")
    chain = PROMPT | EchoMemoryChatModel()
    out = chain.invoke({"question": "I live in Paris."}, {"callbacks": [handler]})
    assert out.content == "Noted: I live in Paris."
    episodes = store.episodes(USER)
    assert [(e.role, e.content) for e in episodes] == [("user", "I live in Paris."),
                                                        ("assistant", "Noted: I live in Paris.")]
    assert all(e.session_id == "s1" for e in episodes)
    user_meta, ai_meta = episodes[0].metadata, episodes[1].metadata
    assert user_meta["source"] == "langchain.NovaCallbackHandler"
    assert user_meta["run_id"] == ai_meta["run_id"]  # the chat model run
    assert user_meta["root_run_id"] == ai_meta["root_run_id"] == user_meta["parent_run_id"]  # the chain run
    assert "You are helpful." not in _contents(store)  # the system prompt is not a turn


def test_history_in_prompt_is_not_recaptured(store: NovaStore) -> None:
    handler = NovaCallbackHandler(store, USER)
    prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{question}")])
    chain = prompt | EchoMemoryChatModel()
    chain.invoke({"history": [], "question": "I live in Paris."}, {"callbacks": [handler]})
    history = [("human", "I live in Paris."), ("ai", "Noted: I live in Paris.")]
    chain.invoke({"history": history, "question": "I work at Acme."}, {"callbacks": [handler]})
    assert _contents(store, "user") == ["I live in Paris.", "I work at Acme."]


def test_session_from_run_metadata(store: NovaStore) -> None:
    handler = NovaCallbackHandler(store, USER)
    (PROMPT | EchoMemoryChatModel()).invoke({"question": "hi"}, {"callbacks": [handler],
                                                                 "metadata": {"session_id": "meta-s"}})
    assert {e.session_id for e in store.episodes(USER)} == {"meta-s"}


@tool
def get_weather(city: str) -> str:
    """Weather of a city."""
    return f"It is sunny in {city}."


def test_agent_tool_loop_captures_question_once(store: NovaStore) -> None:
    handler = NovaCallbackHandler(store, USER)
    model = FakeToolChatModel(tool_name="get_weather", tool_args={"city": "Paris"})
    agent = create_agent(model, [get_weather], checkpointer=InMemorySaver())
    cfg: Any = {"callbacks": [handler], "configurable": {"thread_id": "t1"}}
    agent.invoke({"messages": [{"role": "user", "content": "Weather in Paris?"}]}, cfg)
    agent.invoke({"messages": [{"role": "user", "content": "And tomorrow?"}]}, cfg)
    assert len(model.received) == 4  # two model calls per run
    episodes = store.episodes(USER)
    assert [e.role for e in episodes] == ["user", "assistant"] * 2  # tool-call-only answers have no text
    assert [e.content for e in episodes if e.role == "user"] == ["Weather in Paris?", "And tomorrow?"]
    assert {e.session_id for e in episodes} == {"t1"}  # from the run's thread_id


def test_exactly_once_under_concurrency(store: NovaStore) -> None:
    handler = NovaCallbackHandler(store, USER)
    chain = PROMPT | EchoMemoryChatModel()
    questions = [f"I like item number {i}." for i in range(24)] + ["Same words twice."] * 8

    def run(question: str) -> str:
        return str(chain.invoke({"question": question}, {"callbacks": [handler]}).content)

    with ThreadPoolExecutor(max_workers=8) as pool:
        answers = list(pool.map(run, questions))
    assert answers == [f"Noted: {q}" for q in questions]
    users = Counter(_contents(store, "user"))
    assert users == Counter(questions)  # each run's question once; identical questions of 8 runs: 8 turns
    assert Counter(_contents(store, "assistant")) == Counter(answers)
    assert len({e.metadata["run_id"] for e in store.episodes(USER) if e.role == "user"}) == len(questions)


async def test_async_runs_share_the_handler(store: NovaStore) -> None:
    handler = NovaCallbackHandler(store, USER)
    chain = PROMPT | EchoMemoryChatModel()
    questions = [f"Async question {i}." for i in range(10)]
    await asyncio.gather(*(chain.ainvoke({"question": q}, {"callbacks": [handler]}) for q in questions))
    assert Counter(_contents(store, "user")) == Counter(questions)
    assert len(_contents(store, "assistant")) == len(questions)


def test_fail_open_when_store_raises(store: NovaStore, monkeypatch: pytest.MonkeyPatch,
                                     caplog: pytest.LogCaptureFixture) -> None:
    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("database is locked")

    monkeypatch.setattr(store, "add_turn", boom)
    monkeypatch.setattr(store, "add_turns", boom)
    handler = NovaCallbackHandler(store, USER)
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.langchain"):
        out = (PROMPT | EchoMemoryChatModel()).invoke({"question": "I live in Paris."}, {"callbacks": [handler]})
    assert out.content == "Noted: I live in Paris."
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("nova_memory_integrations")]
    assert any("capturing the user turn failed" in m and "database is locked" in m for m in messages)
    assert any("capturing the model answer failed" in m for m in messages)


def test_shared_memory_across_callback_retriever_and_middleware(store: NovaStore) -> None:
    # 1. a plain LCEL chain records the conversation through the callback handler
    handler = NovaCallbackHandler(store, USER, session_id="chain", consolidation="immediate")
    chain = PROMPT | EchoMemoryChatModel()
    for question in ("I work at Acme.", "I live in Paris."):
        chain.invoke({"question": question}, {"callbacks": [handler]})

    # 2. the retriever finds those turns and the facts consolidated from them
    docs = NovaRetriever(store=store, user_id=USER, k=6).invoke("where does the user work?")
    # episodes come back as conversation snippets (adjacent turns merged into one item)
    assert any(d.metadata["kind"] == "episode" and "I work at Acme." in d.page_content for d in docs)
    fact = next(d for d in docs if d.metadata["kind"] == "fact" and d.metadata.get("predicate") == "works_at")
    assert fact.metadata["object"] == "Acme"
    episode_ids = {e.id for e in store.episodes(USER) if e.content == "I work at Acme."}
    assert set(fact.metadata["provenance"]) == episode_ids

    # 3. an agent with NovaMemory on the same store recalls them
    model = EchoMemoryChatModel()
    agent = create_agent(model, [], middleware=[NovaMemory(store, user_id=USER, consolidation="immediate")])
    out = agent.invoke({"messages": [{"role": "user", "content": "Where do I work?"}]})
    assert "Acme" in out["messages"][-1].content
    assert fact.id in model.system_prompts()[-1]
