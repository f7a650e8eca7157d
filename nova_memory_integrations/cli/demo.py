"""The end-to-end demo behind ``nova-memory demo`` / ``python -m nova_memory_integrations demo``.

Three dated sessions with one user are captured, consolidated into bi-temporal facts, a
belief change is answered at two points in time, and the memory context for a new
question is printed with its sources. Offline (the packaged MiniLM model); the data
directory is a fresh temporary one unless ``path`` is given.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

if TYPE_CHECKING:
    from ..config import NovaConfig
    from ..embeddings.base import EmbeddingsLike
    from ..store import NovaStore

__all__ = ["DEMO_USER", "SESSIONS", "QUESTION", "run_demo"]

DEMO_USER = "maya"


def _t(day: str, clock: str) -> datetime:
    return datetime.fromisoformat(f"{day}T{clock}:00+00:00").astimezone(timezone.utc)


SESSIONS: list[tuple[str, list[tuple[str, str, str]]]] = [
    ("2024-03-04", [
        ("09:12", "user", "Hi! I'm Maya. I live in Lisbon and I work at Acme as a data engineer."),
        ("09:12", "assistant", "Nice to meet you, Maya! How can I help today?"),
        ("09:14", "user", "My favourite colour is blue, and I have a dog named Pixel."),
        ("09:15", "user", "I love trail running, especially early in the morning."),
        ("09:15", "assistant", "Noted - morning trail runs with Pixel sound great."),
    ]),
    ("2024-06-12", [
        ("18:40", "user", "Big news: I moved to Berlin last week!"),
        ("18:41", "assistant", "Congratulations on the move! How is Berlin so far?"),
        ("18:43", "user", "I started a new job at Globex as a platform engineer."),
        ("18:45", "user", "I'm allergic to peanuts, so please keep that in mind for food tips."),
    ]),
    ("2024-09-20", [
        ("07:30", "user", "My favourite colour is green now - Berlin's parks changed my mind."),
        ("07:31", "user", "Pixel and I found a great running loop around Tempelhofer Feld."),
        ("07:33", "assistant", "That loop is perfect for an early run."),
    ]),
]
QUESTION = "Where could I go for a run with my dog this Saturday morning?"
_BEFORE, _AFTER = _t("2024-04-01", "12:00"), _t("2024-10-01", "12:00")


@contextmanager
def _data_dir(path: Path | None) -> Iterator[tuple[Path, bool]]:
    if path is not None:
        yield Path(path), False
        return
    with tempfile.TemporaryDirectory(prefix="nova-memory-demo-") as tmp:
        yield Path(tmp), True


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _config(data_dir: Path) -> NovaConfig:
    """The directory's config; without a reranker model, the offline fallback ranker, quietly."""
    from ..config import NovaConfig

    cfg = NovaConfig.from_toml(data_dir / "config.toml") if (data_dir / "config.toml").exists() else NovaConfig()
    if cfg.retrieval.reranker == "auto" and cfg.retrieval.reranker_model_dir is None:
        cfg.retrieval.reranker = "fallback"
    return cfg


def run_demo(
    path: Path | None = None,
    *,
    embeddings: EmbeddingsLike | None = None,
    console: Console | None = None,
    quiet: bool = False,
) -> dict[str, Any]:
    """Run the demo and return what it showed as plain data.

    Args:
        path: data directory to use (its ``maya`` user is reset first); default: a fresh
            temporary directory, removed afterwards.
        embeddings: embeddings to use instead of the packaged MiniLM (tests).
        console: where to print (default: stdout).
        quiet: print nothing (for ``--json``).
    """
    from ..store import NovaStore

    out = console or Console(highlight=False)
    say = (lambda *a, **k: None) if quiet else out.print
    timings: dict[str, float] = {}
    with _data_dir(path) as (data_dir, temporary):
        start = time.perf_counter()
        store = NovaStore(data_dir, embeddings=embeddings, config=_config(data_dir))
        try:
            store.warm_up()  # load the model before the clock starts
            timings["model_load_s"] = round(time.perf_counter() - start, 2)
            start = time.perf_counter()
            result = _run(store, say, data_dir, temporary)
        finally:
            store.close()
        timings["demo_s"] = round(time.perf_counter() - start, 2)
    say(f"[dim]model load {timings['model_load_s']} s, demo {timings['demo_s']} s[/dim]")
    result["timings"] = timings
    return result


