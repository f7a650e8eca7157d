"""Fact queries at the storage level against a real SQLite file (kills the mutants of
``storage/fact_queries.py``): bi-temporal reads at their boundaries, reinforcement, contradiction
lookup, keyword search and the decision log, each with a second user kept out."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Fact, FactDecision, Rule

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
D = timedelta(days=1)
EARLY = (T0 - 10 * D).timestamp()


def fact(fid: str, user: str = "alice", subject: str = "user", predicate: str = "lives_in", obj: str = "lisbon", *,
         lineage: str | None = None, valid_from: datetime = T0, ingested: datetime = T0, **kw: object) -> Fact:
    return Fact(id=fid, lineage_id=lineage or fid, user_id=user, subject=subject, predicate=predicate, object=obj,
                confidence=0.7, valid_from=valid_from, ingested_at=ingested, **kw)  # type: ignore[arg-type]


def put(db: SQLiteStore, f: Fact, reinforced: float = 0.0) -> Fact:
    db.insert_fact(f, f.object.lower(), reinforced)
    return f


def ids(facts: list[Fact]) -> list[str]:
    return [f.id for f in facts]


# -- insert / expire / reinforce -------------------------------------------------------------------


def test_every_field_survives_a_round_trip(db: SQLiteStore) -> None:
    original = put(db, fact("f1", lineage="l1", valid_to=T0 + D, ingested=T0 + D, expired_at=T0 + 2 * D,
                            provenance=("ep1", "ep2"), occurrence_count=3, metadata={"k": "v"}))
    assert db.select_facts("alice", all_versions=True) == [original]


def test_insert_stores_the_normalised_object(db: SQLiteStore) -> None:
    db.insert_fact(fact("f1", obj="Lisbon"), "lisbon", 0.0)
    assert [r["id"] for r in db.contradicting_facts("alice", "user", EARLY, same_as=("lives_in", "lisbon"))] == ["f1"]


def test_expire_ends_the_belief(db: SQLiteStore) -> None:
    put(db, fact("f1"))
    db.expire_fact("alice", "f1", (T0 + D).timestamp())
    assert db.select_facts("alice", all_versions=True)[0].expired_at == T0 + D


def test_expire_keeps_the_first_end(db: SQLiteStore) -> None:
    put(db, fact("f1"))
    db.expire_fact("alice", "f1", (T0 + D).timestamp())
    db.expire_fact("alice", "f1", (T0 + 2 * D).timestamp())
    assert db.select_facts("alice", all_versions=True)[0].expired_at == T0 + D


def test_expire_cannot_touch_another_users_fact(db: SQLiteStore) -> None:
    put(db, fact("f1", "bob"))
    db.expire_fact("alice", "f1", (T0 + D).timestamp())
    assert ids(db.current_facts("bob")) == ["f1"]


def test_reinforce_counts_an_occurrence(db: SQLiteStore) -> None:
    put(db, fact("f1"))
    db.reinforce_fact("alice", "f1", 0.9, ["ep1", "ep2"], 5.0)
    assert db.current_facts("alice")[0].occurrence_count == 2


def test_reinforce_sets_the_confidence(db: SQLiteStore) -> None:
    put(db, fact("f1"))
    db.reinforce_fact("alice", "f1", 0.9, ["ep1", "ep2"], 5.0)
    assert db.current_facts("alice")[0].confidence == 0.9


def test_reinforce_sets_the_provenance(db: SQLiteStore) -> None:
    put(db, fact("f1"))
    db.reinforce_fact("alice", "f1", 0.9, ["ep1", "ep2"], 5.0)
    assert db.current_facts("alice")[0].provenance == ("ep1", "ep2")


def test_reinforce_sets_the_time(db: SQLiteStore) -> None:
    put(db, fact("f1"))
    db.reinforce_fact("alice", "f1", 0.9, ["ep1"], 5.0)
    assert db.fact_last_reinforced("alice", ["f1"]) == {"f1": 5.0}


def test_reinforce_cannot_touch_another_users_fact(db: SQLiteStore) -> None:
    put(db, fact("f1", "bob"))
    db.reinforce_fact("alice", "f1", 0.9, ["ep1"], 5.0)
    assert db.current_facts("bob")[0].occurrence_count == 1


def test_last_reinforced_of_no_ids(db: SQLiteStore) -> None:
    assert db.fact_last_reinforced("alice", []) == {}


def test_last_reinforced_hides_other_users_facts(db: SQLiteStore) -> None:
    put(db, fact("f1"), 3.0)
    put(db, fact("f2", "bob"), 4.0)
    assert db.fact_last_reinforced("alice", ["f1", "f2"]) == {"f1": 3.0}


# -- has_rows ------------------------------------------------------------------------------------------


def test_has_rows_sees_a_believed_fact(db: SQLiteStore) -> None:
    put(db, fact("f1"))
    assert db.has_rows("facts", "alice") is True


def test_has_rows_ignores_expired_facts(db: SQLiteStore) -> None:
    put(db, fact("f1", expired_at=T0 + D))
    assert db.has_rows("facts", "alice") is False


def test_has_rows_ignores_other_users_facts(db: SQLiteStore) -> None:
    put(db, fact("f1", "bob"))
    assert db.has_rows("facts", "alice") is False


def test_has_rows_sees_a_rule(db: SQLiteStore) -> None:
    db.insert_rule(Rule(id="r1", user_id="alice", condition="c", action="a", confidence=0.5, created_at=T0))
    assert db.has_rows("rules", "alice") is True


def test_has_rows_without_rules(db: SQLiteStore) -> None:
    db.insert_rule(Rule(id="r1", user_id="bob", condition="c", action="a", confidence=0.5, created_at=T0))
    assert db.has_rows("rules", "alice") is False


# -- select_facts / current_facts --------------------------------------------------------------------


@pytest.fixture()
def history(db: SQLiteStore) -> SQLiteStore:
    """alice lived in lisbon (T0..T0+2D, belief T0..T0+D expired), porto since T0+2D, likes tea;
    bob lives in lisbon."""
    put(db, fact("f1", lineage="l1", expired_at=T0 + D))
    put(db, fact("f2", lineage="l1", valid_to=T0 + 2 * D, ingested=T0 + D))
    put(db, fact("f3", obj="porto", valid_from=T0 + 2 * D, ingested=T0 + D))
    put(db, fact("f4", predicate="likes", obj="tea", valid_from=T0 - D))
    put(db, fact("b1", "bob"))
    return db


def test_current_facts_are_believed_ones_in_event_time_order(history: SQLiteStore) -> None:
    assert ids(history.current_facts("alice")) == ["f4", "f2", "f3"]


def test_current_facts_of_a_predicate(history: SQLiteStore) -> None:
    assert ids(history.current_facts("alice", predicate="likes")) == ["f4"]


def test_current_facts_of_a_subject(history: SQLiteStore) -> None:
    put(history, fact("f5", subject="sister"))
    assert ids(history.current_facts("alice", subject="sister")) == ["f5"]


def test_current_facts_still_valid_after(history: SQLiteStore) -> None:
    assert ids(history.current_facts("alice", valid_after=(T0 + 2 * D).timestamp())) == ["f4", "f3"]


def test_current_facts_valid_after_keeps_a_version_ending_later(history: SQLiteStore) -> None:
    assert ids(history.current_facts("alice", valid_after=(T0 + D).timestamp())) == ["f4", "f2", "f3"]


def test_select_all_versions(history: SQLiteStore) -> None:
    assert ids(history.select_facts("alice", all_versions=True)) == ["f4", "f1", "f2", "f3"]


def test_select_of_a_lineage(history: SQLiteStore) -> None:
    assert ids(history.select_facts("alice", lineage_id="l1", all_versions=True)) == ["f1", "f2"]


def test_select_by_ids(history: SQLiteStore) -> None:
    assert ids(history.select_facts("alice", ids=["f3", "f4"])) == ["f4", "f3"]


def test_select_by_no_ids(history: SQLiteStore) -> None:
    assert history.select_facts("alice", ids=[]) == []


def test_select_by_ids_hides_other_users_facts(history: SQLiteStore) -> None:
    assert ids(history.select_facts("alice", ids=["b1", "f3"])) == ["f3"]


def test_select_by_ids_keeps_every_other_filter(history: SQLiteStore) -> None:
    assert ids(history.select_facts("alice", ids=["f3", "f4"], predicate="likes")) == ["f4"]


def test_belief_when_a_version_was_learnt_includes_it(history: SQLiteStore) -> None:
    assert ids(history.select_facts("alice", known_at=T0.timestamp())) == ["f4", "f1"]


def test_belief_when_a_version_was_expired_excludes_it(history: SQLiteStore) -> None:
    assert ids(history.select_facts("alice", known_at=(T0 + D).timestamp())) == ["f4", "f2", "f3"]


def test_belief_before_anything_was_learnt_is_empty(history: SQLiteStore) -> None:
    assert history.select_facts("alice", known_at=(T0 - D).timestamp()) == []


# -- contradicting_facts ---------------------------------------------------------------------------------


def test_contradictions_need_a_claim(history: SQLiteStore) -> None:
    assert history.contradicting_facts("alice", "user", EARLY) == []


def test_contradictions_other_than_a_value(history: SQLiteStore) -> None:
    rows = history.contradicting_facts("alice", "user", EARLY, other_than=("lives_in", "porto"))
    assert [r["id"] for r in rows] == ["f2"]


def test_contradictions_same_as_a_value(history: SQLiteStore) -> None:
    rows = history.contradicting_facts("alice", "user", EARLY, same_as=("likes", "tea"))
    assert [r["id"] for r in rows] == ["f4"]


def test_contradictions_of_both_kinds(history: SQLiteStore) -> None:
    rows = history.contradicting_facts("alice", "user", EARLY, other_than=("lives_in", "porto"),
                                       same_as=("likes", "tea"))
    assert [r["id"] for r in rows] == ["f4", "f2"]


def test_contradictions_still_valid_after(history: SQLiteStore) -> None:
    rows = history.contradicting_facts("alice", "user", (T0 + 2 * D).timestamp(), other_than=("lives_in", "x"))
    assert [r["id"] for r in rows] == ["f3"]


def test_contradictions_about_another_subject_are_none(history: SQLiteStore) -> None:
    assert history.contradicting_facts("alice", "sister", EARLY, other_than=("lives_in", "x")) == []


def test_contradictions_of_another_user_are_none(history: SQLiteStore) -> None:
    rows = history.contradicting_facts("bob", "user", EARLY, other_than=("lives_in", "porto"))
    assert [r["id"] for r in rows] == ["b1"]


# -- keyword search ------------------------------------------------------------------------------------------


@pytest.fixture()
def searchable(db: SQLiteStore) -> SQLiteStore:
    put(db, fact("f1", obj="sailing boats and sailing"))
    put(db, fact("f2", predicate="likes", obj="sailing"))
    put(db, fact("f3", predicate="liked", obj="sailing", expired_at=T0 + D))
    put(db, fact("b1", "bob", obj="sailing"))
    return db


def test_fts_facts_ranks_the_better_match_first(searchable: SQLiteStore) -> None:
    assert [i for i, _ in searchable.fts_facts("alice", "sailing", 10)] == ["f1", "f2"]


def test_fts_facts_scores_are_positive(searchable: SQLiteStore) -> None:
    assert all(score > 0 for _, score in searchable.fts_facts("alice", "sailing", 10))


def test_fts_facts_scores_order(searchable: SQLiteStore) -> None:
    (_, best), (_, worse) = searchable.fts_facts("alice", "sailing", 10)
    assert best > worse


def test_fts_facts_limit(searchable: SQLiteStore) -> None:
    assert [i for i, _ in searchable.fts_facts("alice", "sailing", 1)] == ["f1"]


def test_fts_facts_of_another_user(searchable: SQLiteStore) -> None:
    assert [i for i, _ in searchable.fts_facts("bob", "sailing", 10)] == ["b1"]


# -- decision log ------------------------------------------------------------------------------------------


def decision(n: int, reason: str = "new fact") -> FactDecision:
    return FactDecision(op="ADD", subject="user", predicate="likes", object=f"o{n}", reason=reason,
                        fact_id=f"f{n}", replaced_fact_id=f"r{n}", episode_ids=("ep1", "ep2"))


def test_a_decision_survives_a_round_trip(db: SQLiteStore) -> None:
    db.record_decision("alice", decision(1), 1.0)
    assert db.decisions("alice") == [decision(1)]


def test_decisions_newest_first(db: SQLiteStore) -> None:
    for n in range(3):
        db.record_decision("alice", decision(n), float(n))
    assert [d.fact_id for d in db.decisions("alice", limit=2)] == ["f2", "f1"]


def test_decisions_default_to_the_latest_hundred(db: SQLiteStore) -> None:
    for n in range(101):
        db.record_decision("alice", decision(n), float(n))
    assert len(db.decisions("alice")) == 100


def test_decisions_of_another_user(db: SQLiteStore) -> None:
    db.record_decision("bob", decision(1), 1.0)
    assert db.decisions("alice") == []


def test_no_fact_event_yet(db: SQLiteStore) -> None:
    assert db.last_fact_event() is None


@pytest.fixture()
def events(db: SQLiteStore) -> SQLiteStore:
    db.record_decision("alice", decision(1), 1.0)
    db.record_decision("alice", decision(2, "decay"), 3.0)
    db.record_decision("bob", decision(3), 5.0)
    return db


def test_last_fact_event_of_anyone(events: SQLiteStore) -> None:
    assert events.last_fact_event() == 5.0


def test_last_fact_event_of_a_user(events: SQLiteStore) -> None:
    assert events.last_fact_event("alice") == 3.0


def test_last_fact_event_excluding_a_reason(events: SQLiteStore) -> None:
    assert events.last_fact_event("alice", excluding_reason="decay") == 1.0


def test_last_fact_event_excluding_a_reason_for_anyone(events: SQLiteStore) -> None:
    assert events.last_fact_event(excluding_reason="new fact") == 3.0


def test_last_fact_event_is_a_float(events: SQLiteStore) -> None:
    assert type(events.last_fact_event()) is float
