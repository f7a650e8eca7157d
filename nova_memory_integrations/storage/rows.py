"""Row converters and small helpers shared by the storage mixins.

Reads are tolerant of rows already stored: a row that cannot be what its table says (a
time that is no time or outside the safe range, JSON that does not parse or has the wrong
shape, a text where a number belongs ...), whether written by an older version, an
import or a hand edit, is skipped by :func:`readable` with one warning naming its table
and id (once per database, table and row per process), never failing the read.
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, TypeVar

from .._once import WarnOnce
from .._time import from_epoch
from ..types import Episode, Fact, FactDecision, Rule

__all__ = ["DAMAGE", "SELF_CHECKING", "EpisodeRow", "UserFilter", "check_row", "chunks", "dumps", "readable",
           "row_to_decision", "row_to_episode", "row_to_episode_row", "row_to_fact", "row_to_rule"]

logger = logging.getLogger("nova_memory_integrations.storage")
T = TypeVar("T")

DAMAGE = (ValueError, TypeError, KeyError, IndexError, OverflowError, OSError, RecursionError)
"""What converting a damaged row raises (JSON and pydantic errors are ``ValueError``s)."""
TIME_COLUMNS = frozenset({"ts", "ingested_at", "last_access", "valid_from", "valid_to", "expired_at", "created_at",
                          "last_used", "last_reinforced", "updated_at", "detected_at", "at"})
NUMBER_COLUMNS = frozenset({"importance", "confidence", "access_count", "occurrence_count", "usage_count",
                            "attempts", "score", "processed"})
JSON_COLUMNS = {"metadata": dict, "provenance": list, "episode_ids": list}
TEXT_COLUMNS = frozenset({"id", "user_id", "content", "text", "condition", "action", "subject", "predicate", "object"})
_warned = WarnOnce(logger, "nova-memory: skipped damaged %s row %s in %s (%s: %s); it is left as stored")
"""One warning per damaged row and place it was read."""


def check_row(row: sqlite3.Row) -> None:
    """Raise ``ValueError`` when a column of ``row`` cannot hold what its name says."""
    for col, value in zip(row.keys(), tuple(row)):  # iterating a Row yields its values
        if col in TIME_COLUMNS:
            from_epoch(value)
        elif col in NUMBER_COLUMNS:
            _number(col, value)
        elif col in JSON_COLUMNS:
            _json(col, value)
        elif col in TEXT_COLUMNS:
            _text(col, value)


def _number(col: str, value: Any) -> Any:
    """``value`` if it is a finite number or ``None``, else ``ValueError`` (as each helper below)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                              or not math.isfinite(value)):
        raise ValueError(f"{col} is not a number: {value!r}")
    return value


def _json(col: str, value: Any) -> Any:
    parsed = json.loads(value)
    if not isinstance(parsed, JSON_COLUMNS[col]):
        raise ValueError(f"{col} is not a JSON {JSON_COLUMNS[col].__name__}")
    return parsed


def _text(col: str, value: Any) -> Any:
    if not isinstance(value, str):
        raise ValueError(f"{col} is not text: {type(value).__name__}")
    return value


def readable(
    rows: Iterable[sqlite3.Row], table: str, where: str, convert: Callable[[sqlite3.Row], T] | None = None,
    *, keep_row: bool = False,
) -> list[Any]:
    """``rows`` (converted by ``convert``, or only checked by it with ``keep_row``) without the
    damaged ones, each skipped with one warning."""
    out: list[Any] = []
    for row in rows:
        try:
            if convert not in SELF_CHECKING:
                check_row(row)
            converted = row if convert is None else convert(row)
            out.append(row if keep_row else converted)
        except DAMAGE as exc:
            _warn_once(row, table, where, exc)
    return out


def _warn_once(row: sqlite3.Row, table: str, where: str, exc: BaseException) -> None:
    keys = row.keys()
    row_id = repr(row["id"] if "id" in keys else row["seq"] if "seq" in keys else tuple(row))[:80]
    _warned(table, row_id, where, type(exc).__name__, str(exc)[:200], key=(where, table, row_id))


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON as stored in the JSON columns."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def chunks(items: list[str], size: int) -> Iterator[list[str]]:
    """``items`` in slices of at most ``size`` (keeps ``IN (...)`` lists under SQLite's limit)."""
    for i in range(0, len(items), size):
        yield items[i : i + size]


