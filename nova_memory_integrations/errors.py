"""Typed errors raised by nova-memory-integrations.

Every error the package raises on purpose derives from :class:`NovaMemoryError`, so a
caller can catch one type. Input errors also derive from :class:`ValueError` so that
code written against plain Python conventions keeps working.
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "ConsolidationError",
    "EmbeddingError",
    "InvalidInputError",
    "MissingExtraError",
    "NotFoundError",
    "NovaMemoryError",
    "StoreClosedError",
    "StorageError",
    "WrongStoreError",
]


class NovaMemoryError(Exception):
    """Base class of every error raised by nova-memory-integrations."""


class InvalidInputError(NovaMemoryError, ValueError):
    """Bad input: empty or oversized content, a missing user, a naive timestamp, ...

    Raised before anything is written, so nothing already stored is affected. ``field``
    names the offending argument or field when the caller passed it.
    """

    def __init__(self, message: str = "", *, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class WrongStoreError(NovaMemoryError, TypeError):
    """A framework adapter was given something other than a ``NovaStore`` (such as a
    ``NovaLangGraphStore``); the message says what to pass."""


class ConfigError(NovaMemoryError, ValueError):
    """The configuration (TOML file or ``NovaConfig`` values) is invalid."""


class MissingExtraError(NovaMemoryError, ImportError):
    """An optional part is used but its extra is not installed.

    The message names the extra and gives the install line
    (``pip install "nova-memory-integrations[server]"``); ``extra`` is the extra's name and
    ``name`` (as on every ``ImportError``) the missing module or distribution.
    """

    def __init__(self, message: str, *, extra: str, name: str | None = None) -> None:
        super().__init__(message, name=name)
        self.extra = extra


class NotFoundError(NovaMemoryError, KeyError):
    """A referenced episode, fact or rule does not exist for this user."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable.
        return str(self.args[0]) if self.args else "not found"


class StoreClosedError(NovaMemoryError, RuntimeError):
    """The store was closed; open a new ``NovaStore`` to continue."""


class StorageError(NovaMemoryError, RuntimeError):
    """The system of record (SQLite) or the vector index (Chroma) failed."""


class EmbeddingError(NovaMemoryError, RuntimeError):
    """The embedding model could not be loaded or failed to embed."""


class ConsolidationError(NovaMemoryError, RuntimeError):
    """Consolidation of episodes into facts failed (see the dead-letter list)."""
