"""``NovaLangGraphStore`` without a model: the namespace -> user mapping, validation, filters,
indexed texts, the ``items`` storage mixin (real SQLite), and the adapter over real SQLite and
Chroma with the repo's hashed bag-of-words embedder (failed vector writes, recovery, erasure,
a model change, a closed store)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from integration.test_embedding_space import HashedBagOfWords
from langgraph.store.base import GetOp, InvalidNamespaceError, ListNamespacesOp, MatchCondition, PutOp, SearchOp

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.config import LimitsConfig
from nova_memory_integrations.errors import InvalidInputError, StorageError, StoreClosedError
from nova_memory_integrations.langgraph import NamespaceError, NovaLangGraphStore
from nova_memory_integrations.langgraph._items import (
    NamespaceMap,
    check_op,
    encode_value,
    item_texts,
    matches,
    namespace_matches,
)
from nova_memory_integrations.storage.items import ITEM_KIND, item_index, join_scope, split_scope
from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.storage.vectors import VectorIndex

LIMITS = LimitsConfig()


# -- the namespace -> user mapping -----------------------------------------------------------------------------------
def test_positional_mapping_reads_the_user_at_its_position() -> None:
    at1 = NamespaceMap(None, 1)
    assert at1.locate(("memories", "alice", "prefs"), LIMITS) == ("alice", ("memories", "prefs"))
    assert at1.namespace("alice", ("memories", "prefs")) == ("memories", "alice", "prefs")
    assert at1.namespace("alice", ()) is None  # a scope too short to hold the user's label: not in view
    assert at1.locate_prefix(("memories", "alice"), LIMITS) == ("alice", ("memories",))
    assert at1.listing_user((MatchCondition("suffix", ("x",)), MatchCondition("prefix", ("m", "bob"))), LIMITS) == "bob"
    assert at1.listing_user((MatchCondition("prefix", ("memories", "*")),), LIMITS) is None  # every user's
    assert at1.listing_user((), LIMITS) is None
    for call in (
        lambda: at1.locate(("memories",), LIMITS),
        lambda: at1.locate_prefix(("memories",), LIMITS),
        lambda: at1.listing_user((MatchCondition("prefix", ("m", "bad\nid")),), LIMITS),
        lambda: at1.locate(("m", "bad\nid"), LIMITS),
    ):
        with pytest.raises(NamespaceError):
            call()


def test_bound_mapping_keeps_every_namespace_as_a_scope_of_its_user() -> None:
    bound = NamespaceMap("alice", None)
    assert bound.locate(("bob", "notes"), LIMITS) == ("alice", ("bob", "notes"))
    assert bound.locate_prefix((), LIMITS) == ("alice", ())
    assert bound.listing_user((), LIMITS) == "alice"
    assert bound.namespace("alice", ("x",)) == ("x",)


def test_bound_and_positional_refuses_another_users_label() -> None:
    both = NamespaceMap("alice", 1)
    assert both.locate(("m", "alice"), LIMITS) == ("alice", ("m",))
    assert both.locate_prefix(("m",), LIMITS) == ("alice", ("m",))  # short prefixes cover the bound user
    assert both.listing_user((), LIMITS) == "alice"
    with pytest.raises(NamespaceError):
        both.locate(("m", "bob"), LIMITS)
    with pytest.raises(NamespaceError):
        both.listing_user((MatchCondition("prefix", ("m", "bob")),), LIMITS)


def test_namespace_error_is_both_error_types() -> None:
    err = NamespaceError("x", field="namespace")
    assert isinstance(err, InvalidInputError) and isinstance(err, InvalidNamespaceError) and err.field == "namespace"


# -- validation ------------------------------------------------------------------------------------------------------
def test_documents_round_trip_exactly() -> None:
    doc = {"z": 1, "a": [1.5, True, None, "é😀", {"n": {"deep": [0, -0.0, 10**20]}}], "m": {"": ""}}
    encoded = encode_value(doc)
    assert list(json.loads(encoded)) == ["z", "a", "m"]  # key order kept


@pytest.mark.parametrize(
    "bad",
    [
        {"t": (1, 2)},
        {"s": {1, 2}},
        {"d": datetime(2024, 1, 1, tzinfo=timezone.utc)},
        {1: "int key"},
        {"n": math.nan},
        {"i": math.inf},
        {"nested": {2: "x"}},
        {"surrogate": "\ud800"},
        ["not", "a", "mapping"],
        {"deep": __import__("functools").reduce(lambda acc, _: [acc], range(40), [])},
        {"big": "x" * 1_100_000},
    ],
)
def test_documents_that_would_not_read_back_unchanged_are_refused(bad: Any) -> None:
    with pytest.raises(InvalidInputError):
        encode_value(bad)


@pytest.mark.parametrize(
    ("op", "error"),
    [
        (GetOp(("a",), 5), InvalidInputError),  # type: ignore[arg-type]
        (GetOp(("a",), "k\x00"), InvalidInputError),
        (GetOp(("a.b",), "k"), NamespaceError),
        (GetOp(("a", ""), "k"), NamespaceError),
        (GetOp(("a", 3), "k"), NamespaceError),  # type: ignore[arg-type]
        (GetOp(("x" * 300,), "k"), NamespaceError),
        (PutOp(("a",), "k", {"v": 1}, ttl=5.0), NotImplementedError),
        (PutOp(("a",), "k", ["v"]), InvalidInputError),  # type: ignore[arg-type]
        (PutOp(("a",), "k", {"v": 1}, index="text"), InvalidInputError),  # type: ignore[arg-type]
        (PutOp(("a",), "k", {"v": 1}, index=[""]), InvalidInputError),
        (SearchOp(("a",), filter={"v": {"$regex": "x"}}), InvalidInputError),
        (SearchOp(("a",), limit=-1), InvalidInputError),
        (SearchOp(("a",), offset=True), InvalidInputError),  # type: ignore[arg-type]
        (SearchOp(("a",), query=3), InvalidInputError),  # type: ignore[arg-type]
        (ListNamespacesOp(match_conditions=(MatchCondition("middle", ("a",)),)), InvalidInputError),  # type: ignore[arg-type]
        (ListNamespacesOp(max_depth=0), InvalidInputError),
        ("not an op", InvalidInputError),
    ],
)
def test_bad_operations_are_refused_before_any_work(op: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        check_op(op, LIMITS)


def test_list_namespaces_are_taken_as_tuples() -> None:
    assert check_op(SearchOp(["a", "b"]), LIMITS).namespace_prefix == ("a", "b")  # type: ignore[arg-type,union-attr]
    listed = check_op(ListNamespacesOp(match_conditions=(MatchCondition("prefix", ["a"]),)), LIMITS)  # type: ignore[arg-type]
    assert listed.match_conditions[0].path == ("a",)  # type: ignore[union-attr,index]


# -- filters, namespace conditions, texts ----------------------------------------------------------------------------
DOC = {
    "color": "red",
    "score": 4.5,
    "n": 3,
    "flag": True,
    "tags": ["a", "b"],
    "user": {"level": 2, "name": "x"},
    "dotted.key": "literal",
}


@pytest.mark.parametrize(
    ("flt", "expected"),
    [
        ({}, True),
        ({"color": "red"}, True),
        ({"color": "blue"}, False),
        ({"missing": None}, False),
        ({"score": {"$gt": 4}}, True),
        ({"score": {"$gte": 4.5, "$lt": 5}}, True),
        ({"score": {"$lte": 4}}, False),
        ({"color": {"$ne": "blue"}}, True),
        ({"missing": {"$ne": 1}}, True),
        ({"missing": {"$gt": 1}}, False),
        ({"color": {"$gt": 3}}, False),
        ({"color": {"$gt": "a"}}, True),
        ({"n": {"$eq": 3}}, True),
        ({"flag": 1}, False),
        ({"flag": True}, True),
        ({"n": True}, False),
        ({"flag": {"$gt": 0}}, False),
        ({"tags": ["a", "b"]}, True),
        ({"tags": ["a"]}, False),
        ({"user": {"level": 2}}, True),
        ({"user.level": {"$gte": 2}}, True),
        ({"user.name": "y"}, False),
        ({"dotted.key": "literal"}, True),
    ],
)
def test_filters_follow_langgraph(flt: dict[str, Any], expected: bool) -> None:
    assert matches(DOC, flt) is expected


def test_namespace_conditions_with_wildcards() -> None:
    ns = ("a", "b", "c")
    assert namespace_matches(ns, MatchCondition("prefix", ("a", "*")))
    assert namespace_matches(ns, MatchCondition("suffix", ("*", "c")))
    assert not namespace_matches(ns, MatchCondition("suffix", ("b",)))
    assert not namespace_matches(ns, MatchCondition("prefix", ("a", "b", "c", "d")))


def test_item_texts_per_path() -> None:
    doc = {"title": "T", "body": {"text": "B"}, "parts": [{"t": "p1"}, {"t": "p2"}], "empty": "  "}
    assert item_texts(doc, ["title", "body.text", "parts[*].t", "empty", "missing"]) == ["T", "B", "p1", "p2"]
    assert item_texts({"t": "ça"}, ["$"]) == ['{"t": "ça"}']


# -- the items mixin ---------------------------------------------------------------------------------------------------
def test_items_are_scoped_by_user_and_scope(db: SQLiteStore) -> None:
    for user, scope, key in [("alice", "a.b", "k"), ("alice", "ab", "k"), ("alice", "a", "k2"), ("bob", "a.b", "k")]:
        db.put_item(
            user,
            scope,
            key,
            json.dumps({"text": f"tea for {user}"}),
            '["text"]',
            f"tea for {user}",
            1e9,
            f"{user}{scope}",
        )
    assert {i.id for i in db.list_items("alice", "a")} == {"alicea.b", "alicea"}  # "ab" is not under "a"
    assert {i.id for i in db.list_items("alice", "")} == {"alicea.b", "aliceab", "alicea"}
    assert db.item_scopes("alice") == ["a", "a.b", "ab"] and db.item_scopes("carol") == []
    assert db.get_item("bob", "ab", "k") is None
    assert {i for i, _ in db.fts_items("alice", '"tea"', "a", 10)} == {"alicea.b", "alicea"}
    assert {i for i, _ in db.fts_items("bob", '"alice"', "", 10)} == set()
    assert db.delete_user_items("alice") == 3
    assert db.list_items("alice", "") == [] and len(db.list_items("bob", "")) == 1


def test_a_put_keeps_id_and_created_at_and_resets_the_index_state(db: SQLiteStore) -> None:
    assert db.put_item("u", "s", "k", '{"v": 1}', '["$"]', "v 1", 1e9, "it1") == ("it1", 0)
    db.mark_item_indexed("u", "it1", 2)
    assert db.put_item("u", "s", "k", '{"v": 2}', '["$"]', "v 2", 1e9 + 5, "it2") == ("it1", 2)
    item = db.get_item("u", "s", "k")
    assert item is not None and item.value == {"v": 2} and not item.indexed and item.vectors == 2
    assert item.created_at.timestamp() == 1e9 and item.updated_at.timestamp() == 1e9 + 5
    assert [i.id for i in db.unindexed_items(10)] == ["it1"]
    assert db.delete_item("u", "s", "k") == ("it1", 2) and db.delete_item("u", "s", "k") is None


def test_scopes_round_trip() -> None:
    for scope in [(), ("a",), ("a", "b c", "ü")]:
        assert split_scope(join_scope(scope)) == scope


# -- the adapter over real SQLite and Chroma ---------------------------------------------------------------------------
@pytest.fixture()
def engine(tmp_path: Path) -> Iterator[NovaStore]:
    s = NovaStore(tmp_path / "mem", embeddings=HashedBagOfWords())
    yield s
    s.close()


def test_a_failed_vector_write_keeps_the_item_and_recover_indexes_it(
    engine: NovaStore, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    store = NovaLangGraphStore(engine)

    def fail(*args: Any, **kwargs: Any) -> None:
        raise StorageError("chroma is down")

    monkeypatch.setattr(VectorIndex, "upsert", fail)
    store.put(("alice", "notes"), "k", {"text": "green tea in the morning"})
    assert "writing the vectors" in caplog.text
    hit = store.search(("alice",), query="green tea")
    assert [h.key for h in hit] == ["k"] and hit[0].score == pytest.approx(0.5)  # keywords alone: w * 1
    monkeypatch.undo()
    assert caplog.text.count("writing the vectors") == 1  # logged once, not retried within the same put
    assert store.recover() == 1
    assert store.search(("alice",), query="green tea")[0].score > 0.5  # now with its dense similarity
    assert item_index(engine.components.vectors).get_user_ids(ITEM_KIND, "alice") == [
        f"{engine.components.db.get_item('alice', 'notes', 'k').id}:0"
    ]  # type: ignore[union-attr]


def test_forget_erases_items_and_their_collection(engine: NovaStore) -> None:
    store = NovaLangGraphStore(engine, index_fields=["text"])
    store.put(("alice", "notes"), "k", {"text": "a secret"})
    store.put(("bob", "notes"), "k", {"text": "bob's"})
    index = item_index(engine.components.vectors)
    assert index.collection(ITEM_KIND, "alice") is not None
    assert engine.forget("alice")["items"] == 1
    index = item_index(engine.components.vectors)  # a fresh handle cache (the adapter's own recovers by itself)
    assert index.collection(ITEM_KIND, "alice") is None and store.get(("alice", "notes"), "k") is None
    assert store.get(("bob", "notes"), "k") is not None and index.get_user_ids(ITEM_KIND, "bob")
    store.put(("alice", "notes"), "k", {"text": "after"})  # a new item after forget is indexed again
    assert store.search(("alice",), query="after")[0].score == pytest.approx(1.0, abs=1e-3)


def test_updates_and_deletes_replace_the_items_vectors(engine: NovaStore) -> None:
    store = NovaLangGraphStore(engine, index_fields=["parts[*]"])
    index = item_index(engine.components.vectors)
    store.put(("u",), "k", {"parts": ["one", "two", "three"]})
    item_id = engine.components.db.get_item("u", "", "k").id  # type: ignore[union-attr]
    assert sorted(index.get_user_ids(ITEM_KIND, "u")) == [f"{item_id}:0", f"{item_id}:1", f"{item_id}:2"]
    store.put(("u",), "k", {"parts": ["four"]})
    assert index.get_user_ids(ITEM_KIND, "u") == [f"{item_id}:0"]
    store.put(("u",), "k", {"parts": ["five"]}, index=False)
    assert index.get_user_ids(ITEM_KIND, "u") == []
    store.batch(
        [PutOp(("u",), "k2", {"parts": ["x"]}), PutOp(("u",), "k2", {"parts": ["y"]}), PutOp(("u",), "k", None)]
    )
    assert store.get(("u",), "k2").value == {"parts": ["y"]}  # type: ignore[union-attr]  # the last put wins
    assert store.get(("u",), "k") is None and len(index.get_user_ids(ITEM_KIND, "u")) == 1


def test_reads_in_a_batch_see_the_store_before_its_writes(engine: NovaStore) -> None:
    store = NovaLangGraphStore(engine, user_id="alice")
    results = store.batch([PutOp(("n",), "k", {"v": 1}), GetOp(("n",), "k"), SearchOp(("n",))])
    assert results == [None, None, []] and store.get(("n",), "k") is not None


def test_a_new_embedding_model_rebuilds_the_items_index_when_configured(tmp_path: Path) -> None:
    with NovaStore(tmp_path / "m", embeddings=HashedBagOfWords()) as first:
        NovaLangGraphStore(first, index_fields=["text"]).put(("u",), "k", {"text": "tea"})

    class Other(HashedBagOfWords):
        model = "hashed-bow-other"

    config = NovaConfig.model_validate({"embeddings": {"on_model_change": "reindex"}})
    with NovaStore(tmp_path / "m", embeddings=Other(), config=config) as second:
        store = NovaLangGraphStore(second, index_fields=["text"])
        assert second.components.db.get_meta("items_embedding_space").endswith("hashed-bow-other")  # type: ignore[union-attr]
        assert store.search(("u",), query="tea")[0].score == pytest.approx(1.0, abs=1e-3)


def test_construction_and_a_closed_store(engine: NovaStore) -> None:
    for bad in ({"user_id": ""}, {"user_position": -1}, {"index_fields": []}, {"keyword_weight": 2}):
        with pytest.raises(InvalidInputError):
            NovaLangGraphStore(engine, **bad)
    with pytest.raises(InvalidInputError):
        NovaLangGraphStore(object())  # type: ignore[arg-type]
    store = NovaLangGraphStore(engine, user_id="alice", user_position=1)
    assert (store.user_id, store.user_position, store.index_fields, store.supports_ttl) == ("alice", 1, ("$",), False)
    with pytest.raises(NotImplementedError):
        store.put(("m", "alice"), "k", {"v": 1}, ttl=1.0)
    engine.close()
    with pytest.raises(StoreClosedError):
        store.get(("m", "alice"), "k")
