"""Episode queries at the storage level, each against a real SQLite file (kills the mutants of
``storage/episodes.py``): round trips, filters, order, neighbours, flags and keyword search,
always with a second user whose rows must stay invisible and untouched."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from nova_memory_integrations.storage import episodes, rows
from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
H = timedelta(hours=1)


def ep(eid: str, user: str = "alice", text: str = "hello", *, at: datetime = T0, session: str | None = "s1",
       **kw: object) -> Episode:
    return Episode(id=eid, user_id=user, session_id=session, role="user", content=text, timestamp=at,
                   ingested_at=T0, **kw)  # type: ignore[arg-type]


@pytest.fixture()
def timeline(db: SQLiteStore) -> SQLiteStore:
    """alice: a1 (s1, T0), a2 (s1, T0+1h), a3 (s2, T0+2h), a4 (s1, T0+3h); bob: b1 (s1, T0+1h)."""
    db.insert_episodes([
        ep("a1", at=T0), ep("a2", at=T0 + H), ep("a3", at=T0 + 2 * H, session="s2"), ep("a4", at=T0 + 3 * H),
        ep("b1", "bob", at=T0 + H),
    ])
    return db


def ids(episodes: list[Episode]) -> list[str]:
    return [e.id for e in episodes]


# -- insert / get ------------------------------------------------------------------------------


def test_every_field_survives_a_round_trip(db: SQLiteStore) -> None:
    original = ep("e1", metadata={"k": "v"}, importance=0.9, access_count=3, last_access=T0 + H, processed=True)
    db.insert_episodes([original])
    assert db.get_episodes("alice", ["e1"]) == [original]


def test_get_episodes_of_no_ids_is_empty(timeline: SQLiteStore) -> None:
    assert timeline.get_episodes("alice", []) == []


def test_get_episodes_hides_other_users_ids(timeline: SQLiteStore) -> None:
    assert ids(timeline.get_episodes("alice", ["a1", "b1", "a2"])) == ["a1", "a2"]


def test_get_episodes_of_many_ids(db: SQLiteStore) -> None:
    db.insert_episodes([ep(f"e{i}") for i in range(1201)])
    assert len(db.get_episodes("alice", [f"e{i}" for i in range(1201)])) == 1201


def test_episode_rows_read_what_ranking_uses(db: SQLiteStore) -> None:
    db.insert_episodes([ep("e1", "alice", "hi there", at=T0 + H, importance=0.9, access_count=3)])
    (got,) = db.episode_rows("alice", ["e1"])
    assert (got.id, got.session_id, got.role, got.content, got.timestamp, got.importance, got.access_count) == (
        "e1", "s1", "user", "hi there", T0 + H, 0.9, 3)


def test_episode_rows_hide_other_users_ids(timeline: SQLiteStore) -> None:
    assert [r.id for r in timeline.episode_rows("alice", ["a1", "b1", "a2"])] == ["a1", "a2"]


def test_episode_rows_of_many_ids(db: SQLiteStore) -> None:
    db.insert_episodes([ep(f"e{i}") for i in range(1201)])
    assert len(db.episode_rows("alice", [f"e{i}" for i in range(1201)])) == 1201


def test_episodes_of_rows_are_the_stored_episodes(db: SQLiteStore) -> None:
    original = ep("e1", metadata={"k": "v"}, importance=0.9, access_count=3, last_access=T0 + H, processed=True)
    db.insert_episodes([original])
    assert db.episodes_of(db.episode_rows("alice", ["e1"])) == [original]


def _damage(db: SQLiteStore, eid: str, assignment: str) -> None:
    with db.transaction() as conn:
        conn.execute(f"UPDATE episodes SET {assignment} WHERE id = ?", (eid,))


def _warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage().split(" in ")[0] for r in caplog.records if "skipped damaged" in r.getMessage()]


def test_episode_rows_skip_a_row_damaged_where_ranking_reads(db: SQLiteStore, caplog: pytest.LogCaptureFixture,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    rows._warned.reset()
    db.insert_episodes([ep("e1"), ep("e2")])
    _damage(db, "e2", "ts = 'soon'")
    with caplog.at_level(logging.WARNING):
        found = [r.id for r in db.episode_rows("alice", ["e1", "e2"])]
    assert (found, _warned(caplog)) == (["e1"], ["nova-memory: skipped damaged episodes row 'e2'"])


def test_episodes_of_skip_a_row_damaged_where_ranking_does_not_read(
    db: SQLiteStore, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows._warned.reset()
    db.insert_episodes([ep("e1"), ep("e2")])
    _damage(db, "e2", "metadata = '{broken'")
    ranked = db.episode_rows("alice", ["e1", "e2"])
    with caplog.at_level(logging.WARNING):
        read = ids(db.episodes_of(ranked))
    assert ([r.id for r in ranked], read, _warned(caplog)) == (
        ["e1", "e2"], ["e1"], ["nova-memory: skipped damaged episodes row 'e2'"])


# -- list_episodes -----------------------------------------------------------------------------


def test_list_episodes_in_event_time_order(timeline: SQLiteStore) -> None:
    assert ids(timeline.list_episodes("alice")) == ["a1", "a2", "a3", "a4"]


def test_list_episodes_breaks_ties_by_insertion(db: SQLiteStore) -> None:
    db.insert_episodes([ep("x2"), ep("x1"), ep("x3")])
    assert ids(db.list_episodes("alice")) == ["x2", "x1", "x3"]


def test_list_episodes_newest_first(timeline: SQLiteStore) -> None:
    assert ids(timeline.list_episodes("alice", newest_first=True)) == ["a4", "a3", "a2", "a1"]


def test_list_episodes_newest_first_breaks_ties_by_latest_insertion(db: SQLiteStore) -> None:
    db.insert_episodes([ep("x2"), ep("x1"), ep("x3")])
    assert ids(db.list_episodes("alice", newest_first=True)) == ["x3", "x1", "x2"]


def test_list_episodes_of_one_session(timeline: SQLiteStore) -> None:
    assert ids(timeline.list_episodes("alice", session_id="s2")) == ["a3"]


def test_list_episodes_since_is_inclusive(timeline: SQLiteStore) -> None:
    assert ids(timeline.list_episodes("alice", since=(T0 + H).timestamp())) == ["a2", "a3", "a4"]


def test_list_episodes_until_is_exclusive(timeline: SQLiteStore) -> None:
    assert ids(timeline.list_episodes("alice", until=(T0 + 2 * H).timestamp())) == ["a1", "a2"]


def test_list_episodes_limit(timeline: SQLiteStore) -> None:
    assert ids(timeline.list_episodes("alice", limit=2)) == ["a1", "a2"]


def test_list_episodes_unprocessed_only(timeline: SQLiteStore) -> None:
    timeline.mark_processed("alice", ["a1", "a3"])
    assert ids(timeline.list_episodes("alice", unprocessed_only=True)) == ["a2", "a4"]


def test_list_episodes_includes_processed_ones_by_default(timeline: SQLiteStore) -> None:
    timeline.mark_processed("alice", ["a1"])
    assert ids(timeline.list_episodes("alice")) == ["a1", "a2", "a3", "a4"]


def test_list_episodes_of_another_user(timeline: SQLiteStore) -> None:
    assert ids(timeline.list_episodes("bob")) == ["b1"]


# -- neighbours ----------------------------------------------------------------------------------


def test_neighbours_of_a_middle_turn(timeline: SQLiteStore) -> None:
    assert timeline.neighbours("alice", ["a2"]) == {"a2": ("a1", "a4")}


def test_neighbours_of_the_first_turn(timeline: SQLiteStore) -> None:
    assert timeline.neighbours("alice", ["a1"]) == {"a1": (None, "a2")}


def test_neighbours_of_the_last_turn(timeline: SQLiteStore) -> None:
    assert timeline.neighbours("alice", ["a4"]) == {"a4": ("a2", None)}


def test_neighbours_of_a_turn_alone_in_its_session(timeline: SQLiteStore) -> None:
    assert timeline.neighbours("alice", ["a3"]) == {"a3": (None, None)}


def test_neighbours_with_equal_times_follow_insertion(db: SQLiteStore) -> None:
    db.insert_episodes([ep("x1"), ep("x2"), ep("x3")])
    assert db.neighbours("alice", ["x2"]) == {"x2": ("x1", "x3")}


def test_neighbours_skip_turns_without_a_session(db: SQLiteStore) -> None:
    db.insert_episodes([ep("x1", session=None)])
    assert db.neighbours("alice", ["x1"]) == {}


def test_neighbours_never_reach_another_users_turn(timeline: SQLiteStore) -> None:
    assert timeline.neighbours("alice", ["a2", "b1"]) == {"a2": ("a1", "a4")}


def test_neighbours_of_no_ids(timeline: SQLiteStore) -> None:
    assert timeline.neighbours("alice", []) == {}


def test_neighbours_are_one_statement(timeline: SQLiteStore) -> None:
    assert len(_plans(timeline, lambda: timeline.neighbours("alice", ["a1", "a2", "a4"]), "FROM episodes")) == 1


def test_neighbours_seek_from_the_turn_s_time(timeline: SQLiteStore) -> None:
    """Each side starts at the turn's time in the session index, not at an end of its session."""
    (plan,) = _plans(timeline, lambda: timeline.neighbours("alice", ["a2"]), "FROM episodes")
    assert ("AND ts<?)" in plan, "AND ts>?)" in plan) == (True, True)


