"""``nearby``: the turns around each episode in its session, with signed offsets (kills the
mutants of ``storage/episodes.py``'s ``nearby`` / ``_around``), against a real SQLite file."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
M = timedelta(minutes=1)


def ep(eid: str, minute: int, session: str | None = "s1", user: str = "alice") -> Episode:
    return Episode(id=eid, user_id=user, session_id=session, role="user", content=eid, timestamp=T0 + minute * M,
                   ingested_at=T0)


@pytest.fixture()
def talk(db: SQLiteStore) -> SQLiteStore:
    """alice, session s1: t0 .. t5 a minute apart (t3 written first, out of order); s2: u0 between
    them in time; a turn without a session; bob: b0 in a session also called s1."""
    db.insert_episodes([ep("t3", 3), ep("t0", 0), ep("t1", 1), ep("u0", 2, "s2"), ep("t2", 2), ep("t4", 4),
                        ep("t5", 5), ep("loose", 3, None), ep("b0", 3, "s1", "bob")])
    return db


def test_the_turn_before_is_minus_one_and_the_reply_plus_one(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["t3"], 1) == {"t3": [("t2", -1), ("t4", 1)]}


def test_reach_two_adds_the_next_ones_out_in_order(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["t3"], 2) == {"t3": [("t2", -1), ("t4", 1), ("t1", -2), ("t5", 2)]}


def test_the_first_turn_has_only_turns_after_it(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["t0"], 3) == {"t0": [("t1", 1), ("t2", 2), ("t3", 3)]}


def test_the_last_turn_has_only_turns_before_it(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["t5"], 2) == {"t5": [("t4", -1), ("t3", -2)]}


def test_a_turn_of_another_session_at_the_same_time_is_no_neighbour(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["t1"], 1) == {"t1": [("t0", -1), ("t2", 1)]}


def test_a_turn_alone_in_its_session_has_none(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["u0"], 2) == {"u0": []}


def test_a_turn_without_a_session_is_left_out(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["loose"], 1) == {}


def test_another_users_turn_is_never_returned(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["b0", "t5"], 1) == {"t5": [("t4", -1)]}


def test_several_turns_in_one_call(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["t0", "t5"], 1) == {"t0": [("t1", 1)], "t5": [("t4", -1)]}


def test_reach_zero_reads_nothing(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", ["t3"], 0) == {}


def test_no_ids_read_nothing(talk: SQLiteStore) -> None:
    assert talk.nearby("alice", [], 2) == {}


def test_many_ids_are_read_in_chunks(db: SQLiteStore) -> None:
    db.insert_episodes([ep(f"e{i:04d}", i) for i in range(1201)])
    got = db.nearby("alice", [f"e{i:04d}" for i in range(1, 1200)], 1)
    assert sum(len(v) for v in got.values()) == 2 * 1199


def test_turns_at_the_same_time_follow_their_order_of_writing(db: SQLiteStore) -> None:
    db.insert_episodes([ep("x1", 10, "s3"), ep("x2", 10, "s3"), ep("x3", 10, "s3")])
    assert db.nearby("alice", ["x2"], 1) == {"x2": [("x1", -1), ("x3", 1)]}


def test_offsets_are_whole_numbers(talk: SQLiteStore) -> None:
    assert {type(offset) for _, offset in talk.nearby("alice", ["t3"], 2)["t3"]} == {int}
