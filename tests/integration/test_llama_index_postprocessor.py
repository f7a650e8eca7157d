"""NovaNodePostprocessor: rerank + dedupe + compress arbitrary nodes, never mutating them."""

from __future__ import annotations

import logging

import pytest
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import ImageNode, NodeWithScore, QueryBundle, TextNode

from nova_memory_integrations import NovaStore, StoreClosedError
from nova_memory_integrations.llama_index import NovaNodePostprocessor
from nova_memory_integrations.llama_index.testing import ExtractiveMemoryLLM

QUERY = "How do I reset my router password?"
TEXTS = [
    "To reset the router password, hold the reset button for ten seconds, then log in with the default "
    "password printed on the label and choose a new one in the admin page.",
    "Our office is closed on public holidays. Support tickets opened then are answered the next working day.",
    "To reset the router password, hold the reset button for ten seconds, then log in with the default "
    "password printed on the label and choose a new one in the admin page.",
    "The router's admin page lives at 192.168.0.1. Changing the password there requires the current password. "
    "If you forgot it, a factory reset is the only way back in. The weather in Lisbon is mild in spring. "
    "Our cafeteria serves soup every Tuesday and fish on Fridays.",
    "Printers on the third floor need toner every month; order it through the facilities portal.",
]


def _nodes() -> list[NodeWithScore]:
    return [NodeWithScore(node=TextNode(id_=f"n{i}", text=t, metadata={"doc": i}), score=0.5) for i, t in
            enumerate(TEXTS)]


def test_budget_dedupe_rerank_without_mutation(store: NovaStore) -> None:
    nodes = _nodes()
    before = [n.model_dump() for n in nodes]
    post = NovaNodePostprocessor(store, budget_tokens=60)
    out = post.postprocess_nodes(nodes, query_str=QUERY)
    assert [n.model_dump() for n in nodes] == before  # caller's nodes untouched
    assert out and all(o is not n and o.node is not n.node for o in out for n in nodes)
    assert sum(store.count_tokens(o.node.get_content()) for o in out) <= 60
    ids = [o.node.node_id for o in out]
    assert len(ids) == len(set(ids))
    assert not {"n0", "n2"} <= set(ids)  # the duplicate went
    assert ids[0] in {"n0", "n2"}  # most relevant first
    assert [o.get_score() for o in out] == sorted((o.get_score() for o in out), reverse=True)
    first = out[0].node.metadata
    record = first["nova_compression"]
    assert first["doc"] in (0, 2) and record["input_score"] == 0.5 and record["index"] == int(ids[0][1:])
    assert record["tokens"] <= record["original_tokens"]
    assert "nova_compression" in out[0].node.excluded_llm_metadata_keys
    assert "nova_compression" in out[0].node.excluded_embed_metadata_keys
    assert "n4" not in ids or "n1" not in ids  # the least relevant texts are dropped first


def test_long_text_is_shortened_and_top_n(store: NovaStore) -> None:
    post = NovaNodePostprocessor(store, budget_tokens=45, top_n=2)
    out = post.postprocess_nodes(_nodes(), query_bundle=QueryBundle(QUERY))
    assert 1 <= len(out) <= 2
    records = [o.node.metadata["nova_compression"] for o in out]
    assert sum(r["tokens"] for r in records) <= 45
    assert all(r["compressed"] == (r["tokens"] < r["original_tokens"]) for r in records)
    capped = NovaNodePostprocessor(store, budget_tokens=None, max_item_tokens=20).postprocess_nodes(
        _nodes(), query_str=QUERY)
    assert all(o.node.metadata["nova_compression"]["tokens"] <= 20 for o in capped)
    assert any(o.node.metadata["nova_compression"]["compressed"] for o in capped)
    unlimited = NovaNodePostprocessor(store, budget_tokens=None).postprocess_nodes(_nodes(), query_str=QUERY)
    assert len(unlimited) == len(TEXTS) - 1  # only the duplicate goes


async def test_async_and_non_text_nodes(store: NovaStore) -> None:
    image = NodeWithScore(node=ImageNode(id_="img", text="A photo of the router's reset button.",
                                         metadata={"kind": "photo"}), score=0.2)
    post = NovaNodePostprocessor(store, budget_tokens=200)
    out = await post.apostprocess_nodes([*_nodes(), image], query_str=QUERY)
    by_id = {o.node.node_id: o for o in out}
    assert "img" in by_id and by_id["img"].node.metadata["kind"] == "photo"
    assert isinstance(image.node, ImageNode) and image.node.metadata == {"kind": "photo"}


def test_in_a_query_engine(store: NovaStore) -> None:
    class Fixed(BaseRetriever):
        def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
            return _nodes()

    llm = ExtractiveMemoryLLM()
    engine = RetrieverQueryEngine.from_args(retriever=Fixed(), llm=llm,
                                            node_postprocessors=[NovaNodePostprocessor(store, budget_tokens=60)])
    response = engine.query(QUERY)
    assert "reset button" in str(response)
    assert 1 <= len(response.source_nodes) < len(TEXTS)
    assert "cafeteria" not in "\n".join(m.content or "" for m in llm.last_messages)


def test_errors(store: NovaStore, caplog: pytest.LogCaptureFixture) -> None:
    post = NovaNodePostprocessor(store)
    with pytest.raises(ValueError, match="query"):
        post.postprocess_nodes(_nodes())
    assert post.postprocess_nodes([], query_str=QUERY) == []
    nodes = _nodes()
    loud = NovaNodePostprocessor(store, raise_on_error=True)
    store.close()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        assert post.postprocess_nodes(nodes, query_str=QUERY) == nodes
        assert NovaNodePostprocessor(store, top_n=2).postprocess_nodes(nodes, query_str=QUERY) == nodes[:2]
    assert "passing nodes through" in caplog.text
    with pytest.raises(StoreClosedError):
        loud.postprocess_nodes(nodes, query_str=QUERY)
    with pytest.raises(ValueError):
        NovaNodePostprocessor(store, budget_tokens=0)
