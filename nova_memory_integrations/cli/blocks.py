"""``nova-memory blocks list|show|set|append|delete``: a user's pinned blocks from the shell.

The same operations as ``NovaStore.set_block`` / ``append_to_block`` / ``blocks`` /
``block_history`` / ``delete_block`` (edits written by the CLI are authored ``app``), so an
operator can read and correct what every context of a user carries without writing Python.
Every edit is a new version; ``show --history`` lists them all.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import NotFoundError
from ..types import PinnedBlock
from ._common import JsonOpt, PathOpt, UserOpt, session

__all__ = ["blocks_app"]

blocks_app = typer.Typer(help="A user's pinned blocks: named texts every context carries.", no_args_is_help=True)

NameArg = Annotated[str, typer.Argument(metavar="NAME", help="The block's name (e.g. human, persona).")]
TextArg = Annotated[str, typer.Argument(metavar="TEXT", help="The text; '-' reads it from standard input.")]


def _text(value: str) -> str:
    """The TEXT argument, or standard input for ``-`` (a long block is easier piped than quoted)."""
    return sys.stdin.read().rstrip("\n") if value == "-" else value


def _row(b: PinnedBlock) -> dict[str, object]:
    return {"name": b.name, "content": b.content, "limit": b.limit, "chars": len(b.content), "author": b.author,
            "id": b.id, "valid_from": b.valid_from, "valid_to": b.valid_to}


def _print_block(c: Console, b: PinnedBlock) -> None:
    until = f" until {b.valid_to:%Y-%m-%d %H:%M:%S}" if b.valid_to else ""
    c.print(f"[bold]{escape(b.name)}[/bold] ({len(b.content)}/{b.limit} chars, by {b.author}, "
            f"from {b.valid_from:%Y-%m-%d %H:%M:%S}{until})")
    c.print(escape(b.content), soft_wrap=True)


@blocks_app.command("list")
def blocks_list(ctx: typer.Context, user: UserOpt, path: PathOpt = None, json_out: JsonOpt = False) -> None:
    """The user's current blocks: name, size against the limit, the start of the text."""
    with session(ctx, path, json_out) as s:
        found = s.store.blocks(user)

        def human(c: Console) -> None:
            if not found:
                c.print(f"no pinned blocks for {escape(user)}")
                return
            table = Table("name", "chars", "author", "text")
            for b in found:
                first = b.content.splitlines()[0] if b.content else ""
                table.add_row(escape(b.name), f"{len(b.content)}/{b.limit}", b.author,
                              escape(first[:60] + ("..." if len(first) > 60 or "\n" in b.content else "")))
            c.print(table)

        s.emit({"user_id": user, "blocks": [_row(b) for b in found]}, human)


@blocks_app.command("show")
def blocks_show(
    ctx: typer.Context, name: NameArg, user: UserOpt,
    history: Annotated[bool, typer.Option("--history", help="Every version, oldest first.")] = False,
    path: PathOpt = None, json_out: JsonOpt = False,
) -> None:
    """One block in full (exit code 1 if the user has no such block)."""
    with session(ctx, path, json_out) as s:
        versions = s.store.block_history(user, name) if history else [b for b in [s.store.block(user, name)] if b]
        if not versions:
            raise NotFoundError(f"no pinned block {name!r} for user {user!r}")

        def human(c: Console) -> None:
            for b in versions:
                _print_block(c, b)

        s.emit({"user_id": user, "name": name, "versions" if history else "block":
                [_row(b) for b in versions] if history else _row(versions[0])}, human)


@blocks_app.command("set")
def blocks_set(
    ctx: typer.Context, name: NameArg, text: TextArg, user: UserOpt,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="The block's size limit in characters "
                                              "from now on (default: its current one, or limits.block_chars).")
                     ] = None,
    path: PathOpt = None, json_out: JsonOpt = False,
) -> None:
    """Write the block (created if new); the version it replaces stays in its history."""
    with session(ctx, path, json_out) as s:
        block = s.store.set_block(user, name, _text(text), limit=limit)
        s.emit({"user_id": user, "block": _row(block)}, lambda c: _print_block(c, block))


@blocks_app.command("append")
def blocks_append(ctx: typer.Context, name: NameArg, text: TextArg, user: UserOpt, path: PathOpt = None,
                  json_out: JsonOpt = False) -> None:
    """Add TEXT as a new line at the end of the block (created if new)."""
    with session(ctx, path, json_out) as s:
        block = s.store.append_to_block(user, name, _text(text))
        s.emit({"user_id": user, "block": _row(block)}, lambda c: _print_block(c, block))


@blocks_app.command("delete")
def blocks_delete(ctx: typer.Context, name: NameArg, user: UserOpt, path: PathOpt = None,
                  json_out: JsonOpt = False) -> None:
    """Take the block out of every context from now on (its history is kept); exit code 1 if there was none."""
    with session(ctx, path, json_out) as s:
        if not s.store.delete_block(user, name):
            raise NotFoundError(f"no pinned block {name!r} for user {user!r}")
        s.emit({"user_id": user, "name": name, "deleted": True},
               lambda c: c.print(f"deleted pinned block {escape(name)!r} of {escape(user)} (history kept)"))
