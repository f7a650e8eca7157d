"""Words of queries, texts and speakers' names, and the FTS5 MATCH expressions BM25 searches them with."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ..engine.roles import GENERIC_ROLES

__all__ = ["STOPWORDS", "any_of", "match_expression", "name_words", "phrase", "searched_words", "terms"]

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


def terms(text: str, *, max_terms: int = 24) -> list[str]:
    """Content words of ``text``: lowercased, stopwords and one-letter words removed, unique."""
    return list(_terms(text, max_terms))


def name_words(role: str) -> list[str]:
    """The words of a speaker's name (casefolded); none for generic roles (user, assistant, ...)."""
    return [] if role.casefold() in GENERIC_ROLES else terms(role)


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


def match_expression(text: str) -> str | None:
    """An FTS5 query OR-ing the quoted content words (``None`` when there are none).

    Quoting makes every user word a literal (no FTS5 operators can be injected).
    """
    words = terms(text)
    return any_of(words) if words else None


def phrase(word: str) -> str:
    """``word`` as a quoted FTS5 phrase: a literal, whatever operators it spells."""
    return '"' + word.replace('"', '""') + '"'


def any_of(words: Sequence[str]) -> str:
    """An FTS5 query matching rows that hold any of ``words`` (quoted)."""
    return " OR ".join(phrase(w) for w in words)


def searched_words(words: Sequence[str], counts: Sequence[int], total: int, *, share: float,
                   at_least: int) -> list[str]:
    """The ``words`` worth a keyword search: those some turn holds, less the common ones.

    ``counts[i]`` turns of the ``total`` hold ``words[i]``. A word is common when it is found
    in more than ``share`` of the turns and in more than ``at_least`` of them. BM25 scores
    every row a word finds, so a common word costs the most and weighs the least (its IDF is
    the lowest); below ``at_least`` rows a word costs little and keeps its say. A word no
    turn holds finds nothing. When every word some turn holds is common, none is left: a
    query made only of such words is the dense search's (on LoCoMo's folds that did better
    than searching the rarest of them: see the CHANGELOG).
    """
    if len(words) != len(counts):
        raise ValueError(f"{len(words)} words but {len(counts)} counts")
    limit = max(share * total, at_least)
    return [w for w, n in zip(words, counts) if 0 < n <= limit]
