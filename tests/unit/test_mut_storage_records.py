"""Bookkeeping queries at the storage level against a real SQLite file (kills the mutants of
``storage/records.py``): the indexing flags, counts, dead letters, conflicts, entities and
per-user statistics, with a second user whose rows stay out."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode, Fact, FactDecision, Rule

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def ep(eid: str, user: str = "alice", role: str = "user") -> Episode:
    return Episode(id=eid, user_id=user, role=role, content=f"turn {eid}", timestamp=T0, ingested_at=T0)


def fact(fid: str, user: str = "alice", **kw: Any) -> Fact:
    return Fact(id=fid, lineage_id=fid, user_id=user, subject="user", predicate="likes", object="tea",
                confidence=0.5, valid_from=T0, ingested_at=T0, **kw)


def rule(rid: str, user: str = "alice") -> Rule:
    return Rule(id=rid, user_id=user, condition=f"when {rid}", action="act", confidence=0.5, created_at=T0)


def conflict(cid: str, user: str = "alice", status: str = "flagged") -> dict[str, Any]:
    return {"id": cid, "user_id": user, "kind": "single_valued", "subject": "user", "predicate": "lives_in",
            "existing_fact_id": "f1", "existing_object": "lisbon", "new_predicate": "lives_in",
            "new_object": "porto", "new_fact_id": "f2", "strategy": "recency", "winner": "new", "status": status,
            "reason": "moved", "episode_ids": '["ep1"]', "detected_at": 1.0}


@pytest.fixture()
def rows(db: SQLiteStore) -> SQLiteStore:
    """alice: episodes a1, a2, fact fa, rule ra; bob: episode b1, fact fb, rule rb (nothing indexed)."""
    db.insert_episodes([ep("a1"), ep("b1", "bob"), ep("a2")])
    db.insert_fact(fact("fa"), "tea", 0.0)
    db.insert_fact(fact("fb", "bob"), "tea", 0.0)
    db.insert_rule(rule("ra"))
    db.insert_rule(rule("rb", "bob"))
    return db


# -- indexing flags ---------------------------------------------------------------------------------


def test_unindexed_ids_are_id_and_owner_oldest_first(rows: SQLiteStore) -> None:
    assert rows.unindexed_ids("episodes") == [("a1", "alice"), ("b1", "bob"), ("a2", "alice")]


@pytest.mark.parametrize("table", ["episodes", "facts", "rules"])
def test_unindexed_ids_of_each_indexed_table(rows: SQLiteStore, table: str) -> None:
    assert len(rows.unindexed_ids(table)) == {"episodes": 3, "facts": 2, "rules": 2}[table]


def test_mark_indexed_takes_rows_out_of_the_backlog(rows: SQLiteStore) -> None:
    rows.mark_indexed("episodes", ["a1", "a2"])
    assert rows.unindexed_ids("episodes") == [("b1", "bob")]


def test_mark_indexed_with_zero_puts_rows_back(rows: SQLiteStore) -> None:
    rows.mark_indexed("episodes", ["a1", "a2", "b1"])
    rows.mark_indexed("episodes", ["a2"], 0)
    assert rows.unindexed_ids("episodes") == [("a2", "alice")]


@pytest.mark.parametrize("table", ["episodes", "facts", "rules"])
def test_reset_indexed_puts_every_row_back(rows: SQLiteStore, table: str) -> None:
    ids = [i for i, _ in rows.unindexed_ids(table)]
    rows.mark_indexed(table, ids)
    rows.reset_indexed()
    assert [i for i, _ in rows.unindexed_ids(table)] == ids


def test_unindexed_rows_oldest_first_up_to_a_limit(rows: SQLiteStore) -> None:
    assert [r["id"] for r in rows.unindexed("episodes", 2)] == ["a1", "b1"]


@pytest.mark.parametrize(("table", "expected"), [("facts", ["fa", "fb"]), ("rules", ["ra", "rb"])])
def test_unindexed_rows_of_facts_and_rules(rows: SQLiteStore, table: str, expected: list[str]) -> None:
    assert [r["id"] for r in rows.unindexed(table, 10)] == expected


def test_rows_by_id_of_any_user(rows: SQLiteStore) -> None:
    assert sorted(r["id"] for r in rows.rows_by_id("facts", ["fa", "fb", "nope"])) == ["fa", "fb"]


def test_rows_by_id_of_many_ids(db: SQLiteStore) -> None:
    db.insert_episodes([ep(f"e{i}") for i in range(1001)])
    assert len(db.rows_by_id("episodes", [f"e{i}" for i in range(1001)])) == 1001


@pytest.mark.parametrize("call", [
    lambda db: db.unindexed_ids("meta"),
    lambda db: db.unindexed("meta", 1),
    lambda db: db.rows_by_id("meta", ["x"]),
    lambda db: db.mark_indexed("meta", ["x"]),
    lambda db: db.count("meta"),
])
def test_table_names_outside_the_allowed_set_are_refused(db: SQLiteStore, call: Any) -> None:
    with pytest.raises(ValueError, match="meta"):
        call(db)


# -- count -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("table", "expected"), [("episodes", 3), ("facts", 2), ("rules", 2)])
def test_count_of_every_user(rows: SQLiteStore, table: str, expected: int) -> None:
    assert rows.count(table) == expected


@pytest.mark.parametrize(("table", "expected"), [("episodes", 2), ("facts", 1), ("rules", 1)])
def test_count_of_one_user(rows: SQLiteStore, table: str, expected: int) -> None:
    assert rows.count(table, "alice") == expected


def test_count_of_fact_events(db: SQLiteStore) -> None:
    db.record_decision("alice", FactDecision(op="ADD", subject="s", predicate="p", object="o", reason="r"), 1.0)
    assert db.count("fact_events", "alice") == 1


def test_count_of_dead_letters(db: SQLiteStore) -> None:
    db.add_dead_letter("dl1", "alice", ["a1"], "boom", 1.0)
    assert db.count("dead_letters") == 1


# -- dead letters ----------------------------------------------------------------------------------------


def test_a_dead_letter_survives_a_round_trip(db: SQLiteStore) -> None:
    db.add_dead_letter("dl1", "alice", ["a1", "a2"], "boom", 1.0)
    assert db.dead_letters("alice") == [{
        "id": "dl1", "user_id": "alice", "episode_ids": ["a1", "a2"], "error": "boom", "attempts": 1,
        "created_at": datetime.fromtimestamp(1.0, timezone.utc), "updated_at": datetime.fromtimestamp(1.0, timezone.utc),
    }]


def test_a_failing_retry_counts_an_attempt_and_keeps_the_creation_time(db: SQLiteStore) -> None:
    db.add_dead_letter("dl1", "alice", ["a1"], "boom", 1.0)
    db.add_dead_letter("dl1", "alice", ["a1"], "bang", 5.0)
    letter = db.dead_letters("alice")[0]
    assert (letter["attempts"], letter["error"], letter["created_at"].timestamp(), letter["updated_at"].timestamp()) \
        == (2, "bang", 1.0, 5.0)


def test_dead_letters_of_everyone_oldest_first(db: SQLiteStore) -> None:
    db.add_dead_letter("dl2", "bob", ["b1"], "boom", 2.0)
    db.add_dead_letter("dl1", "alice", ["a1"], "boom", 1.0)
    assert [d["id"] for d in db.dead_letters()] == ["dl1", "dl2"]


def test_dead_letters_of_one_user(db: SQLiteStore) -> None:
    db.add_dead_letter("dl2", "bob", ["b1"], "boom", 2.0)
    db.add_dead_letter("dl1", "alice", ["a1"], "boom", 1.0)
    assert [d["id"] for d in db.dead_letters("bob")] == ["dl2"]


def test_remove_dead_letter(db: SQLiteStore) -> None:
    db.add_dead_letter("dl1", "alice", ["a1"], "boom", 1.0)
    db.remove_dead_letter("alice", "dl1")
    assert db.dead_letters() == []


def test_remove_dead_letter_of_another_user_does_nothing(db: SQLiteStore) -> None:
    db.add_dead_letter("dl1", "alice", ["a1"], "boom", 1.0)
    db.remove_dead_letter("bob", "dl1")
    assert [d["id"] for d in db.dead_letters()] == ["dl1"]


def test_set_dead_letter_attempts(db: SQLiteStore) -> None:
    db.add_dead_letter("dl1", "alice", ["a1"], "boom", 1.0)
    db.set_dead_letter_attempts("alice", "dl1", 7)
    assert db.dead_letters("alice")[0]["attempts"] == 7


# -- conflicts ---------------------------------------------------------------------------------------------


def test_a_conflict_survives_a_round_trip(db: SQLiteStore) -> None:
    db.insert_conflict(conflict("c1"))
    row = db.list_conflicts("alice", flagged_only=False, limit=10)[0]
    assert {k: row[k] for k in conflict("c1")} == conflict("c1")


def test_conflicts_newest_first_up_to_a_limit(db: SQLiteStore) -> None:
    for n in range(3):
        db.insert_conflict(conflict(f"c{n}"))
    assert [r["id"] for r in db.list_conflicts("alice", flagged_only=False, limit=2)] == ["c2", "c1"]


def test_flagged_conflicts_only(db: SQLiteStore) -> None:
    db.insert_conflict(conflict("c1", status="resolved"))
    db.insert_conflict(conflict("c2"))
    assert [r["id"] for r in db.list_conflicts("alice", flagged_only=True, limit=10)] == ["c2"]


def test_all_conflicts_include_resolved_ones(db: SQLiteStore) -> None:
    db.insert_conflict(conflict("c1", status="resolved"))
    db.insert_conflict(conflict("c2"))
    assert [r["id"] for r in db.list_conflicts("alice", flagged_only=False, limit=10)] == ["c2", "c1"]


def test_conflicts_of_another_user_are_hidden(db: SQLiteStore) -> None:
    db.insert_conflict(conflict("c1", "bob"))
    assert db.list_conflicts("alice", flagged_only=False, limit=10) == []


# -- entities ---------------------------------------------------------------------------------------------


def test_insert_entity_returns_its_id_and_name(db: SQLiteStore) -> None:
    assert db.insert_entity("en1", "alice", "Lisbon", "lisbon", "k", 1.0) == ("en1", "Lisbon")


def test_insert_entity_returns_the_existing_one(db: SQLiteStore) -> None:
    db.insert_entity("en1", "alice", "Lisbon", "lisbon", "k", 1.0)
    assert db.insert_entity("en2", "alice", "LISBON", "lisbon", "k", 2.0) == ("en1", "Lisbon")


def test_entity_rows_oldest_first(db: SQLiteStore) -> None:
    db.insert_entity("en2", "alice", "Porto", "porto", "k", 2.0)
    db.insert_entity("en1", "alice", "Lisbon", "lisbon", "k", 1.0)
    assert [r["id"] for r in db.entity_rows("alice")] == ["en1", "en2"]


def test_alias_rows(db: SQLiteStore) -> None:
    db.insert_alias("alice", "lisboa", "en1", "manual", 1.0, 2.0)
    assert [tuple(r) for r in db.alias_rows("alice")] == [("lisboa", "en1")]


def test_a_known_alias_is_kept(db: SQLiteStore) -> None:
    db.insert_alias("alice", "lisboa", "en1", "manual", 1.0, 2.0)
    db.insert_alias("alice", "lisboa", "en2", "manual", 1.0, 3.0)
    assert [tuple(r) for r in db.alias_rows("alice")] == [("lisboa", "en1")]



@pytest.fixture()
def two_entities(db: SQLiteStore) -> SQLiteStore:
    for user in ("alice", "bob"):
        db.insert_entity(f"{user}-porto", user, "Porto", "porto", "k", 1.0)
        db.insert_entity(f"{user}-oporto", user, "Oporto", "oporto", "k", 1.0)
        db.insert_alias(user, "oporto", f"{user}-oporto", "new", 1.0, 1.0)
        db.insert_alias(user, "o porto", f"{user}-oporto", "manual", 1.0, 2.0)
    return db


def test_reassign_entity_counts_the_moved_aliases(two_entities: SQLiteStore) -> None:
    assert two_entities.reassign_entity("alice", "alice-oporto", "alice-porto") == 2


def test_reassign_entity_points_the_aliases_at_the_target(two_entities: SQLiteStore) -> None:
    two_entities.reassign_entity("alice", "alice-oporto", "alice-porto")
    assert {r["entity_id"] for r in two_entities.alias_rows("alice")} == {"alice-porto"}


def test_reassign_entity_removes_the_source(two_entities: SQLiteStore) -> None:
    two_entities.reassign_entity("alice", "alice-oporto", "alice-porto")
    assert [r["id"] for r in two_entities.entity_rows("alice")] == ["alice-porto"]


def test_reassign_entity_leaves_another_users_aliases(two_entities: SQLiteStore) -> None:
    two_entities.reassign_entity("alice", "alice-oporto", "alice-porto")
    assert {r["entity_id"] for r in two_entities.alias_rows("bob")} == {"bob-oporto"}


def test_reassign_entity_leaves_another_users_entities(two_entities: SQLiteStore) -> None:
    two_entities.reassign_entity("alice", "bob-oporto", "alice-porto")
    assert len(two_entities.entity_rows("bob")) == 2


# -- statistics --------------------------------------------------------------------------------------------


@pytest.fixture()
def stats(rows: SQLiteStore) -> SQLiteStore:
    rows.insert_episodes([ep("t1", role="tombstone"), ep("s1", role="summary"), ep("s2", role="summary")])
    rows.mark_processed("alice", ["a1", "t1", "s1", "s2"])
    rows.insert_fact(fact("fx", expired_at=T0), "tea", 0.0)
    rows.insert_fact(fact("fy", valid_to=T0), "tea", 0.0)
    rows.record_decision("alice", FactDecision(op="ADD", subject="s", predicate="p", object="o", reason="r"), 1.0)
    rows.add_dead_letter("dl1", "alice", ["a2"], "boom", 1.0)
    return rows


def test_counts_of_a_user(stats: SQLiteStore) -> None:
    assert stats.counts_by_user("alice") == {"alice": {
        "episodes": 5, "unconsolidated": 1, "tombstones": 1, "summaries": 2, "facts_current": 1,
        "fact_versions": 3, "fact_events": 1, "rules": 1, "dead_letters": 1,
    }}


def test_counts_of_everyone(stats: SQLiteStore) -> None:
    assert stats.counts_by_user()["bob"] == {
        "episodes": 1, "unconsolidated": 1, "tombstones": 0, "summaries": 0, "facts_current": 1,
        "fact_versions": 1, "fact_events": 0, "rules": 1, "dead_letters": 0,
    }


# -- meta ---------------------------------------------------------------------------------------------------


def test_meta_unset_is_none(db: SQLiteStore) -> None:
    assert db.get_meta("nope") is None


def test_meta_round_trip(db: SQLiteStore) -> None:
    db.set_meta("k", "v1")
    assert db.get_meta("k") == "v1"


def test_meta_overwrite(db: SQLiteStore) -> None:
    db.set_meta("k", "v1")
    db.set_meta("k", "v2")
    assert db.get_meta("k") == "v2"
