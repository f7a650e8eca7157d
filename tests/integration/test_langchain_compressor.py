"""NovaCompressor: contract (no input mutation), rerank/dedupe/budget, transformer, fail-open."""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from nova_memory_integrations import InvalidInputError, NovaStore
from nova_memory_integrations.langchain import NovaCompressor

QUERY = "How do I rotate my API key?"


def _docs() -> list[Document]:
    return [
        Document(id="a", page_content="Our office is closed on public holidays.",
                 metadata={"src": "faq", "tags": ["x"]}),
        Document(id="b", page_content="To rotate an API key, open Settings, choose API keys and click Rotate. "
                 "The old key stops working after 24 hours. Update your clients before then.",
                 metadata={"src": "docs", "nested": {"n": 1}}),
        Document(id="c", page_content="To rotate an API key, open Settings, choose API keys and click Rotate. "
                 "The old key stops working after 24 hours. Update your clients before then.",
                 metadata={"src": "mirror"}),
        Document(page_content="The cafeteria serves lunch from noon.", metadata={}),
        Document(id="e", page_content="API keys can be revoked at any time from the API keys page.",
                 metadata={"src": "docs"}),
    ]




def test_reranks_dedupes_and_never_mutates_inputs(store: NovaStore) -> None:
    docs = _docs()
    before = copy.deepcopy(docs)
    out = NovaCompressor(store=store).compress_documents(docs, QUERY)
    assert docs == before  # deep comparison: contents, ids, metadata (nested too)
    assert out[0].id == "b"
    assert "c" not in [d.id for d in out]  # the exact duplicate of b is dropped
    assert all(o is not d for o in out for d in docs)
    scores = [d.metadata["relevance_score"] for d in out]
    assert scores == sorted(scores, reverse=True)
    best = out[0]
    assert best.metadata["src"] == "docs" and best.metadata["nova_compression"]["index"] == 1
    best.metadata["nested"]["n"] = 99  # outputs do not share mutable state with inputs
    assert docs[1].metadata["nested"] == {"n": 1}


def test_budget_and_top_n(store: NovaStore) -> None:
    docs = _docs()
    out = NovaCompressor(store=store, budget_tokens=25).compress_documents(docs, QUERY)
    assert out and sum(store.count_tokens(d.page_content) for d in out) <= 25
    assert out[0].metadata["nova_compression"]["compressed"] is True  # b was cut to its best sentences
    assert "Rotate" in out[0].page_content
    assert len(NovaCompressor(store, top_n=2).compress_documents(docs, QUERY)) == 2
    assert NovaCompressor(store=store).compress_documents([], QUERY) == []


def test_transformer_interface_and_async(store: NovaStore) -> None:
    comp = NovaCompressor(store=store, top_n=3)
    docs = _docs()
    sync_ids = [d.id for d in comp.transform_documents(docs, query=QUERY)]
    assert sync_ids == [d.id for d in comp.compress_documents(docs, QUERY)]
    with pytest.raises(InvalidInputError):
        comp.transform_documents(docs)


async def test_async(store: NovaStore) -> None:
    comp = NovaCompressor(store=store, top_n=3)
    docs = _docs()
    before = copy.deepcopy(docs)
    a = await comp.acompress_documents(docs, QUERY)
    b = await comp.atransform_documents(docs, query=QUERY)
    assert [d.id for d in a] == [d.id for d in b] == [d.id for d in comp.compress_documents(docs, QUERY)]
    assert docs == before


def test_fail_open_returns_copies(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    comp = NovaCompressor(store=store, top_n=2)
    docs = _docs()
    store.close()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.langchain"):
        out = comp.compress_documents(docs, QUERY)
    assert [d.page_content for d in out] == [d.page_content for d in docs[:2]]
    assert all(o is not d for o, d in zip(out, docs[:2], strict=True))
    assert any("document compression failed" in r.getMessage() for r in caplog.records)


class _ListRetriever(BaseRetriever):
    docs: list[Document]

    def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
        return list(self.docs)


def test_with_contextual_compression_retriever(store: NovaStore) -> None:
    from langchain_classic.retrievers import ContextualCompressionRetriever  # the ``test`` extra installs it

    docs = _docs()
    before = copy.deepcopy(docs)
    retriever = ContextualCompressionRetriever(
        base_compressor=NovaCompressor(store=store, top_n=2), base_retriever=_ListRetriever(docs=docs))
    out = retriever.invoke(QUERY)
    assert out[0].id == "b" and len(out) == 2
    assert docs == before


def test_store_none_uses_shared_store(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from nova_memory_integrations.langchain._shared import close_shared_stores, shared_store

    monkeypatch.setenv("NOVA_MEMORY_HOME", str(tmp_path / "home"))
    comp = NovaCompressor(budget_tokens=100)
    try:
        assert comp.store is None
        assert comp._store() is shared_store()
    finally:
        close_shared_stores()
