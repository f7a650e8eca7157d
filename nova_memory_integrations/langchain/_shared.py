"""Process-wide helpers of the LangChain adapters: the shared default store and fail-open logging."""

from __future__ import annotations

import atexit
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..store import NovaStore

__all__ = ["close_shared_stores", "shared_store", "warn_failure"]

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
