"""Lifecycle: effective weights, capacity eviction with tombstones, compaction, retention."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from nova_memory_integrations import InvalidInputError, NovaConfig, NovaStore
from nova_memory_integrations.config import LifecycleConfig
from nova_memory_integrations.maintenance.lifecycle import (
    episode_weight,
)

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)








def _config(**lifecycle: Any) -> NovaConfig:
    return NovaConfig.from_dict({"lifecycle": lifecycle})


def _old_turns(store: NovaStore, user: str, n: int, start: datetime, **kw: Any) -> list[str]:
    turns = [{"user_id": user, "role": "user", "content": f"Note {i}: my cat Miso chased a red laser pointer.",
              "timestamp": start + timedelta(hours=i), **kw} for i in range(n)]
    return [e.id for e in store.add_turns(turns)]


def test_capacity_evicts_lowest_weight_and_leaves_a_tombstone(make_store: Any, caplog: Any) -> None:
    store = make_store(config=_config(max_episodes_per_user=3, protect_recent_days=7, protect_weight=0.8,
                                      decay_rate=0.0))
    old = datetime(2024, 3, 10, tzinfo=timezone.utc)
    low = _old_turns(store, "alice", 4, old, importance=0.2)
    mid = store.add_turn("alice", "user", "Miso the cat got a new red collar.", timestamp=old, importance=0.5)
    precious = store.add_turn("alice", "user", "My passport number is in the blue folder.", timestamp=old,
                              importance=1.0)
    accessed = store.add_turn("alice", "user", "The wifi password is on the fridge.", timestamp=old)
    store.components.db.touch_episodes("alice", [accessed.id], NOW.timestamp() - 86400)  # used yesterday
    fresh = store.add_turn("alice", "user", "I bought new running shoes today.", timestamp=NOW - timedelta(days=1))
    store.consolidate("alice")
    unconsolidated = store.add_turn("alice", "user", "Arrived after consolidation.", timestamp=old, importance=0.0)
    store.add_turn("bob", "user", "Bob is not affected by alice's capacity.", timestamp=old)
    before = {e.id for e in store.episodes("alice")}

    dry = store.apply_lifecycle("alice", now=NOW, dry_run=True)
    assert dry.dry_run and len(dry.evicted) == 5 and {e.id for e in store.episodes("alice")} == before

    report = store.apply_lifecycle("alice", now=NOW)
    assert report.evicted == (*low, mid.id)  # lowest weight first; only 5 of the 6 over capacity may go
    assert "stays 2 episodes above the eviction target" in caplog.text  # 9 live, aggressive level: down to 2
    left = {e.id: e for e in store.episodes("alice")}
    for kept in (precious.id, accessed.id, fresh.id, unconsolidated.id):
        assert kept in left
    stones = [e for e in left.values() if e.role == "tombstone"]
    assert [s.id for s in stones] == list(report.tombstones) and len(stones) == 1
    assert stones[0].content.startswith("I previously knew about ")
    text = stones[0].content
    assert "Miso" in text and "March 2024" in text and "evicted: capacity" in text
    assert stones[0].processed  # never fed to consolidation
    # gone from the vector index too; the tombstone is searchable instead
    assert not store.components.vectors.collection("episode", "alice").get(ids=low)["ids"]
    hits = store.search("what do you know about my cat Miso?", "alice", k=3, kinds=("episode",))
    assert hits[0].id == stones[0].id
    ctx = store.context("what do you remember about my cat Miso?", "alice")
    assert any(item.id == stones[0].id for item in ctx.sources)
    assert len(store.episodes("bob")) == 1
    # idempotent: a second run finds nothing else to evict
    assert store.apply_lifecycle("alice", now=NOW).evicted == ()


def test_compaction_keeps_the_period_searchable(make_store: Any) -> None:
    store = make_store(config=_config(compact_after_days=30, compact_max_sentences=3))
    old = datetime(2024, 1, 5, tzinfo=timezone.utc)
    s1 = _old_turns(store, "alice", 3, old, session_id="trip")
    store.add_turns([{"user_id": "alice", "role": "user", "content": "We hiked to the Lagoa do Fogo crater lake.",
                      "timestamp": old + timedelta(hours=5), "session_id": "trip"}])
    recent = store.add_turn("alice", "user", "Recent turn stays.", timestamp=NOW - timedelta(days=2),
                            session_id="trip")
    store.consolidate("alice")
    report = store.apply_lifecycle(now=NOW)
    assert len(report.summaries) == 1 and set(s1) <= set(report.compacted) and len(report.compacted) == 4
    eps = store.episodes("alice")
    assert [e.role for e in eps] == ["summary", "user"] and eps[1].id == recent.id
    summary = eps[0]
    assert summary.content.startswith("Summary of 4 turns (2024-01-05 to 2024-01-05):")
    assert summary.metadata["compacted_from"][:3] == s1 and summary.session_id == "trip"
    hit = store.search("crater lake hike", "alice", k=1, kinds=("episode",))[0]
    assert hit.id == summary.id
    store.flush()
    assert store.components.vectors.count("episode") == 2


def test_retention_deletes_old_episodes_with_tombstones(make_store: Any) -> None:
    store = make_store(config=_config(retention_days=365))
    _old_turns(store, "alice", 3, datetime(2023, 1, 10, tzinfo=timezone.utc))
    keep = store.add_turn("alice", "user", "I started learning Portuguese.", timestamp=NOW - timedelta(days=10))
    report = store.apply_lifecycle("alice", now=NOW)
    assert len(report.retention_deleted) == 3 and len(report.tombstones) == 1
    roles = sorted(e.role for e in store.episodes("alice"))
    assert roles == ["tombstone", "user"] and keep.id in {e.id for e in store.episodes("alice")}
    stone = next(e for e in store.episodes("alice") if e.role == "tombstone")
    assert "January 2023" in stone.content and "retention" in stone.content
    # FTS has no trace of the deleted content (only the tombstone mentions it)
    rows = store.components.db.query("SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH 'laser'")
    assert rows == []


def test_episode_weight_and_bad_input(store: NovaStore) -> None:
    ep = store.add_turn("alice", "user", "x y z", timestamp=NOW - timedelta(days=10), importance=0.5)
    cfg = LifecycleConfig()
    assert episode_weight(ep, cfg, NOW) == pytest.approx(0.5 * math.exp(-0.1))
    heavy = store.add_turn("alice", "user", "x y z", timestamp=NOW - timedelta(days=10), importance=0.9)
    assert episode_weight(heavy, cfg, NOW) == pytest.approx(0.9 * math.exp(-0.1 * 0.2))  # decays a fifth as fast
    asked = store.add_turn("alice", "user", "x y z", timestamp=NOW - timedelta(days=10), importance=0.5,
                           source="explicit")
    assert episode_weight(asked, cfg, NOW) == 0.5  # an explicit memory does not decay
    with pytest.raises(InvalidInputError):
        store.apply_lifecycle("")
    assert store.apply_lifecycle("nobody").counts() == dict.fromkeys(
        ("retention_deleted", "compacted", "summaries", "keywords", "evicted", "tombstones"), 0)


