"""Input validation of the public API, boundary by boundary (kills the mutants of
``engine/validation.py``). Error messages are compared whole: they are what a caller reads."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest

from nova_memory_integrations._time import EARLIEST, LATEST
from nova_memory_integrations.config import LimitsConfig
from nova_memory_integrations.engine import validation
from nova_memory_integrations.engine.validation import (
    CONTENT,
    MAINTENANCE_ARGUMENTS,
    MAX_K,
    SESSION_ID,
    STORE_ARGUMENTS,
    K,
    check_content,
    check_epoch,
    check_flag,
    check_id,
    check_ids,
    check_kinds,
    check_metadata,
    check_name,
    check_positive_int,
    check_score,
    check_texts,
    check_timestamp,
    check_turn,
    check_user,
    checked_arguments,
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
    assert (e.user_id, e.session_id, e.role, e.content, e.timestamp, e.ingested_at, e.metadata, e.importance,
            e.source) == ("alice", None, "user", "hello", NOW, NOW, {}, 0.1, "inferred")  # "hello": small talk


def test_a_turn_without_importance_is_assessed_and_one_with_it_keeps_it() -> None:
    roomy = LimitsConfig()
    asked = check_turn(turn(content="I'm allergic to penicillin, never forget this"), roomy, NOW)
    assert (asked.importance, asked.source) == (0.9, "explicit")
    assert check_turn(turn(content="I went for a walk today"), roomy, NOW).importance == 0.5
    given = check_turn(turn(content="I'm allergic to penicillin", importance=0.2, source="inferred"), roomy, NOW)
    assert (given.importance, given.source) == (0.2, "inferred")
    assert check_turn(turn(role="assistant", content="Remember: I'm allergic to nothing"), roomy, NOW).source == \
        "inferred"


def test_a_turn_source_is_explicit_or_inferred() -> None:
    with pytest.raises(InvalidInputError) as info:
        check_turn(turn(source="told"), LIMITS, NOW)
    assert info.value.field == "source"


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


# -- check_ids: encoding -------------------------------------------------------------------------------------------


def test_ids_with_a_lone_surrogate_are_refused() -> None:
    assert message(lambda: check_ids(["a\ud800"], LIMITS, "memory_ids")) == \
        "memory_ids is not valid Unicode text (lone surrogate at 1)"


def test_ids_with_a_lone_surrogate_name_the_field() -> None:
    assert field_of(lambda: check_ids(["a\ud800"], LIMITS, "memory_ids")) == "memory_ids"


# -- check_turn: unknown fields of any type ----------------------------------------------------------------------


def test_unknown_turn_fields_of_mixed_types_are_listed_by_repr() -> None:
    assert message(lambda: check_turn({**turn(), 1: "x", "zz": 2}, LIMITS, NOW)) == "unknown turn fields: ['zz', 1]"


# -- check_name ------------------------------------------------------------------------------------------------------


def test_no_name_is_none() -> None:
    assert check_name(None, LIMITS, "subject") is None


def test_a_name_is_returned() -> None:
    assert check_name("user", LIMITS, "subject") == "user"


def test_a_name_must_not_be_blank() -> None:
    assert message(lambda: check_name(" ", LIMITS, "subject")) == "subject must not be empty or whitespace"


def test_a_name_must_be_a_string() -> None:
    assert message(lambda: check_name(3, LIMITS, "predicate")) == "predicate must be a string, got int"


def test_a_name_over_the_configured_limit_is_refused() -> None:
    assert message(lambda: check_name("x" * 11, LIMITS, "subject")).startswith("subject has 11 characters")


def test_a_bad_name_names_the_field() -> None:
    assert field_of(lambda: check_name("", LIMITS, "predicate")) == "predicate"


# -- check_flag ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "expected"), [(True, True), (False, False), (1, True), (0, False)])
def test_flags(value: object, expected: bool) -> None:
    assert check_flag(value, "merge") is expected


@pytest.mark.parametrize(("value", "kind"), [(2, "int"), (-1, "int"), (1.0, "float"), ("yes", "str"), (None, "NoneType")])
def test_not_flags(value: object, kind: str) -> None:
    assert message(lambda: check_flag(value, "dry_run")) == f"dry_run must be True or False, got {kind}"


def test_a_bad_flag_names_the_field() -> None:
    assert field_of(lambda: check_flag(2, "dry_run")) == "dry_run"


# -- check_kinds -----------------------------------------------------------------------------------------------------


def test_no_kinds() -> None:
    assert message(lambda: check_kinds([])) == "kinds must be a non-empty list of episode, fact, rule"


def test_kinds_of_another_type() -> None:
    assert message(lambda: check_kinds(3, "types")) == "types must be a non-empty list of episode, fact, rule"


def test_an_unknown_kind() -> None:
    assert message(lambda: check_kinds(["fact", "memo"], "types")) == \
        "types: unknown kind 'memo' (use episode, fact, rule)"


def test_a_kind_that_is_no_string() -> None:
    assert message(lambda: check_kinds([7])) == "kinds: unknown kind 7 (use episode, fact, rule)"


def test_kinds_keep_their_first_order() -> None:
    assert check_kinds(("rule", "episode", "rule")) == ("rule", "episode")


def test_every_kind() -> None:
    assert check_kinds({"episode"}) == ("episode",)


# -- check_epoch / check_positive_int at their upper and lower bounds ----------------------------------------------


def test_the_earliest_epoch_is_accepted() -> None:
    assert check_epoch(EARLIEST.timestamp(), "valid_from") == EARLIEST.timestamp()


def test_the_latest_epoch_is_refused() -> None:
    assert message(lambda: check_epoch(LATEST.timestamp(), "valid_from")) == (
        f"valid_from: {LATEST.timestamp()!r} is outside the supported range "
        f"{EARLIEST.year}-01-01 .. {LATEST.year}-01-01")


def test_the_maximum_count_is_accepted() -> None:
    assert check_positive_int(MAX_K, "k", maximum=MAX_K) == MAX_K


def test_one_over_the_maximum_count_is_refused() -> None:
    assert message(lambda: check_positive_int(MAX_K + 1, "k", maximum=MAX_K)) == "k must be at most 10,000, got 10,001"


# -- the facade's argument checks (STORE_ARGUMENTS, MAINTENANCE_ARGUMENTS) ------------------------------------------
# The checks built at import time (``_optional(...)``, ``_count(...)`` ...) are also built again here, inside the
# tests: code that runs at import cannot be mutated by mutmut's trampolines.

ARGUMENT_CHECKS = {param: check for table in (STORE_ARGUMENTS, MAINTENANCE_ARGUMENTS) for checks in table.values()
                   for param, check in checks.items()}
"""Parameter name -> the check declared for it (one per name across the facade's methods)."""


def check_message(name: str, value: object, field: str | None = None) -> str:
    return message(lambda: ARGUMENT_CHECKS[name](value, field or name, LIMITS))


def check_field(name: str, value: object, field: str) -> str | None:
    return field_of(lambda: ARGUMENT_CHECKS[name](value, field, LIMITS))


@pytest.mark.parametrize(("name", "value"), [
    ("session_id", None), ("session_id", "s1"), ("fact_id", "f1"), ("kinds", ["fact"]), ("kinds", "rule"),
    ("source_episode_ids", ["e1", "e2"]), ("subject", None), ("subject", "user"), ("predicates", None),
    ("predicates", ["likes"]), ("predicates", iter(["likes"])), ("reason", "why"), ("start", "alice"),
    ("query", ""), ("text", "hi"), ("turns", [{}]), ("turns", iter([])), ("k", 1), ("k", MAX_K), ("k", None),
    ("max_hops", 0), ("max_hops", 100), ("limit", 1), ("budget_tokens", 10**9), ("min_similarity", -1.0),
    ("min_similarity", 1), ("timeout", None), ("timeout", 0), ("timeout", 1e9), ("include_history", True),
    ("newest_first", 0), ("rerank", None), ("rerank", False), ("consolidation", None), ("consolidation", "manual"),
])
def test_arguments_that_pass(name: str, value: object) -> None:
    assert ARGUMENT_CHECKS[name](value, name, LIMITS) is None


@pytest.mark.parametrize(("name", "value", "expected"), [
    ("session_id", "toolong", "session_id is longer than 5 characters"),
    ("fact_id", None, "fact_id is required (memory is always scoped by fact_id)"),
    ("kinds", ["memo"], "kinds: unknown kind 'memo' (use episode, fact, rule)"),
    ("source_episode_ids", "e1", "source_episode_ids must be a list of id strings, got str"),
    ("source_episode_ids", ["abcdef"], "source_episode_ids must contain id strings of at most 5 characters"),
    ("subject", "", "subject must not be empty or whitespace"),
    ("subject", "x" * 11, "subject has 11 characters; the limit is 10 (limits.max_content_chars) - split long "
                          "documents before storing them"),
    ("reason", " ", "reason must not be empty or whitespace"),
    ("reason", "x" * 11, "reason has 11 characters; the limit is 10 (limits.max_content_chars) - split long "
                         "documents before storing them"),
    ("query", 3, "query must be a string, got int"),
    ("query", "a\ud800", "query is not valid Unicode text (lone surrogate at 1)"),
    ("predicates", "likes", "predicates must be a list of strings, got str"),
    ("predicates", b"likes", "predicates must be a list of strings, got bytes"),
    ("predicates", {"likes": 1}, "predicates must be a list of strings, got dict"),
    ("predicates", 3, "predicates must be a list of strings, got int"),
    ("predicates", ["likes", ""], "predicates must not be empty or whitespace"),
    ("predicates", ["x" * 11], "predicates has 11 characters; the limit is 10 (limits.max_content_chars) - split "
                               "long documents before storing them"),
    ("turns", "hi", "turns must be a list of mappings, got str"),
    ("turns", b"hi", "turns must be a list of mappings, got bytes"),
    ("turns", {"user_id": "u"}, "turns must be a list of mappings, got dict"),
    ("turns", 3, "turns must be a list of mappings, got int"),
    ("k", 0, "k must be a positive integer"),
    ("k", MAX_K + 1, "k must be at most 10,000, got 10,001"),
    ("max_hops", -1, "max_hops must be an integer >= 0"),
    ("max_hops", 101, "max_hops must be at most 100, got 101"),
    ("min_similarity", 1.01, "min_similarity must be a number between -1 and 1"),
    ("min_similarity", -1.01, "min_similarity must be a number between -1 and 1"),
    ("min_similarity", True, "min_similarity must be a number between -1 and 1"),
    ("min_similarity", "0.5", "min_similarity must be a number between -1 and 1"),
    ("timeout", -0.5, "timeout must be a number between 0 and 1e+09"),
    ("include_history", 2, "include_history must be True or False, got int"),
    ("rerank", "yes", "rerank must be True or False, got str"),
    ("consolidation", "later", "consolidation must be one of immediate, background, manual, not 'later'"),
    ("consolidation", 3, "consolidation must be one of immediate, background, manual, not 3"),
])
def test_arguments_that_fail(name: str, value: object, expected: str) -> None:
    assert check_message(name, value) == expected


@pytest.mark.parametrize(("name", "value"), [
    ("session_id", 3), ("kinds", []), ("source_episode_ids", ["a\ud800"]), ("subject", ""), ("reason", ""),
    ("query", 3), ("predicates", "x"), ("predicates", [""]), ("turns", "x"), ("k", 0), ("min_similarity", 2),
    ("include_history", None), ("consolidation", "x"),
])
def test_a_failing_argument_names_its_parameter(name: str, value: object) -> None:
    assert check_field(name, value, "param") == "param"


def test_an_optional_check_skips_none() -> None:
    assert validation._optional(validation._content)(None, "subject", LIMITS) is None


def test_an_optional_check_checks_a_value() -> None:
    assert message(lambda: validation._optional(validation._content)(" ", "context", LIMITS)) == \
        "context must not be empty or whitespace"


def test_an_optional_check_passes_the_limits() -> None:
    assert message(lambda: validation._optional(validation._content)("x" * 11, "context", LIMITS)).startswith(
        "context has 11 characters; the limit is 10 ")


def test_an_optional_check_passes_a_good_value() -> None:
    assert validation._optional(validation._content)("ok", "context", LIMITS) is None


@pytest.mark.parametrize("value", [-2.0, 0, 3, 3.0])
def test_a_number_check_at_its_bounds(value: float) -> None:
    assert validation._number(-2.0, 3.0)(value, "w", LIMITS) is None


@pytest.mark.parametrize("value", [-2.01, 3.01, False, None, "1"])
def test_a_number_check_outside_its_bounds(value: object) -> None:
    assert message(lambda: validation._number(-2.0, 3.0)(value, "w", LIMITS)) == "w must be a number between -2 and 3"


def test_a_number_check_names_the_field() -> None:
    assert field_of(lambda: validation._number(0.0, 1.0)(2, "w", LIMITS)) == "w"


@pytest.mark.parametrize("value", [None, 2, 5])
def test_a_count_check_within_its_bounds(value: object) -> None:
    assert validation._count(2, 5)(value, "n", LIMITS) is None


@pytest.mark.parametrize(("value", "expected"), [(1, "n must be an integer >= 2"), (6, "n must be at most 5, got 6")])
def test_a_count_check_outside_its_bounds(value: int, expected: str) -> None:
    assert message(lambda: validation._count(2, 5)(value, "n", LIMITS)) == expected


def test_a_count_check_names_the_field() -> None:
    assert field_of(lambda: validation._count(2, 5)(6, "n", LIMITS)) == "n"


@pytest.mark.parametrize("value", [None, "a", "b"])
def test_a_choice(value: object) -> None:
    assert validation._choice("a", "b")(value, "mode", LIMITS) is None


@pytest.mark.parametrize(("value", "shown"), [("c", "'c'"), ("", "''"), (1, "1"), (["a"], "['a']")])
def test_not_a_choice(value: object, shown: str) -> None:
    assert message(lambda: validation._choice("a", "b")(value, "mode", LIMITS)) == f"mode must be one of a, b, not {shown}"


def test_not_a_choice_names_the_field() -> None:
    assert field_of(lambda: validation._choice("a", "b")("c", "mode", LIMITS)) == "mode"


def test_an_optional_id_check() -> None:
    assert validation._id(False)(None, "session_id", LIMITS) is None


def test_a_required_id_check() -> None:
    assert message(lambda: validation._id(True)(None, "fact_id", LIMITS)) == \
        "fact_id is required (memory is always scoped by fact_id)"


def test_an_id_check_passes_the_limits() -> None:
    assert message(lambda: validation._id(False)("toolong", "agent_id", LIMITS)) == "agent_id is longer than 5 characters"


def test_an_id_check_passes_a_good_id() -> None:
    assert validation._id(True)("abc", "fact_id", LIMITS) is None


# -- checked_arguments ------------------------------------------------------------------------------------------------


def facade(**declare: dict[str, validation.Check]) -> Any:
    """A class decorated here, at test time (the decorator's own mutants are live then); ``declare``
    adds declarations to the one of ``read``."""

    class Facade:
        config = SimpleNamespace(limits=LIMITS)

        def read(self, user_id: str, k: int = 5, *, session_id: str | None = None, reason: str = "why") -> object:
            return (user_id, k, session_id, reason)

        def write(self, k: object = 5) -> object:
            return k

        def _private(self, k: object = 5) -> object:
            return k

        @property
        def size(self) -> int:
            return 1

        class Inner:
            def __init__(self, a: object, k: object = 5) -> None:
                self.k = k

    return checked_arguments({"read": {"k": K, "session_id": SESSION_ID, "reason": CONTENT}, **declare})(Facade)


def test_checked_arguments_call_the_method() -> None:
    assert facade()().read("u", 3, session_id="s", reason="r") == ("u", 3, "s", "r")


def test_checked_arguments_with_arguments_left_out() -> None:
    assert facade()().read("u") == ("u", 5, None, "why")


def test_checked_arguments_check_a_positional_argument() -> None:
    assert message(lambda: facade()().read("u", 0)) == "k must be a positive integer"


def test_checked_arguments_check_a_keyword_argument() -> None:
    assert message(lambda: facade()().read("u", k=0)) == "k must be a positive integer"


def test_checked_arguments_name_the_parameter() -> None:
    assert field_of(lambda: facade()().read("u", session_id=3)) == "session_id"


def test_checked_arguments_use_the_configured_limits() -> None:
    assert message(lambda: facade()().read("u", reason="x" * 11)).startswith("reason has 11 characters")


def test_checked_arguments_refuse_none_without_a_none_default() -> None:
    assert message(lambda: facade()().read("u", None)) == "k must not be None"


def test_checked_arguments_refusing_none_name_the_parameter() -> None:
    assert field_of(lambda: facade()().read("u", reason=None)) == "reason"


def test_checked_arguments_accept_none_with_a_none_default() -> None:
    assert facade()().read("u", session_id=None) == ("u", 5, None, "why")


def test_checked_arguments_keep_the_method_name() -> None:
    assert facade().read.__name__ == "read"


def test_checked_arguments_leave_an_undeclared_method_alone() -> None:
    """``write`` has a parameter ``k`` too: a name alone binds no check."""
    assert facade()().write(0) == 0


def test_checked_arguments_check_the_declared_parameter_of_a_second_method() -> None:
    assert message(lambda: facade(write={"k": K})().write(0)) == "k must be a positive integer"


def test_checked_arguments_never_read_a_keyword_only_parameter_from_the_positions() -> None:
    """A third positional argument is no ``session_id`` (keyword-only): Python refuses the call itself."""
    with pytest.raises(TypeError, match="positional"):
        facade()().read("u", 3, 4)


@pytest.mark.parametrize("method", ["_private", "size", "Inner", "missing"])
def test_checked_arguments_refuse_a_declaration_for_no_public_method(method: str) -> None:
    with pytest.raises(TypeError, match=f"Facade.{method}: argument checks are declared for it"):
        facade(**{method: {"k": K}})


def test_a_renamed_parameter_without_its_declaration_fails_at_import() -> None:
    """``read``'s ``k`` renamed ``top_k`` while the declaration still says ``k``: the class cannot be made."""
    def read(self: object, top_k: int = 5) -> int:
        return top_k

    with pytest.raises(TypeError, match=r"Facade.read has no parameter 'k', but a check is declared for it"):
        checked_arguments({"read": {"k": K}})(type("Facade", (), {"read": read}))


def test_a_declaration_for_a_catch_all_parameter_is_refused() -> None:
    def read(self: object, **kw: object) -> object:
        return kw

    with pytest.raises(TypeError, match="has no parameter 'kw'"):
        checked_arguments({"read": {"kw": K}})(type("Facade", (), {"read": read}))


def test_metadata_too_deep_after_a_plain_value_is_refused() -> None:
    deep: Any = "leaf"
    for _ in range(validation.MAX_METADATA_DEPTH):
        deep = [deep]
    value = {"deep": deep, "plain": 1}  # the plain value is looked at first
    assert message(lambda: check_metadata(value, LimitsConfig(max_metadata_bytes=10_000))) == \
        "metadata nests deeper than 32 levels"
