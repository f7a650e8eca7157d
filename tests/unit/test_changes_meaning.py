"""Meaning as a resolver of a change's target (:mod:`nova_memory_integrations.changes.meaning`), with the real
MiniLM the store embeds with, in wording of our own.

When structure (names, references, the only state of a kind) decides nothing, the held value most like the
new value a change names is what it replaces, if clearly so; ties, thin margins and unrelated values leave
every fact alone.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from change_helpers import T0, held_fact

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.meaning import resolve
from nova_memory_integrations.changes.planner import Similarity
from nova_memory_integrations.changes.targets import fact_info

AT = T0 + timedelta(days=200)


FACTS = [held_fact(i, *t) for i, t in enumerate([
    ("user", "plays", "piano"), ("user", "learns", "German"), ("user", "uses", "Chrome"),
    ("user", "banks_with", "Nationwide"), ("user", "lives_in", "Derby"),
])]


def _ended(text: str, similarity: Similarity) -> set[str]:
    plan = plan_changes(text, at=AT, episode_id="now", facts=FACTS, similarity=similarity)
    return {e.fact.object for e in plan.endings}


@pytest.mark.parametrize(("text", "ended"), [
    ("Switched to the cello this autumn, my teacher says I've got the arms for it.", {"piano"}),
    ("I've switched over to Spanish, the grammar is kinder.", {"German"}),
    ("finally switched to Firefox, the battery thanks me", {"Chrome"}),
])
def test_the_held_value_most_like_the_new_one_is_replaced(text: str, ended: set[str], similarity: Similarity) -> None:
    assert _ended(text, similarity) == ended


@pytest.mark.parametrize("text", [
    "Switched to oat milk, my stomach is grateful.",  # like nothing held
    "Thinking of switching to the cello.",  # a possibility
    "My sister switched to the cello.",  # someone else's change
])
def test_meaning_leaves_facts_alone_without_a_clear_likeness(text: str, similarity: Similarity) -> None:
    assert _ended(text, similarity) == set()


def test_ties_and_thin_margins_pick_nothing() -> None:
    infos = [fact_info(f) for f in FACTS[:3]]
    assert resolve(infos, [0.62, 0.58, 0.1]) is None  # two alike states: a tie
    assert resolve(infos, [0.62, 0.3, 0.1]) is infos[0]
    assert resolve(infos, [0.2, 0.1, 0.0]) is None  # like none of them
