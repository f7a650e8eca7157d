"""Lexical terms: the content words of a text, for keyword search and word overlap.

:func:`terms` lowercases, drops :data:`STOPWORDS` and one-letter words, and keeps each word
once, in order. Recall's BM25 query (``retrieval/lexical``), its signals and compression's
word overlap (``retrieval/compress``) all read a text through it, so a query word and a
stored word match or not alike everywhere.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["STOPWORDS", "terms"]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)

STOPWORDS = frozenset(
    """
    a about above after again against all am an and any are aren't as at be because been before being
    below between both but by can could did didn't do does doesn't doing don't down during each few for
    from further had has have having he her here hers herself him himself his how i i'm if in into is
    isn't it it's its itself just let's me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that that's the their theirs
    them themselves then there these they this those through to too under until up very was wasn't we
    were what what's when where which while who whom why will with would you your yours yourself
    yourselves also ever really did does get got go going like think know tell said say says thing
    things much many one ones
    """.split()
)
"""Words too common to search for or to count as shared (English function words and chat fillers)."""


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
