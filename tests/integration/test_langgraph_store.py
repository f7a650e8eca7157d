"""LangGraph's own store semantics, held against ``NovaLangGraphStore``; and the store in use:
an agent whose tools write and read through ``runtime.store``, two users, async, LangMem.

Ported (re-expressed, same scenarios and assertions) from langchain-ai/langgraph:

- ``libs/checkpoint-sqlite/tests/test_store.py`` (``SqliteStore``): batch order, get / put /
  search / list-namespaces batches, basic ops, listing, search, vector insert / update /
  filters / pagination / edge cases / embed-with-path (store and operation level) / scores,
  basic operations, namespace listing operations, search items, filter-key injection, non-ASCII.
- ``libs/checkpoint-sqlite/tests/test_async_store.py`` (``AsyncSqliteStore``): large async
  batches, abatch order, async get / put / search / list batches, async vector tests.
- ``libs/checkpoint/tests/test_store.py`` (``InMemoryStore``): namespace listing (basic,
  wildcards, pagination, max depth, no conditions, empty), invalid namespaces, async vector
  tests with paths and ``score is None`` for unindexed items, concurrent filtered searches.
- ``libs/checkpoint/tests/test_store_namespace_validation.py`` and
  ``test_inmemory_store_dotted_filters.py``.

The installed langgraph ships no reusable store test suite (``langchain_tests`` covers
``langchain_core``'s key-value ``BaseStore`` only), hence the port. Every test runs against
both namespace mappings (``store`` fixture): ``bound`` (``user_id="tenant"``: namespaces are
scopes of one user, so upstream's namespaces work unchanged) and ``positional``
(``namespace[0]`` is the user). Adaptations, each marked ``# adapted:`` where it happens:

- tenancy: in ``positional`` mode a search must name one user, so upstream's store-wide
  ``search(())`` calls get a prefix naming the user there. Listings need none (an unbound store
  lists every user's namespaces, as upstream), but the SqliteStore ports still give some
  ``list_namespaces`` calls ``prefix=(user,)`` in that mode, which covers the one-user path
  (upstream's InMemoryStore listing tests also run unchanged in
  ``tests/unit/test_langgraph_list_namespaces.py``);
- SqliteStore / InMemoryStore internals (``index_config``, ``MIGRATIONS``, the vector table,
  ``AsyncBatchedBaseStore`` batching, "sync methods raise in the event loop") are not this
  store's API and are not ported;
- the filter-key injection test expects a ``ValueError`` from SQL-built filters; filters run
  over the parsed document here, so the malicious key simply matches nothing (and leaks
  nothing);
- vectors: upstream's character-frequency embedder (re-implemented below) drives the vector
  tests, as upstream; a subset also runs on the real MiniLM. Scores are hybrid (the cosine
  lifted by keyword evidence), which keeps upstream's absolute-score assertions true;
- sizes: the large async batch test runs 1/5 of upstream's operations (the same mix).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from langchain.agents import create_agent
from langchain.tools import ToolRuntime, tool
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.store.base import (
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    PutOp,
    SearchOp,
)
from pydantic import Field

from nova_memory_integrations import NovaStore
from nova_memory_integrations.errors import InvalidInputError
from nova_memory_integrations.langgraph import NamespaceError, NovaLangGraphStore
from nova_memory_integrations.storage.items import ITEM_KIND, item_index

pytestmark = pytest.mark.both_backends  # the store fixtures run on SQLite and on Postgres (conftest)

MODES = ["bound", "positional"]


class CharacterEmbeddings:
    """Character-frequency embeddings: each character a fixed random direction (seeded by its hash),
    a text the frequency-weighted sum, L2-normalised (as langgraph's store tests embed)."""

    def __init__(self, dims: int = 500) -> None:
        self.dims = dims
        self._dirs: dict[str, np.ndarray] = {}

    def _dir(self, char: str) -> np.ndarray:
        if char not in self._dirs:
            seed = int.from_bytes(hashlib.blake2b(char.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big")
            self._dirs[char] = np.random.default_rng(seed).normal(0.0, 1.0 / math.sqrt(self.dims), self.dims)
        return self._dirs[char]

    def _embed(self, text: str) -> list[float]:
        if not text:
            return [0.0] * self.dims
        v = sum((text.count(c) / len(text)) * self._dir(c) for c in set(text))
        n = float(np.linalg.norm(v))
        return [float(x) for x in (v / n if n else v)]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)


def _cosine(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def chars() -> CharacterEmbeddings:
    return CharacterEmbeddings(dims=500)


@pytest.fixture(params=MODES)
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make(tmp_path: Path, chars: CharacterEmbeddings, mode: str, new_database_url: Any) -> Iterator[Any]:
    """Factory: a NovaLangGraphStore in ``mode`` over a fresh NovaStore (character embeddings; on
    SQLite, or on a fresh Postgres database in a ``both_backends`` run)."""
    engines: list[NovaStore] = []

    def factory(embeddings: Any = None, **kw: Any) -> NovaLangGraphStore:
        engine = NovaStore(tmp_path / f"mem{len(engines)}", embeddings=embeddings or chars,
                           database_url=new_database_url())
        engines.append(engine)
        mapping = {"user_id": "tenant"} if mode == "bound" else {"user_position": 0}
        return NovaLangGraphStore(engine, **mapping, **kw)

    yield factory
    for engine in engines:
        engine.close()


@pytest.fixture
def store(make: Any) -> NovaLangGraphStore:
    return make()  # type: ignore[no-any-return]


def _conds(mode: str, user: str) -> tuple[MatchCondition, ...] | None:
    """adapted: a store-wide listing names its user in positional mode."""
    return (MatchCondition("prefix", (user,)),) if mode == "positional" else None


def _prefix(mode: str, user: str) -> tuple[str, ...]:
    return (user,) if mode == "positional" else ()


# == SqliteStore: libs/checkpoint-sqlite/tests/test_store.py ===========================================================
def test_batch_order(store: NovaLangGraphStore, mode: str) -> None:
    store.put(("test", "foo"), "key1", {"data": "value1"})
    store.put(("test", "bar"), "key2", {"data": "value2"})
    ops: list[Any] = [
        GetOp(namespace=("test", "foo"), key="key1"),
        PutOp(namespace=("test", "bar"), key="key2", value={"data": "value2"}),
        SearchOp(namespace_prefix=("test",), filter={"data": "value1"}, limit=10, offset=0),
        ListNamespacesOp(match_conditions=_conds(mode, "test"), max_depth=None, limit=10, offset=0),
        GetOp(namespace=("test",), key="key3"),
    ]
    results = store.batch(ops)
    assert len(results) == 5
    assert isinstance(results[0], Item) and results[0].value == {"data": "value1"}
    assert results[0].key == "key1" and results[0].namespace == ("test", "foo")
    assert results[1] is None
    assert isinstance(results[2], list) and len(results[2]) == 1
    assert results[2][0].key == "key1" and results[2][0].value == {"data": "value1"}
    assert isinstance(results[3], list) and ("test", "foo") in results[3] and ("test", "bar") in results[3]
    assert results[4] is None

    reordered: list[Any] = [
        SearchOp(namespace_prefix=("test",), filter=None, limit=5, offset=0),
        GetOp(namespace=("test", "bar"), key="key2"),
        ListNamespacesOp(match_conditions=_conds(mode, "test"), max_depth=None, limit=5, offset=0),
        PutOp(namespace=("test",), key="key3", value={"data": "value3"}),
        GetOp(namespace=("test", "foo"), key="key1"),
    ]
    results = store.batch(reordered)
    assert len(results) == 5
    assert isinstance(results[0], list) and len(results[0]) >= 2
    assert isinstance(results[1], Item) and results[1].value == {"data": "value2"}
    assert results[1].namespace == ("test", "bar")
    assert isinstance(results[2], list) and len(results[2]) > 0
    assert results[3] is None
    assert isinstance(results[4], Item) and results[4].value == {"data": "value1"}
    item3 = store.get(("test",), "key3")
    assert item3 is not None and item3.value == {"data": "value3"}


def test_batch_get_ops(store: NovaLangGraphStore) -> None:
    store.put(("test",), "key1", {"data": "value1"})
    store.put(("test",), "key2", {"data": "value2"})
    results = store.batch([GetOp(("test",), "key1"), GetOp(("test",), "key2"), GetOp(("test",), "key3")])
    assert len(results) == 3 and results[2] is None
    assert results[0].key == "key1" and results[1].key == "key2"  # type: ignore[union-attr]


def test_batch_put_ops(store: NovaLangGraphStore) -> None:
    results = store.batch(
        [
            PutOp(("test",), "key1", {"data": "value1"}),
            PutOp(("test",), "key2", {"data": "value2"}),
            PutOp(("test",), "key3", None),
        ]
    )
    assert results == [None, None, None]
    assert store.get(("test",), "key1").value == {"data": "value1"}  # type: ignore[union-attr]
    assert store.get(("test",), "key2").value == {"data": "value2"}  # type: ignore[union-attr]
    assert store.get(("test",), "key3") is None


def test_batch_search_ops(store: NovaLangGraphStore) -> None:
    for ns, key, value in [
        (("test", "foo"), "key1", {"data": "value1", "tag": "a"}),
        (("test", "bar"), "key2", {"data": "value2", "tag": "a"}),
        (("test", "baz"), "key3", {"data": "value3", "tag": "b"}),
    ]:
        store.put(ns, key, value)
    results: list[Any] = store.batch(
        [
            SearchOp(("test",), filter={"tag": "a"}, limit=10, offset=0),
            SearchOp(("test",), filter=None, limit=2, offset=0),
            SearchOp(("test", "foo"), filter=None, limit=10, offset=0),
        ]
    )
    assert len(results[0]) == 2 and all(i.value["tag"] == "a" for i in results[0])
    assert len(results[1]) == 2
    assert len(results[2]) == 1 and results[2][0].namespace == ("test", "foo")


def test_batch_list_namespaces_ops(store: NovaLangGraphStore, mode: str) -> None:
    data = [
        (("test", "documents", "public"), "doc1", {"content": "public doc"}),
        (("test", "documents", "private"), "doc2", {"content": "private doc"}),
        (("test", "images", "public"), "img1", {"content": "public image"}),
        (("prod", "documents", "public"), "doc3", {"content": "prod doc"}),
    ]
    for ns, key, value in data:
        store.put(ns, key, value)
    conds = _conds(mode, "test")
    results: list[Any] = store.batch(
        [
            ListNamespacesOp(match_conditions=conds, max_depth=None, limit=10, offset=0),
            ListNamespacesOp(match_conditions=conds, max_depth=2, limit=10, offset=0),
            ListNamespacesOp(
                match_conditions=(*(conds or ()), MatchCondition("suffix", ("public",))),
                max_depth=None,
                limit=10,
                offset=0,
            ),
        ]
    )
    assert len(results[0]) == (len(data) if mode == "bound" else 3)  # adapted: only user "test"'s namespaces
    assert all(len(ns) <= 2 for ns in results[1])
    assert results[2] and all(ns[-1] == "public" for ns in results[2])


def test_basic_store_ops(store: NovaLangGraphStore) -> None:
    namespace, key = ("test", "documents"), "doc1"
    value = {"title": "Test Document", "content": "Hello, World!"}
    store.put(namespace, key, value)
    item = store.get(namespace, key)
    assert item and item.namespace == namespace and item.key == key and item.value == value
    time.sleep(0.01)
    updated = {"title": "Updated Document", "content": "Hello, Updated!"}
    store.put(namespace, key, updated)
    after = store.get(namespace, key)
    assert after and after.value == updated
    assert after.updated_at > item.updated_at and after.created_at == item.created_at  # stricter than upstream
    assert store.get(("test", "other_documents"), key) is None
    store.delete(namespace, key)
    assert store.get(namespace, key) is None


def test_list_namespaces(store: NovaLangGraphStore, mode: str) -> None:
    namespaces = [
        ("test", "documents", "public"),
        ("test", "documents", "private"),
        ("test", "images", "public"),
        ("test", "images", "private"),
        ("prod", "documents", "public"),
        ("prod", "documents", "private"),
    ]
    for ns in namespaces:
        store.put(ns, "dummy", {"content": "dummy"})
    everything = store.list_namespaces(prefix=_prefix(mode, "test") or None)
    assert len(everything) == (len(namespaces) if mode == "bound" else 4)  # adapted: one user's
    test_ns = store.list_namespaces(prefix=["test"])  # type: ignore[arg-type]  # upstream passes a list
    assert len(test_ns) == 4 and all(ns[0] == "test" for ns in test_ns)
    public = store.list_namespaces(prefix=_prefix(mode, "test") or None, suffix=["public"])  # type: ignore[arg-type]
    assert len(public) == (3 if mode == "bound" else 2) and all(ns[-1] == "public" for ns in public)
    assert all(len(ns) <= 2 for ns in store.list_namespaces(prefix=_prefix(mode, "test") or None, max_depth=2))
    assert len(store.list_namespaces(prefix=_prefix(mode, "test") or None, limit=3)) == 3
    for ns in namespaces:
        store.delete(ns, "dummy")


def test_search(store: NovaLangGraphStore) -> None:
    data = [
        (("test", "docs"), "doc1", {"title": "First Doc", "author": "Alice", "tags": ["important"]}),
        (("test", "docs"), "doc2", {"title": "Second Doc", "author": "Bob", "tags": ["draft"]}),
        (("test", "images"), "img1", {"title": "Image 1", "author": "Alice", "tags": ["final"]}),
    ]
    for ns, key, value in data:
        store.put(ns, key, value)
    assert len(store.search(["test"])) == 3  # type: ignore[arg-type]
    docs = store.search(["test", "docs"])  # type: ignore[arg-type]
    assert len(docs) == 2 and all(i.namespace == ("test", "docs") for i in docs)
    alice = store.search(["test"], filter={"author": "Alice"})  # type: ignore[arg-type]
    assert len(alice) == 2 and all(i.value["author"] == "Alice" for i in alice)
    assert len(store.search(["test"], limit=2)) == 2  # type: ignore[arg-type]
    assert len(store.search(["test"], offset=2)) == 1  # type: ignore[arg-type]


def test_vector_insert_with_auto_embedding(store: NovaLangGraphStore) -> None:
    docs = [
        ("doc1", {"text": "short text"}),
        ("doc2", {"text": "longer text document"}),
        ("doc3", {"text": "longest text document here"}),
        ("doc4", {"description": "text in description field"}),
        ("doc5", {"content": "text in content field"}),
        ("doc6", {"body": "text in body field"}),
    ]
    for key, value in docs:
        store.put(("test",), key, value)
    keys = [r.key for r in store.search(("test",), query="long text")]
    assert "doc2" in keys and "doc3" in keys


def test_vector_update_with_embedding(store: NovaLangGraphStore) -> None:
    store.put(("test",), "doc1", {"text": "zany zebra Xerxes"})
    store.put(("test",), "doc2", {"text": "something about dogs"})
    store.put(("test",), "doc3", {"text": "text about birds"})
    initial = store.search(("test",), query="Zany Xerxes")
    assert initial and initial[0].key == "doc1" and initial[0].score is not None
    store.put(("test",), "doc1", {"text": "new text about dogs"})
    after = next((r.score for r in store.search(("test",), query="Zany Xerxes") if r.key == "doc1"), 0.0)
    assert after is not None and after < initial[0].score
    for r in store.search(("test",), query="new text about dogs"):
        if r.key == "doc1":
            assert r.score is not None and r.score > after
    store.put(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert not any(r.key == "doc4" for r in store.search(("test",), query="new text about dogs", limit=3))


def _color_docs(store: NovaLangGraphStore) -> None:
    for key, value in [
        ("doc1", {"text": "red apple", "color": "red", "score": 4.5}),
        ("doc2", {"text": "red car", "color": "red", "score": 3.0}),
        ("doc3", {"text": "green apple", "color": "green", "score": 4.0}),
        ("doc4", {"text": "blue car", "color": "blue", "score": 3.5}),
    ]:
        store.put(("test",), key, value)


def test_vector_search_with_filters(store: NovaLangGraphStore) -> None:
    _color_docs(store)
    results = store.search(("test",), query="apple", filter={"color": "red"})
    assert len(results) == 2 and results[0].key == "doc1"
    results = store.search(("test",), query="car", filter={"color": "red"})
    assert len(results) == 2 and results[0].key == "doc2"
    results = store.search(("test",), query="bbbbluuu", filter={"score": {"$gt": 3.2}})
    assert len(results) == 3 and results[0].key == "doc4"
    assert {"doc1", "doc3"} <= {r.key for r in results}
    results = store.search(("test",), query="apple", filter={"score": {"$gte": 4.0}, "color": "green"})
    assert len(results) == 1 and results[0].key == "doc3"


def test_vector_search_pagination(store: NovaLangGraphStore) -> None:
    for i in range(5):
        store.put(("test",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = store.search(("test",), query="test", limit=2)
    page2 = store.search(("test",), query="test", limit=2, offset=2)
    assert len(page1) == 2 and len(page2) == 2
    assert not {r.key for r in page1} & {r.key for r in page2}
    assert page1[0].score >= page1[1].score and page2[0].score >= page2[1].score  # type: ignore[operator]
    everything = store.search(("test",), query="test", limit=10)
    assert len(everything) == 5 and everything[0].score >= everything[2].score  # type: ignore[operator]


def test_vector_search_edge_cases(store: NovaLangGraphStore) -> None:
    store.put(("test",), "doc1", {"text": "test document"})
    for query in ("", None, "test " * 100, "test!@#$%^&*()", '"quoted" OR NEAR(x y) *'):
        assert len(store.search(("test",), query=query)) == 1


def test_embed_with_path(make: Any) -> None:
    store = make(index_fields=["key0", "key1", "key3"])
    store.put(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})  # 2 vectors (no key0)
    store.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"})  # 3 vectors
    results = store.search(("test",), query="xxx")
    assert len(results) == 2 and results[0].key != results[1].key
    assert results[0].score > 0.9 and results[1].score > 0.9
    assert results[0].score == pytest.approx(results[1].score, abs=1e-5)
    for query, best in (("uuu", "doc2"), ("zzz", "doc1")):
        results = store.search(("test",), query=query)
        assert len(results) == 2 and results[0].key == best and results[0].score > results[1].score
    results = store.search(("test",), query="www")  # only in the unindexed key2
    assert len(results) == 2 and all(r.score < 0.9 for r in results)


def test_embed_with_path_operation_config(make: Any) -> None:
    store = make(index_fields=["key17"])
    store.put(("test",), "doc3", {"key0": "aaa", "key1": "bbb", "key2": "ccc", "key3": "ddd"}, index=["key0", "key1"])
    store.put(("test",), "doc4", {"key0": "eee", "key1": "bbb", "key2": "fff", "key3": "ggg"}, index=["key1", "key3"])
    for query, best in (("aaa", "doc3"), ("ggg", "doc4")):
        results = store.search(("test",), query=query)
        assert len(results) == 2 and results[0].key == best and results[0].score > results[1].score
    results = store.search(("test",), query="bbb")
    assert len(results) == 2 and results[0].key != results[1].key
    assert results[0].score == results[1].score  # InMemoryStore's variant: exactly equal
    assert all(r.score < 0.9 for r in store.search(("test",), query="ccc"))
    store.put(("test",), "doc5", {"key0": "hhh", "key1": "iii"}, index=False)
    assert len(store.search(("test",))) == 3
    results = store.search(("test",), query="hhh")
    assert len(results) == 3 and next(r for r in results if r.key == "doc5").score is None


@pytest.mark.parametrize("query", ["aaa", "bbb", "ccc", "abcd", "poisson"])
def test_scores(make: Any, mode: str, chars: CharacterEmbeddings, query: str) -> None:
    store = make(index_fields=["key0"])
    store.put(("test",), "doc", {"key0": "aaa"}, index=["key0", "key1"])
    results = store.search(_prefix(mode, "test"), query=query)  # adapted: () names no user in positional mode
    assert len(results) == 1
    assert results[0].score == pytest.approx(_cosine(chars.embed_query(query), chars.embed_query("aaa")), abs=1e-3)


def test_basic_store_operations(make: Any) -> None:
    store = make(index_fields=["key0", "key1", "key3"])
    uid = uuid.uuid4().hex
    namespace = (uid, "test", "documents")
    assert store.search((uid,)) == []
    store.put(namespace, "doc1", {"title": "Test Document", "content": "Hello, World!"})
    item = store.get(namespace, "doc1")
    assert item is not None and item.namespace == namespace and item.created_at and item.updated_at
    store.put(namespace, "doc1", {"title": "Updated Test Document", "content": "Hello, LangGraph!"})
    updated = store.get(namespace, "doc1")
    assert updated.value["content"] == "Hello, LangGraph!" and updated.updated_at >= item.updated_at
    assert store.get((uid, "test", "other_documents"), "doc1") is None
    store.put(namespace, "doc2", {"title": "Another Document", "content": "Greetings!"})
    items = store.search((uid, "test"), limit=10)
    assert {i.key for i in items} == {"doc1", "doc2"}
    assert (uid, "test", "documents") in store.list_namespaces(prefix=(uid, "test"))
    store.delete(namespace, "doc1")
    store.delete(namespace, "doc2")
    assert store.get(namespace, "doc1") is None and store.search((uid, "test"), limit=10) == []


def test_list_namespaces_operations(store: NovaLangGraphStore, mode: str) -> None:
    p = str(uuid.uuid4())
    namespaces = [
        (p, "test", "documents", "public", p),
        (p, "test", "documents", "private", p),
        (p, "test", "images", "public", p),
        (p, "test", "images", "private", p),
        (p, "prod", "documents", "public", p),
        (p, "prod", "documents", "some", "nesting", "public", p),
        (p, "prod", "documents", "private", p),
    ]
    for ns in namespaces:
        store.put(ns, "dummy", {"content": "dummy"})
    mine = _prefix(mode, p) or None  # adapted: positional listings name the user (here every namespace's p)
    assert len(store.list_namespaces(prefix=(p, "test"))) == 4
    assert len(store.list_namespaces(prefix=(p, "test", "documents"))) == 2
    suffix = store.list_namespaces(prefix=mine, suffix=("public", p))
    assert len(suffix) == 4 and all(ns[-2] == "public" for ns in suffix)
    assert len(store.list_namespaces(prefix=(p, "test"), suffix=("public", p))) == 2
    wild = store.list_namespaces(prefix=(p, "*", "documents"))
    assert len(wild) == 5 and all(ns[2] == "documents" for ns in wild)
    assert len(store.list_namespaces(prefix=mine, suffix=("*", "public", p))) == 4
    assert store.list_namespaces(prefix=mine, suffix=("some", "*", "public", p)) == [namespaces[5]]
    assert all(len(ns) <= 3 for ns in store.list_namespaces(prefix=mine, max_depth=3))
    depth4 = store.list_namespaces(max_depth=4, prefix=(p, "*", "documents"))
    assert len(set(depth4)) == len(depth4) == 5
    assert len(store.list_namespaces(prefix=(p,), limit=3)) == 3
    assert len(store.list_namespaces(prefix=(p,), offset=3)) == len(namespaces) - 3
    assert set(store.list_namespaces(prefix=(p,))) == set(namespaces)


def test_search_items(make: Any) -> None:
    store = make(index_fields=["key0", "key1", "key3"])
    base = "test_search_items"
    namespaces = [
        (base, "documents", "user1"),
        (base, "documents", "user2"),
        (base, "reports", "department1"),
        (base, "reports", "department2"),
    ]
    values = [
        {"title": "Doc 1", "author": "John Doe", "tags": ["important"]},
        {"title": "Doc 2", "author": "Jane Smith", "tags": ["draft"]},
        {"title": "Report A", "author": "John Doe", "tags": ["final"]},
        {"title": "Report B", "author": "Alice Johnson", "tags": ["draft"]},
    ]
    for ns, value in zip(namespaces, values):
        store.put(ns, f"item_{ns[-1]}", value)
    assert len(docs := store.search((base, "documents"))) == 2 and all(i.namespace[1] == "documents" for i in docs)
    assert len(store.search((base, "reports"))) == 2
    first, second = store.search((base,), limit=2, offset=0), store.search((base,), limit=2, offset=2)
    assert len(first) == len(second) == 2 and not {i.key for i in first} & {i.key for i in second}
    assert len(store.search((base,))) == 4
    assert len(john := store.search((base,), filter={"author": "John Doe"})) == 2
    assert all(i.value["author"] == "John Doe" for i in john)
    assert len(draft := store.search((base,), filter={"tags": ["draft"]})) == 2
    assert all("draft" in i.value["tags"] for i in draft)


def test_filter_key_injection_matches_nothing(store: NovaLangGraphStore) -> None:
    store.put(("docs",), "public", {"access": "public", "data": "public info"})
    store.put(("docs",), "private", {"access": "private", "data": "secret", "password": "123"})
    normal = store.search(("docs",), filter={"access": "public"})
    assert len(normal) == 1 and normal[0].value["access"] == "public"
    malicious = "access') = 'public' OR '1'='1' OR json_extract(value, '$."
    assert store.search(("docs",), filter={malicious: "dummy"}) == []  # adapted: no SQL is built from keys


def test_non_ascii(store: NovaLangGraphStore) -> None:
    texts = ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"]
    for n, text in enumerate(texts, 1):
        store.put(("user_123", "memories"), str(n), {"text": text})
    for n, text in enumerate(texts, 1):
        assert store.search(("user_123", "memories"), query=text)[0].key == str(n)
    assert store.get(("user_123", "memories"), "1").value == {"text": "这是中文"}  # type: ignore[union-attr]


def test_dotted_filter_keys(store: NovaLangGraphStore) -> None:  # test_inmemory_store_dotted_filters.py
    store.put(("docs",), "hyphen", {"user": {"access-level": "nested"}})
    assert [r.key for r in store.search(("docs",), filter={"user.access-level": "nested"})] == ["hyphen"]


# == AsyncSqliteStore: libs/checkpoint-sqlite/tests/test_async_store.py ================================================
async def test_large_batches_async(store: NovaLangGraphStore, mode: str) -> None:
    n, m = 20, 10  # adapted: upstream N=100 (the same mix of operations, 1/5 of them)
    coros: list[Any] = []
    for j in range(m):
        ns = ("test", "foo", "bar", "baz", str(j % 2))
        for i in range(n):
            coros.append(store.aput(ns, f"key{i}", value={"foo": "bar" + str(i)}))
            coros.append(asyncio.create_task(store.aget(ns, f"key{i}")))
            coros.append(
                asyncio.create_task(store.alist_namespaces(prefix=_prefix(mode, "test") or None, max_depth=j + 1))
            )
            coros.append(asyncio.create_task(store.asearch(("test",))))
            coros.append(store.aput(ns, f"key{i}", value={"foo": "bar" + str(i)}))
            coros.append(store.adelete(ns, f"key{i}"))
    assert len(await asyncio.gather(*coros)) == m * n * 6


async def test_abatch_order(store: NovaLangGraphStore, mode: str) -> None:
    await store.aput(("test", "foo"), "key1", {"data": "value1"})
    await store.aput(("test", "bar"), "key2", {"data": "value2"})
    results = await store.abatch(
        [
            GetOp(("test", "foo"), "key1"),
            PutOp(("test", "bar"), "key2", {"data": "value2"}),
            SearchOp(("test",), filter={"data": "value1"}, limit=10, offset=0),
            ListNamespacesOp(match_conditions=_conds(mode, "test"), max_depth=None, limit=10, offset=0),
            GetOp(("test",), "key3"),
        ]
    )
    assert isinstance(results[0], Item) and results[0].value == {"data": "value1"}
    assert results[1] is None and isinstance(results[2], list) and results[3] and results[4] is None
    results = await store.abatch(
        [
            SearchOp(("test",), filter=None, limit=5, offset=0),
            GetOp(("test", "bar"), "key2"),
            ListNamespacesOp(match_conditions=_conds(mode, "test"), max_depth=None, limit=5, offset=0),
            PutOp(("test",), "key3", {"data": "value3"}),
            GetOp(("test", "foo"), "key1"),
        ]
    )
    assert len(results[0]) >= 2 and results[1].value == {"data": "value2"}  # type: ignore[arg-type,union-attr]
    assert results[2] and results[3] is None and results[4].value == {"data": "value1"}  # type: ignore[union-attr]


async def test_async_batch_ops(store: NovaLangGraphStore, mode: str) -> None:
    results = await store.abatch(
        [
            PutOp(("test",), "key1", {"data": "value1"}),
            PutOp(("test",), "key2", {"data": "value2"}),
            PutOp(("test",), "key3", None),
        ]
    )
    assert results == [None, None, None]
    assert len(await store.asearch(("test",), limit=10)) == 2
    got = await store.abatch([GetOp(("test",), "key1"), GetOp(("test",), "key2"), GetOp(("test",), "key3")])
    assert [g.key if g else None for g in got] == ["key1", "key2", None]  # type: ignore[union-attr]
    await store.aput(("test", "namespace1"), "key1", {"data": "value1"})
    await store.aput(("test", "namespace2"), "key2", {"data": "value2"})
    searched = await store.abatch(
        [
            SearchOp(("test",), filter={"data": "value1"}, limit=10, offset=0),
            SearchOp(("test",), filter=None, limit=5, offset=0),
        ]
    )
    assert len(searched[0]) == 2 and len(searched[1]) == 4  # type: ignore[arg-type]
    listed = await store.abatch([ListNamespacesOp(match_conditions=_conds(mode, "test"), limit=10)])
    assert ("test", "namespace1") in listed[0] and ("test", "namespace2") in listed[0]  # type: ignore[operator]


async def test_async_vector_tests(store: NovaLangGraphStore) -> None:
    await store.aput(("test",), "doc1", {"text": "zany zebra Xerxes"})
    await store.aput(("test",), "doc2", {"text": "something about dogs"})
    await store.aput(("test",), "doc3", {"text": "text about birds"})
    initial = await store.asearch(("test",), query="Zany Xerxes")
    assert initial[0].key == "doc1" and initial[0].score is not None
    await store.aput(("test",), "doc1", {"text": "new text about dogs"})
    after = next((r.score for r in await store.asearch(("test",), query="Zany Xerxes") if r.key == "doc1"), 0.0)
    assert after is not None and after < initial[0].score
    await store.aput(("test",), "doc4", {"text": "new text about dogs"}, index=False)
    assert not any(r.key == "doc4" for r in await store.asearch(("test",), query="new text about dogs", limit=3))
    for i in range(5):
        await store.aput(("pages",), f"doc{i}", {"text": f"test document number {i}"})
    page1 = await store.asearch(("pages",), query="test", limit=2)
    page2 = await store.asearch(("pages",), query="test", limit=2, offset=2)
    assert len(page1) == len(page2) == 2 and page1[0].key != page2[0].key
    assert len(await store.asearch(("pages",), query="test", limit=10)) == 5


# == InMemoryStore: libs/checkpoint/tests/test_store.py ================================================================
def test_list_namespaces_basic(store: NovaLangGraphStore, mode: str) -> None:
    namespaces = [
        ("a", "b", "c"),
        ("a", "b", "d", "e"),
        ("a", "b", "d", "i"),
        ("a", "b", "f"),
        ("a", "c", "f"),
        ("b", "a", "f"),
        ("users", "123"),
        ("users", "456", "settings"),
        ("admin", "users", "789"),
    ]
    for i, ns in enumerate(namespaces):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    a_b = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert sorted(store.list_namespaces(prefix=("a", "b"))) == a_b
    mine = _prefix(mode, "a") or None  # adapted: in positional mode only user "a"'s namespaces are listed
    f_all = [("a", "b", "f"), ("a", "c", "f")] + ([("b", "a", "f")] if mode == "bound" else [])
    assert sorted(store.list_namespaces(prefix=mine, suffix=("f",))) == f_all
    assert sorted(store.list_namespaces(prefix=("a",), suffix=("f",))) == [("a", "b", "f"), ("a", "c", "f")]
    assert sorted(store.list_namespaces(prefix=("a", "b"), max_depth=3)) == [
        ("a", "b", "c"),
        ("a", "b", "d"),
        ("a", "b", "f"),
    ]
    assert store.list_namespaces(prefix=("a", "b"), limit=2) == a_b[:2]
    assert store.list_namespaces(prefix=("a", "b"), offset=2) == a_b[2:]
    assert sorted(store.list_namespaces(prefix=("a", "*", "f"))) == [("a", "b", "f"), ("a", "c", "f")]
    assert sorted(store.list_namespaces(prefix=mine, suffix=("*", "f"))) == f_all
    assert store.list_namespaces(prefix=("nonexistent",)) == []
    assert store.list_namespaces(prefix=("users", "123")) == [("users", "123")]


def test_list_namespaces_with_wildcards(store: NovaLangGraphStore, mode: str) -> None:
    namespaces = [
        ("users", "123"),
        ("users", "456"),
        ("users", "789", "settings"),
        ("admin", "users", "789"),
        ("guests", "123"),
        ("guests", "456", "preferences"),
    ]
    for i, ns in enumerate(namespaces):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    assert sorted(store.list_namespaces(prefix=("users", "*"))) == [
        ("users", "123"),
        ("users", "456"),
        ("users", "789", "settings"),
    ]
    guests = _prefix(mode, "guests") or None  # adapted
    assert store.list_namespaces(prefix=guests, suffix=("*", "preferences")) == [("guests", "456", "preferences")]
    assert store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings")) == []


def test_list_namespaces_pagination(store: NovaLangGraphStore) -> None:
    for i in range(20):
        store.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": f"value_{i:02d}"})
    for offset in (0, 5, 15):
        assert store.list_namespaces(prefix=("namespace",), limit=5, offset=offset) == [
            ("namespace", f"sub_{i:02d}") for i in range(offset, offset + 5)
        ]


def test_list_namespaces_max_depth_and_no_conditions(store: NovaLangGraphStore, mode: str) -> None:
    namespaces = [("a", "b", "c", "d"), ("a", "b", "c", "e"), ("a", "b", "f"), ("a", "g"), ("h", "i", "j", "k")]
    for i, ns in enumerate(namespaces):
        store.put(ns, f"id_{i}", {"data": f"value_{i:02d}"})
    assert sorted(store.list_namespaces(max_depth=2)) == [("a", "b"), ("a", "g"), ("h", "i")]
    assert sorted(store.list_namespaces()) == sorted(namespaces)
    if mode == "positional":
        assert sorted(store.list_namespaces(prefix=("a",), max_depth=2)) == [("a", "b"), ("a", "g")]


def test_list_namespaces_empty_store(store: NovaLangGraphStore, mode: str) -> None:
    assert store.list_namespaces(prefix=_prefix(mode, "a") or None) == []


async def test_cannot_put_empty_namespace(store: NovaLangGraphStore) -> None:
    doc = {"foo": "bar"}
    for bad in ((), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")):
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            await store.aput(bad, "foo", doc)
    ns = ("foo", "langgraph", "foo")
    await store.aput(ns, "bar", doc)
    assert (await store.aget(ns, "bar")).value == doc  # type: ignore[union-attr]
    assert (await store.asearch(ns, query="bar"))[0].value == doc
    await store.adelete(ns, "bar")
    assert await store.aget(ns, "bar") is None
    store.put(ns, "bar", doc)
    assert store.get(ns, "bar").value == doc  # type: ignore[union-attr]
    assert store.search(ns, query="bar")[0].value == doc
    store.delete(ns, "bar")
    assert store.get(ns, "bar") is None
    # past the public put api: the root label "langgraph" is refused by put() only, as upstream
    await store.abatch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert (await store.aget(("langgraph", "foo"), "bar")).value == doc  # type: ignore[union-attr]
    assert (await store.asearch(("langgraph", "foo")))[0].value == doc
    await store.adelete(("langgraph", "foo"), "bar")
    assert await store.aget(("langgraph", "foo"), "bar") is None


async def test_concurrent_filtered_vector_searches(store: NovaLangGraphStore) -> None:
    colors, things, scores = (
        ["red", "blue", "green", "yellow", "purple"],
        ["apple", "car", "house", "book", "phone"],
        [3.0, 3.5, 4.0, 4.5, 5.0],
    )
    docs = [
        (
            f"doc{i}",
            {"text": f"{colors[i % 5]} {things[i % 5]}", "color": colors[i % 5], "score": scores[i % 5], "index": i},
        )
        for i in range(50)
    ]
    # adapted: upstream gathers puts, deletes and puts at once and relies on AsyncBatchedBaseStore's ordering;
    # concurrent calls here run in threads in any order, so the three phases are awaited one after the other
    await asyncio.gather(*[store.aput(("test",), k, v) for k, v in docs])
    await asyncio.gather(*[store.adelete(("test",), k) for k, _ in docs])
    await asyncio.gather(*[store.aput(("test",), k, v) for k, v in docs])
    queries: list[tuple[str, dict[str, Any]]] = [
        ("apple", {"color": "red"}),
        ("car", {"color": "blue"}),
        ("house", {"color": "green"}),
        ("phone", {"score": {"$gt": 4.99}}),
        ("book", {"score": {"$lte": 3.5}}),
        ("apple", {"score": {"$gte": 3.0}, "color": "red"}),
        ("car", {"score": {"$lt": 5.1}, "color": "blue"}),
        ("house", {"index": {"$gt": 25}}),
        ("phone", {"index": {"$lte": 10}}),
    ]
    ops = {"$gt": float.__gt__, "$gte": float.__ge__, "$lt": float.__lt__, "$lte": float.__le__}
    all_results = await asyncio.gather(*[store.asearch(("test",), query=q, filter=f) for q, f in queries])
    for results, (query, flt) in zip(all_results, queries):
        assert results, f"no results for {query!r} with {flt}"
        for r in results:
            for field, cond in flt.items():
                if isinstance(cond, dict):
                    assert all(ops[o](float(r.value[field]), float(v)) for o, v in cond.items())
                else:
                    assert r.value[field] == cond


# == namespace validation: libs/checkpoint/tests/test_store_namespace_validation.py ====================================
@pytest.mark.parametrize("namespace", [("foo.bar",), ("foo", ""), (123,)])
@pytest.mark.parametrize("method", ["get", "delete", "search", "prefix", "suffix"])
async def test_rejects_invalid_labels(store: NovaLangGraphStore, mode: str, namespace: Any, method: str) -> None:
    for asynchronous in (False, True):
        with pytest.raises(InvalidNamespaceError):
            if method in ("prefix", "suffix"):
                call: Any = store.alist_namespaces if asynchronous else store.list_namespaces
                out = call(**{method: namespace})
            elif method == "search":
                out = (store.asearch if asynchronous else store.search)(namespace)
            else:
                out = getattr(store, f"a{method}" if asynchronous else method)(namespace, "key")
            if asynchronous:
                await out
    # and straight through batch(), past BaseStore's own checks
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(namespace, "key")])
    with pytest.raises(InvalidInputError):
        store.batch([PutOp(namespace, "key", {"a": 1})])
    assert store.list_namespaces(prefix=_prefix(mode, "foo") or None) == []


# == the store in use: an agent, two users, async, LangMem (real MiniLM) ===============================================
@dataclass
class UserContext:
    user_id: str


class ScriptedToolModel(BaseChatModel):
    """A fake tool-calling chat model: for the last user message ``"<tool>: <text>"`` it calls
    ``<tool>`` with ``{<arg>: <text>}`` (``args`` maps tool -> argument name), then answers with
    the tool's result. Records the tool results it was shown."""

    args: dict[str, str] = Field(default_factory=dict)
    seen: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted-tool-calls"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        last_human = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        results = [m for m in messages[last_human + 1 :] if isinstance(m, ToolMessage)]
        if results:
            self.seen.append(str(results[-1].content))
            message = AIMessage(content=f"Done: {results[-1].content}")
        else:
            name, _, text = str(messages[last_human].content).partition(": ")
            message = AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": name,
                        "args": {self.args[name]: text},
                        "id": f"call_{uuid.uuid4().hex[:8]}",
                        "type": "tool_call",
                    }
                ],
            )
        return ChatResult(generations=[ChatGeneration(message=message)])


@tool
def save_note(note: str, runtime: ToolRuntime[UserContext]) -> str:
    """Save a note about the current user."""
    namespace, key = (runtime.context.user_id, "notes"), uuid.uuid4().hex
    assert runtime.store is not None
    runtime.store.put(namespace, key, {"text": note})
    stored = runtime.store.get(namespace, key)  # written and read back through runtime.store
    return f"saved {stored.value['text'] if stored else '?'}"


@tool
async def find_notes(query: str, runtime: ToolRuntime[UserContext]) -> str:
    """Search the current user's notes."""
    assert runtime.store is not None
    hits = await runtime.store.asearch((runtime.context.user_id, "notes"), query=query, limit=1)
    return " | ".join(h.value["text"] for h in hits) or "nothing"


@pytest.fixture
def engine(tmp_path: Path, minilm_onnx: Any) -> Iterator[NovaStore]:
    s = NovaStore(tmp_path / "engine", embeddings=minilm_onnx)
    yield s
    s.close()


def _ask(agent: Any, user: str, text: str) -> Any:
    return agent.invoke({"messages": [HumanMessage(text)]}, context=UserContext(user))


async def test_agent_tools_write_and_read_through_runtime_store(engine: NovaStore) -> None:
    store = NovaLangGraphStore(engine)  # namespace[0] is the user id
    model = ScriptedToolModel(args={"save_note": "note", "find_notes": "query"})
    agent = create_agent(model, [save_note, find_notes], store=store, context_schema=UserContext)
    for user, note in [
        ("alice", "I am allergic to peanuts"),
        ("alice", "My cat is called Miso"),
        ("bob", "I play the cello in an orchestra"),
    ]:
        out = _ask(agent, user, f"save_note: {note}")
        assert out["messages"][-1].content == f"Done: saved {note}"
    out = await agent.ainvoke(
        {"messages": [HumanMessage("find_notes: what pet do I have?")]}, context=UserContext("alice")
    )
    assert out["messages"][-1].content == "Done: My cat is called Miso"
    out = await agent.ainvoke(
        {"messages": [HumanMessage("find_notes: which food allergy?")]}, context=UserContext("bob")
    )
    assert "peanut" not in out["messages"][-1].content  # bob's search never reaches alice's notes
    assert {i.value["text"] for i in store.search(("alice", "notes"))} == {
        "I am allergic to peanuts",
        "My cat is called Miso",
    }
    assert store.list_namespaces(prefix=("bob",)) == [("bob", "notes")]


def test_two_users_never_see_each_other(engine: NovaStore) -> None:
    shared = NovaLangGraphStore(engine, user_position=1)  # ("memories", user_id, ...)
    shared.put(("memories", "alice"), "diet", {"text": "Alice is vegetarian", "secret": "ALICEMARK"})
    shared.put(("memories", "bob"), "diet", {"text": "Bob eats everything", "secret": "BOBMARK"})
    shared.put(("memories", "bob", "work"), "job", {"text": "Bob is a vegetarian chef"})
    hits = shared.search(("memories", "alice"), query="vegetarian", limit=10)
    assert [h.value["text"] for h in hits] == ["Alice is vegetarian"]
    assert shared.search(("memories", "alice"), filter={"secret": "BOBMARK"}) == []
    assert shared.list_namespaces(prefix=("memories", "alice")) == [("memories", "alice")]
    for refused in (lambda: shared.search(("memories",)), lambda: shared.get(("memories",), "x")):
        with pytest.raises(NamespaceError):
            refused()
    everyone = [("memories", "alice"), ("memories", "bob"), ("memories", "bob", "work")]
    assert shared.list_namespaces(prefix=("memories",)) == everyone  # unbound: server-side code lists every user's
    assert shared.list_namespaces(prefix=("memories", "*")) == everyone

    alice = NovaLangGraphStore(engine, user_id="alice")  # the same items, seen as alice's scopes
    assert alice.get(("memories",), "diet").value["text"] == "Alice is vegetarian"  # type: ignore[union-attr]
    assert [h.value["secret"] for h in alice.search((), query="vegetarian chef")] == ["ALICEMARK"]
    assert alice.list_namespaces() == [("memories",)]
    assert alice.get(("memories", "bob"), "diet") is None  # a scope of alice's, not bob's namespace
    guarded = NovaLangGraphStore(engine, user_id="alice", user_position=1)
    with pytest.raises(NamespaceError):
        guarded.get(("memories", "bob"), "diet")
    assert guarded.search(("memories",), query="food")[0].value["secret"] == "ALICEMARK"
    assert guarded.list_namespaces() == guarded.list_namespaces(prefix=("memories", "*")) == [("memories", "alice")]
    with pytest.raises(NamespaceError):
        guarded.list_namespaces(prefix=("memories", "bob"))

    counts = engine.forget("alice")
    assert counts["items"] == 1
    assert shared.search(("memories", "alice")) == [] and alice.list_namespaces() == []
    assert shared.list_namespaces() == [("memories", "bob"), ("memories", "bob", "work")]
    vectors = item_index(engine.components.vectors)
    assert vectors.collection(ITEM_KIND, "alice") is None and vectors.collection(ITEM_KIND, "bob") is not None
    assert {c.metadata["user_id"] for c in vectors.collections()} == {"bob"}
    raw = b"".join(p.read_bytes() for p in engine.path.glob("nova.sqlite3*"))
    assert b"ALICEMARK" not in raw and b"BOBMARK" in raw
    assert [h.key for h in shared.search(("memories", "bob"), query="chef")] == ["job", "diet"]


async def test_async_store_never_blocks_the_event_loop(engine: NovaStore) -> None:
    store = NovaLangGraphStore(engine)
    gaps: list[float] = []
    running = True

    async def ticker() -> None:
        last = time.perf_counter()
        while running:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    tick = asyncio.create_task(ticker())
    start = time.perf_counter()
    await asyncio.gather(
        *[store.aput((f"user{n % 4}", "notes"), f"k{n}", {"text": f"note number {n} about tea"}) for n in range(24)]
    )
    found = await asyncio.gather(*[store.asearch((f"user{n}",), query="tea", limit=3) for n in range(4)])
    elapsed = time.perf_counter() - start
    running = False
    await tick
    assert [len(f) for f in found] == [3, 3, 3, 3]
    assert all(h.namespace[0] == f"user{n}" for n, f in enumerate(found) for h in f)
    assert len(gaps) >= 5 and max(gaps) < max(0.25, elapsed / 3)  # the loop kept ticking throughout


def test_langmem_memory_tools(engine: NovaStore) -> None:
    langmem = pytest.importorskip("langmem")  # an optional test dependency (pyproject: test extra)
    create_manage_memory_tool, create_search_memory_tool = (
        langmem.create_manage_memory_tool,
        langmem.create_search_memory_tool,
    )
    store = NovaLangGraphStore(engine, user_position=1)  # LangMem's ("memories", "{langgraph_user_id}")
    manage = create_manage_memory_tool(namespace=("memories", "{langgraph_user_id}"), store=store)
    search = create_search_memory_tool(namespace=("memories", "{langgraph_user_id}"), store=store)
    alice: Any = {"configurable": {"langgraph_user_id": "alice"}}
    bob: Any = {"configurable": {"langgraph_user_id": "bob"}}
    created = manage.invoke({"content": "User prefers dark mode in every editor"}, config=alice)
    memory_id = created.split()[-1]
    manage.invoke({"content": "User is learning Portuguese"}, config=alice)
    manage.invoke({"content": "User prefers light mode"}, config=bob)
    found = json.loads(search.invoke({"query": "which colour theme does the user like?"}, config=alice))
    assert found[0]["key"] == memory_id and found[0]["namespace"] == ["memories", "alice"]
    assert all(f["namespace"] == ["memories", "alice"] for f in found) and len(found) == 2
    manage.invoke({"content": "User now prefers light mode", "action": "update", "id": memory_id}, config=alice)
    item = store.get(("memories", "alice"), memory_id)
    assert item is not None and item.value == {"content": "User now prefers light mode"}
    assert item.created_at < item.updated_at
    manage.invoke({"action": "delete", "id": memory_id}, config=alice)
    assert store.get(("memories", "alice"), memory_id) is None
    assert [f["value"]["content"] for f in json.loads(search.invoke({"query": "theme"}, config=bob))] == [
        "User prefers light mode"
    ]


def test_langmem_tools_in_an_agent_use_the_agents_store(engine: NovaStore) -> None:
    langmem = pytest.importorskip("langmem")
    create_manage_memory_tool, create_search_memory_tool = (
        langmem.create_manage_memory_tool,
        langmem.create_search_memory_tool,
    )
    store = NovaLangGraphStore(engine, user_position=1)
    tools = [
        create_manage_memory_tool(namespace=("memories", "{user_id}")),  # no store: the agent's runtime store
        create_search_memory_tool(namespace=("memories", "{user_id}")),
    ]
    model = ScriptedToolModel(args={"manage_memory": "content", "search_memory": "query"})
    agent = create_agent(model, tools, store=store)
    config: Any = {"configurable": {"user_id": "carol"}}
    agent.invoke({"messages": [HumanMessage("manage_memory: Carol's sister is called Ines")]}, config)
    out = agent.invoke({"messages": [HumanMessage("search_memory: sister")]}, config)
    assert "Ines" in out["messages"][-1].content
    assert [i.value["content"] for i in store.search(("memories", "carol"))] == ["Carol's sister is called Ines"]
