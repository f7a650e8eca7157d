"""Train the clause reader (:mod:`nova_memory_integrations.changes.clause_reader`) and measure it across writers.

    .venv/bin/python benchmarks/train_clause_reader.py                 # train, report, write the shipped weights
    .venv/bin/python benchmarks/train_clause_reader.py --no-write      # report only
    .venv/bin/python benchmarks/train_clause_reader.py --corpus a.jsonl b.jsonl

The corpus (``tests/data/clause_corpus/{a,b}.jsonl``, see its README) is two files by two independent
writers: one clause per line with its label (``state`` / ``ended`` / ``changed`` / ``corrected`` /
``other``) and the words naming the state (``thing``). Each line gives three training texts, the words
naming the state masked as "it" in each: the whole line, the clause of it that holds those words (as the
change layer segments a message: :func:`~nova_memory_integrations.changes.segments.segment`), and the
whole line with only the last word of the state masked (the engine often knows one word of a fact).

The layer is softmax regression with L2 over the store's own embedding (the default ONNX MiniLM, as
documents: what the consolidator's tracker embeds with), plain numpy gradient descent. The L2 strength is
picked by 5-fold cross-validation (folds by line) inside the training data only.

**Cross-writer accuracy** is the honest figure of how the layer generalises to a writer it never read:
train on writer A, score on writer B's lines (the clause text, as at inference, and the whole line),
and the reverse. The shipped weights are then trained on both writers. The last line printed is one JSON
object: cross-writer accuracy and per-label precision / recall each way, the chosen L2, the corpus sha256.
Vectors are cached under ``benchmarks/.cache/``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import cached_embeddings, emit, log  # noqa: E402

from nova_memory_integrations.changes.clause_reader import (  # noqa: E402
    LABELS,
    WEIGHTS_PATH,
    ClauseReader,
    mask_phrase,
)
from nova_memory_integrations.changes.lexicon import STOPWORDS  # noqa: E402
from nova_memory_integrations.changes.segments import normalize_text, segment  # noqa: E402

CORPUS = (ROOT / "tests/data/clause_corpus/a.jsonl", ROOT / "tests/data/clause_corpus/b.jsonl")
L2_GRID = (1e-5, 3e-5, 1e-4, 3e-4, 1e-3, 3e-3)
STEPS = 600
SEED = 7


def load(path: Path) -> list[dict[str, Any]]:
    """The labelled lines of one writer's file (blank lines skipped)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    bad = [r for r in rows if r.get("label") not in LABELS or not r.get("text")]
    if bad:
        raise SystemExit(f"{path}: {len(bad)} lines without a known label or text, e.g. {bad[0]}")
    return rows


def clause_of(text: str, thing: str) -> str:
    """The clause of ``text`` (as the change layer segments it) that holds the start of ``thing``; the
    whole text when the thing is not found."""
    norm = normalize_text(text)
    at = norm.lower().find(thing.lower().strip()) if thing.strip() else -1
    if at < 0:
        return norm
    for sentence in segment(norm):
        for clause in sentence.clauses:
            if clause.start <= at < clause.end:
                return norm[clause.start:clause.end]
    return norm


def head_word(thing: str) -> str:
    """The last content word of the words naming a state ("the old Astra" -> "Astra")."""
    content = [w for w in thing.split() if w.lower().strip(",.'") not in STOPWORDS and len(w) > 2]
    return content[-1] if content else thing


def variants(row: dict[str, Any]) -> dict[str, str]:
    """The three masked training texts of one line (see the module docstring)."""
    text, thing = row["text"], row.get("thing") or ""
    clause = clause_of(text, thing)
    return {"line": mask_phrase(text, thing), "clause": mask_phrase(clause, thing),
            "head": mask_phrase(text, head_word(thing))}


def fit(x: np.ndarray, y: np.ndarray, l2: float, steps: int = STEPS) -> tuple[np.ndarray, np.ndarray]:
    """Softmax regression: mean cross-entropy + ``l2`` * |W|^2, by Adam on the full batch."""
    n, d = x.shape
    k = len(LABELS)
    w, b = np.zeros((d, k)), np.zeros(k)
    onehot = np.eye(k)[y]
    m_w, v_w, m_b, v_b = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    lr, beta1, beta2 = 0.05, 0.9, 0.999
    for t in range(1, steps + 1):
        logits = x @ w + b
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        g = (p - onehot) / n
        gw, gb = x.T @ g + 2 * l2 * w, g.sum(axis=0)
        m_w, v_w = beta1 * m_w + (1 - beta1) * gw, beta2 * v_w + (1 - beta2) * gw ** 2
        m_b, v_b = beta1 * m_b + (1 - beta1) * gb, beta2 * v_b + (1 - beta2) * gb ** 2
        w -= lr * (m_w / (1 - beta1 ** t)) / (np.sqrt(v_w / (1 - beta2 ** t)) + 1e-8)
        b -= lr * (m_b / (1 - beta1 ** t)) / (np.sqrt(v_b / (1 - beta2 ** t)) + 1e-8)
    return w, b