# -- users, flags ----------------------------------------------------------------------------------


def test_user_ids_sorted(db: SQLiteStore) -> None:
    db.insert_episodes([ep("c1", "carol"), ep("a1"), ep("b1", "bob")])
    assert db.user_ids() == ["alice", "bob", "carol"]


def test_user_ids_include_users_with_everything_processed(timeline: SQLiteStore) -> None:
    timeline.mark_processed("bob", ["b1"])
    assert timeline.user_ids() == ["alice", "bob"]


def test_users_with_unprocessed_skip_users_with_everything_processed(timeline: SQLiteStore) -> None:
    timeline.mark_processed("bob", ["b1"])
    assert timeline.users_with_unprocessed() == ["alice"]


def test_mark_processed_cannot_flag_another_users_episode(timeline: SQLiteStore) -> None:
    timeline.mark_processed("alice", ["b1"])
    assert timeline.users_with_unprocessed() == ["alice", "bob"]


def test_touch_counts_an_access(timeline: SQLiteStore) -> None:
    timeline.touch_episodes("alice", ["a1"], (T0 + 5 * H).timestamp())
    assert timeline.get_episodes("alice", ["a1"])[0].access_count == 1


def test_touch_records_the_access_time(timeline: SQLiteStore) -> None:
    timeline.touch_episodes("alice", ["a1"], (T0 + 5 * H).timestamp())
    assert timeline.get_episodes("alice", ["a1"])[0].last_access == T0 + 5 * H


