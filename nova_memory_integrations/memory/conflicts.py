"""Contradictions between facts, the strategy applied to each, and confidence explanations.

Two kinds of contradiction are detected when a statement is applied:

* ``single_valued``: a single-valued predicate (``lives_in``, ``favorite_color``...) gets
  an object different from a value held over the same time;
* ``opposite_predicate``: the statement contradicts a held fact through an opposite
  predicate (``likes coffee`` against ``dislikes coffee``).

A third, ``related_topic``, is found by :mod:`.attitudes`: opposite attitudes to topics that are
the same, one a kind of the other, or alike in meaning ("likes email newsletters" against
"dislikes electronic communication"); both facts are kept and the conflict flagged. An explicit
supersession decided by an LLM (UPDATE of a given fact) is logged as ``explicit_update``. The
strategy (``auto`` by default) trusts the more confident fact when the confidence gap is large,
otherwise the newer one; when both have the same event time and similar confidence both are kept
and the conflict is *flagged*. A statement older than
the held value is kept as history before it. The functions deciding this are pure;
:class:`ConflictLog` records every verdict (``NovaStore.conflicts``).
"""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

from .._time import from_epoch, to_epoch
from ..storage.sqlite import SQLiteStore
from ..types import Fact
from .temporal import decayed_confidence, normalize_value, reinforced_confidence

__all__ = [
    "Claim",
    "ConfidenceExplanation",
    "Conflict",
    "ConflictKind",
    "ConflictLog",
    "Contradiction",
    "Held",
    "Outcome",
    "Policy",
    "Strategy",
    "Verdict",
    "Winner",
    "explain_confidence",
    "find_contradictions",
    "held_fact",
    "judge",
    "resolve_conflicts",
]

ConflictKind = Literal["single_valued", "opposite_predicate", "explicit_update", "related_topic"]
Strategy = Literal["trust_newer", "trust_higher_confidence", "keep_both"]
Policy = Literal["auto", "trust_newer", "trust_higher_confidence", "keep_both"]
Winner = Literal["new", "existing", "both", "history"]


@dataclass(frozen=True)
class Claim:
    """The incoming statement, normalised."""

    subject: str
    predicate: str
    object_norm: str
    at: datetime
    confidence: float


@dataclass(frozen=True)
class Held:
    """A currently believed fact as the pure functions see it (effective confidence)."""

    id: str
    predicate: str
    object_norm: str
    valid_from: datetime
    valid_to: datetime | None
    confidence: float


def held_fact(fact: Fact, confidence: float) -> Held:
    """A stored fact as the pure functions see it, with its effective ``confidence``."""
    return Held(fact.id, fact.predicate, normalize_value(fact.object), fact.valid_from, fact.valid_to, confidence)


@dataclass(frozen=True)
class Contradiction:
    """A held fact that the claim contradicts."""

    kind: ConflictKind
    held: Held


@dataclass(frozen=True)
class Verdict:
    """The strategy applied to one contradiction and who won."""

    kind: ConflictKind
    held: Held
    strategy: Strategy
    winner: Winner
    reason: str


@dataclass(frozen=True)
class Outcome:
    """What to do with the claim given all its contradictions.

    ``apply_new`` is False when a held fact wins; ``close_ids`` are held facts to close;
    ``keep_both`` asks to add the claim without closing other values of its predicate.
    """

    verdicts: tuple[Verdict, ...] = ()
    apply_new: bool = True
    close_ids: tuple[str, ...] = ()
    keep_both: bool = False


def find_contradictions(
    claim: Claim, held: Sequence[Held], *, single_valued: bool, opposite: str | None
) -> list[Contradiction]:
    """Held facts overlapping the claim's time that it contradicts (pure)."""
    found: list[Contradiction] = []
    for h in held:
        if h.valid_to is not None and h.valid_to <= claim.at:
            continue  # ended before the claim starts: history, not a contradiction
        if h.predicate == claim.predicate and single_valued and h.object_norm != claim.object_norm:
            found.append(Contradiction("single_valued", h))
        elif opposite is not None and h.predicate == opposite and h.object_norm == claim.object_norm:
            found.append(Contradiction("opposite_predicate", h))
    return found


def judge(claim: Claim, contradiction: Contradiction, *, policy: Policy = "auto", gap: float = 0.3) -> Verdict:
    """Choose the strategy for one contradiction (pure).

    ``auto``: a statement older than the held value becomes history (single-valued) or
    is kept and flagged (opposite predicates); otherwise the more confident side wins
    when the confidence gap is at least ``gap``, else the newer statement; same event
    time and similar confidence keeps both and flags the conflict.
    """
    h = contradiction.held
    kind = contradiction.kind
    conf = f"{claim.confidence:.2f} vs {h.confidence:.2f}"
    if policy == "keep_both":
        return Verdict(kind, h, "keep_both", "both", "policy keeps both contradicting facts; flagged for review")
    if claim.at < h.valid_from:
        if kind == "single_valued":
            return Verdict(kind, h, "trust_newer", "history",
                           "the held value is newer; the older statement is kept as history before it")
        return Verdict(kind, h, "keep_both", "both", "older contradicting statement learnt late; both kept, flagged")
    delta = claim.confidence - h.confidence
    if policy == "trust_higher_confidence" or (policy == "auto" and abs(delta) >= gap):
        if delta < 0:
            return Verdict(kind, h, "trust_higher_confidence", "existing",
                           f"held fact is more confident ({conf}); new statement not applied")
        return Verdict(kind, h, "trust_higher_confidence", "new", f"new statement is more confident ({conf})")
    if policy == "trust_newer" or claim.at > h.valid_from:
        return Verdict(kind, h, "trust_newer", "new", "newer statement supersedes the held fact")
    return Verdict(kind, h, "keep_both", "both",
                   f"same event time and similar confidence ({conf}); both kept, flagged for review")


