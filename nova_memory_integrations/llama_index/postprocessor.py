"""``NovaNodePostprocessor``: rerank, dedupe and compress any nodes to a token budget."""

from __future__ import annotations

import logging
from typing import Any

from llama_index.core.bridge.pydantic import ConfigDict, Field
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle

from ..engine.validation import model_input, require_store
from ._convert import copy_node_with_text, node_text

__all__ = ["NovaNodePostprocessor"]

logger = logging.getLogger(__name__)


class NovaNodePostprocessor(BaseNodePostprocessor):
    """Reranks, deduplicates and compresses nodes to fit a token budget.

    Works on nodes from any retriever (not only memory): their text goes through
    :meth:`NovaStore.compress`, which scores each text against the query, drops
    near-duplicates and the least relevant texts, and shortens the rest until the total
    fits ``budget_tokens``. The result is best first, scored by relevance; every returned
    node is a copy (the caller's nodes are never mutated) whose metadata gains a
    ``nova_compression`` record, as in the LangChain ``NovaCompressor``: input position
    ``index``, ``original_tokens``, kept ``tokens``, ``compressed`` and the node's
    incoming ``input_score`` (hidden from the LLM and the embedder). If compression
    fails, the incoming nodes (cut to ``top_n``) are returned and a warning logged.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.llama_index import NovaNodePostprocessor

            store = NovaStore("./memory")
            post = NovaNodePostprocessor(store, budget_tokens=400, top_n=5, max_item_tokens=150)

    Usage:
        .. code-block:: python

            kept = post.postprocess_nodes(nodes, query_str="how do I reset my password?")

            engine = index.as_query_engine(llm=my_llm, node_postprocessors=[post])

    Args:
        store: the memory engine (only its compressor and tokenizer are used).
        budget_tokens: total tokens of the returned texts (``None``: no budget).
        top_n: keep at most this many nodes (``None``: as many as fit).
        max_item_tokens: cap per node (longer texts are cut to their most relevant sentences).
        raise_on_error: re-raise compression errors instead of passing nodes through.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: Any = Field(exclude=True, description="The NovaStore whose compressor is used.")
    budget_tokens: int | None = Field(default=1000, gt=0, description="Token budget of the kept texts.")
    top_n: int | None = Field(default=None, gt=0, description="Maximum number of nodes kept.")
    max_item_tokens: int | None = Field(default=None, gt=0, description="Token cap per node.")
    raise_on_error: bool = Field(default=False, description="Re-raise compression errors.")

    def __init__(self, store: Any = None, /, **data: Any) -> None:
        if store is not None:
            data["store"] = store
        if data.get("store") is not None:
            from ..store import NovaStore

            data["store"] = require_store(data["store"], NovaStore, type(self).__name__)
        with model_input(type(self).__name__):
            super().__init__(**data)

    @classmethod
    def class_name(cls) -> str:
        return "NovaNodePostprocessor"

    def _postprocess_nodes(
        self, nodes: list[NodeWithScore], query_bundle: QueryBundle | None = None
    ) -> list[NodeWithScore]:
        if query_bundle is None:
            raise ValueError("NovaNodePostprocessor needs the query (query_bundle or query_str)")
        if not nodes:
            return []
        texts = [node_text(n.node) for n in nodes]
        try:
            result = self.store.compress(query_bundle.query_str, texts, budget_tokens=self.budget_tokens,
                                         k=self.top_n, max_item_tokens=self.max_item_tokens)
        except Exception as exc:
            if self.raise_on_error:
                raise
            logger.warning("nova-memory: node compression failed, passing nodes through: %s", exc)
            return list(nodes[: self.top_n])
        out: list[NodeWithScore] = []
        for item in result.items:
            src = nodes[item.index]
            record = {"index": item.index, "original_tokens": item.original_tokens, "tokens": item.tokens,
                      "compressed": item.tokens < item.original_tokens, "input_score": src.score}
            out.append(copy_node_with_text(src, item.text, float(item.score), {"nova_compression": record}))
        return out
