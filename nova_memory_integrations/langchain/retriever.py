"""``NovaRetriever``: a user's long-term memory as a LangChain retriever."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict, Field, field_validator

from ..engine.validation import model_input
from ..store import NovaStore
from ..types import MemoryKind
from ._convert import context_item_to_document, hit_to_document
from ._shared import warn_failure

__all__ = ["NovaRetriever"]

logger = logging.getLogger(__name__)

_KINDS: tuple[MemoryKind, ...] = ("episode", "fact", "rule")
_OVERRIDABLE = frozenset({"k", "kinds", "as_of", "session_id", "budget_tokens", "preset"})


class NovaRetriever(BaseRetriever):
    """Episodes, facts and rules of one user, as ``Document`` objects, best first.

    Hybrid retrieval with reranking (``store.retrieve``); with ``budget_tokens`` set, the
    budgeted, deduplicated selection of ``store.context`` instead. Each document's
    metadata carries ``kind`` (episode / fact / rule), ``id``, ``score`` and per-signal
    ``scores``, ``timestamp``, validity (``valid_from`` / ``valid_to``), ``confidence``
    and ``provenance`` (the episode ids a fact came from); see ``_convert`` for the
    full list. Every parameter can be overridden per call: ``retriever.invoke(q, k=3)``.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.langchain import NovaRetriever

            retriever = NovaRetriever(store=NovaStore("./memory"), user_id="alice", k=5)
            facts_only = NovaRetriever(store=store, user_id="alice", kinds=("fact",),
                                       as_of="2024-06-01T00:00:00Z")

    Usage:
        .. code-block:: python

            docs = retriever.invoke("where does she live?")
            docs[0].metadata["kind"], docs[0].metadata["valid_from"], docs[0].metadata["provenance"]

            chain = {"memory": retriever, "question": RunnablePassthrough()} | prompt | model

    Failures of the store are logged as warnings and yield no documents, so a memory
    problem never breaks the chain. ``ainvoke`` runs the engine in a worker thread, so
    the event loop never blocks; a query costs a query embedding, an index lookup and a
    rerank.

    Args:
        store: the ``NovaStore`` to read.
        user_id: whose memory to search.
        k: number of documents to return.
        kinds: which kinds of memory to return.
        as_of: event time the facts must be valid at (default now).
        session_id: restrict episodes to one session.
        budget_tokens: if set, return the sources of ``store.context`` within this budget.
        preset: retrieval preset name (default: the store's).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: NovaStore = Field(description="The NovaStore to read.")
    user_id: str = Field(min_length=1, description="Whose memory to search.")
    k: int = Field(default=10, ge=1, description="Number of documents to return.")
    kinds: tuple[MemoryKind, ...] = Field(default=_KINDS, description="Kinds of memory to return.")
    as_of: datetime | str | None = Field(default=None, description="Event time facts must be valid at (default now).")
    session_id: str | None = Field(default=None, description="Restrict episodes to one session.")
    budget_tokens: int | None = Field(default=None, ge=1,
                                      description="If set, return the sources of store.context within this budget.")
    preset: str | None = Field(default=None, description="Retrieval preset name (default: the store's).")

    def __init__(self, store: NovaStore | None = None, user_id: str | None = None, **kwargs: Any) -> None:
        """Accept ``store`` and ``user_id`` positionally too: ``NovaRetriever(store, "alice")``."""
        if store is not None:
            kwargs["store"] = store
        if user_id is not None:
            kwargs["user_id"] = user_id
        with model_input(type(self).__name__):
            super().__init__(**kwargs)

    @field_validator("kinds")
    @classmethod
    def _check_kinds(cls, value: tuple[MemoryKind, ...]) -> tuple[MemoryKind, ...]:
        if not value:
            raise ValueError("kinds must name at least one of episode, fact, rule")
        return tuple(dict.fromkeys(value))

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return self._retrieve(query, kwargs)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        # the engine blocks (embedding, SQLite, Chroma): run it off the event loop
        return await asyncio.to_thread(self._retrieve, query, kwargs)

    def _retrieve(self, query: str, overrides: dict[str, Any]) -> list[Document]:
        unknown = set(overrides) - _OVERRIDABLE
        if unknown:
            raise TypeError(f"NovaRetriever got unexpected arguments: {sorted(unknown)}")
        # per-call overrides are validated like constructor arguments (bad values raise)
        with model_input("NovaRetriever.invoke"):
            params = type(self).model_validate({**self.__dict__, **overrides}) if overrides else self
        try:
            return params._documents(query)
        except Exception as exc:
            warn_failure(logger, "memory retrieval", exc)
            return []

    def _documents(self, query: str) -> list[Document]:
        if self.budget_tokens is not None:
            result = self.store.context(query, self.user_id, budget_tokens=self.budget_tokens, as_of=self.as_of,
                                        session_id=self.session_id, preset=self.preset, kinds=self.kinds)
            return [context_item_to_document(item) for item in _by_score(result.sources)[: self.k]]
        hits = self.store.retrieve(query, self.user_id, self.k, kinds=self.kinds, as_of=self.as_of,
                                   session_id=self.session_id, preset=self.preset)
        return [hit_to_document(hit) for hit in hits[: self.k]]


def _by_score(items: Sequence[Any]) -> list[Any]:
    return sorted(items, key=lambda item: item.score, reverse=True)
