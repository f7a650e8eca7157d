"""The LoCoMo scorers on tiny hand-made cases whose figures are known by hand (no store, no model)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from locomo_scoring import (
    answer_word_ceiling,
    answer_word_recall,
    answer_words,
    cross_validate,
    distinct_turns,
    item_recall_at_k,
    ndcg_at_k,
    normalise_answer,
    recall_at_k,
    score_question,
    summarise,
)

# A fact at rank 1 derived from three turns, then an episode.
FACT_FIRST = [["D1:1", "D1:2", "D1:3"], ["D2:1"]]
# The same turn reached twice (an episode, then a snippet holding it), then a third turn.
DUPLICATES = [["D1:1"], ["D1:1", "D1:2"], ["D1:3"]]


# -- recall@k over distinct turns ----------------------------------------------------------
def test_fact_spanning_three_turns_fills_k_with_its_first_two() -> None:
    assert distinct_turns(FACT_FIRST, 2) == ["D1:1", "D1:2"]


def test_third_provenance_turn_is_beyond_k() -> None:
    assert recall_at_k(FACT_FIRST, {"D1:3"}, 2) == 0.0


def test_second_item_is_beyond_k_turns() -> None:
    assert recall_at_k(FACT_FIRST, {"D2:1"}, 2) == 0.0


def test_turn_within_k_counts() -> None:
    assert recall_at_k(FACT_FIRST, {"D1:2", "D2:1"}, 2) == 0.5


def test_k_large_enough_reaches_every_turn() -> None:
    assert recall_at_k(FACT_FIRST, {"D1:3", "D2:1"}, 4) == 1.0


def test_item_recall_counts_every_turn_of_k_items() -> None:
    assert item_recall_at_k(FACT_FIRST, {"D1:3", "D2:1"}, 2) == 1.0


def test_item_recall_of_one_item() -> None:
    assert item_recall_at_k(FACT_FIRST, {"D1:3", "D2:1"}, 1) == 0.5


def test_duplicate_turns_take_one_slot() -> None:
    assert distinct_turns(DUPLICATES, 2) == ["D1:1", "D1:2"]


def test_duplicate_turns_do_not_push_out_the_third_turn() -> None:
    assert recall_at_k(DUPLICATES, {"D1:3"}, 3) == 1.0


def test_duplicate_turns_still_cut_at_k() -> None:
    assert recall_at_k(DUPLICATES, {"D1:3"}, 2) == 0.0


def test_short_ranking_is_not_padded() -> None:
    assert distinct_turns(DUPLICATES, 10) == ["D1:1", "D1:2", "D1:3"]


def test_items_without_turns_take_no_slot() -> None:
    assert distinct_turns([[], ["D1:1"], [], ["D1:2"]], 2) == ["D1:1", "D1:2"]


def test_recall_needs_evidence() -> None:
    with pytest.raises(ValueError):
        recall_at_k(FACT_FIRST, set(), 2)


# -- answer words ------------------------------------------------------------------------
def test_art_does_not_match_inside_party() -> None:
    assert answer_word_recall("art", "They threw a party for Caroline.") == 0.0


def test_art_matches_as_a_whole_word() -> None:
    assert answer_word_recall("art", "Caroline loves art.") == 1.0


def test_normalise_removes_articles_punctuation_and_case() -> None:
    assert normalise_answer("The Art, of an  Apple!") == "art of apple"


def test_article_inside_a_word_stays() -> None:
    assert normalise_answer("Anna theatre") == "anna theatre"


def test_answer_words_are_distinct_and_ordered() -> None:
    assert answer_words("A dog, the dog and a cat.") == ["dog", "and", "cat"]


def test_punctuation_does_not_block_a_match() -> None:
    assert answer_word_recall("The Eiffel Tower.", "we saw (eiffel tower)!") == 1.0


def test_partial_answer_counts_its_share() -> None:
    assert answer_word_recall("pottery class", "she took a pottery workshop") == 0.5


def test_plural_is_another_word() -> None:
    assert answer_word_recall("dog", "two dogs") == 0.0


def test_number_answer() -> None:
    assert answer_word_recall(2022, "They met in 2022.") == 1.0


def test_answer_of_articles_only_has_no_words() -> None:
    assert answer_word_recall("The", "the end") is None


# -- NDCG@10 -------------------------------------------------------------------------------
def test_ndcg_single_relevant_at_rank_one() -> None:
    assert ndcg_at_k([["a"], ["b"], ["c"]], {"a"}, 10) == 1.0


def test_ndcg_single_relevant_at_rank_three() -> None:
    assert ndcg_at_k([["a"], ["b"], ["c"]], {"c"}, 10) == 0.5  # 1/log2(4), ideal 1


def test_ndcg_two_relevant_at_ranks_two_and_three() -> None:
    expected = (1 / math.log2(3) + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k([["a"], ["b"], ["c"]], {"b", "c"}, 10) == pytest.approx(expected)


def test_ndcg_counts_turns_not_items() -> None:
    assert ndcg_at_k([["x", "a"]], {"a"}, 10) == pytest.approx(1 / math.log2(3))


def test_ndcg_relevant_beyond_k_scores_zero() -> None:
    assert ndcg_at_k([["a", "b", "c"]], {"c"}, 2) == 0.0


def test_ndcg_ideal_is_capped_at_k() -> None:
    turns = [[f"t{i}"] for i in range(12)]
    assert ndcg_at_k(turns, {f"t{i}" for i in range(12)}, 10) == pytest.approx(1.0)


def test_ndcg_missing_evidence_lowers_the_ideal_share() -> None:
    assert ndcg_at_k([["a"]], {"a", "z"}, 10) == pytest.approx(1 / (1 + 1 / math.log2(3)))


# -- one question, tables, cross-validation ------------------------------------------------------
QUESTION = score_question(category="single_hop", evidence={"D1:3"}, ranked=FACT_FIRST, context_turns=["D1:3"],
                          context_text="Caroline went to a party", answer="art", k=2)


def test_question_recall_at_k_is_turn_level() -> None:
    assert QUESTION["recall_at_k"] == 0.0


def test_question_item_recall_is_item_level() -> None:
    assert QUESTION["item_recall_at_k"] == 1.0


def test_question_counts_turns_of_k_items() -> None:
    assert QUESTION["turns_in_k_items"] == 4


def test_question_context_recall() -> None:
    assert QUESTION["context_recall"] == 1.0


def test_question_answer_words() -> None:
    assert QUESTION["answer_words"] == 0.0


def test_question_ndcg() -> None:
    assert QUESTION["ndcg_at_10"] == 0.5  # D1:3 is the third distinct turn


def test_question_answer_word_ceiling_without_evidence_texts_is_the_context() -> None:
    assert QUESTION["answer_words_ceiling"] == 0.0


def test_question_answer_word_ceiling_reads_the_evidence_texts() -> None:
    rec = score_question(category="single_hop", evidence={"D1:3"}, ranked=FACT_FIRST, context_turns=[],
                         context_text="Caroline went to a party", answer="art", k=2,
                         evidence_texts=["### 8 May 2023\n- Caroline: I love art"])
    assert rec["answer_words_ceiling"] == 1.0


def test_ceiling_counts_words_of_the_context() -> None:
    assert answer_word_ceiling("pottery class", "Melanie took a pottery class", []) == 1.0


def test_ceiling_adds_words_only_an_evidence_turn_holds() -> None:
    assert answer_word_ceiling("7 May 2023", "Caroline: I went yesterday", ["### 8 May 2023\n- (yesterday = 7 May 2023)"]) == 1.0


def test_ceiling_keeps_words_no_text_spells_missing() -> None:
    assert answer_word_ceiling("Friday before 15 July 2023", "", ["### 15 July 2023\n- last Fri"]) == 0.6


def test_ceiling_matches_whole_words_like_answer_words() -> None:
    assert answer_word_ceiling("art", "", ["a party"]) == 0.0


def test_ceiling_of_an_answer_without_words_is_none() -> None:
    assert answer_word_ceiling("the", "anything", ["the"]) is None


def _rec(category: str, value: float) -> dict[str, object]:
    return {"category": category, "recall_at_k": value, "context_recall": value, "answer_words": None,
            "ndcg_at_10": value}


def test_summarise_per_category() -> None:
    table = summarise([_rec("temporal", 1.0), _rec("temporal", 0.0), _rec("single_hop", 1.0)],
                      ["multi_hop", "temporal", "single_hop"])
    assert table["temporal"] == {"recall_at_k": 0.5, "context_recall": 0.5, "ndcg_at_10": 0.5, "n": 2}


def test_summarise_overall_pools_questions() -> None:
    table = summarise([_rec("temporal", 1.0), _rec("temporal", 0.0), _rec("single_hop", 1.0)], ["temporal"])
    assert table["overall"]["recall_at_k"] == pytest.approx(0.6667)


def test_summarise_skips_absent_categories() -> None:
    assert list(summarise([_rec("temporal", 1.0)], ["multi_hop", "temporal"])) == ["temporal", "overall"]


# Candidate "b" wins on conversations c1 and c2, "a" on c3; c1 has two questions.
CV_RESULTS = {
    "c1": {"a": [_rec("x", 0.0), _rec("x", 0.0)], "b": [_rec("x", 1.0), _rec("x", 1.0)]},
    "c2": {"a": [_rec("x", 0.2)], "b": [_rec("x", 0.6)]},
    "c3": {"a": [_rec("x", 1.0)], "b": [_rec("x", 0.5)]},
}


def test_cv_fold_chooses_on_training_conversations() -> None:
    folds = cross_validate(CV_RESULTS)["folds"]
    assert [f["chosen"] for f in folds] == ["a", "b", "b"]  # without c1, "a" leads 0.6 to 0.55


def test_cv_fold_scores_the_heldout_conversation() -> None:
    folds = cross_validate(CV_RESULTS)["folds"]
    assert [f["context_recall"] for f in folds] == [0.0, 0.6, 0.5]


def test_cv_heldout_mean_averages_folds() -> None:
    assert cross_validate(CV_RESULTS)["heldout_mean"]["context_recall"] == pytest.approx(0.3667)


def test_cv_heldout_pooled_pools_questions() -> None:
    assert cross_validate(CV_RESULTS)["heldout_pooled"]["context_recall"] == pytest.approx(0.275)


def test_cv_all_in_chooses_on_everything() -> None:
    assert cross_validate(CV_RESULTS)["all_in"]["chosen"] == "b"  # 0.775 against 0.3


def test_cv_all_in_scores_everything() -> None:
    assert cross_validate(CV_RESULTS)["all_in"]["context_recall"] == 0.775


def test_cv_tie_keeps_the_first_candidate() -> None:
    tied = {c: {"a": [_rec("x", 0.5)], "b": [_rec("x", 0.5)]} for c in ("c1", "c2")}
    assert [f["chosen"] for f in cross_validate(tied)["folds"]] == ["a", "a"]


def test_cv_single_candidate_pooled_equals_all_in() -> None:
    single = {c: {"default": runs["b"]} for c, runs in CV_RESULTS.items()}
    res = cross_validate(single)
    assert res["heldout_pooled"] == {k: v for k, v in res["all_in"].items() if k != "chosen"}


def test_cv_needs_two_conversations() -> None:
    with pytest.raises(ValueError):
        cross_validate({"c1": CV_RESULTS["c1"]})
