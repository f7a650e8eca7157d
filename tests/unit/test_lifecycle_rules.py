"""Lifecycle rules without a store: the effective weight formula, config validation, text helpers and the
extractive summary.

Capacity eviction, compaction and retention on a real store are in ``tests/integration/test_lifecycle.py``.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from nova_memory_integrations import NovaConfig
from nova_memory_integrations.maintenance.lifecycle import (
    effective_weight,
    extractive_summary,
    tombstone_text,
    topics,
)


def test_effective_weight_formula() -> None:
    assert effective_weight(0.5, 0, 0) == pytest.approx(0.5)
    expected = 0.8 * (1 + 0.5 * math.log(4)) * math.exp(-0.01 * 30)
    assert effective_weight(0.8, 3, 30, access_mult=0.5, decay_rate=0.01) == pytest.approx(expected)
    assert effective_weight(0.5, 10, 0) > effective_weight(0.5, 1, 0) > effective_weight(0.5, 0, 0)
    assert effective_weight(0.5, 0, 100) < effective_weight(0.5, 0, 10)
    assert effective_weight(0.5, 0, -5) == effective_weight(0.5, 0, 0)  # future event time: no boost
    assert effective_weight(0.0, 100, 0) == 0.0


def test_lifecycle_config_is_validated() -> None:
    cfg = NovaConfig.from_dict({"lifecycle": {"max_episodes_per_user": 10, "decay_rate": 0.1}})
    assert cfg.lifecycle.max_episodes_per_user == 10
    with pytest.raises(ValueError):
        NovaConfig.from_dict({"lifecycle": {"max_episodes_per_user": 0}})
    with pytest.raises(ValueError):
        NovaConfig.from_dict({"lifecycle": {"decay": 1}})


def test_text_helpers() -> None:
    assert topics(["My cat Miso likes tuna.", "Miso sleeps on the sofa. Tuna again!"])[:2] == ["Miso", "tuna"]
    text = tombstone_text(["Miso", "tuna"], datetime(2024, 3, 5, tzinfo=timezone.utc), "capacity")
    assert text == "I previously knew about Miso, tuna around March 2024, evicted: capacity"


def test_extractive_summary_is_deterministic() -> None:
    from nova_memory_integrations.types import Episode

    t = datetime(2024, 1, 1, tzinfo=timezone.utc)
    eps = [Episode(id=f"e{i}", user_id="u", role="user", content=c, timestamp=t, ingested_at=t)
           for i, c in enumerate(["Berlin is great. I like the parks in Berlin.", "Parks and lakes in Berlin!",
                                  "Unrelated noise."])]
    one = extractive_summary(eps, 2)
    assert one == extractive_summary(eps, 2) and "Unrelated" not in one and one.count("user:") == 2
