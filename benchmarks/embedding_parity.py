"""Parity of the ONNX MiniLM backends with sentence-transformers (torch), on real and generated texts.

For each ONNX variant (fp32, int8) the cosine of every text's vector to the torch vector:
min, 1st percentile and mean, per text set. Text sets: generated chat turns (see
``_common.generate_turns``) and, with ``--data``, the turns and questions of a LoCoMo-format
file. The models are exported into a temporary directory that is removed at the end.
Prints ONE JSON line (the last line of stdout).

Usage:
    python benchmarks/embedding_parity.py [--data ../shared/benchmarks/locomo/locomo_dev.json] [--turns 1000]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit, generate_turns, log, set_offline_env

set_offline_env()

from nova_memory_integrations.embeddings import MiniLMEmbeddings  # noqa: E402
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", default=None, help="a LoCoMo-format JSON file (its turns and questions)")
    parser.add_argument("--turns", type=int, default=1000, help="generated chat turns")
    parser.add_argument("--seed", type=int, default=21)
    args = parser.parse_args(argv)
    sets: dict[str, list[str]] = {"generated_turns": [t for _, t in generate_turns(args.turns, seed=args.seed)]}
    if args.data:
        from locomo import load, turns_of

        samples = load(args.data)
        sets["locomo_turns"] = [t["content"] for s in samples for t in turns_of(s)]
        sets["locomo_questions"] = [q["question"] for s in samples for q in s["qa"]]
    torch_model = MiniLMEmbeddings()
    reference = {name: np.asarray(torch_model.embed_documents(texts)) for name, texts in sets.items()}
    result: dict[str, Any] = {"benchmark": "embedding_parity", "reference": "torch", "sets": {k: len(v) for k, v in sets.items()}}
    with tempfile.TemporaryDirectory(prefix="nova-bench-parity-") as tmp:
        for quantize in (False, True):
            emb = OnnxMiniLMEmbeddings(cache_dir=tmp, quantize=quantize, fallback=False).load()
            log(f"{emb.backend}: embedding {sum(map(len, sets.values()))} texts")
            for name, texts in sets.items():
                cos = np.sum(np.asarray(emb.embed_documents(texts)) * reference[name], axis=1)
                result.setdefault(emb.backend, {})[name] = {
                    "min": round(float(cos.min()), 6), "p01": round(float(np.percentile(cos, 1)), 6),
                    "mean": round(float(cos.mean()), 6),
                }
    emit(result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
