"""NovaRetriever on a real store: nodes, metadata, query engine, agents, async, tenancy, fail-open."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

import pytest
from llama_index.core.agent.workflow import ReActAgent
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from llama_index.core.tools import RetrieverTool

from nova_memory_integrations import NovaStore, StoreClosedError
from nova_memory_integrations.llama_index import NovaRetriever, nova_memory
from nova_memory_integrations.llama_index.testing import ExtractiveMemoryLLM
from nova_memory_integrations.retrieval.metadata import MEMORY_SOURCE, context_item_metadata, hit_metadata

T0 = datetime(2024, 1, 10, 9, 0, tzinfo=timezone.utc)
T1 = datetime(2024, 6, 1, 9, 0, tzinfo=timezone.utc)


def _seed(store: NovaStore) -> None:
    store.add_turn("alice", "user", "I live in Lisbon and I work at Acme as a nurse.", session_id="s1", timestamp=T0)
    store.add_turn("alice", "assistant", "Lisbon is a lovely city.", session_id="s1", timestamp=T0)
    store.add_turn("alice", "user", "My favourite colour is blue.", session_id="s1", timestamp=T0)
    store.add_rule("alice", "user asks for code", "answer in Rust")
    store.consolidate("alice")
    store.add_turn("bob", "user", "I live in Oslo.", session_id="b1", timestamp=T0)


def test_nodes_carry_shared_metadata(store: NovaStore) -> None:
    _seed(store)
    retriever = NovaRetriever(store, "alice", similarity_top_k=5)
    nodes = retriever.retrieve("where does she live?")
    hits = store.retrieve("where does she live?", "alice", k=5)
    assert nodes and all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in nodes)
    assert [n.node.node_id for n in nodes] == [h.id for h in hits]
    assert [n.score for n in nodes] == pytest.approx([h.score for h in hits], abs=1e-6)
    volatile = {"score", "scores"}  # recency moves between two calls
    for node, hit in zip(nodes, hits, strict=True):
        expected = {k: v for k, v in hit_metadata(hit).items() if k not in volatile}
        assert {k: v for k, v in node.node.metadata.items() if k not in volatile} == expected
        assert set(node.node.metadata["scores"]) == set(hit.scores)
        json.dumps(node.node.metadata)  # serialisable (docstores, tracing)
    kinds = {n.node.metadata["kind"] for n in nodes}
    assert {"episode", "fact"} <= kinds
    fact = next(n.node for n in nodes if n.node.metadata["kind"] == "fact")
    meta = fact.metadata
    assert meta["source"] == MEMORY_SOURCE and meta["predicate"] == "lives_in" and meta["object"] == "Lisbon"
    assert meta["valid_from"] and meta["valid_to"] is None and meta["lineage_id"] and meta["confidence"] > 0
    episode_ids = {e.id for e in store.episodes("alice")}
    assert set(meta["provenance"]) <= episode_ids and meta["provenance"]
    ep = next(n.node for n in nodes if n.node.metadata["kind"] == "episode")
    assert ep.metadata["session_id"] == "s1" and ep.metadata["role"] in {"user", "assistant"}
    assert ep.node_id in ep.metadata["provenance"]  # a snippet lists every turn it merged
    assert set(ep.metadata["provenance"]) <= episode_ids
    # only a few keys reach the LLM; none reach the embedder
    shown = fact.get_content(metadata_mode=MetadataMode.LLM)
    assert "kind: fact" in shown and "scores" not in shown and "lineage_id" not in shown
    assert fact.get_content(metadata_mode=MetadataMode.EMBED) == fact.get_content(metadata_mode=MetadataMode.NONE)


def test_metadata_schema_matches_langchain_documents(store: NovaStore) -> None:
    convert = pytest.importorskip("nova_memory_integrations.langchain._convert")
    _seed(store)
    for hit in store.retrieve("where does she live?", "alice", k=6):
        assert hit_metadata(hit) == convert.hit_to_document(hit).metadata
    ctx = store.context("where does she live?", "alice", budget_tokens=300)
    for item in ctx.sources:
        assert context_item_metadata(item) == convert.context_item_to_document(item).metadata


def test_query_engine_source_nodes_are_the_captured_memories(store: NovaStore) -> None:
    memory = nova_memory(store, "carol", session_id="monday")
    from llama_index.core.llms import ChatMessage

    memory.put(ChatMessage(role="user", content="I just moved to Porto with my dog Rex."))
    memory.put(ChatMessage(role="assistant", content="Welcome to Porto! Say hi to Rex."))
    captured = {e.id for e in store.episodes("carol")}
    assert len(captured) == 2

    llm = ExtractiveMemoryLLM()
    engine = RetrieverQueryEngine.from_args(retriever=NovaRetriever(store, "carol", similarity_top_k=3), llm=llm)
    response = engine.query("Which city did I move to?")
    source_ids = {n.node.node_id for n in response.source_nodes}
    assert source_ids and source_ids <= captured
    assert "Porto" in str(response)
    # the LLM saw the memories as context
    prompt = "\n".join(m.content or "" for m in llm.last_messages)
    assert "I just moved to Porto" in prompt and "kind: episode" in prompt


async def test_async_retrieve_and_query(store: NovaStore) -> None:
    _seed(store)
    retriever = NovaRetriever(store, "alice", similarity_top_k=3)
    nodes = await retriever.aretrieve("what colour does she like?")
    assert any("blue" in n.node.get_content() for n in nodes)
    engine = RetrieverQueryEngine.from_args(retriever=retriever, llm=ExtractiveMemoryLLM())
    response = await engine.aquery("what colour does she like?")
    assert "blue" in str(response)


async def test_works_as_an_agent_tool(store: NovaStore) -> None:
    _seed(store)
    tool = RetrieverTool.from_defaults(retriever=NovaRetriever(store, "alice", similarity_top_k=3), name="memory",
                                       description="Search the user's long-term memory.")
    llm = ExtractiveMemoryLLM(responses=[
        'Thought: I should look this up.\nAction: memory\nAction Input: {"input": "where does the user live"}',
        "Thought: I can answer without using any more tools.\nAnswer: You live in Lisbon.",
    ])
    agent = ReActAgent(tools=[tool], llm=llm)
    result = await agent.run(user_msg="Where do I live?")
    assert "Lisbon" in str(result)
    observation = llm.last_messages[-1].content or ""
    assert observation.startswith("Observation:") and "Lisbon" in observation


def test_tenancy_and_filters(store: NovaStore) -> None:
    _seed(store)
    bob = NovaRetriever(store, "bob", similarity_top_k=10).retrieve("where does she live?")
    assert bob and all("Lisbon" not in n.node.get_content() for n in bob)
    only_facts = NovaRetriever(store, "alice", kinds=("fact",)).retrieve("where does she live?")
    assert only_facts and {n.node.metadata["kind"] for n in only_facts} == {"fact"}
    rules = NovaRetriever(store, "alice", kinds=("rule",)).retrieve("can you write some code for me?")
    assert rules and rules[0].node.metadata["action"] == "answer in Rust"
    strict = NovaRetriever(store, "alice", min_score=10.0).retrieve("where does she live?")
    assert strict == []


def test_as_of_returns_facts_valid_then(store: NovaStore) -> None:
    store.add_fact("dana", "dana", "lives_in", "Berlin", valid_from=T0)
    store.add_fact("dana", "dana", "lives_in", "Madrid", valid_from=T1)
    now = NovaRetriever(store, "dana", kinds=("fact",)).retrieve("where does dana live?")
    then = NovaRetriever(store, "dana", kinds=("fact",), as_of=datetime(2024, 3, 1, tzinfo=timezone.utc)
                         ).retrieve("where does dana live?")
    assert [n.node.metadata["object"] for n in now] == ["Madrid"]
    assert [n.node.metadata["object"] for n in then] == ["Berlin"]
    assert then[0].node.metadata["valid_to"] is not None


def test_fail_open_and_raise_on_error(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    _seed(store)
    retriever = NovaRetriever(store, "alice")
    loud = NovaRetriever(store, "alice", raise_on_error=True)
    store.close()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        assert retriever.retrieve("where does she live?") == []
    assert "retrieval for alice failed" in caplog.text
    with pytest.raises(StoreClosedError):
        loud.retrieve("where does she live?")


def test_constructor_validation(store: NovaStore) -> None:
    with pytest.raises(ValueError):
        NovaRetriever(store, "alice", similarity_top_k=0)
    with pytest.raises(ValueError):
        NovaRetriever(store, "")
    assert "alice" in repr(NovaRetriever(store, "alice"))
