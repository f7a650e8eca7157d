"""The ``nova-memory`` typer application: one function per command.

Every command takes ``--path`` and ``--json``. Library errors (bad input, a closed or
unreadable store, ...) end the command with exit code 1 and a one-line message (a JSON
``{"error": ...}`` object with ``--json``); usage errors exit with code 2.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..engine.validation import printable
from ..retrieval.search_config import PRESETS
from ..types import CONTEXT_FORMATS
from ._common import DatabaseOpt, JsonOpt, PathOpt, Session, UserOpt, choice, parse_when, session
from .blocks import blocks_app
from .browse import list_cmd, show_cmd, traverse_cmd
from .graph import GRAPH_FORMATS, render_graph
from .lifecycle import hide_cmd, lifecycle_cmd, restore_cmd
from .maintain import config_app, fact_app, merge_entities_cmd
from .models import models_app
from .serve import mcp_cmd, serve_cmd
from .stats import collect_stats

if TYPE_CHECKING:
    from ..maintenance.portability import ImportReport

__all__ = ["app", "main"]

app = typer.Typer(
    name="nova-memory",
    help="Long-term memory for agents: capture, consolidate, recall, inspect and maintain a nova-memory store.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
graph_app = typer.Typer(help="Export a user's fact graph.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")
app.add_typer(models_app, name="models")
app.command("serve")(serve_cmd)
app.command("mcp")(mcp_cmd)
app.command("list")(list_cmd)
app.command("show")(show_cmd)
app.command("traverse")(traverse_cmd)
app.add_typer(fact_app, name="fact")
app.command("merge-entities")(merge_entities_cmd)
app.command("lifecycle")(lifecycle_cmd)
app.command("hide")(hide_cmd)
app.command("restore")(restore_cmd)
app.add_typer(config_app, name="config")
app.add_typer(blocks_app, name="blocks")

_KINDS = ("episode", "fact", "rule")
_SHORT = {"episodes": "episodes", "unconsolidated": "pending", "tombstones": "tombst", "summaries": "summ",
          "facts_current": "facts", "fact_versions": "versions", "fact_events": "events", "rules": "rules",
          "dead_letters": "dead"}


def main() -> None:
    """Console-script entry point (``nova-memory``)."""
    app()


def _progress(s: Session, label: str) -> Progress:
    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=s.err, disable=s.json_out, transient=False)


def _kinds(values: list[str] | None, default: tuple[str, ...]) -> tuple[str, ...]:
    kinds = tuple(values) if values else default
    bad = [k for k in kinds if k not in _KINDS]
    if bad:
        raise typer.BadParameter(f"unknown kind(s) {bad}: use episode, fact or rule", param_hint="--kind")
    return kinds


# -- capture ------------------------------------------------------------------------------
@app.command()
def add(
    ctx: typer.Context,
    content: Annotated[str, typer.Argument(help="The turn's text.")],
    user: UserOpt,
    role: Annotated[str, typer.Option(help="Speaker: user, assistant, system, tool...")] = "user",
    session_id: Annotated[str | None, typer.Option("--session", help="Session / thread id.")] = None,
    timestamp: Annotated[str | None, typer.Option(help="Event time, ISO-8601 (default now; no zone = UTC).")] = None,
    importance: Annotated[float | None, typer.Option(help="0..1 (default 0.5).")] = None,
    metadata: Annotated[str | None, typer.Option(help="JSON object stored with the turn.")] = None,
    consolidate: Annotated[bool, typer.Option("--consolidate", help="Consolidate this user right away.")] = False,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Record one conversation turn."""
    meta = _json_object(metadata, "--metadata")
    when = parse_when(timestamp, "--timestamp")
    with session(ctx, path, json_out) as s:
        ep = s.store.add_turn(user, role, content, session_id=session_id, timestamp=when, metadata=meta,
                              importance=importance, consolidation="immediate" if consolidate else None)
        s.emit({"episode": ep}, lambda c: c.print(f"added {ep.id} ({ep.role}, {ep.timestamp:%Y-%m-%d %H:%M})"))


def _json_object(raw: str | None, name: str) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise typer.BadParameter(f"not valid JSON: {exc.msg}", param_hint=name) from exc
    if not isinstance(value, dict):
        raise typer.BadParameter("must be a JSON object", param_hint=name)
    return value


