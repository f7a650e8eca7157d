"""Memory lifecycle: retention, compaction (summaries, then keywords), capacity eviction, tombstones.

It runs by itself: with a step configured (capacity, compaction or retention), the store's
:class:`LifecycleScheduler` makes a pass every ``lifecycle.schedule_interval_s`` seconds
over every user, doing at most ``lifecycle.max_changes_per_pass`` changes per user (4x at
the aggressive capacity level) and committing them in batches of ``lifecycle.batch_size``,
so ``add_turn`` never waits for a pass (only, at worst, for one batch). It also runs on
demand: :func:`apply_lifecycle` (``NovaStore.apply_lifecycle()``, ``nova-memory
lifecycle``), unbounded unless given a ``limit``; ``dry_run`` reports per user what would
change and changes nothing. The rules (weights, capacity levels, tiers, protection) are the
pure functions of :mod:`..memory.lifecycle_rules`; per user and pass the steps are:

* **Retention**: episodes older than ``retention_days`` are deleted.
* **Compaction**: consolidated, unprotected, not-hot episodes older than
  ``compact_after_days`` are merged into one extractive summary per session (role
  ``"summary"``; its metadata lists the ids it replaced). Summaries older than
  ``keywords_after_days`` (not hot) are compacted further, in place, to their keywords
  (``metadata["compression"] == "keywords"``). Both stay embedded and searchable.
* **Capacity** (``max_episodes_per_user``): one warning line at ``warn_at`` (70 %); at
  ``evict_at`` (80 %) the unprotected episodes are evicted, coldest tier first, then lowest
  effective weight, down to ``evict_to`` (75 %); at ``aggressive_at`` (95 %) down to
  ``aggressive_to`` (70 %). Never evicted or compacted: unconsolidated episodes, episodes
  created or accessed within ``protect_recent_days``, episodes whose weight reaches
  ``protect_weight``, tombstones. Hidden memories (``NovaStore.hide``) are out of sight of
  the lifecycle too, and not counted.

**Tombstones.** Evictions and retention leave one episode per user, month and batch with
role ``"tombstone"`` reading ``"I previously knew about <topics> around <month year>,
evicted: <reason>"``. Tombstones are ordinary (already consolidated) episodes, embedded and
full-text indexed, so ``search()`` / ``context()`` surface them when a query touches those
topics; they are not counted against the capacity and ``forget()`` removes them.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from .. import _tracing
from .._time import utcnow
from ..config import LifecycleConfig
from ..engine.indexer import INDEX_WAIT_S
from ..engine.validation import check_user
from ..memory.facts import new_id
from ..memory.lifecycle_rules import (
    SPECIAL_ROLES,
    TIERS,
    CapacityLevel,
    capacity_fraction,
    capacity_level,
    effective_weight,
    episode_tier,
    episode_weight,
    eviction_target,
    extractive_summary,
    is_protected,
    keywords_text,
    tombstone_text,
    topics,
)
from ..types import Episode

if TYPE_CHECKING:
    from ..engine.components import Components

__all__ = [
    "ACTIONS",
    "AGGRESSIVE_FACTOR",
    "SPECIAL_ROLES",
    "LifecycleReport",
    "UserLifecycle",
    "apply_lifecycle",
    "describe",
    "effective_weight",
    "episode_weight",
    "extractive_summary",
    "tombstone_text",
    "topics",
]

logger = logging.getLogger(__name__)

ACTIONS = ("retention_deleted", "compacted", "summaries", "keywords", "evicted", "tombstones")
"""What a run reports, per user and in total (ids of the episodes concerned)."""
AGGRESSIVE_FACTOR = 4
"""At the aggressive capacity level a background pass may evict this many times ``max_changes_per_pass``."""
_YIELD_S = 0.0
"""Pause between two batches of a pass (``sleep(0)`` hands the interpreter to a waiting writer)."""


class UserLifecycle(BaseModel):
    """One user's state and actions in a :func:`apply_lifecycle` run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    episodes: int
    """Live episodes (tombstones not counted) before the run."""
    capacity: int | None
    fraction: float
    """``episodes / capacity`` before the run (0 without a capacity)."""
    level: CapacityLevel
    tiers: dict[str, int]
    """Live episodes per tier (hot / warm / cold) before the run."""
    protected: int
    """Live episodes the lifecycle must keep as they are."""
    actions: dict[str, int]
    """Ids per action (see :data:`ACTIONS`)."""
    episodes_after: int
    """Live episodes after the run (what they would be, for a dry run)."""
    more: bool = False
    """Work left over by a bounded pass (``limit``), for the next one."""


