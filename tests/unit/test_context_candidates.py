"""How many candidates ``context()`` packs for a budget (``SearchConfig.candidates_for``)."""

from __future__ import annotations

import pytest

from nova_memory_integrations.retrieval.search_config import CANDIDATES_BUDGET, PRESETS, SearchConfig


def test_the_reference_budget_is_a_thousand_tokens() -> None:
    assert CANDIDATES_BUDGET == 1_000


def test_the_default_packs_forty_candidates() -> None:
    assert SearchConfig().candidates_for(1_000) == 40


@pytest.mark.parametrize(("budget", "expected"), [(2_000, 80), (4_000, 160), (1_500, 60), (1_001, 41)])
def test_a_larger_budget_takes_proportionally_more(budget: int, expected: int) -> None:
    assert SearchConfig().candidates_for(budget) == expected


@pytest.mark.parametrize("budget", [1, 200, 999, 1_000])
def test_a_smaller_budget_keeps_the_configured_number(budget: int) -> None:
    assert SearchConfig(context_candidates=25).candidates_for(budget) == 25


def test_the_scaled_number_rounds_up() -> None:
    assert SearchConfig(context_candidates=3).candidates_for(1_100) == 4


def test_each_preset_scales_its_own_number() -> None:
    assert PRESETS["deep"].candidates_for(2_000) == 2 * PRESETS["deep"].context_candidates
