"""Compression's sentence choice by relevance (each sentence's cosine to the query, from the
vectors the indexer keeps): ``extract_sentences(relevance=...)`` and ``sentences_of``.

Pure functions with the real MiniLM tokenizer (no model, no store). The context pipeline's use
of kept sentence vectors is in ``tests/integration/test_sentence_vectors.py``.
"""

from __future__ import annotations

import pytest

from nova_memory_integrations.engine.tokens import TokenCounter, get_token_counter
from nova_memory_integrations.retrieval.compress import extract_sentences, sentence_memo, sentences_of

QUERY = "Which pet did Maria adopt?"
WORDS = "The adoption forms for my new flat took a whole week."  # shares "adopt" with the query
MEANING = "Anyway, a tiny puppy from the shelter came home with me!"  # shares no word
TURN = f"Maria: {WORDS} {MEANING}"
SCORES = {WORDS: 0.2, MEANING: 0.6}


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return get_token_counter("minilm")


def _cut(counter: TokenCounter, relevance: dict[str, float] | None, text: str = TURN, cap: int = 18,
         stretch_to: int = 0) -> str:
    return extract_sentences(text, QUERY, cap, counter, names={"maria"}, relevance=relevance, stretch_to=stretch_to)


def test_sentences_of_leaves_the_speaker_aside() -> None:
    assert sentences_of(TURN) == (WORDS, MEANING)


def test_sentences_of_splits_an_annotation_off() -> None:
    assert sentences_of("Tim: Look at this. [shares a photo: a dog]") == ("Look at this.", "[shares a photo: a dog]")


def test_without_relevance_the_sentence_sharing_words_is_kept(counter: TokenCounter) -> None:
    assert _cut(counter, None) == f"Maria: {WORDS}"


def test_with_relevance_the_closest_sentence_is_kept(counter: TokenCounter) -> None:
    assert _cut(counter, SCORES) == f"Maria: {MEANING}"


def test_the_other_order_of_scores_keeps_the_other_sentence(counter: TokenCounter) -> None:
    assert _cut(counter, {WORDS: 0.6, MEANING: 0.2}) == f"Maria: {WORDS}"


def test_relevance_missing_a_sentence_falls_back_to_shared_words(counter: TokenCounter) -> None:
    assert _cut(counter, {MEANING: 0.9}) == f"Maria: {WORDS}"


def test_a_text_that_fits_is_returned_whole(counter: TokenCounter) -> None:
    assert _cut(counter, SCORES, cap=200) == TURN


def test_greetings_come_last_however_close(counter: TokenCounter) -> None:
    text = f"Maria: Wow, that sounds so awesome! {MEANING}"
    assert _cut(counter, {"Wow, that sounds so awesome!": 0.99, MEANING: 0.1}, text=text) == f"Maria: {MEANING}"


def test_both_fit_in_their_order_with_room(counter: TokenCounter) -> None:
    assert _cut(counter, SCORES, cap=36) == TURN


def test_the_closest_is_kept_whole_when_it_fits_the_stretch(counter: TokenCounter) -> None:
    assert _cut(counter, SCORES, cap=10, stretch_to=30) == f"Maria: {MEANING}"


def test_without_stretch_the_closest_is_truncated(counter: TokenCounter) -> None:
    assert _cut(counter, SCORES, cap=10).startswith("Maria: Anyway")


def test_the_memoised_split_is_the_same() -> None:
    assert sentence_memo(TURN) == sentences_of(TURN)