def resolve_conflicts(
    claim: Claim,
    held: Sequence[Held],
    *,
    single_valued: bool,
    opposite: str | None = None,
    policy: Policy = "auto",
    gap: float = 0.3,
) -> Outcome:
    """Detect the claim's contradictions and combine their verdicts (pure)."""
    verdicts = tuple(
        judge(claim, c, policy=policy, gap=gap)
        for c in find_contradictions(claim, held, single_valued=single_valued, opposite=opposite)
    )
    apply_new = not any(v.winner == "existing" for v in verdicts)
    close = tuple(v.held.id for v in verdicts if v.winner == "new") if apply_new else ()
    return Outcome(verdicts, apply_new, close, any(v.winner == "both" for v in verdicts))


# -- the conflict log ----------------------------------------------------------------------
class Conflict(BaseModel):
    """One recorded contradiction and how it was settled (``status`` flagged = kept both)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    user_id: str
    kind: ConflictKind
    subject: str
    predicate: str
    existing_fact_id: str | None
    existing_object: str
    new_predicate: str
    new_object: str
    new_fact_id: str | None
    strategy: Strategy
    winner: Winner
    status: Literal["resolved", "flagged"]
    reason: str
    episode_ids: tuple[str, ...] = ()
    detected_at: datetime


class ConflictLog:
    """Stores and lists conflicts (table ``conflicts``); every row is scoped by user."""

    def __init__(self, db: SQLiteStore) -> None:
        self.db = db

    def record(
        self,
        user_id: str,
        verdict: Verdict,
        *,
        subject: str,
        existing_object: str,
        new_predicate: str,
        new_object: str,
        new_fact_id: str | None,
        episode_ids: Sequence[str],
        at: datetime,
    ) -> str:
        """Append one verdict (inside the caller's transaction if any); returns its id."""
        cid = f"cf_{uuid.uuid4().hex}"
        status = "flagged" if verdict.winner == "both" else "resolved"
        self.db.insert_conflict({
            "id": cid, "user_id": user_id, "kind": verdict.kind, "subject": subject,
            "predicate": verdict.held.predicate, "existing_fact_id": verdict.held.id,
            "existing_object": existing_object, "new_predicate": new_predicate, "new_object": new_object,
            "new_fact_id": new_fact_id, "strategy": verdict.strategy, "winner": verdict.winner, "status": status,
            "reason": verdict.reason, "episode_ids": json.dumps(list(episode_ids)), "detected_at": to_epoch(at),
        })
        return cid

    def list_conflicts(self, user_id: str, *, flagged_only: bool = False, limit: int = 100) -> list[Conflict]:
        """Conflicts of a user, newest first."""
        rows = self.db.list_conflicts(user_id, flagged_only=flagged_only, limit=limit)
        return [
            Conflict(
                id=r["id"], user_id=r["user_id"], kind=r["kind"], subject=r["subject"], predicate=r["predicate"],
                existing_fact_id=r["existing_fact_id"], existing_object=r["existing_object"],
                new_predicate=r["new_predicate"], new_object=r["new_object"], new_fact_id=r["new_fact_id"],
                strategy=r["strategy"], winner=r["winner"], status=r["status"], reason=r["reason"],
                episode_ids=tuple(json.loads(r["episode_ids"])),
                detected_at=from_epoch(r["detected_at"]),  # type: ignore[arg-type]
            )
            for r in rows
        ]


# -- confidence ------------------------------------------------------------------------------
class ConfidenceExplanation(BaseModel):
    """The factors behind a fact's confidence: initial value, reinforcement, decay, cap."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    fact_id: str
    initial: float
    observations: int
    reinforcement_rate: float
    cap: float
    steps: tuple[float, ...]
    stored: float
    last_reinforced: datetime | None
    age_days: float
    half_life_days: float
    decay_factor: float
    effective: float
    text: str


def explain_confidence(
    stored: float,
    *,
    observations: int,
    rate: float,
    cap: float,
    age_days: float,
    half_life_days: float,
    fact_id: str = "",
    last_reinforced: datetime | None = None,
) -> ConfidenceExplanation:
    """Explain a stored confidence (pure).

    Each observation after the first closes ``rate`` of the gap to ``cap`` (diminishing
    returns), so the initial confidence is recovered exactly from the stored value and
    the observation count; passive decay halves it every ``half_life_days`` since it was
    last reinforced (computed at read time, never stored).
    """
    n = max(1, observations)
    stored = min(stored, cap)
    initial = stored
    if n > 1 and rate < 1:
        initial = max(0.0, min(cap, cap - (cap - stored) / math.pow(1 - rate, n - 1)))
    steps = [initial]
    for _ in range(n - 1):
        steps.append(reinforced_confidence(steps[-1], rate=rate, cap=cap))
    age = max(0.0, age_days)
    effective = decayed_confidence(stored, age_days=age, half_life_days=half_life_days)
    factor = effective / stored if stored else 1.0
    text = (
        f"initial {initial:.2f}; {n} observation(s), each repeat closes {rate:.0%} of the gap to the cap "
        f"{cap:.2f} -> {stored:.2f}; not reinforced for {age:.1f} days (half-life {half_life_days:g} days) "
        f"-> x{factor:.3f} = {effective:.2f}"
    )
    return ConfidenceExplanation(
        fact_id=fact_id, initial=round(initial, 6), observations=n, reinforcement_rate=rate, cap=cap,
        steps=tuple(round(s, 6) for s in steps), stored=stored, last_reinforced=last_reinforced, age_days=age,
        half_life_days=half_life_days, decay_factor=factor, effective=effective, text=text,
    )
