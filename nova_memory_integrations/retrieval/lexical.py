"""Query -> FTS5 MATCH expression for BM25 over episodes and facts (SQLite FTS5).

A text's content words come from :func:`~nova_memory_integrations.text.terms.terms` (the text
layer); ``terms`` and ``STOPWORDS`` are re-exported here for the callers of their old path.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..text.roles import GENERIC_ROLES
from ..text.terms import STOPWORDS, terms

__all__ = ["STOPWORDS", "any_of", "match_expression", "name_words", "phrase", "searched_words", "terms"]


def name_words(role: str) -> list[str]:
    """The words of a speaker's name (casefolded); none for generic roles (user, assistant, ...)."""
    return [] if role.casefold() in GENERIC_ROLES else terms(role)


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
    than searching the rarest of them: see docs/research-notes.md).
    """
    if len(words) != len(counts):
        raise ValueError(f"{len(words)} words but {len(counts)} counts")
    limit = max(share * total, at_least)
    return [w for w, n in zip(words, counts) if 0 < n <= limit]
