"""``require_store``: an adapter's store argument is the engine, or a ``TypeError`` saying what to pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from nova_memory_integrations.engine.validation import require_store
from nova_memory_integrations.errors import NovaMemoryError, WrongStoreError


class NovaStore:  # stands in for the facade (the engine never imports it)
    pass


class Sub(NovaStore):
    pass


class NovaLangGraphStore:
    pass


def test_the_expected_class_and_its_subclasses_pass_through() -> None:
    store, sub = NovaStore(), Sub()
    assert require_store(store, NovaStore, "NovaRetriever") is store
    assert require_store(sub, NovaStore, "NovaRetriever", optional=True) is sub


def test_a_langgraph_store_is_refused_with_what_to_pass() -> None:
    with pytest.raises(TypeError) as caught:
        require_store(NovaLangGraphStore(), NovaStore, "NovaRetriever")
    assert isinstance(caught.value, WrongStoreError) and isinstance(caught.value, NovaMemoryError)
    assert str(caught.value) == (
        'NovaRetriever needs a NovaStore: NovaRetriever(NovaStore("./memory"), ...); got NovaLangGraphStore '
        "(a NovaLangGraphStore is LangGraph's BaseStore for create_agent(store=...); pass the NovaStore it was "
        "built on)"
    )


@pytest.mark.parametrize("path", ["./memory", Path("memory")])
def test_a_path_is_refused_with_how_to_open_it(path: object) -> None:
    with pytest.raises(WrongStoreError) as caught:
        require_store(path, NovaStore, "NovaMemory", optional=True)
    assert str(caught.value) == (
        f'NovaMemory needs a NovaStore: NovaMemory(NovaStore("./memory"), ...), or no store for the shared one at '
        f"$NOVA_MEMORY_HOME (NovaMemory()); got {type(path).__name__} (a path: open it first, NovaStore(path))"
    )


@pytest.mark.parametrize("value", [None, 3, object(), {"store": 1}])
def test_anything_else_is_refused_by_its_type(value: object) -> None:
    with pytest.raises(WrongStoreError) as caught:
        require_store(value, NovaStore, "NovaCallbackHandler")
    assert str(caught.value) == (
        'NovaCallbackHandler needs a NovaStore: NovaCallbackHandler(NovaStore("./memory"), ...); '
        f"got {type(value).__name__}"
    )
