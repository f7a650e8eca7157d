"""Pure lifecycle rules of #17: capacity levels (70 / 80 / 95 %), eviction targets, hot / warm / cold tiers,
protection, the keywords text, the config's ordering rules, and the background worker's schedule."""

from __future__ import annotations

import threading
import time
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaConfig
from nova_memory_integrations.config import LifecycleConfig
from nova_memory_integrations.engine.scheduler import BackgroundWorker
from nova_memory_integrations.errors import ConfigError
from nova_memory_integrations.maintenance.lifecycle import LifecycleReport, UserLifecycle, describe
from nova_memory_integrations.memory.lifecycle_rules import (
    capacity_level,
    episode_tier,
    eviction_target,
    is_protected,
    keywords_text,
    tier_of,
)
from nova_memory_integrations.types import Episode

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
CFG = LifecycleConfig()
TIER_DAYS = {"hot_days": 7.0, "cold_after_days": 90.0, "promote_accesses": 5}


def episode(days_ago: float, **kw: object) -> Episode:
    at = NOW - timedelta(days=days_ago)
    fields: dict[str, object] = {"id": "ep_1", "user_id": "u", "role": "user", "content": "x", "timestamp": at,
                                 "ingested_at": at, "processed": True, **kw}
    return Episode(**fields)  # type: ignore[arg-type]


# -- capacity levels ------------------------------------------------------------------------
@pytest.mark.parametrize(("count", "level"), [(0, "ok"), (69, "ok"), (70, "warn"), (79, "warn"), (80, "evict"),
                                              (94, "evict"), (95, "aggressive"), (100, "aggressive"),
                                              (250, "aggressive")])
def test_capacity_levels_of_a_capacity_of_100(count: int, level: str) -> None:
    assert capacity_level(count, 100, CFG) == level


def test_no_capacity_is_always_ok() -> None:
    assert capacity_level(10**6, None, CFG) == "ok"


def test_eviction_brings_the_count_to_75_percent() -> None:
    assert eviction_target(200, "evict", CFG) == 150


def test_aggressive_eviction_brings_the_count_to_70_percent() -> None:
    assert eviction_target(200, "aggressive", CFG) == 140


def test_below_the_eviction_level_the_target_is_the_capacity() -> None:
    assert eviction_target(200, "warn", CFG) == 200


def test_the_fractions_follow_the_config() -> None:
    cfg = LifecycleConfig(warn_at=0.5, evict_at=0.6, evict_to=0.55, aggressive_at=0.9, aggressive_to=0.5)
    assert [capacity_level(n, 10, cfg) for n in (4, 5, 6, 9)] == ["ok", "warn", "evict", "aggressive"]


@pytest.mark.parametrize("bad", [{"warn_at": 0.9}, {"aggressive_at": 0.75}, {"evict_to": 0.85},
                                 {"aggressive_to": 0.78}, {"hot_days": 100.0}, {"evict_at": 0.0}])
def test_unordered_fractions_are_a_config_error(bad: dict[str, float]) -> None:
    with pytest.raises(ConfigError):
        NovaConfig.from_dict({"lifecycle": bad})


def test_the_schedule_is_off_until_a_step_is_configured() -> None:
    assert not LifecycleConfig().schedule_enabled()


def test_the_schedule_is_on_with_a_capacity() -> None:
    assert LifecycleConfig(max_episodes_per_user=10).schedule_enabled()


def test_no_interval_means_no_schedule() -> None:
    assert not LifecycleConfig(max_episodes_per_user=10, schedule_interval_s=None).schedule_enabled()


# -- tiers ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("days", "tier"), [(0, "hot"), (6.9, "hot"), (7, "warm"), (89.9, "warm"), (90, "cold"),
                                            (400, "cold")])
def test_tiers_demote_with_age(days: float, tier: str) -> None:
    assert tier_of(NOW - timedelta(days=days), None, 0, NOW, **TIER_DAYS) == tier  # type: ignore[arg-type]


def test_an_access_promotes_a_cold_memory_to_hot() -> None:
    old = NOW - timedelta(days=300)
    assert tier_of(old, NOW - timedelta(hours=1), 1, NOW, **TIER_DAYS) == "hot"  # type: ignore[arg-type]


def test_a_memory_used_often_never_demotes_below_warm() -> None:
    old = NOW - timedelta(days=300)
    assert tier_of(old, old, 5, NOW, **TIER_DAYS) == "warm"  # type: ignore[arg-type]


