"""The consolidation service behind ``NovaStore.consolidate`` and its companions.

It picks the source of each run (the store's LLM, a per-call override, or the
deterministic extractor), runs the :class:`~.consolidator.Consolidator`, and reads
dead letters, conflicts and confidence explanations. It receives the
:class:`~nova_memory_integrations.engine.components.Components` it works with, never the
facade.
"""

from __future__ import annotations

import time
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..changes.tracker import ChangeTracker
from ..engine.components import Components
from ..extraction import DeterministicExtractor
from ..extraction.declared import DeclaredReader
from ..extraction.proposals import BatchExtractor, ConsolidationSource, deterministic_batch
from ..memory.entities import RelatedFacts
from ..types import ConsolidationResult, Episode
from .attitudes import AttitudeConflicts
from .consolidator import Consolidator
from .learning import learn
from .negation import opposite_predicates

if TYPE_CHECKING:
    from ..memory.conflicts import ConfidenceExplanation, Conflict

__all__ = ["LAST_CONSOLIDATION_KEY", "ConsolidationService"]

LAST_CONSOLIDATION_KEY = "last_consolidation"
"""Store metadata key: when a consolidation run last finished (seconds since the epoch)."""


class ConsolidationService:
    """Consolidation of one store: runs, dead letters, conflicts, confidence explanations.

    Args:
        components: the store's collaborators.
        llm: the default model (LangChain chat model, LlamaIndex LLM or ``LLMExtractor``);
            ``None``: the deterministic extractor.
    """

    def __init__(self, components: Components, llm: Any = None) -> None:
        c = components
        self.components = c
        self.llm = llm
        related = RelatedFacts(c.db, c.config.facts, graph=c.graph, vectors=c.vectors, embedder=c.embedder,
                               entities=c.entities)
        self.consolidator = Consolidator(c.db, c.facts, batch_size=c.config.consolidation.batch_size,
                                         on_facts_changed=c.facts_changed, config=c.config, entities=c.entities,
                                         related=related, hooks=c.hooks, changes=ChangeTracker(c.db, c.embedder),
                                         fallback=lambda: deterministic_batch(self.extractor),
                                         attitudes=AttitudeConflicts(c.db, c.embedder, c.config.facts,
                                                                     opposite_predicates(c.config.facts.opposite_predicates)))
        self._extractor: Any = None

    @property
    def extractor(self) -> Any:
        """The deterministic extractor used when no LLM is configured (built on first use)."""
        if self._extractor is None:
            declared = self.components.config.facts.predicates  # the app's schema: "my goal is ..."
            rules = DeterministicExtractor()
            self._extractor = DeclaredReader(rules, declared) if declared else rules
        return self._extractor

    def source(self, llm: Any = None) -> ConsolidationSource | BatchExtractor:
        """The source of a run: ``llm``, else the default model, else the deterministic extractor.

        ``llm=False`` forces the deterministic extractor.
        """
        chosen = self.llm if llm is None else llm
        if chosen is None or chosen is False:
            return deterministic_batch(self.extractor)
        return self.consolidator.llm_source(chosen)

    def consolidate(self, user_id: str | None, llm: Any = None) -> ConsolidationResult:
        """Consolidate the unprocessed episodes of ``user_id`` (``None``: every user), then learn
        the rules their repeated instructions teach (:func:`.learning.learn`)."""
        fresh = self._fresh(user_id)
        result = self.consolidator.run(user_id, self.source(llm))
        self.components.db.set_meta(LAST_CONSOLIDATION_KEY, str(time.time()))
        learn(self.components, fresh)
        return result

    def _fresh(self, user_id: str | None) -> list[Episode]:
        """The turns a run is about to read, when learnt rules are applied (else none: nothing to read)."""
        db = self.components.db
        if self.components.config.consolidation.learn_rules != "apply":
            return []
        users = [user_id] if user_id is not None else db.users_with_unprocessed()
        return [e for uid in users for e in db.list_episodes(uid, unprocessed_only=True)]

    def retry_dead_letters(self, user_id: str | None, llm: Any = None) -> ConsolidationResult:
        """Consolidate the dead-lettered episodes again."""
        return self.consolidator.retry_dead_letters(user_id, self.source(llm))

    def dead_letters(self, user_id: str | None) -> list[dict[str, Any]]:
        """Failed batches, whose episodes stay unprocessed (parked)."""
        return self.components.db.dead_letters(user_id)

    def conflicts(self, user_id: str, *, flagged_only: bool, limit: int) -> list[Conflict]:
        """Contradictions found while applying facts, newest first."""
        return self.consolidator.conflict_log.list_conflicts(user_id, flagged_only=flagged_only, limit=limit)

    def explain_confidence(self, user_id: str, fact_id: str, at: datetime | None) -> ConfidenceExplanation:
        """The factors of a fact's confidence at ``at`` (default now)."""
        return self.consolidator.explain_confidence(user_id, fact_id, at=at)
