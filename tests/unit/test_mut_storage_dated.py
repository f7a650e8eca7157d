"""``SQLiteStore.dated_rows_and_vectors`` against a real SQLite file (kills its mutants): which of a
user's turns fall in the named windows (half-open, several at once, one session), their order,
the count that says a window holds more than asked, the kept vectors, and another user's turns on
the same day, which are never read."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from nova_memory_integrations.storage import rows
from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode

DAY = datetime(2022, 5, 25, tzinfo=timezone.utc)
D = timedelta(days=1)
H = timedelta(hours=1)


def ep(eid: str, at: datetime, user: str = "alice", session: str = "s1") -> Episode:
    return Episode(id=eid, user_id=user, session_id=session, role="user", content=f"turn {eid}", timestamp=at,
                   ingested_at=DAY)


@pytest.fixture()
def days(db: SQLiteStore) -> SQLiteStore:
    """alice: y1 (the day before, 23:00), d1 (the day, 00:00), d2 (12:00, session s2), d3 (23:59),
    n1 (the next day, 00:00); bob: b1 (the day, 12:00)."""
    db.insert_episodes([
        ep("y1", DAY - H), ep("d3", DAY + D - timedelta(minutes=1)), ep("d1", DAY), ep("d2", DAY + 12 * H, session="s2"),
        ep("n1", DAY + D), ep("b1", DAY + 12 * H, user="bob"),
    ])
    db.mark_episodes_indexed(["d1", "d2", "b1"], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    return db


def found(db: SQLiteStore, windows: list[tuple[datetime, datetime]], limit: int = 100,
          **kw: object) -> list[str] | None:
    read = db.dated_rows_and_vectors("alice", windows, limit, **kw)  # type: ignore[arg-type]
    return None if read is None else [r.id for r in read[0]]


def vectors(db: SQLiteStore) -> dict[str, list[float]]:
    read = db.dated_rows_and_vectors("alice", [(DAY, DAY + D)], 100)
    assert read is not None
    return {i: v.tolist() for i, v in read[1].items()}


def test_a_days_turns_in_event_time_order(days: SQLiteStore) -> None:
    assert found(days, [(DAY, DAY + D)]) == ["d1", "d2", "d3"]


def test_the_start_of_a_window_is_inside(days: SQLiteStore) -> None:
    assert "d1" in found(days, [(DAY, DAY + D)])


def test_the_end_of_a_window_is_outside(days: SQLiteStore) -> None:
    assert "n1" not in found(days, [(DAY, DAY + D)])


def test_a_turn_before_the_window_is_outside(days: SQLiteStore) -> None:
    assert "y1" not in found(days, [(DAY, DAY + D)])


def test_several_windows_at_once(days: SQLiteStore) -> None:
    assert found(days, [(DAY - D, DAY), (DAY + D, DAY + 2 * D)]) == ["y1", "n1"]


def test_another_users_turn_that_day_is_never_read(days: SQLiteStore) -> None:
    assert "b1" not in found(days, [(DAY, DAY + D)])


def test_one_session(days: SQLiteStore) -> None:
    assert found(days, [(DAY, DAY + D)], session_id="s2") == ["d2"]


def test_as_many_as_the_limit_are_read(days: SQLiteStore) -> None:
    assert found(days, [(DAY, DAY + D)], limit=3) == ["d1", "d2", "d3"]


def test_more_than_the_limit_reads_none(days: SQLiteStore) -> None:
    assert found(days, [(DAY, DAY + D)], limit=2) is None


def test_the_limit_counts_the_users_turns_only(days: SQLiteStore) -> None:
    assert found(days, [(DAY + 12 * H, DAY + 13 * H)], limit=1) == ["d2"]  # bob's b1 is there too


def test_the_limit_counts_the_sessions_turns_only(days: SQLiteStore) -> None:
    assert found(days, [(DAY, DAY + D)], limit=1, session_id="s2") == ["d2"]


def test_a_limit_of_zero_reads_none_of_a_day_with_turns(days: SQLiteStore) -> None:
    assert found(days, [(DAY, DAY + D)], limit=0) is None


def test_a_limit_of_zero_reads_a_day_without_turns(days: SQLiteStore) -> None:
    assert found(days, [(DAY + 5 * D, DAY + 6 * D)], limit=0) == []


def test_no_window_reads_nothing(days: SQLiteStore) -> None:
    assert found(days, []) == []


def test_a_negative_limit_reads_nothing(days: SQLiteStore) -> None:
    assert found(days, [(DAY, DAY + D)], limit=-1) == []


def test_the_kept_vectors_of_indexed_turns(days: SQLiteStore) -> None:
    assert vectors(days) == {"d1": [1.0, 0.0], "d2": [0.0, 1.0]}


def test_a_turn_no_longer_indexed_has_no_vector(days: SQLiteStore) -> None:
    with days.transaction() as conn:  # as a compaction does: the turn is embedded again
        conn.execute("UPDATE episodes SET indexed = 0 WHERE id = 'd2'")
    assert set(vectors(days)) == {"d1"}


def test_vectors_are_float32(days: SQLiteStore) -> None:
    read = days.dated_rows_and_vectors("alice", [(DAY, DAY + D)], 100)
    assert read is not None and read[1]["d1"].dtype == np.float32


def test_a_damaged_row_is_skipped_with_a_warning_naming_its_table(
        days: SQLiteStore, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    rows._warned.reset()
    with days.transaction() as conn:
        conn.execute("UPDATE episodes SET importance = 'high' WHERE id = 'd2'")
    with caplog.at_level(logging.WARNING):
        read = found(days, [(DAY, DAY + D)])
    warned = [r.getMessage().split(" in ")[0] for r in caplog.records if "skipped damaged" in r.getMessage()]
    assert (read, warned) == (["d1", "d3"], ["nova-memory: skipped damaged episodes row 'd2'"])
