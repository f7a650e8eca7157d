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

Import trusts nothing in the file. It validates every line first, each row by the rules
of the store's own write paths (:mod:`.import_rows`: content and metadata limits, scores
in [0, 1], times in the safe range, closed vocabularies) and against the header's list of
users, then writes it in one transaction: a bad line raises
:class:`~nova_memory_integrations.errors.InvalidInputError` with its line number and
``field``, and nothing is written. ``user_id`` imports some users only, ``as_user``
imports one user's rows as another (fresh, deterministic ids), ``dry_run`` reports
without writing. Without ``merge`` an id already present is an error; with ``merge`` the
``on_conflict`` policy decides (``keep-newer``, ``keep-existing``, ``overwrite`` or
``error``); an id of another user is always an error.
"""

from __future__ import annotations

import io
import json
import os
import reprlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._time import utcnow
from ..engine.indexer import INDEX_WAIT_S
from ..engine.validation import check_flag, check_id, check_user
from ..errors import InvalidInputError
from .import_rows import GLOBAL_IDS, JSON_COLUMNS, TableSpec, check_row, filled, remap_row, table_specs

if TYPE_CHECKING:
    from ..engine.components import Components
    from ..storage.sqlite import SQLiteStore

__all__ = ["ConflictPolicy", "ExportReport", "ImportReport", "export_store", "import_store", "FORMAT", "VERSION"]

FORMAT = "nova-memory"
VERSION = 1
ConflictPolicy = Literal["keep-newer", "keep-existing", "overwrite", "error"]
Progress = Callable[[int, int], None]
_POLICIES = ("keep-newer", "keep-existing", "overwrite", "error")
_VERSION_COLUMNS = ("ingested_at", "expired_at", "last_reinforced", "last_access", "last_used", "updated_at",
                    "created_at", "detected_at")
_INDEXED = {"episodes", "facts", "rules"}


class ExportReport(BaseModel):
    """Rows written per kind by :func:`export_store`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    counts: dict[str, int] = Field(default_factory=dict)
    users: tuple[str, ...] = ()


