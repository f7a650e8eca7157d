"""Relations told by the topic of a sentence or by a start's consequence (#38, ``extraction/_context``).

Each case is a phrasing of our own (none from the belief sets): where the user lives, works, studies or
belongs, told only by what the sentence is about ("the landlord in Kirkcaldy", "night shifts at Asda",
"rehearsal with the Barnsley Singers") or by a start ("first week at Arup done", "into Cardiff life"), and the
sentences where nothing may be read: a visit, a plan, someone else's news, a memory, a question, a leaving.
"""

from __future__ import annotations

import pytest
from capture_helpers import facts

from nova_memory_integrations.extraction import DeterministicExtractor
from nova_memory_integrations.extraction._context import context_facts, read_context, read_starts
from nova_memory_integrations.extraction.base import READ_BY_TOPIC, CandidateFact


@pytest.fixture(scope="module")
def extractor() -> DeterministicExtractor:
    return DeterministicExtractor()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The landlord in Kirkcaldy still hasn't fixed our boiler and I'm freezing.", ("lives_in", "Kirkcaldy")),
        ("Fourth winter in Winnipeg and I still can't feel my toes. Best thermal socks?", ("lives_in", "Winnipeg")),
        ("It's 41 degrees in Seville again, our fan has given up. Tips to sleep?", ("lives_in", "Seville")),
        ("Night shifts at Asda are wrecking my sleep, any tips?", ("works_at", "Asda")),
        ("My manager at Capita wants the report by Friday and I haven't started.", ("works_at", "Capita")),
        ("Second essay of the term due at Keele and my tutor hates my referencing.", ("studies_at", "Keele")),
        ("Rehearsal with the Barnsley Singers tonight, we're doing Elijah.", ("member_of", "Barnsley Singers")),
    ],
)
def test_a_topic_tells_the_relation(text: str, expected: tuple[str, str]) -> None:
    got = [(p, v) for p, v, _, _ in read_context(text, set(), set())]
    assert expected in got, got


@pytest.mark.parametrize(
    "text",
    [
        "Visiting my aunt in Kirkcaldy this weekend, the rent there is so cheap!",  # a visit
        "If I moved to Winnipeg would the rent be lower?",  # a question and a wish
        "My brother's landlord in Hull wants the flat back.",  # someone else's home
        "I used to do night shifts at Asda before the kids.",  # a memory
        "Handed in my notice at Capita, last shift is Friday.",  # a leaving, the change layer's
        "The rent is going up again in August, apparently.",  # a month is no place
        "Had my final session with Dr Khan today about the shoulder.",  # a title and a name are a person
    ],
)
def test_no_relation_where_the_sentence_is_not_the_users_present(text: str) -> None:
    assert read_context(text, set(), set()) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("first week at Arup done, my brain is full", ("works_at", "Arup")),
        ("Two months into Cardiff life and I love the castle.", ("lives_in", "Cardiff")),
        ("Finally settled into the new flat in Govan, boxes everywhere.", ("lives_in", "Govan")),
        ("back in dublin after six years in Sydney!", ("lives_in", "Dublin")),
        ("transfer approved, first week at Exeter done and the campus is huge", ("studies_at", "Exeter")),
        ("Keys to the Hebden house in hand at last.", ("lives_in", "Hebden")),
    ],
)
def test_a_start_tells_the_new_value(text: str, expected: tuple[str, str]) -> None:
    assert ("user", *expected) in [(w, p, v) for w, p, v, _ in read_starts(text, set())]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Mark's started his new job at Ofgem and loves it.", ("mark", "works_at", "Ofgem")),
        ("Ruby's three weeks into St Aidan's and loves her teacher.", ("ruby", "studies_at", "St Aidan's")),
        ("Dev's settled into his new flat in Ealing, finally.", ("dev", "lives_in", "Ealing")),
    ],
)
def test_a_start_of_the_person_the_sentence_opens_on_is_theirs(text: str, expected: tuple[str, str, str]) -> None:
    assert [(w, p, v) for w, p, v, _ in read_starts(text, set())] == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "Mark's started my old job at Ofgem.",  # the start's words are the user's, not his
        "My sister's first week at Deloitte went well.",  # a relative's start (no name to hold it)
        "I'm back in London for the weekend to see friends.",  # a visit
        "I'm at Gatwick now, the flight is delayed again.",  # being at a place
        "Not sure I'd survive a first week at Goldman, honestly.",  # a wish, denied
    ],
)
def test_no_start_for_someone_else_a_visit_or_a_wish(text: str) -> None:
    assert read_starts(text, set()) == []


def test_a_stated_relation_wins_and_the_reading_is_marked() -> None:
    stated = [CandidateFact("user", "works_at", "Network Rail")]
    text = "Night shifts at Asda are wrecking my sleep."
    assert context_facts(text, stated) == []  # the turn already says where the user works
    read = context_facts(text, [])
    assert [(c.predicate, c.object, c.reason) for c in read] == [("works_at", "Asda", READ_BY_TOPIC)]
    assert read[0].confidence < CandidateFact("user", "works_at", "x").confidence


def test_the_extractor_adds_the_reading_once(extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "Our landlord in Kirkcaldy wants the rent up by £90. Is that even allowed mid-lease?")
    assert ("user", "lives_in", "Kirkcaldy") in found
    assert sum(1 for _, p, _ in found if p == "lives_in") == 1
