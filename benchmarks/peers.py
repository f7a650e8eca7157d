"""LoCoMo retrieval, side by side: this library and the peers' own memory objects, in one run.

Usage:
    python benchmarks/peers.py [--data ../shared/benchmarks/locomo/locomo_dev.json] [--k 10] [--budget 1000]
        [--conversations N] [--systems nova,langgraph_inmemory,langgraph_postgres,llamaindex_vector_block,mem0_raw]

The task is ``benchmarks/locomo.py``'s, through its own code: the same conversations and
turns (``turns_of``), the same questions (categories 1-4 with evidence, ``questions_of``) and
the same scorer (``locomo_scoring.score_question``: evidence recall among the first ``k``
distinct turns, evidence inside a ``--budget``-token context, NDCG@10, answer words). ``nova``
is ``locomo.evaluate`` with the ``balanced`` preset, untouched (store, consolidate, ``retrieve``
and ``context()``). The peers (``peer_memories.py``) are the libraries' own objects with their
documented defaults and our embedder (all-MiniLM-L6-v2, the same instance for every system):
LangGraph's ``InMemoryStore`` (which is also LangMem's search) and ``PostgresStore`` (on a
Postgres server of its own, started as ``locomo.py --postgres`` does), LlamaIndex's
``VectorMemoryBlock`` over Chroma, and mem0 adding raw messages (``infer=False``). No LLM exists
here, so every peer runs without one; mem0 (and Graphiti, not run) would extract facts with
one, which this does not measure.

A peer has no budgeted context of its own, so its context is its ranking (asked for 100 items,
as the dense baseline of ``locomo.py`` is) packed in order until ``--budget`` tokens, counted
by our tokenizer (``locomo.packed_count``). Each system is timed in the same run, conversation
by conversation in turn (the machine's speed drifts): adding the turns (``add_turns_per_s``: all
the conversation's turns over the seconds until they are searchable; ``nova`` also reports
it with consolidation) and the ``k``-item query (``query_p50_ms``; the 100-item packing call is
not timed). A peer whose package is not installed is reported as skipped, with the reason.

The last line printed is one JSON object: ``systems`` (one entry each: overall figures,
``per_category``, throughput, latency), ``versions`` of the packages that ran, ``k``, ``budget``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from importlib import metadata
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

sys.path.insert(0, str(Path(__file__).resolve().parent))
from locomo import (
    CATEGORIES,
    DEFAULT_DATA,
    PG_DATABASE,
    evaluate,
    load,
    packed_count,
    pct,
    questions_of,
    shown_turns,
    turns_of,
)
from locomo_scoring import distinct_turns, score_question, summarise
from pg_local import drop_database, fresh_database, local_server  # tests/pg_local.py, on the path through locomo

from nova_memory_integrations import NovaConfig
from nova_memory_integrations.embeddings import default_embeddings
from nova_memory_integrations.engine.tokens import get_token_counter

NOVA = "nova"
NOVA_PRESET = "balanced"
PACK_FETCH = 100
"""Items a peer is asked for to fill the budgeted context (``locomo.py``'s dense packing asks 100)."""
FIGURES = ("recall_at_k", "context_recall", "ndcg_at_10", "answer_words")
"""The figures reported per system, overall and per category."""
PACKAGES = ("langgraph", "langgraph-checkpoint-postgres", "langmem", "llama-index-core", "llama-index-vector-stores-chroma", "chromadb", "mem0ai",
            "qdrant-client", "langchain-core")
MODES = {
    NOVA: "store every turn, consolidate offline (no LLM), retrieve() / context() with the balanced preset",
    "langgraph_inmemory": "InMemoryStore(index={embed, dims: 384}), one item per turn; store.search (= LangMem's search tool)",
    "langgraph_postgres": "PostgresStore (pgvector, HNSW, cosine) with the same index, items and search",
    "llamaindex_vector_block": "VectorMemoryBlock over Chroma, one node per turn; block.aget with the question",
    "mem0_raw": "Memory.add(infer=False): raw messages, no LLM fact extraction; Memory.search (Qdrant local)",
}
"""What each system did, for the result (a reader must not take a no-LLM mode for the library's best)."""


def peer_records(
    peer: Any, sample: dict[str, Any], *, k: int, budget: int, count_tokens: Callable[[str], int],
    lat: list[float], timing: dict[str, float],
) -> list[dict[str, Any]]:
    """Fill ``peer`` with one conversation and score every question of it (``locomo.py``'s records)."""
    uid = sample["sample_id"]
    turns = turns_of(sample)
    shown = shown_turns(turns)
    t0 = time.perf_counter()
    peer.add(uid, turns)
    timing["add_s"] += time.perf_counter() - t0
    out = []
    for qa, evidence in questions_of(sample, set(shown)):
        t0 = time.perf_counter()
        hits = peer.search(uid, qa["question"], max(k, 10))  # NDCG@10 needs ten turns, as in locomo.py
        lat.append((time.perf_counter() - t0) * 1000)
        pool = peer.search(uid, qa["question"], PACK_FETCH)
        n = packed_count((text for _, text in pool), budget, count_tokens)
        out.append(score_question(
            category=CATEGORIES[qa["category"]], evidence=evidence, ranked=[ids for ids, _ in hits],
            context_turns=distinct_turns(ids for ids, _ in pool[:n]), context_text="\n".join(t for _, t in pool[:n]),
            answer=qa.get("answer", ""), k=k, evidence_texts=[shown[e] for e in sorted(evidence)]))
    return out


def table(system: str, records: Sequence[dict[str, Any]], lat: Sequence[float], *, turns: int,
          add_s: float, consolidation_s: float | None = None) -> dict[str, Any]:
    """One system's entry of the result: figures overall and per category, throughput, latency."""
    cats = summarise(records, list(CATEGORIES.values()), FIGURES)
    overall = cats.pop("overall")
    out: dict[str, Any] = {
        "system": system, "mode": MODES[system], "questions": len(records), "turns": turns,
        **{m: overall.get(m, 0.0) for m in FIGURES},
        "per_category": {c: {m: row[m] for m in FIGURES if m in row} | {"n": row["n"]} for c, row in cats.items()},
        "add_turns_per_s": round(turns / add_s, 1) if add_s else None,
        "query_p50_ms": round(pct(lat, 0.5), 2), "query_p95_ms": round(pct(lat, 0.95), 2),
    }
    if consolidation_s is not None:
        out["add_and_consolidate_turns_per_s"] = round(turns / (add_s + consolidation_s), 1)
    return out


def versions() -> dict[str, str]:
    """Installed versions of the packages the peers are built from (absent ones left out)."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def run(samples: Sequence[dict[str, Any]], systems: Sequence[str], *, k: int, budget: int, embeddings: Any,
        database: Callable[[], str] = lambda: "", verbose: bool = True) -> dict[str, Any]:
    """Every system on every conversation, conversation by conversation; the result object
    (``database``: a fresh Postgres database's URL, for the peers of ``ON_POSTGRES``)."""
    from peer_memories import ON_POSTGRES, PEERS

    count = get_token_counter(NovaConfig().retrieval.tokenizer).count
    records: dict[str, list[dict[str, Any]]] = defaultdict(list)
    lat: dict[str, list[float]] = defaultdict(list)
    timing: dict[str, dict[str, float]] = defaultdict(lambda: {"add_s": 0.0, "consolidation_s": 0.0})
    skipped: dict[str, str] = {}
    for sample in samples:
        for system in systems:
            if system in skipped:
                continue
            t0, before = time.perf_counter(), len(records[system])
            if system == NOVA:
                ev = evaluate([sample], [NOVA_PRESET], k=k, budget=budget, embeddings=embeddings, verbose=False)
                records[system] += ev["results"][sample["sample_id"]][NOVA_PRESET]
                lat[system] += ev["latency"][NOVA_PRESET]["retrieve"]
                timing[system]["add_s"] += ev["timing"]["ingest_s"]
                timing[system]["consolidation_s"] += ev["timing"]["consolidation_s"]
            else:
                try:
                    peer = PEERS[system](embeddings, database()) if system in ON_POSTGRES else PEERS[system](embeddings)
                except ImportError as exc:
                    skipped[system] = f"{type(exc).__name__}: {exc}"
                    continue
                try:
                    records[system] += peer_records(peer, sample, k=k, budget=budget, count_tokens=count,
                                                    lat=lat[system], timing=timing[system])
                finally:
                    peer.close()
            if verbose:
                mine = records[system][before:]
                recall = sum(r["recall_at_k"] for r in mine) / max(len(mine), 1)
                print(f"{sample['sample_id']} {system}: recall@{k}={recall:.3f} ({time.perf_counter() - t0:.0f} s)",
                      file=sys.stderr)
    n_turns = sum(len(turns_of(s)) for s in samples)
    entries = [table(s, records[s], lat[s], turns=n_turns, add_s=timing[s]["add_s"],
                     consolidation_s=timing[s]["consolidation_s"] if s == NOVA else None)
               for s in systems if s not in skipped]
    return {"benchmark": "locomo_peers", "k": k, "budget": budget, "conversations": len(samples),
            "systems": entries, "skipped": skipped, "versions": versions(),
            "embedder": f"all-MiniLM-L6-v2 ({getattr(embeddings, 'backend', 'torch')}), the same instance for every system"}


def main(argv: Sequence[str] | None = None) -> int:
    from peer_memories import ON_POSTGRES, PEERS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="a LoCoMo-format JSON file")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    ap.add_argument("--systems", default=",".join([NOVA, *PEERS]), help="comma-separated, from: "
                    + ", ".join([NOVA, *PEERS]))
    args = ap.parse_args(argv)
    systems = list(dict.fromkeys(s.strip() for s in args.systems.split(",") if s.strip()))
    unknown = [s for s in systems if s != NOVA and s not in PEERS]
    if unknown or not systems:
        ap.error(f"unknown systems {unknown}; choose from {[NOVA, *PEERS]}")
    if args.k < 1 or args.budget < 1:
        ap.error("--k and --budget must be positive")
    samples = load(args.data)[: args.conversations]
    with tempfile.TemporaryDirectory(prefix="nova-peers-models-") as models, ExitStack() as stack:
        emb: Any = default_embeddings(NovaConfig().embeddings, models)
        emb.embed_query("warm up")  # export (ONNX) or load now, outside the timings
        server = ""
        if ON_POSTGRES & set(systems):  # a server of its own, as locomo.py --postgres starts
            server = stack.enter_context(local_server(prefix="nova-peers-pg-")).get_uri()
            stack.callback(drop_database, server, PG_DATABASE)
        result = run(samples, systems, k=args.k, budget=args.budget, embeddings=emb,
                     database=lambda: fresh_database(server, PG_DATABASE))
    for entry in result["systems"]:
        cats = "  ".join(f"{c} {row['recall_at_k']:.3f}" for c, row in entry["per_category"].items())
        print(f"{entry['system']:<26} recall@{args.k} {entry['recall_at_k']:.3f}  ctx {entry['context_recall']:.3f}  "
              f"{entry['add_turns_per_s']} turns/s  p50 {entry['query_p50_ms']} ms  | {cats}", file=sys.stderr)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
