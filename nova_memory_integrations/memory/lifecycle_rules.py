"""Pure rules of the memory lifecycle: weights, capacity levels, tiers, and the texts it writes.

No I/O and no clock: every temporal rule takes ``now`` (an aware UTC datetime), so the same
inputs always give the same answer. :mod:`.lifecycle` applies them to a store.

* **Effective weight** (the seed's formula, no emotional boost): ``importance * (1 +
  access_mult * ln(access_count + 1)) * exp(-decay_rate * age_days)``, ``age_days`` counted
  from the episode's event time.
* **Capacity levels** of a user's episode count against ``max_episodes_per_user``:
  ``ok`` below ``warn_at`` (70 %), ``warn`` below ``evict_at`` (80 %), ``evict`` below
  ``aggressive_at`` (95 %), then ``aggressive``. Eviction brings the count to ``evict_to``
  (75 %), aggressive eviction to ``aggressive_to`` (70 %).
* **Tiers** by the last touch (event time or last access, the later): ``hot`` within
  ``hot_days`` (so an access promotes to hot), ``cold`` after ``cold_after_days`` unless
  accessed ``promote_accesses`` times or more, ``warm`` in between (demotion with age).
* **Protection**: unconsolidated episodes, episodes created or accessed within
  ``protect_recent_days``, episodes whose weight reaches ``protect_weight``, and explicit or
  level-5 episodes (:func:`.importance.outlives`) are never evicted or compacted.
* **Decay** of a weight is scaled by :func:`.importance.decay_scale` (explicit: none).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Literal

from .._time import utcnow
from ..config import LifecycleConfig
from ..text.sentences import SUMMARY_SENTENCES
from ..text.terms import REPLY_WORDS, STOPWORDS
from ..types import Episode
from .importance import decay_scale, outlives

__all__ = [
    "CAPACITY_LEVELS",
    "SPECIAL_ROLES",
    "TIERS",
    "CapacityLevel",
    "Tier",
    "capacity_fraction",
    "capacity_level",
    "effective_weight",
    "episode_tier",
    "episode_weight",
    "eviction_target",
    "extractive_summary",
    "is_protected",
    "keywords_text",
    "tier_of",
    "tombstone_text",
    "topics",
]

SPECIAL_ROLES = frozenset({"tombstone", "summary"})
"""Roles of rows written by the lifecycle itself."""
CapacityLevel = Literal["ok", "warn", "evict", "aggressive"]
CAPACITY_LEVELS: tuple[CapacityLevel, ...] = ("ok", "warn", "evict", "aggressive")
"""Capacity levels, mildest first."""
Tier = Literal["hot", "warm", "cold"]
TIERS: tuple[Tier, ...] = ("hot", "warm", "cold")
"""Tiers, hottest first (eviction takes the coldest first)."""
_DAY_S = 86400.0

_STOPWORDS = STOPWORDS | REPLY_WORDS
"""Words that are no topic: the text layer's stopwords and replies ("yes", "thanks")."""
_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)


# -- weights and texts ---------------------------------------------------------------------
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
    """The effective weight of an episode at ``now`` (default: the current time); an important
    episode decays slower, an explicit one not at all (:func:`~.importance.decay_scale`)."""
    age_days = (_aware(now or utcnow()) - episode.timestamp).total_seconds() / _DAY_S
    return effective_weight(episode.importance, episode.access_count, age_days, access_mult=config.access_mult,
                            decay_rate=config.decay_rate * decay_scale(episode.importance, episode.source))


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
        for sent in SUMMARY_SENTENCES.split(ep.content):
            sentences.append((len(sentences), ep.role, sent))
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


def _aware(when: datetime) -> datetime:
    if when.tzinfo is None:
        raise ValueError("lifecycle rules take timezone-aware (UTC) datetimes")
    return when


# -- capacity -----------------------------------------------------------------------------
def capacity_fraction(count: int, capacity: int | None) -> float:
    """``count / capacity`` (0.0 without a capacity)."""
    return count / capacity if capacity else 0.0


def capacity_level(count: int, capacity: int | None, config: LifecycleConfig) -> CapacityLevel:
    """The capacity level of a user holding ``count`` episodes (``ok`` without a capacity)."""
    fraction = capacity_fraction(count, capacity)
    if not capacity or fraction < config.warn_at:
        return "ok"
    if fraction < config.evict_at:
        return "warn"
    return "evict" if fraction < config.aggressive_at else "aggressive"


def eviction_target(capacity: int, level: CapacityLevel, config: LifecycleConfig) -> int:
    """How many episodes a user at ``level`` is brought down to (``capacity`` itself below ``evict``)."""
    if level == "aggressive":
        return math.floor(capacity * config.aggressive_to)
    if level == "evict":
        return math.floor(capacity * config.evict_to)
    return capacity


# -- tiers and protection -----------------------------------------------------------------
def tier_of(timestamp: datetime, last_access: datetime | None, access_count: int, now: datetime, *,
            hot_days: float, cold_after_days: float, promote_accesses: int) -> Tier:
    """The tier of a memory last touched (event time or access, the later) before ``now``."""
    touched = max(_aware(timestamp), _aware(last_access)) if last_access is not None else _aware(timestamp)
    idle = _aware(now) - touched
    if idle < timedelta(days=hot_days):
        return "hot"
    if idle < timedelta(days=cold_after_days) or access_count >= promote_accesses:
        return "warm"
    return "cold"


def episode_tier(episode: Episode, config: LifecycleConfig, now: datetime) -> Tier:
    """:func:`tier_of` an episode with the configured thresholds."""
    return tier_of(episode.timestamp, episode.last_access, episode.access_count, now, hot_days=config.hot_days,
                   cold_after_days=config.cold_after_days, promote_accesses=config.promote_accesses)


def is_protected(episode: Episode, weight: float, config: LifecycleConfig, now: datetime) -> bool:
    """Whether the lifecycle must keep ``episode`` as it is: not consolidated yet, created or
    accessed within ``protect_recent_days``, at least ``protect_weight`` heavy, or explicit or of
    the highest importance (:func:`~.importance.outlives`)."""
    recent = _aware(now) - timedelta(days=config.protect_recent_days)
    touched_recently = episode.timestamp >= recent or (episode.last_access is not None
                                                       and episode.last_access >= recent)
    return (not episode.processed or touched_recently or weight >= config.protect_weight
            or outlives(episode.importance, episode.source))


# -- texts ------------------------------------------------------------------------------
def keywords_text(summary: Episode, limit: int) -> str:
    """A summary compacted to its keywords: ``"Keywords of <n> turns (<first> to <last>): a, b, ..."``."""
    body = summary.content.split(":", 1)[1] if summary.content.startswith("Summary of ") else summary.content
    body = re.sub(r"\b(user|assistant|human|ai|system):", " ", body)
    forms = Counter(w.strip("'-") for w in _WORD.findall(body))
    written: dict[str, str] = {}  # each keyword as the body mostly writes it ("Miso", "laser")
    for form, _ in forms.most_common():
        written.setdefault(form.lower(), form)
    words = [written.get(w.lower(), w) for w in topics([body], limit)]
    meta = summary.metadata
    turns = len(meta.get("compacted_from") or ()) or 1
    first = str(meta.get("first_timestamp") or summary.timestamp.isoformat())[:10]
    return f"Keywords of {turns} turns ({first} to {summary.timestamp:%Y-%m-%d}): {', '.join(words) or 'none'}"
