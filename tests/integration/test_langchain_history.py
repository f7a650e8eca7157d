"""NovaChatMessageHistory: persistence, RunnableWithMessageHistory, clear semantics, fail-open."""

from __future__ import annotations

import logging

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory

from nova_memory_integrations import InvalidInputError, NovaStore
from nova_memory_integrations.langchain import NovaChatMessageHistory
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel

USER = "alice"


def test_roundtrip_roles_ids_and_sessions(store: NovaStore) -> None:
    history = NovaChatMessageHistory(store, USER, "s1")
    history.add_messages([SystemMessage("be nice"), HumanMessage("hi", name="al"), AIMessage("hello"),
                          ToolMessage("42", tool_call_id="call_1", name="calc")])
    history.add_messages([AIMessage(content="", tool_calls=[{"name": "x", "args": {}, "id": "c2"}])])  # no text
    msgs = history.messages
    assert [type(m) for m in msgs] == [SystemMessage, HumanMessage, AIMessage, ToolMessage]
    assert [m.content for m in msgs] == ["be nice", "hi", "hello", "42"]
    assert msgs[1].name == "al" and isinstance(msgs[3], ToolMessage) and msgs[3].tool_call_id == "call_1"
    assert [m.id for m in msgs] == [e.id for e in store.episodes(USER, session_id="s1")]
    assert NovaChatMessageHistory(store, USER, "s2").messages == []
    assert NovaChatMessageHistory(store, "bob", "s1").messages == []  # tenancy

    history.add_messages(msgs)  # messages read back are not stored twice
    assert len(history.messages) == 4


@pytest.mark.filterwarnings("ignore:RunnableWithMessageHistory is deprecated")
def test_with_runnable_with_message_history(store: NovaStore) -> None:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You are helpful."), MessagesPlaceholder("history"), ("human", "{question}")])
    model = EchoMemoryChatModel()
    chain = RunnableWithMessageHistory(
        prompt | model,
        lambda session_id: NovaChatMessageHistory(store, USER, session_id, consolidation="immediate"),
        input_messages_key="question",
        history_messages_key="history",
    )
    cfg = {"configurable": {"session_id": "s1"}}
    chain.invoke({"question": "I live in Paris."}, cfg)
    chain.invoke({"question": "Where do I live?"}, cfg)
    assert [m.content for m in model.received[-1][1:3]] == ["I live in Paris.", "Noted: I live in Paris."]
    assert [e.role for e in store.episodes(USER, session_id="s1")] == ["user", "assistant"] * 2
    assert store.facts(USER, predicate="lives_in")[0].object == "Paris"


def test_clear_keeps_facts_unless_asked(store: NovaStore) -> None:
    s1 = NovaChatMessageHistory(store, USER, "s1", consolidation="immediate")
    s2 = NovaChatMessageHistory(store, USER, "s2", consolidation="immediate")
    s1.add_messages([HumanMessage("I live in Paris."), AIMessage("Noted.")])
    s2.add_messages([HumanMessage("I work at Acme."), AIMessage("Noted.")])
    assert {f.predicate for f in store.facts(USER)} == {"lives_in", "works_at"}

    s1.clear()
    assert s1.messages == [] and len(s2.messages) == 2
    assert {f.predicate for f in store.facts(USER)} == {"lives_in", "works_at"}  # facts stay

    s2.clear(forget_facts=True)
    assert s2.messages == []
    assert {f.predicate for f in store.facts(USER)} == {"lives_in"}  # only facts learned in s2 go
    s2.clear()  # clearing an empty session is a no-op


async def test_async_methods(store: NovaStore) -> None:
    history = NovaChatMessageHistory(store, USER, "s1")
    await history.aadd_messages([HumanMessage("hi"), AIMessage("hello")])
    assert [m.content for m in await history.aget_messages()] == ["hi", "hello"]
    await history.aclear()
    assert await history.aget_messages() == []


def test_read_write_fail_open_clear_raises(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    history = NovaChatMessageHistory(store, USER, "s1")
    store.close()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.langchain"):
        history.add_messages([HumanMessage("hi")])
        assert history.messages == []
    assert len([r for r in caplog.records if "chat history failed" in r.getMessage()]) == 2
    with pytest.raises(Exception, match="closed"):
        history.clear()


@pytest.mark.parametrize(("user_id", "session_id"), [("", "s"), ("u", ""), ("u", None)])
def test_invalid_ids(store: NovaStore, user_id: str, session_id: str) -> None:
    with pytest.raises(InvalidInputError):
        NovaChatMessageHistory(store, user_id, session_id)
