"""The adapters of ``benchmarks/peer_memories.py`` (the LoCoMo comparison with LangGraph, LlamaIndex
and mem0): our embedder reaches each peer unchanged, each peer maps its hits back to the turns
they came from, and the budget packing shared with ``locomo.py`` stops where it should. Real
MiniLM; mem0 only where it is installed (the ``peers`` extra)."""

from __future__ import annotations

import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain_core.embeddings import Embeddings

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from locomo import packed_count
from peer_memories import (
    LangChainEmbeddings,
    LangGraphPeer,
    LlamaIndexEmbedding,
    LlamaIndexPeer,
    Mem0Peer,
    block_messages,
    turns_by_text,
)

TEXTS = ["Caroline: I went to the LGBTQ support group yesterday.",
         "Melanie: We took the kids camping at the beach last weekend.",
         "Caroline: I'm saving up to adopt a dog from the shelter."]


def _turns(texts: list[str]) -> list[dict[str, Any]]:
    when = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    return [{"user_id": "conv-t", "role": "user", "content": t, "session_id": "session_1", "timestamp": when,
             "metadata": {"dia_id": f"D1:{i + 1}", "speaker": t.split(":")[0]}} for i, t in enumerate(texts)]


def test_langchain_adapter_is_a_langchain_embeddings_with_our_vectors(minilm_onnx: Any) -> None:
    lc = LangChainEmbeddings(minilm_onnx)
    assert isinstance(lc, Embeddings)  # what LangGraph's index and mem0's langchain provider check
    np.testing.assert_allclose(lc.embed_documents(TEXTS[:2]), minilm_onnx.embed_documents(TEXTS[:2]), atol=1e-6)
    np.testing.assert_allclose(lc.embed_query(TEXTS[0]), minilm_onnx.embed_query(TEXTS[0]), atol=1e-6)


def test_llamaindex_adapter_embeds_documents_and_queries_as_our_store_does(minilm_onnx: Any) -> None:
    li = LlamaIndexEmbedding(minilm_onnx)
    np.testing.assert_allclose(li.get_text_embedding(TEXTS[1]), minilm_onnx.embed_documents([TEXTS[1]])[0], atol=1e-6)
    np.testing.assert_allclose(li.get_text_embedding_batch(TEXTS), minilm_onnx.embed_documents(TEXTS), atol=1e-6)
    np.testing.assert_allclose(li.get_query_embedding(TEXTS[2]), minilm_onnx.embed_query(TEXTS[2]), atol=1e-6)


def test_block_messages_reads_the_blocks_wrapped_text_in_order() -> None:
    text = ("<message role='user'>Caroline: it's \"great\",\nreally</message>\n\n"
            "<message role='assistant'>Melanie: ok</message>")
    assert block_messages(text) == ["Caroline: it's \"great\",\nreally", "Melanie: ok"]
    assert block_messages("") == []


def test_a_text_said_twice_stands_for_both_turns() -> None:
    assert turns_by_text(_turns(["A: hi", "B: yo", "A: hi"])) == {"A: hi": ["D1:1", "D1:3"], "B: yo": ["D1:2"]}


@pytest.mark.parametrize("peer_class", [LangGraphPeer, LlamaIndexPeer, Mem0Peer])
def test_each_peer_finds_the_turn_asked_about_and_names_it(peer_class: Any, minilm_onnx: Any) -> None:
    if peer_class is Mem0Peer:
        pytest.importorskip("mem0", reason="mem0ai is in the peers extra, not in the test environment")
    peer = peer_class(minilm_onnx)
    try:
        peer.add("conv-t", _turns(TEXTS))
        hits = peer.search("conv-t", "Which animal does Caroline want to adopt?", 2)
        assert len(hits) == 2
        assert hits[0] == (["D1:3"], TEXTS[2])
        assert peer.search("conv-t", "Where did Melanie go camping?", 1)[0][0] == ["D1:2"]
    finally:
        peer.close()


def test_packing_keeps_items_while_their_tokens_and_line_breaks_fit() -> None:
    words = len  # one token per character: easy to count by hand
    assert packed_count(["abcd", "ef", "g"], 8, words) == 2  # 5 + 3 = 8 fits, + 2 does not
    assert packed_count(["abcd", "ef", "g"], 7, words) == 1
    assert packed_count(["abcdefghij", "a"], 5, words) == 0  # stops at the first that does not fit
    assert packed_count([], 100, words) == 0
