"""``NovaStore.items`` (``items/service.py``): the LangGraph store's engine side, used without
LangGraph; and the layering it exists for (the adapter translates, the service touches storage).

Real SQLite and Chroma, the repo's hashed bag-of-words embedder (no model)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from integration.test_embedding_space import HashedBagOfWords

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.errors import StorageError
from nova_memory_integrations.items import ItemService, ItemWrite, check_items_embedding_space
from nova_memory_integrations.storage.vectors import VectorIndex

PACKAGE = Path(__file__).resolve().parents[2] / "nova_memory_integrations"


def _imported(folder: Path) -> set[str]:
    """Every module the package folder's files import (relative imports resolved to absolute names)."""
    found: set[str] = set()
    for path in folder.glob("*.py"):
        base = ["nova_memory_integrations", folder.name]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                parts = base[: len(base) - node.level + 1] if node.level else []
                found.add(".".join(parts + ([node.module] if node.module else [])))
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
    return found


def test_the_langgraph_adapter_only_translates() -> None:
    adapter = _imported(PACKAGE / "langgraph")
    assert not {m for m in adapter if m.startswith(("nova_memory_integrations.storage", "sqlite3", "chromadb"))}
    assert "nova_memory_integrations.items" in adapter
    service = _imported(PACKAGE / "items")
    assert not {m for m in service if m.split(".")[0] in {"langgraph", "langchain", "langchain_core", "llama_index"}}


def _texts(value: Mapping[str, Any], paths: Sequence[str]) -> list[str]:
    return [str(value[p]) for p in paths if p in value]


def _put(user: str, scope: tuple[str, ...], key: str, text: str) -> ItemWrite:
    return ItemWrite(user, scope, key, f'{{"text": "{text}"}}', ("text",), (text,))


@pytest.fixture()
def engine(tmp_path: Path) -> Iterator[NovaStore]:
    s = NovaStore(tmp_path / "mem", embeddings=HashedBagOfWords())
    yield s
    s.close()


def test_one_service_per_store(engine: NovaStore) -> None:
    assert isinstance(engine.items, ItemService) and engine.items is engine.items


def test_writes_reads_and_hybrid_search(engine: NovaStore) -> None:
    items = engine.items
    items.write(
        [
            _put("alice", ("notes",), "tea", "green tea in the morning"),
            _put("alice", ("notes", "work"), "desk", "a standing desk"),
            _put("bob", ("notes",), "tea", "black tea"),
        ],
        _texts,
    )
    found = items.get("alice", ("notes",), "tea")
    assert found is not None and found.value == {"text": "green tea in the morning"} and found.indexed
    assert items.get("bob", ("notes", "work"), "desk") is None  # another user's scope holds nothing of alice's
    assert [it.key for it in items.list_items("alice", ("notes",))] == ["desk", "tea"]  # newest first
    assert [it.key for it in items.list_items("alice", ("notes", "work"))] == ["desk"]

    hits = items.search("alice", ("notes",), "green tea", limit=5)
    assert [h.item.key for h in hits] == ["tea", "desk"]
    assert hits[0].score is not None and hits[1].score is not None and hits[0].score > 0.5 > hits[1].score
    only_work = items.search("alice", ("notes",), "tea", keep=lambda it: it.scope == ("notes", "work"))
    assert [h.item.key for h in only_work] == ["desk"]
    assert all(h.item.user_id == "bob" for h in items.search("bob", (), "tea"))

    assert items.scopes("alice") == [("alice", ("notes",)), ("alice", ("notes", "work"))]
    assert items.scopes(None) == [("alice", ("notes",)), ("alice", ("notes", "work")), ("bob", ("notes",))]

    items.write([ItemWrite("alice", ("notes", "work"), "desk", None)], _texts)
    assert items.get("alice", ("notes", "work"), "desk") is None
    assert items.scopes("alice") == [("alice", ("notes",))]


def test_a_failed_vector_write_is_recovered_by_the_next_write(
    engine: NovaStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = engine.items

    def fail(*args: Any, **kwargs: Any) -> None:
        raise StorageError("chroma is down")

    monkeypatch.setattr(VectorIndex, "upsert", fail)
    items.write([_put("alice", (), "k1", "first")], _texts)
    assert not items.get("alice", (), "k1").indexed  # type: ignore[union-attr]
    monkeypatch.undo()
    items.write([_put("alice", (), "k2", "second")], _texts)  # reaches the index: recovers k1 as well
    assert items.get("alice", (), "k1").indexed and items.get("alice", (), "k2").indexed  # type: ignore[union-attr]
    assert items.recover(_texts) == 0


def test_the_items_embedding_space_flag(tmp_path: Path) -> None:
    with NovaStore(tmp_path / "m", embeddings=HashedBagOfWords()) as first:
        assert first.components.db.get_meta("items_embedding_space") is None
        assert check_items_embedding_space(first.components) is False  # recorded on first use
        assert first.components.db.get_meta("items_embedding_space").endswith("hashed-bow-64")  # type: ignore[union-attr]
        first.items.write([_put("u", (), "k", "tea")], _texts)

    class Other(HashedBagOfWords):
        model = "hashed-bow-other"

    with NovaStore(tmp_path / "m", embeddings=Other()) as warned:
        assert check_items_embedding_space(warned.components) is False  # "warn": logged, left as it is
    config = NovaConfig.model_validate({"embeddings": {"on_model_change": "reindex"}})
    with NovaStore(tmp_path / "m", embeddings=Other(), config=config) as second:
        assert check_items_embedding_space(second.components) is True
        assert second.items.prepare(_texts) == 1  # rebuilt with the new model
        assert second.components.db.get_meta("items_embedding_space").endswith("hashed-bow-other")  # type: ignore[union-attr]
        assert check_items_embedding_space(second.components) is False
