"""``NovaCompressor``: rerank, deduplicate and compress any documents to a token budget."""

from __future__ import annotations

import asyncio
import copy
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import Callbacks
from langchain_core.documents import BaseDocumentCompressor, BaseDocumentTransformer, Document
from pydantic import ConfigDict, Field

from ..engine.validation import model_input, require_store
from ..errors import InvalidInputError
from ..store import NovaStore
from ._shared import shared_store, warn_failure

__all__ = ["NovaCompressor"]

logger = logging.getLogger(__name__)


class NovaCompressor(BaseDocumentCompressor, BaseDocumentTransformer):
    """Rerank, drop near-duplicates and shorten documents from any source to a token budget.

    Uses ``store.compress``: the store's reranker orders the documents by relevance to
    the query, near-duplicates (by embedding) are dropped, and documents are kept best
    first until ``budget_tokens`` (the last one kept may be cut to its most relevant
    sentences) or ``top_n`` is reached. The result is new ``Document`` objects, best
    first, with ``relevance_score`` and a ``nova_compression`` record (input position,
    original and kept token counts) in their metadata; the input documents are never
    modified. The store is only used for its embeddings, reranker and tokenizer; no
    memory is read or written.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations.langchain import NovaCompressor

            compressor = NovaCompressor(budget_tokens=800)            # shared default store
            compressor = NovaCompressor(store=store, budget_tokens=800, top_n=5)

    Usage:
        .. code-block:: python

            docs = compressor.compress_documents(web_docs, "how do I rotate my API key?")
            docs = compressor.transform_documents(web_docs, query="rotate API key")

            from langchain_classic.retrievers import ContextualCompressionRetriever
            retriever = ContextualCompressionRetriever(base_compressor=compressor,
                                                       base_retriever=vectorstore.as_retriever(k=20))

    On a store failure a warning is logged and copies of the input documents are
    returned (cut to ``top_n``), so the chain goes on. The async methods run the engine
    in a worker thread, so the event loop never blocks on embedding.

    Args:
        store: the ``NovaStore`` whose models to use; ``None``: the shared default store.
        budget_tokens: total token budget of the returned texts (``None``: no budget).
        top_n: maximum number of documents returned (``None``: no limit).
        max_item_tokens: cap per document (longer ones are cut to their best sentences).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: NovaStore | None = Field(default=None, description="Store whose models to use; None: the default store.")
    budget_tokens: int | None = Field(default=None, ge=1, description="Total token budget of the returned texts.")
    top_n: int | None = Field(default=None, ge=1, description="Maximum number of documents returned.")
    max_item_tokens: int | None = Field(default=None, ge=1,
                                        description="Token cap per document (cut to its best sentences).")

    def __init__(self, store: NovaStore | None = None, **kwargs: Any) -> None:
        """Accept ``store`` positionally too: ``NovaCompressor(store, budget_tokens=500)``."""
        kwargs["store"] = None if store is None else require_store(store, NovaStore, type(self).__name__, optional=True)
        with model_input(type(self).__name__):
            super().__init__(**kwargs)

    def _store(self) -> NovaStore:
        if self.store is None:
            self.store = shared_store()
        return self.store

    def compress_documents(
        self,
        documents: Sequence[Document],
        query: str,
        callbacks: Callbacks | None = None,
    ) -> Sequence[Document]:
        """The documents most relevant to ``query``, deduplicated, within the budget, best first."""
        return self._compress(documents, query)

    async def acompress_documents(
        self,
        documents: Sequence[Document],
        query: str,
        callbacks: Callbacks | None = None,
    ) -> Sequence[Document]:
        """Async :meth:`compress_documents` (the engine runs off the event loop)."""
        return await asyncio.to_thread(self._compress, documents, query)

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """:meth:`compress_documents` as a document transformer: pass ``query=...``.

        Raises:
            InvalidInputError: no ``query`` keyword argument.
        """
        return self._compress(documents, _query_arg(kwargs))

    async def atransform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """Async :meth:`transform_documents` (the engine runs off the event loop)."""
        return await asyncio.to_thread(self._compress, documents, _query_arg(kwargs))

    def _compress(self, documents: Sequence[Document], query: str) -> list[Document]:
        if not isinstance(query, str):
            raise InvalidInputError("query must be a string")
        docs = list(documents)
        if not docs:
            return []
        try:
            result = self._store().compress(query, [d.page_content for d in docs], budget_tokens=self.budget_tokens,
                                            k=self.top_n, max_item_tokens=self.max_item_tokens)
        except Exception as exc:
            warn_failure(logger, "document compression", exc)
            return [_copy(d, d.page_content, {}) for d in docs[: self.top_n]]
        return [
            _copy(docs[item.index], item.text, {
                "relevance_score": item.score,
                "nova_compression": {"index": item.index, "original_tokens": item.original_tokens,
                                     "tokens": item.tokens, "compressed": item.tokens < item.original_tokens},
            })
            for item in result.items
        ]


def _query_arg(kwargs: dict[str, Any]) -> str:
    query = kwargs.get("query")
    if not isinstance(query, str):
        raise InvalidInputError("NovaCompressor.transform_documents needs query=<str>")
    return query


def _copy(doc: Document, text: str, extra: dict[str, Any]) -> Document:
    """A new document with ``text``; metadata deep-copied (the input stays untouched)."""
    try:
        metadata = copy.deepcopy(doc.metadata)
    except Exception:  # metadata holding uncopyable objects: copy the mapping only
        metadata = dict(doc.metadata)
    metadata.update(extra)
    return Document(id=doc.id, page_content=text, metadata=metadata)
