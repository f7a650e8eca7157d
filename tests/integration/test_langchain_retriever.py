"""NovaRetriever: the standard LangChain retriever suite, metadata, budget, async, fail-open."""

from __future__ import annotations

import json
import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_tests.integration_tests import RetrieversIntegrationTests

from nova_memory_integrations import InvalidInputError, NovaStore
from nova_memory_integrations.langchain import NovaRetriever

USER = "alice"
TURNS = [
    "I live in Paris.",
    "I work at Acme.",
    "My favorite color is blue.",
    "We went hiking in the Alps last summer.",
    "My sister lives in Lyon and works as a nurse.",
    "Paris is lovely in the spring.",
]


def _fill(store: NovaStore) -> None:
    store.add_turns([{"user_id": USER, "role": "user", "content": t, "session_id": "s1"} for t in TURNS])
    store.consolidate(USER)
    store.add_turn("bob", "user", "I live in Berlin.")  # another tenant: never returned


class TestNovaRetrieverStandard(RetrieversIntegrationTests):
    """The unmodified langchain-tests suite against a real store."""

    @pytest.fixture(autouse=True)
    def _memory(self, store: NovaStore) -> None:
        _fill(store)
        self._store = store

    @property
    def retriever_constructor(self) -> type[NovaRetriever]:
        return NovaRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"store": self._store, "user_id": USER}

    @property
    def retriever_query_example(self) -> str:
        return "Where does the user live?"


@pytest.fixture
def filled(store: NovaStore) -> NovaStore:
    _fill(store)
    return store


def test_documents_carry_kind_ids_scores_dates_validity_provenance(filled: NovaStore) -> None:
    docs = NovaRetriever(store=filled, user_id=USER, k=10).invoke("where do I live?")
    assert docs and all(d.metadata["source"] == "nova-memory" for d in docs)
    assert all("Berlin" not in d.page_content for d in docs)
    kinds = {d.metadata["kind"] for d in docs}
    assert {"episode", "fact"} <= kinds
    scores = [d.metadata["score"] for d in docs]
    assert scores == sorted(scores, reverse=True)
    fact = next(d for d in docs if d.metadata["kind"] == "fact" and d.metadata["predicate"] == "lives_in")
    stored = filled.facts(USER, predicate="lives_in")[0]
    assert fact.id == fact.metadata["id"] == stored.id
    assert fact.metadata["object"] == "Paris" and fact.metadata["valid_to"] is None
    assert fact.metadata["valid_from"] == stored.valid_from.isoformat()
    assert fact.metadata["provenance"] == list(stored.provenance)
    assert fact.metadata["confidence"] == pytest.approx(stored.confidence)
    assert fact.metadata["lineage_id"] == stored.lineage_id
    episode = next(d for d in docs if d.metadata["kind"] == "episode")
    assert episode.metadata["role"] == "user" and episode.metadata["session_id"] == "s1"
    # an episode document is a snippet: its own turn first in score, every merged turn in provenance
    assert episode.id in episode.metadata["provenance"] and episode.metadata["timestamp"]
    assert len(episode.metadata["provenance"]) == len(episode.page_content.splitlines())
    assert isinstance(episode.metadata["scores"], dict) and episode.metadata["scores"]
    json.dumps([d.metadata for d in docs])  # serialisable


def test_kinds_and_rules(filled: NovaStore) -> None:
    filled.add_rule(USER, "the user asks about travel", "suggest trains over planes")
    facts = NovaRetriever(store=filled, user_id=USER, kinds=("fact",)).invoke("where do I live?")
    assert facts and {d.metadata["kind"] for d in facts} == {"fact"}
    # rules are only recalled above the preset's rule_min_similarity
    rules = NovaRetriever(store=filled, user_id=USER, kinds=("rule",)).invoke("the user asks about travel")
    assert rules and rules[0].metadata["kind"] == "rule"
    assert rules[0].metadata["action"] == "suggest trains over planes"
    with pytest.raises(InvalidInputError):
        NovaRetriever(store=filled, user_id=USER, kinds=())


def test_as_of_returns_facts_valid_then(filled: NovaStore) -> None:
    before = datetime.now(timezone.utc) - timedelta(days=365)
    docs = NovaRetriever(store=filled, user_id=USER, kinds=("fact",), as_of=before).invoke("where do I live?")
    assert docs == []
    docs = NovaRetriever(store=filled, user_id=USER, kinds=("fact",)).invoke("where do I live?", as_of=None)
    assert docs


def test_budget_tokens_uses_context_sources(filled: NovaStore) -> None:
    retriever = NovaRetriever(store=filled, user_id=USER, budget_tokens=80, k=10)
    docs = retriever.invoke("where do I live?")
    ctx = filled.context("where do I live?", USER, budget_tokens=80)
    assert [d.id for d in docs] == [s.id for s in sorted(ctx.sources, key=lambda s: s.score, reverse=True)]
    assert docs and all(d.metadata["reason"] for d in docs)
    assert len(NovaRetriever(store=filled, user_id=USER, budget_tokens=500, k=2).invoke("where do I live?")) == 2


def test_session_filter_and_overrides(filled: NovaStore) -> None:
    filled.add_turn(USER, "user", "I live near the Eiffel tower.", session_id="s2")
    retriever = NovaRetriever(store=filled, user_id=USER, kinds=("episode",), session_id="s2")
    docs = retriever.invoke("where do I live?")
    assert {d.metadata["session_id"] for d in docs} == {"s2"}
    assert len(retriever.invoke("where do I live?", session_id=None, k=3)) == 3
    with pytest.raises(TypeError):
        retriever.invoke("where do I live?", top_k=3)
    with pytest.raises(InvalidInputError):
        retriever.invoke("where do I live?", k=0)


def test_positional_arguments(filled: NovaStore) -> None:
    retriever = NovaRetriever(filled, USER, k=2)
    assert retriever.store is filled and retriever.user_id == USER and len(retriever.invoke("where?")) == 2
    with pytest.raises(InvalidInputError):
        NovaRetriever(filled, "")  # a default user, if given, is a non-empty string


async def test_native_async(filled: NovaStore) -> None:
    retriever = NovaRetriever(store=filled, user_id=USER, k=4)
    sync_docs = retriever.invoke("where do I live?")
    async_docs = await retriever.ainvoke("where do I live?")
    assert [d.id for d in async_docs] == [d.id for d in sync_docs]
    assert len(await retriever.ainvoke("where do I live?", k=2)) == 2


def test_store_failure_returns_no_documents(filled: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    retriever = NovaRetriever(store=filled, user_id=USER)
    filled.close()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.langchain"):
        assert retriever.invoke("where do I live?") == []
    assert any("memory retrieval failed" in r.getMessage() for r in caplog.records)


def test_usable_in_lcel(filled: NovaStore) -> None:
    from langchain_core.runnables import RunnableLambda

    def fmt(docs: list[Document]) -> str:
        return "\n".join(d.page_content for d in docs)

    chain = NovaRetriever(store=filled, user_id=USER, kinds=("fact",), k=3) | RunnableLambda(fmt)
    assert "Paris" in chain.invoke("where do I live?")
