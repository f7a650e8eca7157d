"""What the change layer's unit tests (``tests/unit/test_changes_*.py``) share: a held fact built from one row, as the
planner reads the facts current at a message's time."""

from __future__ import annotations

from datetime import datetime, timezone

from nova_memory_integrations.types import Fact

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def held_fact(i: int, subject: str, predicate: str, obj: str, *, since: datetime = T0) -> Fact:
    """Fact ``f{i}`` of user ``u`` (its own lineage, learnt from episode ``e{i}``), valid and learnt from ``since``."""
    return Fact(id=f"f{i}", lineage_id=f"f{i}", user_id="u", subject=subject, predicate=predicate, object=obj,
                confidence=0.8, valid_from=since, ingested_at=since, provenance=(f"e{i}",))
