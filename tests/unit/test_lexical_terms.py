"""``text.terms.terms``: the content words keyword search and compression match on."""

from __future__ import annotations

from nova_memory_integrations.retrieval.lexical import match_expression
from nova_memory_integrations.text.terms import terms


def test_words_are_casefolded() -> None:
    assert terms("Paris STRASSE Straße") == ["paris", "strasse"]


def test_a_curly_apostrophe_cuts_the_word_like_a_straight_one() -> None:
    assert terms("Jon’s café") == terms("Jon's café")


def test_the_part_after_an_apostrophe_is_dropped() -> None:
    assert terms("Melanie's violin") == ["melanie", "violin"]


def test_stopwords_are_dropped() -> None:
    assert terms("What did she paint in the summer?") == ["paint", "summer"]


def test_one_letter_words_are_dropped() -> None:
    assert terms("x marks a spot") == ["marks", "spot"]


def test_a_repeated_word_counts_once_in_first_order() -> None:
    assert terms("dogs cats dogs birds cats") == ["dogs", "cats", "birds"]


def test_at_most_max_terms_words() -> None:
    assert terms("one1 two2 three3 four4", max_terms=2) == ["one1", "two2"]


def test_repeats_do_not_use_up_max_terms() -> None:
    assert terms("dogs dogs dogs cats", max_terms=2) == ["dogs", "cats"]


def test_underscores_split_words() -> None:
    assert terms("snake_case name") == ["snake", "case", "name"]


def test_match_expression_quotes_each_word() -> None:
    assert match_expression('Jon’s "dance" studio') == '"jon" OR "dance" OR "studio"'
