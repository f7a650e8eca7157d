"""Capture of what one clause leaves open and the rest of the turn settles (#38, ``extraction/_turn``).

Each case shows one mechanism on phrasings of its own (not those of the belief sets), with cases where the
mechanism must not fire: a move whose destination the turn does not name (or names twice), being "at" a
place in a turn that is not about work, being "with" someone in a turn that is not about a relationship.
"""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from capture_helpers import REF, facts

from nova_memory_integrations.extraction import DeterministicExtractor


@pytest.fixture(scope="module")
def extractor() -> DeterministicExtractor:
    return DeterministicExtractor()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a move without a destination: the one place the turn names
        ("Greetings from Valencia! We relocated over the summer for my wife's job.", ("user", "lives_in", "Valencia")),
        ("We moved in March and the flat in Gdansk still has no curtains.", ("user", "lives_in", "Gdansk")),
        ("My cousin Priya moved out in August and she's renting a room in Dundee now.",
         ("priya", "lives_in", "Dundee")),
        # being at a named place "now", in a turn about work
        ("Handed in my notice at the council. I'm at Octopus Energy now, much better team.",
         ("user", "works_at", "Octopus Energy")),
        ("My sister Hana quit Boots, she's at Superdrug these days.", ("hana", "works_at", "Superdrug")),
        # being with someone, in a turn about a relationship
        ("After the breakup with my ex I thought I'd stay single, but I've been with Theo since spring.",
         ("user", "dating", "Theo")),
        # without a relationship, a tenure names an employer
        ("I've been with Barclays for years and the pension is decent.", ("user", "works_at", "Barclays")),
    ],
)
def test_the_turn_settles_what_a_clause_leaves_open(extractor: DeterministicExtractor, text: str,
                                                    expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


def test_a_move_settles_at_the_time_of_the_move(extractor: DeterministicExtractor) -> None:
    found = [c for c in extractor.extract("We moved in March and the flat in Gdansk still has no curtains.",
                                          timestamp=REF) if c.predicate == "lives_in"]
    assert [(c.object, c.valid_from) for c in found] == [("Gdansk", datetime(2024, 3, 1, tzinfo=timezone.utc))]


@pytest.mark.parametrize(
    "text",
    [
        # no place named, or two: the destination is unknown
        "We moved last month and the boxes are still everywhere.",
        "We moved in June, the van drove from Leeds to York twice.",
        # the place one moved from is not where one lives
        "We moved out of Leeds in June, still no broadband.",
        # a place in a question is not a statement
        "We finally moved last week! Is Porto nice in winter?",
        # "moved on" is getting over something, not a move
        "I've moved on since the breakup, spent the weekend in Bath.",
        # being "at" a place in a turn that is not about work
        "I'm at Heathrow now, the flight is delayed again.",
        "We're at Alton Towers at the moment and the queues are mad.",
        # being "with" someone in a turn that is not about a relationship
        "I'm with Grandma now, she says hi.",
        # a romance word in a question of the turn says nothing of the user
        "I've been with Kit for lunch. What's a good date idea for my parents?",
        # "at X now" as a visit, not a workplace, even in a turn about work
        "I'm at Greggs now waiting for my shift to start at Lidl.",
        "I'm at Anfield now for the match, work was mad today.",
        # quitting a habit is not a turn about work
        "Quit crisps in March, I'm at WeightWatchers now.",
    ],
)
def test_what_the_turn_does_not_settle_is_dropped(extractor: DeterministicExtractor, text: str) -> None:
    found = facts(extractor, text)
    assert not any(p in ("lives_in", "works_at", "dating") for _, p, _ in found), found
    assert not any(p.startswith("@") for _, p, _ in found), found


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("she's joined a gym", "she has joined a gym"),
        ("He's just sold his van", "He has just sold his van"),
        ("it's been raining", "it has been raining"),
        # before anything but a participle the 's stays "is"
        ("she's tired", "she is tired"),
        ("He's a joiner in Hull", "He is a joiner in Hull"),
    ],
)
def test_a_pronouns_s_before_a_participle_is_has(text: str, expanded: str) -> None:
    from nova_memory_integrations.extraction._clauses import expand

    assert expand(text) == expanded


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a move named in passing, in a clause without "I": the speaker's
        ("Since our move over to Norwich the garden's been a project.", ("user", "lives_in", "Norwich")),
        # a start told as a noun phrase
        ("First week as a junior architect at Foster and Partners, terrified.",
         ("user", "works_at", "Foster and Partners")),
        ("Tomorrow is my first day at Lidl!", ("user", "works_at", "Lidl")),
        # someone new, named after the description
        ("I've started seeing a guy from my pottery class, Felix.", ("user", "dating", "Felix")),
    ],
)
def test_a_state_told_in_passing_is_captured(extractor: DeterministicExtractor, text: str,
                                             expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


@pytest.mark.parametrize(
    "text",
    [
        "My sister's move to Glasgow went smoothly.",  # someone else's move
        "Her move to Glasgow went smoothly.",
        "First day at Riverside Primary for my daughter tomorrow!",  # someone else's first day
        "I've been seeing someone from work, which is awkward.",  # no name
    ],
)
def test_a_state_of_someone_else_told_in_passing_is_not_the_speakers(extractor: DeterministicExtractor,
                                                                     text: str) -> None:
    found = facts(extractor, text)
    assert not any(s == "user" and p in ("lives_in", "works_at", "studies_at", "dating") for s, p, _ in found), found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # an -ing adjunct's subject is the main clause's
        ("After transferring to the Leeds branch at Nationwide, I finally got a desk by the window.",
         ("user", "works_at", "Nationwide")),
        # a switch of unit at a named employer is a new workplace
        ("I've switched to the paediatric ward at St Thomas' and love it.", ("user", "works_at", "St Thomas")),
        # a thing handed on to a relative or friend is theirs
        ("I passed my old Kindle on to my niece.", ("niece", "owns", "Kindle")),
        ("We sold the caravan to my cousin Bryn in the spring.", ("bryn", "owns", "caravan")),
    ],
)
def test_a_change_told_around_its_clause(extractor: DeterministicExtractor, text: str,
                                         expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("Finally retired my old Dell laptop.", "Dell laptop"),
        ("Parted with the Vespa last spring, sadly.", "Vespa"),
        ("We said goodbye to the caravan in June.", "caravan"),
    ],
)
def test_a_thing_retired_or_parted_with_ends(extractor: DeterministicExtractor, text: str, ended: str) -> None:
    found = extractor.extract(text, timestamp=REF)
    assert ("owns", ended) in {(c.predicate, c.object) for c in found if c.op == "negate"}
    assert not any(c.predicate == "employment_status" for c in found)  # retiring a thing is not retiring


