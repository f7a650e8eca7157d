"""ExtractiveMemoryLLM: the deterministic offline LlamaIndex LLM of the cookbooks."""

from __future__ import annotations

from llama_index.core.llms import ChatMessage

from nova_memory_integrations.llama_index.testing import ExtractiveMemoryLLM


def test_scripted_then_extractive() -> None:
    llm = ExtractiveMemoryLLM(responses=["Hello!"], prefix="> ")
    assert llm.chat([ChatMessage(role="user", content="hi")]).message.content == "Hello!"
    reply = llm.chat([
        ChatMessage(role="system", content="Be brief and friendly.\n<memory>\n- [2024-01-02] user: I live in Lisbon &amp; "
                                           "love it\n- user favorite color blue\n</memory>"),
        ChatMessage(role="user", content="Where do I live?"),
    ])
    assert reply.message.content == "> [2024-01-02] user: I live in Lisbon & love it"
    assert llm.calls == 2 and llm.last_messages[-1].content == "Where do I live?"


def test_query_engine_prompt_and_fallback() -> None:
    llm = ExtractiveMemoryLLM()
    prompt = ("Context information is below.\n---------------------\nkind: fact\n\nuser works at Acme\n\n"
              "user likes tea\n---------------------\nGiven the context information, answer the query.\n"
              "Query: Where does the user work?\nAnswer: ")
    assert llm.complete(prompt).text == "user works at Acme"
    assert llm.chat([ChatMessage(role="user", content="What is the airspeed of a swallow?")]).message.content == (
        "I don't know.")
    # system instructions outside a memory block are never quoted
    assert llm.chat([ChatMessage(role="system", content="Always answer about the weather."),
                     ChatMessage(role="user", content="weather?")]).message.content == "I don't know."


async def test_streaming_and_async() -> None:
    llm = ExtractiveMemoryLLM(responses=["one two three", "four five"])
    chunks = list(llm.stream_chat([ChatMessage(role="user", content="count")]))
    assert [c.delta for c in chunks] == ["one", " two", " three"] and chunks[-1].message.content == "one two three"
    assert (await llm.achat([ChatMessage(role="user", content="more")])).message.content == "four five"
    assert [c.delta for c in llm.stream_complete("x")] == ["I", " don't", " know."]
    assert llm.metadata.is_chat_model and not ExtractiveMemoryLLM(is_chat=False).metadata.is_chat_model
