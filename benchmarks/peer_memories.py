"""The peers' own memory objects behind one small interface, for ``benchmarks/peers.py``.

Each peer is the object a user of that library would build, as installed from PyPI, with its
documented defaults; only the embedder is ours (all-MiniLM-L6-v2, the one every system in the
comparison uses) so that the figures compare memory systems, not embedding models. None of them
gets an LLM (none exists here): mem0 adds raw messages (``infer=False``), LangGraph's store and
LlamaIndex's vector block never call one.

- :class:`LangChainEmbeddings` / :class:`LlamaIndexEmbedding`: our embedder as LangChain's
  ``Embeddings`` (LangGraph's ``index={"embed": ...}``, mem0's ``langchain`` embedder provider) and
  as LlamaIndex's ``BaseEmbedding`` (the block's ``embed_model``). They only translate.
- :class:`LangGraphPeer`: ``InMemoryStore(index={"embed": ..., "dims": 384})``, one item per turn
  (key: the turn's ``dia_id``, value ``{"content": ...}`` as LangMem's tools write them), searched
  with ``store.search(namespace, query=..., limit=k)``: exactly what LangMem's search tool calls,
  so LangMem is this row, not a row of its own.
- :class:`LangGraphPostgresPeer`: the same on ``PostgresStore`` (pgvector), a durable store as ours is.
- :class:`LlamaIndexPeer`: ``VectorMemoryBlock`` (the long-term block of ``llama_index``'s
  ``Memory``) over a Chroma collection, one node per turn, read through the block's own ``aget``.
- :class:`Mem0Peer`: ``mem0.Memory`` with its default vector store (Qdrant, local, in memory) and
  history database in a temp directory, ``add(..., infer=False)`` per turn, ``search(..., top_k=k)``.

A peer's ``search`` returns ``(dia_ids, text)`` per item, best first: the turns the item stands
for (one here) and the text a context would show.
"""

from __future__ import annotations

import asyncio
import os
import re
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any, Protocol

from langchain_core.embeddings import Embeddings
from llama_index.core.embeddings import BaseEmbedding
from pydantic import PrivateAttr

DIMS = 384
"""all-MiniLM-L6-v2's vector size (LangGraph's index and mem0's vector store are told it)."""
NAMESPACE = "locomo"
"""LangGraph namespace prefix: a conversation's items live under ``(NAMESPACE, sample_id)``."""

MEM0_ENV = {"MEM0_TELEMETRY": "False", "MEM0_DIR": os.path.join(tempfile.gettempdir(), "peers-mem0-home")}
"""mem0 sends usage events to PostHog and keeps a user id under ``~/.mem0`` unless told otherwise; it
reads both when first imported, so they are set when this module is (before anything imports mem0)."""
for _key, _value in MEM0_ENV.items():
    os.environ.setdefault(_key, _value)

Hit = tuple[list[str], str]
"""One retrieved item: the ``dia_id`` of each turn it stands for, and its text."""


class PeerMemory(Protocol):
    """What the benchmark asks of every peer: fill with one conversation, search it, close."""

    name: str

    def add(self, user_id: str, turns: Sequence[dict[str, Any]]) -> None: ...

    def search(self, user_id: str, query: str, k: int) -> list[Hit]: ...

    def close(self) -> None: ...


class LangChainEmbeddings(Embeddings):
    """Our embedder as a LangChain ``Embeddings`` (the type LangGraph and mem0 check for).

    Our embedders have the same two methods but are not subclasses of LangChain's class (the
    engine does not import LangChain for them); this wrapper changes nothing else.
    """

    def __init__(self, inner: Any):
        self.inner = inner

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in self.inner.embed_documents(list(texts))]

    def embed_query(self, text: str) -> list[float]:
        return [float(x) for x in self.inner.embed_query(text)]


class LlamaIndexEmbedding(BaseEmbedding):
    """Our embedder as a LlamaIndex ``BaseEmbedding``: documents through ``embed_documents``,
    queries through ``embed_query``, as our own store embeds them."""

    _inner: Any = PrivateAttr()

    def __init__(self, inner: Any, **kwargs: Any):
        super().__init__(model_name="all-MiniLM-L6-v2", **kwargs)
        self._inner = inner

    def _get_query_embedding(self, query: str) -> list[float]:
        return [float(x) for x in self._inner.embed_query(query)]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [[float(x) for x in v] for v in self._inner.embed_documents(list(texts))]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embedding(text)


class LangGraphPeer:
    """LangGraph's ``InMemoryStore`` with a vector index (documented defaults: ``fields=["$"]``,
    the whole value embedded); a conversation's turns go in with one ``batch`` of puts."""

    name = "langgraph_inmemory"

    def __init__(self, embeddings: Any):
        from langgraph.store.memory import InMemoryStore

        self.store = InMemoryStore(index={"embed": LangChainEmbeddings(embeddings), "dims": DIMS})

    def add(self, user_id: str, turns: Sequence[dict[str, Any]]) -> None:
        from langgraph.store.base import PutOp

        self.store.batch([PutOp((NAMESPACE, user_id), t["metadata"]["dia_id"], {"content": t["content"]})
                          for t in turns])

    def search(self, user_id: str, query: str, k: int) -> list[Hit]:
        return [([item.key], item.value["content"]) for item in self.store.search((NAMESPACE, user_id), query=query,
                                                                                   limit=k)]

    def close(self) -> None:
        return None