class LifecycleReport(BaseModel):
    """What one :func:`apply_lifecycle` run did (or would do with ``dry_run``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dry_run: bool = False
    users: int = 0
    retention_deleted: tuple[str, ...] = ()
    compacted: tuple[str, ...] = ()
    summaries: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    """Summaries compacted further to their keywords."""
    evicted: tuple[str, ...] = ()
    tombstones: tuple[str, ...] = ()
    per_user: dict[str, UserLifecycle] = Field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        """Number of ids per action."""
        return {k: len(getattr(self, k)) for k in ACTIONS}


class _Run:
    """One user's run: the live episodes as the steps change them, the budget, the ids per action."""

    def __init__(self, components: Components, uid: str, now: datetime, dry_run: bool, limit: int | None,
                 should_stop: Callable[[], bool]) -> None:
        self.c = components
        self.cfg: LifecycleConfig = components.config.lifecycle
        self.uid = uid
        self.now = now
        self.dry_run = dry_run
        self.budget = limit
        self.should_stop = should_stop
        self.more = False
        self.acc: dict[str, list[str]] = {k: [] for k in ACTIONS}
        self.live: dict[str, Episode] = {e.id: e for e in components.db.list_episodes(uid) if e.role != "tombstone"}

    def take(self, wanted: int) -> int:
        """How many of ``wanted`` changes the budget allows (and spend them)."""
        if self.budget is None:
            return wanted
        n = min(wanted, self.budget)
        self.budget -= n
        if n < wanted:
            self.more = True
        return n

    def protected(self, ep: Episode) -> bool:
        return is_protected(ep, episode_weight(ep, self.cfg, self.now), self.cfg, self.now)

    # -- steps ------------------------------------------------------------------------------
    def retention(self) -> None:
        if not self.cfg.retention_days:
            return
        cutoff = self.now - timedelta(days=self.cfg.retention_days)
        old = sorted((e for e in self.live.values() if e.timestamp < cutoff), key=lambda e: e.timestamp)
        old = old[: self.take(len(old))]
        if old:
            self._remove(old, f"retention (older than {self.cfg.retention_days:g} days)", "retention_deleted")

    def compaction(self) -> None:
        cfg = self.cfg
        if cfg.compact_after_days:
            cutoff = self.now - timedelta(days=cfg.compact_after_days)
            groups: dict[str, list[Episode]] = {}
            for ep in sorted(self.live.values(), key=lambda e: e.timestamp):
                if (ep.timestamp < cutoff and ep.role not in SPECIAL_ROLES and not self.protected(ep)
                        and episode_tier(ep, cfg, self.now) != "hot"):
                    groups.setdefault(ep.session_id or f"{ep.timestamp:%Y-%m}", []).append(ep)
            for group in groups.values():
                if len(group) < 2 or self.should_stop():
                    continue
                group = group[: self.take(len(group))]
                if len(group) >= 2:
                    self._summarise(group)
        if cfg.keywords_after_days:
            cutoff = self.now - timedelta(days=cfg.keywords_after_days)
            due = [e for e in self.live.values() if e.role == "summary" and e.timestamp < cutoff
                   and e.metadata.get("compression") != "keywords" and episode_tier(e, cfg, self.now) != "hot"]
            due = due[: self.take(len(due))]
            for start in range(0, len(due), cfg.batch_size):
                if self.should_stop():
                    self.more = True
                    return
                batch = due[start: start + cfg.batch_size]
                changes = [(e.id, keywords_text(e, cfg.keywords_max), {**e.metadata, "compression": "keywords"})
                           for e in batch]
                self.acc["keywords"] += [e.id for e in batch]
                if not self.dry_run:
                    self.c.db.rewrite_episodes(self.uid, changes)
                    self.c.indexer.submit("episodes", [(e.id, self.uid) for e in batch])
                    time.sleep(_YIELD_S)

    def capacity(self, evicting: dict[str, CapacityLevel] | None) -> None:
        """Evict down to the level's target; an eviction a bounded pass left unfinished goes on
        in the next pass down to the same target (``evicting``), below ``evict_at`` as well."""
        cfg, cap = self.cfg, self.cfg.max_episodes_per_user
        level = capacity_level(len(self.live), cap, cfg)  # after retention and compaction
        resumed = (evicting or {}).get(self.uid)
        if level in ("ok", "warn") and resumed is not None:
            level = resumed
        if not cap or level in ("ok", "warn") or len(self.live) <= eviction_target(cap, level, cfg):
            if evicting is not None:
                evicting.pop(self.uid, None)
            return
        excess = len(self.live) - eviction_target(cap, level, cfg)
        rank = {tier: -i for i, tier in enumerate(TIERS)}  # cold first
        candidates = sorted(
            ((rank[episode_tier(e, cfg, self.now)], episode_weight(e, cfg, self.now), e.timestamp, e)
             for e in self.live.values() if not self.protected(e)), key=lambda c: c[:3])
        if len(candidates) < excess:
            logger.warning("nova-memory lifecycle: user %s stays %d episodes above the eviction target "
                           "(the rest are protected; see lifecycle.protect_weight)", self.uid, excess - len(candidates))
        allowed = min(excess, len(candidates))
        if self.budget is not None:
            factor = AGGRESSIVE_FACTOR if level == "aggressive" else 1  # pressure: a larger share of the pass
            if allowed > self.budget * factor:
                allowed, self.more = self.budget * factor, True
            self.budget -= -(-allowed // factor)
        chosen = [c[3] for c in candidates[:allowed]]
        if evicting is not None and not self.dry_run:
            if self.more:
                evicting[self.uid] = level
            else:
                evicting.pop(self.uid, None)
        if not chosen:
            return
        reason = (f"capacity pressure ({cfg.aggressive_at:.0%} of {cap} episodes per user), lowest weight"
                  if level == "aggressive" else f"capacity ({cap} episodes per user), lowest weight")
        logger.info("nova-memory lifecycle: user %s at the %s capacity level, evicting %d episodes", self.uid, level,
                    len(chosen))
        self._remove(chosen, reason, "evicted")  # most evictable first, should a pass stop early

    # -- writes -----------------------------------------------------------------------------
    def _summarise(self, group: list[Episode]) -> None:
        last = group[-1]
        summary = Episode(
            id=new_id("ep"), user_id=self.uid, session_id=last.session_id, role="summary",
            content=extractive_summary(group, self.cfg.compact_max_sentences), timestamp=last.timestamp,
            ingested_at=utcnow(), importance=max(e.importance for e in group),
            access_count=sum(e.access_count for e in group),
            last_access=max((e.last_access for e in group if e.last_access), default=None),
            metadata={"compacted_from": [e.id for e in group], "first_timestamp": group[0].timestamp.isoformat(),
                      "compression": "summary"},
            processed=True,
        )
        self.acc["compacted"] += [e.id for e in group]
        self.acc["summaries"].append(summary.id)
        for ep in group:
            del self.live[ep.id]
        self.live[summary.id] = summary
        if not self.dry_run:
            _replace(self.c, self.uid, [e.id for e in group], [summary])
            time.sleep(_YIELD_S)

    def _remove(self, episodes: Sequence[Episode], reason: str, action: str) -> None:
        """Delete ``episodes`` in batches, leaving one tombstone per month of each batch when enabled."""
        for start in range(0, len(episodes), self.cfg.batch_size):
            if self.should_stop():
                self.more = True
                return
            batch = episodes[start: start + self.cfg.batch_size]
            stones = _tombstones(self.uid, batch, reason) if self.cfg.tombstones else []
            self.acc[action] += [e.id for e in batch]
            self.acc["tombstones"] += [s.id for s in stones]
            for ep in batch:
                self.live.pop(ep.id, None)
            if not self.dry_run:
                _replace(self.c, self.uid, [e.id for e in batch], stones)
                time.sleep(_YIELD_S)


# -- the lifecycle run ------------------------------------------------------------------
def apply_lifecycle(
    components: Components, user_id: str | None = None, *, now: datetime | None = None, dry_run: bool = False,
    limit: int | None = None, should_stop: Callable[[], bool] | None = None, warned: set[str] | None = None,
    evicting: dict[str, CapacityLevel] | None = None,
) -> LifecycleReport:
    """Run retention, compaction and capacity eviction for one user (or every user).

    Args:
        components: the store's collaborators.
        user_id: one user, or ``None`` for every user with episodes.
        now: the reference time (default: now); handy for tests and back-fills.
        dry_run: compute what would happen without changing anything.
        limit: most episodes changed per user (``None``: all that is due); the scheduler's bound.
        should_stop: checked between batches; a true answer ends the run early (the store closes).
        warned: users already warned about their capacity (the scheduler's memory, so the
            warning is one line per user while they stay at that level); ``None``: warn every run.
        evicting: users a bounded pass left mid-eviction, with the level whose target they are
            brought to (the scheduler's memory, updated here).

    Returns:
        A :class:`LifecycleReport` with the ids deleted, compacted and written, and each user's
        capacity level, tiers and actions.
    """
    cfg = components.config.lifecycle
    now = now or utcnow()
    stop = should_stop or (lambda: False)
    users = components.db.user_ids() if user_id is None else [check_user(user_id, components.config.limits)]
    acc: dict[str, list[str]] = {k: [] for k in ACTIONS}
    per_user: dict[str, UserLifecycle] = {}
    for uid in users:
        if stop():
            break
        if limit is None:  # on demand: act on an index in sync (a background pass never waits for the indexer)
            components.indexer.wait(uid, timeout=INDEX_WAIT_S)
        run = _Run(components, uid, now, dry_run, limit, stop)
        before = list(run.live.values())
        cap = cfg.max_episodes_per_user
        level = capacity_level(len(before), cap, cfg)
        if not dry_run and uid not in (evicting or {}):
            _warn(uid, level, len(before), cap, cfg, warned)
        with _tracing.span("nova_memory.lifecycle.pass") as traced:
            run.retention()
            run.compaction()
            run.capacity(evicting)
            if traced.is_recording():
                traced.set_attributes({_tracing.USER_ID: uid, "nova_memory.episodes": len(before),
                                       "nova_memory.dry_run": dry_run,
                                       **{f"nova_memory.lifecycle.{k}": len(v) for k, v in run.acc.items()}})
        tiers: dict[str, int] = dict.fromkeys(TIERS, 0)
        for ep in before:
            tiers[episode_tier(ep, cfg, now)] += 1
        per_user[uid] = UserLifecycle(
            episodes=len(before), capacity=cap, fraction=round(capacity_fraction(len(before), cap), 4), level=level,
            tiers=tiers, protected=sum(run.protected(e) for e in before),
            actions={k: len(v) for k, v in run.acc.items()}, episodes_after=len(run.live), more=run.more)
        for k, v in run.acc.items():
            acc[k] += v
    if not dry_run and limit is None and (acc["retention_deleted"] or acc["compacted"] or acc["evicted"]):
        components.db.scrub()  # on demand only: a background pass never holds the database for a scrub
    return LifecycleReport(dry_run=dry_run, users=len(users), per_user=per_user,
                           **{k: tuple(v) for k, v in acc.items()})


def _warn(uid: str, level: CapacityLevel, count: int, cap: int | None, cfg: LifecycleConfig,
          warned: set[str] | None) -> None:
    if level == "ok" or cap is None:
        if warned is not None:
            warned.discard(uid)
        return
    if level != "warn" or not cfg.capacity_warnings or (warned is not None and uid in warned):
        return
    if warned is not None:
        warned.add(uid)
    logger.warning("nova-memory: user %s holds %d%% of lifecycle.max_episodes_per_user (%d of %d), eviction at %d%%;"
                   " lifecycle.capacity_warnings = false silences this", uid, round(100 * count / cap), count, cap,
                   round(100 * cfg.evict_at))


def _tombstones(uid: str, episodes: Sequence[Episode], reason: str) -> list[Episode]:
    months: dict[str, list[Episode]] = {}
    for ep in episodes:
        months.setdefault(f"{ep.timestamp:%Y-%m}", []).append(ep)
    stones = []
    for group in months.values():
        when = group[len(group) // 2].timestamp
        stones.append(Episode(
            id=new_id("ep"), user_id=uid, session_id=None, role="tombstone",
            content=tombstone_text(topics(e.content for e in group), when, reason),
            timestamp=group[-1].timestamp, ingested_at=utcnow(), importance=0.1, processed=True,
            metadata={"evicted": len(group), "reason": reason, "month": f"{when:%Y-%m}"},
        ))
    return stones


def _replace(components: Components, uid: str, remove_ids: Sequence[str], add: Sequence[Episode]) -> None:
    """Atomically delete episodes and insert replacements; then sync Chroma and caches.

    Inside the indexer's barrier for the user, so a vector of a removed row is never written
    after its removal; a short transaction, so writers wait for one batch at most.
    """
    with components.indexer.barrier(uid):
        with components.db.user_transaction(uid):
            components.db.insert_episodes(add)
            removed = components.db.delete_ids(uid, list(remove_ids))
        components.vectors.delete("episode", removed["episodes"], user_id=uid)
    components.indexer.submit("episodes", [(e.id, uid) for e in add])


def describe(report: LifecycleReport) -> list[str]:
    """Human-readable lines of a report: one per user with its level, tiers and actions."""
    lines = []
    for uid, u in report.per_user.items():
        cap = f"{u.episodes}/{u.capacity} ({u.fraction:.0%}, {u.level})" if u.capacity else f"{u.episodes}"
        tiers = " ".join(f"{k} {v}" for k, v in u.tiers.items())
        acts = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in u.actions.items() if v) or "nothing to do"
        more = "; more next pass" if u.more else ""
        lines.append(f"{uid}: {cap}; {tiers}; {u.protected} protected -> {acts}{more}")
    return lines
