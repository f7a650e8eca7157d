"""The rules an imported row must pass and the id rewrite of ``as_user`` (no model, no Chroma)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations.config import LimitsConfig
from nova_memory_integrations.consolidation.consolidator import _letter_id
from nova_memory_integrations.engine.validation import check_epoch
from nova_memory_integrations.errors import InvalidInputError
from nova_memory_integrations.maintenance.import_rows import (
    TableSpec,
    check_row,
    filled,
    fresh_id,
    remap_row,
    table_specs,
)
from nova_memory_integrations.storage.sqlite import SQLiteStore

LIMITS = LimitsConfig(max_content_chars=20, max_metadata_bytes=40, max_id_chars=50)
T = 1_706_779_800.0  # 2024-02-01


@pytest.fixture(scope="module")
def specs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, TableSpec]]:
    db = SQLiteStore(tmp_path_factory.mktemp("schema") / "memory.sqlite3")
    yield {t.name: t for t in table_specs(db)}
    db.close()


def episode(**change: Any) -> dict[str, Any]:
    row = {"id": "ep_1", "user_id": "alice", "session_id": None, "role": "user", "content": "I like tea.", "ts": T,
           "ingested_at": T, "metadata": {}, "importance": 0.5, "access_count": 0, "last_access": None,
           "processed": 0, "source": "inferred"}
    row.update(change)
    return row


def fact(**change: Any) -> dict[str, Any]:
    row = {"id": "fa_1", "lineage_id": "fa_1", "user_id": "alice", "subject": "user", "predicate": "likes",
           "object": "tea", "object_norm": "tea", "text": "user likes tea", "confidence": 0.8, "valid_from": T,
           "valid_to": None, "ingested_at": T, "expired_at": None, "provenance": ["ep_1"], "occurrence_count": 1,
           "last_reinforced": T, "metadata": {}, "importance": 0.5, "source": "explicit"}
    row.update(change)
    return row


def error(call: Callable[[], object]) -> InvalidInputError:
    with pytest.raises(InvalidInputError) as info:
        call()
    return info.value


# -- table_specs ------------------------------------------------------------------------------------------------
def test_the_known_tables_come_first_in_export_order(specs: dict[str, TableSpec]) -> None:
    assert list(specs) == ["episodes", "facts", "fact_events", "rules", "dead_letters", "entities",
                           "entity_aliases", "conflicts", "pinned_blocks", "hidden_episodes", "hidden_facts", "hidden_rules",
                           "items", "refused_facts"]  # then tables added later (hidden memories, items ...), by name


def test_local_bookkeeping_columns_are_not_exported(specs: dict[str, TableSpec]) -> None:
    assert {"seq", "indexed"}.isdisjoint(specs["episodes"].columns)


def test_a_log_table_without_id_has_its_primary_key(specs: dict[str, TableSpec]) -> None:
    assert specs["entity_aliases"].key == ("user_id", "alias")


# -- check_row: valid rows --------------------------------------------------------------------------------------
def test_a_valid_episode_passes(specs: dict[str, TableSpec]) -> None:
    assert check_row(specs["episodes"], episode(), LIMITS) is None


def test_a_valid_fact_passes(specs: dict[str, TableSpec]) -> None:
    assert check_row(specs["facts"], fact(), LIMITS) is None


def test_a_row_exported_before_source_and_importance_gets_their_defaults(specs: dict[str, TableSpec]) -> None:
    old = {k: v for k, v in fact().items() if k not in ("importance", "source")}
    with pytest.raises(InvalidInputError):
        check_row(specs["facts"], old, LIMITS)
    row = filled(specs["facts"], old)
    assert (row["importance"], row["source"]) == (0.5, "inferred") and check_row(specs["facts"], row, LIMITS) is None
    no_content = {k: v for k, v in episode().items() if k != "content"}  # a base column is never made up
    assert "content" not in filled(specs["episodes"], no_content)


def test_a_source_must_be_explicit_or_inferred(specs: dict[str, TableSpec]) -> None:
    assert error(lambda: check_row(specs["episodes"], episode(source="guessed"), LIMITS)).field == "source"


def test_a_fact_sentence_may_be_as_long_as_its_three_parts(specs: dict[str, TableSpec]) -> None:
    row = fact(subject="s" * 20, object="o" * 20, text=f"{'s' * 20} likes {'o' * 20}")
    assert check_row(specs["facts"], row, LIMITS) is None


def test_integral_times_pass(specs: dict[str, TableSpec]) -> None:
    assert check_row(specs["episodes"], episode(ts=1_706_779_800), LIMITS) is None


# -- check_row: each rule, by field -----------------------------------------------------------------------------
REFUSED: list[tuple[str, str, dict[str, Any], str, str]] = [
    ("content too long", "episodes", {"content": "x" * 21}, "content", "content has 21 characters"),
    ("content empty", "episodes", {"content": "   "}, "content", "content must not be empty"),
    ("content with NUL", "episodes", {"content": "a\x00b"}, "content", "NUL"),
    ("metadata too large", "episodes", {"metadata": {"k": "v" * 40}}, "metadata", "metadata is larger than 40"),
    ("metadata not an object", "episodes", {"metadata": [1]}, "metadata", "metadata must be a JSON object"),
    ("importance above 1", "episodes", {"importance": 1.01}, "importance", "importance must be between 0 and 1"),
    ("importance below 0", "episodes", {"importance": -0.01}, "importance", "importance must be between 0 and 1"),
    ("importance a bool", "episodes", {"importance": True}, "importance", "importance must be a finite number"),
    ("ts in year 1", "episodes", {"ts": -62135596800.0}, "ts", "ts: -62135596800.0 is outside the supported range"),
    ("ts of 1e20", "episodes", {"ts": 1e20}, "ts", "ts: 1e+20 is outside the supported range"),
    ("ts a string", "episodes", {"ts": "yesterday"}, "ts", "ts must be a finite number"),
    ("ts missing value", "episodes", {"ts": None}, "ts", "ts must not be null"),
    ("optional time out of range", "episodes", {"last_access": 1e13}, "last_access", "outside the supported range"),
    ("negative count", "episodes", {"access_count": -1}, "access_count", "access_count must be an integer >= 0"),
    ("processed not a flag", "episodes", {"processed": 2}, "processed", "processed must be at most 1"),
    ("user not an id", "episodes", {"user_id": ""}, "user_id", "user_id must not be empty"),
    ("id with a control", "episodes", {"id": "ep\n1"}, "id", "id must not contain control characters"),
    ("id too long", "episodes", {"id": "e" * 51}, "id", "id is longer than 50 characters"),
    ("unknown field", "episodes", {"extra": 1}, "extra", "unknown fields ['extra']"),
    ("fact confidence", "facts", {"confidence": 1.5}, "confidence", "confidence must be between 0 and 1"),
    ("fact provenance ids", "facts", {"provenance": [1]}, "provenance", "provenance must contain id strings"),
    ("fact provenance shape", "facts", {"provenance": {"a": 1}}, "provenance", "provenance must be a JSON array"),
    ("fact object too long", "facts", {"object": "o" * 21}, "object", "object has 21 characters"),
    ("fact valid_to year 1", "facts", {"valid_to": -62135596800}, "valid_to", "outside the supported range"),
    ("zero occurrences", "facts", {"occurrence_count": 0}, "occurrence_count", "occurrence_count must be a positive"),
]


@pytest.mark.parametrize(("table", "change", "field", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_row_breaking_a_rule_names_the_field(
    specs: dict[str, TableSpec], table: str, change: dict[str, Any], field: str, message: str
) -> None:
    row = (episode if table == "episodes" else fact)(**change)
    assert error(lambda: check_row(specs[table], row, LIMITS)).field == field


@pytest.mark.parametrize(("table", "change", "field", "message"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_row_breaking_a_rule_says_why(
    specs: dict[str, TableSpec], table: str, change: dict[str, Any], field: str, message: str
) -> None:
    row = (episode if table == "episodes" else fact)(**change)
    assert message in str(error(lambda: check_row(specs[table], row, LIMITS)))


def test_a_missing_field_is_named(specs: dict[str, TableSpec]) -> None:
    row = episode()
    del row["role"]
    assert str(error(lambda: check_row(specs["episodes"], row, LIMITS))) == "missing fields ['role']"


def test_a_decision_op_outside_the_vocabulary(specs: dict[str, TableSpec]) -> None:
    row = {"user_id": "alice", "op": "DROP", "fact_id": None, "replaced_fact_id": None, "subject": "user",
           "predicate": "likes", "object": "tea", "reason": "", "episode_ids": [], "at": T}
    assert error(lambda: check_row(specs["fact_events"], row, LIMITS)).field == "op"


def test_an_empty_reason_is_allowed(specs: dict[str, TableSpec]) -> None:
    row = {"user_id": "alice", "op": "ADD", "fact_id": "fa_1", "replaced_fact_id": None, "subject": "user",
           "predicate": "likes", "object": "tea", "reason": "", "episode_ids": ["ep_1"], "at": T}
    assert check_row(specs["fact_events"], row, LIMITS) is None


def test_an_alias_score_above_1(specs: dict[str, TableSpec]) -> None:
    row = {"user_id": "alice", "alias": "acme", "entity_id": "en_1", "method": "exact", "score": 3.0,
           "created_at": T}
    assert error(lambda: check_row(specs["entity_aliases"], row, LIMITS)).field == "score"


# -- check_epoch ------------------------------------------------------------------------------------------------
def test_check_epoch_returns_a_float() -> None:
    assert check_epoch(1_706_779_800, "at") == 1_706_779_800.0


def test_check_epoch_refuses_infinity() -> None:
    assert error(lambda: check_epoch(float("inf"), "at")).field == "at"


def test_check_epoch_refuses_the_year_2200() -> None:
    assert "outside the supported range" in str(error(lambda: check_epoch(7_258_118_400.0, "at")))


# -- fresh_id / remap_row ---------------------------------------------------------------------------------------
def test_fresh_id_is_deterministic() -> None:
    assert fresh_id("ep_1", "dave") == fresh_id("ep_1", "dave")


def test_fresh_id_depends_on_the_user() -> None:
    assert fresh_id("ep_1", "dave") != fresh_id("ep_1", "erin")


def test_fresh_id_keeps_the_kind_prefix() -> None:
    assert fresh_id("fa_0123", "dave").startswith("fa_")


def test_fresh_id_of_an_odd_id_gets_a_neutral_prefix() -> None:
    assert fresh_id("no-prefix-here", "dave").startswith("id_")


def test_remap_moves_the_row_to_the_user(specs: dict[str, TableSpec]) -> None:
    assert remap_row(specs["facts"], fact(), "dave")["user_id"] == "dave"


def test_remap_rewrites_the_row_id(specs: dict[str, TableSpec]) -> None:
    assert remap_row(specs["facts"], fact(), "dave")["id"] == fresh_id("fa_1", "dave")


def test_remap_rewrites_the_lineage_like_the_id(specs: dict[str, TableSpec]) -> None:
    row = remap_row(specs["facts"], fact(), "dave")
    assert row["lineage_id"] == row["id"]


def test_remap_rewrites_provenance_like_the_episodes(specs: dict[str, TableSpec]) -> None:
    ep = remap_row(specs["episodes"], episode(), "dave")
    assert remap_row(specs["facts"], fact(), "dave")["provenance"] == [ep["id"]]


def test_remap_keeps_the_session(specs: dict[str, TableSpec]) -> None:
    assert remap_row(specs["episodes"], episode(session_id="s1"), "dave")["session_id"] == "s1"


def test_remap_leaves_the_source_row_alone(specs: dict[str, TableSpec]) -> None:
    row = fact()
    remap_row(specs["facts"], row, "dave")
    assert row == fact()


def test_remap_rederives_a_dead_letter_id_from_its_episodes(specs: dict[str, TableSpec]) -> None:
    letter = {"id": _letter_id(["ep_1", "ep_2"]), "user_id": "alice", "episode_ids": ["ep_1", "ep_2"],
              "error": "down", "attempts": 1, "created_at": T, "updated_at": T}
    out = remap_row(specs["dead_letters"], letter, "dave")
    assert out["id"] == _letter_id([fresh_id("ep_1", "dave"), fresh_id("ep_2", "dave")])


def test_a_remapped_row_still_passes(specs: dict[str, TableSpec]) -> None:
    assert check_row(specs["facts"], remap_row(specs["facts"], fact(), "dave"), LIMITS) is None


def test_a_table_spec_is_built_from_the_live_schema(tmp_path: Path) -> None:
    db = SQLiteStore(tmp_path / "m.sqlite3")
    try:
        assert "content" in {t.name: t for t in table_specs(db)}["episodes"].columns
    finally:
        db.close()
