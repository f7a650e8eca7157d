"""The package's one warn-once helper (a leaf: standard library only, importable from every layer)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable

__all__ = ["WarnOnce"]


class WarnOnce:
    """A warning logged the first time each key is seen, never again (thread-safe).

    Args:
        logger: where the warning goes.
        message: the ``%``-format logged by a call (its arguments are the call's).

    ``WarnOnce(logger, "no user given")()`` warns once; ``warned(row_id, key=row_id)`` once per
    row; :meth:`warn` logs another message under the same once-only rule.
    """

    def __init__(self, logger: logging.Logger, message: str = "") -> None:
        self.logger = logger
        self.message = message
        self._seen: set[Hashable] = set()
        self._lock = threading.Lock()

    def __call__(self, *args: object, key: Hashable = None) -> bool:
        """Log :attr:`message` with ``args`` unless ``key`` was logged before; whether it was logged."""
        return self.warn(self.message, *args, key=key)

    def warn(self, message: str, *args: object, key: Hashable = None) -> bool:
        """Log ``message`` with ``args`` unless ``key`` was logged before; whether it was logged."""
        with self._lock:
            if key in self._seen:
                return False
            self._seen.add(key)
        self.logger.warning(message, *args)
        return True

    def reset(self) -> None:
        """Forget every key: the next call of each logs again."""
        with self._lock:
            self._seen.clear()
