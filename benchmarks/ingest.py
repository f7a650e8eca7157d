"""Ingest cost of the engine: ``add_turn`` latency on the caller's thread and indexing throughput.

Prints progress on stderr and ONE JSON line (the last line of stdout) with:

- ``add_turn_ms``: p50/p95/mean/max of ``store.add_turn`` on the caller's thread, one
  turn at a time as in a chat (``--latency-samples`` turns; the store is idle between
  turns: each sample waits for the previous turn to be indexed first). Target p50 < 2 ms.
- ``add_turn_under_load_ms``: the same, measured during the throughput run below, while
  the background indexer is embedding the previous turns on the same cores.
- ``ingest_turns_per_s``: ``--turns`` turns recorded with ``add_turn`` one by one and
  embedded with the real all-MiniLM-L6-v2 into Chroma: turns / seconds from the first
  ``add_turn`` until ``store.flush()`` returns. Target >= 250 turns/s on 2 cores.
- ``add_turns_batch_turns_per_s``: the same turns (a second user) recorded through
  ``store.add_turns`` in batches of ``--batch-size``, until ``flush()`` returns.
- ``embed_only_texts_per_s``: the embedder alone on 2,000 of those turns right afterwards,
  and ``ingest_share_of_embed_only``: the ingest rate as a share of it. On a shared or
  throttled machine absolute rates drift between runs; the share does not.

- ``embedding_backend``: the embedder that ran (``onnx-fp32``, ``onnx-int8`` or ``torch``:
  ``--backend auto`` reports ``torch`` if the ONNX path fell back). ``model_load_s`` is
  the warm-up (model export on a fresh data directory, or load).

Turns are realistic and varied (templates + random words, 8-40 words, user/assistant
alternating, sessions of 20 turns; see ``_common.generate_turns``). Everything is
written to a temporary data directory that is removed at the end.

Usage:
    .venv/bin/python benchmarks/ingest.py [--turns 10000] [--latency-samples 500] [--batch-size 100]
        [--backend auto|onnx|torch] [--quantize documents|true|false] [--onnx-threads N] [--embed-batch-size N]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, get_args

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit, generate_turns, log, quantize_arg, set_offline_env, summarize

set_offline_env()

from nova_memory_integrations import NovaConfig, NovaStore  # noqa: E402
from nova_memory_integrations.config import EmbeddingModelName  # noqa: E402

TARGET_ADD_TURN_P50_MS = 2.0
TARGET_TURNS_PER_S = 250.0
SESSION_TURNS = 20


def _add_one_by_one(store: NovaStore, user: str, turns: list[tuple[str, str]]) -> tuple[float, list[float]]:
    """Seconds from the first add_turn until flush() returns, and each add_turn's ms."""
    lat: list[float] = []
    start = time.perf_counter()
    for i, (role, text) in enumerate(turns):
        t0 = time.perf_counter()
        store.add_turn(user, role, text, session_id=f"{user}-s{i // SESSION_TURNS}")
        lat.append((time.perf_counter() - t0) * 1000)
    store.flush()
    return time.perf_counter() - start, lat


