"""LangGraph integration: the engine as LangGraph's long-term memory store.

- :class:`NovaLangGraphStore`: a ``langgraph.store.base.BaseStore`` (put / get / search /
  delete / list_namespaces, batch and async forms) over a ``NovaStore``: JSON items kept
  in SQLite per user, hybrid (dense + keyword) search, for ``create_agent(store=...)``,
  ``runtime.store`` in tools and LangMem's memory tools.
- :class:`NamespaceError`: a namespace that breaks LangGraph's label rules or the store's
  namespace -> user mapping (an ``InvalidInputError`` and LangGraph's ``InvalidNamespaceError``).
"""

from __future__ import annotations

from ._items import NamespaceError
from .store import NovaLangGraphStore

__all__ = ["NamespaceError", "NovaLangGraphStore"]