def test_four_accesses_are_not_enough_to_stay_warm() -> None:
    old = NOW - timedelta(days=300)
    assert tier_of(old, old, 4, NOW, **TIER_DAYS) == "cold"  # type: ignore[arg-type]


def test_tiers_take_aware_datetimes_only() -> None:
    with pytest.raises(ValueError):
        tier_of(datetime(2025, 1, 1), None, 0, NOW, **TIER_DAYS)  # type: ignore[arg-type]


def test_episode_tier_uses_the_configured_days() -> None:
    assert episode_tier(episode(3), LifecycleConfig(hot_days=2, cold_after_days=2), NOW) == "cold"


# -- protection -----------------------------------------------------------------------------------
def test_an_old_light_consolidated_episode_is_not_protected() -> None:
    assert not is_protected(episode(100), 0.1, CFG, NOW)


def test_an_unconsolidated_episode_is_protected() -> None:
    assert is_protected(episode(100, processed=False), 0.1, CFG, NOW)


def test_a_recent_episode_is_protected() -> None:
    assert is_protected(episode(2), 0.1, CFG, NOW)


def test_a_recently_accessed_episode_is_protected() -> None:
    assert is_protected(episode(100, last_access=NOW - timedelta(days=1)), 0.1, CFG, NOW)


def test_a_heavy_episode_is_protected() -> None:
    assert is_protected(episode(100), CFG.protect_weight, CFG, NOW)


# -- texts and reports ----------------------------------------------------------------------------
def test_keywords_text_names_the_period_and_the_words() -> None:
    summary = episode(200, role="summary", content="Summary of 3 turns (2024-11-01 to 2024-11-13): user: Miso chased"
                      " the laser. user: Miso slept. assistant: Miso is a cat.",
                      metadata={"compacted_from": ["a", "b", "c"], "first_timestamp": "2024-11-01T00:00:00+00:00"})
    assert keywords_text(summary, 3) == "Keywords of 3 turns (2024-11-01 to 2024-11-13): Miso, chased, laser"


def test_describe_prints_one_line_per_user() -> None:
    user = UserLifecycle(episodes=90, capacity=100, fraction=0.9, level="evict", tiers={"hot": 1, "warm": 2, "cold": 87},
                         protected=1, actions={"evicted": 15, "tombstones": 1}, episodes_after=75)
    line = describe(LifecycleReport(per_user={"alice": user}))[0]
    assert line == "alice: 90/100 (90%, evict); hot 1 warm 2 cold 87; 1 protected -> 15 evicted, 1 tombstones"


# -- the background worker ------------------------------------------------------------------------
def test_a_worker_runs_its_job_every_interval_by_itself() -> None:
    ran = threading.Event()
    worker = BackgroundWorker(ran.set, interval=0.05, debounce=float("inf"), name="lifecycle", final_pass=False)
    worker.start()
    try:
        assert ran.wait(timeout=10)
    finally:
        worker.stop()


def test_a_worker_without_final_pass_does_not_run_at_stop() -> None:
    calls: list[int] = []
    worker = BackgroundWorker(lambda: calls.append(1), interval=3600, debounce=float("inf"), final_pass=False)
    worker.start()
    worker.stop()
    assert calls == []


def test_a_worker_names_its_thread_after_its_job() -> None:
    worker = BackgroundWorker(lambda: None, interval=3600, debounce=float("inf"), name="lifecycle", final_pass=False)
    worker.start()
    try:
        assert any(t.name == "nova-memory-lifecycle" for t in threading.enumerate())
    finally:
        worker.stop()


def test_a_job_sees_that_the_worker_is_stopping() -> None:
    seen: list[bool] = []
    started = threading.Event()

    def job() -> None:
        started.set()
        deadline = time.monotonic() + 10
        while not worker.stopping and time.monotonic() < deadline:
            time.sleep(0.01)
        seen.append(worker.stopping)

    worker = BackgroundWorker(job, interval=0.01, debounce=float("inf"), final_pass=False)
    worker.start()
    started.wait(timeout=10)
    worker.stop()
    assert seen == [True]


def test_an_interval_of_zero_means_no_schedule() -> None:
    assert not LifecycleConfig(max_episodes_per_user=10, schedule_interval_s=0).schedule_enabled()
