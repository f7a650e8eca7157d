"""Row checks and converters shared by the storage mixins (kills the mutants of ``storage/rows.py``).

Rows are real ``sqlite3.Row`` objects of an in-memory SQLite connection (``SELECT ? AS ts, ...``),
so every column holds exactly what SQLite hands back. Messages are compared whole."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timezone
from typing import Any

import pytest

from nova_memory_integrations._time import EARLIEST, LATEST
from nova_memory_integrations.storage import rows
from nova_memory_integrations.storage.rows import (
    check_row,
    chunks,
    dumps,
    readable,
    row_to_decision,
    row_to_episode,
    row_to_episode_row,
    row_to_fact,
    row_to_rule,
)
from nova_memory_integrations.types import Episode, Fact, FactDecision, Rule

T = 1_700_000_000.0
LOGGER = "nova_memory_integrations.storage"


@pytest.fixture()
def conn() -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(":memory:")
    c.row_factory = sqlite3.Row
    yield c
    c.close()


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no row warned about yet (the set is per process)."""
    rows._warned.reset()


def row(conn: sqlite3.Connection, **columns: Any) -> sqlite3.Row:
    """One row with these columns, as SQLite returns it."""
    names = ", ".join(f"? AS {name}" for name in columns)
    got: sqlite3.Row = conn.execute(f"SELECT {names}", list(columns.values())).fetchone()
    return got


def damage(conn: sqlite3.Connection, **columns: Any) -> str:
    """The message of the ``ValueError`` that ``check_row`` raises for this row."""
    with pytest.raises(ValueError) as info:
        check_row(row(conn, **columns))
    return str(info.value)


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


# -- check_row -------------------------------------------------------------------------------------------------------


def test_a_sound_row_passes(conn: sqlite3.Connection) -> None:
    assert check_row(row(conn, id="e1", ts=T, valid_to=None, importance=0.5, access_count=0, metadata="{}",
                         provenance="[]", content="hi", role=7)) is None


@pytest.mark.parametrize(("columns", "expected"), [
    ({"ts": "soon"}, "not a time: 'soon'"),
    ({"at": 1e20}, f"time 1e+20 outside {EARLIEST.year}..{LATEST.year}"),
    ({"valid_to": float("inf")}, "not a time: inf"),
])
def test_a_time_column_must_hold_a_time(conn: sqlite3.Connection, columns: dict[str, Any], expected: str) -> None:
    assert damage(conn, **columns) == expected


@pytest.mark.parametrize(("columns", "expected"), [
    ({"importance": "high"}, "importance is not a number: 'high'"),
    ({"confidence": float("inf")}, "confidence is not a number: inf"),
    ({"attempts": b"1"}, "attempts is not a number: b'1'"),
])
def test_a_number_column_must_hold_a_finite_number(conn: sqlite3.Connection, columns: dict[str, Any],
                                                    expected: str) -> None:
    assert damage(conn, **columns) == expected


@pytest.mark.parametrize("columns", [{"importance": None}, {"score": -3}, {"processed": 1}, {"confidence": 0.25}])
def test_a_number_column_may_be_null_or_any_finite_number(conn: sqlite3.Connection, columns: dict[str, Any]) -> None:
    assert check_row(row(conn, **columns)) is None


@pytest.mark.parametrize(("columns", "expected"), [
    ({"metadata": "[1]"}, "metadata is not a JSON dict"),
    ({"metadata": "null"}, "metadata is not a JSON dict"),
    ({"provenance": "{}"}, "provenance is not a JSON list"),
    ({"episode_ids": '"e1"'}, "episode_ids is not a JSON list"),
])
def test_a_json_column_must_hold_its_shape(conn: sqlite3.Connection, columns: dict[str, Any], expected: str) -> None:
    assert damage(conn, **columns) == expected


def test_a_json_column_must_parse(conn: sqlite3.Connection) -> None:
    assert damage(conn, metadata="{not json").startswith("Expecting property name enclosed in double quotes")


@pytest.mark.parametrize(("columns", "expected"), [
    ({"id": 7}, "id is not text: int"),
    ({"user_id": None}, "user_id is not text: NoneType"),
    ({"content": b"hi"}, "content is not text: bytes"),
    ({"object": 1.5}, "object is not text: float"),
])
def test_a_text_column_must_hold_text(conn: sqlite3.Connection, columns: dict[str, Any], expected: str) -> None:
    assert damage(conn, **columns) == expected


def test_every_column_is_checked(conn: sqlite3.Connection) -> None:
    assert damage(conn, id="e1", content="hi", importance="x") == "importance is not a number: 'x'"


def test_other_columns_are_not_checked(conn: sqlite3.Connection) -> None:
    assert check_row(row(conn, role=1, session_id=2.5, op=None)) is None


# -- readable and its warning --------------------------------------------------------------------------------------


