"""Row converters and small helpers shared by the storage mixins."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

from .._time import from_epoch
from ..types import Episode, Fact, FactDecision, Rule

__all__ = ["chunks", "dumps", "row_to_decision", "row_to_episode", "row_to_fact", "row_to_rule"]


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON as stored in the JSON columns."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def chunks(items: list[str], size: int) -> Iterator[list[str]]:
    """``items`` in slices of at most ``size`` (keeps ``IN (...)`` lists under SQLite's limit)."""
    for i in range(0, len(items), size):
        yield items[i : i + size]


def row_to_episode(row: sqlite3.Row) -> Episode:
    """Convert an ``episodes`` row to an :class:`Episode`."""
    return Episode(
        id=row["id"],
        user_id=row["user_id"],
        session_id=row["session_id"],
        role=row["role"],
        content=row["content"],
        timestamp=from_epoch(row["ts"]),  # type: ignore[arg-type]
        ingested_at=from_epoch(row["ingested_at"]),  # type: ignore[arg-type]
        metadata=json.loads(row["metadata"]),
        importance=row["importance"],
        access_count=row["access_count"],
        last_access=from_epoch(row["last_access"]),
        processed=bool(row["processed"]),
    )


def row_to_fact(row: sqlite3.Row) -> Fact:
    """Convert a ``facts`` row to a :class:`Fact`."""
    return Fact(
        id=row["id"],
        lineage_id=row["lineage_id"],
        user_id=row["user_id"],
        subject=row["subject"],
        predicate=row["predicate"],
        object=row["object"],
        confidence=row["confidence"],
        valid_from=from_epoch(row["valid_from"]),  # type: ignore[arg-type]
        valid_to=from_epoch(row["valid_to"]),
        ingested_at=from_epoch(row["ingested_at"]),  # type: ignore[arg-type]
        expired_at=from_epoch(row["expired_at"]),
        provenance=tuple(json.loads(row["provenance"])),
        occurrence_count=row["occurrence_count"],
        metadata=json.loads(row["metadata"]),
    )


def row_to_rule(row: sqlite3.Row) -> Rule:
    """Convert a ``rules`` row to a :class:`Rule`."""
    return Rule(
        id=row["id"],
        user_id=row["user_id"],
        condition=row["condition"],
        action=row["action"],
        confidence=row["confidence"],
        created_at=from_epoch(row["created_at"]),  # type: ignore[arg-type]
        usage_count=row["usage_count"],
        last_used=from_epoch(row["last_used"]),
        metadata=json.loads(row["metadata"]),
    )


def row_to_decision(row: sqlite3.Row) -> FactDecision:
    """Convert a ``fact_events`` row to a :class:`FactDecision`."""
    return FactDecision(
        op=row["op"], subject=row["subject"], predicate=row["predicate"], object=row["object"],
        reason=row["reason"], fact_id=row["fact_id"], replaced_fact_id=row["replaced_fact_id"],
        episode_ids=tuple(json.loads(row["episode_ids"])),
    )