class LangGraphPostgresPeer(LangGraphPeer):
    """LangGraph's ``PostgresStore`` (pgvector; documented defaults: HNSW, cosine) with the same
    index, value shape and calls as :class:`LangGraphPeer`, on a database of its own (``url``)."""

    name = "langgraph_postgres"

    def __init__(self, embeddings: Any, url: str):
        from langgraph.store.postgres import PostgresStore

        self._stack = ExitStack()
        self.store = self._stack.enter_context(PostgresStore.from_conn_string(
            url, index={"embed": LangChainEmbeddings(embeddings), "dims": DIMS}))
        self.store.setup()

    def close(self) -> None:
        self._stack.close()


_MESSAGE = re.compile(r"<message role='[^']*'>(.*?)</message>", re.DOTALL)


def block_messages(text: str) -> list[str]:
    """The message texts in a ``VectorMemoryBlock``'s retrieved text, in its order (the block wraps
    each stored message as ``<message role='...'>...</message>`` and joins nodes with blank lines)."""
    return [m.group(1) for m in _MESSAGE.finditer(text)]


def turns_by_text(turns: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """``dia_id`` s of the turns per content text (a text said twice stands for both turns: the two
    are the same to any retriever)."""
    out: dict[str, list[str]] = defaultdict(list)
    for t in turns:
        out[t["content"]].append(t["metadata"]["dia_id"])
    return dict(out)


class LlamaIndexPeer:
    """``VectorMemoryBlock`` over a Chroma collection, one node per turn, queried with the question
    as the latest message (the block's own ``aget``; ``similarity_top_k`` set to the benchmark's k).

    ``Memory`` itself keeps the newest ~21,000 tokens (``token_limit`` 30,000 x 0.7) in its chat
    buffer and flushes older ones to the block in ~3,000-token batches, one node each: with those
    defaults a LoCoMo conversation would mostly stay in the buffer (all of it in the prompt) and
    the block's nodes would hold ~100 turns, so recall@10 turns would measure the batch size. One
    node per turn is the block at its finest, the same granularity every other system gets.
    """

    name = "llamaindex_vector_block"

    def __init__(self, embeddings: Any):
        import chromadb
        from llama_index.core.memory import VectorMemoryBlock
        from llama_index.vector_stores.chroma import ChromaVectorStore

        self._client = chromadb.EphemeralClient()
        self._collection = f"peers-{uuid.uuid4().hex}"
        store = ChromaVectorStore(chroma_collection=self._client.create_collection(self._collection))
        self.block = VectorMemoryBlock(vector_store=store, embed_model=LlamaIndexEmbedding(embeddings))
        self._by_text: dict[str, list[str]] = {}

    def add(self, user_id: str, turns: Sequence[dict[str, Any]]) -> None:
        from llama_index.core.llms import ChatMessage

        self._by_text = turns_by_text(turns)
        for t in turns:
            asyncio.run(self.block.aput([ChatMessage(role="user", content=t["content"])]))

    def search(self, user_id: str, query: str, k: int) -> list[Hit]:
        from llama_index.core.llms import ChatMessage

        self.block.similarity_top_k = k
        text = asyncio.run(self.block.aget(messages=[ChatMessage(role="user", content=query)]))
        return [(self._by_text.get(m, []), m) for m in block_messages(text)]

    def close(self) -> None:
        self._client.delete_collection(self._collection)


class Mem0Peer:
    """``mem0.Memory`` without an LLM: ``add(messages, user_id=..., infer=False)`` stores each
    message as a memory as it is; ``search`` is mem0's own (semantic over-fetch, BM25 from the
    vector store's keyword search, entity boosts when spaCy is installed, threshold 0.1).

    The LLM section names an unreachable endpoint so that any call to it would fail loudly: with
    ``infer=False`` none is made. Telemetry is off and mem0's home is a temp directory
    (:data:`MEM0_ENV`).
    """

    name = "mem0_raw"

    def __init__(self, embeddings: Any):
        self._tmp = tempfile.TemporaryDirectory(prefix="peers-mem0-")
        from mem0 import Memory

        self.memory = Memory.from_config({
            "vector_store": {"provider": "qdrant", "config": {
                "collection_name": "locomo", "embedding_model_dims": DIMS, "path": os.path.join(self._tmp.name, "qdrant")}},
            "embedder": {"provider": "langchain", "config": {"model": LangChainEmbeddings(embeddings)}},
            "llm": {"provider": "openai", "config": {"api_key": "no-llm", "openai_base_url": "http://127.0.0.1:9/v1"}},
            "history_db_path": os.path.join(self._tmp.name, "history.db"),
        })

    def add(self, user_id: str, turns: Sequence[dict[str, Any]]) -> None:
        for t in turns:
            self.memory.add([{"role": "user", "content": t["content"]}], user_id=user_id, infer=False,
                            metadata={"dia_id": t["metadata"]["dia_id"]})

    def search(self, user_id: str, query: str, k: int) -> list[Hit]:
        found = self.memory.search(query, filters={"user_id": user_id}, top_k=k)["results"]
        dia = [(r.get("metadata") or {}).get("dia_id") for r in found]
        return [([str(d)] if d else [], r["memory"]) for d, r in zip(dia, found)]

    def close(self) -> None:
        closer = getattr(self.memory.vector_store.client, "close", None)
        if closer is not None:
            closer()
        self._tmp.cleanup()


PEERS: dict[str, type[LangGraphPeer] | type[LlamaIndexPeer] | type[Mem0Peer]] = {
    LangGraphPeer.name: LangGraphPeer, LangGraphPostgresPeer.name: LangGraphPostgresPeer,
    LlamaIndexPeer.name: LlamaIndexPeer, Mem0Peer.name: Mem0Peer}
"""Every peer by its result name (``--systems`` picks among these and ``nova``); those in
:data:`ON_POSTGRES` also take a database URL."""
ON_POSTGRES = frozenset({LangGraphPostgresPeer.name})
"""Peers built with ``(embeddings, url)``: a fresh database on a Postgres server per conversation."""
