"""nova-memory-integrations: long-term memory for LangChain and LlamaIndex agents.

One engine (:class:`NovaStore`) with episodic, bi-temporal semantic and procedural
memory, exposed as drop-in framework objects. Importing this package is cheap: torch,
chromadb, sentence-transformers and the framework adapters load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from . import _compat
from .config import NovaConfig
from .errors import (
    ConfigError,
    ConsolidationError,
    EmbeddingError,
    InvalidInputError,
    MissingExtraError,
    NotFoundError,
    NovaMemoryError,
    StorageError,
    StoreClosedError,
    WrongStoreError,
)
from .types import (
    CompressedText,
    CompressionResult,
    ConsolidationResult,
    ContextItem,
    ContextResult,
    Episode,
    Fact,
    FactDecision,
    Rule,
    SearchHit,
)

if TYPE_CHECKING:
    from .langchain import (
        NovaCallbackHandler,
        NovaChatMessageHistory,
        NovaCompressor,
        NovaMemory,
        NovaRetriever,
    )
    from .retrieval.search_config import SearchConfig
    from .store import NovaStore

__version__ = "0.1.0"

_compat.install()

__all__ = [
    "CompressedText",
    "CompressionResult",
    "ConfigError",
    "ConsolidationError",
    "ConsolidationResult",
    "ContextItem",
    "ContextResult",
    "EmbeddingError",
    "Episode",
    "Fact",
    "FactDecision",
    "InvalidInputError",
    "MissingExtraError",
    "NotFoundError",
    "NovaConfig",
    "NovaCallbackHandler",
    "NovaChatMessageHistory",
    "NovaCompressor",
    "NovaMemory",
    "NovaMemoryError",
    "NovaRetriever",
    "NovaStore",
    "Rule",
    "SearchConfig",
    "SearchHit",
    "StorageError",
    "StoreClosedError",
    "WrongStoreError",
    "__version__",
]

_LAZY = {
    "NovaStore": ".store",
    "SearchConfig": ".retrieval.search_config",
    "NovaMemory": ".langchain",
    "NovaRetriever": ".langchain",
    "NovaCompressor": ".langchain",
    "NovaCallbackHandler": ".langchain",
    "NovaChatMessageHistory": ".langchain",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
