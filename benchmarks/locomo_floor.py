"""The relevance floor on LoCoMo (``benchmarks/locomo.py --cv-floors``, the probes): pure, no store.

``SearchConfig.relevance_floor`` / ``unmatched_floor`` gate a whole query (``retrieval/floor.py``):
below them ``context()`` injects nothing for relevance. The gate changes only the context of the
gated questions, so the figures a pair of floors would give are derived from one run without them:
a question it gates gets the empty context's figures (:func:`floored`). What the derivation leaves
out: a gated question touches no turns, so the access prior of later questions moves by a hair;
the plain ``--cv`` run with the chosen defaults is the exact check.

:func:`calibrate` is leave-one-conversation-out: each fold keeps the pairs of floors that lose
nothing on its four training conversations (their mean ``select_by`` figure equals the one without
a floor), takes among them the one that saves the most tokens on the training conversations'
probes (the lower floors on a tie), and scores it on the fifth.

The probes measure what the floor saves: LoCoMo's adversarial questions (category 5: their
evidence is not in memory as asked, typically the other speaker's doing) and :data:`UNRELATED`,
questions no conversation touches, each asked after every scored question, with and without the
floors; their records hold the tokens injected.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

__all__ = ["UNRELATED", "calibrate", "floored", "gates", "pairs", "probe_report"]

UNRELATED = (
    "Which SQL isolation level prevents phantom reads?",
    "What is the half-life of carbon-14?",
    "How do I configure a VLAN on a managed network switch?",
    "What torque should the lug nuts of a compact car be tightened to?",
    "How is the determinant of a 3x3 matrix computed?",
    "What does the Krebs cycle produce?",
    "Which port does SMTP use by default?",
    "How many moons does Neptune have?",
)
"""Questions about nothing any LoCoMo conversation discusses (the floor's "unrelated question")."""

Floors = tuple[float, float]
"""``(relevance_floor, unmatched_floor)``."""
_EMPTIED = ("context_recall", "answer_words", "answer_in_context")
"""The figures an empty context zeroes (a record without answer words keeps its None)."""


def gates(rec: Mapping[str, Any], floors: Floors) -> bool:
    """Whether ``floors`` gate a question of this record (as ``retrieval/floor.gated`` does)."""
    best = rec.get("best_match")
    if best is None:
        return False
    return best < floors[0] or (not rec.get("keyword_match") and best < floors[1])


def floored(records: Sequence[Mapping[str, Any]], floors: Floors) -> list[dict[str, Any]]:
    """``records`` as ``floors`` would leave them: a gated question gets the empty context's figures
    (context recall and answer words 0, the ceiling of the evidence alone: ``ceiling_alone``); the
    ranking figures (recall@k, NDCG) do not depend on the context and stay."""
    out: list[dict[str, Any]] = []
    for rec in records:
        if not gates(rec, floors):
            out.append(dict(rec))
            continue
        emptied = {m: (None if rec.get(m) is None else 0.0) for m in _EMPTIED}
        out.append({**rec, **emptied, "answer_words_ceiling": rec.get("ceiling_alone"), "gated": True})
    return out


def pairs(relevance: Sequence[float], unmatched: Sequence[float]) -> list[Floors]:
    """Every pair of floors worth trying, ``(0, 0)`` first: an unmatched floor at or below the
    relevance floor adds nothing, so it is left out (but for 0: off)."""
    rel = sorted({0.0, *relevance})
    unm = sorted({0.0, *unmatched})
    return [(r, u) for r, u in product(rel, unm) if u == 0.0 or u > r]


def _mean(records: Sequence[Mapping[str, Any]], metric: str) -> float:
    vals = [r[metric] for r in records if r.get(metric) is not None]
    return sum(vals) / len(vals) if vals else 0.0


def _probe_tokens(probes: Sequence[Mapping[str, Any]], floors: Floors) -> float:
    """Mean tokens the probes would get under ``floors`` (a gated probe keeps its guaranteed slots)."""
    if not probes:
        return 0.0
    return sum(p["reserved_tokens"] if gates(p, floors) else p["tokens_no_floor"] for p in probes) / len(probes)


def calibrate(records: Mapping[str, Sequence[Mapping[str, Any]]], probes: Mapping[str, Sequence[Mapping[str, Any]]],
              grid: Sequence[Floors], *, select_by: str = "context_recall",
              metrics: Sequence[str] = ("context_recall", "answer_words")) -> dict[str, Any]:
    """Leave-one-conversation-out choice of the floors (see the module's docstring).

    ``records[conversation]`` are the scored questions of one run without floors, ``probes[conversation]``
    its probes. Per fold: the chosen floors, the held-out figures with them and without, the held-out
    probes' mean tokens with them and without. ``heldout_mean`` / ``heldout_mean_no_floor`` average the
    folds; ``chosen`` lists each fold's floors.
    """
    convs = list(records)
    if len(convs) < 2:
        raise ValueError("leave-one-out needs at least two conversations")
    off: Floors = (0.0, 0.0)
    folds: list[dict[str, Any]] = []
    for held in convs:
        train = [r for c in convs if c != held for r in records[c]]
        train_probes = [p for c in convs if c != held for p in probes.get(c, ())]
        base = _mean(train, select_by)
        keep = [f for f in grid if _mean(floored(train, f), select_by) >= base]
        chosen = min(keep, key=lambda f: (_probe_tokens(train_probes, f), f))
        rows, bare = floored(records[held], chosen), records[held]
        held_probes = probes.get(held, ())
        by_kind = {k: [p for p in held_probes if p["kind"] == k] for k in dict.fromkeys(p["kind"] for p in held_probes)}
        folds.append({
            "heldout": held, "relevance_floor": chosen[0], "unmatched_floor": chosen[1],
            "gated": sum(gates(r, chosen) for r in bare),
            **{m: round(_mean(rows, m), 4) for m in metrics},
            **{f"{m}_no_floor": round(_mean(bare, m), 4) for m in metrics},
            "probe_tokens": {k: round(_probe_tokens(v, chosen), 1) for k, v in by_kind.items()},
            "probe_tokens_no_floor": {k: round(_probe_tokens(v, off), 1) for k, v in by_kind.items()},
        })
    n = len(folds)
    return {"grid": [list(f) for f in grid], "select_by": select_by, "folds": folds,
            "chosen": [[f["relevance_floor"], f["unmatched_floor"]] for f in folds],
            "heldout_mean": {m: round(sum(f[m] for f in folds) / n, 4) for m in metrics},
            "heldout_mean_no_floor": {m: round(sum(f[f"{m}_no_floor"] for f in folds) / n, 4) for m in metrics}}


def probe_report(probes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Per probe kind (``adversarial``, ``unrelated``): how many were asked, the mean tokens injected
    with the run's floors and without any (``mean_tokens_no_floor``), how many the floors gated."""
    out: dict[str, Any] = {}
    for kind in dict.fromkeys(p["kind"] for p in probes):
        rows = [p for p in probes if p["kind"] == kind]
        n = len(rows)
        out[kind] = {"questions": n, "mean_tokens": round(sum(p["tokens"] for p in rows) / n, 1),
                     "mean_tokens_no_floor": round(sum(p["tokens_no_floor"] for p in rows) / n, 1),
                     "gated": sum(p["gated"] for p in rows)}
    return out
