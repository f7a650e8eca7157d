"""``retrieval.lexical.searched_words``: which query words a keyword search keeps when some are
common (found in most turns) or found nowhere, and the FTS5 phrases it searches them with."""

from __future__ import annotations

import pytest

from nova_memory_integrations.retrieval.lexical import any_of, match_expression, phrase, searched_words


def test_words_within_the_share_are_all_kept() -> None:
    assert searched_words(["pension", "weekend"], [300, 700], 10_000, share=0.1, at_least=0) == ["pension", "weekend"]


def test_a_word_above_the_share_is_left_out() -> None:
    assert searched_words(["pension", "planned"], [300, 2_200], 10_000, share=0.1, at_least=0) == ["pension"]


def test_a_word_at_exactly_the_share_is_kept() -> None:
    assert searched_words(["pension", "weekend"], [300, 1_000], 10_000, share=0.1, at_least=0) == ["pension", "weekend"]


def test_a_word_in_few_turns_is_kept_whatever_its_share() -> None:
    # 300 of 400 turns, but within at_least: a small history keeps its words
    assert searched_words(["melanie", "pottery"], [300, 4], 400, share=0.1, at_least=1_000) == ["melanie", "pottery"]


def test_a_word_above_both_limits_is_left_out() -> None:
    assert searched_words(["work", "guitar"], [2_500, 400], 10_000, share=0.1, at_least=1_000) == ["guitar"]


def test_the_larger_limit_decides() -> None:
    # share 0.1 of 50k = 5,000 rows: a word in 2,000 turns stays although it is above at_least
    assert searched_words(["budget", "work"], [2_000, 6_000], 50_000, share=0.1, at_least=1_000) == ["budget"]


def test_when_every_word_is_common_none_is_left() -> None:
    assert searched_words(["project", "garden", "work"], [4_676, 4_671, 4_406], 10_000, share=0.1,
                          at_least=0) == []


def test_order_of_the_kept_words_is_the_querys() -> None:
    assert searched_words(["zeta", "work", "alpha"], [5, 9_000, 3], 10_000, share=0.1, at_least=0) == ["zeta", "alpha"]


def test_a_share_of_one_keeps_every_word() -> None:
    assert searched_words(["work", "garden"], [9_000, 10_000], 10_000, share=1.0, at_least=0) == ["work", "garden"]


def test_a_word_found_nowhere_is_left_out() -> None:
    assert searched_words(["zebra", "guitar"], [0, 3], 10_000, share=0.1, at_least=0) == ["guitar"]


def test_a_word_found_nowhere_leaves_the_common_ones_out_too() -> None:
    # "see" is in no turn, "hiking" in all 150: nothing is worth a keyword search
    assert searched_words(["see", "hiking"], [0, 150], 150, share=0.15, at_least=50) == []


def test_words_found_nowhere_leave_nothing_to_search() -> None:
    assert searched_words(["zebra", "yeti"], [0, 0], 10_000, share=0.1, at_least=0) == []


def test_no_words_give_no_words() -> None:
    assert searched_words([], [], 10_000, share=0.1, at_least=0) == []


def test_a_count_missing_for_a_word_is_an_error() -> None:
    with pytest.raises(ValueError, match="2 words but 1 counts"):
        searched_words(["a", "b"], [1], 10, share=0.1, at_least=0)


def test_a_phrase_is_quoted() -> None:
    assert phrase("tennis") == '"tennis"'


def test_a_quote_inside_a_phrase_is_doubled() -> None:
    assert phrase('a"b') == '"a""b"'


def test_any_of_ors_the_phrases() -> None:
    assert any_of(["tennis", "paris"]) == '"tennis" OR "paris"'


def test_match_expression_is_any_of_the_terms() -> None:
    assert match_expression("Did Priya like the lease in Nairobi?") == any_of(["priya", "lease", "nairobi"])