def test_touch_cannot_touch_another_users_episode(timeline: SQLiteStore) -> None:
    timeline.touch_episodes("alice", ["b1"], (T0 + 5 * H).timestamp())
    assert timeline.get_episodes("bob", ["b1"])[0].access_count == 0


def test_touch_of_no_ids_changes_nothing(timeline: SQLiteStore) -> None:
    timeline.touch_episodes("alice", [], (T0 + 5 * H).timestamp())
    assert [e.access_count for e in timeline.list_episodes("alice")] == [0, 0, 0, 0]


# -- keyword search ------------------------------------------------------------------------------------


@pytest.fixture()
def texts(db: SQLiteStore) -> SQLiteStore:
    db.insert_episodes([
        ep("a1", text="sailing boats and sailing lessons, sailing every day"),
        ep("a2", text="I went sailing once", session="s2"),
        ep("a3", text="nothing about boats"),
        ep("b1", "bob", text="sailing sailing sailing"),
    ])
    return db


def test_fts_ranks_the_better_match_first(texts: SQLiteStore) -> None:
    assert [i for i, _ in texts.fts_episodes("alice", "sailing", 10)] == ["a1", "a2"]


def test_fts_scores_are_higher_for_better_matches(texts: SQLiteStore) -> None:
    (_, best), (_, worse) = texts.fts_episodes("alice", "sailing", 10)
    assert best > worse


def test_fts_scores_are_positive(texts: SQLiteStore) -> None:
    assert all(score > 0 for _, score in texts.fts_episodes("alice", "sailing", 10))


def test_fts_limit(texts: SQLiteStore) -> None:
    assert [i for i, _ in texts.fts_episodes("alice", "sailing", 1)] == ["a1"]


def test_fts_within_one_session(texts: SQLiteStore) -> None:
    assert [i for i, _ in texts.fts_episodes("alice", "sailing", 10, session_id="s2")] == ["a2"]


def test_fts_never_returns_another_users_turn(texts: SQLiteStore) -> None:
    assert "b1" not in [i for i, _ in texts.fts_episodes("alice", "sailing", 10)]


