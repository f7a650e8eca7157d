"""The ``store`` argument of the framework adapters: a ``NovaStore``, or a ``TypeError`` saying what to pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import WrongStoreError

if TYPE_CHECKING:
    from .store import NovaStore

__all__ = ["require_store"]


def require_store(store: object, owner: str, *, optional: bool = False) -> NovaStore:
    """``store`` when it is a ``NovaStore``; else :class:`WrongStoreError` (a ``TypeError``).

    Args:
        store: what the caller passed.
        owner: the adapter, named in the message (``"NovaRetriever"``).
        optional: the adapter also takes no store (the shared default store).
    """
    from .store import NovaStore

    if isinstance(store, NovaStore):
        return store
    got = type(store).__name__
    default = f", or no store for the shared one at $NOVA_MEMORY_HOME ({owner}())" if optional else ""
    hint = ""
    if got == "NovaLangGraphStore":
        hint = (" (a NovaLangGraphStore is LangGraph's BaseStore for create_agent(store=...); pass the NovaStore "
                "it was built on)")
    elif isinstance(store, str) or hasattr(store, "__fspath__"):
        hint = " (a path: open it first, NovaStore(path))"
    raise WrongStoreError(
        f"{owner} needs a NovaStore: {owner}(NovaStore(\"./memory\"), ...){default}; got {got}{hint}"
    )