@pytest.mark.parametrize(
    "text",
    [
        "Since joining, I feel better.",  # an adjunct with no statement of its own
        "When thinking about it, I get nervous.",
        "I lent my drill to my brother.",  # a loan is not a change of owner
        "I gave a talk to my colleagues.",  # not a thing held
        "I moved to a flat at Canary Wharf.",  # a move of home, not a workplace
        "I retired in May.",  # retiring from work: a status, not an ended thing
    ],
)
def test_what_is_not_a_change_of_owner_or_workplace(extractor: DeterministicExtractor, text: str) -> None:
    found = facts(extractor, text)
    assert not any(p == "works_at" or (p == "owns" and s != "user") for s, p, _ in found), found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a manager or colleague named in a turn that says where the user works works there too
        ("I'm a cashier at Aldi and my colleague Bea keeps swapping shifts.", ("bea", "works_at", "Aldi")),
        # a child told by their age, named in brackets
        ("Our 12-year-old (Noor) joined the Sea Scouts.", ("user", "child_name", "Noor")),
        ("my 14 yr old (Kofi) got a Saturday job, at the Evening Post.", ("kofi", "works_at", "the Evening Post")),
        # a name told apart by where one knows them from
        ("Jo from the gym has moved to Cardiff.", ("jo from the gym", "lives_in", "Cardiff")),
        # an engagement without a named partner is a status
        ("My sister Ines just got engaged!", ("ines", "relationship_status", "engaged")),
        # leaving for a new job names the new workplace
        ("Tariq quit for a new role at Rolls-Royce.", ("tariq", "works_at", "Rolls-Royce")),
    ],
)
def test_third_parties_told_in_everyday_shapes(extractor: DeterministicExtractor, text: str,
                                               expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        # a colleague with no workplace said in the turn: nothing inferred
        ("My colleague Bea keeps swapping shifts.", ("bea", "works_at")),
        # a workplace the user has left is not the colleague's
        ("I used to work at Aldi; my colleague Bea there was lovely.", ("bea", "works_at")),
        # an engagement to someone named is engaged_to, not a bare status
        ("Ines got engaged to Marco.", ("ines", "relationship_status")),
    ],
)
def test_third_party_shapes_that_must_not_fire(extractor: DeterministicExtractor, text: str,
                                               absent: tuple[str, str]) -> None:
    assert absent not in {(s, p) for s, p, _ in facts(extractor, text)}


def test_two_people_with_one_name_are_kept_apart(extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "Alex from work got engaged, and my cousin Alex moved to Derby.")
    assert ("alex from work", "relationship_status", "engaged") in found
    assert ("alex", "lives_in", "Derby") in found
    assert ("alex", "relationship_status", "engaged") not in found


