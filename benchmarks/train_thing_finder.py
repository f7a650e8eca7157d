"""Train the thing finder (:mod:`nova_memory_integrations.changes.thing_finder`) and measure it across writers.

    .venv/bin/python benchmarks/train_thing_finder.py               # train, report, write the shipped weights
    .venv/bin/python benchmarks/train_thing_finder.py --no-write    # report only

The corpus is the clause reader's (``tests/data/clause_corpus/*.jsonl``, one file per independent writer):
each line's ``thing`` is the words naming the state it is about (``""`` on an ``other`` line naming none).
Each line gives two training texts, the whole line and the clause of it that holds the thing (as the change
layer segments a message, :func:`~nova_memory_integrations.changes.segments.segment`; the clause alone is
what the engine asks the finder about), and each token of a text is labelled 1 when it lies inside the
thing's words, else 0. Token vectors are the packaged ONNX MiniLM's last hidden state, from the documents'
session (what the store's tracker reads), cached under ``benchmarks/.cache/``.

The finder is one hidden ReLU layer of :data:`HIDDEN` units then a sigmoid, trained by mini-batch Adam on
binary cross-entropy plus :data:`L2` times the squared weights, :data:`EPOCHS` passes of batches of
:data:`BATCH`, from seed :data:`SEED`. The settings were fixed before the first cross-writer run and not tuned
on it.

**Cross-writer figures** (leave one writer out, train on the others, score the left-out writer's clauses; the
mean over writers): token precision and recall at :data:`~.thing_finder.WORD_PROBABILITY`, and per clause with
a thing, how often the finder's thing (:meth:`~.thing_finder.ThingFinder.find`) shares a content word with the
writer's (``hit``) or is the same words once determiners are left out (``exact``); per clause naming none,
how often it still finds one (``false_find``). The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import CACHE_DIR, emit, log
from train_clause_reader import CORPUS, load  # one corpus, one reader of its files

from nova_memory_integrations.changes.lexicon import STOPWORDS
from nova_memory_integrations.changes.segments import normalize_text, segment
from nova_memory_integrations.changes.thing_finder import (
    THING_PROBABILITY,
    WEIGHTS_PATH,
    WORD_PROBABILITY,
    ThingFinder,
    TokenStates,
)

HIDDEN = 128
L2 = 1e-4
EPOCHS = 8
BATCH = 256
RATE = 0.002
SEED = 7
SWEEP = (0.5, 0.6, 0.7)
"""Thresholds on a run's mean probability the cross-writer figures are also given at (the shipped one is
:data:`~.thing_finder.THING_PROBABILITY`)."""

Network = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def clause_with(text: str, thing: str) -> str | None:
    """The clause of ``text`` (normalised, segmented as the change layer does) holding all of ``thing``, or
    ``None`` when it is the whole text, the thing is empty or split across clauses."""
    norm = normalize_text(text)
    at = norm.lower().find(thing.lower()) if thing else -1
    if at < 0:
        return None
    for sentence in segment(norm):
        for clause in sentence.clauses:
            if clause.start <= at and at + len(thing) <= clause.end:
                piece = norm[clause.start:clause.end]
                return piece if piece.strip() != norm.strip() else None
    return None


def labelled(text: str, thing: str, states: TokenStates) -> np.ndarray:
    """Per token of ``text``: 1 inside the first occurrence of ``thing`` (any case), else 0."""
    at = text.lower().find(thing.lower()) if thing else -1
    offsets = states[0]
    if at < 0:
        return np.zeros(len(offsets), dtype=np.int8)
    return np.array([1 if a >= at and b <= at + len(thing) else 0 for a, b in offsets], dtype=np.int8)


def token_states(texts: list[str], embedder: Any, key: str) -> list[TokenStates]:
    """The texts' token states, cached on disk by their hash."""
    h = hashlib.sha256(key.encode())
    for t in texts:
        h.update(t.encode() + b"\0")
    path = CACHE_DIR / f"tokens-{h.hexdigest()[:20]}.npz"
    if path.exists():
        with np.load(path) as data:
            offsets, vectors, sizes = data["offsets"], data["vectors"], data["sizes"]
        cuts = np.cumsum(sizes)[:-1]
        return [([tuple(map(int, o)) for o in off], vec)
                for off, vec in zip(np.split(offsets, cuts), np.split(vectors, cuts), strict=True)]
    out: list[TokenStates] = []
    for start in range(0, len(texts), 256):
        out.extend(embedder.embed_tokens(texts[start:start + 256]))
        log(f"token states {min(start + 256, len(texts))}/{len(texts)}")
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    np.savez(path, offsets=np.concatenate([np.asarray(o, dtype=np.int32).reshape(-1, 2) for o, _ in out]),
             vectors=np.concatenate([v for _, v in out]).astype(np.float32),
             sizes=np.array([len(o) for o, _ in out]))
    return out


