"""NovaEventHandler: LLM chat turns of any LlamaIndex pipeline captured once each, fail-open."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from llama_index.core.agent.workflow import ReActAgent
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.instrumentation import get_dispatcher  # type: ignore[attr-defined]
from llama_index.core.instrumentation.dispatcher import instrument_tags  # type: ignore[attr-defined]
from llama_index.core.instrumentation.events.llm import LLMChatEndEvent, LLMChatStartEvent
from llama_index.core.llms import ChatMessage, ChatResponse
from llama_index.core.tools import FunctionTool

from nova_memory_integrations import NovaStore
from nova_memory_integrations.llama_index import NovaEventHandler
from nova_memory_integrations.llama_index.testing import ExtractiveMemoryLLM


@pytest.fixture
def handler(store: NovaStore) -> Iterator[NovaEventHandler]:
    h = NovaEventHandler(store, user_id="alice", session_id="s1")
    with h.attached():
        yield h
    assert all(x is not h for x in get_dispatcher().event_handlers)


def _turns(store: NovaStore, user: str = "alice") -> list[tuple[str, str]]:
    return [(e.role, e.content) for e in store.episodes(user)]


def test_sync_chat_captured_once(store: NovaStore, handler: NovaEventHandler) -> None:
    llm = ExtractiveMemoryLLM(responses=["Porto is a great city!"])
    llm.chat([ChatMessage(role="system", content="Be nice."), ChatMessage(role="user", content="I moved to Porto.")])
    assert _turns(store) == [("user", "I moved to Porto."), ("assistant", "Porto is a great city!")]
    ep = store.episodes("alice")[0]
    assert ep.session_id == "s1" and ep.metadata == {"source": "llama_index.events"}


async def test_nested_async_and_streaming_calls_captured_once(store: NovaStore, handler: NovaEventHandler) -> None:
    llm = ExtractiveMemoryLLM(responses=["Nice name!", "Streaming works."])
    # CustomLLM.achat calls chat(): two start and two end events for one request
    await llm.achat([ChatMessage(role="user", content="My sister is called Ana.")])
    stream = llm.stream_chat([ChatMessage(role="user", content="Stream me something.")])
    assert [r.delta for r in stream][-1] == " works."
    assert _turns(store) == [("user", "My sister is called Ana."), ("assistant", "Nice name!"),
                             ("user", "Stream me something."), ("assistant", "Streaming works.")]


def test_same_event_seen_twice_is_stored_once(store: NovaStore, handler: NovaEventHandler) -> None:
    messages = [ChatMessage(role="user", content="Hello there.")]
    start = LLMChatStartEvent(messages=messages, additional_kwargs={}, model_dict={})
    end = LLMChatEndEvent(messages=messages, response=ChatResponse(message=ChatMessage(role="assistant",
                                                                                        content="Hi!")))
    for event in (start, start, end, end):
        handler.handle(event)
    assert _turns(store) == [("user", "Hello there."), ("assistant", "Hi!")]
    # the same words in a later request are a new turn
    llm = ExtractiveMemoryLLM(responses=["Hi again!"])
    llm.chat(messages)
    assert _turns(store)[-2:] == [("user", "Hello there."), ("assistant", "Hi again!")]


def test_chat_engine_pipeline(store: NovaStore, handler: NovaEventHandler) -> None:
    engine = SimpleChatEngine.from_defaults(llm=ExtractiveMemoryLLM(responses=["Noted.", "You said Lisbon."]))
    engine.chat("I live in Lisbon.")
    engine.chat("Where do I live?")  # the history is re-sent; only the new message is stored
    assert _turns(store) == [("user", "I live in Lisbon."), ("assistant", "Noted."),
                             ("user", "Where do I live?"), ("assistant", "You said Lisbon.")]


async def test_agent_loop_stores_the_question_and_the_final_answer(store: NovaStore,
                                                                   handler: NovaEventHandler) -> None:
    def weather(city: str) -> str:
        """The weather in a city."""
        return f"Sunny in {city}."

    llm = ExtractiveMemoryLLM(responses=[
        'Thought: I need the weather.\nAction: weather\nAction Input: {"city": "Lisbon"}',
        "Thought: I can answer without using any more tools.\nAnswer: It is sunny in Lisbon.",
    ])
    agent = ReActAgent(tools=[FunctionTool.from_defaults(weather)], llm=llm)
    await agent.run(user_msg="What's the weather in Lisbon?")
    assert _turns(store) == [("user", "What's the weather in Lisbon?"), ("assistant", "It is sunny in Lisbon.")]


def test_user_from_instrument_tags_and_filters(store: NovaStore) -> None:
    llm = ExtractiveMemoryLLM(responses=["a", "b", "c", "d"])
    anonymous = NovaEventHandler(store, capture_inputs=False)
    with anonymous.attached():
        llm.chat([ChatMessage(role="user", content="nobody")])  # no user: ignored
        with instrument_tags({"nova_user_id": "bob", "nova_session_id": "tagged"}):
            llm.chat([ChatMessage(role="user", content="from bob")])
    assert store.episodes("alice") == []
    assert [(e.role, e.content, e.session_id) for e in store.episodes("bob")] == [("assistant", "b", "tagged")]
    picky = NovaEventHandler(store, user_id="carol", message_filter=lambda role, text: "secret" not in text)
    with picky.attached():
        llm.chat([ChatMessage(role="user", content="my secret is 42")])
        llm.chat([ChatMessage(role="user", content="the sky is blue")])
    assert _turns(store, "carol") == [("assistant", "c"), ("user", "the sky is blue"), ("assistant", "d")]


def test_fail_open_and_attach_idempotent(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    h = NovaEventHandler(store, user_id="dave")
    dispatcher = get_dispatcher()
    with h.attached():
        h.attach()
        assert sum(x is h for x in dispatcher.event_handlers) == 1
        store.close()
        with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
            reply = ExtractiveMemoryLLM(responses=["still fine"]).chat([ChatMessage(role="user", content="hi")])
    assert reply.message.content == "still fine"
    assert "capturing an LLM chat event failed" in caplog.text
    assert all(x is not h for x in dispatcher.event_handlers)
