"""``nova-memory list``, ``show`` and ``traverse``: browse one user's memory.

Every command is scoped to ``--user``: ids of other users are never found, never printed.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, get_args

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import NotFoundError
from ..types import Episode, Fact, FactDecision, MemoryKind, Rule
from ._common import JsonOpt, PathOpt, UserOpt, parse_when, session

if TYPE_CHECKING:
    from ..store import NovaStore

__all__ = ["KINDS", "list_cmd", "show_cmd", "traverse_cmd"]

KINDS: tuple[MemoryKind, ...] = get_args(MemoryKind)
_DECISIONS = 10_000  # how far back `show` looks for decisions about one memory


def _row(kind: str, item: Episode | Fact | Rule) -> dict[str, Any]:
    if isinstance(item, Episode):
        return {"kind": kind, "id": item.id, "time": item.timestamp, "session_id": item.session_id,
                "text": f"{item.role}: {item.content}"}
    if isinstance(item, Fact):
        return {"kind": kind, "id": item.id, "time": item.valid_from, "session_id": None, "text": item.text}
    return {"kind": kind, "id": item.id, "time": item.created_at, "session_id": None,
            "text": f"when {item.condition}: {item.action}"}


def _in_window(when: datetime, since: datetime | None, until: datetime | None) -> bool:
    return (since is None or when >= since) and (until is None or when < until)


def _collect(store: NovaStore, user: str, kinds: tuple[str, ...], session_id: str | None,
             since: datetime | None, until: datetime | None, want: int) -> list[dict[str, Any]]:
    """Up to ``want`` newest rows per kind (episodes are paged in SQLite; facts and rules are few)."""
    rows: list[dict[str, Any]] = []
    session_eps: set[str] | None = None
    if "episode" in kinds or session_id is not None:
        eps = store.episodes(user, session_id=session_id, limit=want if "episode" in kinds else None,
                             newest_first=True, since=since, until=until)
        if "episode" in kinds:
            rows += [_row("episode", e) for e in eps]
        if session_id is not None:  # facts derived from the session's turns; rules have no session
            session_eps = {e.id for e in store.episodes(user, session_id=session_id)}
    if "fact" in kinds:
        found = store.facts(user)
        rows += [_row("fact", f) for f in found if _in_window(f.valid_from, since, until)
                 and (session_eps is None or session_eps.intersection(f.provenance))]
    if "rule" in kinds and session_id is None:
        rows += [_row("rule", r) for r in store.rules(user) if _in_window(r.created_at, since, until)]
    rows.sort(key=lambda r: (r["time"], r["id"]), reverse=True)
    return rows


def list_cmd(
    ctx: typer.Context,
    user: UserOpt,
    kind: Annotated[list[str] | None, typer.Option(
        "--kind", "-k", help=f"Only these kinds: {', '.join(KINDS)} (repeatable; default all).")] = None,
    session_id: Annotated[str | None, typer.Option(
        "--session", help="Episodes of this session and the facts drawn from them.")] = None,
    since: Annotated[str | None, typer.Option("--since", help="From this time on (ISO-8601; no zone = UTC).")] = None,
    until: Annotated[str | None, typer.Option("--until", help="Before this time (ISO-8601; no zone = UTC).")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=1000, help="Rows per page.")] = 20,
    offset: Annotated[int, typer.Option("--offset", min=0, help="Rows to skip (next_offset of a page).")] = 0,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """A user's episodes, current facts and rules, newest first, a page at a time.

    Times: an episode's event time, a fact's valid-from, a rule's creation time.
    """
    bad = [k for k in kind or () if k not in KINDS]
    if bad:
        raise typer.BadParameter(f"{bad[0]!r}: use {', '.join(KINDS[:-1])} or {KINDS[-1]}", param_hint="--kind")
    kinds = tuple(k for k in KINDS if k in kind) if kind else KINDS
    start, end = parse_when(since, "--since"), parse_when(until, "--until")
    if start is not None and end is not None and end <= start:
        raise typer.BadParameter("must be later than --since", param_hint="--until")
    with session(ctx, path, json_out) as s:
        rows = _collect(s.store, user, kinds, session_id, start, end, offset + limit + 1)
        page = rows[offset:offset + limit]
        more = len(rows) > offset + limit
        data = {"user_id": user, "kinds": list(kinds), "offset": offset, "limit": limit,
                "next_offset": offset + limit if more else None, "items": page}

        def human(c: Console) -> None:
            if not page:
                c.print("no memories")
                return
            t = Table("when", "kind", "id", "session", "text", box=None, pad_edge=False)
            for r in page:
                t.add_row(f"{r['time']:%Y-%m-%d %H:%M}", r["kind"], r["id"], escape(r["session_id"] or ""),
                          escape(r["text"]))
            c.print(t)
            if more:
                c.print(f"more: --offset {offset + limit}")

        s.emit(data, human)


def _decisions_about(store: NovaStore, user: str, ids: set[str], episode_id: str | None = None) -> list[FactDecision]:
    return [d for d in store.decisions(user, _DECISIONS)
            if d.fact_id in ids or d.replaced_fact_id in ids
            or (episode_id is not None and episode_id in d.episode_ids)]


def _find(store: NovaStore, user: str, memory_id: str) -> dict[str, Any]:
    eps = store.get_episodes(user, [memory_id])
    if eps:
        derived = [f for f in store.facts(user, include_history=True) if memory_id in f.provenance]
        return {"kind": "episode", "memory": eps[0], "derived_facts": derived,
                "decisions": _decisions_about(store, user, set(), memory_id)}
    history = store.fact_history(user, memory_id)
    if history:
        fact = next(f for f in history if f.id == memory_id)
        sources = list(dict.fromkeys(i for f in history for i in f.provenance))
        return {"kind": "fact", "memory": fact, "current": fact.expired_at is None and fact.valid_to is None,
                "provenance": sorted(store.get_episodes(user, sources), key=lambda e: (e.timestamp, e.id))
                if sources else [],
                "history": history, "decisions": _decisions_about(store, user, {f.id for f in history})}
    rules = [r for r in store.rules(user) if r.id == memory_id]
    if rules:
        return {"kind": "rule", "memory": rules[0]}
    raise NotFoundError(f"no episode, fact or rule {memory_id!r} for this user")


def _show_human(data: dict[str, Any]) -> Any:
    def render(c: Console) -> None:
        item = data["memory"]
        c.print(f"[bold]{data['kind']}[/bold] {item.id}")
        for key, value in item.model_dump(mode="json").items():
            if key != "id" and value not in (None, {}, [], ()):
                c.print(f"  {key}: {escape(str(value))}", soft_wrap=True)
        if data.get("provenance"):
            c.print("[bold]source episodes[/bold]")
            for e in data["provenance"]:
                c.print(f"  {e.id} {e.timestamp:%Y-%m-%d %H:%M} {escape(e.role)}: {escape(e.content)}", soft_wrap=True)
        if data.get("derived_facts"):
            c.print("[bold]facts drawn from it[/bold]")
            for f in data["derived_facts"]:
                c.print(f"  {f.id} {escape(f.text)}", soft_wrap=True)
        if data.get("history"):
            c.print("[bold]history[/bold]")
            for f in data["history"]:
                until = f"{f.valid_to:%Y-%m-%d}" if f.valid_to else "now"
                believed = "" if f.expired_at is None else f" (superseded {f.expired_at:%Y-%m-%d})"
                c.print(f"  {f.id} {escape(f.object)} {f.valid_from:%Y-%m-%d}..{until}{believed}", soft_wrap=True)
        if data.get("decisions"):
            c.print("[bold]decisions[/bold]")
            for d in data["decisions"]:
                c.print(f"  {d.op} {escape(d.subject)} {d.predicate} {escape(d.object)}: {escape(d.reason)}",
                        soft_wrap=True)

    return render


def show_cmd(
    ctx: typer.Context,
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="An episode, fact or rule id.")],
    user: UserOpt,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """One memory of a user with its provenance, history and the decisions about it."""
    with session(ctx, path, json_out) as s:
        data = _find(s.store, user, memory_id)
        s.emit({"user_id": user, **data}, _show_human(data))


def traverse_cmd(
    ctx: typer.Context,
    start: Annotated[str, typer.Argument(help="The entity to start from (any alias).")],
    user: UserOpt,
    hops: Annotated[int, typer.Option("--hops", min=0, max=6, help="Maximum hops.")] = 2,
    predicate: Annotated[list[str] | None, typer.Option("--predicate", help="Follow only these (repeatable).")
                         ] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Facts valid at this time (default now).")] = None,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Facts reachable in the user's fact graph from an entity within --hops."""
    when = parse_when(as_of, "--as-of")
    with session(ctx, path, json_out) as s:
        found = s.store.traverse(user, start, max_hops=hops, predicates=predicate, as_of=when)

        def human(c: Console) -> None:
            t = Table("subject", "predicate", "object", "valid from", "id", box=None, pad_edge=False)
            for f in found:
                t.add_row(escape(f.subject), f.predicate, escape(f.object), f"{f.valid_from:%Y-%m-%d}", f.id)
            c.print(t if found else f"nothing reachable from {escape(start)!r}")

        s.emit({"user_id": user, "start": start, "hops": hops, "facts": found}, human)
