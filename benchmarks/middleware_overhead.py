"""NovaMemory's own overhead per agent turn, excluding the model. Prints one JSON line.

Two paths are timed by calling the middleware hooks directly (what ``create_agent`` calls
around every model call), on a real store (SQLite, Chroma, MiniLM) prefilled with a
generated conversation history (``_common.generate_turns``; questions from
``_common.generate_queries``):

- capture: ``after_model`` recording the turn's user and assistant messages
  (``store.add_turns``: SQLite insert; the embedding is done by the store's background
  indexer and consolidation by its background worker, as with ``consolidation="background"``);
- injection: ``wrap_model_call`` with a model handler that returns at once: recall of
  the memory context for a new user message (query embedding, hybrid retrieval, rerank,
  budgeted assembly) and the system-prompt rewrite. Each turn asks a different question
  (no cache hit); ``injection_cached`` is a second model call of the same turn (tool loop).
- event-loop lag: while ``awrap_model_call`` recalls (new question each time), a ticker
  coroutine sleeps 5 ms in a loop and records how late each wake-up is. A run is
  ``--lag-calls`` recalls; its figure is the worst wake-up delay divided by the median
  recall time of the run (1.0: the loop was blocked for a whole recall; near 0: it kept
  ticking). ``loop_lag_async`` is the middleware's own ``awrap_model_call`` (engine in a
  worker thread); ``loop_lag_inline`` runs the same recall inline in the coroutine
  (``wrap_model_call`` called from ``async def``), which is what ``awrap_model_call`` did
  before #15 (engine on the event loop): the before/after pair, measured in one run.
  Medians over ``--lag-runs`` runs, inline and async interleaved.

Usage:
    .venv/bin/python benchmarks/middleware_overhead.py [--turns 200] [--prefill 600] [--lag-runs 5]

Progress goes to stderr; stdout is one JSON line (p50/p95/mean/max in ms per path).
Target: capture p50 under 5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit, generate_queries, generate_turns, log, set_offline_env, summarize

set_offline_env()

from langchain.agents.middleware.types import ModelRequest, ModelResponse  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage  # noqa: E402
from langgraph.runtime import Runtime  # noqa: E402

from nova_memory_integrations import NovaStore  # noqa: E402
from nova_memory_integrations.langchain import NovaMemory  # noqa: E402
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel  # noqa: E402

USER = "bench-user"
TICK_S = 0.005


async def _ticker(stop: asyncio.Event, delays: list[float]) -> None:
    """Sleep ``TICK_S`` in a loop; record how late (ms) each wake-up is."""
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        t0 = loop.time()
        await asyncio.sleep(TICK_S)
        delays.append(max(0.0, (loop.time() - t0 - TICK_S) * 1000))


async def _lag_run(recall: Any, requests: list[Any]) -> dict[str, float]:
    """Run ``await recall(request)`` for each request while the ticker runs: worst lag / recall time."""
    stop, delays, recall_ms = asyncio.Event(), [], []
    ticker = asyncio.create_task(_ticker(stop, delays))
    await asyncio.sleep(3 * TICK_S)  # the ticker is running
    for request in requests:
        t0 = time.perf_counter()
        await recall(request)
        recall_ms.append((time.perf_counter() - t0) * 1000)
        await asyncio.sleep(3 * TICK_S)  # the ticker catches up between model calls
    stop.set()
    await ticker
    recall_p50 = statistics.median(recall_ms)
    worst = max(delays) if delays else 0.0
    return {"max_lag_ms": worst, "recall_p50_ms": recall_p50, "ratio": worst / recall_p50 if recall_p50 else 0.0}


def _median_runs(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]} | {"runs": len(runs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="timed turns per path")
    parser.add_argument("--prefill", type=int, default=600, help="episodes stored before timing")
    parser.add_argument("--warmup", type=int, default=10, help="untimed turns per path")
    parser.add_argument("--budget-tokens", type=int, default=1000)
    parser.add_argument("--lag-runs", type=int, default=5, help="event-loop lag runs (median reported)")
    parser.add_argument("--lag-calls", type=int, default=10, help="recalls per event-loop lag run")
    args = parser.parse_args(argv)

    n_timed = args.warmup + args.turns
    pairs = generate_turns(args.prefill + 2 * n_timed)  # (role, content), user/assistant alternating
    prefill, live = pairs[: args.prefill], pairs[args.prefill :]
    questions = generate_queries(n_timed)

    with tempfile.TemporaryDirectory(prefix="nova-bench-") as tmp, NovaStore(tmp) as store:
        log(f"prefilling {len(prefill)} episodes ...")
        store.add_turns(
            [
                {"user_id": USER, "role": role, "content": text, "session_id": f"s{i // 20}"}
                for i, (role, text) in enumerate(prefill)
            ]
        )
        store.consolidate(USER)
        store.flush()
        memory = NovaMemory(
            store, user_id=USER, session_id="bench", budget_tokens=args.budget_tokens, consolidation="background"
        )
        runtime: Runtime[Any] = Runtime()
        model = EchoMemoryChatModel()
        system = SystemMessage("You are a helpful assistant.")

        def handler(request: ModelRequest[Any]) -> ModelResponse[Any]:
            return ModelResponse(result=[AIMessage("ok")])

        log(f"capture path: {n_timed} turns ...")  # after_model with one new user + assistant message
        capture: list[float] = []
        history: list[Any] = []
        watermark: str | None = None
        for i in range(n_timed):
            (_, user_text), (_, ai_text) = live[2 * i], live[2 * i + 1]
            history += [HumanMessage(user_text, id=str(uuid.uuid4())), AIMessage(ai_text, id=str(uuid.uuid4()))]
            state: Any = {"messages": history, "nova_memory_captured": watermark}
            t0 = time.perf_counter()
            update = memory.after_model(state, runtime)
            elapsed = (time.perf_counter() - t0) * 1000
            watermark = (update or {}).get("nova_memory_captured")
            if i >= args.warmup:
                capture.append(elapsed)
        store.flush()

        log(f"injection path: {n_timed} turns ...")  # wrap_model_call: new question (miss), then same (hit)
        injection: list[float] = []
        cached: list[float] = []
        section_tokens: list[int] = []
        for i, question in enumerate(questions):
            msg = HumanMessage(question, id=str(uuid.uuid4()))
            request: ModelRequest[Any] = ModelRequest(
                model=model, messages=[msg], system_message=system, state={"messages": [msg]}, runtime=runtime
            )
            seen: list[ModelRequest[Any]] = []

            def spy(req: ModelRequest[Any], seen: list[ModelRequest[Any]] = seen) -> ModelResponse[Any]:
                seen.append(req)
                return handler(req)

            t0 = time.perf_counter()
            memory.wrap_model_call(request, spy)
            t1 = time.perf_counter()
            memory.wrap_model_call(request, handler)
            t2 = time.perf_counter()
            if i >= args.warmup:
                injection.append((t1 - t0) * 1000)
                cached.append((t2 - t1) * 1000)
                prompt = seen[0].system_prompt or ""
                section_tokens.append(store.count_tokens(prompt.split("<nova-memory>", 1)[-1]))

        log(f"event-loop lag: {args.lag_runs} runs x {args.lag_calls} recalls, inline and async ...")
        lag_questions = generate_queries(n_timed + args.lag_runs * args.lag_calls * 2)[n_timed:]

        def requests(offset: int) -> list[ModelRequest[Any]]:
            out: list[ModelRequest[Any]] = []
            for question in lag_questions[offset : offset + args.lag_calls]:
                msg = HumanMessage(question, id=str(uuid.uuid4()))  # new id: never a cache hit
                out.append(
                    ModelRequest(
                        model=model, messages=[msg], system_message=system, state={"messages": [msg]}, runtime=runtime
                    )
                )
            return out

        async def ahandler(request: ModelRequest[Any]) -> ModelResponse[Any]:
            return handler(request)

        async def inline(request: ModelRequest[Any]) -> None:  # the engine on the event loop
            memory.wrap_model_call(request, handler)

        async def offloop(request: ModelRequest[Any]) -> None:
            await memory.awrap_model_call(request, ahandler)

        inline_runs, async_runs = [], []
        for run in range(args.lag_runs):  # interleaved, so a slow phase of the machine hits both
            base = run * args.lag_calls * 2
            inline_runs.append(asyncio.run(_lag_run(inline, requests(base))))
            async_runs.append(asyncio.run(_lag_run(offloop, requests(base + args.lag_calls))))
        lag_inline, lag_async = _median_runs(inline_runs), _median_runs(async_runs)

        stats = store.stats(USER)
        capture_p50 = statistics.median(capture)
        emit(
            {
                "benchmark": "middleware_overhead",
                "capture_ms": summarize(capture),
                "injection_ms": summarize(injection),
                "injection_cached_ms": summarize(cached),
                "capture_p50_target_ms": 5.0,
                "capture_p50_under_target": capture_p50 < 5.0,
                "loop_lag_inline": lag_inline,
                "loop_lag_async": lag_async,
                "loop_lag_ratio_inline": lag_inline["ratio"],
                "loop_lag_ratio_async": lag_async["ratio"],
                "loop_lag_async_vs_inline": round(lag_async["max_lag_ms"] / lag_inline["max_lag_ms"], 3)
                if lag_inline["max_lag_ms"]
                else None,
                "budget_tokens": args.budget_tokens,
                "injected_tokens_p50": statistics.median(section_tokens) if section_tokens else 0,
                "episodes": stats["episodes"],
                "facts": stats["facts"],
                "reranker": type(store._recall.reranker).__name__,
                "consolidation": memory.consolidation,
                "python": sys.version.split()[0],
                "cpus": os.cpu_count(),
            }
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
