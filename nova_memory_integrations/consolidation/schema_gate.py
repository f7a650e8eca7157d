"""The gate every new fact value of consolidation passes: the application's declared models.

A fact whose predicate a declared pydantic model holds (``NovaStore(schemas=...)``,
:mod:`~nova_memory_integrations.memory.schemas`) is validated by that model before it is stored,
whichever source proposed it (the deterministic extractor, the declared reader, an LLM, a
correction). A value the model accepts goes on in the model's canonical spelling; one it refuses
is recorded as a refused fact (``NovaStore.refused_facts``: the fact, the rule it broke, the
episode) with a NOOP decision saying so, and is not stored. The explicit calls (``add_fact`` and
what is built on it) check first and raise :class:`~nova_memory_integrations.errors.FactSchemaError`
instead (:meth:`SchemaGate.check`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime

from .._time import to_epoch
from ..config import FactConfig
from ..errors import FactSchemaError
from ..extraction.proposals import Proposal
from ..memory.schemas import schema_set
from ..storage.sqlite import SQLiteStore
from ..types import FactDecision

__all__ = ["REFUSED", "SchemaGate"]

logger = logging.getLogger(__name__)

REFUSED = "refused by the declared schema"
"""The start of the reason of a refusal's NOOP decision."""


class SchemaGate:
    """Validates fact values against the declared models of ``config`` (read at each call: a store may
    declare more models while it runs) and records what they refuse in ``db``."""

    def __init__(self, db: SQLiteStore, config: FactConfig) -> None:
        self.db = db
        self.config = config

    def check(self, predicate: str, value: str) -> str:
        """``value`` of the canonical ``predicate`` as its model spells it (as given if no model holds it).

        Raises:
            FactSchemaError: the model refuses it.
        """
        return schema_set(self.config.schemas).check(predicate, value)

    def admit(
        self, user_id: str, prop: Proposal, predicate: str, *, episode_ids: Sequence[str], now: datetime,
    ) -> str | FactDecision:
        """The value to store for ``prop`` (the canonical ``predicate``'s), or, when the model refuses
        it, the NOOP decision recorded in its place (with the refused fact, in the caller's transaction)."""
        value = prop.object.strip()
        if prop.refused:
            rule, kind = prop.refused, str(prop.metadata.get("schema", ""))
        else:
            try:
                return self.check(predicate, value)
            except FactSchemaError as exc:
                rule, kind = exc.rule, exc.kind
        origin = str(prop.metadata.get("extractor") or ("rules" if episode_ids else "explicit"))
        self.db.add_refused_fact(user_id, episode_id=episode_ids[0] if episode_ids else None, kind=kind,
                                 subject=prop.subject, predicate=predicate, obj=value, rule=rule, origin=origin,
                                 at=to_epoch(now) or 0.0)
        decision = FactDecision(op="NOOP", subject=prop.subject, predicate=predicate, object=value,
                                reason=f"{REFUSED} ({kind}): {rule}", episode_ids=tuple(episode_ids))
        self.db.record_decision(user_id, decision, to_epoch(now) or 0.0)
        logger.info("nova-memory: a %s.%s value refused by the declared schema: %s", kind, predicate, rule)
        return decision
