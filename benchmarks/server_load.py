"""``nova-memory serve`` under mixed load: REST writes, recalls and proxy chats of many users at once. One JSON line.

Three processes, as in production: a stand-in OpenAI-compatible upstream (Starlette under
uvicorn on 127.0.0.1; it waits ``--upstream-ms`` per answer and replies ``echo: <latest user
text>`` plus the tenancy markers it found in the system message, i.e. the memory the proxy
injected), ``nova-memory serve`` in front of it over a fresh store, and ``--clients``
concurrent clients here (``httpx.AsyncClient``, keep-alive, one connection each) for
``--duration`` seconds. Each request is, by weight (``--mix``), of one kind:

- ``write``: ``POST /v1/memory/users/{u}/turns`` (one turn);
- ``recall``: ``POST /v1/memory/users/{u}/context``;
- ``chat``: ``POST /v1/chat/completions`` with ``user`` (half of them streamed), so a recall
  into the system message, the upstream call and a capture of both turns;

for one of ``--users`` users, drawn at random. Every sentence carries a marker naming its
user (``⟦user:...⟧``), so a leak shows: a recall or an injected memory of user A that holds a
marker of user B is counted in ``leaks``.

Reported: throughput over the measured window, p50/p95 latency per kind, errors (by status
or exception), and an after-check on the store, reopened once the server has stopped:
every acknowledged write is there under its user, every acknowledged chat left its user
turn and the reply, and no user holds a turn with another user's marker. ``own_memory_seen``
counts the recalls and injected memories that held the user's own marker (the leak check
looks at real memory, not at empty answers). Loopback only,
bounded in time (``--duration``) and count (``--max-requests`` per client).

Timings on a shared machine are noisy: compare runs made back to back.

Usage:
    .venv/bin/python benchmarks/server_load.py [--clients 32] [--duration 60] [--users 8] [--mix 4:3:3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from _common import emit, free_port, generate_queries, generate_turns, log, set_offline_env, stop, summarize, wait_ready

set_offline_env()

KINDS = ("write", "recall", "chat")
MARKER = re.compile(r"⟦user:([a-z0-9-]+)⟧")


def marker(user: str) -> str:
    return f"⟦user:{user}⟧"


def tagged(user: str, text: str) -> str:
    """``text`` with ``user``'s marker before every sentence (recall may quote single sentences)."""
    return f"{marker(user)} " + re.sub(r"([.!?]) +", lambda m: f"{m.group(1)} {marker(user)} ", text)


def reply_for(question: str, seen: list[str]) -> str:
    """The upstream's reply: the question and the markers of every user its system message named."""
    return f"echo: {question} | seen: {' '.join(marker(u) for u in sorted(set(seen)))}"