# -- recall -------------------------------------------------------------------------------
@app.command()
def search(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="What to look for.")],
    user: UserOpt,
    k: Annotated[int, typer.Option("-k", "--k", min=1, help="Number of hits.")] = 5,
    kind: Annotated[list[str] | None, typer.Option("--kind", help="episode / fact / rule (repeatable).")] = None,
    hybrid: Annotated[bool, typer.Option("--hybrid", help="Dense + BM25 + graph, fused and reranked.")] = False,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Facts valid at this time.")] = None,
    session_id: Annotated[str | None, typer.Option("--session")] = None,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Search a user's memory (dense similarity; --hybrid for the full retrieval pipeline)."""
    kinds = _kinds(kind, ("episode", "fact", "rule") if hybrid else ("episode", "fact"))
    when = parse_when(as_of, "--as-of")
    with session(ctx, path, json_out) as s:
        if hybrid:
            hits = s.store.retrieve(query, user, k=k, kinds=kinds, as_of=when, session_id=session_id)  # type: ignore[arg-type]
        else:
            hits = s.store.search(query, user, k=k, kinds=kinds, as_of=when, session_id=session_id)  # type: ignore[arg-type]
        rows = [{"kind": h.kind, "id": h.id, "score": h.score, "text": h.text,
                 "timestamp": h.timestamp, "scores": h.scores} for h in hits]

        def human(c: Console) -> None:
            t = Table("score", "kind", "when", "text", box=None, pad_edge=False)
            for h in hits:
                t.add_row(f"{h.score:.3f}", h.kind, f"{h.timestamp:%Y-%m-%d}" if h.timestamp else "", escape(h.text))
            c.print(t if hits else "no results")

        s.emit({"query": query, "user_id": user, "hits": rows}, human)


@app.command()
def context(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(help="The question the agent is about to answer.")],
    user: UserOpt,
    budget: Annotated[int | None, typer.Option("--budget", min=1, help="Token budget (default from config).")] = None,
    fmt: Annotated[str, typer.Option("--format", help=f"One of: {', '.join(CONTEXT_FORMATS)}.")] = "markdown",
    as_of: Annotated[str | None, typer.Option("--as-of", help="Recall as of this time.")] = None,
    session_id: Annotated[str | None, typer.Option("--session")] = None,
    preset: Annotated[str | None, typer.Option(help=f"Retrieval preset: {', '.join(PRESETS)} (default from config).")
                      ] = None,
    explain: Annotated[bool, typer.Option("--explain", help="Show why each item is (or is not) included.")] = False,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The prompt-ready memory context for a query, within a token budget."""
    when = parse_when(as_of, "--as-of")
    with session(ctx, path, json_out) as s:
        res = s.store.context(query, user, budget_tokens=budget, format=fmt, as_of=when,  # type: ignore[arg-type]
                              session_id=session_id, preset=preset)
        data = res.model_dump(mode="json")
        if explain:
            data["explain"] = res.explain()

        def human(c: Console) -> None:
            c.print(res.text, markup=False, highlight=False)
            if explain:
                c.print()
                c.print(res.explain(), markup=False, highlight=False)

        s.emit(data, human)


# -- semantic / procedural memory ---------------------------------------------------------
@app.command()
def consolidate(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option("--user", "-u", help="One user (default: every user).")] = None,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Turn unprocessed episodes into facts (ADD / UPDATE / DELETE / NOOP)."""
    with session(ctx, path, json_out) as s:
        store = s.store
        users = [user] if user is not None else store.users(unconsolidated=True)
        totals = {"added": 0, "updated": 0, "invalidated": 0, "noop": 0, "episodes_processed": 0,
                  "failed_episodes": 0}
        decisions: list[Any] = []
        with _progress(s, "consolidating users") as bar:
            task = bar.add_task("consolidate", total=len(users))
            for uid in users:
                res = store.consolidate(uid)
                for key in totals:
                    totals[key] += getattr(res, key)
                decisions += [{"user_id": uid, **d.model_dump(mode="json")} for d in res.decisions]
                bar.advance(task)

        def human(c: Console) -> None:
            c.print(", ".join(f"{v} {k.replace('_', ' ')}" for k, v in totals.items()))
            if totals["failed_episodes"]:
                c.print("[yellow]some batches failed: see `nova-memory stats` (dead letters)[/yellow]")

        s.emit({"users": users, **totals, "decisions": decisions}, human)


