"""Rule machinery shared by the rule tables of the deterministic extractor.

A rule is a regular expression tried right after a subject ("I", "my sister", "Bob") plus the fields it
yields (:class:`Field`: group, predicate, op, kind). Macros (``<A>`` adverbs, ``<O>`` object, ``<ANY>``
"anymore" lookahead ...) keep the patterns short. A group named ``=value`` is a constant object ("I retired" ->
``employment_status retired``); a predicate starting with ``@`` is resolved from the object by
:func:`._endings.resolve` (``@owned``: ``owns`` or ``has_pet``; ``@activity``: ``plays``, ``habit``,
``hobby`` or ``studies``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from ..text.dates import NUMBER_WORDS

__all__ = ["ADV", "Field", "Rule", "f", "neg", "rule"]

_I = re.IGNORECASE

ADV = (
    r"(?:(?:really|actually|also|absolutely|totally|still|currently|now|just|honestly|genuinely|truly|definitely|"
    r"seriously|always|mostly|personally|even|kind of|kinda|sort of|recently|finally|officially|basically|"
    r"literally|already|usually|generally|pretty much|mainly|primarily|happily|proudly|then|actively|"
    r"slowly|sadly|eventually|fully|completely|unfortunately),?\s+)*"
)
_MACROS = {
    "<A>": ADV,
    "<O>": r"(?P<o>.+)",
    "<ANY>": r"(?=.*\b(?:anymore|any ?more|any longer)\b)",
    "<NUM>": r"(?:\d{1,3}|" + "|".join(w for w in NUMBER_WORDS if " " not in w and len(w) > 2) + r")",
    "<W>": r"(?:work|works|am working|is working|are working|have been working|has been working|have worked|has "
    r"worked|started working|began working|am employed|is employed|have been employed|freelance)(?: remotely| "
    r"full[- ]time| part[- ]time| freelance| remote)?",
    "<LIKE>": r"(?:like|likes|love|loves|enjoy|enjoys|care for|cares for)",
    "<KID>": r"(?=\s+(?:as a (?:kid|child|teen(?:ager)?)|growing up|when I was))",
    "<FAV>": r"(?:favou?rite|fave|fav) (?P<k>[a-z]+(?: [a-z]+)?)",
    "<JOBAT>": r"(?P<j>.+?)(?:\s+(?:at|for|with)\s+(?P<o>.+))?$",
}
_MACROS["<HAVE>"] = r"(?:(?:have|has|had) " + ADV + r")?"


class Field(NamedTuple):
    """One fact a rule yields from its match."""

    group: str
    """The match group holding the object; ``=value``: the constant object ``value``."""
    predicate: str
    """The predicate; ``{k}`` / ``{rel}`` are filled from those groups, ``@...`` resolved from the object."""
    op: str
    """``assert`` or ``negate``."""
    kind: str
    """The object's kind: how it is cut and validated (``place``, ``org``, ``job``, ``pet`` ...)."""


@dataclass(frozen=True)
class Rule:
    """One compiled pattern and the facts it yields."""

    pattern: re.Pattern[str]
    fields: tuple[Field, ...]
    first_only: bool = False
    we_ok: bool = False
    confidence: float = 0.8
    after_adverbs: bool = False  # the pattern starts after the subject's adverbs (matched once)
    any_field: bool = False  # the rule holds when any field yields (else the first field must)
    third_only: bool = False


def rule(
    pattern: str, *fields: Field, first_only: bool = False, we_ok: bool = False, conf: float = 0.8,
    any_field: bool = False, third_only: bool = False,
) -> Rule:
    """Compile ``pattern`` (macros expanded, case-insensitive) into a :class:`Rule`."""
    after_adverbs = pattern.startswith(("<A>", "<ANY><A>"))
    pattern = pattern.replace("<ANY><A>", "<ANY>", 1) if pattern.startswith("<ANY>") else pattern
    pattern = pattern.removeprefix("<A>")
    for macro, value in _MACROS.items():
        pattern = pattern.replace(macro, value)
    return Rule(re.compile(pattern, _I), fields, first_only, we_ok, conf, after_adverbs, any_field, third_only)


def f(pred: str, kind: str, group: str = "o") -> Field:
    """A field asserting ``pred``."""
    return Field(group, pred, "assert", kind)


def neg(pred: str, kind: str, group: str = "o") -> Field:
    """A field negating ``pred`` (the value stopped holding)."""
    return Field(group, pred, "negate", kind)