def test_a_comma_before_a_preposition_does_not_name_a_thing(extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "Our son got a paper round, with the Evening Post.")
    assert not any(p == "owns" for _, p, _ in found), found


def test_a_named_pet_of_someone_else_ends_when_it_dies() -> None:
    from datetime import timedelta

    from nova_memory_integrations.types import Episode

    extractor = DeterministicExtractor()

    def turn(text: str, session: str, days: int) -> list[tuple[str, str, str, str]]:
        episode = Episode(id=session, user_id="u", session_id=session, role="user", content=text,
                          timestamp=REF + timedelta(days=days), ingested_at=REF)
        return [(c.op, c.subject, c.predicate, c.object) for c in extractor.extract_batch([episode])[0]]

    first = turn("My niece Ola got a rabbit at Easter, called Biscuit, and adores it.", "a", 0)
    assert ("assert", "ola", "has_pet", "rabbit named Biscuit") in first
    later = turn("Biscuit passed away on Sunday, Ola is heartbroken.", "b", 30)
    assert ("negate", "ola", "has_pet", "rabbit named Biscuit") in later
    # a death of someone not known as a pet ends no pet
    other = turn("Rosalind died last spring.", "c", 40)
    assert not any(p == "has_pet" for _, _, p, _ in other)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # two relatives coordinated as one subject: what follows is said of both
        ("My brother Kwame and my flatmate Joel both train at Gym Group Peckham.",
         {("kwame", "member_of", "Gym Group Peckham"), ("joel", "member_of", "Gym Group Peckham")}),
        # a generic organisation named after a comma
        ("My neighbour Ruth works at a little bakery on the corner, the Crumb Club.",
         {("ruth", "works_at", "Crumb Club")}),
        # "quit the <Name>" ends the named workplace
        ("Ruth quit the Crumb Club in June.", {("ruth", "works_at", "Crumb Club")}),
    ],
)
def test_coordinated_relatives_and_named_workplaces(extractor: DeterministicExtractor, text: str,
                                                   expected: set[tuple[str, str, str]]) -> None:
    found = {(c.subject, c.predicate, c.object) for c in extractor.extract(text, timestamp=REF)}
    assert expected <= found


def test_a_relative_before_another_clause_is_not_a_coordinated_subject(extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "I visited my aunt Lou, and my cousin Amir works at Tesco.")
    assert ("amir", "works_at", "Tesco") in found
    assert ("lou", "works_at", "Tesco") not in found
    # a comma after a generic organisation that is not a name keeps nothing of it
    assert ("user", "works_at", "Monday") not in facts(extractor, "I work at a cafe, Monday to Friday.")


def test_the_last_person_named_is_who_a_pronoun_means(extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "My wife Dana loves opera. I'm dating again, though: I'm seeing a woman from "
                             "church, Imke. She's into sailing.")
    assert ("imke", "likes", "sailing") in found
    assert ("dana", "likes", "sailing") not in found


def test_two_relatives_with_one_name_are_told_apart_by_the_relation(extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "My brother and my neighbour are both named Omar. Brother Omar works at Currys, "
                             "and my neighbour has moved to Luton.")
    assert ("user", "brother_name", "Omar") in found and ("user", "neighbor_name", "Omar") in found
    assert not any(s == "omar" for s, _, _ in found), found  # which Omar is meant is the relation's
    assert {("brother", "works_at", "Currys"), ("neighbor", "lives_in", "Luton")} <= found


