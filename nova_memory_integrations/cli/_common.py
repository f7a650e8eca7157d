"""Shared plumbing of the CLI: options, opening the store, output and errors."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.segment import Segment

from ..engine.validation import printable
from ..errors import NovaMemoryError

if TYPE_CHECKING:
    from ..store import NovaStore

__all__ = ["DatabaseOpt", "JsonOpt", "PathOpt", "SafeConsole", "Session", "UserOpt", "choice", "json_text", "jsonable",
           "parse_when", "session"]

PathOpt = Annotated[
    Path | None,
    typer.Option("--path", "-p", help="Data directory (default: $NOVA_MEMORY_HOME or ~/.nova-memory).",
                 file_okay=False),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]
DatabaseOpt = Annotated[
    str | None,
    typer.Option("--database-url", help="Postgres as the system of record (postgresql://...; default:"
                                        " $NOVA_MEMORY_DATABASE_URL, else the config's storage.database_url,"
                                        " else the embedded SQLite + Chroma store in the data directory)."),
]
UserOpt = Annotated[str, typer.Option("--user", "-u", help="User id (memory is always per user).")]


def choice(allowed: Sequence[str]) -> Callable[[str | None], str | None]:
    """A typer option callback: the value must be one of ``allowed`` (the names the code defines)."""

    def check(value: str | None) -> str | None:
        if value is not None and value not in allowed:
            raise typer.BadParameter(f"{value!r}: use {', '.join(allowed[:-1])} or {allowed[-1]}")
        return value

    return check


def parse_when(value: str | None, name: str = "time") -> datetime | None:
    """ISO-8601 date or datetime; a value without a timezone is taken as UTC."""
    if value is None:
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise typer.BadParameter(f"{name}: not an ISO-8601 date/time: {value!r} (e.g. 2024-06-01)") from exc
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


class SafeConsole(Console):
    """A rich ``Console`` that never prints a terminal escape sequence found in the data.

    Every text segment is reduced to :func:`~..engine.validation.printable` (ESC, BEL, C1
    controls removed, lone surrogates replaced) just before output; rich's own styles and
    cursor controls (separate segments) are untouched.
    """

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            seg if seg.control else Segment(printable(seg.text), seg.style, seg.control) for seg in buffer
        )


_JSON_UNSAFE = re.compile("[\x7f-\x9f\ud800-\udfff]")


def json_text(data: Any, indent: int | None = None) -> str:
    """``data`` as JSON whose DEL, C1 controls and lone surrogates are ``\\u`` escapes, like the C0
    controls ``json`` escapes itself: what is printed holds no raw escape sequence and always encodes."""
    text = json.dumps(jsonable(data), ensure_ascii=False, indent=indent)
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def jsonable(value: Any) -> Any:
    """Pydantic models, datetimes, tuples and paths as JSON-ready values."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    return value


@dataclass
class Session:
    """What a command works with: the open store and the consoles."""

    ctx: typer.Context
    path: Path | None
    json_out: bool
    out: Console
    err: Console
    _store: NovaStore | None = None
    database_url: str | None = None
    """``--database-url``, when the command takes it (else the environment's or config's, or SQLite)."""

    @property
    def store(self) -> NovaStore:
        """The store, opened on first use (tests inject ``embeddings`` through ``ctx.obj``)."""
        if self._store is None:
            from ..store import NovaStore

            obj = self.ctx.obj if isinstance(self.ctx.obj, dict) else {}
            self._store = NovaStore(self.path, embeddings=obj.get("embeddings"), database_url=self.database_url)
        return self._store

    def emit(self, data: Any, human: Callable[[Console], None] | None = None) -> None:
        """Print ``data`` as JSON (``--json``) or call ``human`` to render it."""
        if self.json_out or human is None:
            typer.echo(json_text(data, indent=None if self.json_out else 2))
        else:
            human(self.out)

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


@contextmanager
def session(ctx: typer.Context, path: Path | None, json_out: bool, *,
            database_url: str | None = None) -> Iterator[Session]:
    """Open (lazily) and always close the store; turn library errors into clean exits."""
    width = 200 if os.environ.get("NOVA_MEMORY_WIDE") else None
    s = Session(ctx, path, json_out, SafeConsole(width=width, highlight=False),
                SafeConsole(stderr=True, width=width, highlight=False), database_url=database_url)
    try:
        yield s
    except (NovaMemoryError, OSError, ValueError) as exc:
        message = str(exc) or type(exc).__name__
        if json_out:
            typer.echo(json.dumps({"error": message, "type": type(exc).__name__}))
        else:
            s.err.print(f"[red]Error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    finally:
        try:
            s.close()
        except NovaMemoryError:  # pragma: no cover - closing is best effort
            pass
