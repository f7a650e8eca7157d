"""One compiled agent (or chain, retriever, callback handler), many users: per-call users.

20 users talk to ONE ``create_agent`` agent with ONE ``NovaMemory()`` concurrently
(``asyncio.gather`` of ``ainvoke``, the user in the runtime context). Each user first
tells the agent a code word of their own; then every user asks for it, again all at
once, in a new thread (so the word can only come from long-term memory). A spy
middleware inside ``NovaMemory`` records every model request with the user of its call:
no request of a user may hold another user's word, and each answer quotes the user's own.

``NovaRetriever`` and ``NovaCallbackHandler`` built without a user take it from each call
in the same way (call argument, run config, the LangGraph run's context).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import BaseMessage
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langchain import NovaCallbackHandler, NovaMemory, NovaRetriever
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel, FakeToolChatModel

WORDS = (
    "amaranth",
    "basilisk",
    "cormorant",
    "dulcimer",
    "escarpment",
    "fennel",
    "gossamer",
    "halyard",
    "isthmus",
    "jacaranda",
    "kestrel",
    "lodestar",
    "marzipan",
    "nautilus",
    "obsidian",
    "palisade",
    "quetzal",
    "rhubarb",
    "sassafras",
    "tamarind",
)
USERS = {f"user-{i:02d}": word for i, word in enumerate(WORDS)}


@dataclass
class Context:
    user_id: str


class Spy(AgentMiddleware[Any, Context, Any]):
    """Records ``(user of the call, every text the model is sent)`` for each model request."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[tuple[str, str]] = []

    def _record(self, request: ModelRequest[Context]) -> None:
        messages: list[BaseMessage] = [*([request.system_message] if request.system_message else []), *request.messages]
        self.requests.append((request.runtime.context.user_id, "\n".join(str(m.text) for m in messages)))

    def wrap_model_call(
        self, request: ModelRequest[Context], handler: Callable[[ModelRequest[Context]], ModelResponse[Any]]
    ) -> ModelResponse[Any]:
        self._record(request)
        return handler(request)

    async def awrap_model_call(
        self,
        request: ModelRequest[Context],
        handler: Callable[[ModelRequest[Context]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        self._record(request)
        return await handler(request)


@tool
def lookup_notes(topic: str) -> str:
    """Look something up in the user's notes app."""
    return f"No notes about {topic}."


async def test_twenty_users_one_agent_concurrently(store: NovaStore) -> None:
    spy = Spy()
    # every question first calls a tool: two model calls per turn, the second from the recall cache
    model = FakeToolChatModel(tool_name="lookup_notes", tool_args={"topic": "code word"}, trigger="?")
    agent = create_agent(
        model,
        [lookup_notes],
        middleware=[NovaMemory(store, consolidation="immediate"), spy],
        context_schema=Context,
        checkpointer=InMemorySaver(),
    )

    async def say(user: str, text: str, thread: str) -> str:
        out = await agent.ainvoke(
            {"messages": [{"role": "user", "content": text}]},
            {"configurable": {"thread_id": f"{thread}-{user}"}},
            context=Context(user_id=user),
        )
        return str(out["messages"][-1].content)

    await asyncio.gather(*(say(user, f"My code word is {word}.", "tell") for user, word in USERS.items()))
    store.flush()  # every told turn is searchable by meaning too
    spy.requests.clear()
    answers = await asyncio.gather(*(say(user, "What is my code word?", "ask") for user in USERS))

    assert len(spy.requests) == 2 * len(USERS)  # tool call, then the answer, per user
    for user, word in USERS.items():
        others = [w for u, w in USERS.items() if u != user]
        texts = [text for u, text in spy.requests if u == user]
        assert len(texts) == 2
        for text in texts:
            assert word in text.split("</nova-memory>")[0]  # recalled into the memory section
            assert not [w for w in others if w in text], (user, text)
    for (user, word), answer in zip(USERS.items(), answers, strict=True):
        assert word in answer and not [w for w in WORDS if w != word and w in answer], (user, answer)

    for user, word in USERS.items():  # and each user's store holds only their own turns
        contents = " ".join(e.content for e in store.episodes(user))
        assert word in contents and not [w for w in WORDS if w != word and w in contents]


# -- retriever and callback handler with per-call users --------------------------------------------
def _tell(store: NovaStore, users: dict[str, str]) -> None:
    store.add_turns([{"user_id": u, "role": "user", "content": f"My code word is {w}."} for u, w in users.items()])
    store.flush()


def _words(docs: list[Any]) -> set[str]:
    return {w for d in docs for w in WORDS if w in d.page_content}


async def test_retriever_takes_the_user_of_each_call(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    users = dict(list(USERS.items())[:4])
    _tell(store, users)
    retriever = NovaRetriever(store, k=3)
    (u0, w0), (u1, w1), (u2, w2), (u3, w3) = users.items()
    assert _words(retriever.invoke("code word", {"configurable": {"user_id": u0}})) == {w0}
    assert _words(retriever.invoke("code word", user_id=u1)) == {w1}  # argument beats config
    assert _words(retriever.invoke("code word", {"configurable": {"user_id": u0}}, user_id=u1)) == {w1}
    assert _words(retriever.invoke("code word", {"configurable": {"user_id": u0}}, user_id=None)) == {w0}
    batch = retriever.batch(["code word"] * 2, [{"configurable": {"user_id": u}} for u in (u2, u3)])
    assert [_words(b) for b in batch] == [{w2}, {w3}]
    assert _words(await retriever.ainvoke("code word", {"configurable": {"user_id": u3}})) == {w3}
    assert _words(NovaRetriever(store, u2).invoke("code word")) == {w2}  # the default user
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.langchain"):
        assert retriever.invoke("code word") == [] and retriever.invoke("code word") == []
    assert len([r for r in caplog.records if "found no user" in r.getMessage()]) == 1

    # called by an agent's tool: the user of the agent's runtime context
    @tool
    def recall(query: str) -> str:
        """Search long-term memory."""
        return " | ".join(d.page_content for d in retriever.invoke(query))

    model = FakeToolChatModel(tool_name="recall", tool_args={"query": "code word"})
    agent = create_agent(model, [recall], context_schema=Context)
    for user, word in users.items():
        out = await agent.ainvoke(
            {"messages": [{"role": "user", "content": "What is my code word?"}]}, context=Context(user_id=user)
        )
        tool_text = str(out["messages"][-2].content)
        assert word in tool_text and not [w for w in WORDS if w != word and w in tool_text]


async def test_one_callback_handler_records_each_run_under_its_user(
    store: NovaStore, caplog: pytest.LogCaptureFixture
) -> None:
    handler = NovaCallbackHandler(store)  # no user: each run names its own
    chain = ChatPromptTemplate.from_messages([("human", "{question}")]) | EchoMemoryChatModel()
    chain.invoke({"question": "I am Ann."}, {"callbacks": [handler], "configurable": {"user_id": "Ann"}})
    await chain.ainvoke({"question": "I am Ben."}, {"callbacks": [handler], "metadata": {"user_id": "Ben"}})
    agent = create_agent(EchoMemoryChatModel(), [], context_schema=Context)
    await asyncio.gather(
        *(
            agent.ainvoke(
                {"messages": [{"role": "user", "content": f"I am {u}."}]},
                {"callbacks": [handler]},
                context=Context(user_id=u),
            )
            for u in ("Cat", "Dan")
        )
    )
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.langchain"):
        for _ in range(2):
            chain.invoke({"question": "Who am I?"}, {"callbacks": [handler]})
    assert len([r for r in caplog.records if "found no user" in r.getMessage()]) == 1
    for user in ("Ann", "Ben", "Cat", "Dan"):  # config, metadata, agent context (twice, concurrently)
        assert [(e.role, e.content) for e in store.episodes(user)] == [
            ("user", f"I am {user}."),
            ("assistant", f"Noted: I am {user}."),
        ]
    assert store.stats()["episodes"] == 8  # the user-less runs recorded nothing
