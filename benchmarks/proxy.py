"""The memory proxy against talking to the same upstream directly, in the same run. One JSON line.

Three processes, as in production: a stand-in OpenAI-compatible upstream (Starlette under
uvicorn, keep-alive, streaming; it sleeps ``--latency-ms`` before a plain answer and
``--ttft-ms`` before the first streamed event, then sends ``--tokens`` events
``--token-ms`` apart), ``nova-memory serve`` in front of it over a store prefilled with
``--prefill`` generated turns of one user, and the clients here.

Per run (``--runs``, medians over runs reported), interleaved round-robin so load drift
hits every path alike:

- latency, non-streaming (``httpx``, keep-alive): ``direct`` (the upstream), ``pass``
  (the proxy without a user: pure proxy cost), ``memory`` (with the user: recall into the
  system message + capture). Every memory request asks a different question.
- time to first byte, streaming: ``ttfb_direct``, ``ttfb_memory`` (first body chunk).
- concurrency: ``--clients`` concurrent users, each an ``openai.AsyncOpenAI`` client
  streaming ``--turns`` turns of one session through the proxy (and the same against the
  upstream directly); every reply reassembled from its chunks must equal what the
  upstream sent.

After the server stops, the store is opened again: every exchange of the concurrency
phase must be there (user + assistant turns, exact text, none marked incomplete), and
``recall_ms`` is ``store.context`` alone on the same store for the same kind of question.
The target (#16) is ``proxied - recall <= 1.2 x direct`` at p50 and p95, non-streaming and
time to first byte: ``overhead_ratio_*`` below. ``added_ms`` is the absolute cost.

Usage:
    .venv/bin/python benchmarks/proxy.py [--runs 3] [--requests 30] [--clients 50] [--latency-ms 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import (
    emit,
    free_port,
    generate_queries,
    generate_turns,
    log,
    percentile,
    set_offline_env,
    stop,
    summarize,
    wait_ready,
)

set_offline_env()

WORDS = ("memory", "proxy", "stream", "βeta", "naïve", "日本", "chunk", "reply", "😀", "delta")


def reply_for(question: str, tokens: int) -> list[str]:
    """The upstream's reply to ``question``, as the pieces it streams (multi-byte text included)."""
    words = [f"echo: {question} |"] + [WORDS[i % len(WORDS)] for i in range(tokens)]
    return [w if i == 0 else " " + w for i, w in enumerate(words)]


