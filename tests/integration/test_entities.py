"""Entity resolution: canonical entities with aliases, on the real store (SQLite, Chroma, MiniLM)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.memory.entities import entity_key
from nova_memory_integrations.memory.temporal import normalize_value

pytestmark = pytest.mark.both_backends  # the store fixtures run on SQLite and on Postgres (conftest)

T0 = datetime(2024, 2, 1, tzinfo=timezone.utc)




def test_rust_variants_resolve_to_one_entity(store: NovaStore) -> None:
    first = store.components.entities.resolve("u", "Rust")
    assert first is not None and first.method == "new"
    methods = {}
    for name in ("rust", "RUST!", "rust-lang", "the Rust language", "Rust"):
        got = store.components.entities.resolve("u", name)
        assert got is not None and got.entity_id == first.entity_id and got.canonical == "Rust"
        methods[name] = got.method
    assert methods == {"rust": "normalised", "RUST!": "normalised", "rust-lang": "key",
                       "the Rust language": "key", "Rust": "exact"}
    (entity,) = store.components.entities.list_entities("u")
    assert set(entity.aliases) == {"rust", "rust-lang", "rust language"}
    # the alias table answers next time
    assert store.components.entities.resolve("u", "rust-lang").method == "alias"  # type: ignore[union-attr]




def test_fuzzy_merge_records_the_evidence(store: NovaStore, separate: Any) -> None:
    store.components.entities.resolve("u", "Microsoft")
    got = store.components.entities.resolve("u", "Microsft")
    assert got is not None and got.method == "fuzzy" and got.canonical == "Microsoft" and 0.9 <= got.score < 1
    assert store.components.entities.resolve("u", "Paris").canonical == "Paris"  # type: ignore[union-attr]
    assert store.components.entities.resolve("u", "Parish").canonical == "Parish"  # type: ignore[union-attr]
    rows = separate(store).execute("SELECT alias, method FROM entity_aliases WHERE user_id = 'u' AND method = 'fuzzy'")
    assert rows == [("microsft", "fuzzy")]


def test_facts_use_canonical_entities_and_the_graph_has_one_node(store: NovaStore) -> None:
    first = store.add_fact("u", "user", "likes", "Rust", valid_from=T0)
    again = store.add_fact("u", "user", "likes", "the Rust language", valid_from=T0)
    assert first.op == "ADD" and again.op == "NOOP" and again.fact_id == first.fact_id
    store.add_fact("u", "rust-lang", "created_by", "Mozilla", valid_from=T0)
    (fact,) = store.facts("u", predicate="likes")
    assert fact.object == "Rust" and fact.occurrence_count == 2
    nodes = set(store.components.graph.graph("u").nodes)
    assert nodes == {"user", "rust", "mozilla"}
    assert {f.object for f in store.traverse("u", "user", max_hops=2)} == {"Rust", "Mozilla"}


def test_never_two_entities_with_the_same_normalised_name(store: NovaStore, separate: Any) -> None:
    for name in ("New York", "new york", "NEW YORK.", "the New York", "New  York"):
        store.add_fact("u", "user", "visited", name, valid_from=T0)
    norms = [normalize_value(e.name) for e in store.components.entities.list_entities("u")]
    assert len(norms) == len(set(norms)) and norms.count("new york") == 1
    con = separate(store)
    with pytest.raises(con.integrity_error):
        con.execute("INSERT INTO entities (id, user_id, name, norm, key, created_at)"
                    " VALUES ('x', 'u', 'New York', 'new york', 'new york', 0)")


def test_values_are_not_entities(store: NovaStore) -> None:
    store.add_fact("u", "user", "age", "34", valid_from=T0)
    store.add_fact("u", "user", "has_children", "2", valid_from=T0)
    names = {e.name for e in store.components.entities.list_entities("u")}
    assert names == {"user"}


def test_declared_alias_and_tenancy(store: NovaStore) -> None:
    store.components.entities.add_alias("u", "Bob Smith", "Bobby")
    store.add_fact("u", "Bobby", "works_at", "Globex", valid_from=T0)
    assert [f.subject for f in store.facts("u", predicate="works_at")] == ["bob smith"]
    with pytest.raises(ValueError, match="already names"):
        store.components.entities.add_alias("u", "Globex", "bobby")
    assert store.components.entities.resolve("other", "Bobby").canonical == "Bobby"  # type: ignore[union-attr]
    assert store.components.entities.canonical("u", "bobby") == "Bob Smith"
    store.forget("u")
    assert store.components.entities.list_entities("u") == [] and store.components.entities.canonical("u", "bobby") == "bobby"
    assert [e.name for e in store.components.entities.list_entities("other")] == ["Bobby"]


def test_consolidated_facts_are_resolved(store: NovaStore) -> None:
    store.add_turn("v", "user", "I work at Acme Inc.", timestamp=T0)
    store.add_turn("v", "user", "I really love working at Acme.", timestamp=T0)
    store.consolidate("v")
    store.add_fact("v", "user", "works_at", "acme", valid_from=T0)
    (works,) = store.facts("v", predicate="works_at")
    assert works.object == "Acme Inc" and works.occurrence_count == 2  # "acme" resolved by key
    acme = [e for e in store.components.entities.list_entities("v") if e.key == "acme"]
    assert len(acme) == 1 and "acme" in acme[0].aliases


def test_concurrent_resolution_never_deadlocks_nor_duplicates(store: NovaStore) -> None:
    import threading

    errors: list[BaseException] = []

    def writer(n: int) -> None:
        try:
            for i in range(25):
                store.add_fact("w", "user", "likes", ["Rust", "rust-lang", "the Rust language"][(i + n) % 3],
                               valid_from=T0)
                store.components.entities.alias_map("w")
                store.components.entities.resolve("w", f"Topic {i % 5}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for i in range(10):
        store.add_turn("w", "user", f"I love topic {i % 5}.", timestamp=T0)
        store.consolidate("w")
    for t in threads:
        t.join(timeout=60)
    assert not errors and not any(t.is_alive() for t in threads)
    norms = [normalize_value(e.name) for e in store.components.entities.list_entities("w")]
    assert len(norms) == len(set(norms)) and sum(entity_key(n) == "rust" for n in norms) == 1
    (rust,) = [f for f in store.facts("w", predicate="likes") if f.object == "Rust"]
    assert rust.occurrence_count == 100


def test_reads_resolve_aliases_to_the_canonical_entity(store: NovaStore) -> None:
    store.add_fact("u", "user", "learning", "Rust", valid_from=T0)
    store.add_fact("u", "rust-lang", "created_by", "Mozilla", valid_from=T0)
    for alias in ("rust-lang", "the Rust language", "Rust"):
        assert [f.object for f in store.facts("u", subject=alias)] == ["Mozilla"]
        assert {f.object for f in store.traverse("u", alias, max_hops=1)} == {"Mozilla", "Rust"}
    assert store.facts("other-user", subject="rust-lang") == []


def test_a_named_relative_answers_to_the_relation(store: NovaStore) -> None:
    """ "my sister Jo": "sister" becomes an alias of Jo, so a later "my sister" (even from a new extractor,
    after a restart) is Jo; a relation with facts of its own before the name, or one name given to two
    relations, is left alone."""
    entities = store.components.entities
    store.add_fact("u", "user", "sister_name", "Jo", valid_from=T0)
    store.add_fact("u", "sister", "lives_in", "York", valid_from=T0)
    assert entities.canonical("u", "sister") == "Jo"
    assert {(f.subject, f.object) for f in store.facts("u", predicate="lives_in")} == {("jo", "York")}
    # facts about "my uncle" before he was named keep their own entity
    store.add_fact("u", "uncle", "lives_in", "Leeds", valid_from=T0)
    store.add_fact("u", "user", "uncle_name", "Raj", valid_from=T0)
    assert entities.canonical("u", "uncle") == "uncle"
    # two relations with one name: the second is not made an alias of the first one's person
    store.add_fact("u", "user", "boyfriend_name", "Sam", valid_from=T0)
    store.add_fact("u", "user", "cousin_name", "Sam", valid_from=T0)
    assert entities.canonical("u", "boyfriend") == "Sam"
    assert entities.canonical("u", "cousin") == "cousin"
    # a name that is not a relation's ("name", "pet_name") makes no alias
    store.add_fact("u", "user", "name", "Ola", valid_from=T0)
    assert entities.canonical("u", "name") == "name"


def test_a_relative_is_found_by_each_word_for_them(store: NovaStore) -> None:
    """"mom" (as the rules spell a mother) is found as "mum" and "mother" too, and a grandmother by each word
    for her, never as the mother (issue #38)."""
    nan = store.components.entities.resolve("u", "nan")
    mom = store.components.entities.resolve("u", "mom")
    assert mom is not None and mom.method == "new"
    for word in ("mum", "mother", "Mum"):
        got = store.components.entities.resolve("u", word, create=False)
        assert got is not None and got.entity_id == mom.entity_id
    gran = store.components.entities.resolve("u", "grandma", create=False)
    assert nan is not None and gran is not None and gran.entity_id == nan.entity_id != mom.entity_id
    assert store.components.entities.resolve("other", "mum", create=False) is None  # per user
