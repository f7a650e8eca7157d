"""Typed errors raised by nova-memory-integrations.

Every error the package raises on purpose derives from :class:`NovaMemoryError`, so a
caller can catch one type. Input errors also derive from :class:`ValueError` so that
code written against plain Python conventions keeps working. A missing optional part raises
:class:`MissingExtraError` (also an ``ImportError``) through :func:`needs_extra`, with the
line that installs its extra.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "EXTRAS",
    "ConfigError",
    "ConsolidationError",
    "DatabaseUnavailableError",
    "EmbeddingError",
    "FactSchemaError",
    "InvalidInputError",
    "MissingExtraError",
    "NotFoundError",
    "NovaMemoryError",
    "SchemaError",
    "StoreClosedError",
    "StorageError",
    "WrongStoreError",
    "install_line",
    "missing_extra",
    "needs_extra",
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


class FactSchemaError(InvalidInputError):
    """A fact of a kind the application declared as a pydantic model (``NovaStore(schemas=...)``)
    has a value its model refuses: not an allowed value, the wrong type, a validator said no.
    Raised by the explicit calls (``add_fact``, the ``remember`` tool, REST, MCP) before anything
    is written; consolidation records such a fact as refused (``NovaStore.refused_facts``) instead.

    ``kind`` is the schema's kind (``allergy``), ``predicate`` / ``value`` the fact's, ``rule`` what
    the model said was wrong.
    """

    def __init__(self, kind: str, predicate: str, value: str, rule: str) -> None:
        super().__init__(f"{kind}.{predicate}: {value!r} does not fit the declared schema: {rule}", field="object")
        self.kind = kind
        self.predicate = predicate
        self.value = value
        self.rule = rule


class WrongStoreError(NovaMemoryError, TypeError):
    """A framework adapter was given something other than a ``NovaStore`` (such as a
    ``NovaLangGraphStore``); the message says what to pass."""


class ConfigError(NovaMemoryError, ValueError):
    """The configuration (TOML file or ``NovaConfig`` values) is invalid."""


class SchemaError(ConfigError):
    """The application's declared schema (``NovaStore(schema=...)``, ``[[facts.predicates]]``) is
    malformed: a bad field, or a predicate spelling two declarations claim."""


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


class DatabaseUnavailableError(StorageError):
    """The database server (Postgres) cannot be reached or timed out: an outage to wait out,
    not a fault of the request. The store recovers by itself once the server answers again
    (the connection pool reconnects); nothing needs reopening."""


class EmbeddingError(NovaMemoryError, RuntimeError):
    """The embedding model could not be loaded or failed to embed."""


class ConsolidationError(NovaMemoryError, RuntimeError):
    """Consolidation of episodes into facts failed (see the dead-letter list)."""


# -- optional parts -----------------------------------------------------------------------------------------------
# ``pip install nova-memory-integrations`` covers the engine, the LangChain, LangGraph and LlamaIndex
# adapters and the CLI; the rest comes with an extra. An import of a package that is no dependency
# stands inside ``with needs_extra("<extra>"):`` (checked by tests/integration/test_packaging.py),
# so a missing one raises MissingExtraError with the install line.
DISTRIBUTION = "nova-memory-integrations"
EXTRAS: dict[str, str] = {
    "server": "the memory server: nova-memory serve / ui / mcp, nova_memory_integrations.server",
    "mpnet": 'the all-mpnet-base-v2 embedding model: embeddings.model = "all-mpnet-base-v2"',
    "openai": "OpenAI-compatible models: langchain-openai, OpenAILike, the tiktoken tokenizer",
    "postgres": "Postgres as the system of record: NovaStore(database_url=...) (psycopg, psycopg_pool)",
    "langgraph": "nothing more: langgraph is a dependency; the extra is kept for old install lines",
    "peers": "benchmarks/peers.py: mem0, LangMem, LlamaIndex's Chroma store at the versions compared",
}
"""The extras of the distribution and what each one is for."""


def install_line(extra: str) -> str:
    """``pip install "nova-memory-integrations[<extra>]"``."""
    return f'pip install "{DISTRIBUTION}[{extra}]"'


def missing_extra(
    extra: str, missing: str | None, *, error: type[MissingExtraError] = MissingExtraError
) -> MissingExtraError:
    """The error for ``extra`` not being installed (``missing``: the module or distribution not found).

    Args:
        extra: the extra's name (a key of :data:`EXTRAS`).
        missing: what was not found, named in the message.
        error: the class to raise (a subclass, for a part with an error type of its own).
    """
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {', '.join(EXTRAS)}")
    missing_text = f"{missing} is not installed; it" if missing else "this"
    return error(
        f"{missing_text} comes with the {extra!r} extra ({EXTRAS[extra]}): {install_line(extra)}",
        extra=extra,
        name=missing,
    )


@contextmanager
def needs_extra(extra: str) -> Iterator[None]:
    """Turn a ``ModuleNotFoundError`` inside the block into :class:`MissingExtraError` for ``extra``."""
    if extra not in EXTRAS:
        raise ValueError(f"unknown extra {extra!r}; known: {', '.join(EXTRAS)}")
    try:
        yield
    except ModuleNotFoundError as exc:
        top = (exc.name or "").split(".")[0]
        if not top or top == __name__.split(".")[0]:
            raise  # a module of this package: a bug, not a missing extra
        raise missing_extra(extra, top) from exc
