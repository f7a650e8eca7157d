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
from langchain_core.runnables import RunnableConfig
from pydantic import ConfigDict, Field, PrivateAttr, field_validator

from ..engine.validation import model_input, require_store
from ..store import NovaStore
from ..types import MemoryKind
from ._convert import context_item_to_document, hit_to_document
from ._shared import WarnOnce, field, first_id, run_configurable, run_context, warn_failure

__all__ = ["NovaRetriever"]

logger = logging.getLogger(__name__)

_KINDS: tuple[MemoryKind, ...] = ("episode", "fact", "rule")
_OVERRIDABLE = frozenset({"user_id", "k", "kinds", "as_of", "session_id", "budget_tokens", "preset"})
_NO_USER = (
    "nova-memory: NovaRetriever found no user for this call and returns no documents; pass one per call with "
    "retriever.invoke(query, user_id=...) or config={'configurable': {'user_id': ...}} (inside a LangGraph run "
    "the agent's context={'user_id': ...} also works), or a default with NovaRetriever(user_id=...)"
)


class NovaRetriever(BaseRetriever):
    """Episodes, facts and rules of a user, as ``Document`` objects, best first.

    Hybrid retrieval with reranking (``store.retrieve``); with ``budget_tokens`` set, the
    budgeted, deduplicated selection of ``store.context`` instead. Each document's
    metadata carries ``kind`` (episode / fact / rule), ``id``, ``score`` and per-signal
    ``scores``, ``timestamp``, validity (``valid_from`` / ``valid_to``), ``confidence``
    and ``provenance`` (the episode ids a fact came from); see ``_convert`` for the
    full list. Every parameter can be overridden per call: ``retriever.invoke(q, k=3)``.

    Whose memory: per call, the first of ``invoke(q, user_id=...)``, the ``user_id`` of
    the LangGraph run's context (a retriever called by an agent's tool), the run config's
    ``configurable["user_id"]`` (``invoke(q, config)`` or the run the retriever is called
    in) and the ``user_id`` given here. With none of them the call returns no documents
    and warns once per retriever: memory is never shared by default.

    Setup:
        .. code-block:: bash

            pip install nova-memory-integrations

    Instantiate:
        .. code-block:: python

            from nova_memory_integrations import NovaStore
            from nova_memory_integrations.langchain import NovaRetriever

            retriever = NovaRetriever(store=NovaStore("./memory"), user_id="alice", k=5)
            per_call = NovaRetriever(store=store)          # the user comes with each call
            facts_only = NovaRetriever(store=store, user_id="alice", kinds=("fact",),
                                       as_of="2024-06-01T00:00:00Z")

    Usage:
        .. code-block:: python

            docs = retriever.invoke("where does she live?")
            docs = per_call.invoke("where do I live?", {"configurable": {"user_id": "bob"}})
            docs[0].metadata["kind"], docs[0].metadata["valid_from"], docs[0].metadata["provenance"]

            chain = {"memory": retriever, "question": RunnablePassthrough()} | prompt | model

    Failures of the store are logged as warnings and yield no documents, so a memory
    problem never breaks the chain. ``ainvoke`` runs the engine in a worker thread, so
    the event loop never blocks; a query costs a query embedding, an index lookup and a
    rerank.

    Args:
        store: the ``NovaStore`` to read.
        user_id: default user, for calls that name none (see above).
        k: number of documents to return.
        kinds: which kinds of memory to return.
        as_of: event time the facts must be valid at (default now).
        session_id: restrict episodes to one session.
        budget_tokens: if set, return the sources of ``store.context`` within this budget.
        preset: retrieval preset name (default: the store's).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    store: NovaStore = Field(description="The NovaStore to read.")
    user_id: str | None = Field(
        default=None, min_length=1, description="Default user, for calls that name none (see the class docstring)."
    )
    k: int = Field(default=10, ge=1, description="Number of documents to return.")
    kinds: tuple[MemoryKind, ...] = Field(default=_KINDS, description="Kinds of memory to return.")
    as_of: datetime | str | None = Field(default=None, description="Event time facts must be valid at (default now).")
    session_id: str | None = Field(default=None, description="Restrict episodes to one session.")
    budget_tokens: int | None = Field(
        default=None, ge=1, description="If set, return the sources of store.context within this budget."
    )
    preset: str | None = Field(default=None, description="Retrieval preset name (default: the store's).")

    _warn_no_user: WarnOnce = PrivateAttr(default_factory=lambda: WarnOnce(logger, _NO_USER))

    def __init__(self, store: NovaStore | None = None, user_id: str | None = None, **kwargs: Any) -> None:
        """Accept ``store`` and ``user_id`` positionally too: ``NovaRetriever(store, "alice")``."""
        if store is not None:
            kwargs["store"] = require_store(store, NovaStore, type(self).__name__)
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

    def invoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> list[Document]:
        """Retrieve for ``input``; the user comes from ``kwargs``, ``config``, the run or the default."""
        return super().invoke(input, config, **self._with_user(config, kwargs))

    async def ainvoke(self, input: str, config: RunnableConfig | None = None, **kwargs: Any) -> list[Document]:
        """Async :meth:`invoke` (the engine runs in a worker thread)."""
        return await super().ainvoke(input, config, **self._with_user(config, kwargs))

    def _with_user(self, config: RunnableConfig | None, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` with the call's ``user_id``, if the call carries one (see the class docstring)."""
        if kwargs.get("user_id") is not None:
            return kwargs  # validated like every per-call override
        kwargs = {k: v for k, v in kwargs.items() if k != "user_id"}
        user = first_id(field(run_context(), "user_id"), run_configurable(config).get("user_id"))
        return {**kwargs, "user_id": user} if user is not None else kwargs

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
        if params.user_id is None:
            self._warn_no_user()
            return []
        try:
            return params._documents(query)
        except Exception as exc:
            warn_failure(logger, "memory retrieval", exc)
            return []

    def _documents(self, query: str) -> list[Document]:
        assert self.user_id is not None  # checked by _retrieve
        if self.budget_tokens is not None:
            result = self.store.context(
                query,
                self.user_id,
                budget_tokens=self.budget_tokens,
                as_of=self.as_of,
                session_id=self.session_id,
                preset=self.preset,
                kinds=self.kinds,
            )
            return [context_item_to_document(item) for item in _by_score(result.sources)[: self.k]]
        hits = self.store.retrieve(
            query,
            self.user_id,
            self.k,
            kinds=self.kinds,
            as_of=self.as_of,
            session_id=self.session_id,
            preset=self.preset,
        )
        return [hit_to_document(hit) for hit in hits[: self.k]]


def _by_score(items: Sequence[Any]) -> list[Any]:
    return sorted(items, key=lambda item: item.score, reverse=True)
