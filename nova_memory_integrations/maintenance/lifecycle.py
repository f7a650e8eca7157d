"""Memory lifecycle: effective weights, capacity eviction, compaction, retention.

Forgetting is explicit: nothing here runs unless :func:`apply_lifecycle` is called
(``NovaStore.apply_lifecycle()`` or ``nova-memory lifecycle``). Each step is driven by
:class:`~nova_memory_integrations.config.LifecycleConfig`:

* **Effective weight** (pure, read time): ``importance * (1 + access_mult *
  ln(access_count + 1)) * exp(-decay_rate * age_days)`` where ``age_days`` counts from
  the episode's event time.
* **Retention**: episodes older than ``retention_days`` are deleted.
* **Compaction**: consolidated episodes older than ``compact_after_days`` are merged into
  one extractive summary per session (role ``"summary"``); the summary is embedded, so
  the period stays searchable, and its metadata lists the ids it replaced.
* **Capacity**: above ``max_episodes_per_user`` the lowest-weight episodes are evicted.
  Never evicted: unconsolidated episodes (their facts are not extracted yet), episodes
  created or accessed within ``protect_recent_days``, episodes whose weight reaches
  ``protect_weight``, tombstones.

**Tombstones.** Evictions and retention leave one episode per user and month with role
``"tombstone"`` whose content reads ``"I previously knew about <topics> around <month
year>, evicted: <reason>"``. Tombstones are ordinary (already consolidated) episodes, so
they are embedded and full-text indexed, and ``search()`` / ``context()`` surface them
when a query touches those topics; they are not counted against the capacity and are
removed by ``forget()`` like any other row of the user.
"""

from __future__ import annotations

import logging
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from .._time import to_epoch, utcnow
from ..config import LifecycleConfig
from ..engine.indexer import INDEX_WAIT_S
from ..engine.validation import check_user
from ..memory.facts import new_id
from ..types import Episode

if TYPE_CHECKING:
    from ..engine.components import Components

__all__ = [
    "SPECIAL_ROLES",
    "LifecycleReport",
    "apply_lifecycle",
    "effective_weight",
    "episode_weight",
    "extractive_summary",
    "tombstone_text",
    "topics",
]

logger = logging.getLogger(__name__)

SPECIAL_ROLES = frozenset({"tombstone", "summary"})
"""Roles of rows written by the lifecycle itself."""

_STOPWORD_TEXT = """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i i'm if in into is it it's its itself just
    know let like me more most my myself no nor not now of off on once only or other our ours ourselves
    out over own really same she should so some such than that the their theirs them themselves then
    there these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves yes okay ok sure thanks thank
    please maybe well think want got get going one two also i've i'll don't didn't can't that's"""
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


