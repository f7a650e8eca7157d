"""``nova-memory config show``, ``fact add`` / ``fact invalidate`` and ``merge-entities``."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..config import NovaConfig, default_home, load_config, model_cache_dir
from ._common import JsonOpt, PathOpt, UserOpt, parse_when, session

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["config_app", "config_rows", "fact_app", "merge_entities_cmd"]

config_app = typer.Typer(help="The effective configuration of a data directory.", no_args_is_help=True)
fact_app = typer.Typer(help="Assert or invalidate one fact of a user by hand.", no_args_is_help=True)

_OFFLINE = ("NOVA_MEMORY_OFFLINE", "HF_HUB_OFFLINE")
_TRUE = ("1", "true", "yes", "on")


def _flatten(data: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, dict) and not prefix:  # sections only: values that are tables stay whole
            out.update(_flatten(value, f"{key}."))
        else:
            out[prefix + key] = value
    return out


def config_rows(path: Path | None) -> tuple[Path, Path, list[dict[str, Any]]]:
    """The data directory, its config file, and one row per setting: value, source and origin.

    Sources: ``cli flag``, ``environment``, ``config.toml`` or ``default``. ``load_config`` never
    reads environment variables itself; the rows show the variables that decide a value the
    engine resolves later (the data directory, model cache, reranker URL, offline switch).
    """
    env_home = os.environ.get("NOVA_MEMORY_HOME")
    data_dir = Path(path).expanduser() if path is not None else default_home()
    rows: list[dict[str, Any]] = [{
        "key": "data_dir", "value": str(data_dir),
        **({"source": "cli flag", "origin": "--path"} if path is not None else
           {"source": "environment", "origin": "NOVA_MEMORY_HOME"} if env_home else
           {"source": "default", "origin": None}),
    }]
    file = data_dir / "config.toml"
    cfg = load_config(None, data_dir)
    given: dict[str, Any] = {}
    if file.exists():
        with open(file, "rb") as fh:
            given = _flatten(tomllib.load(fh))
    defaults = _flatten(NovaConfig().model_dump(mode="json"))
    for key, value in _flatten(cfg.model_dump(mode="json")).items():
        if key in given:
            rows.append({"key": key, "value": value, "source": "config.toml", "origin": str(file)})
        else:
            rows.append({"key": key, "value": value, "source": "default", "origin": None,
                         **({} if value == defaults.get(key) else {"note": "differs from the default"})})
    by_key = {r["key"]: r for r in rows}

    def from_env(key: str, value: Any, var: str) -> None:
        row = by_key[key]
        row.update(value=value, source="environment", origin=var, configured=row["value"])

    if not cfg.embeddings.model_cache_dir:
        for var in ("NOVA_MEMORY_MODEL_CACHE", "XDG_CACHE_HOME"):
            if os.environ.get(var):
                from_env("embeddings.model_cache_dir", str(model_cache_dir(None)), var)
                break
        else:
            by_key["embeddings.model_cache_dir"]["value"] = str(model_cache_dir(None))
    if not cfg.retrieval.reranker_url and os.environ.get("NOVA_MEMORY_MODEL_URL"):
        from_env("retrieval.reranker_url", os.environ["NOVA_MEMORY_MODEL_URL"], "NOVA_MEMORY_MODEL_URL")
    for var in _OFFLINE:
        if os.environ.get(var, "").strip().lower() in _TRUE:
            from_env("retrieval.reranker_fetch", False, var)
            break
    return data_dir, file, rows


@config_app.command("show")
def config_show(
    ctx: typer.Context,
    key: Annotated[str | None, typer.Argument(help="Only settings whose key starts with this (e.g. retrieval).")
                   ] = None,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Every effective setting and where it came from: default, config.toml, environment or CLI flag."""
    with session(ctx, path, json_out) as s:  # reads the config only: the store is never opened
        data_dir, file, rows = config_rows(path)
        if key is not None:
            rows = [r for r in rows if r["key"] == key or r["key"].startswith(key.rstrip(".") + ".")]
            if not rows:
                raise typer.BadParameter(f"no setting {key!r} (e.g. retrieval, embeddings.backend)",
                                         param_hint="KEY")

        def human(c: Console) -> None:
            c.print(f"data dir {escape(str(data_dir))}; config file {escape(str(file))}"
                    f"{'' if file.exists() else ' (absent: defaults)'}")
            t = Table("setting", "value", "source", box=None, pad_edge=False)
            for r in rows:
                origin = f" ({r['origin']})" if r["origin"] and r["source"] != "config.toml" else ""
                t.add_row(r["key"], escape(repr(r["value"]) if isinstance(r["value"], str) else str(r["value"])),
                          escape(r["source"] + origin))
            c.print(t)

        s.emit({"data_dir": data_dir, "config_file": file, "config_file_exists": file.exists(), "settings": rows},
               human)


