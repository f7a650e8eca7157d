"""Lexical terms: the content words of a text, for keyword search and word overlap.

:func:`terms` lowercases, drops :data:`STOPWORDS` and one-letter words, and keeps each word
once, in order. Recall's BM25 query (``retrieval/lexical``), its signals and compression's
word overlap (``retrieval/compress``) all read a text through it, so a query word and a
stored word match or not alike everywhere.

The package's stopwords are defined here once, in three named parts its readers combine:
:data:`FUNCTION_WORDS` (the fallback reranker), :data:`STOPWORDS` = those and
:data:`CHAT_WORDS` (recall), and with :data:`REPLY_WORDS` too (the lifecycle's topics and
summaries). Change detection's ``changes/lexicon.STOPWORDS`` is another list on purpose: the
words never taken for a mention of a thing (numbers, months, "today"), not words too common
to search for.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["CHAT_WORDS", "FUNCTION_WORDS", "REPLY_WORDS", "STOPWORDS", "terms"]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

FUNCTION_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before being below
    between both but by can could did didn't do does doesn't doing don't down during each few for from further
    had has have having he her here hers herself him himself his how i i'd i'm i've if in into is it it's its
    itself just let's me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what when where which while who whom why will with
    would you you're your yours yourself yourselves
    """.split()
)
"""English function words (pronouns, articles, auxiliaries, prepositions, their contractions): what no
reader of the text counts as content. The fallback reranker's list is this one, apostrophes dropped."""

CHAT_WORDS = frozenset(
    """
    ever really get got go going like think know tell said say says thing things much many one ones aren't
    isn't wasn't that's what's
    """.split()
)
"""Chat fillers and vague words: never worth searching for or sharing (recall), though still read by the
reranker, which weighs the whole query."""

STOPWORDS = FUNCTION_WORDS | CHAT_WORDS
"""Words too common to search for or to count as shared: recall's BM25 query, its signals and compression.
(:func:`terms` cuts a word at its apostrophe first, so the contractions here never decide anything there.)"""

REPLY_WORDS = frozenset("yes okay ok sure thanks thank please maybe well want two let i'll can't".split())
"""Replies and courtesies: no topic of a conversation (with :data:`STOPWORDS`, what the lifecycle's
summaries and tombstones leave out), though a query may still search for them."""


def terms(text: str, *, max_terms: int = 24) -> list[str]:
    """Content words of ``text``: lowercased, stopwords and one-letter words removed, unique."""
    return list(_terms(text, max_terms))


@lru_cache(maxsize=65_536)
def _terms(text: str, max_terms: int) -> tuple[str, ...]:
    """:func:`terms`, memoised: the same stored turns are scored for query after query."""
    seen: dict[str, None] = {}
    low = text.casefold()
    if "’" in low:  # one replace of the text, not one per word (a third of the cost on a miss)
        low = low.replace("’", "'")
    for w in _WORD.findall(low):
        if "'" in w:
            w = w.split("'", 1)[0]
        if len(w) < 2 or w in STOPWORDS or w in seen:
            continue
        seen[w] = None
        if len(seen) >= max_terms:
            break
    return tuple(seen)