@pytest.fixture()
def mixed(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    return [row(conn, id="e1", ts=T), row(conn, id="e2", ts="soon"), row(conn, id="e3", ts=T + 1)]


def test_readable_rows_without_a_converter(mixed: list[sqlite3.Row]) -> None:
    assert [r["id"] for r in readable(mixed, "episodes", "db")] == ["e1", "e3"]


def test_readable_rows_are_the_rows_themselves(mixed: list[sqlite3.Row]) -> None:
    assert readable(mixed, "episodes", "db")[0] is mixed[0]


def test_readable_rows_converted(mixed: list[sqlite3.Row]) -> None:
    assert readable(mixed, "episodes", "db", lambda r: r["ts"]) == [T, T + 1]


def test_readable_rows_kept_after_a_converter_check(conn: sqlite3.Connection) -> None:
    bad = row(conn, id="e2", ts=T, session_id=5)
    good = row(conn, id="e1", ts=T, session_id="s1")
    assert readable([good, bad], "episodes", "db", lambda r: "s" + r["session_id"], keep_row=True) == [good]


def test_a_row_the_converter_refuses_is_skipped(conn: sqlite3.Connection) -> None:
    assert readable([row(conn, id="e1", metadata="{}")], "episodes", "db", lambda r: {}["missing"]) == []


def test_an_error_that_is_no_damage_is_raised(conn: sqlite3.Connection) -> None:
    def fail(r: sqlite3.Row) -> None:
        raise RuntimeError("not a damaged row")

    with pytest.raises(RuntimeError):
        readable([row(conn, id="e1")], "episodes", "db", fail)


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER]


