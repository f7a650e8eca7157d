"""LoCoMo retrieval benchmark: evidence recall@k and inside a token-budgeted context.

Usage:
    python benchmarks/locomo.py --data ../shared/benchmarks/locomo/locomo_dev.json [--k 10] [--budget 1000]
        [--mode nova|dense|both] [--conversations 1] [--preset balanced] [--backend auto|onnx|torch]
        [--quantize documents|true|false]

For each conversation a fresh store is filled with every turn (the session's date as
event time, ``dia_id`` in metadata, the speaker as role), consolidated, and asked every
question of categories 1-4. An item counts for the evidence turns it was derived from
(an episode for its own turn, a fact for the turns in its provenance). The last line
printed is one JSON object. ``--backend`` and ``--quantize`` pick the MiniLM implementation
as ``embeddings.backend`` / ``embeddings.quantize`` do (default: the library's defaults; the
ONNX model is exported once into a temporary directory); ``embedding_backend`` in the
result says which ran (``onnx-int8-documents``, ``onnx-int8``, ``onnx-fp32`` or ``torch``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.embeddings import MiniLMEmbeddings, default_embeddings
from nova_memory_integrations.retrieval.lexical import terms

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import quantize_arg

CATEGORIES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop"}
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "locomo" / "locomo_dev.json"
_DIA = re.compile(r"^D(\d+):(\d+)$")


def load(path: str | Path) -> list[dict[str, Any]]:
    """Samples of a LoCoMo-format file."""
    with open(path, encoding="utf-8") as fh:
        data: list[dict[str, Any]] = json.load(fh)
    return data


def parse_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> aware UTC datetime."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def turns_of(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """Every turn of a conversation as ``add_turns`` input, in order."""
    conv = sample["conversation"]
    out: list[dict[str, Any]] = []
    n = 1
    while f"session_{n}" in conv:
        start = parse_date(conv[f"session_{n}_date_time"])
        for i, turn in enumerate(conv[f"session_{n}"]):
            text = f"{turn['speaker']}: {turn['text']}"  # a transcript line, as the speakers are named
            if turn.get("blip_caption"):
                text += f" [shares a photo: {turn['blip_caption']}]"
            out.append({
                "user_id": sample["sample_id"],
                "role": turn["speaker"],
                "content": text,
                "session_id": f"session_{n}",
                "timestamp": start + timedelta(seconds=30 * i),
                "metadata": {"dia_id": turn["dia_id"], "speaker": turn["speaker"]},
            })
        n += 1
    return out


def normalise_evidence(ids: Iterable[str], known: set[str]) -> set[str]:
    """Valid evidence ids ('D1:3'); malformed ones normalised ('D30:05' -> 'D30:5') or skipped."""
    out = set()
    for raw in ids:
        for part in str(raw).replace(";", ",").split(","):
            m = _DIA.match(part.strip())
            if m:
                dia = f"D{int(m.group(1))}:{int(m.group(2))}"
                if dia in known:
                    out.add(dia)
    return out


def covered(store: NovaStore, user_id: str, items: Sequence[tuple[str, str, Sequence[str]]]) -> list[str]:
    """dia_ids that items (kind, id, provenance episode ids) were derived from, in order."""
    ep_ids = [pid for kind, iid, prov in items for pid in (prov or ((iid,) if kind == "episode" else ()))]
    dia = {e.id: e.metadata.get("dia_id") for e in store.get_episodes(user_id, list(dict.fromkeys(ep_ids)))}
    seen: dict[str, None] = {}
    for kind, iid, prov in items:
        for pid in prov or ((iid,) if kind == "episode" else ()):
            if dia.get(pid):
                seen.setdefault(str(dia[pid]), None)
    return list(seen)


def answer_terms(answer: object) -> set[str]:
    return set(terms(str(answer)))


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def run(
    samples: Sequence[dict[str, Any]],
    *,
    k: int = 10,
    budget: int = 1000,
    mode: str = "nova",
    preset: str = "balanced",
    embeddings: Any = None,
    verbose: bool = True,
) -> dict[str, Any]:
    """Run the benchmark; returns the summary dict (also used by the cookbook)."""
    emb = embeddings or MiniLMEmbeddings()
    per_cat: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    lat: dict[str, list[float]] = defaultdict(list)
    ingest_s = consolidate_s = 0.0
    n_turns = 0
    for sample in samples:
        uid = sample["sample_id"]
        turns = turns_of(sample)
        n_turns += len(turns)
        known = {t["metadata"]["dia_id"] for t in turns}
        with tempfile.TemporaryDirectory() as tmp, NovaStore(tmp, embeddings=emb) as store:
            t0 = time.perf_counter()
            store.add_turns(turns)
            store.flush()
            ingest_s += time.perf_counter() - t0
            t0 = time.perf_counter()
            store.consolidate(uid)
            store.flush()
            consolidate_s += time.perf_counter() - t0
            for qa in sample["qa"]:
                cat = qa.get("category")
                if cat not in CATEGORIES:
                    continue
                evidence = normalise_evidence(qa.get("evidence", []), known)
                if not evidence:
                    continue
                q = qa["question"]
                t0 = time.perf_counter()
                if mode == "dense":
                    hits = store.search(q, uid, k=k, kinds=("episode",))
                else:
                    hits = store.retrieve(q, uid, k=k, preset=preset)
                lat["retrieve"].append((time.perf_counter() - t0) * 1000)
                got = covered(store, uid, [(h.kind, h.id, h.provenance) for h in hits])
                rec = len(evidence & set(got)) / len(evidence)
                if mode == "dense":
                    ctx_items = _pack_dense(store, q, uid, budget)
                    ctx_text = "\n".join(t for _, t in ctx_items)
                    ctx_cov = covered(store, uid, [("episode", i, ()) for i, _ in ctx_items])
                else:
                    t0 = time.perf_counter()
                    ctx = store.context(q, uid, budget_tokens=budget, preset=preset)
                    lat["context"].append((time.perf_counter() - t0) * 1000)
                    ctx_text = ctx.text
                    ctx_cov = covered(store, uid, [(s.kind, s.id, s.provenance) for s in ctx.sources])
                crec = len(evidence & set(ctx_cov)) / len(evidence)
                words = answer_terms(qa.get("answer", ""))
                low = ctx_text.casefold()
                present = [w for w in words if w in low]
                name = CATEGORIES[cat]
                for bucket in (name, "overall"):
                    per_cat[bucket]["recall_at_k"].append(rec)
                    per_cat[bucket]["context_recall"].append(crec)
                    if words:
                        per_cat[bucket]["answer_word_recall"].append(len(present) / len(words))
                        per_cat[bucket]["answer_in_context"].append(float(len(present) == len(words)))
        if verbose:
            o = per_cat["overall"]
            print(f"{uid}: {len(turns)} turns, running recall@{k}={statistics.mean(o['recall_at_k']):.3f} "
                  f"context_recall={statistics.mean(o['context_recall']):.3f}", file=sys.stderr)
    table = {cat: {m: round(statistics.mean(v), 4) for m, v in metrics.items() if v} | {"n": len(metrics["recall_at_k"])}
             for cat, metrics in per_cat.items()}
    overall = table.get("overall", {})
    return {
        "benchmark": "locomo", "mode": mode, "preset": preset, "k": k, "budget": budget,
        "conversations": len(samples), "turns": n_turns,
        "recall_at_k": overall.get("recall_at_k", 0.0), "context_recall": overall.get("context_recall", 0.0),
        "answer_word_recall": overall.get("answer_word_recall", 0.0),
        "answer_in_context": overall.get("answer_in_context", 0.0),
        "per_category": table,
        "retrieve_p50_ms": round(pct(lat["retrieve"], 0.5), 2), "retrieve_p95_ms": round(pct(lat["retrieve"], 0.95), 2),
        "context_p50_ms": round(pct(lat["context"], 0.5), 2), "context_p95_ms": round(pct(lat["context"], 0.95), 2),
        "ingest_s": round(ingest_s, 2), "consolidation_s": round(consolidate_s, 2),
    }


def _pack_dense(store: NovaStore, query: str, uid: str, budget: int) -> list[tuple[str, str]]:
    """Baseline: dense top turns packed in score order until the budget is full."""
    out: list[tuple[str, str]] = []
    used = 0
    for hit in store.search(query, uid, k=100, kinds=("episode",)):
        n = store.count_tokens(hit.text) + 1
        if used + n > budget:
            break
        out.append((hit.id, hit.text))
        used += n
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="a LoCoMo-format JSON file")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--mode", choices=["nova", "dense", "both"], default="nova")
    ap.add_argument("--preset", default="balanced")
    ap.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    ap.add_argument("--backend", choices=["auto", "onnx", "torch"], default=None,
                    help="embeddings.backend (default: the library default)")
    ap.add_argument("--quantize", type=quantize_arg, default=None, metavar="documents|true|false",
                    help="embeddings.quantize (default: the library default, documents)")
    args = ap.parse_args(argv)
    samples = load(args.data)[: args.conversations]
    cfg = NovaConfig().embeddings
    cfg.backend = args.backend or cfg.backend
    cfg.quantize = cfg.quantize if args.quantize is None else args.quantize
    with tempfile.TemporaryDirectory(prefix="nova-locomo-models-") as models:
        emb: Any = default_embeddings(cfg, models)
        emb.embed_query("warm up")  # export (ONNX) or load now, outside the timings
        modes = ["dense", "nova"] if args.mode == "both" else [args.mode]
        results = [run(samples, k=args.k, budget=args.budget, mode=m, preset=args.preset, embeddings=emb)
                   | {"embedding_backend": getattr(emb, "backend", "torch")} for m in modes]
    for r in results[:-1]:
        print(json.dumps(r))
    print(json.dumps(results[-1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
