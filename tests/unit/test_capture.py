"""Capture: the first statement of a state is stored, with its subject, predicate and a clean object (#38).

The sentences here are not those of the belief sets: each shows one mechanism of ``extraction/_frames``
(verb classes as data), ``extraction/_things`` (held things, groups, homes, habits, named things) and
``extraction/_clauses`` (subject elision, question tails, modal vs conditional clauses), on phrasings
of its own.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from capture_helpers import REF, facts

from nova_memory_integrations.config import FactConfig
from nova_memory_integrations.extraction import DeterministicExtractor
from nova_memory_integrations.extraction._frames import verb_forms
from nova_memory_integrations.types import Episode


@pytest.fixture(scope="module")
def extractor() -> DeterministicExtractor:
    return DeterministicExtractor()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # subject elision: a statement that opens on its verb is the speaker's
        ("Been working at Tesco for years, mostly nights.", ("user", "works_at", "Tesco")),
        ("Living in Cork since the summer.", ("user", "lives_in", "Cork")),
        ("Member of Harbour Rowing Club, sculling mostly.", ("user", "member_of", "Harbour Rowing Club")),
        ("Vegan for three years now.", ("user", "diet", "vegan")),
        ("Staff nurse at St Mary's, on the renal ward.", ("user", "works_at", "St Mary's")),
        # verb classes: one row covers every form of its verbs
        ("I teach history at Park Lane School.", ("user", "job_title", "history teacher")),
        ("I've been volunteering at the Oxfam shop on Fridays.", ("user", "works_at", "the Oxfam shop")),
        ("I do bookkeeping for a plumbing firm called Aqua Fix.", ("user", "works_at", "Aqua Fix")),
        ("I drive for Deliveroo at weekends.", ("user", "works_at", "Deliveroo")),
        ("I smoke when I drink, which is most weekends.", ("user", "habit", "smoking")),
        ("I cycle most mornings before work.", ("user", "hobby", "cycling")),
        ("I drink three flat whites a day.", ("user", "habit", "3 flat whites a day")),
        # held things: a head noun of its class, or a proper-named product; a named thing keeps its name
        ("we've got an old Land Rover Defender that leaks.", ("user", "owns", "Land Rover Defender")),
        # a partner told as had with a name is a person, never a pet
        ("My daughter Maya has a boyfriend called Finn who's 18.", ("maya", "boyfriend_name", "Finn")),
        ("I have a fiancé called Sam.", ("user", "fiancé_name", "Sam")),  # spelt as "my fiancé Sam" is
        # a named person before an irregular past tense
        ("Alex went vegan in January.", ("alex", "diet", "vegan")),
        # a pet named with its breed before the name
        ("Our springer spaniel Alfie is 8 months old and pulls like a train.",
         ("user", "has_pet", "springer spaniel named Alfie")),
        # a home bought and completed on is where one lives
        ("We closed on the house in Denver last week.", ("user", "lives_in", "Denver")),
        # a statement before a question that opens on "anywhere"
        ("I live in Leeds and I'm looking for a good Sunday roast, anywhere near Headingley?",
         ("user", "lives_in", "Leeds")),
        # a known employer started at, told with its team, is where one works
        ("I started at Deloitte on Monday, in their forensic team.", ("user", "works_at", "Deloitte")),
        ("I completed on my flat in Leith on Friday.", ("user", "lives_in", "Leith")),
        # "working as a ..." says a job, whatever its head; a job told of someone named
        ("I'm working as a health visitor now.", ("user", "job_title", "health visitor")),
        ("Priya is working as a sound designer these days.", ("priya", "job_title", "sound designer")),
        ("Raj bought a Tesla last week.", ("raj", "owns", "Tesla")),
        ("I ride a battered old Vespa to work.", ("user", "owns", "Vespa")),
        ("I run a food truck called Taco Loco.", ("user", "owns", "food truck named Taco Loco")),
        ("We have an axolotl named Bubbles.", ("user", "has_pet", "axolotl named Bubbles")),
        ("We keep three hens, Peggy, Sue and Dot.", ("user", "has_pet", "hen named Sue")),
        ("My Kawasaki Ninja needs a new chain.", ("user", "owns", "Kawasaki Ninja")),
        ("my laptop is a ThinkPad X1 and the fan is loud.", ("user", "owns", "ThinkPad X1")),
        ("I do all my editing on a Mac Studio.", ("user", "owns", "Mac Studio")),
        # groups and memberships
        ("I'm in a choir, the Hillside Singers, and we rehearse on Mondays.", ("user", "member_of", "Hillside Singers")),
        ("I play drums in a band called The Nobodies.", ("user", "member_of", "Nobodies")),
        ("Just joined a bouldering gym, The Arch.", ("user", "member_of", "Arch")),
        ("My knitting group meets on Sundays.", ("user", "member_of", "knitting group")),
        # homes
        ("We rent a two-bed above a chippy on Mill Lane.", ("user", "lives_in", "Mill Lane")),
        ("I share a flat in Hackney with two friends.", ("user", "lives_in", "Hackney")),
        # health
        ("I have a severe allergy to shellfish.", ("user", "allergic_to", "shellfish")),
        ("I take sertraline every morning.", ("user", "takes_medication", "sertraline")),
        ("I'm diabetic and take metformin twice a day.", ("user", "has_condition", "diabetes")),
        ("I'm on antidepressants, sertraline 50mg.", ("user", "takes_medication", "antidepressants")),
        ("Currently doing my PhD in neuroscience at UCL.", ("user", "studies_at", "UCL")),
        ("Been at Morrisons for six years now.", ("user", "works_at", "Morrisons")),
        ("Just moved into a flat in Peckham with my girlfriend.", ("user", "lives_in", "Peckham")),
        ("Our dog Ziggy is a border collie.", ("ziggy", "breed", "border collie")),
        ("My car is a Hyundai i30 and the light is on.", ("user", "owns", "Hyundai i30")),
        # relations: short words, modifiers, apposition, titles, 's as is/has
        ("my bf Arjun is a paramedic.", ("arjun", "job_title", "paramedic")),
        ("My old uni friend Priya moved to Leeds last month.", ("priya", "lives_in", "Leeds")),
        ("Auntie Jo finally sold the shop and retired to Portugal.", ("jo", "lives_in", "Portugal")),
        ("Ravi's just moved to Glasgow.", ("ravi", "lives_in", "Glasgow")),
        ("My cousin's an architect at Arup.", ("cousin", "works_at", "Arup")),
        ("My sister-in-law Maya works at the council.", ("maya", "works_at", "council")),
        # what one switches to is classed like what one joins: a field of study, a club, else a thing used
        ("I switched to medicine over the summer.", ("user", "studies", "medicine")),
        ("Switched from Anytime to a climbing gym called The Depot.", ("user", "member_of", "Depot")),
        ("We switched to Octopus Energy last spring.", ("user", "uses", "Octopus Energy")),
        # a statement before a question's own clause
        ("my girlfriend Ana loves climbing, where should we go in May?", ("user", "girlfriend_name", "Ana")),
        ("I should have said earlier, I live in Leeds.", ("user", "lives_in", "Leeds")),
    ],
)
def test_a_first_statement_is_captured(extractor: DeterministicExtractor, text: str,
                                       expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


@pytest.mark.parametrize(
    "text",
    [
        "If I get the job, I move to Berlin.",
        "Thinking about getting a dog, maybe a whippet.",
        "I have a question about my car.",
        "Got an offer from Revolut, but I turned it down.",
        "My first car was a Fiat Panda.",
        "Back in college I lived in Leeds for three years.",
        "Years ago I worked in a call centre for Vodafone.",
        "I have a meeting at Google tomorrow.",
        "Jenny's place is lovely.",
        "I'm not allergic to anything.",
        "should I sell my Polo and use a car club?",
        "I'm in London for the weekend.",
        "Volunteering at the shelter has been great for my mood.",
        "I'm part of the team now.",
        "I'm on the train.",
        "I've been at the airport for hours.",
    ],
)
def test_no_fact_from_hypotheticals_questions_and_the_past(extractor: DeterministicExtractor, text: str) -> None:
    found = facts(extractor, text)
    assert not {f for f in found if f[1] not in ("plans_to",)}, found


def test_an_allergy_is_not_its_adjective_nor_an_adverb(extractor: DeterministicExtractor) -> None:
    assert facts(extractor, "I'm allergic to peanuts, pretty badly.") == {("user", "allergic_to", "peanuts")}


def test_a_subjectless_clause_after_someone_else_is_theirs(extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "He's done it — retired! Took up bowls within a week.")
    assert not {f for f in found if f[0] == "user"}


def test_a_job_that_starts_later_holds_from_its_start(extractor: DeterministicExtractor) -> None:
    found = extractor.extract("Got a job at the library as a clerk!! I start on January 6th.", timestamp=REF)
    works = [c for c in found if c.predicate == "works_at"]
    assert works and works[0].valid_from == datetime(2025, 1, 6, tzinfo=timezone.utc)


def test_a_pronoun_in_a_later_turn_of_the_session_is_the_person_named_before() -> None:
    extractor = DeterministicExtractor()

    def turn(text: str, session: str, minutes: int, user: str = "u") -> Episode:
        return Episode(id=f"e{minutes}", user_id=user, session_id=session, role="user", content=text,
                       timestamp=REF + timedelta(minutes=minutes), ingested_at=REF)

    first = extractor.extract_batch([turn("My brother just moved to Lisbon.", "s1", 0)])
    assert ("brother", "lives_in", "Lisbon") in {(c.subject, c.predicate, c.object) for c in first[0]}
    later = extractor.extract_batch([turn("He works at a bakery called Pão Quente now.", "s1", 5)])
    assert [(c.subject, c.predicate) for c in later[0]] == [("brother", "works_at")]
    other = extractor.extract_batch([turn("He works at a bakery called Pão Quente now.", "s9", 6, user="v")])
    assert other == [[]]  # another user's conversation: "he" is no one known


def test_a_users_next_conversation_opens_on_the_people_the_last_one_named() -> None:
    extractor = DeterministicExtractor()

    def turn(text: str, session: str, days: int, user: str = "u") -> Episode:
        return Episode(id=f"e{session}", user_id=user, session_id=session, role="user", content=text,
                       timestamp=REF + timedelta(days=days), ingested_at=REF)

    extractor.extract_batch([turn("My aunt Carmen teaches yoga in Malaga.", "a", 0)])
    weeks_later = extractor.extract_batch([turn("She's joined a walking club, the Ramblers of Nerja.", "b", 40)])
    assert ("carmen", "member_of") in {(c.subject, c.predicate) for c in weeks_later[0]}
    aunt = extractor.extract_batch([turn("My aunt has moved to Ronda.", "c", 60)])
    assert ("carmen", "lives_in", "Ronda") in {(c.subject, c.predicate, c.object) for c in aunt[0]}
    # someone else's conversations do not carry over
    stranger = extractor.extract_batch([turn("She's joined a walking club, the Ramblers of Nerja.", "d", 61, "w")])
    assert stranger == [[]]


def test_a_diet_is_one_value_at_a_time_hobbies_many() -> None:
    config = FactConfig()
    assert config.is_single_valued("diet")
    assert config.is_single_valued("breed")
    assert not config.is_single_valued("hobby")
    assert not config.is_single_valued("member_of")


def test_verb_forms_cover_the_tenses_of_their_aspect() -> None:
    import re

    state = re.compile(verb_forms("teach", "state"))
    event = re.compile(verb_forms("buy", "event"))
    for form in ("teach", "teaches", "am teaching", "has been teaching"):
        assert state.fullmatch(form), form
    assert not state.fullmatch("taught")  # the past says nothing about now
    for form in ("bought", "have just bought", "has bought"):
        assert event.fullmatch(form), form


def test_only_a_known_person_carries_over_to_the_next_conversation_and_not_as_they() -> None:
    extractor = DeterministicExtractor()

    def turn(text: str, session: str, days: int) -> list[tuple[str, str]]:
        episode = Episode(id=f"e{session}", user_id="u", session_id=session, role="user", content=text,
                          timestamp=REF + timedelta(days=days), ingested_at=REF)
        return [(c.subject, c.predicate) for c in extractor.extract_batch([episode])[0]]

    turn("Priyanka moved to Leeds.", "a", 0)  # a name said in passing, not a relative of the user
    assert turn("She has joined a choir, the Leeds Voices.", "b", 10) == []
    turn("My grandad has moved into a care home in Selby.", "c", 20)
    assert turn("They love the new garden there.", "d", 30) == []  # "they": most often a group
    assert ("grandad", "member_of") in turn("He's joined the bowls club, the Selby Jacks.", "e", 40)


def test_a_known_persons_name_written_lower_case_is_still_them() -> None:
    """"alex has gone fully vegan": lower case, but the partner named before (issue #38)."""
    extractor = DeterministicExtractor()

    def turn(text: str, session: str, minutes: int) -> Episode:
        return Episode(id=f"e{minutes}", user_id="u", session_id=session, role="user", content=text,
                       timestamp=REF + timedelta(minutes=minutes), ingested_at=REF)

    extractor.extract_batch([turn("My partner Alex is vegetarian.", "s1", 0)])
    later = extractor.extract_batch([turn("alex has gone fully vegan as of january, no more cheese", "s2", 90 * 24 * 60)])
    assert ("alex", "diet", "vegan") in {(c.subject, c.predicate, c.object) for c in later[0]}
    unknown = extractor.extract_batch([turn("sam has gone fully vegan", "s3", 91 * 24 * 60)])
    assert not any(c.subject == "sam" for c in unknown[0])  # a lower-case word is a name only when known as one


@pytest.mark.parametrize("text", ["I work as hard as I can.", "I work as a favour for my uncle.",
                                  "I work as part of a small team."])
def test_working_as_a_manner_is_no_job(extractor: DeterministicExtractor, text: str) -> None:
    assert not any(p == "job_title" for _, p, _ in facts(extractor, text))


@pytest.mark.parametrize("text", ["We've moved in with my in-laws in Swindon for a fortnight while the builders work.",
                                  "We're staying in Bath for the summer.",
                                  "Moved into my mum's in Derby temporarily while the flat is sold."])
def test_a_stay_told_with_its_end_is_no_new_home(extractor: DeterministicExtractor, text: str) -> None:
    """The held home goes on (issue #38: a false change on the fourth set)."""
    assert not any(p == "lives_in" for _, p, _ in facts(extractor, text))


def test_a_move_or_a_long_stay_is_still_a_home(extractor: DeterministicExtractor) -> None:
    assert ("user", "lives_in", "Leeds") in facts(extractor, "I've lived in Leeds for two years.")


def test_a_move_to_a_known_supplier_is_no_home(extractor: DeterministicExtractor) -> None:
    """"Moved over to Octopus": an energy supplier, never a place to live (issue #38)."""
    assert not any(p == "lives_in" for _, p, _ in facts(extractor, "Moved over to Octopus last month."))