# -- the upstream ---------------------------------------------------------------------------------
def upstream_app(latency_ms: float) -> Any:
    """A keep-alive OpenAI-compatible stand-in that tells which users' markers its system message held."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    async def chat(request: Request) -> Any:
        body = await request.json()
        messages = body.get("messages", [])
        system = " ".join(m["content"] for m in messages if m.get("role") == "system" and isinstance(m.get("content"), str))
        question = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
        reply = reply_for(question, MARKER.findall(system))
        await asyncio.sleep(latency_ms / 1000)
        if body.get("stream"):
            words = reply.split(" ")

            async def events() -> Any:
                for i, word in enumerate(words):
                    delta = {"role": "assistant", "content": word} if i == 0 else {"content": " " + word}
                    event = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "bench",
                             "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
                    yield f"data: {json.dumps(event, ensure_ascii=False)}\n\n".encode()
                done = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "bench",
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
                yield f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode()

            return StreamingResponse(events(), media_type="text/event-stream")
        return JSONResponse({"id": "c", "object": "chat.completion", "created": 1, "model": "bench",
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant", "content": reply}}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    async def models(request: Request) -> JSONResponse:
        return JSONResponse({"object": "list", "data": [{"id": "bench", "object": "model", "created": 0,
                                                         "owned_by": "bench"}]})

    return Starlette(routes=[Route("/v1/chat/completions", chat, methods=["POST"]), Route("/v1/models", models)])


# -- processes ------------------------------------------------------------------------------------
# -- the load -------------------------------------------------------------------------------------
class Ledger:
    """What the server acknowledged, what each kind took, what went wrong."""

    def __init__(self) -> None:
        self.ms: dict[str, list[float]] = {k: [] for k in KINDS}
        self.errors: Counter[str] = Counter()
        self.errors_by_kind: Counter[str] = Counter()
        self.writes: dict[str, list[str]] = defaultdict(list)  # user -> acknowledged turn texts
        self.chats: dict[str, list[tuple[str, str]]] = defaultdict(list)  # user -> (question, reply)
        self.leaks: Counter[str] = Counter()  # kind -> responses holding another user's marker
        self.own: Counter[str] = Counter()  # kind -> responses holding the user's own marker (the check bites)
        self.wrong_replies = 0
        self.measuring = False

    def fail(self, kind: str, what: str) -> None:
        if self.measuring:
            self.errors[what] += 1
            self.errors_by_kind[kind] += 1


def _leaked(user: str, text: str) -> bool:
    return any(found != user for found in MARKER.findall(text))


async def _chat(client: Any, user: str, question: str, stream: bool) -> tuple[int, str]:
    body = {"model": "bench", "user": user, "stream": stream, "messages": [{"role": "user", "content": question}]}
    if not stream:
        r = await client.post("/v1/chat/completions", json=body)
        if r.status_code != 200:
            return r.status_code, ""
        return 200, r.json()["choices"][0]["message"]["content"]
    parts: list[str] = []
    async with client.stream("POST", "/v1/chat/completions", json=body) as r:
        if r.status_code != 200:
            await r.aread()
            return r.status_code, ""
        async for line in r.aiter_lines():
            if line.startswith("data: ") and line != "data: [DONE]":
                for choice in json.loads(line[6:]).get("choices", []):
                    parts.append(choice.get("delta", {}).get("content") or "")
    return 200, "".join(parts)


async def client_loop(i: int, base: str, users: list[str], weights: list[float], texts: list[str],
                      queries: list[str], ledger: Ledger, stop_at: list[float], max_requests: int) -> None:
    import httpx

    rng = random.Random(1000 + i)
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        for n in range(max_requests):
            if time.monotonic() >= stop_at[0]:
                return
            kind = rng.choices(KINDS, weights)[0]
            user = rng.choice(users)
            measuring = ledger.measuring
            start = time.perf_counter()
            try:
                if kind == "write":
                    text = tagged(user, f"c{i}n{n} {rng.choice(texts)}")
                    r = await client.post(f"/v1/memory/users/{user}/turns", json={"turns": [{"content": text}]})
                    if r.status_code == 200:
                        ledger.writes[user].append(text)
                    status = r.status_code
                elif kind == "recall":
                    r = await client.post(f"/v1/memory/users/{user}/context", json={"query": rng.choice(queries)})
                    status = r.status_code
                    recalled = r.json().get("text", "") if status == 200 else ""
                    ledger.leaks["recall"] += _leaked(user, recalled)
                    ledger.own["recall"] += marker(user) in recalled
                else:
                    question = tagged(user, f"c{i}n{n} {rng.choice(queries)}")
                    status, reply = await _chat(client, user, question, stream=rng.random() < 0.5)
                    if status == 200:
                        ledger.chats[user].append((question, reply))
                        seen = reply.partition(" | seen: ")[2]
                        ledger.leaks["chat"] += _leaked(user, seen)
                        ledger.own["chat"] += marker(user) in seen
                        if not reply.startswith(f"echo: {question} | seen:"):
                            ledger.wrong_replies += 1
            except Exception as exc:  # counted, never fatal: the run goes on
                ledger.fail(kind, type(exc).__name__)
                continue
            elapsed = (time.perf_counter() - start) * 1000
            if status != 200:
                ledger.fail(kind, str(status))
            elif measuring and ledger.measuring:
                ledger.ms[kind].append(elapsed)


async def prime(base: str, user: str, ledger: Ledger) -> None:
    """One request of each kind, in turn, untimed: the server's models are loaded before the clock runs."""
    import httpx

    async with httpx.AsyncClient(base_url=base, timeout=600) as client:
        text = tagged(user, "prime: I water the plants on Sundays.")
        r = await client.post(f"/v1/memory/users/{user}/turns", json={"turns": [{"content": text}]})
        r.raise_for_status()
        ledger.writes[user].append(text)
        r = await client.post(f"/v1/memory/users/{user}/context", json={"query": "When do I water the plants?"})
        r.raise_for_status()
        for stream in (False, True):
            question = tagged(user, f"prime {stream}: when do I water the plants?")
            status, reply = await _chat(client, user, question, stream)
            if status != 200:
                raise RuntimeError(f"the proxy answered {status} while priming")
            ledger.chats[user].append((question, reply))


async def run_load(base: str, args: argparse.Namespace, ledger: Ledger) -> float:
    users = [f"bench-u{u}" for u in range(args.users)]
    weights = [float(w) for w in args.mix.split(":")]
    texts = [text for _, text in generate_turns(400, seed=args.seed)]
    queries = generate_queries(200, seed=args.seed + 1)
    await prime(base, users[0], ledger)
    stop_at = [time.monotonic() + args.warmup + args.duration]
    tasks = [asyncio.create_task(client_loop(i, base, users, weights, texts, queries, ledger, stop_at,
                                             args.max_requests)) for i in range(args.clients)]
    await asyncio.sleep(args.warmup)
    ledger.measuring = True
    start = time.perf_counter()
    await asyncio.gather(*tasks)
    ledger.measuring = False
    return time.perf_counter() - start


