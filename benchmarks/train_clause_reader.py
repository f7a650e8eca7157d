"""Train the clause reader (:mod:`nova_memory_integrations.changes.clause_reader`) and measure it across writers.

    .venv/bin/python benchmarks/train_clause_reader.py                 # train, report, write the shipped weights
    .venv/bin/python benchmarks/train_clause_reader.py --no-write      # report only
    .venv/bin/python benchmarks/train_clause_reader.py --corpus a.jsonl b.jsonl c.jsonl

The corpus (``tests/data/clause_corpus/*.jsonl``, see its README) is one file per independent
writer: one clause per line with its label (``state`` / ``ended`` / ``changed`` / ``corrected`` /
``other``) and the words naming the state (``thing``). Each line gives three training texts, the words
naming the state masked as "it" in each: the whole line, the clause of it that holds those words (as the
change layer segments a message: :func:`~nova_memory_integrations.changes.segments.segment`), and the
whole line with only the last word of the state masked (the engine often knows one word of a fact).

The reader is a small network over the store's own embedding (the default ONNX MiniLM, as documents: what
the consolidator's tracker embeds with): one hidden ReLU layer of :data:`HIDDEN` units, then softmax;
mean cross-entropy plus :data:`MLP_L2` times the squared weights, by full-batch Adam in plain numpy. Its
settings were fixed once, before the first cross-writer run, and never tuned on it (so the figure is not
picked from several). For comparison the trainer also reports the linear layer of the first reader
(softmax regression, L2 :data:`LINEAR_L2`, the strength its own cross-validation chose) across the same
writers.

**Cross-writer accuracy** is the honest figure of how the reader generalises to a writer it never read:
leave one writer out, train on the others, score on the left-out writer's lines (the clause text, as at
inference, and the whole line), once per writer; the figure is the mean over writers. Beside accuracy, the
change side as the fallback uses it: ``ended`` + ``changed`` at 0.9 or more, its precision and recall. The
shipped weights are then trained on every writer. The last line printed is one JSON object: cross-writer
accuracy (network and linear) and per-writer figures, the corpus sha256.
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

CORPUS = tuple(sorted((ROOT / "tests/data/clause_corpus").glob("*.jsonl")))
"""One file per writer, in name order (the weights record the sha256 of the files concatenated in this order)."""
HIDDEN = 256
"""Hidden ReLU units of the network."""
MLP_L2 = 1e-4
MLP_STEPS = 400
MLP_RATE = 0.01
LINEAR_L2 = 3e-4
"""The linear layer's L2 (what its 5-fold cross-validation chose for the first, two-writer reader)."""
STEPS = 600
SEED = 7
CHANGE_AT = 0.9
"""The fallback's threshold on ``ended`` + ``changed`` (``changes.fallback.ENDED_PROBABILITY``)."""


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


Network = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Hidden weights, hidden bias, output weights, output bias."""


def fit_network(x: np.ndarray, y: np.ndarray, *, hidden: int = HIDDEN, l2: float = MLP_L2, steps: int = MLP_STEPS,
                rate: float = MLP_RATE, seed: int = SEED) -> Network:
    """One hidden ReLU layer then softmax: mean cross-entropy + ``l2`` * (|W1|^2 + |W2|^2), full-batch Adam;
    the hidden layer starts He-initialised from ``seed``, the output layer at zero."""
    rng = np.random.default_rng(seed)
    n, d = x.shape
    k = len(LABELS)
    params = [rng.normal(scale=np.sqrt(2 / d), size=(d, hidden)), np.zeros(hidden), np.zeros((hidden, k)), np.zeros(k)]
    m = [np.zeros_like(q) for q in params]
    v = [np.zeros_like(q) for q in params]
    onehot = np.eye(k)[y]
    beta1, beta2 = 0.9, 0.999
    for t in range(1, steps + 1):
        w1, b1, w2, b2 = params
        h = np.maximum(x @ w1 + b1, 0)
        g = (predict(w2, b2, h) - onehot) / n
        gh = g @ w2.T
        gh[h <= 0] = 0
        grads = (x.T @ gh + 2 * l2 * w1, gh.sum(axis=0), h.T @ g + 2 * l2 * w2, g.sum(axis=0))
        for i, gr in enumerate(grads):
            m[i] = beta1 * m[i] + (1 - beta1) * gr
            v[i] = beta2 * v[i] + (1 - beta2) * gr ** 2
            params[i] -= rate * (m[i] / (1 - beta1 ** t)) / (np.sqrt(v[i] / (1 - beta2 ** t)) + 1e-8)
    return params[0], params[1], params[2], params[3]


def predict_network(net: Network, x: np.ndarray) -> np.ndarray:
    """Per row, the network's probabilities of the labels."""
    w1, b1, w2, b2 = net
    return predict(w2, b2, np.maximum(x @ w1 + b1, 0))


