"""``NovaLangGraphStore.list_namespaces`` against LangGraph's own semantics (issue #42 item 11).

LangGraph's ``InMemoryStore`` and ``PostgresStore`` list every namespace when no prefix is given.
An unbound ``NovaLangGraphStore`` (no ``user_id=``, the namespace names the user) is server-side
code that can already name any user's namespace, so it lists across users too; a store bound to
one user lists only that user's namespaces, whatever the prefix, suffix or wildcards say.

Three parts:

- LangGraph's ``list_namespaces`` tests of ``InMemoryStore`` (``libs/checkpoint/tests/test_store.py``:
  basic, wildcards, pagination, max depth, no conditions, empty store), same data, calls and
  assertions, with no adaptation, in every namespace mapping (``STORES``);
- the same operations run on a real ``InMemoryStore`` and on this store, results compared;
- tenancy: a bound store never lists another user's namespaces.

Real SQLite and Chroma, the repo's hashed bag-of-words embedder (no model).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from integration.test_embedding_space import HashedBagOfWords
from langgraph.store.base import ListNamespacesOp, MatchCondition
from langgraph.store.memory import InMemoryStore

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langgraph import NamespaceError, NovaLangGraphStore

STORES: dict[str, dict[str, Any]] = {
    "bound": {"user_id": "tenant"},  # every namespace is a scope of one user
    "user_at_0": {},  # namespace[0] names the user (the default)
    "user_at_1": {"user_position": 1},  # LangMem's ("memories", user_id, ...)
}


@pytest.fixture()
def engine(tmp_path: Path) -> Iterator[NovaStore]:
    s = NovaStore(tmp_path / "mem", embeddings=HashedBagOfWords())
    yield s
    s.close()


@pytest.fixture(params=sorted(STORES))
def store(request: pytest.FixtureRequest, engine: NovaStore) -> NovaLangGraphStore:
    return NovaLangGraphStore(engine, index_fields=["data"], **STORES[request.param])


# == LangGraph's InMemoryStore listing tests, unchanged ================================================================
def test_list_namespaces_basic(store: NovaLangGraphStore) -> None:
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
        store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})

    result = store.list_namespaces(prefix=("a", "b"))
    expected = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert sorted(result) == sorted(expected)

    result = store.list_namespaces(suffix=("f",))
    expected = [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert sorted(result) == sorted(expected)

    result = store.list_namespaces(prefix=("a",), suffix=("f",))
    expected = [("a", "b", "f"), ("a", "c", "f")]
    assert sorted(result) == sorted(expected)

    result = store.list_namespaces(prefix=("a", "b"), max_depth=3)
    expected = [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert sorted(result) == sorted(expected)

    result = store.list_namespaces(prefix=("a", "b"), limit=2)
    expected = [("a", "b", "c"), ("a", "b", "d", "e")]
    assert result == expected

    result = store.list_namespaces(prefix=("a", "b"), offset=2)
    expected = [("a", "b", "d", "i"), ("a", "b", "f")]
    assert result == expected

    result = store.list_namespaces(prefix=("a", "*", "f"))
    expected = [("a", "b", "f"), ("a", "c", "f")]
    assert sorted(result) == sorted(expected)

    result = store.list_namespaces(suffix=("*", "f"))
    expected = [("a", "b", "f"), ("a", "c", "f"), ("b", "a", "f")]
    assert sorted(result) == sorted(expected)

    result = store.list_namespaces(prefix=("nonexistent",))
    assert result == []

    result = store.list_namespaces(prefix=("users", "123"))
    expected = [("users", "123")]
    assert result == expected


def test_list_namespaces_with_wildcards(store: NovaLangGraphStore) -> None:
    namespaces = [
        ("users", "123"),
        ("users", "456"),
        ("users", "789", "settings"),
        ("admin", "users", "789"),
        ("guests", "123"),
        ("guests", "456", "preferences"),
    ]
    for i, ns in enumerate(namespaces):
        store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})

    result = store.list_namespaces(prefix=("users", "*"))
    expected = [("users", "123"), ("users", "456"), ("users", "789", "settings")]
    assert sorted(result) == sorted(expected)

    result = store.list_namespaces(suffix=("*", "preferences"))
    expected = [("guests", "456", "preferences")]
    assert result == expected

    result = store.list_namespaces(prefix=("*", "users"), suffix=("*", "settings"))
    assert result == []

    store.put(namespace=("admin", "users", "settings", "789"), key="foo", value={"data": "some_val"})
    # upstream builds this expectation and asserts nothing with it; so does this port
    expected = [("admin", "users", "settings", "789")]


def test_list_namespaces_pagination(store: NovaLangGraphStore) -> None:
    for i in range(20):
        ns = ("namespace", f"sub_{i:02d}")
        store.put(namespace=ns, key=f"id_{i:02d}", value={"data": f"value_{i:02d}"})

    result = store.list_namespaces(prefix=("namespace",), limit=5, offset=0)
    expected = [("namespace", f"sub_{i:02d}") for i in range(5)]
    assert result == expected

    result = store.list_namespaces(prefix=("namespace",), limit=5, offset=5)
    expected = [("namespace", f"sub_{i:02d}") for i in range(5, 10)]
    assert result == expected

    result = store.list_namespaces(prefix=("namespace",), limit=5, offset=15)
    expected = [("namespace", f"sub_{i:02d}") for i in range(15, 20)]
    assert result == expected


def test_list_namespaces_max_depth(store: NovaLangGraphStore) -> None:
    namespaces = [("a", "b", "c", "d"), ("a", "b", "c", "e"), ("a", "b", "f"), ("a", "g"), ("h", "i", "j", "k")]
    for i, ns in enumerate(namespaces):
        store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})

    result = store.list_namespaces(max_depth=2)
    expected = [("a", "b"), ("a", "g"), ("h", "i")]
    assert sorted(result) == sorted(expected)


def test_list_namespaces_no_conditions(store: NovaLangGraphStore) -> None:
    namespaces = [("a", "b"), ("c", "d"), ("e", "f", "g")]
    for i, ns in enumerate(namespaces):
        store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})

    result = store.list_namespaces()
    expected = namespaces
    assert sorted(result) == sorted(expected)


def test_list_namespaces_empty_store(store: NovaLangGraphStore) -> None:
    result = store.list_namespaces()
    assert result == []


# == the same operations on a real InMemoryStore =======================================================================
NAMESPACES = [
    ("a", "b", "c"),
    ("a", "b", "d", "e"),
    ("a", "b", "d", "i"),
    ("a", "b", "f"),
    ("a", "c", "f"),
    ("b", "a", "f"),
    ("users", "123"),
    ("users", "456", "settings"),
    ("users", "789", "settings"),
    ("admin", "users", "789"),
    ("admin", "users", "settings", "789"),
    ("guests", "456", "preferences"),
    ("memories", "alice"),
    ("memories", "alice", "work"),
    ("memories", "bob"),
]
PREFIXES: list[tuple[str, ...] | None] = [
    None,
    ("a",),
    ("a", "b"),
    ("a", "*", "f"),
    ("*",),
    ("*", "users"),
    ("users", "*"),
    ("memories", "alice"),
    ("memories", "*"),
    ("*", "*", "*"),
    ("nonexistent",),
]
SUFFIXES: list[tuple[str, ...] | None] = [None, ("f",), ("*", "f"), ("settings",), ("*", "settings"), ("789",)]


def test_every_listing_equals_in_memory_stores(store: NovaLangGraphStore) -> None:
    reference = InMemoryStore()
    for i, ns in enumerate(NAMESPACES):
        for target in (store, reference):
            target.put(ns, f"k{i}", {"data": f"value {i}"})
            target.put(ns, f"extra{i}", {"data": "a second item in the same namespace"})
    # a namespace whose last item is deleted is listed no more (as SqliteStore and PostgresStore; an
    # InMemoryStore keeps an emptied namespace's entry, so this delete is left out of the comparison)
    store.put(("gone", "x"), "k", {"data": "soon deleted"})
    store.delete(("gone", "x"), "k")

    for prefix, suffix in itertools.product(PREFIXES, SUFFIXES):
        for max_depth in (None, 1, 2, 3):
            ours = store.list_namespaces(prefix=prefix, suffix=suffix, max_depth=max_depth, limit=1000)
            theirs = reference.list_namespaces(prefix=prefix, suffix=suffix, max_depth=max_depth, limit=1000)
            assert ours == theirs, (prefix, suffix, max_depth)
        for limit, offset in ((3, 0), (3, 2), (5, 7), (100, 100)):
            ours = store.list_namespaces(prefix=prefix, suffix=suffix, limit=limit, offset=offset)
            theirs = reference.list_namespaces(prefix=prefix, suffix=suffix, limit=limit, offset=offset)
            assert ours == theirs, (prefix, suffix, limit, offset)
    ops = [
        ListNamespacesOp(match_conditions=None, max_depth=None, limit=100, offset=0),
        ListNamespacesOp(match_conditions=(MatchCondition("suffix", ("f",)),), max_depth=2, limit=2, offset=1),
    ]
    assert store.batch(ops) == reference.batch(ops)


# == tenancy ===========================================================================================================
def test_a_bound_store_never_lists_another_users_namespaces(engine: NovaStore) -> None:
    unbound = NovaLangGraphStore(engine)  # namespace[0] names the user
    for user in ("alice", "bob"):
        unbound.put((user, "notes"), "k", {"text": f"{user}'s"})
        unbound.put((user, "notes", "work"), "k", {"text": f"{user}'s work"})
    bob_only = [("bob", "notes"), ("bob", "notes", "work")]
    alice_only = [("alice", "notes"), ("alice", "notes", "work")]
    assert unbound.list_namespaces() == alice_only + bob_only  # server-side code: every user's

    alice = NovaLangGraphStore(engine, user_id="alice")  # alice's scopes, whatever the namespace says
    assert alice.list_namespaces() == [("notes",), ("notes", "work")]
    for prefix, suffix in itertools.product([None, ("*",), ("bob",), ("notes",)], [None, ("*",), ("work",)]):
        listed = alice.list_namespaces(prefix=prefix, suffix=suffix)
        assert set(listed) <= {("notes",), ("notes", "work")}, (prefix, suffix)

    guarded = NovaLangGraphStore(engine, user_id="alice", user_position=0)  # namespace[0] must be alice
    assert guarded.list_namespaces() == alice_only
    assert guarded.list_namespaces(prefix=("*",)) == alice_only
    assert guarded.list_namespaces(suffix=("work",)) == [("alice", "notes", "work")]
    assert guarded.list_namespaces(max_depth=1) == [("alice",)]
    with pytest.raises(NamespaceError):
        guarded.list_namespaces(prefix=("bob",))

    assert engine.forget("alice")["items"] == 2
    assert unbound.list_namespaces() == bob_only and alice.list_namespaces() == [] == guarded.list_namespaces()
