"""Consolidation: unprocessed episodes -> ADD / UPDATE / DELETE / NOOP on the fact store.

Episodes are taken per user in event-time order and in batches; each batch is applied
in one SQLite transaction together with the "processed" flags, so a crash or an error
never half-applies a batch. A failing batch is rolled back, its episodes stay
unprocessed and the error is recorded as a dead letter that can be retried.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ._time import to_epoch, utcnow
from .errors import NovaMemoryError
from .facts import FactMemory
from .storage.sqlite import SQLiteStore
from .types import ConsolidationResult, Episode, FactDecision

if TYPE_CHECKING:
    from .extraction.base import CandidateFact, Extractor

__all__ = ["Consolidator", "tally"]

logger = logging.getLogger(__name__)

BatchExtractor = Callable[[Sequence[Episode]], "list[list[CandidateFact]]"]


def tally(decisions: Sequence[FactDecision], *, processed: int = 0, failed: int = 0) -> ConsolidationResult:
    """Count decisions by operation (pure)."""
    ops = [d.op for d in decisions]
    return ConsolidationResult(
        added=ops.count("ADD"),
        updated=ops.count("UPDATE"),
        invalidated=ops.count("DELETE"),
        noop=ops.count("NOOP"),
        episodes_processed=processed,
        failed_episodes=failed,
        decisions=tuple(decisions),
    )


@dataclass
class _Outcome:
    decisions: list[FactDecision] = field(default_factory=list)
    changed_fact_ids: list[str] = field(default_factory=list)
    processed: int = 0
    failed: int = 0


class Consolidator:
    """Runs consolidation for a store; one run at a time per store."""

    def __init__(
        self,
        db: SQLiteStore,
        facts: FactMemory,
        *,
        batch_size: int,
        on_facts_changed: Callable[[str, list[str]], None],
    ) -> None:
        self.db = db
        self.facts = facts
        self.batch_size = batch_size
        self._on_changed = on_facts_changed
        self._lock = threading.Lock()

    def run(
        self, user_id: str | None, extract_batch: BatchExtractor, *, batch_size: int | None = None
    ) -> ConsolidationResult:
        """Consolidate every unprocessed episode of ``user_id`` (or of every user)."""
        size = batch_size or self.batch_size
        outcome = _Outcome()
        with self._lock:
            users = [user_id] if user_id is not None else self.db.users_with_unprocessed()
            for uid in users:
                pending = self.db.list_episodes(uid, unprocessed_only=True)
                for start in range(0, len(pending), size):
                    self._run_batch(uid, pending[start : start + size], extract_batch, outcome)
        return tally(outcome.decisions, processed=outcome.processed, failed=outcome.failed)

    def _run_batch(
        self, user_id: str, batch: Sequence[Episode], extract_batch: BatchExtractor, outcome: _Outcome
    ) -> None:
        letter_id = "dl_" + hashlib.sha1("|".join(e.id for e in batch).encode()).hexdigest()[:16]
        decisions: list[FactDecision] = []
        changed: list[str] = []
        try:
            candidates = extract_batch(batch)
            if len(candidates) != len(batch):
                raise NovaMemoryError(f"extractor returned {len(candidates)} results for {len(batch)} episodes")
            with self.db.transaction():
                now = utcnow()
                for episode, found in zip(batch, candidates):
                    for cand in found:
                        decision, ids = self.facts.apply(
                            user_id,
                            cand.subject,
                            cand.predicate,
                            cand.object,
                            negate=cand.op == "negate",
                            at=cand.valid_from or episode.timestamp,
                            confidence=cand.confidence,
                            episode_ids=[episode.id],
                            metadata={"source_text": cand.source_text} if cand.source_text else None,
                            now=now,
                        )
                        decisions.append(decision)
                        changed += ids
                self.db.mark_processed(user_id, [e.id for e in batch])
        except Exception as exc:  # noqa: BLE001 - recorded, never lost
            logger.warning("nova-memory consolidation: batch of %d episodes failed: %s", len(batch), exc)
            self.db.add_dead_letter(letter_id, user_id, [e.id for e in batch], f"{type(exc).__name__}: {exc}",
                                    to_epoch(utcnow()) or 0.0)
            outcome.failed += len(batch)
            return
        self.db.remove_dead_letter(user_id, letter_id)
        outcome.decisions += decisions
        outcome.changed_fact_ids += changed
        outcome.processed += len(batch)
        if changed:
            self._on_changed(user_id, changed)


def deterministic_batch(extractor: Extractor) -> BatchExtractor:
    """Adapt a per-text extractor to the batch interface."""

    def run(batch: Sequence[Episode]) -> list[list[CandidateFact]]:
        return [extractor.extract(e.content, role=e.role, timestamp=e.timestamp) for e in batch]

    return run
