"""Adapters refuse what is not a ``NovaStore`` (a ``NovaLangGraphStore``, a path, ...) with a ``TypeError``
that says what to pass, instead of failing open later with an empty answer and a warning."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaStore, WrongStoreError
from nova_memory_integrations import langchain as lc
from nova_memory_integrations import llama_index as li
from nova_memory_integrations.langgraph import NovaLangGraphStore

ADAPTERS: dict[str, tuple[Callable[[Any], object], bool]] = {
    # name in the message -> (build it with this store, takes no store too)
    "NovaMemory": (lambda s: lc.NovaMemory(s), True),
    "NovaRetriever": (lambda s: lc.NovaRetriever(s, "alice"), False),
    "NovaCompressor": (lambda s: lc.NovaCompressor(s), True),
    "NovaCallbackHandler": (lambda s: lc.NovaCallbackHandler(s, "alice"), False),
    "NovaChatMessageHistory": (lambda s: lc.NovaChatMessageHistory(s, "alice", "s1"), False),
    "create_memory_tools": (lambda s: lc.create_memory_tools(s), True),
    "llama NovaRetriever": (lambda s: li.NovaRetriever(s, "alice"), False),
    "NovaNodePostprocessor": (lambda s: li.NovaNodePostprocessor(s), False),
    "NovaMemoryBlock": (lambda s: li.NovaMemoryBlock(s, user_id="alice"), False),
    "NovaEventHandler": (lambda s: li.NovaEventHandler(s), False),
    "NovaLlamaMemory": (lambda s: li.NovaLlamaMemory.from_store(s, "alice"), False),
    "llama create_memory_tools": (lambda s: li.create_memory_tools(s, user_id="alice"), False),
    "NovaRetriever by keyword": (lambda s: lc.NovaRetriever(store=s, user_id="alice"), False),
    "NovaNodePostprocessor by keyword": (lambda s: li.NovaNodePostprocessor(store=s), False),
}


def _owner(name: str) -> str:
    return {"llama NovaRetriever": "NovaRetriever", "NovaLlamaMemory": "NovaMemoryBlock",
            "llama create_memory_tools": "create_memory_tools"}.get(name, name.split(" by ")[0])


@pytest.fixture
def graph_store(store: NovaStore) -> NovaLangGraphStore:
    return NovaLangGraphStore(store)


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_a_langgraph_store_is_refused_with_what_to_pass(name: str, graph_store: NovaLangGraphStore) -> None:
    build, _ = ADAPTERS[name]
    with pytest.raises(TypeError) as caught:
        build(graph_store)
    assert isinstance(caught.value, WrongStoreError)
    message = str(caught.value)
    owner = _owner(name)
    assert message.startswith(f"{owner} needs a NovaStore: {owner}(NovaStore(\"./memory\"), ...)"), message
    assert "got NovaLangGraphStore" in message and "pass the NovaStore it was built on" in message
    assert "\n" not in message


@pytest.mark.parametrize("name", sorted(ADAPTERS))
@pytest.mark.parametrize("wrong", ["path", "object"])
def test_other_wrong_stores_are_refused(name: str, wrong: str, tmp_path: Path) -> None:
    build, optional = ADAPTERS[name]
    value: object = str(tmp_path / "mem") if wrong == "path" else object()
    with pytest.raises(WrongStoreError, match="needs a NovaStore") as caught:
        build(value)
    message = str(caught.value)
    assert ("open it first, NovaStore(path)" in message) is (wrong == "path")
    assert ("or no store for the shared one" in message) is optional
    assert not (tmp_path / "mem").exists()  # nothing was opened


@pytest.mark.parametrize("name", sorted(ADAPTERS))
def test_the_engine_itself_is_taken(name: str, store: NovaStore) -> None:
    build, _ = ADAPTERS[name]
    assert build(store) is not None
