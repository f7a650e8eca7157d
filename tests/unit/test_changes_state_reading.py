"""States told only in passing, read by meaning (:mod:`nova_memory_integrations.changes.state_reading` picks the
clauses, the shipped clause reader judges them), with the real MiniLM the store embeds with and a real store,
in wording of our own (no belief set's or training corpus's sentences).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.changes.state_reading import MAX_CANDIDATES, state_candidates
from nova_memory_integrations.changes.states import OPEN_PREDICATE
from nova_memory_integrations.changes.tracker import STATE_PROBABILITY, ChangeTracker
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.storage.sqlite import SQLiteStore

T0 = datetime(2025, 3, 1, 9, tzinfo=timezone.utc)
SCALES = "Practising scales on the Yamaha for an hour every night now."
ESSAYS = "Marked thirty essays for my Year 9 class tonight."


@pytest.mark.parametrize(("text", "thing", "masked"), [
    (SCALES, "Yamaha", "Practising scales on it for an hour every night now."),
    ("Swam forty lengths at Ponds Forge before work", "Ponds Forge", "Swam forty lengths at it before work"),
    ("Topped up the oil in my camper van again", "camper van", "Topped up the oil in it again"),
])
def test_a_clause_naming_one_thing_of_the_users_is_a_candidate(text: str, thing: str, masked: str) -> None:
    [candidate] = state_candidates(text)
    assert (candidate.thing, candidate.masked) == (thing, masked)


@pytest.mark.parametrize("text", [
    "Should I get the Yamaha serviced?",  # a question
    "Thinking of joining Ponds Forge next month.",  # a plan
    "If I had the money I'd buy a Yamaha.",  # a hypothetical
    "Sold the Yamaha to a lad from Hull.",  # a change cue: the change layer's
    "I don't go to Ponds Forge, it's too far.",  # a denial
    "My brother swims at Ponds Forge every morning.",  # someone else's
    "She practises on the Yamaha every night.",  # someone else's, by a pronoun
    "Drove from Leeds to York on Sunday.",  # two names: which is the state is unclear
    "Had a lovely walk by the river.",  # no thing named
])
def test_clauses_that_cannot_tell_the_users_state_in_passing_are_not_read(text: str) -> None:
    assert state_candidates(text) == []


def test_a_sentence_a_rule_read_is_left_to_it_and_a_message_reads_few_clauses() -> None:
    assert state_candidates(SCALES, taken=(SCALES,)) == []
    assert state_candidates(SCALES, covered=("yamaha",)) == []  # a thing a rule stated (any case)
    many = " ".join(f"Went to Gym{n}x at six." for n in range(6))
    assert len(state_candidates(many)) == MAX_CANDIDATES


@pytest.fixture(scope="module")
def tracker(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: OnnxMiniLMEmbeddings) -> ChangeTracker:
    db = SQLiteStore(Path(tmp_path_factory.mktemp("db")) / "m.sqlite3")
    return ChangeTracker(db, minilm_onnx)


@pytest.mark.parametrize(("text", "thing"), [(SCALES, "Yamaha"), (ESSAYS, "Year 9")])
def test_a_habit_told_in_passing_is_read_as_a_state(text: str, thing: str, tracker: ChangeTracker) -> None:
    [state] = tracker.read_states(text, taken=(), covered=())
    assert (state.subject, state.value, state.clause) == ("user", thing, state_candidates(text)[0].clause)


@pytest.mark.parametrize("text", [
    "Grabbed a sandwich at Pret on the way in.",
    "Watched the Grand Prix at a pub in town.",
    "Bumped into an old teacher at Morrisons.",
    "Renewed the insurance on the Fiesta, it went up forty quid.",
    "Saw a great band at the Leadmill last night.",
])
def test_a_one_off_event_is_not_read_as_a_state(text: str, tracker: ChangeTracker) -> None:
    assert state_candidates(text)  # a candidate: the reader, not the selection, turns it down
    assert tracker.read_states(text, taken=(), covered=()) == []


def test_a_thing_a_rule_already_stated_is_not_read_again(tracker: ChangeTracker) -> None:
    assert tracker.read_states(SCALES, taken=(), covered=("Yamaha",)) == []
    assert 0 < STATE_PROBABILITY < 1


def test_a_state_read_in_passing_is_stored_once_with_its_clause(store: NovaStore) -> None:
    # "tonight" makes it a one-off to the capture rules; the reader hears the class the user teaches
    for day in (0, 6):  # told twice: reinforced, never a duplicate
        store.add_turn("u1", "user", ESSAYS, timestamp=T0 + timedelta(days=day), consolidation="manual")
        store.consolidate("u1")
    held = [f for f in store.facts("u1") if f.predicate == OPEN_PREDICATE and f.object == "Year 9"]
    assert len(held) == 1 and held[0].metadata["clause"].startswith("Marked thirty essays for my Year 9")
    assert [f for f in store.facts("someone-else") if f.object == "Year 9"] == []
