"""Births, what a change told alone replaced, and categories by known name (pure): issue #38."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes.births import births
from nova_memory_integrations.changes.lapsed import predecessor
from nova_memory_integrations.changes.targets import fact_category
from nova_memory_integrations.changes.verbs import lemma, verb_cue_at
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=100)


def _fact(subject: str, predicate: str, obj: str) -> Fact:
    return Fact(id=f"{subject}-{predicate}-{obj}", lineage_id=f"l-{subject}-{obj}", user_id="u", subject=subject,
                predicate=predicate, object=obj, confidence=0.7, valid_from=T0, ingested_at=T0)


HELD = [_fact("user", "sister_name", "Laura"), _fact("laura", "has_condition", "pregnant"),
        _fact("user", "friend_name", "Jess"), _fact("jess", "works_at", "Boots")]


@pytest.mark.parametrize(("text", "child"), [
    ("Laura had the baby!! A little girl, Isla, 7lb 2oz, born Tuesday night.", ("daughter_name", "Isla")),
    ("I'm an auntie!!! My sister had the baby on Monday, a little boy called Alfie.", ("son_name", "Alfie")),
    ("she's had the baby!!! everyone's fine", None),  # the one person held pregnant
    ("LAURA HAD THE BABY!! both doing great", None),
])
def test_a_birth_ends_the_pregnancy_and_names_the_child(text: str, child: tuple[str, str] | None) -> None:
    born = births(text, HELD, AT)
    assert born is not None
    assert [e.fact.object for e in born.endings] == ["pregnant"] and born.endings[0].at == AT
    assert [(n.predicate, n.object) for n in born.children] == ([child] if child else [])
    assert all(n.subject == "laura" for n in born.children)


@pytest.mark.parametrize("text", [
    "When Laura has had the baby we'll visit.",  # a plan
    "Has Laura had the baby yet?",  # a question
    "Jess had the baby shower on Saturday, lovely day.",  # a shower, and not the one held pregnant
    "My mum had a baby at 42, back in 1990.",  # someone not held pregnant
])
def test_no_birth(text: str) -> None:
    born = births(text, HELD, AT)
    assert born is None or born.endings == ()


def test_no_birth_without_a_held_pregnancy() -> None:
    assert births("Laura had the baby!", [f for f in HELD if f.predicate != "has_condition"], AT) is None


@pytest.mark.parametrize(("value", "earlier", "found"), [
    ("giffgaff", "O2 want £42 a month to keep me on the same plan, that's daylight robbery", "O2"),
    ("Max", "Is Disney+ worth keeping once we've finished Bluey?", "Disney+"),
    ("giffgaff", "EE or Vodafone, which has better signal in Leeds?", None),  # two of the kind: which one?
    ("giffgaff", "my partner Jamie's on Vodafone and hates it", None),  # someone else's
    ("Google", "Amazon turned me down last year", None),  # an employer is named for many reasons
])
def test_predecessor(value: str, earlier: str, found: str | None) -> None:
    assert predecessor(value, earlier) == found


@pytest.mark.parametrize(("obj", "category"), [
    ("Deloitte", "job"), ("O2", "membership"), ("Disney+", "membership"), ("Little Acorns nursery", "study"),
    ("Zorblax", "any"),
])
def test_a_known_name_gives_an_open_state_its_category(obj: str, category: str) -> None:
    assert fact_category(_fact("user", "states", obj)) == category


@pytest.mark.parametrize(("sentence", "name"), [
    ("gp tapered me off the sertraline", "taper off"),
    ("the nurse has taken me off the clenil", "take off"),
    ("she took us off the list", "take off"),
])
def test_an_ending_verb_with_the_speaker_as_its_object(sentence: str, name: str) -> None:
    tokens = sentence.split()
    found = [verb_cue_at(tokens, i) for i in range(len(tokens))]
    assert [f[0].cue.name for f in found if f is not None] == [name]
    assert lemma("took") == lemma("taken") == "take"


def test_an_open_state_takes_its_category_from_the_verb_of_its_clause() -> None:
    fact = _fact("user", "states", "Ridgeway High")
    assert fact_category(fact) == "any"
    told = Fact(**{**fact.__dict__, "id": "told", "metadata": {"clause": "Thirty years teaching at Ridgeway High"}})
    assert fact_category(told) == "job"
