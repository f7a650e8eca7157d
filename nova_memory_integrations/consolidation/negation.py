"""What an ending closes, planned before anything is applied: pure, no storage, no clock.

As :mod:`nova_memory_integrations.memory.temporal` plans what one statement changes and
:mod:`~nova_memory_integrations.memory.facts` applies it, this module plans which held values a
negating statement, or a statement that implies an ending, closes; the
:class:`~.consolidator.Consolidator` reads the held values it needs, asks for the plan, and hands
each :class:`Ending` to ``FactMemory.apply(..., negate=True)``.

* :func:`plan_negation`: "I sold my car" / an LLM's DELETE. The fact a DELETE names, else the value
  itself or the one held value of that kind (``memory/entailments.negation_targets``: "car" ->
  "Honda Civic"), else, without an object ("I no longer work anywhere"), every value held; nothing
  held: nothing to close (the caller records a NOOP with :data:`NOTHING_HELD`).
* :func:`plan_entailed`: endings a new value implies ("I retired" ends ``works_at``).
* :func:`opposite_predicates`: the configured pairs of opposite predicates, both ways.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..memory.entailments import entailed_endings, negation_targets
from ..memory.facts import normalize_predicate

__all__ = ["NOTHING_HELD", "Ending", "NegationPlan", "opposite_predicates", "plan_entailed", "plan_negation"]

NOTHING_HELD = "nothing held to negate"
"""The reason of the NOOP recorded for a negation with nothing to close."""


@dataclass(frozen=True)
class Ending:
    """One ``subject predicate object`` to close (``FactMemory.apply(..., negate=True)`` resolves
    and normalises the subject and predicate itself)."""

    subject: str
    predicate: str
    object: str


@dataclass(frozen=True)
class NegationPlan:
    """What a negating statement closes, in order, without repeats; empty: nothing is held.

    ``subject`` and ``predicate`` are the statement's canonical, normalised ones: those of the
    NOOP decision when ``endings`` is empty.
    """

    subject: str
    predicate: str
    endings: tuple[Ending, ...] = ()


def plan_negation(
    subject: str, predicate: str, obj: str, *, subject_n: str, predicate_n: str, held: Sequence[str],
    target: Ending | None = None,
) -> NegationPlan:
    """Plan "``subject predicate obj`` no longer holds".

    Args:
        subject, predicate, obj: the statement as proposed (``obj`` blank: every value held).
        subject_n, predicate_n: the subject resolved to its canonical entity and normalised, the
            predicate normalised: whose values ``held`` are.
        held: the values of ``subject_n predicate_n`` holding at the statement's time (read by the
            caller; unused when ``target`` is given).
        target: the existing fact an LLM's DELETE names: it alone is closed.
    """
    if target is not None:
        return NegationPlan(subject_n, predicate_n, (target,))
    if obj.strip():  # the value itself, or the one held value of that kind ("my car")
        values = negation_targets(obj, held) or [obj]
        return NegationPlan(subject_n, predicate_n, _unique(Ending(subject, predicate, v) for v in values))
    # no object: "no longer works anywhere" negates every value held
    return NegationPlan(subject_n, predicate_n, _unique(Ending(subject_n, predicate_n, v) for v in held))


def plan_entailed(
    subject_n: str, predicate_n: str, obj: str, held: Mapping[tuple[str, str], list[str]]
) -> tuple[Ending, ...]:
    """The endings an asserted ``subject_n predicate_n obj`` implies ("I retired" ends ``works_at``),
    given the values ``held`` of the ``(subject, predicate)`` pairs ``memory/entailments.needs`` names."""
    return tuple(Ending(s, p, v) for s, p, v in entailed_endings(subject_n, predicate_n, obj, dict(held)))


def opposite_predicates(pairs: Iterable[Sequence[str]]) -> dict[str, str]:
    """Each predicate of a configured pair of opposites (``likes`` / ``dislikes``) -> the other, both
    normalised; entries that are not pairs are ignored."""
    out: dict[str, str] = {}
    for pair in pairs:
        if len(pair) == 2:
            a, b = (normalize_predicate(p) for p in pair)
            out[a], out[b] = b, a
    return out


def _unique(endings: Iterable[Ending]) -> tuple[Ending, ...]:
    return tuple(dict.fromkeys(endings))
