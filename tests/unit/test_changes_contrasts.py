"""Corrections by contrast (:mod:`nova_memory_integrations.changes.contrasts`), read without a store.

A held value put against another of its kind in a message that owns a mistake, in wording no correction cue
lists. Each class has cases that must correct and must-not-fire cases beside it: a change told with the same
names, another name denied, no mistake owned, two candidates of the kind, an asterisk far from any held word.
Through a real store: ``tests/integration/test_belief_contrasts.py``.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from nova_memory_integrations.changes.contrasts import contrasted, may_contrast, owns_a_mistake
from nova_memory_integrations.changes.targets import fact_info
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
HELD = [fact_info(Fact(id=f"f{i}", lineage_id=f"f{i}", user_id="u", subject=s, predicate=p, object=o,
                       confidence=0.8, valid_from=T0, ingested_at=T0, provenance=(f"e{i}",)))
        for i, (s, p, o) in enumerate([("user", "customer_of", "Lebara"), ("user", "states", "Disney+ for the kids"),
                                       ("user", "customer_of", "EDF"), ("user", "husband_name", "Jon"),
                                       ("user", "owns", "Honda Civic")])]


def _corrected(text: str) -> set[tuple[str, str]]:
    return {(c.fact.fact.object, c.new_object) for c in contrasted(text, HELD)}


@pytest.mark.parametrize(("text", "corrected"), [
    ("scratch what I said about Lebara, I checked my SIM and it's Lyca Mobile. I always mix the two up.",
     {("Lebara", "Lyca")}),
    ("lol it was Paramount+ I subscribed to, not Disney. just checked my card statement",
     {("Disney+ for the kids", "Paramount+ for the kids")}),
    ("Just dug out the actual bill and it turns out we're with E.ON, not EDF.", {("EDF", "E.ON")}),
    ("*John. with an h. he would never forgive me", {("Jon", "John")}),
    ("brain fart, the car's an Accord. the Civic was my last one", {("Honda Civic", "Honda Accord")}),
])
def test_a_held_value_put_against_another_of_its_kind_is_corrected(text: str, corrected: set[tuple[str, str]]) -> None:
    assert _corrected(text) == corrected


@pytest.mark.parametrize("text", [
    "Switched from EDF to Octopus last week, I always mix up their apps though",  # a change, told as one
    "it's Octopus we use for the car charger, not British Gas",  # another name denied, nothing held
    "my mum is with E.ON and we're with EDF, which is cheaper?",  # no mistake owned
    "I always mix up Lyca and Giffgaff and Lebara adverts",  # two other names of the kind
    "*Jonathan from work says hi",  # the asterisk's word is far from any held word
    "the Civic needs new tyres, Kwik Fit or Halfords?",  # nothing owned as a mistake
])
def test_what_is_no_correction_by_contrast(text: str) -> None:
    assert _corrected(text) == set()


def test_the_cheap_test_reads_only_messages_that_may_own_a_mistake() -> None:
    assert owns_a_mistake("ugh I got that wrong") and owns_a_mistake("*John") and owns_a_mistake("..., not Disney")
    assert not owns_a_mistake("we went to the coast on Sunday and it rained")


def test_facts_are_read_only_where_something_can_be_put_against_them() -> None:
    assert may_contrast("oops, it's Lyca not Lebara") and may_contrast("*John, sorry")
    assert not may_contrast("ugh I got that wrong, never mind")  # a mistake owned, nothing named to contrast
