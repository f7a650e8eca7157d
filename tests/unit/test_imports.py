"""The public surface: curated ``__all__`` lists, and a cheap ``import nova_memory_integrations``."""

from __future__ import annotations

import json
import subprocess
import sys

import nova_memory_integrations
import nova_memory_integrations.langchain
import nova_memory_integrations.langgraph
import nova_memory_integrations.llama_index

EXPECTED_ALL = [
    "CompressedText", "CompressionResult", "ConfigError", "ConsolidationError", "ConsolidationResult", "ContextItem",
    "ContextResult", "EmbeddingError", "Episode", "Fact", "FactDecision", "InvalidInputError", "MissingExtraError",
    "NotFoundError",
    "NovaCallbackHandler", "NovaChatMessageHistory", "NovaCompressor", "NovaConfig", "NovaMemory", "NovaMemoryError",
    "NovaRetriever", "NovaStore", "Rule", "SearchConfig", "SearchHit", "StorageError", "StoreClosedError",
    "WrongStoreError", "__version__",
]
EXPECTED_LANGCHAIN = ["NovaCallbackHandler", "NovaChatMessageHistory", "NovaCompressor", "NovaMemory",
                      "NovaMemoryState", "NovaRetriever", "create_memory_tools", "render_memory_section"]
EXPECTED_LANGGRAPH = ["NamespaceError", "NovaLangGraphStore"]
EXPECTED_LLAMA_INDEX = ["NovaEventHandler", "NovaLlamaMemory", "NovaMemoryBlock", "NovaNodePostprocessor",
                        "NovaRetriever", "create_memory_tools", "nova_memory"]
HEAVY = ["torch", "chromadb", "sentence_transformers", "transformers", "flashrank", "onnxruntime", "onnx",
         "langchain_core", "langchain", "langgraph", "llama_index"]


def test_public_all_is_pinned() -> None:
    assert sorted(nova_memory_integrations.__all__) == sorted(EXPECTED_ALL)
    assert sorted(nova_memory_integrations.langchain.__all__) == sorted(EXPECTED_LANGCHAIN)
    assert sorted(nova_memory_integrations.langgraph.__all__) == sorted(EXPECTED_LANGGRAPH)
    assert sorted(nova_memory_integrations.llama_index.__all__) == sorted(EXPECTED_LLAMA_INDEX)


def test_every_public_name_resolves() -> None:
    for module in (nova_memory_integrations, nova_memory_integrations.langchain, nova_memory_integrations.langgraph,
                   nova_memory_integrations.llama_index):
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module.__name__}.{name}"


def test_import_loads_no_heavy_dependency() -> None:
    code = (
        "import json, sys; import nova_memory_integrations as n; n.NovaConfig(); "
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_unknown_attribute_raises_attribute_error() -> None:
    try:
        nova_memory_integrations.DoesNotExist  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError:
        return
    raise AssertionError("expected AttributeError")
