"""``NovaRetriever``: a user's long-term memory as a LlamaIndex retriever."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from llama_index.core.callbacks import CallbackManager
from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle

from ..engine.validation import require_store
from ..errors import InvalidInputError
from ..retrieval.metadata import DEFAULT_LLM_METADATA_KEYS
from ..types import MemoryKind
from ._convert import hit_to_node

if TYPE_CHECKING:
    from ..store import NovaStore

__all__ = ["NovaRetriever"]

logger = logging.getLogger(__name__)


class NovaRetriever(BaseRetriever):
    """Retrieves a user's episodes, facts and rules from a ``NovaStore`` as nodes.

    Each result is a ``NodeWithScore`` whose node id is the memory id and whose metadata
    is the schema shared with the LangChain retriever (:mod:`nova_memory_integrations._metadata`:
    ``kind``, ``id``, ``score``/``scores``, ``timestamp``, ``valid_from``/``valid_to``,
    ``confidence``, ``provenance``, ``session_id``, ...). Only ``llm_metadata_keys`` are
    shown to the LLM next to the text. Retrieval failures are
    logged and give no nodes, so a query engine or agent keeps working.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.llama_index import NovaRetriever

            store = NovaStore("./memory")
            retriever = NovaRetriever(store, user_id="alice", similarity_top_k=5)

    Usage:
        .. code-block:: python

            nodes = retriever.retrieve("where does Alice live?")
            nodes = await retriever.aretrieve("where does Alice live?")

            from llama_index.core.query_engine import RetrieverQueryEngine

            engine = RetrieverQueryEngine.from_args(retriever=retriever, llm=my_llm)
            answer = engine.query("where does Alice live?")
            [n.node.metadata["kind"] for n in answer.source_nodes]

    Args:
        store: the memory engine.
        user_id: whose memory to search (every call is scoped to this user).
        similarity_top_k: maximum number of nodes returned.
        kinds: memory kinds to search.
        session_id: restrict episodes to one conversation.
        as_of: return facts valid at this moment instead of now.
        preset: retrieval preset name passed to :meth:`NovaStore.retrieve`.
        min_score: drop results scoring below this.
        llm_metadata_keys: metadata keys rendered into the LLM prompt.
        raise_on_error: re-raise store errors instead of logging them (for debugging).
        callback_manager: LlamaIndex callback manager.
        verbose: LlamaIndex verbosity flag.
    """

    def __init__(
        self,
        store: NovaStore,
        user_id: str,
        similarity_top_k: int = 10,
        *,
        kinds: Sequence[MemoryKind] = ("episode", "fact", "rule"),
        session_id: str | None = None,
        as_of: datetime | str | None = None,
        preset: str | None = None,
        min_score: float | None = None,
        llm_metadata_keys: Sequence[str] = DEFAULT_LLM_METADATA_KEYS,
        raise_on_error: bool = False,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if not isinstance(similarity_top_k, int) or similarity_top_k < 1:
            raise InvalidInputError("similarity_top_k must be a positive integer", field="similarity_top_k")
        if not user_id or not isinstance(user_id, str):
            raise InvalidInputError("user_id must be a non-empty string", field="user_id")
        from ..store import NovaStore

        store = require_store(store, NovaStore, type(self).__name__)
        super().__init__(callback_manager=callback_manager, verbose=verbose)
        self.store = store
        self.user_id = user_id
        self.similarity_top_k = similarity_top_k
        self.kinds: tuple[MemoryKind, ...] = tuple(kinds)
        self.session_id = session_id
        self.as_of = as_of
        self.preset = preset
        self.min_score = min_score
        self.llm_metadata_keys = tuple(llm_metadata_keys)
        self.raise_on_error = raise_on_error

    def __repr__(self) -> str:
        return f"NovaRetriever(user_id={self.user_id!r}, similarity_top_k={self.similarity_top_k})"

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        try:
            hits = self.store.retrieve(
                query_bundle.query_str, self.user_id, k=self.similarity_top_k, kinds=self.kinds,
                as_of=self.as_of, session_id=self.session_id, preset=self.preset,
            )
        except Exception as exc:
            if self.raise_on_error:
                raise
            logger.warning("nova-memory: retrieval for %s failed, returning no nodes: %s", self.user_id, exc)
            return []
        nodes = [hit_to_node(h, self.llm_metadata_keys) for h in hits]
        if self.min_score is not None:
            nodes = [n for n in nodes if n.get_score() >= self.min_score]
        return nodes

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        # The engine is synchronous (SQLite, Chroma, torch): run it off the event loop.
        return await asyncio.to_thread(self._retrieve, query_bundle)