def test_fts_maps_each_hit_to_its_own_id(texts: SQLiteStore) -> None:
    texts.insert_episodes([ep("a4", text="a word about kayaks")])
    assert [i for i, _ in texts.fts_episodes("alice", "kayaks", 10)] == ["a4"]


def _statements(db: SQLiteStore, call: Any) -> list[str]:
    """The statements ``call`` runs (SQLite's trace, parameters inlined)."""
    seen: list[str] = []
    db._conn.set_trace_callback(seen.append)
    try:
        call()
    finally:
        db._conn.set_trace_callback(None)
    return seen


def _plans(db: SQLiteStore, call: Any, marker: str = "bm25") -> list[str]:
    """The query plans of the statements ``call`` runs that hold ``marker``."""
    return [" / ".join(r[3] for r in db._conn.execute(f"EXPLAIN QUERY PLAN {sql}"))
            for sql in _statements(db, call) if marker in sql]


def test_fts_checks_the_user_in_the_covering_index(texts: SQLiteStore) -> None:
    (plan,) = _plans(texts, lambda: texts.fts_episodes("alice", "sailing", 10))
    assert "COVERING INDEX episodes_seq_user" in plan


def test_fts_of_one_session_reads_the_rows(texts: SQLiteStore) -> None:
    (plan,) = _plans(texts, lambda: texts.fts_episodes("alice", "sailing", 10, session_id="s2"))
    assert "episodes_seq_user" not in plan


# -- keyword search window (fts_episodes(window=...)) ---------------------------------------------
@pytest.fixture()
def history(db: SQLiteStore) -> SQLiteStore:
    """alice: h0..h5 at T0..T0+5h, all about sailing; bob's newer sailing turns stored between."""
    for i in range(6):
        db.insert_episodes([ep(f"h{i}", text=f"sailing trip {i}", at=T0 + i * H),
                            ep(f"b{i}", "bob", text="sailing sailing", at=T0 + (10 + i) * H)])
    return db


def test_fts_window_keeps_the_newest_turns(history: SQLiteStore) -> None:
    assert sorted(i for i, _ in history.fts_episodes("alice", "sailing", 10, window=2)) == ["h4", "h5"]


def test_fts_window_longer_than_the_history_keeps_every_turn(history: SQLiteStore) -> None:
    assert len(history.fts_episodes("alice", "sailing", 10, window=6)) == 6


def test_fts_window_zero_keeps_every_turn(history: SQLiteStore) -> None:
    assert len(history.fts_episodes("alice", "sailing", 10, window=0)) == 6


def test_fts_window_counts_only_the_users_turns(history: SQLiteStore) -> None:
    assert len(history.fts_episodes("alice", "sailing", 10, window=5)) == 5


def test_fts_window_keeps_newest_turns_stored_before_older_ones(history: SQLiteStore) -> None:
    history.insert_episodes([ep("old", text="sailing long ago", at=T0 - 100 * H)])  # an import: stored last
    assert {"h4", "h5"} <= {i for i, _ in history.fts_episodes("alice", "sailing", 10, window=2)}


def test_fts_window_leaves_a_rare_word_searched_in_the_whole_history(history: SQLiteStore) -> None:
    history.insert_episodes([ep("rare", text="the harbour at dawn", at=T0 - 100 * H)])
    assert [i for i, _ in history.fts_episodes("alice", "harbour", 10, window=2)] == ["rare"]


def test_fts_window_counts_matches_of_every_user(history: SQLiteStore) -> None:
    # alice: 6 sailing turns and 4 newer others; 12 turns of both users match, more than 8,
    # so alice's newest 8 turns are scored (4 of them about sailing), though only 6 of hers match
    history.insert_episodes([ep(f"o{i}", text="rowing", at=T0 + (6 + i) * H) for i in range(4)])
    assert len(history.fts_episodes("alice", "sailing", 10, window=8)) == 4


def test_fts_window_of_one_keeps_the_newest_turn(history: SQLiteStore) -> None:
    assert [i for i, _ in history.fts_episodes("alice", "sailing", 10, window=1)] == ["h5"]


def test_fts_window_is_not_applied_at_exactly_its_number_of_matches(history: SQLiteStore) -> None:
    # 12 turns match (alice's 6 and bob's 6): a window of 12 is not exceeded, though alice's
    # 10 newer turns about rowing would leave only 2 of her sailing turns inside it
    history.insert_episodes([ep(f"r{i}", text="rowing", at=T0 + (6 + i) * H) for i in range(10)])
    assert len(history.fts_episodes("alice", "sailing", 10, window=12)) == 6


