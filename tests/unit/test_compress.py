"""Compression: the pure helpers (``compress`` module) with the real MiniLM tokenizer (no model, no store).

``store.compress`` through a real store is in ``tests/integration/test_store_compress.py``.
"""

from __future__ import annotations

import pytest

from nova_memory_integrations.engine.tokens import TokenCounter, get_token_counter
from nova_memory_integrations.retrieval.compress import extract_sentences, near_duplicates, split_sentences


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return get_token_counter("minilm")


# -- split_sentences ----------------------------------------------------------------------------------
def test_split_sentences_on_punctuation_and_newlines() -> None:
    text = "Hello there. How are you? I'm fine!\nNew line without stop\n\n  Next. \"Quoted start.\" 3 apples… Done."
    assert split_sentences(text) == [
        "Hello there.", "How are you?", "I'm fine!", "New line without stop", "Next.", '"Quoted start." 3 apples…',
        "Done.",
    ]  # a sentence ending inside quotes is not split from the next one (a known simplification)


def test_split_sentences_keeps_abbreviations_and_decimals() -> None:
    assert split_sentences("We paid 3.5 euros, e.g. for tea. then more") == ["We paid 3.5 euros, e.g. for tea. then more"]
    assert split_sentences("") == [] and split_sentences("  \n ") == []


# -- near_duplicates ---------------------------------------------------------------------------------
def test_near_duplicates_maps_later_items_to_the_first_kept() -> None:
    a, b = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    vectors = [a, [2.0, 0.0, 0.0], b, [0.99, 0.05, 0.0], [0.7, 0.7, 0.0]]
    assert near_duplicates(vectors, 0.95) == {1: 0, 3: 0}
    assert near_duplicates(vectors, 0.7) == {1: 0, 3: 0, 4: 0}  # cos(a, [.7,.7]) = 0.707
    assert near_duplicates([a], 0.5) == {} and near_duplicates([], 0.5) == {}


def test_near_duplicates_handles_zero_vectors() -> None:
    assert near_duplicates([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0]], 0.9) == {}


# -- extract_sentences -------------------------------------------------------------------------------
LONG = ("The meeting started late because the projector was broken. "
        "We discussed the budget for the new office in Lisbon. "
        "Maya presented the hiring plan for next quarter. "
        "Everyone agreed the Lisbon office should open in March. "
        "Lunch was sandwiches and fruit.")


def test_extract_sentences_returns_short_text_unchanged(counter: TokenCounter) -> None:
    assert extract_sentences("Short text.", "anything", 50, counter) == "Short text."
    assert extract_sentences("Short text.", "anything", 0, counter) == ""


def test_extract_sentences_keeps_query_relevant_sentences_in_order(counter: TokenCounter) -> None:
    out = extract_sentences(LONG, "when does the Lisbon office open?", 30, counter)
    assert counter.count(out) <= 30
    assert "open in March" in out
    assert "Lunch" not in out and "projector" not in out
    parts = [p.strip() for p in out.split("…")]
    sentences = split_sentences(LONG)
    positions = [sentences.index(s) for p in parts for s in split_sentences(p)]
    assert positions == sorted(positions)  # original order, gaps marked with "…"


@pytest.mark.parametrize("max_tokens", [1, 3, 8, 15, 25, 40, 60, 200])
def test_extract_sentences_respects_the_limit(counter: TokenCounter, max_tokens: int) -> None:
    for text in (LONG, "word " * 300, "one enormous sentence " + "and more " * 100 + "end."):
        out = extract_sentences(text, "Lisbon budget", max_tokens, counter)
        assert counter.count(out) <= max_tokens


# -- small talk and transcripts ----------------------------------------------------------------------
@pytest.mark.parametrize("sentence", ["Wow, Caroline, that sounds awesome!", "Thanks, Mel!", "Hey Caroline!",
                                      "Yeah, I agree, they're awesome."])
def test_greetings_thanks_and_applause_are_phatic(sentence: str) -> None:
    from nova_memory_integrations.retrieval.compress import is_phatic

    assert is_phatic(sentence, {"caroline", "mel"})


@pytest.mark.parametrize("sentence", ["I love Paris!", "Thanks, the key is under the mat.", "Great, I got the job at Acme!",
                                      "Wow, Caroline, that sounds awesome and I would love to join you at the lake."])
def test_sentences_with_content_are_not_phatic(sentence: str) -> None:
    from nova_memory_integrations.retrieval.compress import is_phatic

    assert not is_phatic(sentence, {"caroline"})


def test_strip_phatic_keeps_the_speaker_and_the_content() -> None:
    from nova_memory_integrations.retrieval.compress import strip_phatic

    line = "Melanie: Thanks, Caroline! I painted a horse last week. Wow!"
    assert strip_phatic(line, {"caroline"}) == "Melanie: I painted a horse last week."
    assert strip_phatic("Melanie: Wow, Caroline, that sounds awesome!", {"caroline"}) == ""
    assert strip_phatic("I painted a horse.", set()) == "I painted a horse."


def test_extract_keeps_speaker_prefix_and_ignores_names_as_matches(counter: TokenCounter) -> None:
    line = ("Caroline: Thanks, Mel! It has been a long week and I am so tired of all the rain here. I made this "
            "stained glass window for the local church to remind us of our true potential.")
    out = extract_sentences(line, "What did Caroline make for the local church?", 28, counter, names={"caroline", "mel"})
    assert out.startswith("Caroline: ") and "stained glass window" in out, out
    assert "Thanks" not in out and counter.count(out) <= 28


def test_extract_matches_word_forms(counter: TokenCounter) -> None:
    text = ("We went to the lake on Saturday and the kids swam all afternoon in the water. "
            "I finished a painting of the sunrise over the hills. The dog slept the whole way home.")
    out = extract_sentences(text, "What has she painted?", 16, counter)
    assert "painting of the sunrise" in out, out
