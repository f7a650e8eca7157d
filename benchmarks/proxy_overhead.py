"""Added latency of the memory proxy versus talking to the same upstream directly. One JSON line.

A real uvicorn server (``nova-memory serve``'s app) over a real store (SQLite, Chroma,
default MiniLM embeddings) prefilled with ``--prefill`` generated turns of one user, in
front of a local OpenAI-compatible upstream (``tests/server_harness.FakeUpstream``, which
answers at once). Timed per request with an ``httpx`` client, interleaved round-robin so
load drifts hit every path alike:

- ``direct``: the upstream itself (non-streaming);
- ``passthrough``: through the proxy without a user (no memory: pure proxy cost);
- ``memory``: through the proxy with the user (recall into the system message, capture);
- ``ttfb_direct`` / ``ttfb_memory``: time to the first streamed byte, ``stream: true``.

Each memory request asks a different question (``_common.generate_queries``: no cache
hit). Ratios are of medians to ``direct``; ``recall_ms`` is the median of
``store.context`` alone for the same kind of question, so ``memory - recall`` is the
proxy's own share. The stand-in upstream closes every connection (HTTP/1.0), so ``direct``
pays a TCP connect per request that the client's keep-alive to the proxy does not: the
``passthrough`` ratio can come out below 1; the upstream is what is measured against.

Usage:
    .venv/bin/python benchmarks/proxy_overhead.py [--requests 40] [--prefill 400]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import emit, generate_queries, generate_turns, log, set_offline_env, summarize

set_offline_env()
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import httpx  # noqa: E402
from server_harness import FakeUpstream, ServerThread  # noqa: E402

from nova_memory_integrations import NovaStore  # noqa: E402
from nova_memory_integrations.server import ServerConfig, create_app  # noqa: E402


def _post(client: httpx.Client, url: str, body: dict[str, object]) -> float:
    start = time.perf_counter()
    r = client.post(url, json=body)
    r.raise_for_status()
    return (time.perf_counter() - start) * 1000


def _ttfb(client: httpx.Client, url: str, body: dict[str, object]) -> float:
    start = time.perf_counter()
    with client.stream("POST", url, json={**body, "stream": True}) as r:
        r.raise_for_status()
        chunks = r.iter_raw()
        next(chunks)
        first = (time.perf_counter() - start) * 1000
        for _ in chunks:
            pass
    return first


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=40, help="timed requests per path")
    ap.add_argument("--prefill", type=int, default=400, help="turns stored for the user first")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        store = NovaStore(Path(tmp) / "mem")
        user = "bench-user"
        store.add_turns([{"user_id": user, "role": role, "content": text}
                         for role, text in generate_turns(args.prefill)])
        store.flush()
        store.warm_up()
        upstream = FakeUpstream().start()
        server = ServerThread(create_app(store, ServerConfig(upstream=upstream.base_url, mcp=False))).start()
        log(f"store prefilled with {args.prefill} turns; proxy at {server.url}, upstream at {upstream.base_url}")
        queries = generate_queries(args.requests * 3 + 10)
        recall = []
        for q in queries[:5]:  # warm-up of every path
            store.context(q, user)
        times: dict[str, list[float]] = {k: [] for k in ("direct", "passthrough", "memory", "ttfb_direct",
                                                         "ttfb_memory")}
        direct = f"{upstream.base_url}/chat/completions"
        proxied = f"{server.url}/v1/chat/completions"
        try:
            with httpx.Client(timeout=60) as client:
                for i in range(args.requests):
                    q, q2, q3 = queries[5 + 3 * i: 8 + 3 * i]
                    body = {"model": "echo", "messages": [{"role": "user", "content": q}]}
                    times["direct"].append(_post(client, direct, body))
                    times["passthrough"].append(_post(client, proxied, body))
                    times["memory"].append(_post(client, proxied, {**body, "user": user}))
                    body2 = {"model": "echo", "messages": [{"role": "user", "content": q2}]}
                    times["ttfb_direct"].append(_ttfb(client, direct, body2))
                    times["ttfb_memory"].append(_ttfb(client, proxied, {**body2, "user": user}))
                    start = time.perf_counter()
                    store.context(q3, user)
                    recall.append((time.perf_counter() - start) * 1000)
        finally:
            server.stop()
            upstream.stop()
            store.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    result = {
        "benchmark": "proxy_overhead",
        "requests": args.requests,
        "prefill": args.prefill,
        "ms": {k: summarize(v) for k, v in times.items()},
        "recall_ms": summarize(recall),
        "ratio_passthrough": round(med["passthrough"] / med["direct"], 2),
        "ratio_memory": round(med["memory"] / med["direct"], 2),
        "ratio_ttfb_memory": round(med["ttfb_memory"] / med["ttfb_direct"], 2),
        "memory_minus_recall_ms": round(med["memory"] - statistics.median(recall), 3),
    }
    log(json.dumps({k: result[k] for k in ("ratio_passthrough", "ratio_memory", "ratio_ttfb_memory",
                                          "memory_minus_recall_ms")}))
    emit(result)


if __name__ == "__main__":
    main()