class ImportReport(BaseModel):
    """What :func:`import_store` did (or, with ``dry_run``, would do)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    inserted: dict[str, int] = Field(default_factory=dict)
    """Rows inserted per kind."""
    replaced: dict[str, int] = Field(default_factory=dict)
    """Rows that replaced a stored one (``merge``) per kind."""
    skipped: dict[str, int] = Field(default_factory=dict)
    """Rows already stored (identical log entries, or kept by the conflict policy) per kind."""
    users: tuple[str, ...] = ()
    """The users written to (after ``as_user``)."""
    rows: dict[str, dict[str, int]] = Field(default_factory=dict)
    """The valid rows of the file per source user and kind."""
    excluded: dict[str, int] = Field(default_factory=dict)
    """Rows left out by ``user_id``, per source user."""
    remapped: dict[str, str] = Field(default_factory=dict)
    """Source user -> the user its rows were imported as (``as_user``)."""
    dry_run: bool = False
    errors: tuple[str, ...] = ()
    """Line-numbered errors (a dry run lists them; an import raises the first)."""
    error_count: int = 0


# -- export -----------------------------------------------------------------------------
def export_store(
    components: Components, dest: str | os.PathLike[str] | IO[str], *, user_id: str | Sequence[str] | None = None
) -> ExportReport:
    """Write the store (or some users) as JSON Lines to a path or text stream.

    Pending embeddings are irrelevant: the system of record (SQLite or Postgres) is exported,
    never the vectors.
    """
    users = _users(components, user_id)
    tables = table_specs(components.db)
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
                        rec[col] = json.loads(value) if col in JSON_COLUMNS and isinstance(value, str) else value
                    fh.write(_dumps({"kind": t.kind, "row": rec}) + "\n")
                    counts[t.kind] += 1
    return ExportReport(counts=counts, users=tuple(users))


def _users(components: Components, user_id: str | Sequence[str] | None) -> list[str]:
    limits = components.config.limits
    if user_id is None:
        return components.db.users_of([t.name for t in table_specs(components.db)])
    if isinstance(user_id, str):
        return [check_user(user_id, limits)]
    if not isinstance(user_id, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"user_id must be a string or a list of strings, got {type(user_id).__name__}")
    return [check_user(u, limits) for u in user_id]


# -- import -----------------------------------------------------------------------------
MAX_REPORTED_ERRORS = 100
"""Most errors a dry run lists (``error_count`` counts them all)."""


class _DryRun(Exception):
    """Raised inside the import transaction of a dry run to roll it back."""


class _Problems:
    """Line-numbered errors: raised at once (an import), or collected (a dry run)."""

    def __init__(self, collect: bool) -> None:
        self.collect = collect
        self.errors: list[str] = []
        self.count = 0

    def add(self, message: str, field: str | None = None) -> None:
        if not self.collect:
            raise InvalidInputError(message, field=field)
        self.count += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append(message)


@dataclass
class _Plan:
    """What the file holds and which rows of it are to be written."""

    records: list[tuple[int, TableSpec, dict[str, Any]]] = field(default_factory=list)
    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    excluded: dict[str, int] = field(default_factory=dict)
    remapped: dict[str, str] = field(default_factory=dict)


def import_store(
    components: Components,
    source: str | os.PathLike[str] | IO[str],
    *,
    merge: bool = False,
    on_conflict: ConflictPolicy = "keep-newer",
    user_id: str | Sequence[str] | None = None,
    as_user: str | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
) -> ImportReport:
    """Load a JSON Lines export into the store (all or nothing), then re-embed the rows.

    Every row is held to the limits of the store's own write paths
    (:func:`.import_rows.check_row`) and must belong to a user the header lists.

    Args:
        components: the target store's collaborators.
        source: a path or text stream written by :func:`export_store`.
        merge: allow ids that already exist; ``on_conflict`` decides which row wins.
        on_conflict: ``keep-newer`` (the row with the later ingestion / update time),
            ``keep-existing``, ``overwrite`` or ``error``.
        user_id: import only this user's rows (or these users'); the other rows are still
            validated, then left out and counted in ``ImportReport.excluded``.
        as_user: import the rows of the one source user (the export's only user, or the
            one ``user_id`` picks) as this user. Every global id is rewritten
            (:func:`.import_rows.fresh_id`, the same for the same file and user every time)
            so the copy never touches the source user's rows, in this store or another.
        dry_run: validate everything and report what would be written (in a transaction
            that is rolled back), listing every error in ``ImportReport.errors`` instead of
            raising; nothing is written and nothing is embedded.
        progress: called as ``progress(done, total)`` while rows are written.

    Raises:
        InvalidInputError: a malformed or invalid line (with its number and ``field``),
            a row of a user the header does not list, an id of another user, an unknown
            policy, or a conflicting id without ``merge`` / with ``on_conflict="error"``.
    """
    if not isinstance(on_conflict, str) or on_conflict not in _POLICIES:
        raise InvalidInputError(f"on_conflict must be one of {', '.join(_POLICIES)}, got {reprlib.repr(on_conflict)}",
                                field="on_conflict")
    merge, dry_run = check_flag(merge, "merge"), check_flag(dry_run, "dry_run")
    wanted = None if user_id is None else _users(components, user_id)
    target = None if as_user is None else check_id(as_user, "as_user", components.config.limits)
    policy: ConflictPolicy = on_conflict if merge else "error"
    tables = {t.kind: t for t in table_specs(components.db)}
    problems = _Problems(collect=dry_run)
    plan = _Plan()
    try:
        _read(components, source, tables, wanted, target, problems, plan)
    except InvalidInputError as exc:
        if not dry_run:
            raise
        problems.add(str(exc), exc.field)
    counts: dict[str, dict[str, int]] = {o: {k: 0 for k in tables} for o in ("inserted", "replaced", "skipped")}
    touched: dict[str, list[tuple[str, str]]] = {t: [] for t in _INDEXED}
    users = sorted({rec["user_id"] for _, _, rec in plan.records})
    if not dry_run:
        components.indexer.wait(timeout=INDEX_WAIT_S)
    try:
        with components.db.transaction() as tx:
            for n, (line, table, rec) in enumerate(plan.records, 1):
                try:
                    outcome = _write(components.db, table, rec, policy)
                except InvalidInputError as exc:
                    problems.add(f"line {line} ({table.kind}): {exc}", exc.field)
                    continue
                counts[outcome][table.kind] += 1
                if outcome != "skipped" and table.name in touched:
                    touched[table.name].append((rec["id"], rec["user_id"]))
                if progress is not None and (n % 200 == 0 or n == len(plan.records)):
                    progress(n, len(plan.records))
            if dry_run:
                raise _DryRun
            for uid in users:  # other processes on the database drop their caches of these users
                components.db.bump_revision(tx, uid)
    except _DryRun:
        pass
    if not dry_run:
        for name, items in touched.items():
            components.indexer.submit(name, items)  # type: ignore[arg-type]
        for uid in users:
            components.graph.invalidate(uid)
    if progress is not None and not plan.records:
        progress(0, 0)
    return ImportReport(inserted=counts["inserted"], replaced=counts["replaced"], skipped=counts["skipped"],
                        users=tuple(users), rows=plan.rows, excluded=plan.excluded, remapped=plan.remapped,
                        dry_run=dry_run, errors=tuple(problems.errors), error_count=problems.count)


def _write(db: SQLiteStore, t: TableSpec, rec: dict[str, Any], policy: ConflictPolicy) -> str:
    values = [_dumps(rec[c]) if c in JSON_COLUMNS and rec[c] is not None else rec[c] for c in t.columns]
    key = t.key or t.columns
    key_values = [values[t.columns.index(c)] for c in key]
    existing = db.find_row(t.name, key, key_values)
    if existing is None and t.key == ("id",):
        other = db.owner_of(t.name, rec["id"])
        if other is not None and other != rec["user_id"]:
            raise InvalidInputError(f"id {rec['id']!r} belongs to another user in this store", field="id")
    if existing is None:
        db.insert_row(t.name, t.columns, values)
        return "inserted"
    if not t.key:
        return "skipped"  # identical log entry already present
    shown = f"{key[0]} {key_values[0]!r}" if len(key) == 1 else f"{'/'.join(key)} {key_values!r}"
    if existing["user_id"] != rec["user_id"]:
        raise InvalidInputError(f"{shown} belongs to another user in this store", field=key[0])
    if policy == "error":
        raise InvalidInputError(f"{shown} already exists (use merge with a conflict policy such as keep-newer)",
                                field=key[0])
    if policy == "keep-existing" or (policy == "keep-newer" and _version(existing, t) >= _version(rec, t)):
        return "skipped"
    db.delete_row(t.name, key, key_values)  # fires the FTS delete triggers
    db.insert_row(t.name, t.columns, values)
    return "replaced"


def _version(row: Any, t: TableSpec) -> float:
    stamps = [float(row[c]) for c in _VERSION_COLUMNS if c in t.columns and row[c] is not None]
    return max(stamps, default=0.0)


def _read(
    components: Components, source: str | os.PathLike[str] | IO[str], tables: dict[str, TableSpec],
    wanted: list[str] | None, target: str | None, problems: _Problems, plan: _Plan,
) -> None:
    """Parse and validate every line before anything is written; fill ``plan``.

    Errors of one line go to ``problems``; an unreadable file or header raises.
    """
    limits = components.config.limits
    seen: set[tuple[Any, ...]] = set()
    declared: set[str] | None = None
    selected: set[str] = set()
    with _open_text(source, "r") as fh:
        for n, raw in enumerate(_lines(fh), 1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw, parse_constant=_no_constant)
            except (ValueError, RecursionError) as exc:
                problems.add(f"line {n}: not valid JSON ({_json_error(exc, raw)})")
                continue
            if not isinstance(rec, dict):
                problems.add(f"line {n}: expected a JSON object")
                continue
            kind = rec.get("kind")
            if declared is None:
                declared, selected = _header(rec, n, limits, wanted, target, plan)
                continue
            table = tables.get(kind) if isinstance(kind, str) else None
            if table is None:
                problems.add(f"line {n}: unknown record kind {str(kind)[:40]!r}", "kind")
                continue
            if set(rec) != {"kind", "row"} or not isinstance(rec["row"], dict):
                problems.add(f"line {n}: expected {{\"kind\": ..., \"row\": {{...}}}}")
                continue
            row: dict[str, Any] = dict(filled(table, rec["row"]))
            try:
                check_row(table, row, limits)
            except InvalidInputError as exc:
                problems.add(f"line {n} ({kind}): {exc}", exc.field)
                continue
            uid = row["user_id"]
            if uid not in declared:
                problems.add(f"line {n} ({kind}): user_id {uid!r} is not among the users the header lists"
                             f" ({_names(declared)}): a row of another user than the file declares", "user_id")
                continue
            if table.key:
                key = (table.name, *(row[c] for c in table.key))
                if key in seen:
                    problems.add(f"line {n}: duplicate {kind} {key[1:]!r}", table.key[0])
                    continue
                seen.add(key)
            per_user = plan.rows.setdefault(uid, {})
            per_user[table.kind] = per_user.get(table.kind, 0) + 1
            if uid not in selected:
                plan.excluded[uid] = plan.excluded.get(uid, 0) + 1
                continue
            if uid in plan.remapped:
                row = remap_row(table, row, plan.remapped[uid])
                try:
                    for col in sorted(GLOBAL_IDS & set(table.columns)):
                        check_id(row[col], col, limits, required=False)
                except InvalidInputError as exc:
                    problems.add(f"line {n} ({kind}): remapped {exc}", exc.field)
                    continue
            plan.records.append((n, table, row))
        if declared is None:
            raise InvalidInputError("empty input: not a nova-memory export")


def _header(
    rec: dict[str, Any], n: int, limits: Any, wanted: list[str] | None, target: str | None, plan: _Plan
) -> tuple[set[str], set[str]]:
    """The users the header declares and the ones to import (``plan.remapped`` set for ``as_user``)."""
    if rec.get("kind") != "header" or rec.get("format") != FORMAT:
        raise InvalidInputError(f"line {n}: not a {FORMAT} export (missing header)")
    if rec.get("version") != VERSION:
        raise InvalidInputError(f"line {n}: unsupported export version {str(rec.get('version'))[:20]!r}")
    users = rec.get("users")
    if not isinstance(users, list):
        raise InvalidInputError(f"line {n}: the header has no users list (every export names its users)",
                                field="users")
    try:
        declared = {check_user(u, limits) for u in users}
    except InvalidInputError as exc:
        raise InvalidInputError(f"line {n} (header): users: {exc}", field="users") from exc
    missing = [u for u in wanted or () if u not in declared]
    if missing:
        raise InvalidInputError(f"user_id {missing[0]!r} is not in this export (it holds {_names(declared)})",
                                field="user_id")
    selected = declared if wanted is None else set(wanted)
    if target is not None:
        if len(selected) != 1:
            raise InvalidInputError(
                f"as_user needs exactly one source user; this export holds {len(selected)} ({_names(selected)}):"
                " pass user_id to pick one", field="as_user")
        (source,) = selected
        if source != target:
            plan.remapped[source] = target
    return declared, selected


def _names(users: set[str]) -> str:
    shown = sorted(users)
    text = ", ".join(repr(u) for u in shown[:5])
    return (text + f" and {len(shown) - 5} more" if len(shown) > 5 else text) or "no users"


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _json_error(exc: BaseException, raw: str) -> str:
    if isinstance(exc, json.JSONDecodeError):
        cut = exc.pos >= len(raw.rstrip()) or exc.msg.startswith("Unterminated string")
        return f"{exc.msg} column {exc.colno}" + (" - the line ends early: is the file truncated?" if cut else "")
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    return str(exc)[:120]


def _lines(fh: IO[str]) -> Iterator[str]:
    try:
        yield from fh
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"the export is not valid UTF-8: {exc}") from exc


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
