"""Attitude conflicts across predicates (#40): the topic threshold's calibration and the labelled rate.

Two sets, written for this and kept apart:

* ``tests/data/attitude_topics_calibration.jsonl``: topic pairs labelled "the same thing" (soccer /
  football) or not (dogs / cats, tea / coffee). Only the pairs the category table does not relate
  reach the MiniLM threshold, so only those calibrate it: the threshold kept is the one with the
  most pairs right, the highest of equals (fewer false conflicts).
* ``tests/data/attitude_conflicts.jsonl``: sentence pairs (the first said a day before the second),
  labelled conflict or not, run end to end: a real store, the deterministic extractor, consolidation,
  MiniLM. A pair counts as fired when the user's conflict log holds any conflict after both turns.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/attitude_conflicts.py [--threshold 0.8]

Prints each miss and false conflict, then one JSON line: the chosen threshold and the rates.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from nova_memory_integrations import NovaStore
from nova_memory_integrations.config import NovaConfig
from nova_memory_integrations.embeddings.similarity import cosines
from nova_memory_integrations.memory.attitudes import related

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CALIBRATION = DATA / "attitude_topics_calibration.jsonl"
LABELLED = DATA / "attitude_conflicts.jsonl"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def calibrate(store: NovaStore) -> dict[str, Any]:
    """The threshold with the most calibration pairs right (the highest of equals)."""
    pairs = [r for r in _rows(CALIBRATION) if related(r["a"], r["b"]) is None]
    vectors = store.components.embedder.embed_documents([t for r in pairs for t in (r["a"], r["b"])])
    scored = [(float(cosines([vectors[2 * n]], vectors[2 * n + 1])[0]), bool(r["same"])) for n, r in enumerate(pairs)]
    candidates = sorted({round(s, 2) for s, _ in scored} | {round(s + 0.01, 2) for s, _ in scored})
    best = max(candidates, key=lambda t: (sum((s >= t) == same for s, same in scored), t))
    right = sum((s >= best) == same for s, same in scored)
    return {"threshold": best, "calibration_pairs": len(pairs), "calibration_right": right,
            "same_min": min((s for s, same in scored if same), default=None),
            "different_max": max((s for s, same in scored if not same), default=None)}


def evaluate(store: NovaStore) -> dict[str, Any]:
    """Each labelled pair through the store: fired or not, against its label."""
    rows = _rows(LABELLED)
    for n, r in enumerate(rows):
        store.add_turn(f"pair{n}", "user", r["first"], timestamp="2025-03-01T10:00:00+00:00")
        store.add_turn(f"pair{n}", "user", r["second"], timestamp="2025-03-02T10:00:00+00:00")
    store.consolidate()
    tp = fp = fn = tn = 0
    for n, r in enumerate(rows):
        logged = store.conflicts(f"pair{n}")
        fired = bool(logged)
        if fired and r["conflict"]:
            tp += 1
        elif fired:
            fp += 1
            print(f"false conflict: {r['first']!r} / {r['second']!r}: {logged[0].reason}", file=sys.stderr)
        elif r["conflict"]:
            fn += 1
            facts = [(f.predicate, f.object) for f in store.facts(f"pair{n}")]
            print(f"missed ({r['why']}): {r['first']!r} / {r['second']!r}; facts {facts}", file=sys.stderr)
        else:
            tn += 1
    return {"pairs": len(rows), "conflict_pairs": tp + fn, "no_conflict_pairs": fp + tn, "true_positive": tp,
            "false_positive": fp, "false_negative": fn, "true_negative": tn,
            "recall": round(tp / max(1, tp + fn), 3), "precision": round(tp / max(1, tp + fp), 3),
            "accuracy": round((tp + tn) / max(1, len(rows)), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threshold", type=float, help="use this topic threshold instead of the calibrated one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        probe = NovaStore(Path(tmp) / "calibrate")
        calibrated = calibrate(probe)
        probe.close()
        threshold = args.threshold if args.threshold is not None else calibrated["threshold"]
        config = NovaConfig()
        config = config.model_copy(update={"facts": config.facts.model_copy(update={"topic_similarity": threshold})})
        store = NovaStore(Path(tmp) / "labelled", config=config)
        try:
            result = evaluate(store)
        finally:
            store.close()
    print(json.dumps({"benchmark": "attitude_conflicts", **calibrated, "threshold_used": threshold, **result}))


if __name__ == "__main__":
    main()