def _last_user(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            return str(m["content"])
    return ""


def upstream_app(latency_ms: float, ttft_ms: float, token_ms: float, tokens: int) -> Any:
    """A keep-alive OpenAI-compatible stand-in: deterministic replies, simulated model time."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    def chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
        event = {"id": "chatcmpl-b", "object": "chat.completion.chunk", "created": 1, "model": model,
                 "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode()

    async def chat(request: Request) -> Any:
        body = await request.json()
        model = str(body.get("model", "bench"))
        pieces = reply_for(_last_user(body.get("messages", [])), tokens)
        if body.get("stream"):
            async def events() -> Any:
                await asyncio.sleep(ttft_ms / 1000)
                yield chunk(model, {"role": "assistant", "content": pieces[0]})
                for piece in pieces[1:]:
                    if token_ms:
                        await asyncio.sleep(token_ms / 1000)
                    yield chunk(model, {"content": piece})
                yield chunk(model, {}, "stop") + b"data: [DONE]\n\n"

            return StreamingResponse(events(), media_type="text/event-stream")
        await asyncio.sleep(latency_ms / 1000)
        return JSONResponse({"id": "chatcmpl-b", "object": "chat.completion", "created": 1, "model": model,
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": "".join(pieces)}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": tokens, "total_tokens": tokens + 1}})

    async def models(request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": "bench", "object": "model", "created": 0,
                                                         "owned_by": "bench"}]})

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/v1/models", models)])


# -- phases ------------------------------------------------------------------------------------
def latency_phase(direct: str, proxied: str, user: str, queries: list[str], tokens: int) -> dict[str, list[float]]:
    import httpx

    times: dict[str, list[float]] = {k: [] for k in ("direct", "pass", "memory", "ttfb_direct", "ttfb_memory")}

    def post(client: httpx.Client, url: str, body: dict[str, Any]) -> float:
        start = time.perf_counter()
        r = client.post(url, json=body)
        r.raise_for_status()
        elapsed = (time.perf_counter() - start) * 1000
        expected = "".join(reply_for(body["messages"][-1]["content"], tokens))
        if r.json()["choices"][0]["message"]["content"] != expected:
            raise AssertionError("a non-streaming reply differs from what the upstream sent")
        return elapsed

    def ttfb(client: httpx.Client, url: str, body: dict[str, Any]) -> float:
        start = time.perf_counter()
        with client.stream("POST", url, json={**body, "stream": True}) as r:
            r.raise_for_status()
            chunks = r.iter_raw()
            next(chunks)
            first = (time.perf_counter() - start) * 1000
            for _ in chunks:
                pass
        return first

    with httpx.Client(timeout=60) as d, httpx.Client(timeout=60) as p:
        for i in range(len(queries) // 2):
            q, q2 = queries[2 * i], queries[2 * i + 1]
            body = {"model": "bench", "messages": [{"role": "user", "content": q}]}
            times["direct"].append(post(d, direct, body))
            times["pass"].append(post(p, proxied, body))
            times["memory"].append(post(p, proxied, {**body, "user": user}))
            body2 = {"model": "bench", "messages": [{"role": "user", "content": q2}]}
            times["ttfb_direct"].append(ttfb(d, direct, body2))
            times["ttfb_memory"].append(ttfb(p, proxied, {**body2, "user": user}))
    return times


async def concurrency_phase(base_url: str, prefix: str, clients: int, turns: int, tokens: int) -> dict[str, Any]:
    """``clients`` users at once, each streaming ``turns`` turns of one session; replies checked."""
    import openai

    ttfbs: list[float] = []
    garbled: list[str] = []

    async def converse(i: int) -> None:
        user = f"{prefix}-{i}"
        client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0, timeout=120)
        try:
            history: list[dict[str, str]] = []
            for t in range(turns):
                question = f"{user} turn {t}: what did I say about the {WORDS[(i + t) % len(WORDS)]}?"
                history.append({"role": "user", "content": question})
                start = time.perf_counter()
                stream = await client.chat.completions.create(
                    model="bench", user=user, stream=True, messages=history,
                    extra_headers={"X-Nova-Session": f"{user}-s"})
                parts: list[str] = []
                async for event in stream:
                    if event.choices and event.choices[0].delta.content:
                        if not parts:
                            ttfbs.append((time.perf_counter() - start) * 1000)
                        parts.append(event.choices[0].delta.content)
                text = "".join(parts)
                if text != "".join(reply_for(question, tokens)):
                    garbled.append(user)
                history.append({"role": "assistant", "content": text})
        finally:
            await client.close()

    start = time.perf_counter()
    await asyncio.gather(*(converse(i) for i in range(clients)))
    return {"wall_s": time.perf_counter() - start, "ttfb": ttfbs, "garbled": garbled}


def check_captures(store: Any, prefixes: list[str], clients: int, turns: int, tokens: int) -> dict[str, int]:
    """Every exchange of the concurrency phase is in the store, exactly as the upstream sent it."""
    found = missing = wrong = incomplete = 0
    for prefix in prefixes:
        for i in range(clients):
            user = f"{prefix}-{i}"
            episodes = store.episodes(user, session_id=f"{user}-s")
            expected = []
            for t in range(turns):
                question = f"{user} turn {t}: what did I say about the {WORDS[(i + t) % len(WORDS)]}?"
                expected += [("user", question), ("assistant", "".join(reply_for(question, tokens)))]
            got = [(e.role, e.content) for e in episodes]
            found += len(got) // 2
            missing += max(0, len(expected) - len(got)) // 2
            wrong += sum(1 for e in expected if e not in got)
            incomplete += sum(1 for e in episodes if e.metadata.get("incomplete"))
    return {"exchanges_captured": found, "exchanges_missing": missing, "turns_wrong": wrong,
            "turns_incomplete": incomplete}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="measurement runs (medians over runs are reported)")
    ap.add_argument("--requests", type=int, default=30, help="timed requests per path and run")
    ap.add_argument("--clients", type=int, default=50, help="concurrent streaming clients")
    ap.add_argument("--turns", type=int, default=2, help="turns per concurrent client (one session)")
    ap.add_argument("--prefill", type=int, default=400, help="turns stored for the latency user first")
    ap.add_argument("--latency-ms", type=float, default=100.0, help="upstream time for a plain answer")
    ap.add_argument("--ttft-ms", type=float, default=100.0, help="upstream time to the first streamed event")
    ap.add_argument("--token-ms", type=float, default=5.0, help="upstream time between streamed events")
    ap.add_argument("--tokens", type=int, default=30, help="words per reply")
    ap.add_argument("--serve-upstream", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.serve_upstream:  # the upstream process
        import uvicorn

        uvicorn.run(upstream_app(args.latency_ms, args.ttft_ms, args.token_ms, args.tokens), host="127.0.0.1",
                    port=args.serve_upstream, log_level="warning", server_header=False)
        return

    from nova_memory_integrations import NovaStore

    user = "bench-user"
    runs: list[dict[str, Any]] = []
    procs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mem"
        store = NovaStore(path)
        store.add_turns([{"user_id": user, "role": role, "content": text}
                         for role, text in generate_turns(args.prefill)])
        store.flush()
        store.close()
        up_port, proxy_port = free_port(), free_port()
        upstream = f"http://127.0.0.1:{up_port}/v1"
        proxy = f"http://127.0.0.1:{proxy_port}/v1"
        try:
            procs.append(subprocess.Popen(
                [sys.executable, __file__, "--serve-upstream", str(up_port), "--latency-ms", str(args.latency_ms),
                 "--ttft-ms", str(args.ttft_ms), "--token-ms", str(args.token_ms), "--tokens", str(args.tokens)]))
            wait_ready(f"{upstream}/models", procs[0])
            cli = Path(sys.executable).with_name("nova-memory")
            procs.append(subprocess.Popen(
                [str(cli), "serve", "--path", str(path), "--upstream", upstream, "--port", str(proxy_port),
                 "--no-mcp", "--log-level", "warning"], env={**os.environ}))
            wait_ready(f"{proxy}/models", procs[1])
            log(f"upstream {upstream} (latency {args.latency_ms} ms, ttft {args.ttft_ms} ms); proxy {proxy}")
            queries = generate_queries(2 * args.requests * (args.runs + 1))
            latency_phase(f"{upstream}/chat/completions", f"{proxy}/chat/completions", user,
                          queries[: 2 * args.requests][:10], args.tokens)  # warm-up of every path
            for base in (upstream, proxy):  # and of the async client (imports, first connections)
                asyncio.run(concurrency_phase(base, "warm-up", 4, 1, args.tokens))
            for r in range(args.runs):
                qs = queries[2 * args.requests * (r + 1): 2 * args.requests * (r + 2)]
                times = latency_phase(f"{upstream}/chat/completions", f"{proxy}/chat/completions", user, qs,
                                      args.tokens)
                conc_direct = asyncio.run(concurrency_phase(upstream, f"d{r}", args.clients, args.turns, args.tokens))
                conc_proxy = asyncio.run(concurrency_phase(proxy, f"c{r}", args.clients, args.turns, args.tokens))
                runs.append({"times": times, "direct": conc_direct, "proxy": conc_proxy})
                log(f"run {r + 1}/{args.runs}: memory p50 {percentile(times['memory'], 50):.1f} ms vs direct "
                    f"{percentile(times['direct'], 50):.1f} ms; {args.clients} clients in "
                    f"{conc_proxy['wall_s']:.2f} s (direct {conc_direct['wall_s']:.2f} s)")
        finally:
            for proc in reversed(procs):
                stop(proc)
        store = NovaStore(path)  # the server has exited and released the data directory
        try:
            captures = check_captures(store, [f"c{r}" for r in range(args.runs)], args.clients, args.turns,
                                      args.tokens)
            direct_leaks = sum(len(store.episodes(f"d{r}-{i}")) for r in range(args.runs) for i in range(args.clients))
            recall: list[float] = []
            for q in queries[:40]:
                start = time.perf_counter()
                store.context(q, user)
                recall.append((time.perf_counter() - start) * 1000)
            recall = recall[5:]  # the first ones warm the model up
        finally:
            store.close()

    rec = {"p50": percentile(recall, 50), "p95": percentile(recall, 95)}

    def med(fn: Any) -> float:
        return round(statistics.median(fn(run) for run in runs), 3)

    def pct(run: dict[str, Any], key: str, q: float) -> float:
        return percentile(run["times"][key], q)

    result: dict[str, Any] = {
        "benchmark": "proxy",
        "runs": args.runs, "requests": args.requests, "clients": args.clients, "turns": args.turns,
        "prefill": args.prefill,
        "upstream": {"latency_ms": args.latency_ms, "ttft_ms": args.ttft_ms, "token_ms": args.token_ms,
                     "tokens": args.tokens},
        "recall_ms": summarize(recall),
        "ms": {k: {"p50": med(lambda run, k=k: pct(run, k, 50)), "p95": med(lambda run, k=k: pct(run, k, 95))}
               for k in ("direct", "pass", "memory", "ttfb_direct", "ttfb_memory")},
        "added_ms": {q: med(lambda run, q=q: pct(run, "memory", q) - pct(run, "direct", q)) for q in (50, 95)},
        "ratio_pass": {q: med(lambda run, q=q: pct(run, "pass", q) / pct(run, "direct", q)) for q in (50, 95)},
        # target <= 1.2: (proxied - recall) / direct
        "overhead_ratio": {q: med(lambda run, q=q: (pct(run, "memory", q) - rec[f"p{q}"]) / pct(run, "direct", q))
                           for q in (50, 95)},
        "overhead_ratio_ttfb": {q: med(lambda run, q=q: (pct(run, "ttfb_memory", q) - rec[f"p{q}"])
                                       / pct(run, "ttfb_direct", q)) for q in (50, 95)},
        "concurrent": {
            "wall_s_direct": med(lambda run: run["direct"]["wall_s"]),
            "wall_s_proxy": med(lambda run: run["proxy"]["wall_s"]),
            "ttfb_ms_direct": {q: med(lambda run, q=q: percentile(run["direct"]["ttfb"], q)) for q in (50, 95)},
            "ttfb_ms_proxy": {q: med(lambda run, q=q: percentile(run["proxy"]["ttfb"], q)) for q in (50, 95)},
            "exchanges_sent": args.runs * args.clients * args.turns,
            **captures,
            "garbled_replies": sum(len(run["proxy"]["garbled"]) + len(run["direct"]["garbled"]) for run in runs),
            "direct_users_in_store": direct_leaks,
        },
    }
    result["concurrent"]["ok"] = (captures["exchanges_captured"] == result["concurrent"]["exchanges_sent"]
                                  and not captures["turns_wrong"] and not captures["turns_incomplete"]
                                  and not result["concurrent"]["garbled_replies"])
    result["target_met"] = all(v <= 1.2 for v in (*result["overhead_ratio"].values(),
                                                   *result["overhead_ratio_ttfb"].values()))
    emit(result)


if __name__ == "__main__":
    main()
