"""Dev-only diagnostic for ``benchmarks/beliefs.py --seed-first``: assert a scenario's first state directly.

Most belief scenarios fail today because the extractor never captures the *first* statement ("I
commute on a Brompton"), so nothing is there for a later turn to end or correct. To measure the change
layer on its own, the first state is written with ``store.add_fact`` after the first turn is
consolidated: one fact per ``current`` check dated (and known) before the second user turn whose words are in the
first turn and that the store does not hold yet. Subject, predicate and object are guessed from the
check and the first turn (a small keyword table below): an approximation of what a fuller extractor
would store. Figures with seeding are a diagnostic, never a benchmark result.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from belief_scoring import Scenario, _date, matches

__all__ = ["seed_first_state"]

# (keyword pattern searched in the first turn's sentence holding the term, predicate); first match wins
_PREDICATES: tuple[tuple[str, str], ...] = (
    (r"\b(?:boyfriend|bf)\b", "boyfriend_name"), (r"\b(?:girlfriend|gf)\b", "girlfriend_name"),
    (r"\bhusband\b", "husband_name"), (r"\bwife\b", "wife_name"), (r"\bfianc[eé]e?\b", "fiancee_name"),
    (r"\bpartner\b", "partner_name"), (r"\b(?:seeing|dating|marrying)\b", "dating"),
    (r"\b(?:dog|cat|puppy|kitten|budgies?|hamster|greyhound|lab|spaniel|collie|tom|rabbit|bearded dragon)\b(?! &)",
     "has_pet"),
    (r"\b(?:allergic|allergy)\b", "allergic_to"), (r"\b(?:vegetarian|vegan|pescatarian|keto|fasting)\b", "diet"),
    (r"\b(?:kids|children)\b", "has_children"),
    (r"\b(?:smoke|smokes|espresso|espressos|coffee|run|swim|meditation|routine|every (?:morning|night))\b", "habit"),
    (r"\b(?:member|club|choir|team|gym|band|membership|pay for|joined|singers|f45|fitness)\b", "member_of"),
    (r"\b(?:student|studying|study|uni|university|college|sixth form|master's|degree|year \d+)\b", "studies_at"),
    (r"\b(?:live|living|lives|rent|based|flat|house|share a house|we're in|i'm in|in a)\b", "lives_in"),
    (r"\b(?:work|works|job|started at|contracting|teach|teaching|pharmacist|nurse|chef|manager|analyst|engineer|designer|"
     r"barista|entry|pm|dev|drive for|porter|postman|radiographer|firefighter|receptionist|head of|run|runs|"
     r"freelance|paramedic|accounts|tech|site manager|sous)\b", "works_at"),
    (r"\b(?:own|owns|drive|drives|driving|ride|riding|got|have|has|keep|commute on|bought|play|plays)\b", "owns"),
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+")


def _subject(about: tuple[str, ...], first: str) -> str:
    if "user" in about:
        return "user"
    for name in about:
        if name[:1].isupper() and name.lower() in first.lower():
            return name.lower()
    return about[0].lower()


def _object(term: str, sentence: str) -> str:
    """The term widened to the capitalised words around it ("CX-5" -> "Mazda CX-5")."""
    m = re.search(re.escape(term), sentence, re.IGNORECASE)
    if m is None:
        return term
    start, end = m.start(), m.end()
    if sentence[start:start + 1].isupper():
        while (p := re.search(r"([A-Z][\w&+'-]*)\s+$", sentence[:start])) is not None:
            start = p.start(1)
        while (n := re.match(r"\s+([A-Z0-9][\w&+'-]*)", sentence[end:])) is not None:
            end += n.end()
    else:
        while end < len(sentence) and sentence[end].isalpha():
            end += 1
    return sentence[start:end].strip(" ,.'")


def _predicate(sentence: str, subject: str, term: str) -> str:
    """The first table entry found right before the term (a partner word), else near it."""
    at = sentence.lower().find(term.lower())
    before = sentence[:max(at, 0)].lower().split()
    after = sentence[max(at, 0):].lower().split()
    for pattern, predicate in _PREDICATES[:7]:
        if term[:1].isupper() and re.search(pattern, " ".join(before[-3:])):
            return predicate if subject == "user" else "dating"
    window = " ".join(before[-8:] + after[:4])
    for pattern, predicate in _PREDICATES[7:]:
        if re.search(pattern, window):
            return predicate
    return "owns"


def seed_first_state(store: Any, scenario: Scenario, user_id: str) -> None:
    """Assert the scenario's first state (see the module docstring)."""
    user_turns = [t for t in scenario.turns if t.get("role", "user") == "user"]
    if len(user_turns) < 2:
        return
    first, second = user_turns[0], _date(user_turns[1]["timestamp"])
    aliases: dict[str, set[str]] = {}
    for check in scenario.checks:
        if check.expect != "current" or check.at >= second or (check.known_at or check.at) >= second:
            continue
        if matches(store.facts(user_id, as_of=check.at), check, aliases):
            continue
        term = next((t for t in check.terms if t.lower() in first["content"].lower()), None)
        if term is None:
            continue
        sentence = next(s for s in _SENTENCES.split(first["content"]) if term.lower() in s.lower())
        subject = _subject(check.about, first["content"])
        store.add_fact(user_id, subject, _predicate(sentence, subject, term), _object(term, sentence),
                       valid_from=datetime.fromisoformat(first["timestamp"]))
