"""The relevance floor's gate (``retrieval/floor.py``) and its calibration on LoCoMo
(``benchmarks/locomo_floor.py``): pure functions over made-up records."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations.retrieval.candidate import Candidate
from nova_memory_integrations.retrieval.floor import Relevance, gated, relevance_of
from nova_memory_integrations.retrieval.search_config import SearchConfig, Signal

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from locomo_floor import calibrate, floored, gates, pairs

FLOORS = SearchConfig(relevance_floor=0.2, unmatched_floor=0.4)


def test_relevance_of_reads_the_best_cosine_and_keyword_hits() -> None:
    hits = [Candidate("episode", "a", "x", vector=[1.0, 0.0], raw={Signal.DENSE: 0.1}),
            Candidate("episode", "b", "y", vector=[0.6, 0.8], raw={Signal.LEXICAL: 3.0}),
            Candidate("fact", "c", "z")]
    assert relevance_of(hits[:2], [0.0, 1.0]) == Relevance(0.8, True)
    assert relevance_of(hits[:1], [0.0, 1.0]) == Relevance(0.0, False)
    assert relevance_of(hits[:2], None).best is None
    assert relevance_of(hits, [0.0, 1.0]) == Relevance(None, True)  # "c" has no vector: it may be the match


@pytest.mark.parametrize("best, keyword, why", [
    (0.1, True, "best match 0.10 < 0.2"),
    (0.3, False, "no keyword matched and best match 0.30 < 0.4"),
    (0.3, True, None),
    (0.5, False, None),
    (None, False, None),  # nothing compared: fail open
])
def test_the_gate(best: float | None, keyword: bool, why: str | None) -> None:
    reason = gated(Relevance(best, keyword), FLOORS)
    assert (reason is None) == (why is None) and (why is None or why in str(reason))
    assert gated(Relevance(0.01, False), SearchConfig(relevance_floor=0.0, unmatched_floor=0.0)) is None


def _rec(best: float, recall: float, keyword: bool = True) -> dict[str, Any]:
    return {"category": "single_hop", "best_match": best, "keyword_match": keyword, "context_recall": recall,
            "answer_words": recall, "answer_in_context": recall, "answer_words_ceiling": 1.0, "ceiling_alone": 0.5,
            "recall_at_k": 1.0}


def _probe(best: float, keyword: bool = False) -> dict[str, Any]:
    return {"kind": "unrelated", "best_match": best, "keyword_match": keyword, "tokens": 900,
            "tokens_no_floor": 900, "gated": False, "reserved_tokens": 20}


def test_floored_empties_only_gated_questions() -> None:
    rows = floored([_rec(0.1, 1.0), _rec(0.5, 1.0), _rec(0.3, 1.0, keyword=False)], (0.2, 0.4))
    assert [r["context_recall"] for r in rows] == [0.0, 1.0, 0.0]
    assert rows[0]["answer_words_ceiling"] == 0.5 and rows[0]["recall_at_k"] == 1.0  # ranking figures stay
    assert not gates({"best_match": None}, (0.9, 0.9))
    assert pairs([0.1], [0.05, 0.3]) == [(0.0, 0.0), (0.0, 0.05), (0.0, 0.3), (0.1, 0.0), (0.1, 0.3)]


def test_each_fold_keeps_its_training_figures_and_saves_the_most_there() -> None:
    # c1..c3: answered questions at 0.3 and above; c4 has one answered at 0.15, which c4's own fold cannot know.
    records = {c: [_rec(0.3, 1.0), _rec(0.6, 1.0)] for c in ("c1", "c2", "c3")} | {"c4": [_rec(0.15, 1.0)]}
    probes = {c: [_probe(0.08, keyword=True), _probe(0.18, keyword=True)] for c in records}
    out = calibrate(records, probes, pairs([0.1, 0.2], [0.3]))
    by_fold = {f["heldout"]: f for f in out["folds"]}
    assert (by_fold["c4"]["relevance_floor"], by_fold["c4"]["unmatched_floor"]) == (0.2, 0.0)  # saves both probes
    assert by_fold["c4"]["context_recall"] == 0.0 and by_fold["c4"]["context_recall_no_floor"] == 1.0
    assert by_fold["c1"]["relevance_floor"] == 0.1 and by_fold["c1"]["context_recall"] == 1.0  # 0.2 would cost c4
    assert by_fold["c1"]["probe_tokens"] == {"unrelated": 460.0}
    assert by_fold["c1"]["probe_tokens_no_floor"] == {"unrelated": 900.0}
    assert out["heldout_mean"]["context_recall"] == 0.75 and out["heldout_mean_no_floor"]["context_recall"] == 1.0


def test_an_unmatched_floor_gates_only_queries_no_keyword_matched() -> None:
    records = {c: [_rec(0.3, 1.0), _rec(0.5, 1.0, keyword=False)] for c in ("c1", "c2")}
    probes = {c: [_probe(0.35, keyword=False)] for c in records}  # only the unmatched floor can save it
    out = calibrate(records, probes, pairs([0.1], [0.4]))
    assert out["chosen"] == [[0.0, 0.4], [0.0, 0.4]] and out["heldout_mean"]["context_recall"] == 1.0


@pytest.mark.parametrize("argv, says", [
    (["--cv-floors", "0.1"], "need --cv"),
    (["--cv", "--cv-floors", "0.1,high"], "take numbers"),
    (["--cv", "--cv-unmatched", "1.5"], "floors in (0, 1]"),
])
def test_the_floor_options_are_checked(argv: list[str], says: str, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from locomo import main

    data = tmp_path / "two.json"
    data.write_text('[{"sample_id": "a", "conversation": {}, "qa": []}, '
                    '{"sample_id": "b", "conversation": {}, "qa": []}]', encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["--data", str(data), *argv])
    assert exit_.value.code == 2 and says in capsys.readouterr().err
