"""``benchmarks/locomo.py --cv-select``: each fold chooses its candidate by the figure asked for."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from locomo import CV_SELECT, main, summary


def _rec(context_recall: float, answer_words: float) -> dict[str, Any]:
    return {"category": "single_hop", "recall_at_k": 0.5, "item_recall_at_k": 0.5, "context_recall": context_recall,
            "answer_words": answer_words, "answer_in_context": 0.0, "answer_words_ceiling": 1.0, "ndcg_at_10": 0.5,
            "turns_in_k_items": 10, "answer_words_substring": answer_words}


# "wide" wins on context recall everywhere, "whole" on answer words everywhere.
EV: dict[str, Any] = {
    "results": {c: {"wide": [_rec(0.9, 0.6)], "whole": [_rec(0.8, 0.7)]} for c in ("c1", "c2", "c3")},
    "latency": {c: {"retrieve": [1.0], "context": [2.0]} for c in ("wide", "whole")},
    "timing": {"ingest_s": 0.0, "consolidation_s": 0.0},
    "turns": 3,
}


def _chosen(select_by: str) -> list[str]:
    out = summary(EV, ["wide", "whole"], mode="nova", k=10, budget=1000, cv=True, select_by=select_by)
    return [f["chosen"] for f in out["cv"]["folds"]]


def test_folds_choose_by_context_recall_by_default() -> None:
    out = summary(EV, ["wide", "whole"], mode="nova", k=10, budget=1000, cv=True)
    assert [f["chosen"] for f in out["cv"]["folds"]] == ["wide"] * 3


def test_folds_choose_by_answer_words_when_asked() -> None:
    assert _chosen("answer_words") == ["whole"] * 3


def test_the_result_says_what_the_folds_chose_by() -> None:
    out = summary(EV, ["wide", "whole"], mode="nova", k=10, budget=1000, cv=True, select_by="answer_words")
    assert out["cv"]["select_by"] == "answer_words"


def test_the_held_out_figure_follows_the_choice() -> None:
    out = summary(EV, ["wide", "whole"], mode="nova", k=10, budget=1000, cv=True, select_by="answer_words")
    assert out["heldout_mean"]["answer_words"] == pytest.approx(0.7)


def test_the_ceiling_is_no_choice() -> None:
    assert "answer_words_ceiling" not in CV_SELECT


def test_an_unknown_figure_is_refused_by_the_command_line() -> None:
    with pytest.raises(SystemExit):
        main(["--cv", "--cv-select", "answer_words_ceiling"])
