"""Export and import of a store as JSON Lines (lossless, embedding-model independent).

The first line is a header (``{"kind": "header", "format": "nova-memory", "version": 1,
...}``); every other line is one row, ``{"kind": ..., "row": {column: value}}``, of every
user-scoped table: ``episode`` (tombstones and summaries included), ``fact`` (every
version, with its bi-temporal columns), ``fact_event`` (the decision history), ``rule``,
``dead_letter``, ``entity``, ``entity_alias``, ``conflict`` (and tables added later).
Times are seconds since the epoch exactly as stored and JSON columns are nested objects,
so ``export -> import -> export`` reproduces the rows byte for byte (only the header's
``exported_at`` differs). Vectors are not exported: the importing store embeds the rows
again with its own model.

Import validates the whole file first and writes it in one transaction: a bad line
raises :class:`~nova_memory_integrations.errors.InvalidInputError` with its line number
and nothing is written. Without ``merge`` an id already present is an error; with
``merge`` the ``on_conflict`` policy decides (``keep-newer``, ``keep-existing``,
``overwrite`` or ``error``).
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._time import utcnow
from ..engine.indexer import INDEX_WAIT_S
from ..engine.validation import check_id, check_user
from ..errors import InvalidInputError

if TYPE_CHECKING:
    from ..engine.components import Components
    from ..storage.sqlite import SQLiteStore

__all__ = ["ConflictPolicy", "ExportReport", "ImportReport", "export_store", "import_store", "FORMAT", "VERSION"]

FORMAT = "nova-memory"
VERSION = 1
ConflictPolicy = Literal["keep-newer", "keep-existing", "overwrite", "error"]
Progress = Callable[[int, int], None]
_POLICIES = ("keep-newer", "keep-existing", "overwrite", "error")

# Every table with a user_id column is exported (so tables added later travel too);
# these come first, in this order, under these record kinds.
_KNOWN = {"episodes": "episode", "facts": "fact", "fact_events": "fact_event", "rules": "rule",
          "dead_letters": "dead_letter", "entities": "entity", "entity_aliases": "entity_alias",
          "conflicts": "conflict"}
_SKIP_COLUMNS = frozenset({"seq", "indexed"})  # local row order / vector-index bookkeeping
_JSON_COLUMNS = frozenset({"metadata", "provenance", "episode_ids"})
_ID_COLUMNS = frozenset({"id", "lineage_id", "session_id", "fact_id", "replaced_fact_id", "entity_id",
                         "existing_fact_id", "new_fact_id"})
_NON_EMPTY = frozenset({"content", "text", "role", "condition", "action"})
_VERSION_COLUMNS = ("ingested_at", "expired_at", "last_reinforced", "last_access", "last_used", "updated_at",
                    "created_at", "detected_at")
_INDEXED = {"episodes", "facts", "rules"}


@dataclass(frozen=True)
class _Table:
    name: str
    kind: str
    columns: tuple[str, ...]
    types: dict[str, str]
    notnull: frozenset[str]
    key: tuple[str, ...]  # conflict key; () = the whole row (append-only logs)
    order: str


def _tables(components: Components) -> list[_Table]:
    names = components.db.table_names()
    known = [n for n in _KNOWN if n in names]
    out: list[_Table] = []
    for name in known + [n for n in names if n not in _KNOWN and not n.startswith("sqlite_")]:
        info = components.db.table_columns(name)
        cols = {str(r["name"]): r for r in info}
        if "user_id" not in cols or "_fts" in name:
            continue
        columns = tuple(c for c in cols if c not in _SKIP_COLUMNS)
        pk = tuple(str(r["name"]) for r in sorted(info, key=lambda r: r["pk"]) if r["pk"] and r["name"] != "seq")
        key = ("id",) if "id" in cols else pk
        out.append(_Table(
            name=name, kind=_KNOWN.get(name, name), columns=columns,
            types={c: str(cols[c]["type"]).upper() for c in columns},
            notnull=frozenset(c for c in columns if cols[c]["notnull"]),
            key=key, order="seq" if "seq" in cols else "rowid",
        ))
    return out


class ExportReport(BaseModel):
    """Rows written per kind by :func:`export_store`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    counts: dict[str, int] = Field(default_factory=dict)
    users: tuple[str, ...] = ()


