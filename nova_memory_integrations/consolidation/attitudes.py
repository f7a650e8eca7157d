"""Finds the held attitudes a newly stated one clashes with (:mod:`..memory.attitudes`), for the
consolidator to log as ``related_topic`` conflicts.

It reads the subject's current facts (one user-scoped query, only for a statement whose predicate
states an attitude) and embeds topics only when neither their spelling nor the category table
relates them, in one call through the store's cached embedder: most statements cost nothing here.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from .._time import to_epoch
from ..config import FactConfig
from ..embeddings.base import CachedEmbedder
from ..embeddings.similarity import cosines
from ..memory.attitudes import Attitude, attitude, clashes, verdict
from ..memory.conflicts import Verdict, held_fact
from ..memory.temporal import normalize_value
from ..storage.sqlite import SQLiteStore
from ..types import Fact

__all__ = ["AttitudeConflicts"]


class AttitudeConflicts:
    """The ``related_topic`` conflicts of one statement, against the same subject's held attitudes."""

    def __init__(self, db: SQLiteStore, embedder: CachedEmbedder | None, config: FactConfig,
                 opposites: dict[str, str]) -> None:
        self.db = db
        self.embedder = embedder
        self.config = config
        self.opposites = opposites

    def find(self, user_id: str, subject: str, predicate: str, obj: str, at: datetime,
             new_fact_id: str | None) -> tuple[list[Verdict], dict[str, Fact]]:
        """The verdicts to log (both kept, flagged) and the held facts they name, by id."""
        new = attitude(new_fact_id or "", predicate, obj) if self.config.attitude_conflicts else None
        if new is None:
            return [], {}
        facts = {f.id: f for f in self.db.current_facts(user_id, subject=subject, valid_after=to_epoch(at))}
        held = [a for f in facts.values() if (a := attitude(f.id, f.predicate, f.object)) is not None]
        if not any(a.polarity == -new.polarity for a in held):
            return [], {}
        same_object = normalize_value(obj)

        def judged_elsewhere(h: Attitude) -> bool:  # the configured opposite pair on the same object
            return self.opposites.get(predicate) == h.predicate and normalize_value(h.topic) == same_object

        found = clashes(new, held, cosine=self._cosine if self.embedder is not None else None,
                        threshold=self.config.topic_similarity, skip=judged_elsewhere)
        verdicts = [verdict(c, held_fact(facts[c.held.fact_id], facts[c.held.fact_id].confidence)) for c in found]
        return verdicts, {c.held.fact_id: facts[c.held.fact_id] for c in found}

    def _cosine(self, topic: str, others: Sequence[str]) -> list[float]:
        assert self.embedder is not None
        vectors = self.embedder.embed_cached([topic, *others])
        return [float(x) for x in cosines(vectors[1:], vectors[0])]

