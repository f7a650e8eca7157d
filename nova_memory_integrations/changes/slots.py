"""Which held state a new value takes the place of (pure): the *slot* of a change.

A change names its new value ("moved *to cello*", "transferred from Law *to History*", "I'm *head chef*
now") far more often than it names, in the held state's own words and category, what it replaces. Two
readings find the replaced state without a cue word naming it:

* the **origin** of a change verb: "switched *from the 5:2* to calorie counting", "jumped ship *from the
  Harriers* to ...": what ``from`` names is what ended, whatever category the verb is listed for;
* the **same slot**: a new value that differs from a held one only in a modifier of a word they share
  ("the *fraud* team" / "the *payments* team", "*head* chef" / "*sous* chef", "Year *6*" / "Year *2*",
  "Sarah *Okonkwo*" / "Sarah *Doyle*") is a new value of that state; failing that, a new value close in
  meaning to exactly one held open state, whose category is unknown (:data:`SLOT_COSINE`, with
  :data:`~.meaning.RESOLVE_MARGIN` over any other state: "cello" for "played violin in the orchestra"); a
  typed fact is never picked by likeness here (its category decides for it in the planner's own resolver).

Kinds that are held several at once (pets, possessions, people) have no slot: a second cat is no new
value of the first (:data:`MANY_VALUED`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .cues import CueHit
from .lexicon import IDENTITY
from .meaning import RESOLVE_MARGIN, Similarity
from .segments import Sentence, Word
from .segments import words as segments_words
from .targets import THRESHOLD, Evidence, FactInfo, name_evidence, with_sim

__all__ = ["MANY_VALUED", "SLOT_COSINE", "origin_facts", "same_slot", "slot_choice", "slot_of"]

SLOT_COSINE = 0.55
"""Lowest cosine (MiniLM) of a new value and a held value at which, with no word in common, the held one is
the state the value replaces ("cello" / "violin in the orchestra" 0.60; unrelated pairs such as "Spain" /
"learning Spanish" stay below 0.5)."""
MANY_VALUED = frozenset({"pet", "possession", "relationship", IDENTITY})
"""Categories of which one holds several at once: a new one never takes another's place by likeness."""

_ORIGIN = re.compile(r"\bfrom\b", re.IGNORECASE)
_ORIGIN_END = re.compile(r"\b(?:to|into|onto|for|with|and|but|because|after|since)\b|[,;:.!?()—–]", re.IGNORECASE)
_TOKEN = re.compile(r"[a-z0-9][a-z0-9'+-]*")
_FUNCTION = frozenset(
    "a an the my our your his her their its this that these those some any i me we us you he she it they them "
    "is are was were be been am 's 're 'm at in on of for to from with by as into onto about over up down out "
    "and or but so now just still then very really new old".split())
"""Words that are no part of a value's name: neither the shared word nor the modifier of a slot."""


def origin_facts(text: str, sentences: list[Sentence], hit: CueHit, dest: tuple[int, int], scope: Sequence[FactInfo],
                 words_of: Callable[[int, int], list[Word]]) -> tuple[list[FactInfo], list[Word]]:
    """The held facts a change verb's "from X" names ("switched *from the 5:2* to ...", "to History *from
    Law*"), and the words that name them: those after ``from`` in the cue's clause up to the destination or a
    break."""
    clause = sentences[hit.sentence].clauses[hit.clause]
    m = _ORIGIN.search(text, hit.start, clause.end)
    if m is None or dest[0] <= m.start() < dest[1]:
        return [], []
    stop = _ORIGIN_END.search(text, m.end(), clause.end)
    end = min(stop.start() if stop else clause.end, dest[0] if dest[0] > m.end() else clause.end)
    said = words_of(m.end(), end)
    return [i for i in scope if name_evidence(i, said) >= 0.8 and i.category not in (IDENTITY, "relationship")], said


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def same_slot(value: str, held: str) -> bool:
    """Whether ``value`` is another value of the state ``held`` names: they share a word, and beside it on the
    same side each has a word of its own that the other lacks ("fraud team" / "payments team at work")."""
    new, old = _tokens(value), _tokens(held)
    if set(new) <= set(old):
        return False  # a part of the held value ("Leeds" of "Leeds Building Society"): the same thing
    for i, w in enumerate(new):
        if w in _FUNCTION or w not in old:
            continue
        for j, h in enumerate(old):
            if h != w:
                continue
            for step in (-1, 1):
                a, b = i + step, j + step
                if 0 <= a < len(new) and 0 <= b < len(old) and new[a] not in _FUNCTION and old[b] not in _FUNCTION \
                        and new[a] != old[b] and new[a] not in old and old[b] not in new:
                    return True
    return False


def slot_choice(value: str | None, scope: Sequence[FactInfo], origin: Sequence[FactInfo],
                similarity: Similarity | None, stated: Sequence[FactInfo],
                ) -> tuple[list[tuple[FactInfo, Evidence, float]], bool]:
    """A change's target when its categories found none, as the planner's ``(fact, evidence, score)``: what
    its "from X" names, else the one held state its destination's ``value`` is a new value of. Returns the
    chosen facts and whether meaning was asked. Only those facts: the others stated with them are another slot
    ("switched to philosophy" leaves the university)."""
    if origin:
        return [(i, Evidence(name_clause=1.0), THRESHOLD) for i in origin], False
    if value is None:
        return [], False
    picked = slot_of(value, scope, similarity, stated)
    if picked is None:
        return [], similarity is not None
    return [(picked, with_sim(Evidence(), 1.0), THRESHOLD)], similarity is not None


def slot_of(value: str, candidates: Sequence[FactInfo], similarity: Similarity | None,
            stated: Sequence[FactInfo] = ()) -> FactInfo | None:
    """The one held fact whose state ``value`` is a new value of (see the module docstring), else ``None``.

    Only a candidate of a category held once at a time; by structure first (the one state of the same slot;
    the one held value of the predicate the message itself ``stated`` the new value with: "switched to
    philosophy" beside its ``studies philosophy``), by meaning second (``similarity``; ``None``: structure
    only)."""
    able = [i for i in candidates if i.category not in MANY_VALUED]
    slotted = {i.state: i for i in able if same_slot(value, i.fact.object)}
    if not slotted:
        said = segments_words(value)
        kinds = {(f.fact.subject, f.fact.predicate) for f in stated if name_evidence(f, said) >= 0.8
                 and f.category not in MANY_VALUED}
        slotted = {i.state: i for i in able if (i.fact.subject, i.fact.predicate) in kinds}
    if len(slotted) == 1:
        return next(iter(slotted.values()))
    able = [i for i in able if i.open]  # a typed fact's category decides for it: likeness never crosses it
    if slotted or similarity is None or not able:
        return None
    cosines = similarity(value, [i.fact.object for i in able])
    best: dict[str, tuple[float, FactInfo]] = {}
    for info, cosine in zip(able, cosines, strict=True):
        if info.state not in best or cosine > best[info.state][0]:
            best[info.state] = (cosine, info)
    ranked = sorted(best.values(), key=lambda x: -x[0])
    if ranked[0][0] < SLOT_COSINE or (len(ranked) > 1 and ranked[0][0] - ranked[1][0] < RESOLVE_MARGIN):
        return None
    return ranked[0][1]