class LifecycleReport(BaseModel):
    """What one :func:`apply_lifecycle` run did (or would do with ``dry_run``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dry_run: bool = False
    users: int = 0
    retention_deleted: tuple[str, ...] = ()
    compacted: tuple[str, ...] = ()
    summaries: tuple[str, ...] = ()
    evicted: tuple[str, ...] = ()
    tombstones: tuple[str, ...] = ()

    def counts(self) -> dict[str, int]:
        """Number of ids per field."""
        return {k: len(getattr(self, k)) for k in
                ("retention_deleted", "compacted", "summaries", "evicted", "tombstones")}


# -- pure functions -------------------------------------------------------------------
def effective_weight(
    importance: float, access_count: int, age_days: float, *, access_mult: float = 0.5, decay_rate: float = 0.01
) -> float:
    """``importance * (1 + access_mult * ln(access_count + 1)) * exp(-decay_rate * age_days)``.

    Negative ages (event time in the future) count as zero.
    """
    return (
        importance
        * (1.0 + access_mult * math.log(max(0, access_count) + 1))
        * math.exp(-decay_rate * max(0.0, age_days))
    )


def episode_weight(episode: Episode, config: LifecycleConfig, now: datetime | None = None) -> float:
    """The effective weight of an episode at ``now`` (default: the current time)."""
    now = now or utcnow()
    age_days = (now - episode.timestamp).total_seconds() / 86400
    return effective_weight(episode.importance, episode.access_count, age_days,
                            access_mult=config.access_mult, decay_rate=config.decay_rate)


def topics(texts: Iterable[str], limit: int = 5) -> list[str]:
    """The most frequent content words of ``texts`` (capitalised words count double)."""
    counts: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for text in texts:
        for i, match in enumerate(_WORD.finditer(text)):
            word = match.group(0).strip("'-")
            low = word.lower()
            if len(low) < 3 or low in _STOPWORDS:
                continue
            counts[low] += 2 if (word[0].isupper() and i > 0) else 1
            shown.setdefault(low, word if word[0].isupper() and i > 0 else low)
    return [shown[w] for w, _ in counts.most_common(limit)]


def tombstone_text(topic_words: Sequence[str], when: datetime, reason: str) -> str:
    """``"I previously knew about <topics> around <month year>, evicted: <reason>"``."""
    about = ", ".join(topic_words) if topic_words else "a few conversation turns"
    return f"I previously knew about {about} around {when:%B %Y}, evicted: {reason}"


def extractive_summary(episodes: Sequence[Episode], max_sentences: int = 5) -> str:
    """Keep the ``max_sentences`` most central sentences of ``episodes``, in order.

    A sentence scores the mean corpus frequency of its content words; near-repeats of a
    kept sentence are skipped so distinct content survives; each kept sentence is
    prefixed with its speaker's role. Deterministic and model-free.
    """
    sentences: list[tuple[int, str, str]] = []
    for ep in episodes:
        for sent in _SENTENCE.split(ep.content.strip()):
            if sent.strip():
                sentences.append((len(sentences), ep.role, sent.strip()))
    freq: Counter[str] = Counter()
    words_of: list[list[str]] = []
    for _, _, sent in sentences:
        words = [w.lower() for w in _WORD.findall(sent) if w.lower() not in _STOPWORDS and len(w) > 2]
        words_of.append(words)
        freq.update(set(words))
    scored = sorted(
        sentences,
        key=lambda s: -(sum(freq[w] for w in words_of[s[0]]) / (len(words_of[s[0]]) or 1) + len(words_of[s[0]]) * 0.01),
    )
    chosen: list[tuple[int, str, str]] = []
    for cand in scored:  # greedy, skipping near-repeats of a kept sentence (Jaccard >= 0.5)
        bag = set(words_of[cand[0]])
        if any(len(bag & set(words_of[c[0]])) >= 0.5 * (len(bag | set(words_of[c[0]])) or 1) for c in chosen):
            continue
        chosen.append(cand)
        if len(chosen) == max_sentences:
            break
    keep = sorted(chosen, key=lambda s: s[0])
    first, last = episodes[0].timestamp, episodes[-1].timestamp
    head = f"Summary of {len(episodes)} turns ({first:%Y-%m-%d} to {last:%Y-%m-%d}):"
    return " ".join([head, *(f"{role}: {sent}" for _, role, sent in keep)])


# -- the lifecycle run --------------------------------------------------------------
def apply_lifecycle(
    components: Components, user_id: str | None = None, *, now: datetime | None = None, dry_run: bool = False
) -> LifecycleReport:
    """Run retention, compaction and capacity eviction for one user (or every user).

    Args:
        components: the store's collaborators.
        user_id: one user, or ``None`` for every user with episodes.
        now: the reference time (default: now); handy for tests and back-fills.
        dry_run: compute what would happen without changing anything.

    Returns:
        A :class:`LifecycleReport` with the ids deleted, compacted and written.
    """
    cfg = components.config.lifecycle
    now = now or utcnow()
    users = components.db.user_ids() if user_id is None else [check_user(user_id, components.config.limits)]
    acc: dict[str, list[str]] = {k: [] for k in ("retention_deleted", "compacted", "summaries", "evicted",
                                                   "tombstones")}
    for uid in users:
        components.indexer.wait(uid, timeout=INDEX_WAIT_S)
        _retention(components, uid, cfg, now, dry_run, acc)
        _compaction(components, uid, cfg, now, dry_run, acc)
        _capacity(components, uid, cfg, now, dry_run, acc)
    if not dry_run and (acc["retention_deleted"] or acc["compacted"] or acc["evicted"]):
        components.db.scrub()
    return LifecycleReport(dry_run=dry_run, users=len(users), **{k: tuple(v) for k, v in acc.items()})


def _live(components: Components, uid: str) -> list[Episode]:
    return [e for e in components.db.list_episodes(uid) if e.role != "tombstone"]


def _retention(components: Components, uid: str, cfg: LifecycleConfig, now: datetime, dry_run: bool,
               acc: dict[str, list[str]]) -> None:
    if not cfg.retention_days:
        return
    cutoff = now - timedelta(days=cfg.retention_days)
    old = [e for e in components.db.list_episodes(uid, until=to_epoch(cutoff)) if e.role != "tombstone"]
    if not old:
        return
    acc["retention_deleted"] += [e.id for e in old]
    if not dry_run:
        acc["tombstones"] += _remove(components, uid, old, f"retention (older than {cfg.retention_days:g} days)",
                                     cfg.tombstones)


def _compaction(components: Components, uid: str, cfg: LifecycleConfig, now: datetime, dry_run: bool,
                acc: dict[str, list[str]]) -> None:
    if not cfg.compact_after_days:
        return
    cutoff = to_epoch(now - timedelta(days=cfg.compact_after_days))
    groups: dict[str, list[Episode]] = {}
    for ep in components.db.list_episodes(uid, until=cutoff):
        if ep.processed and ep.role not in SPECIAL_ROLES:
            key = ep.session_id or f"{ep.timestamp:%Y-%m}"
            groups.setdefault(key, []).append(ep)
    for group in groups.values():
        if len(group) < 2:
            continue
        acc["compacted"] += [e.id for e in group]
        if dry_run:
            continue
        last = group[-1]
        summary = Episode(
            id=new_id("ep"), user_id=uid, session_id=last.session_id, role="summary",
            content=extractive_summary(group, cfg.compact_max_sentences), timestamp=last.timestamp,
            ingested_at=utcnow(), importance=max(e.importance for e in group),
            access_count=sum(e.access_count for e in group),
            last_access=max((e.last_access for e in group if e.last_access), default=None),
            metadata={"compacted_from": [e.id for e in group], "first_timestamp": group[0].timestamp.isoformat()},
            processed=True,
        )
        _replace(components, uid, [e.id for e in group], [summary])
        acc["summaries"].append(summary.id)


def _capacity(components: Components, uid: str, cfg: LifecycleConfig, now: datetime, dry_run: bool,
              acc: dict[str, list[str]]) -> None:
    cap = cfg.max_episodes_per_user
    if not cap:
        return
    live = _live(components, uid)
    excess = len(live) - cap
    if excess <= 0:
        return
    protect_after = now - timedelta(days=cfg.protect_recent_days)
    candidates: list[tuple[float, Episode]] = []
    for ep in live:
        weight = episode_weight(ep, cfg, now)
        recent = ep.timestamp >= protect_after or (ep.last_access is not None and ep.last_access >= protect_after)
        if ep.processed and not recent and weight < cfg.protect_weight:
            candidates.append((weight, ep))
    candidates.sort(key=lambda c: (c[0], c[1].timestamp))
    chosen = [ep for _, ep in candidates[:excess]]
    if len(chosen) < excess:
        logger.warning("nova-memory lifecycle: user %s stays %d episodes above capacity (the rest are protected)",
                       uid, excess - len(chosen))
    if not chosen:
        return
    acc["evicted"] += [e.id for e in chosen]
    if not dry_run:
        acc["tombstones"] += _remove(components, uid, sorted(chosen, key=lambda e: e.timestamp),
                                     f"capacity ({cap} episodes per user), lowest weight", cfg.tombstones)


def _remove(components: Components, uid: str, episodes: Sequence[Episode], reason: str, tombstones: bool) -> list[str]:
    """Delete ``episodes``, leaving one tombstone per month when enabled; returns tombstone ids."""
    stones: list[Episode] = []
    if tombstones:
        months: dict[str, list[Episode]] = {}
        for ep in episodes:
            months.setdefault(f"{ep.timestamp:%Y-%m}", []).append(ep)
        for group in months.values():
            when = group[len(group) // 2].timestamp
            stones.append(Episode(
                id=new_id("ep"), user_id=uid, session_id=None, role="tombstone",
                content=tombstone_text(topics(e.content for e in group), when, reason),
                timestamp=group[-1].timestamp, ingested_at=utcnow(), importance=0.1, processed=True,
                metadata={"evicted": len(group), "reason": reason, "month": f"{when:%Y-%m}"},
            ))
    _replace(components, uid, [e.id for e in episodes], stones)
    return [s.id for s in stones]


def _replace(components: Components, uid: str, remove_ids: Sequence[str], add: Sequence[Episode]) -> None:
    """Atomically delete episodes and insert replacements; then sync Chroma and caches."""
    with components.db.transaction():
        components.db.insert_episodes(add)
        removed = components.db.delete_ids(uid, list(remove_ids))
    components.vectors.delete("episode", removed["episodes"], user_id=uid)
    components.indexer.submit("episodes", [(e.id, uid) for e in add])
    components.graph.invalidate(uid)
