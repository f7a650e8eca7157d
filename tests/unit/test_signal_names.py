"""One enum names every score of recall: ``Signal``, the keys of ``SignalWeights`` and of explanations."""

from __future__ import annotations

import pytest

from nova_memory_integrations.retrieval.search_config import SearchConfig, Signal, SignalWeights


def test_every_weight_is_the_weight_of_a_signal() -> None:
    weights = SignalWeights()
    named = {s: weights.of(s) for s in Signal}
    fields = {name: getattr(weights, name) for name in SignalWeights.model_fields}
    assert sorted(fields.values()) == sorted(v for s, v in named.items() if s.value in fields or s is Signal.WEIGHT)
    for name in fields:
        assert name == "effective_weight" or Signal(name) in Signal


def test_a_signal_reads_as_its_name() -> None:
    assert Signal.DENSE == "dense" and f"w_{Signal.NEIGHBOUR}" == "w_neighbour" and str(Signal.DATE) == "date"
    assert {"dense": 1.0}[Signal.DENSE] == 1.0


@pytest.mark.parametrize("signal", [Signal.RULE, Signal.NEIGHBOUR, Signal.SESSION, Signal.RERANK, Signal.COSINE])
def test_signals_weighed_elsewhere_have_no_weight_here(signal: Signal) -> None:
    assert SignalWeights().of(signal) == 0.0


def test_the_effective_weight_is_the_weight_of_its_part() -> None:
    assert SignalWeights(effective_weight=0.05).of(Signal.WEIGHT) == 0.05
    assert SearchConfig().weights.of(Signal.DATE) == SearchConfig().weights.date