@app.command()
def facts(
    ctx: typer.Context,
    user: UserOpt,
    subject: Annotated[str | None, typer.Option(help="Only this subject (e.g. user).")] = None,
    predicate: Annotated[str | None, typer.Option(help="Only this predicate (e.g. lives_in).")] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Facts valid at this time (default now).")] = None,
    known_at: Annotated[str | None, typer.Option("--known-at", help="As believed at this time.")] = None,
    history: Annotated[bool, typer.Option("--history", help="Every version with its validity interval.")] = False,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """A user's facts at a point in time, or their full history."""
    when, known = parse_when(as_of, "--as-of"), parse_when(known_at, "--known-at")
    with session(ctx, path, json_out) as s:
        found = s.store.facts(user, subject, predicate, as_of=when, known_at=known, include_history=history)

        def human(c: Console) -> None:
            t = Table("subject", "predicate", "object", "valid from", "valid to", "conf", "id", box=None,
                      pad_edge=False)
            for f in found:
                t.add_row(escape(f.subject), f.predicate, escape(f.object), f"{f.valid_from:%Y-%m-%d}",
                          f"{f.valid_to:%Y-%m-%d}" if f.valid_to else "-", f"{f.confidence:.2f}", f.id)
            c.print(t if found else "no facts")

        s.emit({"user_id": user, "facts": found}, human)


@app.command()
def rules(
    ctx: typer.Context,
    user: UserOpt,
    match: Annotated[str | None, typer.Option("--context", help="Only rules whose condition matches this.")] = None,
    add: Annotated[tuple[str, str] | None, typer.Option("--add", help="Add a rule: CONDITION ACTION.")] = None,
    confidence: Annotated[float, typer.Option(help="Confidence of an added rule.")] = 0.8,
    k: Annotated[int, typer.Option("-k", "--k", min=1)] = 5,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """List, match (--context) or add (--add CONDITION ACTION) procedural rules."""
    with session(ctx, path, json_out) as s:
        added = s.store.add_rule(user, add[0], add[1], confidence) if add else None
        found = s.store.rules(user, match, k=k)

        def human(c: Console) -> None:
            if added is not None:
                c.print(f"added {added.id}")
            t = Table("condition", "action", "conf", "used", "id", box=None, pad_edge=False)
            for r in found:
                t.add_row(escape(r.condition), escape(r.action), f"{r.confidence:.2f}", str(r.usage_count), r.id)
            c.print(t if found else "no rules")

        s.emit({"user_id": user, "added": added, "rules": found}, human)


@graph_app.command("export")
def graph_export(
    ctx: typer.Context,
    user: UserOpt,
    fmt: Annotated[str, typer.Option("--format", "-f", help=f"One of: {', '.join(GRAPH_FORMATS)}.",
                                     callback=choice(GRAPH_FORMATS))] = "graphml",
    output: Annotated[Path | None, typer.Option("--output", "-o", help="File to write (default stdout).",
                                                dir_okay=False)] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Only facts valid at this time.")] = None,
    history: Annotated[bool, typer.Option("--history", help="Include superseded versions.")] = False,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Export a user's fact graph (entities as nodes, facts as edges)."""
    when = parse_when(as_of, "--as-of")
    with session(ctx, path, json_out) as s:
        found = s.store.facts(user, as_of=when, include_history=history)
        text = printable(render_graph(found, fmt))  # type: ignore[arg-type]  # no control characters
        if output is not None:
            output.write_text(text, encoding="utf-8")
        if json_out:
            s.emit({"user_id": user, "format": fmt, "edges": len(found), "output": output,
                    "graph": None if output is not None else text})
        elif output is not None:
            s.out.print(f"wrote {len(found)} edges to {output}")
        else:
            sys.stdout.write(text)


# -- portability ----------------------------------------------------------------------------
@app.command("export")
def export_cmd(
    ctx: typer.Context,
    output: Annotated[str, typer.Argument(help="JSON Lines file to write, or - for stdout.")] = "-",
    user: Annotated[list[str] | None, typer.Option("--user", "-u", help="Only these users (repeatable).")] = None,
    path: PathOpt = None,
    database_url: DatabaseOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Export memory as JSON Lines (lossless; re-embedded on import), from SQLite or Postgres alike."""
    with session(ctx, path, json_out, database_url=database_url) as s:
        if output == "-":
            report = s.store.export(sys.stdout, user_id=user or None)
            sys.stdout.flush()
            if json_out:
                s.err.print(json.dumps(report.model_dump(mode="json")))
            return
        report = s.store.export(Path(output), user_id=user or None)
        s.emit({"output": output, **report.model_dump(mode="json")},
               lambda c: c.print(f"exported {_count_text(report.counts)} for {_users(report.users)} to {output}"))


@app.command("import")
def import_cmd(
    ctx: typer.Context,
    source: Annotated[Path, typer.Argument(help="JSON Lines file written by `nova-memory export`.",
                                           dir_okay=False)],
    merge: Annotated[bool, typer.Option("--merge", help="Allow ids that already exist.")] = False,
    on_conflict: Annotated[str, typer.Option("--on-conflict",
                                             help="keep-newer, keep-existing, overwrite or error.")] = "keep-newer",
    user: Annotated[list[str] | None, typer.Option("--user", "-u", help="Only these users' rows (repeatable).")] = None,
    as_user: Annotated[str | None, typer.Option(
        "--as-user", help="Import the one source user's rows as this user (fresh ids).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Validate and report; write nothing.")] = False,
    path: PathOpt = None,
    database_url: DatabaseOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Import a JSON Lines export (every row validated; all or nothing), then re-embed the rows."""
    with session(ctx, path, json_out, database_url=database_url) as s:
        with _progress(s, "checking rows" if dry_run else "importing rows") as bar:
            task = bar.add_task("import", total=None)

            def tick(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            report = s.store.import_(source, merge=merge, on_conflict=on_conflict, user_id=user or None,
                                     as_user=as_user, dry_run=dry_run, progress=tick)
        if not dry_run:
            _wait_index(s, "embedding rows")
        s.emit(report, lambda c: _print_import(c, report))
        if report.error_count:
            raise typer.Exit(1)


def _print_import(c: Console, report: ImportReport) -> None:
    verb = "would import" if report.dry_run else "imported"
    c.print(f"{verb} {_count_text(report.inserted)}; replaced {sum(report.replaced.values())},"
            f" skipped {sum(report.skipped.values())} ({_users(report.users)})")
    for source, target in report.remapped.items():
        c.print(f"rows of {escape(source)} imported as {escape(target)} (fresh ids)")
    if report.excluded:
        c.print(f"left out {sum(report.excluded.values())} rows of other users: "
                + ", ".join(f"{escape(u)} ({n})" for u, n in report.excluded.items()))
    if report.error_count:
        c.print(f"[red]{report.error_count} errors[/red] - nothing would be written:")
        for error in report.errors:
            c.print(f"  {escape(error)}", soft_wrap=True)


def _count_text(counts: dict[str, int]) -> str:
    """``"1 episode, 3 entity aliases"``: rows per record kind (``portability``), in words."""
    return ", ".join(f"{n} {_rows_of(kind, n)}" for kind, n in counts.items() if n) or "nothing"


def _users(users: tuple[str, ...]) -> str:
    return "1 user" if len(users) == 1 else f"{len(users)} users"


def _rows_of(kind: str, n: int) -> str:
    """The record kind ``kind`` for ``n`` rows: the kind for one, its table's name (the plural) for more."""
    from ..maintenance.import_rows import KNOWN_TABLES

    plural = {k: table for table, k in KNOWN_TABLES.items()}.get(kind, kind)  # other tables: their own name
    return (kind if n == 1 else plural).replace("_", " ")


def _wait_index(s: Session, label: str) -> None:
    """Wait for the background embedder, with a progress bar over the pending rows."""
    store = s.store
    total = store.stats()["pending_index"]
    if not total:
        return
    with _progress(s, label) as bar:
        task = bar.add_task("index", total=total)
        while not store.flush(timeout=0.2):
            bar.update(task, completed=max(0, total - store.stats()["pending_index"]))
        bar.update(task, completed=total)


# -- maintenance --------------------------------------------------------------------------
@app.command()
def stats(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option("--user", "-u", help="One user (default: all).")] = None,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Counts per kind and user, sizes, last consolidation, dead letters."""
    with session(ctx, path, json_out) as s:
        data = collect_stats(s.store, user)

        def human(c: Console) -> None:
            c.print(f"store {data['path']}: {data['users']} users, last consolidation "
                    f"{data['last_consolidation'] or 'never'}, {data['pending_index']} rows waiting for embedding")
            t = Table("user", *(_SHORT.get(k, k) for k in data["totals"]), box=None, pad_edge=False)
            for uid, counts in data["per_user"].items():
                t.add_row(escape(uid), *(str(v) for v in counts.values()))
            t.add_row("[bold]total[/bold]", *(str(v) for v in data["totals"].values()))
            c.print(t)
            sizes = data["sizes"]
            c.print(f"sqlite {sizes['sqlite_bytes'] / 1e6:.2f} MB, chroma {sizes['chroma_bytes'] / 1e6:.2f} MB, "
                    f"vectors {data['vectors']}")
            for d in data["dead_letters"]:
                c.print(f"[yellow]dead letter[/yellow] {d['id']} user {escape(d['user_id'])}: {d['episodes']} episodes,"
                        f" {d['attempts']} attempts: {escape(d['error'])}")

        s.emit(data, human)


@app.command()
def forget(
    ctx: typer.Context,
    user: UserOpt,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Erase every trace of a user (SQLite rows, history, full-text and vector indexes)."""
    if not yes and not typer.confirm(f"Erase all memory of user {user!r}?", err=True):
        raise typer.Exit(1)
    with session(ctx, path, json_out) as s:
        counts = s.store.forget(user)
        s.emit({"user_id": user, "deleted": counts},
               lambda c: c.print(f"forgot {escape(user)}: " + ", ".join(f"{v} {k}" for k, v in counts.items())))


@app.command()
def delete(
    ctx: typer.Context,
    ids: Annotated[list[str], typer.Argument(help="Episode, fact or rule ids.")],
    user: UserOpt,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Delete episodes, facts (whole lineages) and rules of a user by id."""
    with session(ctx, path, json_out) as s:
        removed = s.store.delete(user, ids)
        s.emit({"user_id": user, "deleted": removed},
               lambda c: c.print(", ".join(f"{len(v)} {k}" for k, v in removed.items()) + " deleted"))


@app.command()
def reindex(ctx: typer.Context, path: PathOpt = None, database_url: DatabaseOpt = None,
            json_out: JsonOpt = False) -> None:
    """Rebuild the vector index (Chroma, or pgvector) from the system of record (e.g. after changing the
    embedding model)."""
    with session(ctx, path, json_out, database_url=database_url) as s:
        store = s.store
        counts = store.stats()
        total = sum(counts[t] for t in ("episodes", "facts", "rules"))
        result: dict[str, Any] = {}
        error: list[BaseException] = []

        def run() -> None:
            try:
                result["rows"] = store.reindex()
            except BaseException as exc:  # re-raised in the main thread
                error.append(exc)

        worker = threading.Thread(target=run, name="nova-memory-reindex", daemon=True)
        with _progress(s, "re-embedding rows") as bar:
            task = bar.add_task("reindex", total=total)
            worker.start()
            while worker.is_alive():
                worker.join(timeout=0.2)
                pending = store.stats()["pending_index"]
                bar.update(task, completed=max(0, total - pending) if pending else bar.tasks[0].completed)
            bar.update(task, completed=total)
        if error:
            raise error[0]
        s.emit({"rows": result.get("rows", 0)}, lambda c: c.print(f"re-indexed {result.get('rows', 0)} rows"))


@app.command()
def demo(ctx: typer.Context, path: PathOpt = None, json_out: JsonOpt = False) -> None:
    """Capture three dated sessions, consolidate, show a belief change over time and recall with sources."""
    from .demo import run_demo

    with session(ctx, path, json_out) as s:
        obj = ctx.obj if isinstance(ctx.obj, dict) else {}
        result = run_demo(path, embeddings=obj.get("embeddings"), console=s.out, quiet=json_out)
        if json_out:
            s.emit(result)
