"""Open states a new specific fact displaces (pure): "Dad's still in his bungalow in Bournemouth", then "we moved
Dad into Seaview care home".

An open state (:mod:`.states`: a ``states`` fact, the clause's value) records a present state no rule of the
extractor read. When the extractor later states a fact of the same subject whose predicate holds one value
of its kind at a time (:data:`ONE_AT_A_TIME`: where one lives, works, studies), the open state of that
category (:func:`~.targets.fact_category`) is over from the new fact's start: ``dad lives_in Seaview care home``
ends ``dad states bungalow in Bournemouth``, as a new ``lives_in`` value ends the held one.

Nothing is ended when the open state is not older than the new fact, or when it names the new value (a
restatement, "the flat in Leeds" and ``lives_in Leeds``): the open state then says the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..types import Fact
from .planner import Ending
from .segments import words
from .states import OPEN_PREDICATE
from .targets import fact_category, fact_info, name_evidence

__all__ = ["ONE_AT_A_TIME", "displaced"]

ONE_AT_A_TIME = {"lives_in": "home", "works_at": "job", "studies_at": "study"}
"""Predicates whose new value ends the open state of the category given (one home, one employer, one school)."""

CUE = "displaced"
"""The cue an ending of this module reports."""


def displaced(new: Sequence[Fact], held: Sequence[Fact]) -> list[Ending]:
    """The open states in ``held`` that the freshly stated facts ``new`` end, one ending each, at the new fact's
    start (see the module docstring)."""
    out: dict[str, Ending] = {}
    for fact in new:
        category = ONE_AT_A_TIME.get(fact.predicate)
        if category is None:
            continue
        said = words(fact.object)
        for old in held:
            if (old.predicate == OPEN_PREDICATE and old.subject == fact.subject and old.valid_to is None
                    and old.valid_from < fact.valid_from and old.id not in out
                    and fact_category(old) == category and name_evidence(fact_info(old), said) < 0.8):
                out[old.id] = Ending(old, fact.valid_from, CUE,
                                     f"{fact.predicate} {fact.object!r} is the new {category} of {fact.subject}")
    return list(out.values())