def row_to_episode(row: sqlite3.Row) -> Episode:
    """Convert an ``episodes`` row to an :class:`Episode`.

    Raises ``ValueError`` wherever :func:`check_row` would (it reads each value once, so
    :func:`readable` skips the separate check: recall converts a hundred rows a query).
    """
    return Episode(
        id=_text("id", row["id"]),
        user_id=_text("user_id", row["user_id"]),
        session_id=row["session_id"],
        role=row["role"],
        content=_text("content", row["content"]),
        timestamp=from_epoch(row["ts"]),  # type: ignore[arg-type]
        ingested_at=from_epoch(row["ingested_at"]),  # type: ignore[arg-type]
        metadata=_json("metadata", row["metadata"]),
        importance=_number("importance", row["importance"]),
        access_count=_number("access_count", row["access_count"]),
        last_access=from_epoch(row["last_access"]),
        processed=bool(_number("processed", row["processed"])),
        source=_source(row),
    )


@dataclass(slots=True)  # not frozen: a frozen dataclass sets each field through object.__setattr__
class EpisodeRow:
    """An ``episodes`` row as ranking reads it: the columns recall scores with, checked and
    converted, and the ``row`` itself for :func:`row_to_episode` once the row is returned.

    Recall ranks about 160 turns a query and returns 40 (``context()`` at 1,000 tokens); an
    :class:`Episode` (JSON, three times, the model's validation) costs three to five times
    as much to build as this row.
    """

    id: str
    session_id: str | None
    role: str
    content: str
    timestamp: datetime
    importance: float
    access_count: int
    row: sqlite3.Row
    source: str = "inferred"


def _source(row: sqlite3.Row) -> Literal["explicit", "inferred"]:
    """A row's ``source``: ``inferred`` unless it says ``explicit`` (rows read through a query
    that leaves the column out, or written before it, are inferred)."""
    return "explicit" if "source" in row.keys() and row["source"] == "explicit" else "inferred"  # noqa: SIM118


def _present(col: str, value: Any) -> Any:
    if value is None:
        raise ValueError(f"{col} is not a number: None")
    return value


def row_to_episode_row(row: sqlite3.Row) -> EpisodeRow:
    """An ``episodes`` row as an :class:`EpisodeRow`.

    Raises ``ValueError`` where :func:`row_to_episode` would for the columns it reads (the
    others are checked when :func:`row_to_episode` converts ``row``).
    """
    ts = from_epoch(row["ts"])
    if ts is None:
        raise ValueError("ts is not a time: None")
    importance = _present("importance", _number("importance", row["importance"]))
    access_count = _present("access_count", _number("access_count", row["access_count"]))
    return EpisodeRow(_text("id", row["id"]), row["session_id"], _text("role", row["role"]),
                      _text("content", row["content"]), ts, importance, access_count, row, _source(row))


SELF_CHECKING: frozenset[Callable[[sqlite3.Row], Any]] = frozenset({row_to_episode, row_to_episode_row})
"""Converters that raise ``ValueError`` wherever :func:`check_row` would on the columns they read
(:func:`row_to_episode_row` leaves the rest to :func:`row_to_episode`), so :func:`readable` does
not check their rows twice."""


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
        importance=row["importance"] if "importance" in row.keys() else 0.5,  # noqa: SIM118 (a Row's `in` reads values)
        source=_source(row),
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


class UserFilter:
    """A ``SELECT`` over one user's rows with optional conditions, built up clause by clause.

    The user condition is always the first, so no query built here can read another user's rows;
    each optional filter adds its clause only when its value is given (``when``)::

        q = UserFilter("SELECT * FROM episodes", user_id)
        q.where("session_id = ?", session_id, when=session_id is not None)
        rows = conn.query(q.sql + " ORDER BY ts", q.params)
    """

    def __init__(self, select: str, user_id: str, *, user_column: str = "user_id") -> None:
        self.sql = f"{select} WHERE {user_column} = ?"
        self.params: list[Any] = [user_id]

    def where(self, clause: str, *params: Any, when: bool = True) -> UserFilter:
        """``AND clause`` with its parameters, if ``when``."""
        if when:
            self.sql += f" AND {clause}"
            self.params.extend(params)
        return self
