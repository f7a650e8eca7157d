"""What a statement implies about other beliefs: pure rules, no storage.

Two kinds, both applied by the consolidator inside the same transaction as the statement:

* **Generic endings.** An ending names a kind, not the value held: "I sold my car" while the
  user owns a "Honda Civic"; "my dog died" while they have a "dog named Rex". When no held
  value is the negated one, :func:`negation_targets` finds the one held value of that kind
  (a pet of that species, a value holding the word, a car of a known make). Two or more
  candidates are ambiguous: nothing is closed.
* **Statuses that end other facts.** :func:`entailed_endings`: retiring or losing one's job
  ends ``works_at`` and ``job_title``; working somewhere again ends being retired or
  unemployed; a named pet's death ends ``has_pet`` "<species> named <name>" of the user.

Every ending is dated at the statement's time and keeps its history (never a deletion).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["CAR_MAKES", "ENDING_STATUSES", "entailed_endings", "needs", "negation_targets"]

CAR_MAKES = frozenset(
    "acura alfa audi bmw buick cadillac chevrolet chevy chrysler citroen citroën dacia dodge ferrari fiat ford "
    "genesis gmc honda hyundai infiniti jaguar jeep kia lada lamborghini lexus lincoln lotus maserati mazda "
    "mercedes mini mitsubishi nissan opel peugeot porsche ram renault rivian saab seat skoda škoda smart subaru "
    "suzuki tesla toyota volkswagen vw volvo polestar lucid byd".split()
)
"""Makes whose name means "a car" when a generic ending says "my car"."""
_GENERIC_CARS = frozenset({"car", "vehicle", "auto", "automobile", "suv", "truck", "pickup", "van", "ride"})

ENDING_STATUSES: dict[tuple[str, str], tuple[str, ...]] = {
    ("employment_status", "retired"): ("works_at", "job_title"),
    ("employment_status", "unemployed"): ("works_at", "job_title"),
}
"""``(predicate, value)`` of the same subject -> the predicates whose current values it ends."""
_RESUMED_WORK = frozenset({"works_at"})
"""Asserting one of these ends the subject's ``employment_status`` ``retired`` / ``unemployed``."""


def _words(value: str) -> list[str]:
    return re.findall(r"[\w'-]+", value.casefold())


def negation_targets(negated: str, held: Sequence[str]) -> list[str]:
    """The held values an ending of ``negated`` refers to (normalised values in, held spellings out).

    ``negated`` itself when held; else the one held value of that kind ("dog" -> "dog named
    Rex", "car" -> "Honda Civic", "bike" -> "mountain bike"); else nothing (unknown or
    ambiguous).
    """
    key = " ".join(_words(negated))
    if not key:
        return []
    exact = [h for h in held if " ".join(_words(h)) == key]
    if exact:
        return exact
    kind = key.removeprefix("old ").removeprefix("the ")
    found = [h for h in held if _of_kind(kind, _words(h))]
    return found if len(found) == 1 else []


def _of_kind(kind: str, words: list[str]) -> bool:
    if not words:
        return False
    if " ".join(words).startswith(f"{kind} named "):  # a pet of that species
        return True
    if " " not in kind and kind in words:  # "bike" in "mountain bike"
        return True
    return kind in _GENERIC_CARS and words[0] in CAR_MAKES


def entailed_endings(
    subject: str, predicate: str, value: str, held: dict[tuple[str, str], list[str]]
) -> list[tuple[str, str, str]]:
    """``(subject, predicate, value)`` triples a statement ends, from the held values.

    ``held`` maps ``(subject, predicate)`` to the values currently held (normalised subject
    and predicate; the caller looks up what :func:`needs` asks for).
    """
    out: list[tuple[str, str, str]] = []
    ended = ENDING_STATUSES.get((predicate, value.casefold()))
    if ended:
        out += [(subject, p, v) for p in ended for v in held.get((subject, p), [])]
    if predicate in _RESUMED_WORK:
        out += [(subject, "employment_status", v) for v in held.get((subject, "employment_status"), [])
                if v.casefold() in ("retired", "unemployed")]
    if predicate == "life_status" and value.casefold() == "deceased" and subject != "user":
        suffix = f" named {subject.casefold()}"
        out += [("user", "has_pet", v) for v in held.get(("user", "has_pet"), []) if v.casefold().endswith(suffix)]
    return out


def needs(subject: str, predicate: str, value: str) -> list[tuple[str, str]]:
    """The ``(subject, predicate)`` pairs whose held values :func:`entailed_endings` reads."""
    pairs: list[tuple[str, str]] = []
    ended = ENDING_STATUSES.get((predicate, value.casefold()))
    if ended:
        pairs += [(subject, p) for p in ended]
    if predicate in _RESUMED_WORK:
        pairs.append((subject, "employment_status"))
    if predicate == "life_status" and value.casefold() == "deceased" and subject != "user":
        pairs.append(("user", "has_pet"))
    return pairs