def test_a_titled_relative_with_a_name_of_their_own_is_that_name(extractor: DeterministicExtractor) -> None:
    assert ("ines", "lives_in", "Porto") in facts(extractor, "Aunt Ines moved to Porto last spring.")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm on a Pixel 8 these days.", ("user", "uses", "Pixel")),
        ("New role at Arup starts in a fortnight.", ("user", "works_at", "Arup")),
        ("Currently at Babylon as a data analyst.", ("user", "works_at", "Babylon")),
        ("Our new employer is Rentokil.", ("user", "works_at", "Rentokil")),
        ("My niece Zara has a part-time job at Greggs.", ("zara", "works_at", "Greggs")),
        ("My nephew is at Keele university now.", ("nephew", "studies_at", "Keele university")),
        ("After relocating to Aberdeen we bought a dog.", ("user", "lives_in", "Aberdeen")),
        ("We've moved in with my in-laws in Dorking for now.", ("user", "lives_in", "Dorking")),
        ("Swapped my Kindle for a Kobo.", ("user", "owns", "Kobo")),
        ("Ditched Vodafone for Three last month.", ("user", "uses", "Three")),
        ("My aunt and her husband moved to Tenby.", ("aunt", "lives_in", "Tenby")),
    ],
)
def test_everyday_shapes_of_a_new_state(extractor: DeterministicExtractor, text: str,
                                        expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


@pytest.mark.parametrize(
    ("text", "absent"),
    [
        ("I'm on the train now.", ("user", "uses")),  # not a named product
        ("My aunt and her husband moved to Tenby.", ("husband", "lives_in")),  # "her husband" is not the user's
        ("Swapped my Kindle for a Kobo.", ("user", "owns", "Kindle")),  # the old one is ended, not held
        ("On joining I got a free shirt.", ("user", "works_at")),
        ("I'm at the Ritz now for a wedding.", ("user", "works_at")),  # not a turn about work
    ],
)
def test_everyday_shapes_that_must_not_fire(extractor: DeterministicExtractor, text: str,
                                            absent: tuple[str, ...]) -> None:
    found = {(c.subject, c.predicate, c.object) for c in extractor.extract(text, timestamp=REF) if c.op == "assert"}
    assert not any(f[: len(absent)] == absent for f in found), found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a shop's name ending in 's after a preposition is a name, not "<name> is"
        ("I'm working at Nando's now, weekends only.", ("user", "works_at", "Nando's")),
        # "'s" before a participle is "has" for a relative too
        ("My mum's swapped her Clio for a Jazz.", ("mom", "owns", "Jazz")),
        # a name told apart by a group of one's own
        ("Mo from my book club has moved to Hove.", ("mo from my book club", "lives_in", "Hove")),
        # an admission is a place of study
        ("Our son got into Warwick!", ("son", "studies_at", "Warwick")),
        # an appositive relation with a modifier
        ("Dev, my old flatmate, has moved to Bath.", ("dev", "lives_in", "Bath")),
    ],
)
def test_more_everyday_third_party_shapes(extractor: DeterministicExtractor, text: str,
                                          expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


def test_a_name_with_s_after_a_preposition_stays_a_name() -> None:
    from nova_memory_integrations.extraction._clauses import expand

    assert expand("we ate at Nando's now and then") == "we ate at Nando's now and then"
    assert expand("Tom's now in Leeds") == "Tom is now in Leeds"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Hello from rainy Galway! We moved over the winter.", ("user", "lives_in", "Galway")),
        ("My son got into art college in Dundee.", ("son", "studies_at", "Dundee")),
    ],
)
def test_a_place_or_school_behind_a_describing_word(extractor: DeterministicExtractor, text: str,
                                                    expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


def test_a_name_after_to_and_a_verb_is_not_a_destination(extractor: DeterministicExtractor) -> None:
    # "to visit Dave": a person, not where the user moved
    assert not any(p == "lives_in" for _, p, _ in facts(extractor, "We moved last month, mostly to visit Dave."))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I've swapped Manchester for Lisbon.", ("user", "lives_in", "Lisbon")),
        ("We've been in Harrogate since the spring.", ("user", "lives_in", "Harrogate")),
        ("Moved across town to Roath in May.", ("user", "lives_in", "Roath")),
        ("We downsized to a cottage in Rye.", ("user", "lives_in", "Rye")),
        ("I'm back in Belfast after a year away.", ("user", "lives_in", "Belfast")),
        ("I now run my own cafe, Bean Counter.", ("user", "owns", "cafe named Bean Counter")),
        ("My brother's been promoted to head of science.", ("brother", "job_title", "head of science")),
    ],
)
def test_moves_and_businesses_in_everyday_shapes(extractor: DeterministicExtractor, text: str,
                                                 expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


def test_a_swap_of_settings_owns_nothing(extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "Traded the city for the countryside last year.")
    assert not any(p == "owns" for _, p, _ in found), found
    # a swap of things after a move stays a swap of things
    found = facts(extractor, "After moving to London I swapped my Ford for a Kia.")
    assert ("user", "owns", "Kia") in found and ("user", "lives_in", "Kia") not in found


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Changed gyms, I'm at Anytime Fitness now.", ("user", "member_of", "Anytime Fitness")),
        ("We're renting in Walthamstow now.", ("user", "lives_in", "Walthamstow")),
        ("Nowadays we live out in Kent.", ("user", "lives_in", "Kent")),
        ("I quit the choir and joined a book club instead.", ("user", "member_of", "book club")),
    ],
)
def test_a_club_or_home_in_more_shapes(extractor: DeterministicExtractor, text: str,
                                       expected: tuple[str, str, str]) -> None:
    assert expected in facts(extractor, text)


def test_a_place_in_a_sentence_about_someone_else_is_not_the_speakers_destination(
        extractor: DeterministicExtractor) -> None:
    found = facts(extractor, "We moved in June. My parents live in Leeds, which helps.")
    assert ("parents", "lives_in", "Leeds") in found
    assert ("user", "lives_in", "Leeds") not in found
