"""Well-known names by kind (data): cars, banks, networks, streaming services, gyms, employers, medication ...

People tell much of what holds for them only by naming a thing of a kind everyone knows: "what's good on
netflix", "barclays app keeps logging me out", "pick up my sister in the Golf". Whether a capitalised word
is a car, a bank or a friend is world knowledge no sentence shape gives, so it is kept here as data: the
names in ``known_names.json`` (package data, written from general knowledge by someone who saw neither the
code nor any evaluation set), and per kind the predicate a state of that kind is stored under
(:data:`KINDS`). :func:`find_names` finds them in a message by a token lookup (no regex alternation of
thousands of names), longest name first, a name that is also an ordinary word (``golf``, ``jazz``) only
when written capitalised.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["FIRM_KINDS", "KINDS", "Kind", "NameHit", "find_names", "is_firm", "kind_of", "value_names"]


@dataclass(frozen=True)
class Kind:
    """One kind of named thing: its key in the data, the predicate of a state of it, and whether owning one
    is the state (a car, a phone: "the Golf" in the user's clause is theirs) or using one (a bank, a
    network: named as the subject of a complaint or after "with" / "on")."""

    key: str
    predicate: str
    owned: bool


KINDS: dict[str, Kind] = {k.key: k for k in (
    Kind("car", "owns", True), Kind("motorbike", "owns", True), Kind("bicycle", "owns", True),
    Kind("phone", "owns", True), Kind("device", "owns", True),
    Kind("streaming", "subscribes_to", False), Kind("social", "uses_service", False),
    Kind("bank", "customer_of", False), Kind("telecom", "customer_of", False), Kind("energy", "customer_of", False),
    Kind("insurer_or_utility_other", "customer_of", False),
    Kind("gym", "member_of", False), Kind("employer", "works_at", False),
    Kind("medication", "takes_medication", False), Kind("team", "supports", False),
)}
"""The kinds of :func:`find_names`, each with the predicate its state is stored under."""
FIRM_KINDS = frozenset({"bank", "telecom", "energy", "insurer_or_utility_other"})
"""Kinds whose names are never a person acting ("Lloyds have frozen my card", "Octopus sent a new bill")."""

_COMMON = frozenset(
    "one two three four five six seven eight nine ten which what who when where why how the a an it this that these "
    "those next better best first last up now go here there new old more most all any some every each other our your "
    "my his her their me we us you yes no not and or but so if".split())
"""Words of every sentence that are also somebody's brand ("Three", "Next", "Which?"): never read as the brand."""
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*\+?|&")
"""A token of a name or a message: "Disney+", "T-Mobile", "S22", "&" ("Marks & Spencer")."""


@dataclass(frozen=True)
class NameHit:
    """A known name found in a message: its text as written, its offsets and its kinds (most specific first)."""

    text: str
    start: int
    end: int
    kinds: tuple[str, ...]


def _tokens(text: str) -> list[re.Match[str]]:
    return list(_TOKEN.finditer(text))


@cache
def _table() -> tuple[dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]], frozenset[str]]:
    """First token -> ``(tokens, kinds)`` of each name starting with it (longest first), and the names that
    are also ordinary words (lower-cased)."""
    data = json.loads(resources.files(__package__).joinpath("known_names.json").read_text(encoding="utf-8"))
    ambiguous = frozenset(n.lower() for n in data.get("ambiguous", ()))
    kinds: dict[tuple[str, ...], list[str]] = {}
    for key in KINDS:
        for name in data.get(key, ()):
            toks = tuple(m.group().lower() for m in _tokens(name))
            if not toks or (len(toks) == 1 and (toks[0].isdigit() or toks[0] in _COMMON)):
                continue  # "3" (a network), "Which" (a magazine): a number or a word of every sentence
            variants = [toks] + ([(*toks[:-2], toks[-2] + "s")] if len(toks) > 1 and toks[-1] == "s" else [])
            for variant in variants:  # "Sainsbury's" is typed "sainsburys" as often
                if key not in kinds.setdefault(variant, []):
                    kinds[variant].append(key)
    first: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
    for toks, ks in kinds.items():
        first.setdefault(toks[0], []).append((toks, tuple(ks)))
    for entries in first.values():
        entries.sort(key=lambda e: -len(e[0]))
    return first, ambiguous


def kind_of(name: str) -> tuple[str, ...]:
    """The kinds a whole name is known as (``()`` for none)."""
    toks = tuple(m.group().lower() for m in _tokens(name))
    first, _ = _table()
    return next((ks for t, ks in first.get(toks[0], ()) if t == toks), ()) if toks else ()


def is_firm(name: str) -> bool:
    """Whether ``name`` is a known name of a :data:`FIRM_KINDS` kind: never a person acting ("Lloyds have ...")."""
    return bool(set(kind_of(name)) & FIRM_KINDS)


def find_names(text: str) -> list[NameHit]:
    """The known names ``text`` mentions, left to right, none overlapping, longest first. A name that is also an
    ordinary word counts only when written with a capital ("the Golf", not "golf"), and never as the first
    word of a sentence ("Golf is the most frustrating sport")."""
    first, ambiguous = _table()
    toks = _tokens(text)
    out: list[NameHit] = []
    i = 0
    while i < len(toks):
        low = toks[i].group().lower()
        taken = 1
        for names, kinds in first.get(low, ()):
            n = len(names)
            if i + n <= len(toks) and all(toks[i + j].group().lower() == names[j] for j in range(1, n)):
                written = text[toks[i].start(): toks[i + n - 1].end()]
                if " ".join(names) in ambiguous and not _capitalised_inside(text, toks[i].start(), written):
                    continue
                out.append(NameHit(written, toks[i].start(), toks[i + n - 1].end(), kinds))
                taken = n
                break
        i += taken
    return out


def value_names(value: str) -> list[NameHit]:
    """The known names of a stored value (offsets in ``value``). A value is a name in its own right, so an
    ordinary-word name written with a capital counts at its start too ("Transit", "Golf"), never in lower case."""
    return [NameHit(h.text, h.start - 1, h.end - 1, h.kinds) for h in find_names(f"-{value}")]


def _capitalised_inside(text: str, start: int, written: str) -> bool:
    """Whether a name is written with a capital and not merely as a sentence's first word."""
    if not written[:1].isupper():
        return False
    before = text[:start].rstrip(" \"'(")
    return bool(before) and before[-1] not in ".!?\n"
