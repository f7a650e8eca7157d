"""Deletion at the storage level against a real SQLite file (kills the mutants of
``storage/sqlite.py``): ``delete_user`` and ``delete_ids`` remove exactly the user's rows and
the history derived from them, never another user's, and leave nothing readable in the files."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode, Fact, FactDecision, PinnedBlock, Rule

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
USERS = ("alice", "bob")


def ep(eid: str, user: str, text: str = "a turn") -> Episode:
    return Episode(id=eid, user_id=user, role="user", content=text, timestamp=T0, ingested_at=T0)


def fact(fid: str, user: str, lineage: str, obj: str = "tea", subject: str = "user") -> Fact:
    return Fact(id=fid, lineage_id=lineage, user_id=user, subject=subject, predicate="likes", object=obj,
                confidence=0.5, valid_from=T0, ingested_at=T0)


def decision(fact_id: str | None, replaced: str | None = None) -> FactDecision:
    return FactDecision(op="ADD", subject="user", predicate="likes", object="tea", reason="r", fact_id=fact_id,
                        replaced_fact_id=replaced)


def conflict(cid: str, user: str, existing: str | None, new: str | None) -> dict[str, Any]:
    return {"id": cid, "user_id": user, "kind": "k", "subject": "user", "predicate": "likes",
            "existing_fact_id": existing, "existing_object": "tea", "new_predicate": "likes",
            "new_object": "coffee", "new_fact_id": new, "strategy": "s", "winner": "w", "status": "flagged",
            "reason": "r", "episode_ids": "[]", "detected_at": 1.0}


@pytest.fixture()
def db(tmp_path: Path) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "memory.sqlite3")
    for u in USERS:
        p = u[0]  # "a" / "b": ids are unique across users, as in real stores
        store.insert_episodes([ep(f"{p}e1", u), ep(f"{p}e2", u), ep(f"{p}e3", u)])
        store.insert_fact(fact(f"{p}f1", u, f"{p}l1"), "tea", 0.0)          # lineage l1: f1, f2
        store.insert_fact(fact(f"{p}f2", u, f"{p}l1"), "tea", 0.0)
        store.insert_fact(fact(f"{p}f3", u, f"{p}l3", obj="lisbon"), "lisbon", 0.0)
        store.insert_rule(Rule(id=f"{p}r1", user_id=u, condition="c", action="a", confidence=0.5, created_at=T0))
        store.insert_rule(Rule(id=f"{p}r2", user_id=u, condition="c", action="a", confidence=0.5, created_at=T0))
        store.record_decision(u, decision(f"{p}f1"), 1.0)
        store.record_decision(u, decision(f"{p}f3", replaced=f"{p}f2"), 2.0)
        store.record_decision(u, decision(f"{p}f3"), 3.0)
        store.insert_conflict(conflict(f"{p}c1", u, f"{p}f1", None))
        store.insert_conflict(conflict(f"{p}c2", u, None, f"{p}f2"))
        store.insert_conflict(conflict(f"{p}c3", u, f"{p}f3", f"{p}f3"))
        store.insert_entity(f"{p}n1", u, "Tea", "tea", "tea", 1.0)
        store.insert_entity(f"{p}n2", u, "Lisbon", "lisbon", "lisbon", 1.0)
        store.insert_entity(f"{p}n3", u, "User", "user", "user", 1.0)
        store.insert_alias(u, "chai", f"{p}n1", "m", 1.0, 1.0)
        store.insert_alias(u, "lisboa", f"{p}n2", "m", 1.0, 1.0)
        store.add_dead_letter(f"{p}d1", u, [f"{p}e1"], "boom", 1.0)
        store.add_dead_letter(f"{p}d2", u, [f"{p}e1", f"{p}e2"], "boom", 1.0)
        store.add_dead_letter(f"{p}d3", u, [f"{p}e3"], "boom", 1.0)
    yield store
    store.close()


def episode_ids(db: SQLiteStore, user: str) -> list[str]:
    return [e.id for e in db.list_episodes(user)]


def fact_ids(db: SQLiteStore, user: str) -> list[str]:
    return [f.id for f in db.select_facts(user, all_versions=True)]


# -- delete_user -------------------------------------------------------------------------------------------


def test_delete_user_counts_rows_per_table(db: SQLiteStore) -> None:
    assert db.delete_user("alice") == {"episodes": 3, "facts": 3, "fact_events": 3, "rules": 2, "dead_letters": 3,
                                       "entities": 3, "entity_aliases": 2, "conflicts": 3, "pinned_blocks": 0,
                                       "refused_facts": 0}


def test_delete_user_erases_the_users_pinned_blocks_and_their_history(db: SQLiteStore) -> None:
    at = datetime(2024, 1, 1, tzinfo=timezone.utc)
    for user, text in (("alice", "v1"), ("alice", "v2"), ("bob", "b1")):
        db.write_block(PinnedBlock(id=f"pb_{user}_{text}", user_id=user, name="human", content=text, limit=10,
                                   valid_from=at, ingested_at=at), at.timestamp())
    assert db.delete_user("alice")["pinned_blocks"] == 2
    assert db.pinned_blocks("alice", history=True) == []
    assert [b.content for b in db.pinned_blocks("bob", history=True)] == ["b1"]


def test_delete_user_leaves_the_other_user_whole(db: SQLiteStore) -> None:
    db.delete_user("alice")
    assert db.counts_by_user() == {"bob": {
        "episodes": 3, "unconsolidated": 3, "tombstones": 0, "summaries": 0, "facts_current": 3,
        "fact_versions": 3, "fact_events": 3, "rules": 2, "dead_letters": 3}}


def test_delete_user_twice_removes_nothing_more(db: SQLiteStore) -> None:
    db.delete_user("alice")
    assert set(db.delete_user("alice").values()) == {0}


def test_deleted_text_is_not_left_in_the_files(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.sqlite3")
    secret = "zanzibarquokkasecret"
    store.insert_episodes([ep(f"e{i}", "alice", f"{secret} number {i}") for i in range(50)])
    store.delete_user("alice")
    leftovers = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    store.close()
    assert secret.encode() not in leftovers


def test_a_deleted_user_id_is_not_left_in_the_files(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.sqlite3")
    gone = "zebra-user-7731"
    for user in (gone, "okapi-user-4410"):  # enough turns for an index of several pages
        store.insert_episodes([ep(f"ep_{user[:5]}{i}", user, f"text {i}") for i in range(1103)])
    store.delete_user(gone)
    leftovers = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    store.close()
    assert gone.encode() not in leftovers


def test_deleted_ids_are_not_left_in_the_files(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.sqlite3")
    secret = "zanzibarquokkasecret"
    store.insert_episodes([ep(f"e{i}", "alice", f"{secret} number {i}") for i in range(50)])
    store.delete_ids("alice", [f"e{i}" for i in range(50)])
    leftovers = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.is_file())
    store.close()
    assert secret.encode() not in leftovers


# -- delete_ids: what is removed ---------------------------------------------------------------------------


def test_delete_ids_reports_what_was_removed(db: SQLiteStore) -> None:
    assert db.delete_ids("alice", ["ae1", "af1", "ar1", "nope"]) == {
        "episodes": ["ae1"], "facts": ["af1", "af2"], "rules": ["ar1"]}


def test_delete_ids_removes_the_episodes(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["ae1", "ae3"])
    assert episode_ids(db, "alice") == ["ae2"]


def test_delete_ids_removes_a_facts_whole_lineage(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af2"])
    assert fact_ids(db, "alice") == ["af3"]


def test_delete_ids_by_lineage_id(db: SQLiteStore) -> None:
    assert db.delete_ids("alice", ["al1"])["facts"] == ["af1", "af2"]


def test_delete_ids_removes_the_rules(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["ar2"])
    assert [r.id for r in db.list_rules("alice")] == ["ar1"]


def test_delete_ids_of_many_ids(db: SQLiteStore) -> None:
    db.insert_episodes([ep(f"x{i}", "alice") for i in range(1200)])
    assert len(db.delete_ids("alice", [f"x{i}" for i in range(1200)])["episodes"]) == 1200


def test_delete_ids_of_many_ids_removes_them_all(db: SQLiteStore) -> None:
    db.insert_episodes([ep(f"x{i}", "alice") for i in range(1200)])
    db.delete_ids("alice", [f"x{i}" for i in range(1200)])
    assert db.count("episodes", "alice") == 3


# -- delete_ids: other users -------------------------------------------------------------------------------


def test_delete_ids_never_reports_another_users_rows(db: SQLiteStore) -> None:
    assert db.delete_ids("alice", ["be1", "bf1", "bl3", "br1"]) == {"episodes": [], "facts": [], "rules": []}


def test_delete_ids_never_removes_another_users_rows(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["be1", "bf1", "bl3", "br1"])
    assert db.counts_by_user("bob")["bob"] == {
        "episodes": 3, "unconsolidated": 3, "tombstones": 0, "summaries": 0, "facts_current": 3,
        "fact_versions": 3, "fact_events": 3, "rules": 2, "dead_letters": 3}


def test_delete_ids_leaves_another_users_history(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af1", "af3", "ae1", "ae2", "ae3"])
    assert [len(db.list_conflicts("bob", flagged_only=False, limit=10)), len(db.entity_rows("bob")),
            len(db.alias_rows("bob")), len(db.decisions("bob"))] == [3, 3, 2, 3]


# -- delete_ids: history -----------------------------------------------------------------------------------


def test_deleting_a_fact_drops_its_decisions(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af1"])
    assert [d.fact_id for d in db.decisions("alice")] == ["af3"]


def test_deleting_a_replaced_fact_drops_the_decision_that_replaced_it(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af3"])
    assert [d.fact_id for d in db.decisions("alice")] == ["af1"]


def test_deleting_a_fact_drops_its_conflicts_on_either_side(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af1"])
    assert [r["id"] for r in db.list_conflicts("alice", flagged_only=False, limit=10)] == ["ac3"]


def test_deleting_facts_drops_entities_no_fact_mentions(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af3"])
    assert [r["id"] for r in db.entity_rows("alice")] == ["an1", "an3"]


def test_entities_named_only_as_a_subject_are_kept(db: SQLiteStore) -> None:
    db.insert_fact(fact("af9", "alice", "al9", obj="x", subject="lisbon"), "x", 0.0)
    db.delete_ids("alice", ["af3"])
    assert [r["id"] for r in db.entity_rows("alice")] == ["an1", "an2", "an3"]


def test_entities_named_only_as_an_object_are_kept(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af1"])
    assert [r["id"] for r in db.entity_rows("alice")] == ["an2", "an3"]


def test_deleting_episodes_only_keeps_every_entity(db: SQLiteStore) -> None:
    db.insert_entity("an9", "alice", "Orphan", "orphan", "orphan", 2.0)
    db.delete_ids("alice", ["ae1"])
    assert len(db.entity_rows("alice")) == 4


def test_deleting_facts_drops_aliases_of_dropped_entities(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af3"])
    assert [tuple(r) for r in db.alias_rows("alice")] == [("chai", "an1")]


def test_deleting_an_episode_drops_dead_letters_left_empty(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["ae1"])
    assert [d["id"] for d in db.dead_letters("alice")] == ["ad2", "ad3"]


def test_deleting_an_episode_shrinks_a_dead_letter(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["ae1"])
    assert db.dead_letters("alice")[0]["episode_ids"] == ["ae2"]


def test_deleting_an_episode_keeps_unrelated_dead_letters_unchanged(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["ae1"])
    assert db.dead_letters("alice")[1]["episode_ids"] == ["ae3"]


def test_deleting_facts_only_keeps_every_dead_letter(db: SQLiteStore) -> None:
    db.delete_ids("alice", ["af1"])
    assert len(db.dead_letters("alice")) == 3


def test_delete_ids_of_several_lineages(db: SQLiteStore) -> None:
    assert db.delete_ids("alice", ["af1", "af3"])["facts"] == ["af1", "af2", "af3"]


def test_delete_ids_reports_rows_from_every_chunk(db: SQLiteStore) -> None:
    ids = ["af1", "ar1", *[f"nope{i}" for i in range(498)], "af3", "ar2"]  # chunks of 500: af3, ar2 in the second
    removed = db.delete_ids("alice", ids)
    assert [removed["facts"], removed["rules"]] == [["af1", "af2", "af3"], ["ar1", "ar2"]]


# -- opening a store ------------------------------------------------------------------------------------------


def busy_timeout(store: SQLiteStore) -> int:
    return int(store.query("PRAGMA busy_timeout", [])[0][0])


def test_a_store_waits_10_s_for_a_lock_by_default(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.sqlite3")
    waits = busy_timeout(store)
    store.close()
    assert waits == 10_000


def test_a_store_waits_as_long_as_it_is_told_for_a_lock(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.sqlite3", busy_timeout_ms=250)
    waits = busy_timeout(store)
    store.close()
    assert waits == 250


def test_a_damaged_dead_letter_does_not_stop_the_next_one_shrinking(db: SQLiteStore) -> None:
    with db.transaction() as conn:  # ad1 damaged on disk: left as stored, and reads skip it
        conn.execute("UPDATE dead_letters SET episode_ids = ? WHERE id = ?", ("[not json", "ad1"))
    db.delete_ids("alice", ["ae1"])
    assert [d["episode_ids"] for d in db.dead_letters("alice")] == [["ae2"], ["ae3"]]
