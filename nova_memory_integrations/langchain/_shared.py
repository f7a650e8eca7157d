"""Helpers of the LangChain adapters: the shared default store, fail-open logging, per-call users."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from uuid import UUID

from .._once import WarnOnce

if TYPE_CHECKING:
    from ..store import NovaStore

__all__ = [
    "WarnOnce",
    "close_shared_stores",
    "field",
    "first_id",
    "run_configurable",
    "run_context",
    "shared_store",
    "warn_failure",
]

_lock = threading.Lock()
_stores: dict[Path, NovaStore] = {}
_atexit_registered = False


def shared_store(path: str | os.PathLike[str] | None = None) -> NovaStore:
    """The one ``NovaStore`` of this process for ``path`` (default: ``$NOVA_MEMORY_HOME``).

    Adapters built with ``store=None`` share it, so a process never opens two stores
    (two background workers, two Chroma clients) on the same directory. Stores opened
    here are closed at interpreter exit.
    """
    global _atexit_registered
    from ..config import default_home
    from ..store import NovaStore

    key = (Path(path).expanduser() if path is not None else default_home()).resolve()
    with _lock:
        store = _stores.get(key)
        if store is None or store.closed:
            store = NovaStore(key)
            _stores[key] = store
            if not _atexit_registered:
                atexit.register(close_shared_stores)
                _atexit_registered = True
        return store


def close_shared_stores() -> None:
    """Close every store opened by :func:`shared_store` (also runs at interpreter exit)."""
    with _lock:
        stores = list(_stores.values())
        _stores.clear()
    for store in stores:
        try:
            store.close()
        except Exception as exc:  # pragma: no cover - best effort at shutdown
            warn_failure(logging.getLogger(__name__), "closing the shared store", exc)


def warn_failure(logger: logging.Logger, what: str, exc: BaseException) -> None:
    """Log a memory failure as a warning; the caller carries on without memory."""
    logger.warning("nova-memory: %s failed, continuing without it: %s: %s", what, type(exc).__name__, exc)


# -- whose memory a call is ----------------------------------------------------------------------
def first_id(*candidates: object) -> str | None:
    """The first candidate that is a usable id: a non-blank string, or an int or UUID (as a string).

    ``None``, blank strings and anything else (a bool, a list...) count as not given.
    """
    for value in candidates:
        if isinstance(value, str) and value.strip():
            return value
        if (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, UUID):
            return str(value)
    return None


def field(source: object, name: str) -> object:
    """``source[name]`` of a mapping (TypedDict), else ``source.name`` (dataclass, pydantic model...)."""
    if source is None:
        return None
    if isinstance(source, Mapping):
        return source.get(name)
    return getattr(source, name, None)


def run_configurable(config: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
    """``configurable`` of ``config`` over the current run's config (empty outside a run)."""
    from langchain_core.runnables.config import RunnableConfig, ensure_config

    try:
        configurable = ensure_config(cast(RunnableConfig | None, config)).get("configurable")
    except Exception:  # pragma: no cover - a malformed config: no per-call values
        return {}
    return configurable if isinstance(configurable, Mapping) else {}


def run_context() -> object:
    """The runtime context (``invoke(..., context=...)``) of the current LangGraph run, or None."""
    try:
        from langgraph.runtime import get_runtime

        return getattr(get_runtime(), "context", None)
    except Exception:  # outside a LangGraph run (or LangGraph missing)
        return None
