"""``nova-memory lifecycle`` (per-user levels, tiers and actions; ``--dry-run``), ``hide`` and ``restore``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console

from ..engine.validation import printable
from ..maintenance.lifecycle import describe
from ._common import JsonOpt, PathOpt, UserOpt, session

__all__ = ["hide_cmd", "lifecycle_cmd", "restore_cmd"]

IdsArg = Annotated[list[str], typer.Argument(help="Episode, fact or rule ids.")]


def lifecycle_cmd(
    ctx: typer.Context,
    user: Annotated[str | None, typer.Option("--user", "-u", help="One user (default: all).")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report what would change; change nothing.")] = False,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Apply retention, compaction and capacity eviction now (the lifecycle section of config.toml).

    Prints each user's capacity level, tiers (hot / warm / cold), protected episodes and
    actions. The store also runs this by itself every lifecycle.schedule_interval_s once a
    step is configured.
    """
    with session(ctx, path, json_out) as s:
        report = s.store.apply_lifecycle(user, dry_run=dry_run)

        def human(c: Console) -> None:
            totals = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in report.counts().items())
            c.print(("would change: " if dry_run else "changed: ") + totals, markup=False, soft_wrap=True)
            for line in describe(report):
                c.print("  " + printable(line), markup=False, soft_wrap=True)

        s.emit(report, human)


def hide_cmd(ctx: typer.Context, ids: IdsArg, user: UserOpt, path: PathOpt = None,
             json_out: JsonOpt = False) -> None:
    """Hide memories from every read (restorable with `restore`; `delete` erases)."""
    _move(ctx, path, json_out, user, "hidden", lambda store: store.hide(user, ids))


def restore_cmd(ctx: typer.Context, ids: IdsArg, user: UserOpt, path: PathOpt = None,
                json_out: JsonOpt = False) -> None:
    """Bring hidden memories back."""
    _move(ctx, path, json_out, user, "restored", lambda store: store.restore(user, ids))


def _move(ctx: typer.Context, path: Any, json_out: bool, user: str, done: str,
          move: Callable[[Any], dict[str, list[str]]]) -> None:
    """Run a hide or restore and report the ids moved per table."""
    with session(ctx, path, json_out) as s:
        moved = move(s.store)
        s.emit({"user_id": user, done: moved},
               lambda c: c.print(", ".join(f"{len(v)} {k}" for k, v in moved.items()) + f" {done}", markup=False))
