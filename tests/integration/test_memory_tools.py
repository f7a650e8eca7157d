"""Memory tools (search_memory, remember, forget) called by an agent's model, per-call users.

The chat model is a fake that calls the tools it is told to (the only fake); the store,
SQLite, Chroma and MiniLM are real.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langchain import create_memory_tools


class ToolCaller(BaseChatModel):
    """Calls the tool named by the user message ``tool_name {json args}``, then echoes the tool's result."""

    seen: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "tool-caller"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        last_human = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        results = [m for m in messages[last_human + 1:] if isinstance(m, ToolMessage)]
        if results:
            self.seen.append(str(results[-1].content))
            message = AIMessage(content=str(results[-1].content))
        else:
            name, _, args = str(messages[last_human].content).partition(" ")
            message = AIMessage(content="", tool_calls=[{"name": name, "args": json.loads(args), "id": "c1"}])
        return ChatResult(generations=[ChatGeneration(message=message)])


def _call(agent: Any, user: str | None, name: str, **args: Any) -> str:
    config = {"configurable": {"user_id": user}} if user else {}
    out = agent.invoke({"messages": [{"role": "user", "content": f"{name} {json.dumps(args)}"}]}, config)
    return str(out["messages"][-1].content)


@pytest.fixture
def agent(store: NovaStore) -> Any:
    return create_agent(ToolCaller(), tools=create_memory_tools(store))


def test_remember_a_fact_then_find_it(agent: Any, store: NovaStore) -> None:
    _call(agent, "ann", "remember", subject="user", predicate="lives_in", object="Lisbon", valid_from="2024-01-05")
    assert {(f.predicate, f.object) for f in store.facts("ann")} == {("lives_in", "Lisbon")}


def test_a_remembered_note_is_searchable(agent: Any, store: NovaStore) -> None:
    _call(agent, "ann", "remember", note="The user's cat Miso is allergic to fish.")
    assert "Miso" in _call(agent, "ann", "search_memory", query="Which pet has an allergy?")


def test_forget_removes_the_memory(agent: Any, store: NovaStore) -> None:
    _call(agent, "ann", "remember", note="My locker code is 4412.")
    memory_id = store.episodes("ann")[0].id
    _call(agent, "ann", "forget", memory_id=memory_id)
    assert store.episodes("ann") == []


def test_a_user_cannot_forget_another_users_memory(agent: Any, store: NovaStore) -> None:
    _call(agent, "ann", "remember", note="Ann's note.")
    memory_id = store.episodes("ann")[0].id
    reply = _call(agent, "bob", "forget", memory_id=memory_id)
    assert (reply.startswith("No memory"), len(store.episodes("ann"))) == (True, 1)


def test_search_never_returns_another_users_memory(agent: Any, store: NovaStore) -> None:
    _call(agent, "ann", "remember", note="Ann's secret recipe uses saffron.")
    assert "saffron" not in _call(agent, "bob", "search_memory", query="secret recipe saffron")


def test_without_a_user_the_tools_refuse_and_warn_once(agent: Any, store: NovaStore,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.langchain"):
        first = _call(agent, None, "remember", note="orphan")
        _call(agent, None, "search_memory", query="orphan")
    assert (first.startswith("Memory is unavailable"), store.users(), len(caplog.records)) == (True, [], 1)


def test_an_incomplete_fact_is_refused_with_a_reason(agent: Any, store: NovaStore) -> None:
    reply = _call(agent, "ann", "remember", subject="user", predicate="lives_in")
    assert (reply.startswith("remember needs all of"), store.facts("ann")) == (True, [])


def test_a_closed_store_makes_the_tool_answer_not_the_agent_fail(agent: Any, store: NovaStore) -> None:
    store.close()
    assert _call(agent, "ann", "search_memory", query="anything").startswith("Memory is unavailable")


def test_user_from_the_runtime_context(store: NovaStore) -> None:
    from dataclasses import dataclass

    @dataclass
    class Context:
        user_id: str

    agent = create_agent(ToolCaller(), tools=create_memory_tools(store), context_schema=Context)
    agent.invoke({"messages": [{"role": "user", "content": 'remember {"note": "context user note"}'}]},
                 context=Context(user_id="cy"))
    assert [e.content for e in store.episodes("cy")] == ["context user note"]


def test_llamaindex_function_tools(store: NovaStore) -> None:
    from nova_memory_integrations.llama_index import create_memory_tools as li_tools

    search, remember, _forget, edit_block = li_tools(store, user_id="dee")
    remember.call(subject="user", predicate="likes", object="jazz")
    assert "jazz" in str(search.call(query="What music does the user like?"))
    edit_block.call(name="persona", content="A calm music tutor.")
    assert store.block("dee", "persona").author == "agent"  # type: ignore[union-attr]
    assert "at most" in str(edit_block.call(name="persona", content="x" * 3000))
