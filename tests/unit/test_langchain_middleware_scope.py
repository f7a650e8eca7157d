"""NovaMemory's per-call user and session, without a store.

Where the user of a call comes from (runtime context of every kind, run config, LangGraph
Server user, the default), and what a call without a user does: no recall, no capture,
no store opened, one warning per middleware. Over a real store and a compiled agent:
``tests/integration/test_langchain_middleware.py`` and ``test_many_users_agent.py``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypedDict

import pytest
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableLambda
from langgraph.runtime import ExecutionInfo, Runtime
from pydantic import BaseModel

from nova_memory_integrations.langchain import NovaMemory
from nova_memory_integrations.langchain.middleware import MemoryScope

LOGGER = "nova_memory_integrations.langchain.middleware"


@dataclass
class DataclassContext:
    user_id: str | None = None
    session_id: str | None = None


class TypedDictContext(TypedDict, total=False):
    user_id: str
    thread_id: str


class PydanticContext(BaseModel):
    user_id: str | None = None
    session_id: str | None = None


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$NOVA_MEMORY_HOME`` in a tmp dir, never created unless a store is opened."""
    monkeypatch.setenv("NOVA_MEMORY_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _in_run(memory: NovaMemory, runtime: Runtime[Any], configurable: dict[str, Any]) -> MemoryScope | None:
    """``memory.scope(runtime)`` inside a runnable whose config carries ``configurable``."""
    result: MemoryScope | None = RunnableLambda(lambda _: memory.scope(runtime)).invoke(
        None, {"configurable": configurable}
    )
    return result


@pytest.mark.parametrize(
    "context",
    [
        DataclassContext(user_id="alice", session_id="s1"),
        TypedDictContext(user_id="alice", thread_id="s1"),
        PydanticContext(user_id="alice", session_id="s1"),
        {"user_id": "alice", "session_id": "s1"},
        SimpleNamespace(user_id="alice", thread_id="s1"),
    ],
    ids=["dataclass", "typeddict", "pydantic", "mapping", "object"],
)
def test_user_and_session_from_every_kind_of_runtime_context(context: Any) -> None:
    memory = NovaMemory(user_id="default", session_id="default-session")
    scope = _in_run(memory, Runtime(context=context), {"user_id": "bob", "thread_id": "t9"})
    assert scope == MemoryScope("alice", "s1")  # the context wins over config and defaults


def test_order_context_then_configurable_then_server_user_then_default() -> None:
    memory = NovaMemory(user_id="default", session_id="default-session")
    server = SimpleNamespace(user=SimpleNamespace(identity="server-user"))
    assert _in_run(memory, Runtime(context=DataclassContext()), {"user_id": "bob", "thread_id": "t1"}) == MemoryScope(
        "bob", "t1"
    )
    runtime: Runtime[Any] = Runtime(context=None, server_info=server)  # type: ignore[arg-type]
    assert _in_run(memory, runtime, {}) == MemoryScope("server-user", "default-session")
    assert _in_run(memory, Runtime(), {}) == MemoryScope("default", "default-session")
    assert memory.scope(Runtime()) == MemoryScope("default", "default-session")  # outside a run
    with_thread: Runtime[Any] = Runtime(
        execution_info=ExecutionInfo(checkpoint_id="c", checkpoint_ns="", task_id="t", thread_id="exec-thread")
    )
    assert _in_run(memory, with_thread, {}) == MemoryScope("default", "exec-thread")


def test_blank_or_odd_ids_fall_through_and_ints_are_ids() -> None:
    memory = NovaMemory()
    assert _in_run(memory, Runtime(context={"user_id": "  "}), {"user_id": 42}) == MemoryScope("42", None)
    assert _in_run(memory, Runtime(context={"user_id": True}), {"user_id": ["x"]}) is None


def _request(text: str = "Where do I live?") -> ModelRequest[Any]:
    msg = HumanMessage(text, id="m1")
    return ModelRequest(
        model=None,
        messages=[msg],
        system_message=SystemMessage("Be brief."),  # type: ignore[arg-type]
        state={"messages": [msg]},
        runtime=Runtime(),
    )


def test_no_user_no_memory_no_store_and_one_warning(home: Path, caplog: pytest.LogCaptureFixture) -> None:
    memory = NovaMemory()  # no arguments
    seen: list[ModelRequest[Any]] = []

    def handler(request: ModelRequest[Any]) -> ModelResponse[Any]:
        seen.append(request)
        return ModelResponse(result=[AIMessage("ok")])

    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for _ in range(3):
            request = _request()
            memory.wrap_model_call(request, handler)
            assert seen[-1] is request  # untouched: no recall
            state: Any = {"messages": [*request.messages, AIMessage("ok", id="a1")]}
            # no capture; the messages are marked handled so a later call's user never claims them
            assert memory.after_model(state, Runtime()) == {"nova_memory_captured": "a1", "nova_memory_captured_by": ""}
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1  # once per middleware
    message = warnings[0].getMessage()
    assert "\n" not in message and "context={'user_id'" in message and "configurable" in message
    assert memory._store is None and not home.exists()  # no shared bucket, nothing opened

    other = NovaMemory()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        other.wrap_model_call(_request(), handler)
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 2  # per instance


async def test_async_hooks_without_user_are_no_ops(home: Path) -> None:
    memory = NovaMemory()

    async def handler(request: ModelRequest[Any]) -> ModelResponse[Any]:
        return ModelResponse(result=[AIMessage(str(request.system_prompt))])

    out = await memory.awrap_model_call(_request(), handler)
    assert out.result[0].content == "Be brief."
    assert await memory.aafter_model({"messages": [AIMessage("x", id="a")]}, Runtime()) == {
        "nova_memory_captured": "a",
        "nova_memory_captured_by": "",
    }
    assert not home.exists()


def test_memory_text_needs_a_user() -> None:
    from nova_memory_integrations import InvalidInputError

    with pytest.raises(InvalidInputError, match="user_id"):
        NovaMemory().memory_text("anything")