def test_a_damaged_row_is_reported(mixed: list[sqlite3.Row], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable(mixed, "episodes", "/data/nova.sqlite3")
    assert warnings_of(caplog) == [
        "nova-memory: skipped damaged episodes row 'e2' in /data/nova.sqlite3 (ValueError: not a time: 'soon');"
        " it is left as stored"]


def test_a_damaged_row_is_reported_once(mixed: list[sqlite3.Row], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for _ in range(3):
            readable(mixed, "episodes", "db")
    assert len(warnings_of(caplog)) == 1


def test_a_damaged_row_is_reported_once_per_database(mixed: list[sqlite3.Row],
                                                     caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable(mixed, "episodes", "one.sqlite3")
        readable(mixed, "episodes", "two.sqlite3")
    assert len(warnings_of(caplog)) == 2


def test_a_damaged_row_is_reported_once_per_table(mixed: list[sqlite3.Row], caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable(mixed, "episodes", "db")
        readable(mixed, "facts", "db")
    assert len(warnings_of(caplog)) == 2


def test_each_damaged_row_is_reported(conn: sqlite3.Connection, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable([row(conn, id="e1", ts="x"), row(conn, id="e2", ts="x")], "episodes", "db")
    assert len(warnings_of(caplog)) == 2


def test_a_damaged_row_without_an_id_is_named_by_its_seq(conn: sqlite3.Connection,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable([row(conn, seq=12, at="x")], "fact_events", "db")
    assert warnings_of(caplog) == [
        "nova-memory: skipped damaged fact_events row 12 in db (ValueError: not a time: 'x'); it is left as stored"]


def test_a_damaged_row_without_an_id_or_seq_is_named_by_its_values(conn: sqlite3.Connection,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable([row(conn, user_id="u", at="x")], "fact_events", "db")
    assert warnings_of(caplog) == [
        "nova-memory: skipped damaged fact_events row ('u', 'x') in db (ValueError: not a time: 'x'); it is left"
        " as stored"]


def test_a_long_row_id_is_cut_at_80_characters(conn: sqlite3.Connection, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable([row(conn, id="e" * 100, ts="x")], "episodes", "db")
    assert warnings_of(caplog)[0].startswith(f"nova-memory: skipped damaged episodes row '{'e' * 79} in db ")


def test_a_long_error_is_cut_at_200_characters(conn: sqlite3.Connection, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable([row(conn, id="e1", ts="x" * 300)], "episodes", "db")
    assert warnings_of(caplog)[0].endswith(f"(ValueError: not a time: '{'x' * 187}); it is left as stored")


def test_rows_cut_to_the_same_id_are_reported_once(conn: sqlite3.Connection, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        readable([row(conn, id="e" * 100 + "1", ts="x"), row(conn, id="e" * 100 + "2", ts="x")], "episodes", "db")
    assert len(warnings_of(caplog)) == 1


# -- dumps, chunks ---------------------------------------------------------------------------------------------------


def test_dumps_is_compact_sorted_and_unescaped() -> None:
    assert dumps({"b": [1, 2], "a": "é"}) == '{"a":"é","b":[1,2]}'


def test_chunks_of_a_list() -> None:
    assert list(chunks(["a", "b", "c", "d", "e"], 2)) == [["a", "b"], ["c", "d"], ["e"]]


def test_chunks_of_an_exact_multiple() -> None:
    assert list(chunks(["a", "b", "c", "d"], 2)) == [["a", "b"], ["c", "d"]]


def test_chunks_of_nothing() -> None:
    assert list(chunks([], 3)) == []


# -- the converters --------------------------------------------------------------------------------------------------


def test_row_to_episode(conn: sqlite3.Connection) -> None:
    r = row(conn, id="e1", user_id="u", session_id="s", role="user", content="hi", ts=T, ingested_at=T + 1,
            metadata='{"k":1}', importance=0.7, access_count=3, last_access=T + 2, processed=1)
    assert row_to_episode(r) == Episode(id="e1", user_id="u", session_id="s", role="user", content="hi",
                                        timestamp=at(T), ingested_at=at(T + 1), metadata={"k": 1}, importance=0.7,
                                        access_count=3, last_access=at(T + 2), processed=True)


def test_row_to_episode_never_accessed_nor_processed(conn: sqlite3.Connection) -> None:
    r = row(conn, id="e1", user_id="u", session_id=None, role="user", content="hi", ts=T, ingested_at=T,
            metadata="{}", importance=0.5, access_count=0, last_access=None, processed=0)
    assert (row_to_episode(r).last_access, row_to_episode(r).processed) == (None, False)


EPISODE = {"seq": 1, "id": "e1", "user_id": "u", "session_id": "s", "role": "user", "content": "hi", "ts": T,
           "ingested_at": T, "metadata": "{}", "importance": 0.5, "access_count": 0, "last_access": None,
           "processed": 0, "indexed": 1}
"""A sound ``episodes`` row, every column in the table's order."""

EPISODE_DAMAGE = [
    {"id": 7}, {"user_id": None}, {"content": b"hi"}, {"ts": "soon"}, {"ts": 1e20}, {"ingested_at": float("inf")},
    {"last_access": "never"}, {"metadata": "[1]"}, {"metadata": "{not json"}, {"importance": "0.5"},
    {"importance": float("-inf")}, {"access_count": float("inf")}, {"access_count": "3"}, {"processed": "no"},
    {"processed": float("inf")},
]
"""Damage :func:`check_row` finds in an ``episodes`` row, one column at a time (SQLite stores a
NaN as NULL and a bool as an integer, so neither can come back from a table)."""


def test_row_to_episode_checks_its_rows_itself() -> None:
    assert row_to_episode in rows.SELF_CHECKING


@pytest.mark.parametrize("columns", EPISODE_DAMAGE)
def test_check_row_refuses_the_episode_damage(conn: sqlite3.Connection, columns: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        check_row(row(conn, **{**EPISODE, **columns}))


@pytest.mark.parametrize("columns", EPISODE_DAMAGE)
def test_row_to_episode_refuses_what_check_row_refuses(conn: sqlite3.Connection, columns: dict[str, Any]) -> None:
    damaged = row(conn, **{**EPISODE, **columns})
    with pytest.raises(ValueError) as info:
        row_to_episode(damaged)
    assert str(info.value) == damage(conn, **{**EPISODE, **columns})


@pytest.mark.parametrize("columns", [{"role": 7}, {"session_id": 2.5}, {"access_count": 2.5}, {"importance": None}])
def test_row_to_episode_refuses_what_the_model_refuses(conn: sqlite3.Connection, columns: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        row_to_episode(row(conn, **{**EPISODE, **columns}))


EPISODE_ROW_DAMAGE = [d for d in EPISODE_DAMAGE if set(d) <= {"id", "content", "ts", "importance", "access_count"}]
"""The damage of :data:`EPISODE_DAMAGE` in the columns :func:`row_to_episode_row` reads."""


def test_row_to_episode_row_checks_its_rows_itself() -> None:
    assert row_to_episode_row in rows.SELF_CHECKING


def test_row_to_episode_row_reads_what_ranking_uses(conn: sqlite3.Connection) -> None:
    r = row(conn, **{**EPISODE, "importance": 0.75, "access_count": 3})
    got = row_to_episode_row(r)
    assert (got.id, got.session_id, got.role, got.content, got.timestamp, got.importance, got.access_count,
            got.row) == ("e1", "s", "user", "hi", at(T), 0.75, 3, r)


@pytest.mark.parametrize("columns", EPISODE_ROW_DAMAGE)
def test_row_to_episode_row_refuses_what_check_row_refuses_in_its_columns(
    conn: sqlite3.Connection, columns: dict[str, Any]
) -> None:
    with pytest.raises(ValueError) as info:
        row_to_episode_row(row(conn, **{**EPISODE, **columns}))
    assert str(info.value) == damage(conn, **{**EPISODE, **columns})


@pytest.mark.parametrize(("columns", "expected"), [
    ({"role": 7}, "role is not text: int"), ({"role": None}, "role is not text: NoneType"),
    ({"importance": None}, "importance is not a number: None"),
    ({"access_count": None}, "access_count is not a number: None"), ({"ts": None}, "ts is not a time: None"),
])
def test_row_to_episode_row_refuses_what_ranking_cannot_use(conn: sqlite3.Connection, columns: dict[str, Any],
                                                            expected: str) -> None:
    with pytest.raises(ValueError) as info:
        row_to_episode_row(row(conn, **{**EPISODE, **columns}))
    assert str(info.value) == expected


@pytest.mark.parametrize("columns", [{"metadata": "{not json"}, {"last_access": "never"}, {"processed": "no"}])
def test_row_to_episode_row_leaves_the_other_columns_to_row_to_episode(
    conn: sqlite3.Connection, columns: dict[str, Any]
) -> None:
    damaged = row(conn, **{**EPISODE, **columns})
    with pytest.raises(ValueError):
        row_to_episode(row_to_episode_row(damaged).row)


def test_readable_skips_a_damaged_episode_without_check_row(conn: sqlite3.Connection,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rows, "check_row", lambda r: pytest.fail("checked twice"))
    found = readable([row(conn, **EPISODE), row(conn, **{**EPISODE, "id": "e2", "ts": "soon"})], "episodes", "db",
                     row_to_episode)
    assert [e.id for e in found] == ["e1"]


def test_readable_checks_the_rows_of_other_converters(conn: sqlite3.Connection) -> None:
    assert readable([row(conn, id="r1", content=5)], "rules", "db", lambda r: "converted") == []


def test_row_to_fact(conn: sqlite3.Connection) -> None:
    r = row(conn, id="f2", lineage_id="f1", user_id="u", subject="user", predicate="likes", object="tea",
            confidence=0.8, valid_from=T, valid_to=T + 1, ingested_at=T + 2, expired_at=T + 3,
            provenance='["e1","e2"]', occurrence_count=4, metadata='{"k":2}')
    assert row_to_fact(r) == Fact(id="f2", lineage_id="f1", user_id="u", subject="user", predicate="likes",
                                  object="tea", confidence=0.8, valid_from=at(T), valid_to=at(T + 1),
                                  ingested_at=at(T + 2), expired_at=at(T + 3), provenance=("e1", "e2"),
                                  occurrence_count=4, metadata={"k": 2})


def test_row_to_fact_still_current(conn: sqlite3.Connection) -> None:
    r = row(conn, id="f1", lineage_id="f1", user_id="u", subject="user", predicate="likes", object="tea",
            confidence=0.8, valid_from=T, valid_to=None, ingested_at=T, expired_at=None, provenance="[]",
            occurrence_count=1, metadata="{}")
    assert (row_to_fact(r).valid_to, row_to_fact(r).expired_at) == (None, None)


def test_row_to_rule(conn: sqlite3.Connection) -> None:
    r = row(conn, id="r1", user_id="u", condition="when asked", action="answer", confidence=0.6, created_at=T,
            usage_count=2, last_used=T + 5, metadata='{"k":3}')
    assert row_to_rule(r) == Rule(id="r1", user_id="u", condition="when asked", action="answer", confidence=0.6,
                                  created_at=at(T), usage_count=2, last_used=at(T + 5), metadata={"k": 3})


def test_row_to_rule_never_used(conn: sqlite3.Connection) -> None:
    r = row(conn, id="r1", user_id="u", condition="c", action="a", confidence=0.6, created_at=T, usage_count=0,
            last_used=None, metadata="{}")
    assert row_to_rule(r).last_used is None


def test_row_to_decision(conn: sqlite3.Connection) -> None:
    r = row(conn, op="UPDATE", subject="user", predicate="likes", object="tea", reason="said so", fact_id="f2",
            replaced_fact_id="f1", episode_ids='["e1","e2"]')
    assert row_to_decision(r) == FactDecision(op="UPDATE", subject="user", predicate="likes", object="tea",
                                              reason="said so", fact_id="f2", replaced_fact_id="f1",
                                              episode_ids=("e1", "e2"))


def test_user_filter_always_scopes_by_user_and_adds_only_given_conditions():
    from nova_memory_integrations.storage.rows import UserFilter

    q = UserFilter("SELECT * FROM t", "alice")
    q.where("a = ?", 1, when=True).where("b = ?", 2, when=False).where("c BETWEEN ? AND ?", 3, 4)
    assert q.sql == "SELECT * FROM t WHERE user_id = ? AND a = ? AND c BETWEEN ? AND ?"
    assert q.params == ["alice", 1, 3, 4]
    assert UserFilter("SELECT x FROM t", "bob", user_column="+user_id").sql == "SELECT x FROM t WHERE +user_id = ?"