def fit(x: np.ndarray, y: np.ndarray) -> Network:
    """One hidden ReLU layer then a sigmoid: binary cross-entropy + :data:`L2` * (|W1|^2 + |W2|^2), mini-batch
    Adam (:data:`EPOCHS` x batches of :data:`BATCH`, rate :data:`RATE`), He-initialised from :data:`SEED`."""
    rng = np.random.default_rng(SEED)
    n, d = x.shape
    params = [rng.normal(scale=np.sqrt(2 / d), size=(d, HIDDEN)).astype(np.float32), np.zeros(HIDDEN, np.float32),
              np.zeros((HIDDEN, 1), np.float32), np.zeros(1, np.float32)]
    m = [np.zeros_like(q) for q in params]
    v = [np.zeros_like(q) for q in params]
    beta1, beta2, t = 0.9, 0.999, 0
    target = y.astype(np.float32)[:, None]
    for _ in range(EPOCHS):
        for rows in np.array_split(rng.permutation(n), max(1, n // BATCH)):
            t += 1
            w1, b1, w2, b2 = params
            xb = x[rows]
            h = np.maximum(xb @ w1 + b1, 0)
            p = 1 / (1 + np.exp(-np.clip(h @ w2 + b2, -30, 30)))
            g = (p - target[rows]) / len(rows)
            gh = g @ w2.T
            gh[h <= 0] = 0
            grads = (xb.T @ gh + 2 * L2 * w1, gh.sum(axis=0), h.T @ g + 2 * L2 * w2, g.sum(axis=0))
            for i, gr in enumerate(grads):
                m[i] = beta1 * m[i] + (1 - beta1) * gr
                v[i] = beta2 * v[i] + (1 - beta2) * gr ** 2
                params[i] -= RATE * (m[i] / (1 - beta1 ** t)) / (np.sqrt(v[i] / (1 - beta2 ** t)) + 1e-8)
    return params[0], params[1], params[2], params[3]


def content(words: str) -> set[str]:
    """The content words of ``words`` (lower case, stopwords and determiners left out)."""
    return {w.strip(".,'’!?") for w in words.lower().split()} - STOPWORDS - {""}


def score(finder: ThingFinder, texts: list[str], things: list[str], states: list[TokenStates],
          labels: list[np.ndarray]) -> dict[str, float]:
    """Token precision / recall, and per-clause hit / exact / false-find rates of the best run at
    :data:`~.thing_finder.THING_PROBABILITY` and, beside it, at each of :data:`SWEEP` (see the module
    docstring)."""
    tp = fp = fn = 0
    named = unnamed = 0
    hit = dict.fromkeys(SWEEP, 0)
    exact = dict.fromkeys(SWEEP, 0)
    false = dict.fromkeys(SWEEP, 0)
    for text, thing, st, lab in zip(texts, things, states, labels, strict=True):
        pred = finder.probabilities(st[1]) >= WORD_PROBABILITY if len(st[0]) else np.zeros(0, bool)
        tp += int((pred & (lab == 1)).sum())
        fp += int((pred & (lab == 0)).sum())
        fn += int((~pred & (lab == 1)).sum())
        runs = finder.things(text, st)
        named += bool(thing)
        unnamed += not thing
        for at in SWEEP:
            found = next((f for f in runs if f.probability >= at), None)
            if thing:
                hit[at] += bool(found and content(found.text) & content(thing))
                exact[at] += bool(found and content(found.text) == content(thing))
            else:
                false[at] += found is not None
    out = {"token_precision": round(tp / max(1, tp + fp), 3), "token_recall": round(tp / max(1, tp + fn), 3)}
    for at in SWEEP:
        tag = "" if at == THING_PROBABILITY else f"@{at}"
        out.update({f"hit{tag}": round(hit[at] / max(1, named), 3), f"exact{tag}": round(exact[at] / max(1, named), 3),
                    f"false_find{tag}": round(false[at] / max(1, unnamed), 3)})
    return out


def main() -> None:
    """Train, report across writers, write the weights."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", nargs="+", type=Path, default=CORPUS, metavar="FILE")
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
    embedder = default_embeddings(EmbeddingConfig())
    space = embedding_space(embedder)
    texts: list[str] = []
    things: list[str] = []
    who: list[int] = []
    is_clause: list[bool] = []
    for k, rows in enumerate(writers):
        for r in rows:
            thing = (r.get("thing") or "").strip()
            texts.append(normalize_text(r["text"]))
            things.append(thing)
            who.append(k)
            is_clause.append(False)
            if (piece := clause_with(r["text"], thing)) is not None:
                texts.append(piece)
                things.append(thing)
                who.append(k)
                is_clause.append(True)
    log(f"corpus: {' + '.join(str(len(w)) for w in writers)} lines, {len(texts)} texts, sha256 {sha[:12]}")
    states = token_states(texts, embedder, f"{space}:documents:tokens")
    labels = [labelled(t, th, st) for t, th, st in zip(texts, things, states, strict=True)]
    owner = np.concatenate([np.full(len(st[0]), w) for st, w in zip(states, who, strict=True)])
    x = np.concatenate([st[1] for st in states]).astype(np.float32)
    y = np.concatenate(labels)

    def finder_of(net: Network) -> ThingFinder:
        w1, b1, w2, b2 = net
        return ThingFinder(w2.astype(np.float32), b2.astype(np.float32), space, sha, w1.astype(np.float32),
                           b1.astype(np.float32))

    cross: dict[str, dict[str, float]] = {}
    for k, name in enumerate(names):
        finder = finder_of(fit(x[owner != k], y[owner != k]))
        test = [i for i, w in enumerate(who) if w == k and (is_clause[i] or clause_with(texts[i], things[i]) is None)]
        cross[f"to_{name}"] = score(finder, [texts[i] for i in test], [things[i] for i in test],
                                    [states[i] for i in test], [labels[i] for i in test])
        log(f"leave {name} out: {cross[f'to_{name}']}")
    mean = {f: round(float(np.mean([c[f] for c in cross.values()])), 3) for f in next(iter(cross.values()))}
    log(f"cross-writer: {mean}")
    if not args.no_write:
        finder_of(fit(x, y)).save(args.out, texts=len(texts), cross_writer_hit=mean["hit"])
        log(f"wrote {args.out}")
    emit({"benchmark": "train_thing_finder", "lines": {n: len(w) for n, w in zip(names, writers, strict=True)},
          "corpus_sha256": sha, "space": space, "hidden": HIDDEN, "l2": L2, "epochs": EPOCHS,
          "cross_writer": mean, "cross": cross})


if __name__ == "__main__":
    main()
