"""Importance and source of a memory, decided once, at capture: the one place for both.

**Source.** ``"explicit"``: the user or the app asked for it to be kept: a turn that asks to be
remembered ("remember that ...", "never forget this": :func:`..text.requests.asks_to_remember`),
a turn or fact written through a memory tool, ``NovaStore.add_fact`` or the REST API.
``"inferred"``: everything the store captured from conversation by itself and the facts
extraction drew from it. A fact drawn from an explicit turn is explicit too.

**Importance** is a number in [0, 1] (the ``importance`` column of turns and facts), written on a
1-5 scale as :data:`LEVELS` maps it (one mapping, used everywhere)::

    level  value  what
    5      0.9    explicit requests; health and safety (allergies, medications, conditions)
    4      0.7    identity and family; commitments and dates (appointments, deadlines, birthdays)
    3      0.5    everything else (the default before this existed, so older rows read the same)
    2      0.3    (not assigned at capture; for callers and models)
    1      0.1    small talk ("thanks!", "lol", "how are you?")

A caller may pass its own importance (``add_turn(importance=...)``, ``add_fact(importance=...)``);
only an absent one is computed, by :func:`assess`, which is pure and deterministic.

**What it changes.** Explicit and important memories outrank and outlive inferred ones:

- ranking: ``retrieval/fusion.score`` adds ``w.importance * importance`` to turns, and
  ``context()`` reserves a share of its budget for the most important current facts
  (``SearchConfig.reserved_share`` / ``reserved_importance``; explicit ones, and inferred ones
  too with ``reserved_inferred``). Facts get no importance term in fusion: on LoCoMo's held-out
  folds it cost answer words (0.8211 -> 0.8204);
- decay: :func:`decay_scale` multiplies the decay of a turn's weight and of a fact's confidence
  (explicit: none; importance 0.9: a fifth; 0.5: unchanged; 0.1: 1.8 times);
- eviction and compaction: :func:`outlives` memories are protected (``lifecycle_rules.is_protected``)
  and the rest go lowest effective weight first, which the importance multiplies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..text.lexicon import CONDITIONS, MEDICATIONS
from ..text.requests import asks_to_remember
from ..text.roles import MACHINE_ROLES

__all__ = [
    "DEFAULT_IMPORTANCE",
    "LEVELS",
    "SOURCES",
    "Importance",
    "Source",
    "assess",
    "decay_scale",
    "level_of",
    "outlives",
    "source_of",
]

Source = Literal["explicit", "inferred"]
SOURCES: tuple[Source, ...] = ("explicit", "inferred")
LEVELS: dict[int, float] = {1: 0.1, 2: 0.3, 3: 0.5, 4: 0.7, 5: 0.9}
"""Importance level (1-5) -> the value stored (0-1)."""
DEFAULT_IMPORTANCE = LEVELS[3]
PROTECTED_LEVEL = 5
"""Memories of this level or above outlive the lifecycle (:func:`outlives`), explicit or not."""

_PASSING = frozenset({"cold", "a cold", "flu", "the flu", "fever", "mono", "acne", "burnout"})
"""Conditions of the lexicon that say little about safety, or mean something else ("a cold day")."""
_SAFETY = re.compile(
    r"\b(?:allerg\w*|anaphyla\w*|epi-?pens?|intoleran\w*|medications?|medicines?|meds|prescri\w+|dos(?:e|age)s?|"
    r"\d+\s?mg|diagnos\w+|chronic|disabilit\w+|disabled|pregnan\w+|seizures?|surgery|pacemaker|blood\s+type|"
    r"emergency\s+contact|heart\s+condition|blood\s+pressure|can'?t\s+eat|cannot\s+eat|must\s+not\s+eat|"
    r"never\s+eat|(?:i'?m|i\s+am)\s+(?:diabetic|epileptic|asthmatic|deaf|blind)|"
    + "|".join(re.escape(w) for w in sorted((CONDITIONS | MEDICATIONS) - _PASSING, key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
_SAFETY_PREDICATES = frozenset({"allergic_to", "takes_medication", "has_condition", "blood_type", "diet",
                                "intolerant_to", "emergency_contact"})
_IDENTITY = re.compile(
    r"\b(?:my\s+name\s+is|call\s+me|i'?m\s+called|my\s+pronouns|i\s+was\s+born|my\s+birthday|born\s+on|"
    r"my\s+(?:wife|husband|partner|spouse|son|daughter|kids|children|mother|mom|mum|father|dad|parents|brother|"
    r"sister|sibling|grandma|grandmother|grandpa|grandfather|fianc[eé]e?|twin|baby)|i'?m\s+married|"
    r"i\s+(?:got|am|'m)\s+(?:married|engaged|divorced)|i\s+have\s+(?:a\s+)?(?:\w+\s+)?(?:kids?|sons?|daughters?|"
    r"children|twins))\b",
    re.IGNORECASE,
)
_IDENTITY_PREDICATES = re.compile(
    r"^(?:name|age|birthday|hometown|nationality|pronouns|married_to|engaged_to|relationship_status|has_children|"
    r"\w+_name|(?:child|parent|sibling|spouse|partner|grandparent)_of)$")
_COMMITMENT = re.compile(
    r"\b(?:appointments?|deadlines?|due\s+(?:on|by|date)|meeting\s+(?:on|at)|anniversary|i\s+promised|"
    r"i\s+(?:have|need|must|will|'ll)\s+to?\s*(?:pay|renew|submit|call|pick\s+up|see\s+(?:the|my)\s+doctor)|"
    r"flight\s+(?:is\s+)?(?:on|at)|interview\s+(?:is\s+)?(?:on|at)|wedding\s+(?:is\s+)?on)\b",
    re.IGNORECASE,
)
_COMMITMENT_PREDICATES = frozenset({"plans_to", "birthday", "appointment", "deadline"})
_SMALL_TALK = re.compile(
    r"^\s*(?:(?:hi|hey|hello|hiya|yo|thanks|thank\s+you|thx|ty|ok|okay|k|cool|nice|great|awesome|sure|yes|yeah|yep|"
    r"no|nope|lol|haha+|hmm+|wow|bye|goodbye|see\s+you|good\s+(?:morning|night|evening)|how\s+are\s+you(?:\s+doing)?|"
    r"i'?m\s+(?:fine|good|ok)|me\s+too|sounds\s+good|got\s+it|no\s+worries|you'?re\s+welcome)[\s,.!?:)(]*)+$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Importance:
    """An assessed importance: the stored ``value``, its ``level`` (1-5) and why."""

    value: float
    level: int
    reason: str


def level_of(value: float) -> int:
    """The 1-5 level whose value in :data:`LEVELS` is nearest to ``value`` (a higher one on a tie)."""
    return min(LEVELS, key=lambda lv: (abs(LEVELS[lv] - value), -lv))


def _at(level: int, reason: str) -> Importance:
    return Importance(LEVELS[level], level, reason)


def assess(text: str, *, explicit: bool = False, predicate: str | None = None) -> Importance:
    """The importance of a memory whose text is ``text`` (a turn's content, or a fact's sentence
    with its ``predicate``), the highest that applies:

    1. explicit (asked for, or written by a tool, ``add_fact``, REST) or health and safety: level 5;
    2. identity and family, commitments and dates: level 4;
    3. small talk alone: level 1;
    4. anything else: level 3 (:data:`DEFAULT_IMPORTANCE`).
    """
    if _SAFETY.search(text) or (predicate is not None and predicate in _SAFETY_PREDICATES):
        return _at(5, "health and safety" + (", asked to keep" if explicit else ""))
    if explicit:
        return _at(5, "asked to keep")
    if _IDENTITY.search(text) or (predicate is not None and _IDENTITY_PREDICATES.match(predicate)):
        return _at(4, "identity and family")
    if _COMMITMENT.search(text) or (predicate is not None and predicate in _COMMITMENT_PREDICATES):
        return _at(4, "commitment or date")
    if _SMALL_TALK.match(text):
        return _at(1, "small talk")
    return _at(3, "ordinary")


def source_of(text: str, role: str) -> Source:
    """The source of a turn captured from conversation: explicit when a person (not the assistant,
    a tool or the system) asks in it for something to be remembered."""
    if role in MACHINE_ROLES:
        return "inferred"
    return "explicit" if asks_to_remember(text) else "inferred"


def decay_scale(importance: float, source: str) -> float:
    """How fast a memory fades relative to an ordinary one: 0 for an explicit memory (it does not),
    else ``2 * (1 - importance)``: 1.0 at the default 0.5, 0.2 at level 5, 1.8 for small talk."""
    if source == "explicit":
        return 0.0
    return 2.0 * (1.0 - min(1.0, max(0.0, importance)))


def outlives(importance: float, source: str) -> bool:
    """Whether the lifecycle keeps the memory as it is (never evicted nor compacted): explicit, or
    of level :data:`PROTECTED_LEVEL` or above."""
    return source == "explicit" or level_of(importance) >= PROTECTED_LEVEL