def after_check(path: Path, ledger: Ledger, users: list[str]) -> dict[str, int]:
    """The store, reopened: every acknowledged write and chat is there, under its own user only."""
    from nova_memory_integrations import NovaStore

    store = NovaStore(path)
    try:
        missing_writes = missing_chats = crossed = 0
        for user in users:
            contents = [e.content for e in store.episodes(user)]
            held = set(contents)
            missing_writes += sum(1 for text in ledger.writes.get(user, []) if text not in held)
            missing_chats += sum(1 for q, reply in ledger.chats.get(user, []) if q not in held or reply not in held)
            crossed += sum(1 for text in contents if _leaked(user, text.partition(" | seen: ")[0]))
    finally:
        store.close()
    return {"writes_acked": sum(len(v) for v in ledger.writes.values()), "writes_missing": missing_writes,
            "chats_acked": sum(len(v) for v in ledger.chats.values()), "chats_missing": missing_chats,
            "turns_crossed_users": crossed}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=32, help="concurrent clients (one keep-alive connection each)")
    ap.add_argument("--duration", type=float, default=60.0, help="measured seconds")
    ap.add_argument("--warmup", type=float, default=5.0, help="seconds of load before measuring")
    ap.add_argument("--users", type=int, default=8, help="users the requests are spread over")
    ap.add_argument("--mix", default="4:3:3", help="weights of write:recall:chat")
    ap.add_argument("--upstream-ms", type=float, default=20.0, help="the stand-in upstream's time per answer")
    ap.add_argument("--max-requests", type=int, default=100_000, help="bound on requests per client")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--serve-upstream", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if len(args.mix.split(":")) != 3:
        ap.error("--mix takes three weights, write:recall:chat")

    if args.serve_upstream:  # the upstream process
        import uvicorn

        uvicorn.run(upstream_app(args.upstream_ms), host="127.0.0.1", port=args.serve_upstream, log_level="warning",
                    server_header=False)
        return

    ledger = Ledger()
    users = [f"bench-u{u}" for u in range(args.users)]
    procs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mem"
        up_port, port = free_port(), free_port()
        upstream = f"http://127.0.0.1:{up_port}/v1"
        base = f"http://127.0.0.1:{port}"
        try:
            procs.append(subprocess.Popen([sys.executable, __file__, "--serve-upstream", str(up_port),
                                           "--upstream-ms", str(args.upstream_ms)]))
            wait_ready(f"{upstream}/models", procs[0], timeout=180)
            cli = Path(sys.executable).with_name("nova-memory")
            procs.append(subprocess.Popen([str(cli), "serve", "--path", str(path), "--upstream", upstream, "--port",
                                           str(port), "--no-mcp", "--log-level", "warning"], env={**os.environ}))
            wait_ready(f"{base}/health", procs[1], timeout=180)
            log(f"upstream {upstream} ({args.upstream_ms} ms); server {base}; {args.clients} clients, "
                f"{args.users} users, {args.warmup:g} s warm-up + {args.duration:g} s")
            wall = asyncio.run(run_load(base, args, ledger))
        finally:
            for proc in reversed(procs):
                stop(proc, wait=90)
        check = after_check(path, ledger, users)

    counts = {k: len(v) for k, v in ledger.ms.items()}
    total = sum(counts.values())
    by_kind = {k: {"n": counts[k], "rps": round(counts[k] / wall, 2), "errors": ledger.errors_by_kind[k],
                   **{q: summarize(ledger.ms[k])[q] for q in ("p50", "p95")}} for k in KINDS}
    result: dict[str, Any] = {
        "benchmark": "server_load",
        "clients": args.clients, "users": args.users, "duration_s": round(wall, 2), "mix": args.mix,
        "upstream_ms": args.upstream_ms,
        "requests": total, "throughput_rps": round(total / wall, 2),
        "latency_ms": by_kind,
        "errors": sum(ledger.errors.values()), "errors_by_cause": dict(ledger.errors),
        "leaks": {"recall": ledger.leaks["recall"], "chat": ledger.leaks["chat"]},
        "own_memory_seen": {"recall": ledger.own["recall"], "chat": ledger.own["chat"]},
        "wrong_replies": ledger.wrong_replies,
        **check,
    }
    result["ok"] = (not result["errors"] and not ledger.wrong_replies and not sum(ledger.leaks.values())
                    and not check["writes_missing"] and not check["chats_missing"]
                    and not check["turns_crossed_users"])
    log(f"{total} requests in {wall:.1f} s ({result['throughput_rps']} /s), errors {result['errors']}, "
        f"ok {result['ok']}")
    emit(result)


if __name__ == "__main__":
    main()
