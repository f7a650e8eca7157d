"""Capacity benchmark: how many episodes / users one machine serves.

Ingests ``--episodes`` turns spread over ``--users`` users (real MiniLM embeddings, real
SQLite and Chroma in a temp dir), then measures ingest and indexing throughput, search
and context latency at that size, disk use per episode and peak RSS. Prints one JSON line.

    python benchmarks/capacity.py --episodes 5000 --users 100
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from nova_memory_integrations import NovaConfig, NovaStore

TEMPLATES = [
    "I live in {city} and I work at {org}.", "My favourite food is {food}.", "I went hiking near {city} with {name}.",
    "Remind me to call {name} about the {org} contract.", "I started learning {lang} last month.",
    "The meeting with {org} moved to Thursday.", "I like {food} but I am allergic to peanuts.",
    "{name} recommended a book about {lang}.",
]
WORDS = {
    "city": ["Lisbon", "Berlin", "Oslo", "Porto", "Madrid", "Vienna", "Prague", "Dublin"],
    "org": ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark"],
    "food": ["sushi", "ramen", "pizza", "tacos", "falafel", "paella"],
    "name": ["Ana", "Bob", "Chen", "Dara", "Eli", "Farah"],
    "lang": ["Rust", "Portuguese", "Japanese", "Go", "German"],
}
QUERIES = ["where do I live?", "what food do I like?", "who should I call?", "what am I learning?"]


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(q * len(values)))], 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=5000)
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--batch", type=int, default=100, help="turns per add_turns call")
    ap.add_argument("--queries", type=int, default=40)
    args = ap.parse_args()
    rng = random.Random(7)
    t0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
    with tempfile.TemporaryDirectory(prefix="nova-capacity-") as tmp:
        cfg = NovaConfig.from_dict({"retrieval": {"reranker": "fallback"}})
        start = time.perf_counter()
        store = NovaStore(Path(tmp), config=cfg)
        store.components.embedder.embed_query("warm up")
        load_s = time.perf_counter() - start
        turns = []
        for i in range(args.episodes):
            text = rng.choice(TEMPLATES).format(**{k: rng.choice(v) for k, v in WORDS.items()})
            turns.append({"user_id": f"user{i % args.users}", "role": "user", "content": f"{text} (note {i})",
                          "session_id": f"s{i // 20}", "timestamp": t0 + timedelta(minutes=i)})
        start = time.perf_counter()
        for i in range(0, len(turns), args.batch):
            store.add_turns(turns[i : i + args.batch])
        ingest_s = time.perf_counter() - start
        store.flush()
        indexed_s = time.perf_counter() - start
        start = time.perf_counter()
        store.consolidate()
        consolidate_s = time.perf_counter() - start
        search_ms, context_ms = [], []
        for i in range(args.queries):
            user, query = f"user{rng.randrange(args.users)}", QUERIES[i % len(QUERIES)] + f" #{i}"
            s = time.perf_counter()
            store.search(query, user, k=10)
            search_ms.append((time.perf_counter() - s) * 1000)
            s = time.perf_counter()
            store.context(query, user, budget_tokens=500)
            context_ms.append((time.perf_counter() - s) * 1000)
        stats = store.stats()
        store.close()
        disk = sum(p.stat().st_size for p in Path(tmp).rglob("*") if p.is_file())
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({
        "benchmark": "capacity", "episodes": args.episodes, "users": args.users, "facts": stats["facts"],
        "cpus": os.cpu_count(), "python": platform.python_version(), "model_load_s": round(load_s, 2),
        "ingest_turns_per_s": round(args.episodes / ingest_s, 1),
        "indexed_turns_per_s": round(args.episodes / indexed_s, 1),
        "consolidate_episodes_per_s": round(args.episodes / consolidate_s, 1),
        "search_ms_p50": _pct(search_ms, 0.5), "search_ms_p95": _pct(search_ms, 0.95),
        "context_ms_p50": _pct(context_ms, 0.5), "context_ms_p95": _pct(context_ms, 0.95),
        "search_ms_mean": round(statistics.mean(search_ms), 2),
        "disk_bytes": disk, "disk_bytes_per_episode": round(disk / args.episodes),
        "peak_rss_mb": round(rss_kb / 1024 if sys.platform != "darwin" else rss_kb / 1e6, 1),
    }))


if __name__ == "__main__":
    main()
