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


class _Finder:
    """A scripted thing finder: per clause, the first of ``things`` it holds (any case), else ``None``; every
    call recorded."""

    def __init__(self, *things: str) -> None:
        self.things = things
        self.calls: list[list[str]] = []

    def __call__(self, clauses: list[str]) -> list[str | None]:
        self.calls.append(clauses)
        return [next((t for t in self.things if t.lower() in c.lower()), None) for c in clauses]


def test_the_finder_is_asked_once_for_the_clauses_no_shape_names_a_thing_in() -> None:
    find = _Finder("squash", "frozen shoulder")
    text = "I play squash twice a week. Practising scales on the Yamaha. I've got a frozen shoulder. Any tips?"
    got = state_candidates(text, find=find)
    assert [c.thing for c in got] == ["Yamaha", "squash", "frozen shoulder"]  # shapes first, then the finder
    assert got[1].masked == "I play it twice a week." and got[2].masked == "I've got it."
    # one call, for the two clauses without a name; never for the question
    assert find.calls == [["I play squash twice a week.", "I've got a frozen shoulder."]]
    assert state_candidates("Should I take up squash?", find=find) == []
    assert len(find.calls) == 1  # nothing to ask: no call


def test_a_goal_word_that_names_no_goal_is_no_plan() -> None:
    [got] = state_candidates("I play goal attack for the Hawks every Tuesday", find=_Finder("Hawks"))
    assert got.thing == "Hawks"


def test_the_users_clause_naming_a_person_is_the_finders_but_a_sentence_a_rule_read_is_not() -> None:
    text = "I play squash with my mate Steve on Tuesdays"
    find = _Finder("squash")
    [got] = state_candidates(text, find=find)  # the user is the subject: "my mate" does not make it his
    assert (got.thing, got.subject, got.found) == ("squash", "user", True)
    # a thing sharing a word with a value a rule stated is that value, not a new one
    assert state_candidates(text, covered=("squash on tuesdays",), find=find) == []
    # a sentence a rule read is left to it, finder or not (its thing would be the rule's in other words)
    assert state_candidates(text, taken=(text,), find=find) == []
    assert state_candidates("My mate Steve plays squash on Tuesdays", find=find)[0].subject != "user"


@pytest.mark.parametrize(("text", "thing"), [
    ("My sister reads my magazines every week", "magazines"),  # the user's thing in a person's clause
    ("I go to the cinema with my sister on Fridays", "my sister"),  # the person, not a state
    ("I keep doing it every single day", "it"),  # a pronoun names no state
    ("I'm off out there every day", "there"),
    ("I only drive twice a month", "drive"),  # the verb after its subject
    ("My goal is to run a marathon this year", "marathon"),  # a goal is a plan
    ("one of my big goals for the year is a Munro a month", "Munro"),
])
def test_a_found_thing_that_names_no_state_is_not_read(text: str, thing: str) -> None:
    assert state_candidates(text, find=_Finder(thing)) == []


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


@pytest.mark.parametrize(("text", "subject", "thing"), [
    ("My cousin does her weekly shop at Lidl.", "cousin", "Lidl"),  # a relation
    ("and my brother Ollie coaches the juniors at Hillsborough Harriers", "ollie", "Hillsborough Harriers"),
    ("Nadia, my flatmate, cycles to work on her Brompton.", "nadia", "Brompton"),  # an apposition
    ("Uncle Des still drives the old Land Rover.", "des", "Land Rover"),  # a titled relative
    ("Tomasz on my team is always at Halton Leisure after work.", "tomasz", "Halton Leisure"),  # known from
    ("Met my friend Carys for lunch. She teaches piano at Ashdown Prep.", "carys", "Ashdown Prep"),  # "she"
    ("My nephew keeps his bike in our garage.", "nephew", "bike"),  # "his <thing>"
])
def test_a_clause_about_a_person_in_the_users_life_is_a_candidate_of_theirs(
        text: str, subject: str, thing: str) -> None:
    [candidate] = state_candidates(text)
    assert (candidate.subject, candidate.thing, candidate.known) == (subject, thing, True)


@pytest.mark.parametrize("text", [
    "A man at the station kept showing everyone his Rolex.",  # someone else's thing, told of a stranger
    "Is my sister still at Barclays?",  # a question about a person
    "My brother wants to move to Glasgow next year.",  # a plan
    "My aunt is going to buy a Fiat Panda.",  # a plan
    "My dad doesn't go to Rotary any more, too many meetings.",  # a denial
    "She plays for Bramley Rovers.",  # "she" with no one named before
    "My son and Leo play at Meadowbank on Saturdays.",  # two names: whose and which unclear
])
def test_clauses_that_cannot_tell_a_persons_state_in_passing_are_not_read(text: str) -> None:
    assert state_candidates(text) == []


def test_a_name_first_is_never_the_users_and_a_bare_name_needs_the_store() -> None:
    # a clause with a person named first tells their state (or nothing), never the user's
    [raj] = state_candidates("Raj on my team is always at Fenwick Insurance till seven.")
    assert raj.subject == "raj"
    [bare] = state_candidates("Priya teaches at Hallam now.")
    assert (bare.subject, bare.known) == ("priya", False)  # maybe a person: only the store can tell
    [kin] = state_candidates("Grandad still plays bowls at Endcliffe Park.")
    assert (kin.subject, kin.known) == ("grandad", True)  # a kinship word used as a name: the speaker's relative
    # a verb with its subject dropped is the user's, not a name
    assert state_candidates(SCALES)[0].subject == "user"


@pytest.mark.parametrize(("text", "subject", "thing"), [
    ("My cousin does her weekly shop at Lidl.", "cousin", "Lidl"),
    ("My mate Dougie plays five-a-side at Goals Sheffield every Wednesday.", "dougie", "Goals Sheffield"),
])
def test_a_persons_habit_told_in_passing_is_read_as_their_state(
        text: str, subject: str, thing: str, tracker: ChangeTracker) -> None:
    [state] = tracker.read_states(text, taken=(), covered=())
    assert (state.subject, state.value) == (subject, thing)


def test_a_bare_name_is_read_only_of_someone_the_store_knows(store: NovaStore, minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    tracker = ChangeTracker(store.components.db, minilm_onnx)
    text = "Dougie plays five-a-side at Goals Sheffield every Wednesday."
    store.add_fact("u1", "dougie", "works_as", "plumber")
    [state] = tracker.read_states(text, taken=(), covered=(), user_id="u1")
    assert (state.subject, state.value) == ("dougie", "Goals Sheffield")
    # a name another user's store knows, or none does, may be a thing ("Netflix keeps ..."): read as before, the
    # user's, never a stranger's
    assert [s.subject for s in tracker.read_states(text, taken=(), covered=(), user_id="u2")] in ([], ["user"])
    # a person's clause naming the user's thing is not the person's state
    assert tracker.read_states("Dougie still borrows my strimmer most weekends.", taken=(), covered=(),
                               user_id="u1") == []


def test_a_persons_state_read_in_passing_is_stored_once_and_not_as_the_users(store: NovaStore) -> None:
    text = "Raj on my team is always at Fenwick Insurance till seven."
    for day in (0, 5):  # told twice: one fact, reinforced
        store.add_turn("u1", "user", text, timestamp=T0 + timedelta(days=day), consolidation="manual")
        store.consolidate("u1")
    held = [f for f in store.facts("u1") if "Fenwick" in f.object]
    assert [f.subject for f in held] == ["raj"]
