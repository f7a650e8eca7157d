"""States told by mention (#38): the shapes of ``changes/state_mentions`` and the clause shapes added to
``changes/states`` for first states that were never stored.

Every phrasing here is written for these tests (no belief set's sentence); each shape has a must-not case.
"""

from __future__ import annotations

import pytest

from nova_memory_integrations.changes.state_mentions import (
    acquired,
    complaint,
    identity,
    kept_at_home,
    label,
    owner_relation,
    priced,
    recurring,
    scheduled,
)
from nova_memory_integrations.changes.states import open_states
from nova_memory_integrations.extraction.deterministic import DeterministicExtractor


def _values(text: str) -> set[tuple[str, str]]:
    return {(s.subject, s.value) for s in open_states(text)}


# ------------------------------------------------------------------------------------------- the shapes alone
@pytest.mark.parametrize(("body", "expected"), [
    ("my tablet is an iPad Air", ("user", "tablet iPad Air")),
    ("Home printer's a Brother HL-2350", ("user", "printer Brother HL-2350")),
    ("Our energy supplier is Octopus", ("user", "energy supplier Octopus")),
    ("my dentist is Smile Studio on Kings Road", ("user", "dentist Smile Studio")),
])
def test_an_identity_copula_names_which_one_is_the_users(body: str, expected: tuple[str, str]) -> None:
    assert identity(body) == expected


@pytest.mark.parametrize("body", [
    "my knee is killing me",            # no name: a complaint about oneself
    "my problem is Kevin",              # not a thing one has
    "my boss is Gareth",                # a relation: the relation rules' part
    "my favourite is The Wire",         # a preference, not a possession
    "my bike is 12 years old",          # a number is no name
    "the weather is Awful",             # no "my" and no kind modifier
])
def test_an_identity_copula_without_a_possession_and_a_name_is_none(body: str) -> None:
    assert identity(body) is None


@pytest.mark.parametrize(("body", "expected"), [
    ("the Passat needs a new clutch", "Passat"),
    ("Sky broadband keeps cutting out", "Sky broadband"),
    ("my kindle 4 is dying", "kindle 4"),
    ("honestly the Fiesta won't start", "Fiesta"),
])
def test_a_complaint_about_a_named_thing_is_its_owners(body: str, expected: str) -> None:
    assert complaint(body) == ("user", expected)


@pytest.mark.parametrize("body", [
    "Dave keeps asking about the rota",          # a person keeps doing what people do
    "Marcus keeps losing",                       # a bare name: maybe a person
    "the council needs to fix the road",         # needs to <verb>: no part, no service
    "the Labour party needs more members",       # needs more: no part, no service
    "my back keeps aching",                      # no name: one's body, not a held thing
])
def test_a_complaint_that_is_no_held_things_is_none(body: str) -> None:
    assert complaint(body) is None


@pytest.mark.parametrize(("body", "expected"), [
    ("Thursday pottery class at the art college is my favourite bit of the week",
     "Thursday pottery class at the art college"),
    ("still on three flat whites a day", "three flat whites a day"),
    ("coach the under-9s on Saturdays at Greenfield Rec", "coach the under-9s at Greenfield Rec"),
    ("swimming lessons every Tuesday", "swimming lessons"),
    ("Aldi on the bypass is heaving every Saturday", "Aldi on the bypass"),
])
def test_a_habit_told_without_i(body: str, expected: str) -> None:
    assert recurring(body) == ("user", expected)


@pytest.mark.parametrize("body", [
    "remind me every Monday to water the plants",   # an instruction to the assistant
    "Every year with this landlord",                # the recurrence names no habit
    "the kitchen is freezing every morning",        # a clause with its own subject and verb
    "call us every day",                            # someone asked to do something
])
def test_what_only_looks_like_a_habit_is_none(body: str) -> None:
    assert recurring(body) is None


def test_a_label_names_the_users_situation_and_a_framing_label_does_not() -> None:
    assert label("Choir: the Dunmore Singers") == ("user", "choir Dunmore Singers")
    assert label("Update: Greta said yes") is None
    assert label("Question: Lisbon or Porto") is None


def test_a_price_per_period_of_a_named_service_is_what_the_user_pays() -> None:
    assert priced("Spotify Family is £19.99 a month") == ("user", "Spotify Family")
    assert priced("The Times costs £2 a week") is None  # "The" opens a sentence: no name of the user's service
    assert priced("Rent is £900 a month") is None  # a price, but of nothing named


def test_a_thing_in_the_users_home_is_theirs_and_a_creature_in_it_is_not() -> None:
    assert kept_at_home("there's a Roland keyboard in our spare room") == ("user", "Roland keyboard")
    assert kept_at_home("There's a wasp nest in our loft") is None


def test_an_acquisition_or_a_gift_is_held_from_then_on() -> None:
    assert acquired("Collected my new bike on Saturday - a Ribble Endurance, matte grey") == []  # "on Saturday" breaks it
    assert acquired("picked up my new bike yesterday - a Ribble Endurance") == [("user", "bike Ribble Endurance")]
    assert acquired("got a Nintendo Switch for my birthday from my aunt") == [("user", "Nintendo Switch")]
    assert acquired("got my grades today - a B in Chemistry") == []  # grades are not a thing one owns
    assert acquired("got a cold for christmas") == []