def _add_batched(store: NovaStore, user: str, turns: list[tuple[str, str]], batch: int) -> float:
    start = time.perf_counter()
    for b in range(0, len(turns), batch):
        store.add_turns([{"user_id": user, "role": role, "content": text, "session_id": f"{user}-s{(b + j) // SESSION_TURNS}"}
                         for j, (role, text) in enumerate(turns[b:b + batch])])
    store.flush()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000, help="turns per throughput run")
    parser.add_argument("--latency-samples", type=int, default=500, help="add_turn calls timed one at a time")
    parser.add_argument("--batch-size", type=int, default=100, help="turns per add_turns call")
    parser.add_argument("--torch-threads", type=int, default=None,
                        help="embeddings.torch_threads (default: the library default, torch's own)")
    parser.add_argument("--backend", choices=["auto", "onnx", "torch"], default=None,
                        help="embeddings.backend (default: the library default)")
    parser.add_argument("--quantize", type=quantize_arg, default=None, metavar="documents|true|false",
                        help="embeddings.quantize (default: the library default, documents)")
    parser.add_argument("--onnx-threads", type=int, default=None, help="embeddings.onnx_threads")
    parser.add_argument("--embed-batch-size", type=int, default=None, help="embeddings.batch_size")
    parser.add_argument("--embedding-model", choices=get_args(EmbeddingModelName), default=None,
                        help="embeddings.model (default: the library default, all-MiniLM-L6-v2)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.turns < 1 or args.latency_samples < 1 or args.batch_size < 1:
        parser.error("--turns, --latency-samples and --batch-size must be >= 1")

    turns = generate_turns(args.turns + args.latency_samples, seed=args.seed)
    latency_turns, bulk_turns = turns[: args.latency_samples], turns[args.latency_samples:]
    result: dict[str, Any] = {
        "benchmark": "ingest", "turns": args.turns, "latency_samples": args.latency_samples,
        "batch_size": args.batch_size, "cpu_count": os.cpu_count(), "torch_threads": args.torch_threads,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
    }
    with tempfile.TemporaryDirectory(prefix="nova-bench-ingest-") as tmp:
        config = NovaConfig()  # consolidation "manual": ingest measures capture + indexing only
        emb_cfg = config.embeddings
        emb_cfg.torch_threads = args.torch_threads
        for key, value in (("backend", args.backend), ("quantize", args.quantize), ("onnx_threads", args.onnx_threads),
                           ("batch_size", args.embed_batch_size), ("model", args.embedding_model)):
            if value is not None:
                setattr(emb_cfg, key, value)
        result["embeddings"] = {"model": emb_cfg.model, "backend": emb_cfg.backend, "quantize": emb_cfg.quantize,
                                "onnx_threads": emb_cfg.onnx_threads, "batch_size": emb_cfg.batch_size}
        with NovaStore(Path(tmp) / "data", config=config) as store:
            result["indexing"] = {"batch_size": config.indexing.batch_size, "max_wait_ms": config.indexing.max_wait_ms}
            log(f"warming up (loading MiniLM, backend {emb_cfg.backend})...")
            t0 = time.perf_counter()
            store.add_turns([{"user_id": "warmup", "role": r, "content": t} for r, t in generate_turns(8, seed=1)])
            store.flush()
            result["model_load_s"] = round(time.perf_counter() - t0, 2)
            result["embedding_backend"] = getattr(store.components.embedder.inner, "backend", "torch")
            log(f"embedding backend: {result['embedding_backend']}")

            log(f"add_turn latency: {args.latency_samples} turns, one at a time...")
            lat: list[float] = []
            for i, (role, text) in enumerate(latency_turns):
                t0 = time.perf_counter()
                store.add_turn("latency-user", role, text, session_id=f"lat-s{i // SESSION_TURNS}")
                lat.append((time.perf_counter() - t0) * 1000)
                store.flush()  # the store is idle again before the next turn, as between chat turns
            result["add_turn_ms"] = summarize(lat)

            log(f"ingest throughput: {args.turns} turns with add_turn, until flush()...")
            seconds, loaded = _add_one_by_one(store, "ingest-user", bulk_turns)
            result["ingest_seconds"] = round(seconds, 3)
            result["ingest_turns_per_s"] = round(len(bulk_turns) / seconds, 1)
            result["add_turn_under_load_ms"] = summarize(loaded)

            log(f"add_turns batch throughput: {args.turns} turns in batches of {args.batch_size}...")
            seconds = _add_batched(store, "batch-user", bulk_turns, args.batch_size)
            result["add_turns_batch_seconds"] = round(seconds, 3)
            result["add_turns_batch_turns_per_s"] = round(len(bulk_turns) / seconds, 1)
            stats = store.stats()
            result["indexed_episodes"] = stats["episodes"] - stats["pending_index"]

            sample = [text for _, text in bulk_turns[:2000]]
            log(f"the embedding model alone on {len(sample)} of these turns (this machine's speed right now)...")
            t0 = time.perf_counter()
            store.components.embedder.embed_documents(sample)
            result["embed_only_texts_per_s"] = round(len(sample) / (time.perf_counter() - t0), 1)
            result["ingest_share_of_embed_only"] = round(result["ingest_turns_per_s"] / result["embed_only_texts_per_s"], 3)

    p50 = result["add_turn_ms"]["p50"]
    result["targets"] = {"add_turn_p50_ms": TARGET_ADD_TURN_P50_MS, "ingest_turns_per_s": TARGET_TURNS_PER_S}
    result["meets_targets"] = {
        "add_turn_p50_ms": p50 < TARGET_ADD_TURN_P50_MS,
        "ingest_turns_per_s": result["ingest_turns_per_s"] >= TARGET_TURNS_PER_S,
    }
    emit(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
