"""Bi-temporal planning rules, case by case (written to kill the mutants of ``memory/temporal.py``).

Each plan is compared whole: operation, reason (it is written to the decision log), the fact
to reinforce, the versions to close and the bound of the added one.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.memory.temporal import (
    Interval,
    Plan,
    decayed_confidence,
    normalize_value,
    plan_assertion,
    plan_negation,
    reinforced_confidence,
)

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
DAY = timedelta(days=1)

REPEAT = "repeat of a fact already valid; reinforced"
LATER = "same value already known from a later time; reinforced"
MULTI = "new value of a multi-valued predicate"
SUPERSEDES = "single-valued predicate: new value supersedes the old one"
HISTORY = "older value learnt after a newer one: kept as history"
NEW = "new fact"


def iv(fid: str, obj: str, start: datetime, end: datetime | None = None) -> Interval:
    return Interval(id=fid, object_norm=obj, valid_from=start, valid_to=end)


# -- normalize_value -------------------------------------------------------------------------


def test_normalize_replaces_punctuation_by_spaces() -> None:
    assert normalize_value("Hello, World!") == "hello world"


def test_normalize_strips_trailing_dots_and_dashes() -> None:
    assert normalize_value("-New York.") == "new york"


def test_normalize_drops_a_leading_article() -> None:
    assert normalize_value("The Beatles") == "beatles"


def test_normalize_keeps_inner_dots_and_plus_signs() -> None:
    assert normalize_value("C++ v1.2") == "c++ v1.2"


# -- confidence ------------------------------------------------------------------------------


def test_decay_applies_from_the_first_moment() -> None:
    assert decayed_confidence(0.8, age_days=0.5, half_life_days=0.5) == pytest.approx(0.4)


def test_no_decay_for_a_future_reinforcement() -> None:
    assert decayed_confidence(0.8, age_days=-3, half_life_days=10) == 0.8


def test_decay_halves_per_half_life() -> None:
    assert decayed_confidence(0.8, age_days=20, half_life_days=10) == pytest.approx(0.2)


def test_reinforcement_closes_part_of_the_gap() -> None:
    assert reinforced_confidence(0.5, rate=0.5, cap=0.9) == pytest.approx(0.7)


def test_reinforcement_never_exceeds_the_cap() -> None:
    assert reinforced_confidence(0.99, rate=0.5, cap=0.9) == pytest.approx(0.9)


# -- plan_assertion: repeats -----------------------------------------------------------------


def test_repeat_starting_at_the_same_instant_is_reinforced() -> None:
    plan = plan_assertion("lisbon", T0, [iv("f1", "lisbon", T0)], single_valued=True)
    assert plan == Plan("NOOP", REPEAT, reinforce_id="f1")


def test_repeat_within_a_closed_interval_is_reinforced() -> None:
    plan = plan_assertion("lisbon", T0, [iv("f1", "lisbon", T0 - DAY, T0 + DAY)], single_valued=True)
    assert plan == Plan("NOOP", REPEAT, reinforce_id="f1")


def test_same_value_that_ended_exactly_then_is_new() -> None:
    plan = plan_assertion("lisbon", T0, [iv("f1", "lisbon", T0 - DAY, T0)], single_valued=True)
    assert plan == Plan("ADD", NEW, add=True)


def test_same_value_starting_later_is_not_a_repeat_for_a_single_valued_predicate() -> None:
    plan = plan_assertion("lisbon", T0, [iv("f1", "lisbon", T0 + DAY)], single_valued=True)
    assert plan == Plan("ADD", HISTORY, add=True, new_valid_to=T0 + DAY)


def test_other_value_is_not_a_repeat_of_a_multi_valued_predicate() -> None:
    plan = plan_assertion("tea", T0, [iv("f1", "coffee", T0 - DAY)], single_valued=False)
    assert plan == Plan("ADD", MULTI, add=True)


# -- plan_assertion: multi-valued --------------------------------------------------------------


def test_multi_valued_same_value_known_from_later_is_reinforced() -> None:
    plan = plan_assertion("tea", T0, [iv("f1", "tea", T0 + DAY)], single_valued=False)
    assert plan == Plan("NOOP", LATER, reinforce_id="f1")


def test_multi_valued_same_value_from_later_but_ended_is_added() -> None:
    plan = plan_assertion("tea", T0, [iv("f1", "tea", T0 + DAY, T0 + 2 * DAY)], single_valued=False)
    assert plan == Plan("ADD", MULTI, add=True)


def test_multi_valued_other_value_from_later_is_added() -> None:
    plan = plan_assertion("tea", T0, [iv("f1", "coffee", T0 + DAY)], single_valued=False)
    assert plan == Plan("ADD", MULTI, add=True)


def test_multi_valued_new_value_never_closes_others() -> None:
    plan = plan_assertion("tea", T0, [iv("f1", "coffee", T0 - DAY)], single_valued=False)
    assert plan.close == {}


# -- plan_assertion: single-valued ---------------------------------------------------------------


def test_single_valued_new_value_closes_the_current_one() -> None:
    plan = plan_assertion("porto", T0, [iv("f1", "lisbon", T0 - DAY)], single_valued=True)
    assert plan == Plan("UPDATE", SUPERSEDES, close={"f1": T0}, add=True)


def test_single_valued_value_starting_at_the_same_instant_is_closed() -> None:
    plan = plan_assertion("porto", T0, [iv("f1", "lisbon", T0)], single_valued=True)
    assert plan == Plan("UPDATE", SUPERSEDES, close={"f1": T0}, add=True)


def test_single_valued_value_that_ended_before_is_left_alone() -> None:
    plan = plan_assertion("porto", T0, [iv("f1", "lisbon", T0 - 2 * DAY, T0 - DAY)], single_valued=True)
    assert plan == Plan("ADD", NEW, add=True)


def test_single_valued_value_that_ended_exactly_then_is_left_alone() -> None:
    plan = plan_assertion("porto", T0, [iv("f1", "lisbon", T0 - DAY, T0)], single_valued=True)
    assert plan == Plan("ADD", NEW, add=True)


def test_single_valued_same_value_ended_then_other_value_is_closed() -> None:
    existing = [iv("f0", "porto", T0 - 3 * DAY, T0 - 2 * DAY), iv("f1", "lisbon", T0 - DAY)]
    plan = plan_assertion("porto", T0, existing, single_valued=True)
    assert plan.close == {"f1": T0}


def test_single_valued_older_value_is_kept_as_history_until_the_newer_one() -> None:
    plan = plan_assertion("porto", T0, [iv("f1", "lisbon", T0 + DAY)], single_valued=True)
    assert plan == Plan("ADD", HISTORY, add=True, new_valid_to=T0 + DAY)


def test_history_ends_at_the_earliest_later_value_listed_last() -> None:
    existing = [iv("f2", "madrid", T0 + 3 * DAY), iv("f1", "lisbon", T0 + DAY)]
    plan = plan_assertion("porto", T0, existing, single_valued=True)
    assert plan.new_valid_to == T0 + DAY


def test_history_ends_at_the_earliest_later_value_listed_first() -> None:
    existing = [iv("f1", "lisbon", T0 + DAY), iv("f2", "madrid", T0 + 3 * DAY)]
    plan = plan_assertion("porto", T0, existing, single_valued=True)
    assert plan.new_valid_to == T0 + DAY


def test_update_both_closes_the_current_value_and_bounds_the_new_one() -> None:
    existing = [iv("f1", "lisbon", T0 - DAY, T0 + DAY), iv("f2", "madrid", T0 + DAY)]
    plan = plan_assertion("porto", T0, existing, single_valued=True)
    assert plan == Plan("UPDATE", SUPERSEDES, close={"f1": T0}, add=True, new_valid_to=T0 + DAY)


def test_single_valued_first_fact_is_new() -> None:
    assert plan_assertion("porto", T0, [], single_valued=True) == Plan("ADD", NEW, add=True)


# -- plan_negation ---------------------------------------------------------------------------------


def test_negation_closes_the_matching_value_at_the_statement_time() -> None:
    plan = plan_negation("tea", T0, [iv("f1", "tea", T0 - DAY), iv("f2", "coffee", T0 - DAY)])
    assert plan == Plan("DELETE", "statement says the fact no longer holds; validity closed", close={"f1": T0})


def test_negation_of_every_value_closes_all_current_ones() -> None:
    plan = plan_negation(None, T0, [iv("f1", "tea", T0 - DAY), iv("f2", "coffee", T0 - DAY)])
    assert plan.close == {"f1": T0, "f2": T0}


def test_negation_never_closes_before_a_version_starts() -> None:
    plan = plan_negation(None, T0, [iv("f1", "tea", T0 + DAY)])
    assert plan.close == {"f1": T0 + DAY}


def test_negation_skips_a_version_that_ended_exactly_then() -> None:
    plan = plan_negation(None, T0, [iv("f1", "tea", T0 - DAY, T0), iv("f2", "coffee", T0 - DAY, T0 + DAY)])
    assert plan.close == {"f2": T0}


def test_negation_of_a_value_not_held_is_a_noop() -> None:
    plan = plan_negation("tea", T0, [iv("f1", "coffee", T0 - DAY)])
    assert plan == Plan("NOOP", "negation of a fact that is not currently held")
