"""Consolidation benchmark: deterministic throughput, and LLM calls per 100 turns.

Real components (SQLite, Chroma, the packaged MiniLM); only the LLM is a fake (a LangChain
chat model answering with tool calls built from the deterministic extractor's output, so
its answers are realistic and instantaneous).

* ``deterministic_turns_per_s``: turns / wall time of ``store.consolidate()`` over
  ``--turns`` unprocessed turns of ``--users`` users (episodes are indexed first; the
  embedding of new facts runs in the background indexer, as in production).
* ``llm_calls_per_100_turns``: LLM calls made by ``store.consolidate()`` per 100 turns
  with the default ``llm_batch_size`` (target <= 10).
* ``agent_llm_calls_per_100_turns``: the same through an agent,
  ``NovaMemory(consolidation_model=...)`` (turns captured by the middleware of a
  ``create_agent`` agent with several users, consolidated in the background in batches);
  ``agent_turns_unprocessed`` must be 0 after ``flush_consolidation()``.

Usage::

    .venv/bin/python benchmarks/consolidation.py            # prints one JSON line
    .venv/bin/python benchmarks/consolidation.py --turns 5000 --users 50
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fake_llms import FakeToolChatModel, Prompt, ops_message

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.embeddings import MiniLMEmbeddings
from nova_memory_integrations.extraction import DeterministicExtractor

CITIES = ["Berlin", "Lisbon", "Toronto", "Osaka", "Denver", "Nairobi", "Lyon", "Quito"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Stark Industries", "Hooli"]
HOBBIES = ["hiking", "jazz", "chess", "bouldering", "baking", "sailing", "pottery"]
COLORS = ["blue", "green", "red", "purple", "orange"]
TEMPLATES = [
    "I live in {city}.", "I work at {company}.", "My favorite color is {color}.", "I love {hobby}.",
    "I moved to {city} last month.", "I no longer work at {company}.", "My sister lives in {city}.",
    "I'm allergic to peanuts.", "I speak Portuguese and a little French.", "Can you recommend a good book?",
    "Thanks, that was helpful!", "What's the weather like in {city}?", "I don't like {hobby} anymore.",
    "My best friend Sam loves {hobby}.", "I'm a software engineer at {company}.", "Honestly, just tired today.",
]


def make_turns(n: int, users: int, seed: int = 7) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    turns = []
    for i in range(n):
        text = rng.choice(TEMPLATES).format(city=rng.choice(CITIES), company=rng.choice(COMPANIES),
                                            hobby=rng.choice(HOBBIES), color=rng.choice(COLORS))
        stamp = f"2024-{1 + i * 11 // n:02d}-{1 + i % 27:02d}T10:{i % 60:02d}:00+00:00"
        turns.append({"user_id": f"user-{i % users}", "role": "user", "content": text, "timestamp": stamp})
    turns.sort(key=lambda t: t["timestamp"])
    return turns


def extractor_llm() -> FakeToolChatModel:
    """A fake chat model answering like a good LLM would (ADD / DELETE from the rule extractor)."""
    extractor = DeterministicExtractor()

    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> Any:
        from datetime import datetime

        entries = []
        for ref, stamp, role, content in prompt.episodes:
            ops = [{"op": "DELETE" if c.op == "negate" else "ADD", "subject": c.subject, "predicate": c.predicate,
                    "object": c.object, "valid_from": c.valid_from.date().isoformat() if c.valid_from else None,
                    "confidence": c.confidence, "reason": "stated by the user"}
                   for c in extractor.extract(content, role=role, timestamp=datetime.fromisoformat(stamp))]
            entries.append({"episode": ref, "operations": ops})
        return ops_message(entries)

    return FakeToolChatModel(respond=respond)


def agent_consolidation(store: NovaStore, turns: int, users: int = 3) -> tuple[int, int, int]:
    """Turns captured by ``NovaMemory(consolidation_model=...)`` in an agent: (turns, LLM calls, unprocessed)."""
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from nova_memory_integrations.langchain import NovaMemory
    from nova_memory_integrations.langchain.testing import EchoMemoryChatModel

    fake = extractor_llm()
    memory = NovaMemory(store, consolidation_model=fake, consolidation_idle_seconds=0)
    agent = create_agent(EchoMemoryChatModel(), [], middleware=[memory], checkpointer=InMemorySaver())
    for turn in make_turns(turns // 2, users, seed=5):  # each invoke records 2 turns
        agent.invoke({"messages": [{"role": "user", "content": turn["content"]}]},
                     {"configurable": {"thread_id": turn["user_id"], "user_id": turn["user_id"]}})
    memory.flush_consolidation(timeout=600)
    recorded = sum(len(store.episodes(f"user-{u}", limit=10_000)) for u in range(users))
    unprocessed = sum(not e.processed for u in range(users) for e in store.episodes(f"user-{u}", limit=10_000))
    return recorded, memory.llm_calls, unprocessed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--llm-turns", type=int, default=300, help="turns for the LLM-calls measurement")
    args = parser.parse_args()
    embeddings = MiniLMEmbeddings()
    embeddings.embed_query("warm up")
    with tempfile.TemporaryDirectory() as tmp:
        with NovaStore(Path(tmp) / "det", embeddings=embeddings, config=NovaConfig()) as store:
            store.add_turns(make_turns(50, 5, seed=1))  # warm-up (first-use costs)
            store.consolidate()
            turns = make_turns(args.turns, args.users)
            for i in range(0, len(turns), 500):
                store.add_turns(turns[i : i + 500])
            store.flush()
            t0 = time.perf_counter()
            det = store.consolidate()
            elapsed = time.perf_counter() - t0
        fake = extractor_llm()
        with NovaStore(Path(tmp) / "llm", embeddings=embeddings, config=NovaConfig(), llm=fake) as store:
            llm_turns = make_turns(args.llm_turns, max(1, args.llm_turns // 100), seed=3)
            store.add_turns(llm_turns)
            store.flush()
            t1 = time.perf_counter()
            llm = store.consolidate()
            llm_elapsed = time.perf_counter() - t1
            batch = store.config.consolidation.llm_batch_size
        with NovaStore(Path(tmp) / "agent", embeddings=embeddings, config=NovaConfig()) as store:
            agent_turns, agent_calls, unprocessed = agent_consolidation(store, args.llm_turns)
    print(json.dumps({
        "benchmark": "consolidation",
        "turns": args.turns,
        "users": args.users,
        "consolidate_s": round(elapsed, 3),
        "deterministic_turns_per_s": round(args.turns / elapsed, 1),
        "deterministic_ops": {"added": det.added, "updated": det.updated, "invalidated": det.invalidated,
                              "noop": det.noop, "failed": det.failed_episodes},
        "llm_turns": args.llm_turns,
        "llm_batch_size": batch,
        "llm_calls": len(fake.calls),
        "llm_calls_per_100_turns": round(100 * len(fake.calls) / args.llm_turns, 2),
        "llm_path_turns_per_s_fake_model": round(args.llm_turns / llm_elapsed, 1),
        "llm_ops": {"added": llm.added, "updated": llm.updated, "invalidated": llm.invalidated, "noop": llm.noop,
                    "failed": llm.failed_episodes},
        "agent_turns": agent_turns,
        "agent_llm_calls_per_100_turns": round(100 * agent_calls / agent_turns, 2),
        "agent_turns_unprocessed": unprocessed,
        "targets": {"deterministic_turns_per_s": 1000, "llm_calls_per_100_turns": 10,
                    "agent_llm_calls_per_100_turns": 10},
    }))


if __name__ == "__main__":
    main()
