"""Input validation of the public API, boundary by boundary (kills the mutants of
``engine/validation.py``). Error messages are compared whole: they are what a caller reads."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.config import LimitsConfig
from nova_memory_integrations.engine.validation import (
    check_content,
    check_id,
    check_ids,
    check_metadata,
    check_positive_int,
    check_score,
    check_texts,
    check_timestamp,
    check_turn,
    check_user,
)
from nova_memory_integrations.errors import InvalidInputError

LIMITS = LimitsConfig(max_content_chars=10, max_metadata_bytes=20, max_id_chars=5)
NOW = datetime(2024, 5, 1, 12, tzinfo=timezone.utc)


def message(call: Callable[[], object]) -> str:
    with pytest.raises(InvalidInputError) as info:
        call()
    return str(info.value)


# -- check_id / check_user ----------------------------------------------------------------------------------


def test_a_required_id_must_be_given() -> None:
    assert message(lambda: check_id(None, "user_id", LIMITS)) == \
        "user_id is required (memory is always scoped by user_id)"


def test_an_optional_id_may_be_missing() -> None:
    assert check_id(None, "session_id", LIMITS, required=False) is None


def test_an_optional_id_given_is_checked() -> None:
    assert message(lambda: check_id("", "session_id", LIMITS, required=False)) == "session_id must not be empty"


def test_an_id_must_be_a_string() -> None:
    assert message(lambda: check_id(7, "user_id", LIMITS)) == "user_id must be a string, got int"


def test_an_id_must_not_be_blank() -> None:
    assert message(lambda: check_id("  ", "user_id", LIMITS)) == "user_id must not be empty"


def test_an_id_at_the_length_limit_is_accepted() -> None:
    assert check_id("abcde", "user_id", LIMITS) == "abcde"


def test_an_id_over_the_length_limit_is_refused() -> None:
    assert message(lambda: check_id("abcdef", "user_id", LIMITS)) == "user_id is longer than 5 characters"


def test_an_id_with_a_control_character_is_refused() -> None:
    assert message(lambda: check_id("a\x1fb", "user_id", LIMITS)) == "user_id must not contain control characters"


def test_an_id_with_a_space_is_accepted() -> None:
    assert check_id("a b", "user_id", LIMITS) == "a b"


def test_an_id_with_a_lone_surrogate_is_refused() -> None:
    assert message(lambda: check_id("ab\ud800", "user_id", LIMITS)) == \
        "user_id is not valid Unicode text (lone surrogate at 2)"


def test_check_user_returns_the_id() -> None:
    assert check_user("alice", LIMITS) == "alice"


def test_check_user_requires_a_user() -> None:
    assert message(lambda: check_user(None, LIMITS)) == "user_id is required (memory is always scoped by user_id)"


# -- check_ids -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [["a", "b"], ("a", "b"), frozenset({"a"}), {"a"}])
def test_ids_of_every_collection_type(value: object) -> None:
    assert sorted(check_ids(value, LIMITS)) == sorted(value)  # type: ignore[call-overload]


@pytest.mark.parametrize(("value", "kind"), [("ab", "str"), (b"ab", "bytes"), (7, "int"), ({"a": 1}, "dict")])
def test_ids_must_be_a_list(value: object, kind: str) -> None:
    assert message(lambda: check_ids(value, LIMITS)) == f"ids must be a list of id strings, got {kind}"


def test_ids_at_the_length_limit_are_accepted() -> None:
    assert check_ids(["abcde"], LIMITS) == ["abcde"]


def test_ids_over_the_length_limit_are_refused() -> None:
    assert message(lambda: check_ids(["abcdef"], LIMITS, "memory_ids")) == \
        "memory_ids must contain id strings of at most 5 characters"


def test_ids_must_be_strings() -> None:
    assert message(lambda: check_ids([1], LIMITS)) == "ids must contain id strings of at most 5 characters"


# -- check_content ------------------------------------------------------------------------------------------------


def test_content_is_returned_unchanged() -> None:
    assert check_content(" hi ", LIMITS) == " hi "


def test_content_must_be_a_string() -> None:
    assert message(lambda: check_content(3, LIMITS, "text")) == "text must be a string, got int"


def test_content_must_not_be_blank() -> None:
    assert message(lambda: check_content(" \n", LIMITS)) == "content must not be empty or whitespace"


def test_content_at_the_length_limit_is_accepted() -> None:
    assert check_content("x" * 10, LIMITS) == "x" * 10


def test_content_over_the_length_limit_is_refused() -> None:
    big = LimitsConfig(max_content_chars=1000)
    assert message(lambda: check_content("x" * 1001, big)) == (
        "content has 1,001 characters; the limit is 1,000 (limits.max_content_chars)"
        " - split long documents before storing them")


def test_content_with_nul_is_refused() -> None:
    assert message(lambda: check_content("a\x00b", LIMITS)) == "content must not contain NUL characters"


def test_content_with_a_lone_surrogate_is_refused() -> None:
    assert message(lambda: check_content("a\udc00", LIMITS)) == \
        "content is not valid Unicode text (lone surrogate at 1)"


# -- check_metadata -------------------------------------------------------------------------------------------------


def test_no_metadata_is_empty() -> None:
    assert check_metadata(None, LIMITS) == {}


def test_metadata_is_a_json_copy() -> None:
    assert check_metadata({"a": (1, 2)}, LIMITS) == {"a": [1, 2]}


def test_metadata_must_be_a_mapping() -> None:
    assert message(lambda: check_metadata([1], LIMITS)) == "metadata must be a mapping, got list"


def test_metadata_keys_must_be_strings() -> None:
    assert message(lambda: check_metadata({1: "a"}, LIMITS)) == "metadata keys must be strings"


def test_metadata_must_be_json() -> None:
    assert message(lambda: check_metadata({"a": object()}, LIMITS)).startswith(
        "metadata must be JSON-serialisable: Object of type object")


def test_metadata_must_not_hold_nan() -> None:
    assert message(lambda: check_metadata({"a": float("nan")}, LIMITS)).startswith(
        "metadata must be JSON-serialisable: Out of range float values")


def test_metadata_with_a_lone_surrogate_is_refused() -> None:
    assert message(lambda: check_metadata({"a": "\ud800"}, LIMITS)) == \
        "metadata is not valid Unicode text (lone surrogate at 7)"


def test_metadata_at_the_size_limit_is_accepted() -> None:
    assert check_metadata({"a": "x" * 11}, LIMITS) == {"a": "x" * 11}  # {"a": "xxxxxxxxxxx"} = 20 bytes


def test_metadata_over_the_size_limit_is_refused() -> None:
    assert message(lambda: check_metadata({"a": "x" * 12}, LIMITS)) == "metadata is larger than 20 bytes"


def test_metadata_size_counts_utf8_bytes_not_escapes() -> None:
    assert check_metadata({"a": "é" * 5}, LIMITS) == {"a": "é" * 5}  # 19 bytes as UTF-8, 39 as \u escapes


# -- check_timestamp ------------------------------------------------------------------------------------------------


def test_no_timestamp_is_none() -> None:
    assert check_timestamp(None) is None


def test_a_timestamp_is_converted_to_utc() -> None:
    assert check_timestamp(datetime(2024, 5, 1, 14, tzinfo=timezone(timedelta(hours=2)))) == NOW


def test_an_iso_timestamp_is_parsed() -> None:
    assert check_timestamp("2024-05-01T12:00:00Z") == NOW


def test_a_timestamp_of_another_type_is_refused() -> None:
    assert message(lambda: check_timestamp(1.5, "at")) == "at must be a timezone-aware datetime, got float"


def test_a_naive_timestamp_names_the_field() -> None:
    assert message(lambda: check_timestamp(datetime(2024, 5, 1), "at")).startswith("at: naive datetime")


# -- check_score -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [0, 0.0, 0.5, 1, 1.0])
def test_scores_in_the_closed_unit_interval(value: float) -> None:
    assert check_score(value, "importance") == float(value)


def test_a_score_is_a_float() -> None:
    assert type(check_score(1, "importance")) is float


@pytest.mark.parametrize("value", [-0.01, 1.01, 2])
def test_scores_outside_the_unit_interval(value: float) -> None:
    assert message(lambda: check_score(value, "importance")) == f"importance must be between 0 and 1, got {value}"


@pytest.mark.parametrize("value", [True, "0.5", None, float("nan"), float("inf")])
def test_scores_must_be_finite_numbers(value: object) -> None:
    assert message(lambda: check_score(value, "importance")) == "importance must be a finite number"


# -- check_positive_int -----------------------------------------------------------------------------------------------


def test_one_is_positive() -> None:
    assert check_positive_int(1, "k") == 1


@pytest.mark.parametrize("value", [0, -1, True, 1.0, "1"])
def test_not_positive_integers(value: object) -> None:
    assert message(lambda: check_positive_int(value, "k")) == "k must be a positive integer"


def test_the_minimum_is_accepted() -> None:
    assert check_positive_int(0, "k", minimum=0) == 0


def test_below_the_minimum() -> None:
    assert message(lambda: check_positive_int(1, "k", minimum=2)) == "k must be an integer >= 2"


def test_below_a_minimum_of_zero() -> None:
    assert message(lambda: check_positive_int(-1, "k", minimum=0)) == "k must be an integer >= 0"


# -- check_turn --------------------------------------------------------------------------------------------------------


def turn(**kw: object) -> dict[str, object]:
    return {"user_id": "alice", "role": " User", "content": "hello", **kw}


def test_a_minimal_turn() -> None:
    e = check_turn(turn(), LIMITS, NOW)
    assert (e.user_id, e.session_id, e.role, e.content, e.timestamp, e.ingested_at, e.metadata, e.importance) == \
        ("alice", None, "user", "hello", NOW, NOW, {}, 0.5)


def test_a_turn_gets_an_episode_id() -> None:
    assert check_turn(turn(), LIMITS, NOW).id.startswith("ep_")


def test_turns_get_distinct_ids() -> None:
    assert check_turn(turn(), LIMITS, NOW).id != check_turn(turn(), LIMITS, NOW).id


def test_a_full_turn() -> None:
    e = check_turn(turn(session_id="s1", timestamp="2024-01-01T00:00:00+00:00", metadata={"k": 1}, importance=0.9),
                   LIMITS, NOW)
    assert (e.session_id, e.timestamp, e.metadata, e.importance) == \
        ("s1", datetime(2024, 1, 1, tzinfo=timezone.utc), {"k": 1}, 0.9)


def test_a_turn_must_be_a_mapping() -> None:
    assert message(lambda: check_turn(["alice"], LIMITS, NOW)) == "each turn must be a mapping, got list"


def test_a_turn_with_unknown_fields() -> None:
    assert message(lambda: check_turn(turn(zz=1, speaker="x"), LIMITS, NOW)) == \
        "unknown turn fields: ['speaker', 'zz']"


def test_a_turn_needs_a_role() -> None:
    assert message(lambda: check_turn(turn(role=None), LIMITS, NOW)) == \
        "role is required (memory is always scoped by role)"


def test_a_turn_needs_a_user() -> None:
    assert message(lambda: check_turn(turn(user_id=None), LIMITS, NOW)) == \
        "user_id is required (memory is always scoped by user_id)"


def test_a_turns_session_is_checked() -> None:
    assert message(lambda: check_turn(turn(session_id="toolong"), LIMITS, NOW)) == \
        "session_id is longer than 5 characters"


def test_a_turns_content_is_checked() -> None:
    assert message(lambda: check_turn(turn(content=""), LIMITS, NOW)) == "content must not be empty or whitespace"


def test_a_turns_content_limit_is_the_configured_one() -> None:
    assert message(lambda: check_turn(turn(content="x" * 11), LIMITS, NOW)).startswith("content has 11 characters")


def test_a_turns_timestamp_is_checked() -> None:
    assert message(lambda: check_turn(turn(timestamp=5), LIMITS, NOW)) == \
        "timestamp must be a timezone-aware datetime, got int"


def test_a_turns_metadata_is_checked() -> None:
    assert message(lambda: check_turn(turn(metadata={"a": "x" * 12}), LIMITS, NOW)) == \
        "metadata is larger than 20 bytes"


def test_a_turns_importance_is_checked() -> None:
    assert message(lambda: check_turn(turn(importance=2), LIMITS, NOW)) == "importance must be between 0 and 1, got 2"


# -- the offending field is named on the error ---------------------------------------------------------------


def field_of(call: Callable[[], object]) -> str | None:
    with pytest.raises(InvalidInputError) as info:
        call()
    return info.value.field  # type: ignore[no-any-return]


@pytest.mark.parametrize(("call", "field"), [
    (lambda: check_id(None, "session_id", LIMITS), "session_id"),
    (lambda: check_id(7, "session_id", LIMITS), "session_id"),
    (lambda: check_id(" ", "session_id", LIMITS), "session_id"),
    (lambda: check_id("abcdef", "session_id", LIMITS), "session_id"),
    (lambda: check_id("a\x01", "session_id", LIMITS), "session_id"),
    (lambda: check_id("a\ud800", "session_id", LIMITS), "session_id"),
    (lambda: check_ids("ab", LIMITS, "memory_ids"), "memory_ids"),
    (lambda: check_ids(["abcdef"], LIMITS, "memory_ids"), "memory_ids"),
    (lambda: check_content(3, LIMITS, "text"), "text"),
    (lambda: check_content(" ", LIMITS, "text"), "text"),
    (lambda: check_content("x" * 11, LIMITS, "text"), "text"),
    (lambda: check_content("a\x00", LIMITS, "text"), "text"),
    (lambda: check_metadata([1], LIMITS), "metadata"),
    (lambda: check_metadata({1: 2}, LIMITS), "metadata"),
    (lambda: check_metadata({"a": object()}, LIMITS), "metadata"),
    (lambda: check_metadata({"a": "x" * 12}, LIMITS), "metadata"),
    (lambda: check_timestamp(1.5, "at"), "at"),
    (lambda: check_score(None, "importance"), "importance"),
    (lambda: check_score(2, "importance"), "importance"),
    (lambda: check_positive_int(0, "k"), "k"),
    (lambda: check_turn([], LIMITS, NOW), "turns"),
    (lambda: check_turn({"zz": 1}, LIMITS, NOW), "turns"),
    (lambda: check_texts("ab", LIMITS, "docs"), "docs"),
    (lambda: check_texts(["a"] * 3, LimitsConfig(max_texts=2), "docs"), "docs"),
    (lambda: check_texts(["a", 1], LIMITS, "docs"), "docs"),
])
def test_the_error_names_the_field(call: Callable[[], object], field: str) -> None:
    assert field_of(call) == field


# -- check_texts ----------------------------------------------------------------------------------------------------


def test_texts_are_a_list_copy() -> None:
    assert check_texts(("a", "b"), LIMITS) == ["a", "b"]


def test_texts_at_the_count_limit_are_accepted() -> None:
    assert check_texts(["a", "b"], LimitsConfig(max_texts=2)) == ["a", "b"]


def test_texts_over_the_count_limit_are_refused() -> None:
    assert message(lambda: check_texts(["a"] * 3, LimitsConfig(max_texts=2))) == \
        "texts has 3 items; limits.max_texts is 2"


@pytest.mark.parametrize(("value", "kind"), [("ab", "str"), (b"ab", "bytes"), (5, "int")])
def test_texts_must_be_a_list(value: object, kind: str) -> None:
    assert message(lambda: check_texts(value, LIMITS)) == f"texts must be a list of strings, not {kind}"


def test_every_text_must_be_a_string() -> None:
    assert message(lambda: check_texts(["a", "b", 3], LIMITS)) == "texts[2] must be a string, not int"
