"""The rules one imported row must pass, and the id rewrite of a remapped import.

:func:`check_row` holds every row of an export to the limits of the store's own write
paths (``engine/validation``): ``add_turn`` for episodes (``max_content_chars``,
``max_metadata_bytes``, importance in [0, 1], times in the safe range), ``add_fact`` and
``add_rule`` for facts and rules, and the closed vocabularies (decision ops, conflict
kinds, alias methods) the store reads back. Columns of tables added later fall back to
their SQL type (a finite number in SQLite's integer range, or NUL-free text within the
content limit).

:func:`remap_row` rewrites one row for ``import(..., as_user=...)``: the user and every
global id (row ids, lineages, fact and entity references, episode lists), each to
:func:`fresh_id`, a hash of the target user and the old id. The same old id always gets
the same new one, so references stay consistent across tables (and to rows not in the
file), and importing the same file again meets the same ids (the conflict policy
decides) instead of adding a second copy.
"""

from __future__ import annotations

import ast
import hashlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_args

from ..config import LimitsConfig
from ..consolidation.consolidator import _letter_id
from ..engine.blocks import AUTHORS
from ..engine.validation import (
    MAX_COUNT,
    check_content,
    check_epoch,
    check_id,
    check_ids,
    check_metadata,
    check_positive_int,
    check_score,
    check_user,
)
from ..errors import InvalidInputError
from ..memory.conflicts import ConflictKind, Strategy, Winner
from ..memory.entities import MatchMethod
from ..memory.importance import SOURCES
from ..storage.migrations import base_columns
from ..storage.pg_schema import BOOKKEEPING_TABLES
from ..types import FactDecision

if TYPE_CHECKING:
    from ..storage.tables import TableRows

__all__ = ["KNOWN_TABLES", "TableSpec", "check_row", "filled", "fresh_id", "remap_row", "table_specs"]

KNOWN_TABLES = {"episodes": "episode", "facts": "fact", "fact_events": "fact_event", "rules": "rule",
                "dead_letters": "dead_letter", "entities": "entity", "entity_aliases": "entity_alias",
                "conflicts": "conflict", "pinned_blocks": "pinned_block"}
"""Tables exported first, in this order, under these record kinds (every other table with a
``user_id`` column follows under its own name)."""
_SKIP_COLUMNS = frozenset({"seq", "indexed", "rowid"})
"""Local row order (``rowid``: the order rows were shelved in, a column on Postgres) and vector-index bookkeeping."""
JSON_COLUMNS = frozenset({"metadata", "provenance", "episode_ids"})
GLOBAL_IDS = frozenset({"id", "lineage_id", "fact_id", "replaced_fact_id", "entity_id", "existing_fact_id",
                        "new_fact_id", "episode_id"})
"""Columns holding ids that are unique across users (rewritten by :func:`remap_row`)."""
ID_LISTS = frozenset({"provenance", "episode_ids"})
_ID_COLUMNS = GLOBAL_IDS | {"user_id", "session_id", "role"}
_TIMES = frozenset({"ts", "ingested_at", "last_access", "valid_from", "valid_to", "expired_at", "last_reinforced",
                    "at", "created_at", "updated_at", "last_used", "detected_at"})
_SCORES = frozenset({"importance", "confidence", "score"})
_COUNTS = {"access_count": (0, MAX_COUNT), "usage_count": (0, MAX_COUNT), "occurrence_count": (1, MAX_COUNT),
           "attempts": (1, MAX_COUNT), "processed": (0, 1)}
_NON_EMPTY = {"episodes": {"content"}, "facts": {"subject", "predicate", "object", "text"},
              "rules": {"condition", "action"}, "entities": {"name"}, "entity_aliases": {"alias"}}
"""Text the write paths refuse when empty (``check_content``); other text may be empty."""
_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("fact_events", "op"): get_args(FactDecision.model_fields["op"].annotation),
    ("conflicts", "kind"): get_args(ConflictKind), ("conflicts", "strategy"): get_args(Strategy),
    ("conflicts", "winner"): get_args(Winner), ("conflicts", "status"): ("resolved", "flagged"),
    ("entity_aliases", "method"): get_args(MatchMethod),
    ("episodes", "source"): SOURCES, ("facts", "source"): SOURCES, ("pinned_blocks", "author"): AUTHORS,
}
_INT_RANGE = 2**63 - 1
_CAST = re.compile(r"::[a-z ]+$")


@dataclass(frozen=True)
class TableSpec:
    """One user table as export / import see it (from the live schema)."""

    name: str
    kind: str
    columns: tuple[str, ...]
    types: dict[str, str]
    notnull: frozenset[str]
    key: tuple[str, ...]  # conflict key; () = the whole row (append-only logs)
    order: str
    defaults: dict[str, Any] = field(default_factory=dict)
    """Columns a later migration added, with a constant default: what a row exported before them holds."""


def table_specs(db: TableRows) -> list[TableSpec]:
    """Every table of ``db`` with a ``user_id`` column, the known ones first."""
    names = db.table_names()
    out: list[TableSpec] = []
    for name in [n for n in KNOWN_TABLES if n in names] + [n for n in names if n not in KNOWN_TABLES]:
        if name.startswith("sqlite_") or "_fts" in name or name in BOOKKEEPING_TABLES:
            continue
        info = db.table_columns(name)
        cols = {str(r["name"]): r for r in info}
        if "user_id" not in cols:
            continue
        columns = tuple(c for c in cols if c not in _SKIP_COLUMNS)
        pk = tuple(str(r["name"]) for r in sorted(info, key=lambda r: r["pk"]) if r["pk"] and r["name"] != "seq")
        key = ("id",) if "id" in cols else pk
        out.append(TableSpec(
            name=name, kind=KNOWN_TABLES.get(name, name), columns=columns,
            types={c: str(cols[c]["type"]).upper() for c in columns},
            notnull=frozenset(c for c in columns if cols[c]["notnull"]),
            key=key, order="seq" if "seq" in cols else (key[-1] if key else "rowid"),
            defaults={c: v for c in columns if c not in base_columns().get(name, frozenset(columns))
                      if (v := _literal(cols[c]["dflt_value"])) is not None},
        ))
    return out


