"""The package's stopwords are one definition in ``text/terms`` that every reader combines from named
parts: recall, the fallback reranker and the lifecycle's topics (change detection's list of words never
taken for a mention is another thing, in ``changes/lexicon``)."""

from __future__ import annotations

from nova_memory_integrations.memory.lifecycle_rules import topics
from nova_memory_integrations.rerank import fallback
from nova_memory_integrations.text.terms import CHAT_WORDS, FUNCTION_WORDS, REPLY_WORDS, STOPWORDS, terms


def test_recall_drops_function_and_chat_words() -> None:
    assert STOPWORDS == FUNCTION_WORDS | CHAT_WORDS
    assert terms("I've said that you're really into sailing, haven't I?") == ["sailing", "haven"]  # cut at the apostrophe


def test_the_reranker_drops_the_function_words_as_it_spells_them() -> None:
    assert fallback.tokenize("you're the one I don't know") == [fallback.stem(w) for w in ("one", "know")]
    assert fallback.tokenize("dont", keep_stopwords=True) == ["dont"]


def test_the_reranker_still_weighs_chat_words() -> None:
    """A query is all the reranker has: 'going' and 'think' may be what it asks about."""
    assert fallback.tokenize("going") == [fallback.stem("going")]
    assert "going" in CHAT_WORDS


def test_no_chat_word_or_reply_is_a_topic() -> None:
    said = ["Yes, thanks! I said things about sailing.", "Well, sailing again, I think. Many things, okay?"]
    assert topics(said) == ["sailing"]
    assert {"yes", "thanks", "okay", "well"} <= REPLY_WORDS