class ImportReport(BaseModel):
    """What :func:`import_store` did: rows inserted / replaced / skipped per kind."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    inserted: dict[str, int] = Field(default_factory=dict)
    replaced: dict[str, int] = Field(default_factory=dict)
    skipped: dict[str, int] = Field(default_factory=dict)
    users: tuple[str, ...] = ()


# -- export -----------------------------------------------------------------------------
def export_store(
    components: Components, dest: str | os.PathLike[str] | IO[str], *, user_id: str | Sequence[str] | None = None
) -> ExportReport:
    """Write the store (or some users) as JSON Lines to a path or text stream.

    Pending embeddings are irrelevant: SQLite, the system of record, is exported.
    """
    users = _users(components, user_id)
    tables = _tables(components)
    counts = {t.kind: 0 for t in tables}
    with _open_text(dest, "w") as fh:
        header = {"kind": "header", "format": FORMAT, "version": VERSION, "exported_at": utcnow().isoformat(),
                  "users": users}
        fh.write(_dumps(header) + "\n")
        for uid in users:
            for t in tables:
                rows = components.db.user_rows(t.name, t.columns, uid, t.order)
                for row in rows:
                    rec: dict[str, Any] = {}
                    for col in t.columns:
                        value = row[col]
                        rec[col] = json.loads(value) if col in _JSON_COLUMNS and isinstance(value, str) else value
                    fh.write(_dumps({"kind": t.kind, "row": rec}) + "\n")
                    counts[t.kind] += 1
    return ExportReport(counts=counts, users=tuple(users))


def _users(components: Components, user_id: str | Sequence[str] | None) -> list[str]:
    limits = components.config.limits
    if user_id is None:
        return components.db.users_of([t.name for t in _tables(components)])
    if isinstance(user_id, str):
        return [check_user(user_id, limits)]
    if not isinstance(user_id, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"user_id must be a string or a list of strings, got {type(user_id).__name__}")
    return [check_user(u, limits) for u in user_id]


# -- import -----------------------------------------------------------------------------
def import_store(
    components: Components,
    source: str | os.PathLike[str] | IO[str],
    *,
    merge: bool = False,
    on_conflict: ConflictPolicy = "keep-newer",
    progress: Progress | None = None,
) -> ImportReport:
    """Load a JSON Lines export into the store (all or nothing), then re-embed the rows.

    Args:
        components: the target store's collaborators.
        source: a path or text stream written by :func:`export_store`.
        merge: allow ids that already exist; ``on_conflict`` decides which row wins.
        on_conflict: ``keep-newer`` (the row with the later ingestion / update time),
            ``keep-existing``, ``overwrite`` (the file wins) or ``error``.
        progress: called as ``progress(done, total)`` while rows are written.

    Raises:
        InvalidInputError: a malformed line (with its number), an unknown policy, or a
            conflicting id without ``merge`` / with ``on_conflict="error"``.
    """
    if not isinstance(on_conflict, str) or on_conflict not in _POLICIES:
        raise InvalidInputError(f"on_conflict must be one of {', '.join(_POLICIES)}, got {on_conflict!r}")
    policy: ConflictPolicy = on_conflict if merge else "error"
    tables = {t.kind: t for t in _tables(components)}
    records = list(_read(components, source, tables))
    inserted = {k: 0 for k in tables}
    replaced = {k: 0 for k in tables}
    skipped = {k: 0 for k in tables}
    touched: dict[str, list[tuple[str, str]]] = {t: [] for t in _INDEXED}
    users = sorted({rec["user_id"] for _, _, rec in records})
    components.indexer.wait(timeout=INDEX_WAIT_S)
    with components.db.transaction():
        for n, (line, table, rec) in enumerate(records, 1):
            outcome = _write(components.db, table, rec, policy, line)
            {"inserted": inserted, "replaced": replaced, "skipped": skipped}[outcome][table.kind] += 1
            if outcome != "skipped" and table.name in touched:
                touched[table.name].append((rec["id"], rec["user_id"]))
            if progress is not None and (n % 200 == 0 or n == len(records)):
                progress(n, len(records))
    for name, items in touched.items():
        components.indexer.submit(name, items)  # type: ignore[arg-type]
    for uid in users:
        components.graph.invalidate(uid)
    if progress is not None and not records:
        progress(0, 0)
    return ImportReport(inserted=inserted, replaced=replaced, skipped=skipped, users=tuple(users))


def _write(db: SQLiteStore, t: _Table, rec: dict[str, Any], policy: ConflictPolicy, line: int) -> str:
    values = [_dumps(rec[c]) if c in _JSON_COLUMNS and rec[c] is not None else rec[c] for c in t.columns]
    key = t.key or t.columns
    key_values = [values[t.columns.index(c)] for c in key]
    existing = db.find_row(t.name, key, key_values)
    if existing is None and t.key == ("id",):
        other = db.owner_of(t.name, rec["id"])
        if other is not None and other != rec["user_id"]:
            raise InvalidInputError(f"line {line}: id {rec['id']!r} belongs to another user in this store")
    if existing is None:
        db.insert_row(t.name, t.columns, values)
        return "inserted"
    if not t.key:
        return "skipped"  # identical log entry already present
    if existing["user_id"] != rec["user_id"]:
        raise InvalidInputError(f"line {line}: {t.kind} {key_values!r} belongs to another user in this store")
    if policy == "error":
        raise InvalidInputError(
            f"line {line}: {t.kind} {key_values[0] if len(key_values) == 1 else key_values!r} already exists"
            " (use merge with a conflict policy such as keep-newer)")
    if policy == "keep-existing" or (policy == "keep-newer" and _version(existing, t) >= _version(rec, t)):
        return "skipped"
    db.delete_row(t.name, key, key_values)  # fires the FTS delete triggers
    db.insert_row(t.name, t.columns, values)
    return "replaced"


def _version(row: Any, t: _Table) -> float:
    stamps = [float(row[c]) for c in _VERSION_COLUMNS if c in t.columns and row[c] is not None]
    return max(stamps, default=0.0)


def _read(
    components: Components, source: str | os.PathLike[str] | IO[str], tables: dict[str, _Table]
) -> Iterator[tuple[int, _Table, dict[str, Any]]]:
    """Parse and validate every line before anything is written."""
    limits = components.config.limits
    seen: set[tuple[Any, ...]] = set()
    with _open_text(source, "r") as fh:
        header_seen = False
        for n, raw in enumerate(_lines(fh), 1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"line {n}: not valid JSON ({exc.msg})") from exc
            if not isinstance(rec, dict):
                raise InvalidInputError(f"line {n}: expected a JSON object")
            kind = rec.get("kind")
            if not header_seen:
                if kind != "header" or rec.get("format") != FORMAT:
                    raise InvalidInputError(f"line {n}: not a {FORMAT} export (missing header)")
                if rec.get("version") != VERSION:
                    raise InvalidInputError(f"line {n}: unsupported export version {rec.get('version')!r}")
                header_seen = True
                continue
            table = tables.get(kind) if isinstance(kind, str) else None
            if table is None:
                raise InvalidInputError(f"line {n}: unknown record kind {kind!r}")
            if set(rec) != {"kind", "row"} or not isinstance(rec["row"], dict):
                raise InvalidInputError(f"line {n}: expected {{\"kind\": ..., \"row\": {{...}}}}")
            rec = rec["row"]
            try:
                _check(table, rec, limits)
            except InvalidInputError as exc:
                raise InvalidInputError(f"line {n} ({kind}): {exc}") from exc
            if table.key:
                key = (table.name, *(rec[c] for c in table.key))
                if key in seen:
                    raise InvalidInputError(f"line {n}: duplicate {kind} {key[1:]!r}")
                seen.add(key)
            yield n, table, rec
        if not header_seen:
            raise InvalidInputError("empty input: not a nova-memory export")


def _lines(fh: IO[str]) -> Iterator[str]:
    try:
        yield from fh
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"the export is not valid UTF-8: {exc}") from exc


def _check(t: _Table, rec: dict[str, Any], limits: Any) -> None:
    missing = [c for c in t.columns if c not in rec]
    extra = sorted(set(rec) - set(t.columns))
    if missing or extra:
        raise InvalidInputError(f"missing fields {missing}" if missing else f"unknown fields {extra}")
    check_user(rec["user_id"], limits)
    for col in t.columns:
        value = rec[col]
        if value is None:
            if col in t.notnull:
                raise InvalidInputError(f"{col} must not be null")
            continue
        if col in _JSON_COLUMNS:
            want = dict if col == "metadata" else list
            if not isinstance(value, want):
                raise InvalidInputError(f"{col} must be a JSON {'object' if want is dict else 'array'}")
        elif "INT" in t.types[col] or "REAL" in t.types[col]:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise InvalidInputError(f"{col} must be a finite number")
        elif not isinstance(value, str) or "\x00" in value:
            raise InvalidInputError(f"{col} must be a string without NUL characters")
        elif col in _ID_COLUMNS:
            check_id(value, col, limits)
        elif col in _NON_EMPTY and not value.strip():
            raise InvalidInputError(f"{col} must not be empty")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False)


@contextmanager
def _open_text(target: str | os.PathLike[str] | IO[str], mode: Literal["r", "w"]) -> Iterator[IO[str]]:
    if isinstance(target, (str, os.PathLike)):
        path = Path(target)
        if mode == "r" and not path.is_file():
            raise InvalidInputError(f"no such file: {path}")
        with open(path, mode, encoding="utf-8") as fh:
            yield fh
    elif isinstance(target, io.TextIOBase) or hasattr(target, "write" if mode == "w" else "read"):
        yield target
    else:
        raise InvalidInputError(f"expected a path or a text stream, got {type(target).__name__}")