def _literal(sql: Any) -> Any:
    """A column default written as an SQL string or number literal (``'inferred'``, ``0.5``), else ``None``."""
    if not isinstance(sql, str):
        return None
    sql = _CAST.sub("", sql)  # Postgres spells a default with its type: 'inferred'::text
    try:
        value = ast.literal_eval(sql)
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None


def filled(t: TableSpec, rec: Mapping[str, Any]) -> Mapping[str, Any]:
    """``rec`` with the columns it lacks that have a default (a row exported before a migration added
    them: an episode without ``source`` is ``inferred``); other missing columns stay missing."""
    missing = {c: t.defaults[c] for c in t.defaults if c not in rec}
    return {**rec, **missing} if missing else rec


def check_row(t: TableSpec, rec: Mapping[str, Any], limits: LimitsConfig) -> None:
    """Raise :class:`InvalidInputError` (``field`` = the column) unless ``rec`` is a row of
    ``t`` that the store's own write paths could have written."""
    missing = [c for c in t.columns if c not in rec]
    extra = sorted(set(rec) - set(t.columns))
    if missing or extra:
        raise InvalidInputError(f"missing fields {missing}" if missing else f"unknown fields {extra}",
                                field=(missing or extra)[0])
    check_user(rec["user_id"], limits)
    for col in t.columns:
        value = rec[col]
        if value is None:
            if col in t.notnull:
                raise InvalidInputError(f"{col} must not be null", field=col)
            continue
        rule_limits = limits
        if (t.name, col) == ("facts", "text"):  # "subject predicate object": three parts within the limit
            rule_limits = limits.model_copy(update={"max_content_chars": 3 * limits.max_content_chars + 2})
        _column_rule(t, col, rule_limits)(value)


def _column_rule(t: TableSpec, col: str, limits: LimitsConfig) -> Callable[[Any], object]:
    if col in JSON_COLUMNS:
        return lambda v: _json_column(col, v, limits)
    if col in _TIMES:
        return lambda v: check_epoch(v, col)
    if col in _SCORES:
        return lambda v: check_score(v, col)
    if col in _COUNTS:
        low, high = _COUNTS[col]
        return lambda v: check_positive_int(v, col, minimum=low, maximum=high)
    if col in _ID_COLUMNS:
        return lambda v: check_id(v, col, limits)
    if (t.name, col) in _CHOICES:
        return lambda v: _choice(col, v, _CHOICES[(t.name, col)])
    if col in _NON_EMPTY.get(t.name, ()):
        return lambda v: check_content(v, limits, col)
    if "INT" in t.types[col] or "REAL" in t.types[col]:
        return lambda v: _number(col, v)
    return lambda v: _text(col, v, limits)


def _json_column(col: str, value: Any, limits: LimitsConfig) -> None:
    want = dict if col == "metadata" else list
    if not isinstance(value, want):
        raise InvalidInputError(f"{col} must be a JSON {'object' if want is dict else 'array'}", field=col)
    if col == "metadata":
        check_metadata(value, limits)
    else:
        check_ids(value, limits, col)


def _choice(col: str, value: Any, allowed: tuple[str, ...]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise InvalidInputError(f"{col} must be one of {', '.join(allowed)}, got {str(value)[:40]!r}", field=col)


def _number(col: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInputError(f"{col} must be a finite number", field=col)
    if abs(value) > _INT_RANGE:
        raise InvalidInputError(f"{col} is out of range", field=col)


def _text(col: str, value: Any, limits: LimitsConfig) -> None:
    if not isinstance(value, str) or "\x00" in value:
        raise InvalidInputError(f"{col} must be a string without NUL characters", field=col)
    if value.strip():
        check_content(value, limits, col)


# -- remap ------------------------------------------------------------------------------
def fresh_id(old: str, user_id: str) -> str:
    """The id ``old`` gets when imported as ``user_id``: its kind prefix (``ep_``, ``fa_`` ...)
    and a hash of both, the same for the same pair every time."""
    head, sep, _ = old.partition("_")
    prefix = head if sep and head.isalnum() and len(head) <= 8 else "id"
    digest = hashlib.sha256("\x00".join((user_id, old)).encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}_{digest[:32]}"


def remap_row(t: TableSpec, rec: Mapping[str, Any], user_id: str) -> dict[str, Any]:
    """``rec`` as a row of ``user_id``, every global id rewritten by :func:`fresh_id`.

    A dead letter's id is derived from its episodes (so a failing retry updates the same
    letter); it is derived again from the new episode ids.
    """
    out = dict(rec)
    out["user_id"] = user_id
    for col in t.columns:
        value = out[col]
        if col in GLOBAL_IDS and isinstance(value, str):
            out[col] = fresh_id(value, user_id)
        elif col in ID_LISTS and isinstance(value, list):
            out[col] = [fresh_id(v, user_id) if isinstance(v, str) else v for v in value]
    if t.name == "dead_letters" and isinstance(rec.get("episode_ids"), list) \
            and rec.get("id") == _letter_id(rec["episode_ids"]):
        out["id"] = _letter_id(out["episode_ids"])
    return out