def test_fts_with_a_bound_within_the_window_does_not_count_matches(history: SQLiteStore) -> None:
    seen = _statements(history, lambda: history.fts_episodes("alice", "sailing", 10, window=12, most=12))
    assert not [s for s in seen if "count(*) FROM episodes_fts" in s]


def test_fts_with_a_bound_within_the_window_scores_every_match(history: SQLiteStore) -> None:
    assert len(history.fts_episodes("alice", "sailing", 10, window=12, most=12)) == 6


def test_fts_with_a_bound_above_the_window_still_applies_it(history: SQLiteStore) -> None:
    assert sorted(i for i, _ in history.fts_episodes("alice", "sailing", 10, window=2, most=12)) == ["h4", "h5"]


def test_fts_without_a_bound_counts_matches(history: SQLiteStore) -> None:
    seen = _statements(history, lambda: history.fts_episodes("alice", "sailing", 10, window=12))
    assert len([s for s in seen if "count(*) FROM episodes_fts" in s]) == 1


# -- word counts (fts_match_counts) ---------------------------------------------------------------


def test_match_counts_count_every_users_turns(history: SQLiteStore) -> None:
    # alice's 6 "sailing trip" turns and bob's 6 "sailing sailing" turns
    assert history.fts_match_counts(['"sailing"', '"trip"']) == (12, [12, 6])


def test_match_counts_count_a_word_found_nowhere_as_zero(history: SQLiteStore) -> None:
    assert history.fts_match_counts(['"harbour"']) == (12, [0])


def test_match_counts_stem_a_word_as_the_index_does(history: SQLiteStore) -> None:
    assert history.fts_match_counts(['"sails"']) == (12, [12])


def test_match_counts_of_no_words_give_the_number_of_turns(history: SQLiteStore) -> None:
    assert history.fts_match_counts([]) == (12, [])


def test_match_counts_of_an_empty_store_are_zero(db: SQLiteStore) -> None:
    assert db.fts_match_counts(['"sailing"']) == (0, [0])


def test_match_counts_follow_a_deleted_turn(history: SQLiteStore) -> None:
    history.delete_ids("alice", ["h0"])
    assert history.fts_match_counts(['"trip"']) == (11, [5])


