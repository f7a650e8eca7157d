"""Consolidation: unprocessed episodes -> ADD / UPDATE / DELETE / NOOP on the fact store.

Episodes are taken per user in event-time order and in batches. A *source* (:mod:`..extraction.proposals`)
proposes statements for a batch. Proposals are applied in one SQLite transaction together with the "processed"
flags, after entity resolution (:mod:`..memory.entities`) and conflict detection (:mod:`..memory.conflicts`);
UPDATE and DELETE close validity and expire versions, never remove them (:class:`FactMemory`). What a negation
or an implied ending closes is planned first, from the values held (:mod:`.negation`, pure), then each ending
is applied.

Failure handling: the source is called *outside* the transaction. Episodes a model answered for, but never
usably after repair and retries (unparseable, the wrong schema, empty: ``BatchPlan.unusable``), are consolidated
by the deterministic extractor instead (``consolidation.llm_fallback``, said once per store): a weak local model
would otherwise leave every episode failed and no fact at all, run after run. Episodes whose calls failed
(timeouts, rate limits, server errors), or a batch whose transaction failed, stay unprocessed and are recorded as
a dead letter, parked (later runs skip them) until :meth:`Consolidator.retry_dead_letters` tries again."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from .. import _tracing
from .._once import WarnOnce
from .._time import from_epoch, to_epoch, utcnow
from ..changes.corrections import says_corrected
from ..changes.displaced import ONE_AT_A_TIME
from ..changes.guards import adds_to_held, restates
from ..changes.states import OPEN_PREDICATE
from ..config import ConsolidationConfig, FactConfig, NovaConfig
from ..engine.hooks import Hooks, Veto
from ..errors import NotFoundError
from ..extraction.llm import LLMExtractor
from ..extraction.proposals import BatchExtractor, BatchPlan, ConsolidationSource, ExtractorSource, Proposal, stated
from ..memory.conflicts import (
    Claim,
    ConfidenceExplanation,
    ConflictLog,
    Outcome,
    Verdict,
    explain_confidence,
    held_fact,
    resolve_conflicts,
)
from ..memory.entailments import needs
from ..memory.facts import FactMemory, normalize_predicate
from ..memory.temporal import decayed_confidence, normalize_value
from ..storage.sqlite import SQLiteStore, row_to_fact
from ..types import ConsolidationResult, Episode, Fact, FactDecision, MemorySource
from .negation import NOTHING_HELD, Ending, NegationPlan, opposite_predicates, plan_entailed, plan_negation
from .schema_gate import SchemaGate
from .types import tally

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ..changes.tracker import ChangeTracker
    from ..memory.entities import EntityResolver, RelatedFacts
    from .attitudes import AttitudeConflicts

__all__ = ["Consolidator"]

logger = logging.getLogger(__name__)

OPEN_CONFIDENCE, FOUND_CONFIDENCE = 0.6, 0.45
"""Confidence of an open state read by shape, and of one only the learned thing finder named (ranked below)."""
FALLBACK_WARNING = (
    "nova-memory consolidation: the model's answers for %d of %d episodes could not be used (%s); the "
    "deterministic extractor consolidated them instead (said once per store; [consolidation] "
    'llm_fallback = "quiet" silences this, "off" dead-letters such episodes)'
)


@dataclass
class _Outcome:
    decisions: list[FactDecision] = field(default_factory=list)
    processed: int = 0
    failed: int = 0
    fallback: int = 0
    changed: dict[str, list[str]] = field(default_factory=dict)


def _traced_decisions(traced: Span, decisions: Sequence[FactDecision], dead: int, content: bool) -> None:
    """A batch's decisions as events of its span and counts by op; its dead-lettered episodes counted."""
    measure = _tracing.instruments()
    for d in decisions:
        measure.decisions.add(1, {"nova_memory.decision.op": d.op})
    if dead:
        measure.dead_letters.add(dead)
    if not traced.is_recording():
        return
    traced.set_attributes({"nova_memory.decisions": len(decisions), "nova_memory.dead_lettered": dead})
    for d in decisions:
        event: dict[str, str] = {"nova_memory.decision.op": d.op, "nova_memory.fact_id": d.fact_id or "",
                                 "nova_memory.replaced_fact_id": d.replaced_fact_id or ""}
        if content:
            event.update({"nova_memory.subject": d.subject, "nova_memory.predicate": d.predicate,
                          "nova_memory.object": d.object, "nova_memory.reason": d.reason})
        traced.add_event("nova_memory.decision", event)