def test_a_relation_of_someone_named_is_theirs() -> None:
    assert owner_relation("Ines's cat Miso is boarding with us") == [("ines", "cat Miso")]
    assert owner_relation("Thanks's dog Rex") == []  # a sentence starter is no owner


# ----------------------------------------------------------------------------------- through open_states
@pytest.mark.parametrize(("text", "expected"), [
    ("Been in Bristol for about six years, Easton mostly.", ("user", "Bristol")),
    ("Been a porter at St Thomas' for nine years", ("user", "porter at St Thomas")),
    ("I'm lodging with my aunt in Cork since 2016 and love it.", ("user", "lodging with my aunt in Cork")),
    ("Grandad's in Maple Lodge care home now.", ("grandad", "Maple Lodge care home")),
    ("Mum still works at the Co-op in Thirsk.", ("mom", "Co-op in Thirsk")),
    ("me sister Kayleigh lives out in Dubai now", ("kayleigh", "out in Dubai")),
    ("my husband tomasz and i are redoing the bathroom", ("user", "husband Tomasz")),
    ("my nephew Ollie is living with us till Easter", ("ollie", "living with us")),
    ("I make wedding cakes for Crumb & Co as a side job.", ("user", "make wedding cakes for Crumb & Co")),
    ("Our car is a Kia Ceed, how often should the tyres be rotated?", ("user", "car Kia Ceed")),
    ("We own a narrowboat, the Dabchick, on the Oxford canal.", ("user", "narrowboat (Dabchick)")),
])
def test_a_first_state_in_one_of_the_shapes_is_captured(text: str, expected: tuple[str, str]) -> None:
    assert expected in _values(text)


@pytest.mark.parametrize(("text", "allowed"), [
    ("Should I sell the Passat, any thoughts?", set()),                 # the whole sentence asks
    ("My husband Rob and I are celebrating 20 years next week!",        # an anniversary: only who Rob is
     {("user", "husband Rob")}),
    ("I withdrew from the MBA last Friday.", set()),                    # an irregular past, no habit
    ("I start on February 3rd at the new place.", set()),               # a date is no named place
    ("There's a spider in my bath the size of a saucer.", set()),       # a creature, not a possession
    ("Dad reckons the Mets will win.", set()),                          # a kinship subject with an opinion
])
def test_what_is_not_a_first_state_stays_out(text: str, allowed: set[tuple[str, str]]) -> None:
    assert _values(text) == allowed


def test_a_statement_before_a_tacked_on_question_holds() -> None:
    assert ("user", "Clio") in _values("the Clio needs new brake discs, any idea what that costs?")
    assert _values("Is the Clio worth fixing, any idea?") == set()


def test_another_persons_change_in_a_clause_of_its_own_leaves_the_users_state() -> None:
    assert ("user", "Roland piano") in _values("There's a Roland piano in our hallway nobody touched since my son moved out.")
    assert _values("I sold my Roland piano when my son moved out.") == set()  # the user's own change


def test_the_held_rule_keeps_a_named_apposition() -> None:
    facts = DeterministicExtractor().extract("We have a camper, a VW California, parked at my mum's.")
    assert ("owns", "camper (VW California)") in {(f.predicate, f.object) for f in facts}
    plain = DeterministicExtractor().extract("We have a camper, a lovely old one.")
    assert ("owns", "camper") in {(f.predicate, f.object) for f in plain}


def test_she_or_he_is_the_person_last_named() -> None:
    assert ("olek", "Aviva") in _values("My cousin Olek moved to Norwich in May. He works at Aviva.")
    # after someone else's change, the state they are in now
    assert ("priya", "halls at Exeter") in _values("Priya moved out on Sunday - she's in halls at Exeter now.")
    assert _values("He works at Aviva.") == set()  # nobody named: whom "he" is stays unknown


def test_an_event_or_an_idea_one_has_or_got_is_no_state() -> None:
    assert _values("My friend Ines just got a job offer from Siemens in Munich.") == {("user", "friend Ines")}
    assert ("user", "allotment in Hove") in _values("We have an allotment in Hove.")


def test_something_of_the_users_on_a_recurring_day_is_a_habit_and_a_one_off_date_is_not() -> None:
    assert scheduled("Our choir practice is on Wednesday evenings") == ("user", "choir practice on Wednesday evenings")
    assert scheduled("my German conversation group is every other Monday") == (
        "user", "German conversation group every other Monday")
    assert scheduled("My interview is on Tuesday") is None


def test_a_birthplace_beside_the_users_own_move_is_kept() -> None:
    assert ("user", "born in Leeds") in _values("I was born in Leeds but moved to Bath for uni and stayed.")


def test_a_language_before_a_noun_is_no_make_of_a_thing_held() -> None:
    facts = DeterministicExtractor().extract("My Portuguese night class is on Thursdays.")
    assert not any(f.predicate == "owns" for f in facts)
    assert ("user", "Portuguese night class on Thursdays") in _values("My Portuguese night class is on Thursdays.")