def predict(w: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Per row, the probabilities of the labels."""
    logits = x @ w + b
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True)


def stack(vecs: dict[str, np.ndarray], idx: np.ndarray, kinds: tuple[str, ...]) -> np.ndarray:
    """The rows of lines ``idx`` for each variant kind, one block per kind."""
    return np.concatenate([vecs[k][idx] for k in kinds])


def choose_l2(vecs: dict[str, np.ndarray], y: np.ndarray, idx: np.ndarray) -> float:
    """The L2 strength of best 5-fold accuracy (clause texts) within lines ``idx`` only."""
    rng = np.random.default_rng(SEED)
    folds = np.array_split(rng.permutation(idx), 5)
    kinds = tuple(vecs)
    best, best_acc = L2_GRID[0], -1.0
    for l2 in L2_GRID:
        right = 0
        for f in range(5):
            train = np.concatenate([folds[j] for j in range(5) if j != f])
            w, b = fit(stack(vecs, train, kinds), np.tile(y[train], len(kinds)), l2)
            right += int((predict(w, b, vecs["clause"][folds[f]]).argmax(1) == y[folds[f]]).sum())
        acc = right / len(idx)
        log(f"  l2 {l2:g}: 5-fold accuracy {acc:.3f}")
        if acc > best_acc:
            best, best_acc = l2, acc
    return best


def report(p: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Accuracy, per-label precision / recall, and the change side (ended or changed vs the rest) at 0.5."""
    pred = p.argmax(1)
    per = {}
    for i, label in enumerate(LABELS):
        tp = int(((pred == i) & (y == i)).sum())
        per[label] = {"precision": round(tp / max(1, int((pred == i).sum())), 3),
                      "recall": round(tp / max(1, int((y == i).sum())), 3), "n": int((y == i).sum())}
    change = p[:, 1] + p[:, 2] >= 0.5
    truth = (y == 1) | (y == 2)
    return {"accuracy": round(float((pred == y).mean()), 3), "labels": per,
            "change_side": {"precision": round(float((change & truth).sum() / max(1, change.sum())), 3),
                            "recall": round(float((change & truth).sum() / max(1, truth.sum())), 3)}}


def main() -> None:
    """Train, report across writers, write the weights."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", nargs=2, type=Path, default=CORPUS, metavar=("A", "B"))
    ap.add_argument("--no-write", action="store_true", help="report only; leave the shipped weights alone")
    ap.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    args = ap.parse_args()

    from nova_memory_integrations.config import EmbeddingConfig
    from nova_memory_integrations.embeddings.base import embedding_space
    from nova_memory_integrations.embeddings.factory import default_embeddings

    writers = [load(p) for p in args.corpus]
    sha = hashlib.sha256(b"".join(p.read_bytes() for p in args.corpus)).hexdigest()
    rows = writers[0] + writers[1]
    who = np.array([0] * len(writers[0]) + [1] * len(writers[1]))
    y = np.array([LABELS.index(r["label"]) for r in rows])
    log(f"corpus: {len(writers[0])} + {len(writers[1])} lines, sha256 {sha[:12]}")

    embedder = default_embeddings(EmbeddingConfig())
    space = embedding_space(embedder)
    texts = [variants(r) for r in rows]
    vecs = {}
    for kind in ("line", "clause", "head"):
        raw = cached_embeddings([t[kind] for t in texts], embedder.embed_documents, model_key=f"{space}:documents")
        vecs[kind] = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)
    kinds = tuple(vecs)

    cross: dict[str, Any] = {}
    for a, b_ in ((0, 1), (1, 0)):
        train, test = np.flatnonzero(who == a), np.flatnonzero(who == b_)
        log(f"writer {'ab'[a]} -> {'ab'[b_]}: choosing L2 inside {'ab'[a]}")
        l2 = choose_l2(vecs, y, train)
        w, b = fit(stack(vecs, train, kinds), np.tile(y[train], len(kinds)), l2)
        name = f"{'ab'[a]}_to_{'ab'[b_]}"
        cross[name] = {"l2": l2, "clause": report(predict(w, b, vecs["clause"][test]), y[test]),
                       "line": report(predict(w, b, vecs["line"][test]), y[test])}
        log(f"  {name}: clause accuracy {cross[name]['clause']['accuracy']}, line {cross[name]['line']['accuracy']}")
    every = np.arange(len(rows))
    log("both writers: choosing L2")
    l2 = choose_l2(vecs, y, every)
    w, b = fit(stack(vecs, every, kinds), np.tile(y, len(kinds)), l2)
    mean = {k: round((cross["a_to_b"][k]["accuracy"] + cross["b_to_a"][k]["accuracy"]) / 2, 3)
            for k in ("clause", "line")}
    if not args.no_write:
        ClauseReader(w.astype(np.float32), b.astype(np.float32), space, sha).save(
            args.out, l2=l2, lines=len(rows), cross_writer_clause_accuracy=mean["clause"])
        log(f"wrote {args.out}")
    emit({"benchmark": "train_clause_reader", "lines": [len(writers[0]), len(writers[1])], "corpus_sha256": sha,
          "space": space, "l2": l2, "cross_writer_accuracy": mean, "cross": cross})


if __name__ == "__main__":
    main()