def _run(store: NovaStore, say: Any, data_dir: Path, temporary: bool) -> dict[str, Any]:
    store.forget(DEMO_USER)
    where = f"{data_dir} (temporary; pass --path to keep it)" if temporary else str(data_dir)
    say(Panel.fit(f"nova-memory demo - user [bold]{DEMO_USER}[/bold], data dir {escape(where)}"))

    say("[bold]1. Capture[/bold] three conversations, months apart")
    turns = [
        {"user_id": DEMO_USER, "role": role, "content": text, "session_id": f"session-{n}",
         "timestamp": _t(day, clock)}
        for n, (day, session) in enumerate(SESSIONS, 1) for clock, role, text in session
    ]
    episodes = store.add_turns(turns)
    for ep in episodes:
        say(f"  {ep.timestamp:%Y-%m-%d %H:%M} [{ep.session_id}] {ep.role:>9}: {escape(ep.content)}")

    say("\n[bold]2. Consolidate[/bold] episodes into bi-temporal facts")
    res = store.consolidate(DEMO_USER)
    table = Table("op", "fact", "why", box=None, pad_edge=False)
    for d in res.decisions:
        if d.op != "NOOP":
            table.add_row(d.op, escape(f"{d.subject} {d.predicate} {d.object}"), escape(d.reason))
    say(table)
    say(f"  {res.added} added, {res.updated} updated, {res.invalidated} invalidated, {res.noop} unchanged")

    say("\n[bold]3. A belief change[/bold], answered at two points in time")
    answers: dict[str, dict[str, list[str]]] = {}
    for label, moment in (("before", _BEFORE), ("after", _AFTER)):
        answers[label] = {}
        for predicate in ("lives_in", "works_at", "favorite_color"):
            values = [f.object for f in store.facts(DEMO_USER, predicate=predicate, as_of=moment)]
            answers[label][predicate] = values
        say(f"  as of {moment:%Y-%m-%d}: lives in {', '.join(answers[label]['lives_in']) or '?'}, works at "
            f"{', '.join(answers[label]['works_at']) or '?'}, favourite colour "
            f"{', '.join(answers[label]['favorite_color']) or '?'}")
    timeline = store.facts(DEMO_USER, predicate="lives_in", include_history=True)
    for f in timeline:
        until = f"{f.valid_to:%Y-%m-%d}" if f.valid_to else "now"
        say(f"  timeline: lives_in {f.object} valid {f.valid_from:%Y-%m-%d} -> {until}"
            f" (from episodes {', '.join(p[:10] for p in f.provenance)})")

    store.add_rule(DEMO_USER, "user asks for food or restaurant tips", "never suggest anything with peanuts")

    say(f"\n[bold]4. Recall[/bold] for a new question: {escape(QUESTION)!s}")
    ctx = store.context(QUESTION, DEMO_USER, budget_tokens=300)
    say(Panel(escape(ctx.text), title=f"memory context ({ctx.tokens}/{ctx.budget_tokens} tokens)"))
    src = Table("kind", "when", "score", "source", box=None, pad_edge=False)
    for item in ctx.sources:
        when = item.timestamp or item.valid_from
        label = f"{item.session_id} " if item.session_id else ""
        src.add_row(item.kind, f"{when:%Y-%m-%d}" if when else "", f"{item.score:.3f}",
                    escape(f"{label}{item.id}: {item.text[:70]}"))
    say(src)
    return {
        "data_dir": str(data_dir),
        "episodes": len(episodes),
        "consolidation": {"added": res.added, "updated": res.updated, "invalidated": res.invalidated,
                          "noop": res.noop},
        "as_of": {"before": {"at": _BEFORE.isoformat(), **answers["before"]},
                  "after": {"at": _AFTER.isoformat(), **answers["after"]}},
        "timeline": [{"object": f.object, "valid_from": f.valid_from.isoformat(),
                      "valid_to": f.valid_to.isoformat() if f.valid_to else None} for f in timeline],
        "question": QUESTION,
        "context": ctx.text,
        "sources": [{"kind": i.kind, "id": i.id, "text": i.text, "score": i.score,
                     "timestamp": _iso(i.timestamp or i.valid_from), "session_id": i.session_id}
                    for i in ctx.sources],
    }