@fact_app.command("add")
def fact_add(
    ctx: typer.Context,
    subject: Annotated[str, typer.Argument(help="Who or what the fact is about (e.g. user).")],
    predicate: Annotated[str, typer.Argument(help="The relation (e.g. lives_in).")],
    obj: Annotated[str, typer.Argument(metavar="OBJECT", help="The value (e.g. Berlin).")],
    user: UserOpt,
    valid_from: Annotated[str | None, typer.Option("--valid-from", help="Event time it holds from (default now).")
                          ] = None,
    confidence: Annotated[float | None, typer.Option(min=0.0, max=1.0, help="0..1 (default from config).")] = None,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Assert a fact: cardinality rules apply (a single-valued predicate supersedes its value)."""
    when = parse_when(valid_from, "--valid-from")
    with session(ctx, path, json_out) as s:
        decision = s.store.add_fact(user, subject, predicate, obj, valid_from=when, confidence=confidence)
        s.emit({"user_id": user, "decision": decision},
               lambda c: c.print(f"{decision.op} {escape(decision.subject)} {decision.predicate} "
                                 f"{escape(decision.object)} -> {decision.fact_id}"
                                 + (f" (replaced {decision.replaced_fact_id})" if decision.replaced_fact_id else "")))


@fact_app.command("invalidate")
def fact_invalidate(
    ctx: typer.Context,
    fact_id: Annotated[str, typer.Argument(metavar="FACT_ID", help="A current fact id of the user.")],
    user: UserOpt,
    at: Annotated[str | None, typer.Option("--at", help="Event time it stops holding (default now).")] = None,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Close a fact's validity (history keeps every version)."""
    when = parse_when(at, "--at")
    with session(ctx, path, json_out) as s:
        decision = s.store.invalidate_fact(user, fact_id, at=when, reason="invalidated with the CLI")
        s.emit({"user_id": user, "decision": decision},
               lambda c: c.print(f"invalidated {fact_id}: {escape(decision.subject)} {decision.predicate} "
                                 f"{escape(decision.object)} (closed version {decision.fact_id})"))


def merge_entities_cmd(
    ctx: typer.Context,
    keep: Annotated[str, typer.Argument(metavar="A", help="The entity to keep (its canonical name stays).")],
    merge: Annotated[str, typer.Argument(metavar="B", help="The entity merged into A.")],
    user: UserOpt,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Merge entity B into A: the user's current facts naming B are rewritten to name A."""
    from ..maintenance.entity_merge import merge_entities

    with session(ctx, path, json_out) as s:
        result = merge_entities(s.store.components, user, keep, merge)
        data = {"user_id": result.user_id, "kept": result.kept, "merged": result.merged,
                "merged_aliases": result.merged_aliases, "rewritten": result.rewritten,
                "reinforced": result.reinforced}
        s.emit(data, lambda c: c.print(
            f"merged {escape(result.merged)!r} into {escape(result.kept)!r}: {len(result.rewritten)} facts rewritten"
            + (f", {len(result.reinforced)} duplicates reinforced" if result.reinforced else "")))