def _letter_id(ids: Sequence[str]) -> str:
    return "dl_" + hashlib.sha1("|".join(ids).encode()).hexdigest()[:16]


class Consolidator:
    """Runs consolidation for a store; one run at a time per store."""

    def __init__(
        self,
        db: SQLiteStore,
        facts: FactMemory,
        *,
        batch_size: int,
        on_facts_changed: Callable[[str, list[str]], None],
        config: NovaConfig | None = None,
        entities: EntityResolver | None = None,
        related: RelatedFacts | None = None,
        hooks: Hooks | None = None,
        changes: ChangeTracker | None = None,
        fallback: Callable[[], BatchExtractor] | None = None,
        attitudes: AttitudeConflicts | None = None,
    ) -> None:
        self.db = db
        self.attitudes = attitudes  # finds the related_topic conflicts of a new attitude (None: not looked for)
        self.fallback = fallback  # the deterministic extractor for episodes a model answered unusably
        self._fallback_warned = WarnOnce(logger, FALLBACK_WARNING)
        self.changes = changes  # plans what each user episode ends or corrects (deterministic runs)
        self.hooks = hooks if hooks is not None else Hooks()
        self.facts = facts
        self.batch_size = batch_size
        self._on_changed = on_facts_changed
        self.fact_config: FactConfig = config.facts if config is not None else facts.config
        self.config: ConsolidationConfig = config.consolidation if config is not None else ConsolidationConfig()
        self._trace_content = config.tracing.content if config is not None else False
        self.entities = entities
        self.related = related
        self.conflict_log = ConflictLog(db)
        self.gate = SchemaGate(db, self.fact_config)  # the declared models every new value passes
        self._opposites = opposite_predicates(self.fact_config.opposite_predicates)
        self._lock = threading.Lock()
        self._llm: tuple[Any, LLMExtractor] | None = None

    # -- sources ----------------------------------------------------------------------------
    def llm_source(self, llm: Any) -> LLMExtractor:
        """The LLM source for ``llm`` (a chat model, LlamaIndex LLM or LLMExtractor; one built knows the schemas)."""
        cached, schemas = self._llm, self.fact_config.schemas
        if cached is not None and cached[0] is llm and (cached[1] is llm or cached[1].schemas.models == schemas):
            return cached[1]
        source = llm if isinstance(llm, LLMExtractor) else LLMExtractor.from_config(llm, self.config, schemas)
        self._llm = (llm, source)
        return source

    def _source_and_size(
        self, source: ConsolidationSource | BatchExtractor, batch_size: int | None
    ) -> tuple[ConsolidationSource, int]:
        """The source as a ``ConsolidationSource`` and the batch size: given, the source's own, or ours."""
        src: ConsolidationSource = (
            source if hasattr(source, "plan") else ExtractorSource(source)  # type: ignore[assignment,arg-type]
        )
        return src, batch_size or getattr(src, "batch_size", None) or self.batch_size

    # -- runs -------------------------------------------------------------------------------
    def run(
        self, user_id: str | None, source: ConsolidationSource | BatchExtractor, *, batch_size: int | None = None
    ) -> ConsolidationResult:
        """Consolidate every unprocessed, not dead-lettered episode of ``user_id`` (or of every user)."""
        src, size = self._source_and_size(source, batch_size)
        outcome = _Outcome()
        with self._lock, _tracing.span("nova_memory.consolidation.run", lambda: {
                _tracing.USER_ID: user_id or "", "nova_memory.source": type(src).__name__}), \
                self._handing_over(outcome):
            users = [user_id] if user_id is not None else self.db.users_with_unprocessed()
            for uid in users:
                with self.db.user_lock(uid):  # one process at a time per user (Postgres); read once held
                    parked = {i for letter in self.db.dead_letters(uid) for i in letter["episode_ids"]}
                    pending = [e for e in self.db.list_episodes(uid, unprocessed_only=True) if e.id not in parked]
                    for start in range(0, len(pending), size):
                        self._run_batch(uid, pending[start : start + size], src, outcome)
        return tally(outcome.decisions, processed=outcome.processed, failed=outcome.failed,
                     fallback=outcome.fallback)

    def retry_dead_letters(
        self, user_id: str | None, source: ConsolidationSource | BatchExtractor, *, batch_size: int | None = None
    ) -> ConsolidationResult:
        """Try the dead-lettered episodes again; what fails again gets a new letter (attempts + 1)."""
        src, size = self._source_and_size(source, batch_size)
        outcome = _Outcome()
        with self._lock, self._handing_over(outcome):
            for letter in self.db.dead_letters(user_id):
                uid, order = letter["user_id"], {i: n for n, i in enumerate(letter["episode_ids"])}
                with self.db.user_lock(uid):
                    episodes = sorted((e for e in self.db.get_episodes(uid, list(order)) if not e.processed),
                                      key=lambda e: (e.timestamp, order[e.id]))
                    self.db.remove_dead_letter(uid, letter["id"])
                    for start in range(0, len(episodes), size):
                        new = self._run_batch(uid, episodes[start : start + size], src, outcome)
                        if new is not None:
                            self.db.set_dead_letter_attempts(uid, new, int(letter["attempts"]) + 1)
        return tally(outcome.decisions, processed=outcome.processed, failed=outcome.failed,
                     fallback=outcome.fallback)

    def _run_batch(
        self, user_id: str, batch: Sequence[Episode], src: ConsolidationSource, outcome: _Outcome
    ) -> str | None:
        """One batch, in its span: one event per decision (ids and op; the fact's words only with
        ``[tracing] content``), the decisions counted by op, dead-lettered episodes counted."""
        with _tracing.span("nova_memory.consolidation.batch", lambda: {
                _tracing.USER_ID: user_id, "nova_memory.episodes": len(batch)}) as traced:
            before = (len(outcome.decisions), outcome.failed)
            letter = self._apply_batch(user_id, batch, src, outcome)
            _traced_decisions(traced, outcome.decisions[before[0]:], outcome.failed - before[1],
                              self._trace_content)
            return letter

    def _apply_batch(
        self, user_id: str, batch: Sequence[Episode], src: ConsolidationSource, outcome: _Outcome
    ) -> str | None:
        related: list[Fact] = []
        if getattr(src, "needs_context", False) and self.related is not None:
            related = self.related(user_id, batch, self.config.llm_context_facts)
        if getattr(src, "needs_context", False) and self.changes is not None:  # what the batch's cues may end
            related = self.changes.touched(user_id, batch, related, self.config.llm_context_facts)
        try:
            plan = src.plan(user_id, batch, related)
        except Exception as exc:  # recorded, never lost
            plan = BatchPlan(failed={e.id: f"{type(exc).__name__}: {exc}" for e in batch})
        done = [e for e in batch if e.id in plan.proposals]
        answered = {e.id for e in done}
        failed = {e.id: plan.failed.get(e.id, "no result for this episode") for e in batch if e.id not in answered}
        fallback = self._fallback_for(batch, plan, failed)
        decisions: list[FactDecision] = []
        changed: list[str] = []
        if done:
            try:
                with self.db.user_transaction(user_id):
                    now = utcnow()
                    for episode in done:
                        handled: list[str] = []  # sentences whose statements already ended or replaced a fact
                        stated: list[str] = []  # the fact versions this episode's statements wrote
                        displacing: list[str] = []  # those of a predicate whose new value ends an open state
                        for proposal in plan.proposals[episode.id]:
                            decided = self._decide(user_id, proposal, at=episode.timestamp, episode_ids=[episode.id],
                                                   now=now, source=episode.source)
                            if decided is None:
                                continue
                            proposal, made, ids = decided
                            decisions += made
                            changed += ids
                            stated += ids
                            displacing += ids if proposal.predicate in ONE_AT_A_TIME else []
                            if any(d.op in ("UPDATE", "DELETE") for d in made):
                                handled.append(proposal.source_text)
                        if self.changes is not None and not getattr(src, "needs_context", False):
                            made, ids = self._apply_changes(user_id, episode, now, handled, stated, displacing)
                            made2, ids2 = self._apply_open_states(user_id, episode, plan.proposals[episode.id],
                                                                  now, [*stated, *ids])
                            decisions += made + made2
                            changed += ids + ids2
                    self.db.mark_processed(user_id, [e.id for e in done])
            except Exception as exc:  # rolled back, recorded, never lost
                if self.entities is not None:
                    self.entities.invalidate(user_id)
                failed.update({e.id: f"{type(exc).__name__}: {exc}" for e in done})
                done, decisions, changed = [], [], []
        letter: str | None = None
        if failed:
            ids = [e.id for e in batch if e.id in failed]
            error = "; ".join(dict.fromkeys(failed[i] for i in ids))[:4000]
            logger.warning("nova-memory consolidation: %d of %d episodes failed: %s", len(ids), len(batch), error)
            letter = _letter_id(ids)
            self.db.add_dead_letter(letter, user_id, ids, error, to_epoch(utcnow()) or 0.0)
        outcome.decisions += decisions
        outcome.processed += len(done)
        outcome.failed += len(failed)
        if changed:
            outcome.changed.setdefault(user_id, []).extend(changed)
            graph = self.related.graph if self.related is not None else None
            if graph is not None:  # later batches of this run see the new facts
                graph.invalidate(user_id)
        if fallback and self.fallback is not None:
            before = outcome.processed
            self._run_batch(user_id, fallback, ExtractorSource(self.fallback()), outcome)
            outcome.fallback += outcome.processed - before
        return letter

    def _fallback_for(self, batch: Sequence[Episode], plan: BatchPlan, failed: dict[str, str]) -> list[Episode]:
        """The failed episodes of ``batch`` the deterministic extractor takes instead (taken out of
        ``failed``), after the one warning of this store; none when the fallback is off."""
        if self.fallback is None or self.config.llm_fallback == "off":
            return []
        chosen = [e for e in batch if e.id in failed and e.id in plan.unusable]
        if chosen and self.config.llm_fallback == "warn":
            reasons = "; ".join(dict.fromkeys(failed[e.id] for e in chosen))[:300]
            self._fallback_warned(len(chosen), len(batch), reasons)
        for episode in chosen:
            del failed[episode.id]
        return chosen

    @contextmanager
    def _handing_over(self, outcome: _Outcome) -> Iterator[None]:
        """Hand the run's changed facts over (graph cache, background indexer) when it ends.

        Embedding while the run is still writing would compete with it for the CPU; new facts
        are searchable once indexed (``search`` waits for the user's pending rows) and rows
        left unindexed by a crash are recovered when the store is next opened.
        """
        try:
            yield
        finally:
            for uid, ids in outcome.changed.items():
                self._on_changed(uid, ids)

    # -- applying one proposal ------------------------------------------------------------------
    def _current(self, user_id: str, fact_id: str | None) -> Fact | None:
        if not fact_id:
            return None
        found = self.db.select_facts(user_id, ids=[fact_id])
        return found[0] if found else None

    def apply_fact(
        self, user_id: str, subject: str, predicate: str, obj: str, *, at: datetime, confidence: float | None = None,
        episode_ids: Sequence[str] = (), metadata: dict[str, Any] | None = None, reason: str | None = None,
        importance: float | None = None, source: MemorySource = "explicit",
    ) -> tuple[FactDecision, list[str]]:
        """Apply one statement outside a run (``NovaStore.add_fact``, a memory tool, REST): resolution,
        conflicts, one transaction. Such a statement is explicit unless ``source`` says otherwise; a value
        a declared model refuses raises ``FactSchemaError`` before anything is written."""
        obj = self.gate.check(self.fact_config.canonical(normalize_predicate(predicate)), obj.strip())
        prop = Proposal(subject, predicate, obj, confidence=confidence, reason=reason, metadata=dict(metadata or {}))
        try:
            with self.db.user_transaction(user_id):
                made, changed = self._apply(user_id, prop, at=at, episode_ids=list(episode_ids), now=utcnow(),
                                            source=source, importance=importance)
        except Exception:
            if self.entities is not None:
                self.entities.invalidate(user_id)
            raise
        return made[0], changed

    def _decide(
        self, user_id: str, prop: Proposal, *, at: datetime, episode_ids: list[str], now: datetime,
        source: MemorySource = "inferred",
    ) -> tuple[Proposal, list[FactDecision], list[str]] | None:
        """One proposal through the ``before_decision`` hooks, applied, then the ``after_decision`` hooks:
        the proposal as the hooks left it, the decisions and the changed fact ids, or ``None`` when a
        hook vetoed it. The time rule is the same for every kind: the proposal's own ``valid_from``
        (as a hook may have set it) when it has one, else ``at`` (the turn's or the change's time)."""
        try:  # a hook may change or veto the statement
            prop = self.hooks.run("before_decision", user_id, prop)
        except Veto:
            return None
        made, ids = self._apply(user_id, prop, at=prop.valid_from or at, episode_ids=episode_ids, now=now,
                                source=source)
        self.hooks.run("after_decision", user_id, made)
        return prop, made, ids

    def _apply(
        self, user_id: str, prop: Proposal, *, at: datetime, episode_ids: list[str], now: datetime,
        source: MemorySource = "inferred", importance: float | None = None,
    ) -> tuple[list[FactDecision], list[str]]:
        meta = dict(prop.metadata)
        if prop.source_text:
            meta["source_text"] = prop.source_text
        common: dict[str, Any] = {"confidence": prop.confidence, "episode_ids": episode_ids,
                                  "metadata": meta or None, "now": now, "reason_prefix": prop.reason,
                                  "source": source, "importance": importance, "rated": prop.importance}
        target = self._current(user_id, prop.target_fact_id)
        if prop.op == "UPDATE" and target is not None and says_corrected(prop.reason):  # a model's correction
            fixed_value = self.gate.admit(user_id, prop, target.predicate, episode_ids=episode_ids, now=now)
            if isinstance(fixed_value, FactDecision):
                return [fixed_value], []
            fixed, fixed_ids = self.facts.retract(user_id, target, fixed_value, at=at, episode_ids=episode_ids,
                                                  reason=prop.reason or "corrected", now=now)
            return [fixed], fixed_ids
        if prop.negate or prop.op == "DELETE":
            plan = self._negation(user_id, prop, target, at)
            if plan.endings:
                return self._end(user_id, plan.endings, at, common)
            decision = FactDecision(op="NOOP", subject=plan.subject, predicate=plan.predicate, object="",
                                    reason=(f"{prop.reason}; " if prop.reason else "") + NOTHING_HELD,
                                    episode_ids=tuple(episode_ids))
            self.db.record_decision(user_id, decision, to_epoch(now) or 0.0)
            return [decision], []
        if prop.op == "NOOP" and target is not None:
            decision, ids = self.facts.apply(user_id, target.subject, target.predicate, target.object,
                                             at=max(at, target.valid_from), **common)
            return [decision], ids
        predicate = self.fact_config.canonical(normalize_predicate(prop.predicate))
        admitted = self.gate.admit(user_id, prop, predicate, episode_ids=episode_ids, now=now)
        if isinstance(admitted, FactDecision):  # refused by a declared model: recorded, not stored
            return [admitted], []
        subject, obj = prop.subject, admitted
        if self.entities is not None:
            subject, obj = self.entities.resolve_fact(user_id, subject, predicate, obj)
        subject_n = normalize_value(subject) or subject
        supersede: list[Fact] = []
        verdicts: list[Verdict] = []
        if prop.op == "UPDATE" and target is not None and (target.subject, target.predicate, normalize_value(
                target.object)) != (subject_n, predicate, normalize_value(obj)):
            supersede.append(target)
            verdicts.append(Verdict("explicit_update", held_fact(target, target.confidence), "trust_newer", "new",
                                    "the model decided this fact is superseded (UPDATE)"))
        additive = prop.op != "UPDATE" and adds_to_held(predicate, prop.source_text)  # "tutoring on the side too"
        if prop.valid_from is not None and prop.op != "UPDATE":  # "vegetarian since 2010" of a value held from later
            at = self.facts.held_from(user_id, subject_n, predicate, obj, after=at) or at
        outcome, held = (Outcome(), {}) if additive else self._conflicts(
            user_id, subject_n, predicate, obj, at, prop.confidence or self.fact_config.default_confidence,
            exclude={f.id for f in supersede}, now=now)
        verdicts += outcome.verdicts
        if not outcome.apply_new:
            why = "; ".join(v.reason for v in outcome.verdicts if v.winner == "existing")
            decision = FactDecision(op="NOOP", subject=subject_n, predicate=predicate, object=obj,
                                    reason=(f"{prop.reason}; " if prop.reason else "") + f"conflict: {why}",
                                    episode_ids=tuple(episode_ids))
            self.db.record_decision(user_id, decision, to_epoch(now) or 0.0)
            self._log(user_id, verdicts, held, subject_n, predicate, obj, None, episode_ids, now)
            return [decision], []
        if outcome.close_ids and all(restates(held[i].object, obj) for i in outcome.close_ids):
            obj, outcome = held[outcome.close_ids[0]].object, Outcome(outcome.verdicts)  # told again: a repeat
        supersede += [held[i] for i in outcome.close_ids]
        decision, ids = self.facts.apply(user_id, subject, predicate, obj, at=at, supersede=supersede,
                                         single_valued=False if outcome.keep_both or additive else None, **common)
        if self.attitudes is not None and decision.op in ("ADD", "UPDATE"):  # opposite attitudes, related topics
            clashing, clashed = self.attitudes.find(user_id, subject_n, predicate, obj, at, decision.fact_id)
            verdicts, held = verdicts + clashing, {**held, **clashed}
        self._log(user_id, verdicts, {**held, **{f.id: f for f in supersede}}, subject_n, predicate, obj,
                  decision.fact_id, episode_ids, now)
        if decision.op not in ("ADD", "UPDATE"):
            return [decision], ids
        current = {pair: self._held(user_id, pair[0], pair[1], at) for pair in needs(subject_n, predicate, obj)}
        implied = {**common, "reason_prefix": f"implied by {predicate} {obj}"}
        ended, changed = self._end(user_id, plan_entailed(subject_n, predicate, obj, current), at, implied)
        return [decision, *ended], [*ids, *changed]

    def _negation(self, user_id: str, prop: Proposal, target: Fact | None, at: datetime) -> NegationPlan:
        """The plan of a negating proposal (:func:`~.negation.plan_negation`), with what it reads:
        the canonical subject and the values held at ``at`` (nothing to read for a named target)."""
        if target is not None:
            return plan_negation(prop.subject, prop.predicate, prop.object, subject_n=target.subject,
                                 predicate_n=target.predicate, held=(),
                                 target=Ending(target.subject, target.predicate, target.object))
        subject_n = normalize_value(self.entities.canonical(user_id, prop.subject) if self.entities else prop.subject)
        predicate_n = self.fact_config.canonical(normalize_predicate(prop.predicate))
        return plan_negation(prop.subject, prop.predicate, prop.object, subject_n=subject_n, predicate_n=predicate_n,
                             held=self._held(user_id, subject_n, predicate_n, at))

    def _apply_changes(
        self, user_id: str, episode: Episode, now: datetime, handled: Sequence[str] = (), stated: Sequence[str] = (),
        displacing: Sequence[str] = (),
    ) -> tuple[list[FactDecision], list[str]]:
        """Apply what the change planner (:mod:`..changes`) finds in one user episode, after its own
        statements: corrections retract the wrong value, endings close the target fact at the clause's time, a
        state never stored that a change ends holds from the turn that named it (:mod:`..changes.lapsed`).
        Each goes through the ``before_decision`` / ``after_decision`` hooks as a proposal."""
        assert self.changes is not None
        plan = self.changes.plan(user_id, episode, handled=handled, stated=stated, displacing=displacing)
        decisions: list[FactDecision] = []
        changed: list[str] = []

        def run(prop: Proposal, at: datetime, episodes: list[str]) -> tuple[list[FactDecision], list[str]]:
            _, made, ids = self._decide(user_id, prop, at=at, episode_ids=episodes, now=now) or (prop, [], [])
            decisions.extend(made)
            changed.extend(ids)
            return made, ids

        retracted: set[str] = set()
        for fix in plan.corrections:
            wrong = fix.fact.fact
            if run(Proposal(wrong.subject, wrong.predicate, fix.new_object, op="UPDATE", target_fact_id=wrong.id,
                            reason=fix.reason), episode.timestamp, [episode.id])[1]:
                retracted.add(wrong.lineage_id)  # (a value a declared model refuses is recorded, retracts nothing)
        for end in plan.endings:
            if end.fact.lineage_id not in retracted:
                run(Proposal(end.fact.subject, end.fact.predicate, end.fact.object, op="DELETE",
                             target_fact_id=end.fact.id, valid_from=end.at, reason=end.reason), end.at, [episode.id])
        for new in plan.new_values:  # what the change names as holding instead, from the change's time
            if new.replaces is None or new.replaces.lineage_id not in retracted:
                run(Proposal(new.subject, new.predicate, new.object, valid_from=new.at, reason=new.reason,
                             source_text=episode.content,
                             metadata={"clause": episode.content} if new.predicate == OPEN_PREDICATE else {}),
                    new.at, [episode.id])
        for past in plan.lapsed:  # a state never stored that the change ends: held from the turn that named it
            made, _ = run(Proposal(past.subject, past.predicate, past.object, valid_from=past.since,
                                     reason=past.reason, source_text=episode.content,
                                     metadata={"clause": episode.content}),
                            past.since, [past.since_episode, episode.id])
            if made and made[0].op == "ADD" and made[0].fact_id:
                run(Proposal(past.subject, past.predicate, past.object, op="DELETE", target_fact_id=made[0].fact_id,
                             valid_from=past.until, reason=past.reason), past.until, [episode.id])
        return decisions, changed

    def _apply_open_states(
        self, user_id: str, episode: Episode, proposals: Sequence[Proposal], now: datetime, written: Sequence[str],
    ) -> tuple[list[FactDecision], list[str]]:
        """Apply the present states no rule of the extractor read (``states`` facts, :mod:`..changes.states`): a
        repeat reinforces the held one, a new one is added with its clause (``written``: what the turn wrote)."""
        assert self.changes is not None
        decisions: list[FactDecision] = []
        changed: list[str] = []
        covered = [p.object for p in stated(proposals) if p.object]  # a topic's reading leaves the clause's state
        read = [p.source_text for p in stated(proposals) if p.source_text]
        for state, held in self.changes.open_states(user_id, episode, covered=covered, read=read, changed=written):
            if held is not None:
                prop = Proposal(held.subject, held.predicate, held.object, op="NOOP", target_fact_id=held.id,
                                reason="the open state told again", source_text=state.clause)
            else:
                prop = Proposal(state.subject, state.predicate, state.value, reason="an open state no rule read",
                                confidence=FOUND_CONFIDENCE if state.found else OPEN_CONFIDENCE,
                                source_text=state.clause, metadata={"clause": state.clause})
            decided = self._decide(user_id, prop, at=episode.timestamp, episode_ids=[episode.id], now=now)
            if decided is not None:
                decisions += decided[1]
                changed += decided[2]
        return decisions, changed

    def _held(self, user_id: str, subject: str, predicate: str, at: datetime) -> list[str]:
        """The values of ``subject predicate`` holding at ``at`` (the input of the negation plans)."""
        return [f.object for f in self.db.current_facts(user_id, subject=subject, predicate=predicate,
                                                        valid_after=to_epoch(at)) if f.valid_from <= at]

    def _end(
        self, user_id: str, endings: Sequence[Ending], at: datetime, common: dict[str, Any],
    ) -> tuple[list[FactDecision], list[str]]:
        """Apply planned endings in order: each closes its fact's validity at ``at`` (kept in history)."""
        decisions: list[FactDecision] = []
        changed: list[str] = []
        for e in endings:
            decision, ids = self.facts.apply(user_id, e.subject, e.predicate, e.object, negate=True, at=at, **common)
            decisions.append(decision)
            changed += ids
        return decisions, changed

    def _conflicts(
        self, user_id: str, subject: str, predicate: str, obj: str, at: datetime, confidence: float,
        *, exclude: set[str], now: datetime,
    ) -> tuple[Outcome, dict[str, Fact]]:
        single = self.fact_config.is_single_valued(predicate)
        opposite = self._opposites.get(predicate)
        if not single and opposite is None:
            return Outcome(), {}
        obj_norm = normalize_value(obj)
        # only believed versions overlapping `at` that actually contradict: usually none, so no model is built
        rows = self.db.contradicting_facts(
            user_id, subject, to_epoch(at), other_than=(predicate, obj_norm) if single else None,
            same_as=(opposite, obj_norm) if opposite is not None else None)
        rows = [r for r in rows if r["id"] not in exclude]
        if not rows:
            return Outcome(), {}
        facts = {r["id"]: row_to_fact(r) for r in rows}
        stamp = to_epoch(now) or 0.0
        half_life = self.fact_config.decay_half_life_days
        held = [
            held_fact(facts[r["id"]], decayed_confidence(r["confidence"], half_life_days=half_life,
                                                      age_days=max(0.0, stamp - r["last_reinforced"]) / 86400))
            for r in rows
        ]
        claim = Claim(subject, predicate, obj_norm, at, confidence)
        outcome = resolve_conflicts(claim, held, single_valued=single, opposite=opposite,
                                    policy=self.fact_config.conflict_strategy,
                                    gap=self.fact_config.conflict_confidence_gap)
        return outcome, facts

    def _log(
        self, user_id: str, verdicts: Sequence[Verdict], facts: dict[str, Fact], subject: str, predicate: str,
        obj: str, new_fact_id: str | None, episode_ids: Sequence[str], now: datetime,
    ) -> None:
        for v in verdicts:
            existing = facts.get(v.held.id)
            self.conflict_log.record(
                user_id, v, subject=subject, existing_object=existing.object if existing else v.held.object_norm,
                new_predicate=predicate, new_object=obj, new_fact_id=new_fact_id, episode_ids=episode_ids, at=now,
            )

    # -- explanations ---------------------------------------------------------------------------
    def explain_confidence(self, user_id: str, fact_id: str, *, at: datetime | None = None) -> ConfidenceExplanation:
        """The factors of a fact's confidence: initial, reinforcement, decay at ``at`` (default now).

        Raises:
            NotFoundError: no such fact version for this user.
        """
        found = self.db.select_facts(user_id, ids=[fact_id], all_versions=True)
        if not found:
            raise NotFoundError(f"no fact {fact_id!r} for this user")
        fact = found[0]
        cfg = self.fact_config
        last = self.db.fact_last_reinforced(user_id, [fact_id]).get(fact_id)
        moment = to_epoch(at or utcnow()) or 0.0
        age = 0.0 if last is None else max(0.0, moment - last) / 86400
        return explain_confidence(
            fact.confidence, observations=fact.occurrence_count, rate=cfg.reinforcement_rate,
            cap=cfg.confidence_cap, age_days=age, half_life_days=cfg.decay_half_life_days, fact_id=fact_id,
            last_reinforced=from_epoch(last),
        )

