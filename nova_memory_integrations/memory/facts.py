"""Semantic memory: applying statements to the bi-temporal fact store.

The decision of what changes is made by the pure functions in :mod:`temporal`; this
module turns a plan into SQLite rows. Closing a fact never edits history: the believed
version is expired (``expired_at``) and a closed copy (``valid_to`` set) is inserted
with the same ``lineage_id``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from .._time import to_epoch, utcnow
from ..config import FactConfig
from ..errors import InvalidInputError
from ..storage.sqlite import SQLiteStore
from ..types import Fact, FactDecision, MemorySource, new_id
from .importance import LEVELS, assess, decay_scale
from .temporal import (
    Interval,
    decayed_confidence,
    normalize_value,
    plan_assertion,
    plan_negation,
    plan_retraction,
    reinforced_confidence,
)

__all__ = ["FactMemory", "new_id", "normalize_predicate"]


def normalize_predicate(predicate: str) -> str:
    """``"Lives In"`` -> ``"lives_in"``."""
    return "_".join(normalize_value(predicate).replace("-", " ").split())


class FactMemory:
    """Applies assertions and negations to one store's facts; queries them in time."""

    def __init__(
        self, db: SQLiteStore, config: FactConfig, *,
        resolve: Callable[[str, str, str, str], tuple[str, str]] | None = None,
    ) -> None:
        self.db = db
        self.config = config
        self.resolve = resolve
        """Entity resolution hook: ``(user_id, subject, predicate, object) -> (subject, object)``."""

    # -- writes -------------------------------------------------------------------------
    def apply(
        self,
        user_id: str,
        subject: str,
        predicate: str,
        obj: str,
        *,
        negate: bool = False,
        at: datetime,
        confidence: float | None = None,
        episode_ids: Sequence[str] = (),
        metadata: dict[str, Any] | None = None,
        now: datetime | None = None,
        reason: str | None = None,
        supersede: Sequence[Fact] = (),
        single_valued: bool | None = None,
        reason_prefix: str | None = None,
        importance: float | None = None,
        source: MemorySource = "inferred",
        rated: float | None = None,
    ) -> tuple[FactDecision, list[str]]:
        """Apply one statement in a transaction; returns the decision and changed row ids.

        ``supersede`` are other current facts to close at ``at`` (an explicit UPDATE or a
        resolved contradiction); ``single_valued`` overrides the predicate's cardinality.
        ``importance`` (default: :func:`~.importance.assess` of the statement) and ``source`` are
        the new version's; a repeat raises a held fact's importance to it, and an explicit
        repeat makes it explicit. ``rated`` is a model's rating (:mod:`..extraction.prompts` v3): it
        replaces :func:`~.importance.assess` for an inferred fact, but a caller's ``importance``, the
        declared predicate's and an explicit request's level 5 win over it.
        """
        now = now or utcnow()
        predicate_n = self.config.canonical(normalize_predicate(predicate))  # a declared synonym: its name
        if not predicate_n or not normalize_value(subject) or not obj.strip():
            raise InvalidInputError(
                f"subject, predicate and object need letters or digits: {subject!r} {predicate!r} {obj!r}")
        if self.resolve is not None:
            subject, obj = self.resolve(user_id, subject, predicate_n, obj)
        subject_n = normalize_value(subject) or subject
        obj = obj.strip()
        obj_norm = normalize_value(obj) if obj else None
        if importance is None and (declared := self.config.declared(predicate_n)) and declared.importance:
            importance = LEVELS[declared.importance]  # the app said how much it matters
        if importance is None and rated is not None and source != "explicit":
            importance = rated
        if importance is None:
            importance = assess(f"{subject_n} {predicate_n.replace('_', ' ')} {obj}", explicit=source == "explicit",
                                predicate=predicate_n).value
        changed: list[str] = []
        with self.db.user_transaction(user_id):
            # versions that ended before `at` cannot change the plan: skip loading them
            current = self.db.current_facts(user_id, subject=subject_n, predicate=predicate_n, valid_after=to_epoch(at))
            by_id = {f.id: f for f in current}
            intervals = [Interval(f.id, normalize_value(f.object), f.valid_from, f.valid_to) for f in current]
            if negate:
                plan = plan_negation(obj_norm, at, intervals)
            else:
                plan = plan_assertion(
                    obj_norm or "", at, intervals,
                    single_valued=self.config.is_single_valued(predicate_n) if single_valued is None else single_valued,
                )
            fact_id: str | None = None
            replaced: str | None = None
            if plan.reinforce_id is not None:
                old = by_id[plan.reinforce_id]
                conf = reinforced_confidence(
                    old.confidence, rate=self.config.reinforcement_rate, cap=self.config.confidence_cap
                )
                prov = list(dict.fromkeys([*old.provenance, *episode_ids]))
                self.db.reinforce_fact(user_id, old.id, conf, prov, to_epoch(now) or 0.0, importance=importance,
                                       explicit=source == "explicit")
                fact_id = old.id
            for old_id, close_at in plan.close.items():
                replaced = old_id
                changed += self._close(by_id[old_id], close_at, episode_ids, now)
            extra = [f for f in supersede if f.id not in plan.close and f.id != plan.reinforce_id]
            for old in extra:
                replaced = old.id
                changed += self._close(old, max(at, old.valid_from), episode_ids, now)
            if plan.add:
                fid = new_id("fa")
                fact = Fact(
                    id=fid,
                    lineage_id=fid,
                    user_id=user_id,
                    subject=subject_n,
                    predicate=predicate_n,
                    object=obj,
                    confidence=min(confidence or self.config.default_confidence, self.config.confidence_cap),
                    valid_from=at,
                    valid_to=plan.new_valid_to,
                    ingested_at=now,
                    provenance=tuple(dict.fromkeys(episode_ids)),
                    metadata=metadata or {},
                    importance=importance,
                    source=source,
                )
                self.db.insert_fact(fact, obj_norm or "", to_epoch(now) or 0.0)
                fact_id = fact.id
                changed.append(fact.id)
            decision = FactDecision(
                op=("DELETE" if negate else "UPDATE") if extra else plan.op,
                subject=subject_n,
                predicate=predicate_n,
                object=obj,
                reason=(f"{reason_prefix}; " if reason_prefix else "") + (reason or plan.reason),
                fact_id=fact_id,
                replaced_fact_id=replaced,
                episode_ids=tuple(episode_ids),
            )
            self.db.record_decision(user_id, decision, to_epoch(now) or 0.0)
        return decision, changed

    def close_fact(
        self, user_id: str, fact: Fact, at: datetime, *, episode_ids: Sequence[str] = (), reason: str
    ) -> tuple[FactDecision, list[str]]:
        """Invalidate one fact version at event time ``at`` (kept in history)."""
        now = utcnow()
        with self.db.user_transaction(user_id):
            changed = self._close(fact, max(at, fact.valid_from), episode_ids, now)
            decision = FactDecision(
                op="DELETE", subject=fact.subject, predicate=fact.predicate, object=fact.object,
                reason=reason, fact_id=changed[-1], replaced_fact_id=fact.id, episode_ids=tuple(episode_ids),
            )
            self.db.record_decision(user_id, decision, to_epoch(now) or 0.0)
        return decision, changed

    def held_from(self, user_id: str, subject: str, predicate: str, obj: str, *, after: datetime) -> datetime | None:
        """The start of the open version holding ``obj`` from later than ``after``, if any: a statement of the
        same value from earlier ("vegetarian since 2010") is then a repeat of it, not a closed copy before it."""
        same = normalize_value(obj)
        return min((f.valid_from for f in self.db.current_facts(user_id, subject=subject, predicate=predicate)
                    if f.valid_to is None and f.valid_from > after and normalize_value(f.object) == same), default=None)

    def retract(
        self, user_id: str, wrong: Fact, corrected: str, *, at: datetime, episode_ids: Sequence[str] = (),
        reason: str, now: datetime | None = None,
    ) -> tuple[FactDecision, list[str]]:
        """A correction: ``wrong``'s value was never true, ``corrected`` held from its start instead.

        Every believed version of ``wrong``'s lineage is expired (no closed copy remains, so the
        latest belief never shows it, while ``known_at`` before now still does); the corrected value
        takes its ``valid_from`` (:func:`~.temporal.plan_retraction`). Recorded as an UPDATE.
        """
        now = now or utcnow()
        if not corrected.strip():
            raise InvalidInputError("a correction needs the corrected value")
        subject, obj = wrong.subject, corrected.strip()
        if self.resolve is not None:
            subject, resolved = self.resolve(user_id, subject, wrong.predicate, obj)
            # a near value ("... on Wednesdays" beside "... on Tuesdays") must not resolve back onto the wrong one
            obj = obj if normalize_value(resolved) == normalize_value(wrong.object) else resolved
        obj_norm = normalize_value(obj)
        stamp = to_epoch(now) or 0.0
        changed: list[str] = []
        with self.db.user_transaction(user_id):
            versions = self.db.select_facts(user_id, lineage_id=wrong.lineage_id)
            same = self.db.current_facts(user_id, subject=wrong.subject, predicate=wrong.predicate)
            rows = {f.id: f for f in [*versions, *same]}
            plan = plan_retraction(
                [Interval(f.id, normalize_value(f.object), f.valid_from, f.valid_to) for f in versions],
                [Interval(f.id, normalize_value(f.object), f.valid_from, f.valid_to) for f in same
                 if normalize_value(f.object) == obj_norm and f.lineage_id != wrong.lineage_id],
                at,
            )
            # the correcting message itself restating the wrong value ("Pescatarian was my husband" read as the
            # user's): never true either
            restated = [f.id for f in same if f.lineage_id != wrong.lineage_id and set(f.provenance) & set(episode_ids)
                        and normalize_value(f.object) == normalize_value(wrong.object)]
            for fid in (*plan.expire, *plan.rebase, *restated):
                self.db.expire_fact(user_id, fid, stamp)
                changed.append(fid)
            fact_id = plan.reinforce_id
            if plan.reinforce_id is not None:
                kept = rows[plan.reinforce_id]
                conf = reinforced_confidence(kept.confidence, rate=self.config.reinforcement_rate,
                                             cap=self.config.confidence_cap)
                self.db.reinforce_fact(user_id, kept.id, conf, list(dict.fromkeys([*kept.provenance, *episode_ids])),
                                       stamp)
            if plan.add and plan.valid_from is not None:
                rebased = [rows[i] for i in plan.rebase]
                fid = new_id("fa")
                fact = Fact(
                    id=fid, lineage_id=rebased[0].lineage_id if rebased else fid, user_id=user_id, subject=subject,
                    predicate=wrong.predicate, object=obj,
                    confidence=min(max([wrong.confidence, *(f.confidence for f in rebased)]),
                                   self.config.confidence_cap),
                    valid_from=plan.valid_from, valid_to=plan.valid_to, ingested_at=now,
                    provenance=tuple(dict.fromkeys([*wrong.provenance, *(p for f in rebased for p in f.provenance),
                                                    *episode_ids])),
                    metadata={**wrong.metadata, "corrects": wrong.object},
                    importance=wrong.importance, source=wrong.source,
                )
                self.db.insert_fact(fact, obj_norm, stamp)
                fact_id = fid
                changed.append(fid)
            decision = FactDecision(
                op=plan.op, subject=wrong.subject, predicate=wrong.predicate, object=obj,
                reason=f"{reason}; {plan.reason}" if reason else plan.reason, fact_id=fact_id,
                replaced_fact_id=wrong.id, episode_ids=tuple(episode_ids),
            )
            self.db.record_decision(user_id, decision, stamp)
        return decision, changed

    def _close(self, old: Fact, close_at: datetime, episode_ids: Sequence[str], now: datetime) -> list[str]:
        self.db.expire_fact(old.user_id, old.id, to_epoch(now) or 0.0)
        closed = old.model_copy(
            update={
                "id": new_id("fa"),
                "valid_to": close_at,
                "ingested_at": now,
                "expired_at": None,
                "provenance": tuple(dict.fromkeys([*old.provenance, *episode_ids])),
            }
        )
        last = self.db.fact_last_reinforced(old.user_id, [old.id]).get(old.id, to_epoch(now) or 0.0)
        self.db.insert_fact(closed, normalize_value(old.object), last)
        return [old.id, closed.id]

    # -- reads --------------------------------------------------------------------------
    def query(
        self,
        user_id: str,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
        include_history: bool = False,
        predicates: Sequence[str] | None = None,
    ) -> list[Fact]:
        """Facts believed at ``known_at`` (default now) and valid at ``as_of``.

        With ``include_history`` every believed version is returned whatever its
        validity (the timeline of each fact, with its intervals). ``predicates`` (normalized
        names) keeps only facts on one of them.
        """
        rows = self.db.select_facts(
            user_id,
            subject=normalize_value(subject) if subject else None,
            predicate=normalize_predicate(predicate) if predicate else None,
            known_at=to_epoch(known_at),
        )
        if predicates is not None:
            wanted = set(predicates)
            rows = [f for f in rows if f.predicate in wanted]
        if include_history:
            return rows
        moment = as_of or known_at or utcnow()
        return [f for f in rows if f.is_valid_at(moment)]

    def effective_confidence(self, fact: Fact, *, now: datetime | None = None) -> float:
        """Confidence with passive decay since the fact was last reinforced."""
        return self.effective_confidences(fact.user_id, [fact], now=now)[fact.id]

    def effective_confidences(
        self, user_id: str, facts: Sequence[Fact], *, now: datetime | None = None
    ) -> dict[str, float]:
        """:meth:`effective_confidence` of several facts of one user, in one lookup; an important fact
        fades slower and an explicit one not at all (:func:`~.importance.decay_scale`)."""
        moment = to_epoch(now or utcnow()) or 0.0
        last = self.db.fact_last_reinforced(user_id, [f.id for f in facts])
        out: dict[str, float] = {}
        for f in facts:
            age_days = 0.0 if f.id not in last else max(0.0, moment - last[f.id]) / 86400
            age_days *= decay_scale(f.importance, f.source)
            out[f.id] = decayed_confidence(f.confidence, age_days=age_days,
                                           half_life_days=self.config.decay_half_life_days)
        return out
