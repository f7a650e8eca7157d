"""Compression's sentence choice: stems, annotations as sentences, the best sentence kept whole.

Pure functions with the real MiniLM tokenizer (no model, no store). The context pipeline's use
of ``SearchConfig.item_stretch`` is in ``tests/integration/test_context_stretch.py``.
"""

from __future__ import annotations

import pytest

from nova_memory_integrations.engine.tokens import TokenCounter, get_token_counter
from nova_memory_integrations.retrieval.compress import extract_sentences, split_sentences, stem


@pytest.fixture(scope="module")
def counter() -> TokenCounter:
    return get_token_counter("minilm")


# -- stem ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("forms", [
    ("play", "plays", "playing", "played"),
    ("city", "cities"),
    ("run", "runs", "running"),
    ("stop", "stopped", "stopping"),
    ("make", "makes", "making"),
    ("paint", "painted", "painting", "paints"),
    ("start", "started", "starting"),
    ("sky", "skies"),
    ("story", "stories"),
    ("hike", "hiked", "hiking"),
])
def test_word_forms_share_a_stem(forms: tuple[str, ...]) -> None:
    assert len({stem(w) for w in forms}) == 1


@pytest.mark.parametrize(("word", "expected"), [
    ("class", "class"),  # a double s is no plural
    ("bus", "bus"),  # too short to strip
    ("is", "is"),
    ("sing", "sing"),  # too short for -ing
    ("red", "red"),  # too short for -ed
    ("skill", "skill"),  # a double l stays
    ("buzz", "buzz"),
    ("ties", "tie"),  # too short for -ies -> -y; the plural s goes, the e stays at three letters
    ("volunteering", "volun"),  # cut to five letters
    ("the", "the"),
])
def test_stem_of_a_word(word: str, expected: str) -> None:
    assert stem(word) == expected


def test_different_words_keep_different_stems() -> None:
    assert stem("painting") != stem("planting")


# -- annotations are sentences of their own ---------------------------------------------------------------
def test_a_bracketed_annotation_after_a_sentence_is_its_own_sentence() -> None:
    text = "Oh, I held a benefit basketball game last week. [shares a photo: a boy dribbling a ball on a court]"
    assert split_sentences(text) == ["Oh, I held a benefit basketball game last week.",
                                     "[shares a photo: a boy dribbling a ball on a court]"]


def test_a_bracket_inside_a_sentence_does_not_split_it() -> None:
    assert split_sentences("I saw it [a red one] yesterday.") == ["I saw it [a red one] yesterday."]


def test_the_sentence_before_an_annotation_fits_on_its_own(counter: TokenCounter) -> None:
    text = ("John: Yep, I'll let you know. Oh, I held a benefit basketball game last week. "
            "[shares a photo: a photo of a boy dribbling a basketball on a court in the evening sun]")
    out = extract_sentences(text, "What charity event did John organize?", 22, counter, names={"john"})
    assert "benefit basketball game" in out, out


# -- word forms in sentence choice ------------------------------------------------------------------------
def test_a_short_query_word_meets_its_longer_form(counter: TokenCounter) -> None:
    text = ("Melanie: Yeah, it's tough. So I'm carving out some me-time each day, running and reading with friends "
            "at the old library downtown. Also playing my violin, which refreshes me.")
    out = extract_sentences(text, "What instruments does Melanie play?", 28, counter, names={"melanie"})
    assert "violin" in out, out


# -- the best sentence kept whole --------------------------------------------------------------------------
LOST_JOB = ("Jon: Hey Gina! Good to see you too. Lost my job as a banker yesterday, so I'm gonna take a shot at "
            "starting my own business.")
QUERY = "Why did Jon decide to start his dance studio?"


def test_without_stretch_a_sentence_that_fits_is_taken(counter: TokenCounter) -> None:
    out = extract_sentences(LOST_JOB, QUERY, 16, counter, names={"jon", "gina"})
    assert "banker" not in out, out


def test_with_stretch_the_matching_sentence_is_kept_whole(counter: TokenCounter) -> None:
    out = extract_sentences(LOST_JOB, QUERY, 16, counter, names={"jon", "gina"}, stretch_to=30)
    assert out == "Jon: Lost my job as a banker yesterday, so I'm gonna take a shot at starting my own business."


def test_the_stretched_sentence_never_exceeds_the_stretch(counter: TokenCounter) -> None:
    whole = counter.count("Jon: Lost my job as a banker yesterday, so I'm gonna take a shot at starting my own business.")
    out = extract_sentences(LOST_JOB, QUERY, 16, counter, names={"jon", "gina"}, stretch_to=whole - 1)
    assert "banker" not in out, out


def test_the_stretch_may_end_exactly_at_the_sentence(counter: TokenCounter) -> None:
    whole = counter.count("Jon: Lost my job as a banker yesterday, so I'm gonna take a shot at starting my own business.")
    out = extract_sentences(LOST_JOB, QUERY, 16, counter, names={"jon", "gina"}, stretch_to=whole)
    assert "banker" in out, out


def test_no_stretch_for_a_sentence_sharing_no_query_word(counter: TokenCounter) -> None:
    out = extract_sentences(LOST_JOB, "Where does Jon live?", 16, counter, names={"jon", "gina"}, stretch_to=40)
    assert counter.count(out) <= 16


def test_no_stretch_when_the_best_sentence_fits(counter: TokenCounter) -> None:
    text = "Jon: I start at nine. " + "We talked about many other unrelated things that afternoon at length. " * 3
    out = extract_sentences(text, "When does Jon start?", 12, counter, names={"jon"}, stretch_to=40)
    assert out == "Jon: I start at nine."


def test_the_stretch_applies_to_a_first_sentence_too(counter: TokenCounter) -> None:
    text = ("Lost my job as a banker yesterday, so I'm gonna take a shot at starting my own business. "
                           "Anyway. Good to see you.")
    out = extract_sentences(text, QUERY, 16, counter, stretch_to=30)
    assert out == text.split(" Anyway")[0]


# -- the limits and the fallbacks ----------------------------------------------------------------------------
def test_a_text_of_exactly_the_limit_is_returned_as_it_is(counter: TokenCounter) -> None:
    text = "We met at noon.\nThen we left."
    assert extract_sentences(text, "noon", counter.count(text), counter) == text


def test_a_one_token_text_fits_a_limit_of_one(counter: TokenCounter) -> None:
    assert extract_sentences("Hi", "anything", 1, counter) == "Hi"


def test_every_sentence_that_fits_is_taken(counter: TokenCounter) -> None:
    text = ("The lake froze early this year. " + "Filler words about nothing in particular at all here. " * 4
            + "We skated on the lake every morning.")
    out = extract_sentences(text, "lake", 20, counter)
    assert out == "The lake froze early this year. … We skated on the lake every morning."


def test_ties_of_eight_content_words_or_more_go_to_the_earlier_sentence(counter: TokenCounter) -> None:
    first = "Red green blue yellow purple orange brown black."  # eight content words
    second = "Cyan magenta teal olive maroon navy silver golden ivory."  # nine
    out = extract_sentences(f"{first} {second}", "colours", 14, counter)
    assert out == first


def test_when_no_sentence_fits_the_best_one_is_truncated(counter: TokenCounter) -> None:
    text = ("We walked for hours along the coast road past many small white houses and gardens. "
            "Then the weather turned and the ferry to the island was cancelled for the whole of the weekend.")
    out = extract_sentences(text, "When was the ferry cancelled?", 8, counter)
    assert out.startswith("Then the weather turned") and out.endswith("…"), out
