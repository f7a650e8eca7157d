"""``text.sentences``: one splitting algorithm, four rules that deliberately disagree.

The rules are pinned side by side on the texts where they differ, so a change to one shows
which reader it moves (recall's kept sentence vectors are stored per sentence text).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest

from nova_memory_integrations.changes.segments import segment
from nova_memory_integrations.extraction import DeterministicExtractor
from nova_memory_integrations.memory.lifecycle_rules import extractive_summary
from nova_memory_integrations.retrieval import compress
from nova_memory_integrations.text.sentences import (
    CHANGE_SENTENCES,
    FACT_SENTENCES,
    RECALL_SENTENCES,
    SUMMARY_SENTENCES,
    SentenceRule,
    sentences_of,
    split_sentences,
    split_speaker,
)
from nova_memory_integrations.types import Episode

RULES = (RECALL_SENTENCES, FACT_SENTENCES, SUMMARY_SENTENCES, CHANGE_SENTENCES)


@pytest.mark.parametrize(("text", "recall", "facts", "summary", "changes"), [
    ("I met Dr. Smith. He was kind.",
     ["I met Dr.", "Smith.", "He was kind."], ["I met Dr. Smith.", "He was kind."], ["I met Dr.", "Smith.", "He was kind."],
     ["I met Dr. Smith.", "He was kind."]),
    ("we paid 3.5 euros. then more",
     ["we paid 3.5 euros. then more"], ["we paid 3.5 euros.", "then more"], ["we paid 3.5 euros.", "then more"],
     ["we paid 3.5 euros.", "then more"]),
    ("I moved; I love it",
     ["I moved; I love it"], ["I moved;", "I love it"], ["I moved; I love it"], ["I moved; I love it"]),
    ("first line\nsecond line",
     ["first line", "second line"], ["first line", "second line"], ["first line\nsecond line"],
     ["first line", "second line"]),
    ("Look! [shares a photo]",
     ["Look!", "[shares a photo]"], ["Look!", "[shares a photo]"], ["Look!", "[shares a photo]"],
     ["Look!", "[shares a photo]"]),
    ("Wow… Nice", ["Wow…", "Nice"], ["Wow… Nice"], ["Wow… Nice"], ["Wow… Nice"]),
    ('"Done." No. Fine', ['"Done." No.', "Fine"], ['"Done." No. Fine'], ['"Done." No.', "Fine"],
     ['"Done.', "No.", "Fine"]),
])
def test_the_rules_differ_where_their_readers_need(text: str, recall: list[str], facts: list[str],
                                                    summary: list[str], changes: list[str]) -> None:
    assert [rule.split(text) for rule in RULES] == [recall, facts, summary, changes]


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
@pytest.mark.parametrize("text", ["", "   ", "\n\n", " \n \n "])
def test_nothing_but_blanks_is_no_sentence(rule: SentenceRule, text: str) -> None:
    assert rule.split(text) == []


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
def test_sentences_are_stripped(rule: SentenceRule) -> None:
    assert rule.split("  Hi there.   Next one.  ") == ["Hi there.", "Next one."]


def test_an_abbreviation_glues_every_piece_after_it() -> None:
    assert FACT_SENTENCES.split("See Mr. and Mrs. Lee. Then go.") == ["See Mr. and Mrs. Lee.", "Then go."]
    assert FACT_SENTENCES.split("e.g. tea. i.e. water.") == ["e.g. tea.", "i.e. water."]


def test_a_rule_without_abbreviations_never_glues() -> None:
    rule = SentenceRule("plain", re.compile(r"(?<=\.)\s+"))
    assert rule.split("Dr. Who. Yes.") == ["Dr.", "Who.", "Yes."]


def test_split_sentences_is_the_recall_rule() -> None:
    text = "Hello there. How are you? fine.\nNext"
    assert split_sentences(text) == RECALL_SENTENCES.split(text) == ["Hello there.", "How are you? fine.", "Next"]


@pytest.mark.parametrize(("text", "prefix", "body"), [
    ("Caroline: I went hiking.", "Caroline: ", "I went hiking."),
    ("Mary Ann: hi", "Mary Ann: ", "hi"),
    ("Note:no space", "", "Note:no space"),
    ("12: a number is no speaker", "", "12: a number is no speaker"),
    ("plain text", "", "plain text"),
])
def test_split_speaker(text: str, prefix: str, body: str) -> None:
    assert split_speaker(text) == (prefix, body)


def test_sentences_of_leaves_the_speaker_out() -> None:
    assert sentences_of("Melanie: I paint. It relaxes me.") == ("I paint.", "It relaxes me.")


def test_the_callers_use_the_text_layer() -> None:
    """Recall's compression re-exports the very functions (its public names are unchanged)."""
    assert compress.split_sentences is split_sentences and compress.sentences_of is sentences_of


def test_the_extractor_reads_statements_by_the_fact_rule() -> None:
    found = DeterministicExtractor().extract("I met Dr. Smith at work; I live in Paris")
    assert ("lives_in", "Paris") in {(c.predicate, c.object) for c in found}


def test_the_summary_reads_sentences_by_the_summary_rule() -> None:
    at = datetime(2024, 5, 1, tzinfo=timezone.utc)
    episode = Episode(id="e1", user_id="u", role="user", content="Kayaking again\nThe lake was calm.", timestamp=at,
                      ingested_at=at)
    assert extractive_summary([episode], max_sentences=5).endswith("user: Kayaking again\nThe lake was calm.")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.name)
@pytest.mark.parametrize("text", [
    "I met Dr. Smith. He was kind.", "we paid 3.5 euros. then more", "I moved; I love it",
    "  first line\n\n second line  ", "Look! [shares a photo]", "e.g. tea. etc. and more! No. Fine?", "", " \n ",
])
def test_spans_are_where_the_split_sentences_are(rule: SentenceRule, text: str) -> None:
    assert [" ".join(text[a:b].split()) for a, b in rule.spans(text)] == [" ".join(s.split()) for s in rule.split(text)]


def test_spans_are_offsets_into_the_text() -> None:
    text = 'She said "we\'re done." Then I left.\n Dr. Smith came'
    assert CHANGE_SENTENCES.spans(text) == [(0, 21), (23, 35), (37, 51)]
    assert [text[a:b] for a, b in CHANGE_SENTENCES.spans(text)] == ['She said "we\'re done.', "Then I left.",
                                                                    "Dr. Smith came"]


def test_a_glued_span_keeps_what_the_boundary_held() -> None:
    """The change rule's boundary takes the quote after a stop: the span of a glued sentence covers it,
    the split text does not (same cut and glue, offsets must be contiguous)."""
    text = 'I saw Dr.") Smith. Bye'
    assert [text[a:b] for a, b in CHANGE_SENTENCES.spans(text)] == ['I saw Dr.") Smith.', "Bye"]
    assert CHANGE_SENTENCES.split(text) == ["I saw Dr. Smith.", "Bye"]


def test_the_change_rule_ends_a_sentence_after_no_unlike_the_fact_rule() -> None:
    assert CHANGE_SENTENCES.split("No. I sold it") == ["No.", "I sold it"]
    assert FACT_SENTENCES.split("No. I sold it") == ["No. I sold it"]


def test_change_detection_reads_sentences_by_the_change_rule() -> None:
    text = 'I told him "it\'s over." Then I sold the car, e.g. the old one.'
    assert [(s.start, s.end) for s in segment(text)] == CHANGE_SENTENCES.spans(text)