def stack(vecs: dict[str, np.ndarray], idx: np.ndarray, kinds: tuple[str, ...]) -> np.ndarray:
    """The rows of lines ``idx`` for each variant kind, one block per kind."""
    return np.concatenate([vecs[k][idx] for k in kinds])


def report(p: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Accuracy, per-label precision / recall, and the change side (``ended`` + ``changed`` at :data:`CHANGE_AT`
or more, against the lines labelled ended or changed)."""
    pred = p.argmax(1)
    per = {}
    for i, label in enumerate(LABELS):
        tp = int(((pred == i) & (y == i)).sum())
        per[label] = {"precision": round(tp / max(1, int((pred == i).sum())), 3),
                      "recall": round(tp / max(1, int((y == i).sum())), 3), "n": int((y == i).sum())}
    change = p[:, 1] + p[:, 2] >= CHANGE_AT
    truth = (y == 1) | (y == 2)
    return {"accuracy": round(float((pred == y).mean()), 3), "labels": per,
            "change_side": {"precision": round(float((change & truth).sum() / max(1, change.sum())), 3),
                            "recall": round(float((change & truth).sum() / max(1, truth.sum())), 3)}}


def main() -> None:
    """Train, report across writers, write the weights."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", nargs="+", type=Path, default=CORPUS, metavar="FILE",
                    help="one file per writer (at least two)")
    ap.add_argument("--no-write", action="store_true", help="report only; leave the shipped weights alone")
    ap.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    args = ap.parse_args()
    if len(args.corpus) < 2:
        raise SystemExit("the cross-writer figure needs at least two writers' files")

    from nova_memory_integrations.config import EmbeddingConfig
    from nova_memory_integrations.embeddings.base import embedding_space
    from nova_memory_integrations.embeddings.factory import default_embeddings

    writers = [load(p) for p in args.corpus]
    names = [p.stem for p in args.corpus]
    sha = hashlib.sha256(b"".join(p.read_bytes() for p in args.corpus)).hexdigest()
    rows = [r for w in writers for r in w]
    who = np.concatenate([np.full(len(w), i) for i, w in enumerate(writers)])
    y = np.array([LABELS.index(r["label"]) for r in rows])
    log(f"corpus: {' + '.join(str(len(w)) for w in writers)} lines, sha256 {sha[:12]}")

    embedder = default_embeddings(EmbeddingConfig())
    space = embedding_space(embedder)
    texts = [variants(r) for r in rows]
    vecs = {}
    for kind in ("line", "clause", "head"):
        raw = cached_embeddings([t[kind] for t in texts], embedder.embed_documents, model_key=f"{space}:documents")
        vecs[kind] = raw / np.maximum(np.linalg.norm(raw, axis=1, keepdims=True), 1e-12)
    kinds = tuple(vecs)

    cross: dict[str, Any] = {}
    for k, name in enumerate(names):
        train, test = np.flatnonzero(who != k), np.flatnonzero(who == k)
        x, labels = stack(vecs, train, kinds), np.tile(y[train], len(kinds))
        net = fit_network(x, labels)
        w, b = fit(x, labels, LINEAR_L2)
        cross[f"to_{name}"] = {
            "network": {"clause": report(predict_network(net, vecs["clause"][test]), y[test]),
                        "line": report(predict_network(net, vecs["line"][test]), y[test])},
            "linear": {"clause": report(predict(w, b, vecs["clause"][test]), y[test])}}
        log(f"leave {name} out: clause accuracy {cross[f'to_{name}']['network']['clause']['accuracy']} "
            f"(linear {cross[f'to_{name}']['linear']['clause']['accuracy']})")
    mean = {f"{model}_{kind}": round(float(np.mean([c[model][kind]["accuracy"] for c in cross.values()])), 3)
            for model, kind in (("network", "clause"), ("network", "line"), ("linear", "clause"))}
    change = {f: round(float(np.mean([c["network"]["clause"]["change_side"][f] for c in cross.values()])), 3)
              for f in ("precision", "recall")}
    log(f"cross-writer: {mean}; change side at {CHANGE_AT}: {change}")
    every = np.arange(len(rows))
    w1, b1, w2, b2 = fit_network(stack(vecs, every, kinds), np.tile(y, len(kinds)))
    if not args.no_write:
        ClauseReader(w2.astype(np.float32), b2.astype(np.float32), space, sha, w1.astype(np.float32),
                     b1.astype(np.float32)).save(args.out, lines=len(rows),
                                                 cross_writer_clause_accuracy=mean["network_clause"])
        log(f"wrote {args.out}")
    emit({"benchmark": "train_clause_reader", "lines": {n: len(w) for n, w in zip(names, writers, strict=True)},
          "corpus_sha256": sha, "space": space, "hidden": HIDDEN, "l2": MLP_L2,
          "cross_writer_accuracy": mean, "change_side": change, "cross": cross})


if __name__ == "__main__":
    main()
