"""Pure scorers of the LoCoMo benchmark (no store, no model): importing this module is cheap.

- :func:`distinct_turns` / :func:`recall_at_k` rank-order the turns that retrieved items
  were derived from (an episode: its own turn; a fact or a merged snippet: every turn of
  its provenance, in order), drop repeats and cut at exactly ``k`` turns, so a system that
  returns multi-turn items is held to the same number of turns as a dense baseline;
- :func:`item_recall_at_k` is the older figure: every turn of the first ``k`` items;
- :func:`normalise_answer` / :func:`answer_word_recall` match gold-answer words as whole
  words after the SQuAD/LoCoMo normalisation (lower case, punctuation and the articles
  a/an/the removed, whitespace split): "art" does not match inside "party";
- :func:`answer_word_ceiling`: the answer words of a context that held every evidence turn in
  full (the context plus each evidence turn under its session date): what a retriever that
  missed nothing could score with this rendering and this scorer, so ``answer_words`` is
  read against its reachable top, not against 1.0;
- :func:`ndcg_at_k`: binary relevance of the first ``k`` distinct turns, ideal ranking
  ``min(|evidence|, k)`` relevant turns first;
- :func:`summarise` / :func:`cross_validate` turn per-question records into per-category
  means and leave-one-conversation-out folds.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

METRICS = ("recall_at_k", "item_recall_at_k", "context_recall", "answer_words", "answer_in_context",
           "answer_words_ceiling", "ndcg_at_10")
"""Per-question figures averaged by :func:`summarise` (a record may lack answer words: None)."""
CV_METRICS = ("recall_at_k", "context_recall", "answer_words", "answer_words_ceiling", "ndcg_at_10")
"""Figures reported per fold and as held-out / all-in means."""

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def distinct_turns(item_turns: Iterable[Sequence[str]], k: int | None = None) -> list[str]:
    """Turns of the items in rank order (each item's in its own order), without repeats, at most ``k``."""
    seen: dict[str, None] = {}
    for turns in item_turns:
        for t in turns:
            if k is not None and len(seen) >= k:
                return list(seen)
            seen.setdefault(t, None)
    return list(seen)


def recall_at_k(item_turns: Sequence[Sequence[str]], evidence: Iterable[str], k: int) -> float:
    """Share of the evidence turns among the first ``k`` distinct turns of the ranking."""
    gold = set(evidence)
    if not gold:
        raise ValueError("no evidence turns")
    return len(gold & set(distinct_turns(item_turns, k))) / len(gold)


def item_recall_at_k(item_turns: Sequence[Sequence[str]], evidence: Iterable[str], k: int) -> float:
    """Share of the evidence turns among every turn of the first ``k`` items (may be more than ``k`` turns)."""
    gold = set(evidence)
    if not gold:
        raise ValueError("no evidence turns")
    return len(gold & set(distinct_turns(item_turns[:k]))) / len(gold)


def ndcg_at_k(item_turns: Sequence[Sequence[str]], evidence: Iterable[str], k: int = 10) -> float:
    """NDCG of the first ``k`` distinct turns, relevance 1 for an evidence turn, 0 otherwise."""
    gold = set(evidence)
    if not gold:
        raise ValueError("no evidence turns")
    dcg = sum(1.0 / math.log2(i + 2) for i, t in enumerate(distinct_turns(item_turns, k)) if t in gold)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal


def normalise_answer(text: object) -> str:
    """SQuAD/LoCoMo normalisation: lower case, no punctuation, no articles, single spaces."""
    s = str(text).lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def answer_words(text: object) -> list[str]:
    """The distinct normalised words of a gold answer, in order."""
    return list(dict.fromkeys(normalise_answer(text).split()))


def answer_word_recall(answer: object, context: str) -> float | None:
    """Share of the answer's normalised words present as whole words in ``context`` (None: no words)."""
    words = answer_words(answer)
    if not words:
        return None
    have = set(normalise_answer(context).split())
    return sum(w in have for w in words) / len(words)


def answer_word_ceiling(answer: object, context: str, evidence_texts: Iterable[str]) -> float | None:
    """:func:`answer_word_recall` of ``context`` with every evidence turn's text added in full
    (each as the reader would see it, under its session date): the top a retriever that
    missed no evidence could reach. Words the evidence does not spell (a pronoun, "before"
    in "the Friday before 15 July 2023") stay missing here too."""
    return answer_word_recall(answer, "\n".join([context, *evidence_texts]))


def score_question(
    *, category: str, evidence: Iterable[str], ranked: Sequence[Sequence[str]], context_turns: Iterable[str],
    context_text: str, answer: object, k: int, evidence_texts: Iterable[str] = (),
) -> dict[str, Any]:
    """Every per-question figure: ``ranked`` holds each retrieved item's turns, best item first;
    ``evidence_texts`` the evidence turns as a context shows them (for ``answer_words_ceiling``)."""
    gold = set(evidence)
    words = answer_word_recall(answer, context_text)
    return {
        "category": category,
        "recall_at_k": recall_at_k(ranked, gold, k),
        "item_recall_at_k": item_recall_at_k(ranked, gold, k),
        "turns_in_k_items": len(distinct_turns(ranked[:k])),
        "context_recall": len(gold & set(context_turns)) / len(gold),
        "answer_words": words,
        "answer_in_context": None if words is None else float(words == 1.0),
        "answer_words_ceiling": answer_word_ceiling(answer, context_text, evidence_texts),
        "ndcg_at_10": ndcg_at_k(ranked, gold, 10),
    }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _raw_means(records: Sequence[Mapping[str, Any]], metrics: Sequence[str]) -> dict[str, float]:
    return {m: _mean(vals) for m in metrics if (vals := [r[m] for r in records if r.get(m) is not None])}


def means(records: Sequence[Mapping[str, Any]], metrics: Sequence[str] = METRICS) -> dict[str, float]:
    """Mean of each metric over the records that have it (None values skipped, 4 decimals), plus ``n``."""
    return {m: round(v, 4) for m, v in _raw_means(records, metrics).items()} | {"n": len(records)}


def summarise(records: Sequence[Mapping[str, Any]], categories: Sequence[str],
              metrics: Sequence[str] = METRICS) -> dict[str, dict[str, float]]:
    """Per-category table (categories present, in the given order) and ``overall``."""
    table = {c: means(rows, metrics) for c in categories if (rows := [r for r in records if r["category"] == c])}
    table["overall"] = means(records, metrics)
    return table


def cross_validate(
    results: Mapping[str, Mapping[str, Sequence[Mapping[str, Any]]]], *, select_by: str = "context_recall",
    metrics: Sequence[str] = CV_METRICS,
) -> dict[str, Any]:
    """Leave-one-conversation-out over per-question records.

    ``results[conversation][candidate]`` are the records of one conversation under one
    candidate config (every conversation has every candidate; candidate order is the
    preference on ties). Each fold picks the candidate with the best mean ``select_by``
    over the other conversations' questions and scores it on the held-out one.
    ``heldout_mean`` averages the folds' figures (one per conversation); ``heldout_pooled``
    pools the held-out questions, which equals the all-in figure when the grid has a
    single candidate. ``all_in`` is the in-sample figure: the candidate chosen on every
    conversation, scored on every conversation's questions.
    """
    convs = list(results)
    if len(convs) < 2:
        raise ValueError("leave-one-out needs at least two conversations")
    candidates = list(results[convs[0]])
    if not candidates or any(list(results[c]) != candidates for c in convs):
        raise ValueError("every conversation needs the same non-empty list of candidates")

    def pick(rows_of: Mapping[str, Sequence[Mapping[str, Any]]]) -> tuple[str, float]:
        """Best candidate by mean ``select_by`` (the earlier one on ties) and its score."""
        scored = [(_mean(v) if (v := [r[select_by] for r in rows_of[c] if r.get(select_by) is not None]) else 0.0, c)
                  for c in candidates]
        score, cand = max(scored, key=lambda sc: (sc[0], -candidates.index(sc[1])))
        return cand, score

    folds: list[dict[str, Any]] = []
    raw: list[dict[str, float]] = []
    pooled: list[Mapping[str, Any]] = []
    for held in convs:
        train = [c for c in convs if c != held]
        chosen, score = pick({cand: [r for c in train for r in results[c][cand]] for cand in candidates})
        rows = results[held][chosen]
        pooled.extend(rows)
        raw.append(_raw_means(rows, metrics))
        folds.append({"heldout": held, "chosen": chosen, "train_" + select_by: round(score, 4)} | means(rows, metrics))
    everything = {cand: [r for c in convs for r in results[c][cand]] for cand in candidates}
    best, _ = pick(everything)
    heldout_mean = {m: round(_mean(vals), 4) for m in metrics if (vals := [f[m] for f in raw if m in f])}
    return {"all_in": {"chosen": best} | means(everything[best], metrics), "heldout_mean": heldout_mean,
            "heldout_pooled": means(pooled, metrics), "folds": folds}