@pytest.fixture()
def crowd(db: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> SQLiteStore:
    """alice: 64 turns, 8 of them about a kayak; counts of any size are kept in the memo."""
    monkeypatch.setattr(episodes, "COUNT_MEMO_FROM", 1)
    db.insert_episodes([ep(f"c{i}", text="kayak" if i % 8 == 0 else f"note {i}", at=T0 + i * H) for i in range(64)])
    return db


def test_match_counts_are_reused_while_the_store_barely_changes(crowd: SQLiteStore) -> None:
    crowd.fts_match_counts(['"kayak"'])
    crowd.insert_episodes([ep("k1", text="kayak", at=T0 + 100 * H)])  # 65 turns: within 1/32 of 64
    assert crowd.fts_match_counts(['"kayak"']) == (65, [8])


def test_match_counts_are_counted_again_once_the_store_has_changed(crowd: SQLiteStore) -> None:
    crowd.fts_match_counts(['"kayak"'])
    crowd.insert_episodes([ep(f"k{i}", text="kayak", at=T0 + (100 + i) * H) for i in range(3)])  # 67 turns
    assert crowd.fts_match_counts(['"kayak"']) == (67, [11])


def test_match_counts_are_counted_again_once_turns_are_deleted(crowd: SQLiteStore) -> None:
    crowd.fts_match_counts(['"kayak"'])
    crowd.delete_ids("alice", ["c0", "c8", "c16"])  # 61 turns
    assert crowd.fts_match_counts(['"kayak"']) == (61, [5])


def test_a_reused_count_runs_no_count_of_its_rows(crowd: SQLiteStore) -> None:
    crowd.fts_match_counts(['"kayak"'])
    seen = _statements(crowd, lambda: crowd.fts_match_counts(['"kayak"']))
    assert not [s for s in seen if "MATCH" in s]


def test_match_counts_of_a_repeated_word_count_it_once(crowd: SQLiteStore) -> None:
    seen = _statements(crowd, lambda: crowd.fts_match_counts(['"kayak"', '"kayak"']))
    assert [s.count("MATCH") for s in seen if "MATCH" in s] == [1]


def test_match_counts_are_reused_at_exactly_a_32nd_more_turns(db: SQLiteStore, monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    monkeypatch.setattr(episodes, "COUNT_MEMO_FROM", 1)
    db.insert_episodes([ep(f"c{i}", text="kayak" if i % 8 == 0 else f"note {i}", at=T0 + i * H) for i in range(62)])
    db.fts_match_counts(['"kayak"'])
    db.insert_episodes([ep(f"k{i}", text="kayak", at=T0 + (100 + i) * H) for i in range(2)])  # 64: 2 is 1/32
    assert db.fts_match_counts(['"kayak"']) == (64, [8])


def test_match_counts_fill_the_memo_up_to_its_bound(crowd: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(episodes, "COUNT_MEMO", 2)
    for word in ("kayak", "note"):
        crowd.fts_match_counts([f'"{word}"'])
    assert sorted(crowd._match_counts) == ['"kayak"', '"note"']


def test_match_counts_keep_a_bounded_memo(crowd: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(episodes, "COUNT_MEMO", 2)
    for word in ("kayak", "note", "5"):  # found in 8, 56 and 1 turns: each count is kept
        crowd.fts_match_counts([f'"{word}"'])
    assert len(crowd._match_counts) <= 2


def test_match_counts_stay_right_past_the_memo_bound(crowd: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(episodes, "COUNT_MEMO", 1)
    assert crowd.fts_match_counts(['"kayak"', '"harbour"']) == (64, [8, 0])


def test_match_counts_read_the_number_of_turns_without_counting_them(crowd: SQLiteStore) -> None:
    seen = _statements(crowd, lambda: crowd.fts_match_counts(['"kayak"']))
    assert not [s for s in seen if "count(*) FROM episodes " in s + " "]


def test_match_counts_count_the_turns_when_the_total_is_null(crowd: SQLiteStore) -> None:
    crowd._conn.execute("UPDATE episodes_fts_data SET block = NULL WHERE id = 1")
    assert crowd.fts_match_counts([]) == (64, [])


def test_match_counts_count_the_turns_when_the_total_is_missing(crowd: SQLiteStore) -> None:
    crowd._conn.execute("DELETE FROM episodes_fts_data WHERE id = 1")
    assert crowd.fts_match_counts([]) == (64, [])


def test_match_counts_count_the_turns_when_the_index_has_no_total(crowd: SQLiteStore) -> None:
    crowd._conn.execute("UPDATE episodes_fts_data SET block = x'' WHERE id = 1")  # as in an empty index
    assert crowd.fts_match_counts([]) == (64, [])


@pytest.mark.parametrize(("data", "value"), [
    (b"\x00", 0), (b"\x7f", 127), (b"\x81\x00", 128), (b"\xce\x10", 10_000), (b"\x86\x8d\x20", 100_000),
    (b"\xff" * 8 + b"\x01", ((1 << 56) - 1) << 8 | 1), (b"\x81", None), (b"", None), (b"\x05\xff", 5),
    (b"\x80\x01", 1),
])
def test_a_varint_is_read_as_sqlite_writes_it(data: bytes, value: int | None) -> None:
    assert episodes._varint(data) == value


def test_a_rare_words_count_is_counted_afresh(db: SQLiteStore) -> None:
    db.insert_episodes([ep(f"c{i}", text=f"note {i}", at=T0 + i * H) for i in range(64)])
    db.fts_match_counts(['"whiskers"'])
    db.insert_episodes([ep("w", text="our cat whiskers", at=T0 + 100 * H)])  # within 1/32: a memo would hold 0
    assert db.fts_match_counts(['"whiskers"']) == (65, [1])


def test_a_count_below_the_memo_floor_leaves_the_memo(crowd: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    crowd.fts_match_counts(['"kayak"'])  # 8, kept (floor 1)
    monkeypatch.setattr(episodes, "COUNT_MEMO_FROM", 9)
    crowd.insert_episodes([ep(f"n{i}", text="rowing", at=T0 + (100 + i) * H) for i in range(3)])  # 67: stale
    crowd.fts_match_counts(['"kayak"'])
    assert '"kayak"' not in crowd._match_counts


def test_a_count_at_exactly_the_memo_floor_is_kept(crowd: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(episodes, "COUNT_MEMO_FROM", 8)
    crowd.fts_match_counts(['"kayak"'])  # 8 turns
    assert '"kayak"' in crowd._match_counts
