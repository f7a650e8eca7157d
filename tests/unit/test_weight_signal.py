"""The effective-weight ranking signal (#17) on hand-made cases: pure functions, no store, no model.

``weight_at`` is the lifecycle's ``importance * (1 + access_mult * ln(access_count + 1)) *
exp(-decay_rate * age_days)`` with the age taken from event times; ``weight_reference`` is the
present it decays towards (the query time, but no later than the user's latest turn).
"""

from __future__ import annotations

import math
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from nova_memory_integrations.memory.lifecycle_rules import effective_weight
from nova_memory_integrations.retrieval.fusion import weight_at, weight_reference
from nova_memory_integrations.retrieval.search_config import PRESETS, SearchConfig, SignalWeights

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from locomo import candidate_table, search_config, with_overrides

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
DAY = timedelta(days=1)
SEED = {"access_mult": 0.5, "decay_rate": 0.01}


# -- weight_at: the formula --------------------------------------------------------------
def test_a_new_untouched_memory_weighs_its_importance() -> None:
    assert weight_at(0.5, 0, T0, T0, **SEED) == pytest.approx(0.5)


def test_one_hundred_days_at_one_percent_a_day_keep_e_to_the_minus_one() -> None:
    assert weight_at(1.0, 0, T0, T0 + 100 * DAY, **SEED) == pytest.approx(math.exp(-1))


def test_three_accesses_multiply_by_one_plus_half_ln_four() -> None:
    assert weight_at(0.4, 3, T0, T0, **SEED) == pytest.approx(0.4 * (1 + 0.5 * math.log(4)))


def test_the_three_factors_multiply() -> None:
    expected = 0.8 * (1 + 0.5 * math.log(8)) * math.exp(-0.01 * 30)
    assert weight_at(0.8, 7, T0, T0 + 30 * DAY, **SEED) == pytest.approx(expected)


def test_it_is_the_lifecycle_effective_weight_of_the_age_in_days() -> None:
    ref = T0 + timedelta(days=12, hours=6)
    assert weight_at(0.7, 2, T0, ref, **SEED) == effective_weight(0.7, 2, 12.25, **SEED)


def test_an_event_after_the_reference_does_not_gain_weight() -> None:
    assert weight_at(0.5, 0, T0 + 10 * DAY, T0, **SEED) == pytest.approx(0.5)


def test_no_event_time_means_no_decay() -> None:
    assert weight_at(0.5, 0, None, T0, **SEED) == pytest.approx(0.5)


def test_a_zero_decay_rate_keeps_an_old_memory_whole() -> None:
    assert weight_at(0.5, 0, T0, T0 + 1000 * DAY, access_mult=0.5, decay_rate=0.0) == pytest.approx(0.5)


def test_a_zero_access_multiplier_ignores_accesses() -> None:
    assert weight_at(0.5, 50, T0, T0, access_mult=0.0, decay_rate=0.01) == pytest.approx(0.5)


def test_more_accessed_weighs_more() -> None:
    assert weight_at(0.5, 4, T0, T0 + DAY, **SEED) > weight_at(0.5, 1, T0, T0 + DAY, **SEED)


def test_more_important_weighs_more() -> None:
    assert weight_at(0.9, 0, T0, T0 + DAY, **SEED) > weight_at(0.3, 0, T0, T0 + DAY, **SEED)


def test_more_recent_weighs_more() -> None:
    assert weight_at(0.5, 0, T0 + 5 * DAY, T0 + 9 * DAY, **SEED) > weight_at(0.5, 0, T0, T0 + 9 * DAY, **SEED)


def test_zero_importance_weighs_nothing_however_often_accessed() -> None:
    assert weight_at(0.0, 99, T0, T0, **SEED) == 0.0


def test_the_ratio_of_two_weights_does_not_depend_on_the_reference() -> None:
    def ratio(ref: datetime) -> float:
        return weight_at(0.5, 0, T0 + 20 * DAY, ref, **SEED) / weight_at(0.5, 0, T0, ref, **SEED)

    assert ratio(T0 + 30 * DAY) == pytest.approx(ratio(T0 + 900 * DAY))


# -- weight_reference: the user's present ----------------------------------------------------
def test_the_reference_is_the_latest_turn_when_the_query_comes_later() -> None:
    assert weight_reference(T0 + 900 * DAY, T0) == T0


def test_the_reference_is_the_query_time_when_it_comes_before_the_latest_turn() -> None:
    assert weight_reference(T0, T0 + 5 * DAY) == T0


def test_the_reference_is_the_query_time_for_a_user_without_turns() -> None:
    assert weight_reference(T0, None) == T0


def test_the_reference_is_the_query_time_when_both_are_equal() -> None:
    assert weight_reference(T0, T0) == T0


def test_a_memory_of_the_latest_turn_keeps_its_full_weight_years_later() -> None:
    ref = weight_reference(T0 + 3 * 365 * DAY, T0)
    assert weight_at(0.5, 0, T0, ref, **SEED) == pytest.approx(0.5)


# -- the config field ----------------------------------------------------------------------------
def test_the_signal_is_off_in_every_preset() -> None:
    assert {name: p.weights.effective_weight for name, p in PRESETS.items()} == dict.fromkeys(PRESETS, 0.0)


def test_a_negative_weight_is_refused() -> None:
    with pytest.raises(ValueError, match="effective_weight"):
        SignalWeights(effective_weight=-0.1)


# -- the benchmark's candidate specs ---------------------------------------------------------
def test_a_plain_candidate_is_its_preset() -> None:
    assert search_config("balanced") == SearchConfig.preset("balanced")


def test_an_override_sets_a_nested_field() -> None:
    assert search_config("balanced+weights.effective_weight=0.05").weights.effective_weight == 0.05


def test_an_override_leaves_the_other_fields_alone() -> None:
    cfg = search_config("fast+weights.effective_weight=0.05")
    assert cfg.dense_k == SearchConfig.preset("fast").dense_k


def test_an_overridden_candidate_is_named_by_its_spec() -> None:
    assert search_config("balanced+rerank=false").name == "balanced+rerank=false"


def test_an_unknown_field_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown search config field"):
        search_config("balanced+weights.nothing=1")


def test_an_override_without_a_value_is_refused() -> None:
    with pytest.raises(ValueError, match="field=value"):
        search_config("balanced+weights.effective_weight")


def test_with_overrides_replaces_the_same_field() -> None:
    assert with_overrides("balanced+weights.effective_weight=0.1", ["weights.effective_weight=0"]) == \
        "balanced+weights.effective_weight=0"


def test_with_overrides_keeps_other_fields() -> None:
    assert with_overrides("deep+rerank=false", ["weights.effective_weight=0.05"]) == \
        "deep+rerank=false+weights.effective_weight=0.05"


def _rec(category: str, value: float) -> dict[str, object]:
    return {"category": category, "recall_at_k": value, "context_recall": value, "answer_words": value,
            "ndcg_at_10": value}


def test_a_candidate_table_averages_conversations_not_questions() -> None:
    results = {"a": {"c": [_rec("temporal", 1.0)]}, "b": {"c": [_rec("temporal", 0.0)] * 3}}
    assert candidate_table(results, "c")["heldout_mean"]["recall_at_k"] == 0.5


def test_a_candidate_table_averages_a_category_over_the_conversations_that_have_it() -> None:
    results = {"a": {"c": [_rec("temporal", 1.0), _rec("multi_hop", 0.2)]}, "b": {"c": [_rec("temporal", 0.5)]}}
    assert candidate_table(results, "c")["per_category_mean"]["multi_hop"]["context_recall"] == 0.2
