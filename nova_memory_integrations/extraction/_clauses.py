"""Clause segmentation for the rule-based extractor (:mod:`.deterministic`).

Expands contractions and normalises curly quotes, splits sentences into clauses at conjunctions that start
a new subject, and holds the sentence filters (questions, hypotheticals, reported speech) and the lead-in
fillers of a clause. A turn is cut into sentences before, by
:data:`nova_memory_integrations.text.sentences.FACT_SENTENCES` (abbreviations such as ``Dr.`` kept together).
"""

from __future__ import annotations

import re

from ..text.lexicon import CONTRACTIONS

__all__ = [
    "CLAUSE_SPLIT",
    "HYPOTHETICAL",
    "LEAD",
    "QUESTION_START",
    "REPORTED",
    "expand",
]

_I = re.IGNORECASE

_CONTRACTION_RE = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in CONTRACTIONS) + r")\b", _I)
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
QUESTION_START = re.compile(
    r"^\W*(?:do|does|did|am|is|are|was|were|can|could|would|should|will|shall|may|what|where|when|who|whom|why|"
    r"how|which|have you|has|whats)\b",
    _I,
)
HYPOTHETICAL = re.compile(
    r"\b(?:if|whether|wish|wonder|wondering|would|could|should|might|maybe|perhaps|suppose|supposing|imagine|"
    r"imagining|pretend|pretending|hypothetically|unless|never said|someday|one day)\b",
    _I,
)
REPORTED = re.compile(  # words before a subject that make the statement reported or subordinate
    r"\b(?:said|say|says|think|thinks|thought|asked|ask|asks|told me|tell|tells|believe|believes|guess|hope|doubt|"
    r"claim|claims|claimed|heard|dream|dreamt|dreamed|assume|know|knows|knew|forgot|pretend|meant|bet|when|what|"
    r"where|why|how|who|than)\b",
    _I,
)
CLAUSE_SPLIT = re.compile(
    r"\s*;\s*|\s+-+\s+|:\s+|,?\s+(?:but|although|though|whereas|while|because|since|so|and)\s+"
    r"(?!I (?:have |had )?(?:just |finally |recently )?(?:broke up|split|separated|got divorced|divorced)\b)"
    r"(?=(?:now\s+|then\s+|also\s+)?(?:I|i|we|my|My|she|he|they|it)\b)|,\s+(?=(?:now\s+)?(?:I|i|she|he|they)\s)"
)
LEAD = re.compile(
    r"(?:(?:oh|ok|okay|yes|yeah|yep|yup|no|nope|nah|well|so|um|uh|hmm|hi|hello|hey|actually|also|and|but|sure|"
    r"anyway|anyways|honestly|btw|by the way|as i said|again|update|correction|oops|sorry|wait|fun fact|just so "
    r"you know|fyi|remember that|remember|note that|lol|haha|ah|plus|still|then|now|currently|lately|these days|"
    r"nowadays|today|yesterday|recently|right|true|ugh|wow|great|cool|thanks|thank you|good morning|typo)\b"
    r"[\s,:!.\-]*)*",
    _I,
)


def expand(text: str) -> str:
    """``text`` with contractions expanded ("I'm" -> "I am") and curly quotes straightened: the rules are
    written for one spelling."""

    def repl(match: re.Match[str]) -> str:
        word = match.group(0)
        out = CONTRACTIONS[word.lower()]
        return out if out.startswith("I ") or word[0].islower() else out[0].upper() + out[1:]

    return _CONTRACTION_RE.sub(repl, text.translate(_QUOTES))

