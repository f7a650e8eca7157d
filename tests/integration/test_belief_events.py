"""Beliefs from everyday news, through a real store (real SQLite, Chroma and MiniLM): issue #38.

* a change that names only its new value replaces the other known thing of its kind the user named before
  ("O2 want £42 a month to keep me" ... "moved to giffgaff");
* a birth ends the mother's pregnancy and names the child;
* an ending done to the speaker by someone else is the speaker's ("she's taken me off the sertraline");
* an open state named by a known employer is a job ("another 11pm finish at Deloitte" ... "last day was Friday");
* where someone lives, told with words between ("lives about ten minutes from me in Manchester").
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from belief_dialogue import held, say

from nova_memory_integrations import NovaStore

T0 = datetime(2024, 2, 3, 19, tzinfo=timezone.utc)
DAY = timedelta(days=1)


@pytest.mark.parametrize(("first", "later", "old", "new"), [
    ("Vodafone want £40 a month to keep me on the same plan, that's daylight robbery isn't it",
     "moved to giffgaff, same phone, 20gb for a tenner. should've done it years ago", "Vodafone", "giffgaff"),
    ("is Disney+ worth keeping if we only watch one show a month?",
     "We swapped Disney+ for Netflix last week, the kids are happy", "Disney+", "Netflix"),
])
def test_a_change_told_by_its_new_value_replaces_the_thing_named_before(store: NovaStore, first: str, later: str,
                                                                      old: str, new: str) -> None:
    say(store, first, T0)
    say(store, later, T0 + 40 * DAY)
    assert held(store, "user", T0 + DAY, old, new) == [old]
    assert held(store, "user", T0 + 41 * DAY, old, new) == [new]


def test_two_candidates_replace_nothing(store: NovaStore) -> None:
    say(store, "EE or Vodafone, which has better signal in Leeds?", T0)
    say(store, "moved to giffgaff in the end, 20gb for a tenner", T0 + 40 * DAY)
    assert held(store, "user", T0 + 41 * DAY, "EE", "Vodafone") == []
    assert held(store, "user", T0 + DAY, "EE", "Vodafone") == []


def test_a_birth_ends_the_pregnancy_and_names_the_child(store: NovaStore) -> None:
    say(store, "My best friend Nadia is 7 months pregnant and I'm throwing her baby shower.", T0)
    say(store, "Nadia had the baby!!! A little girl called Esme, 7lb 2oz, both doing great.", T0 + 60 * DAY)
    assert held(store, "nadia", T0 + DAY, "pregnant") == ["pregnant"]
    assert held(store, "nadia", T0 + 61 * DAY, "pregnant", "Esme") == ["Esme"]


def test_a_baby_shower_is_no_birth(store: NovaStore) -> None:
    say(store, "My best friend Nadia is 7 months pregnant and I'm throwing her baby shower.", T0)
    say(store, "Nadia had the baby shower on Saturday, she cried at the cake.", T0 + 20 * DAY)
    assert held(store, "nadia", T0 + 21 * DAY, "pregnant") == ["pregnant"]


def test_an_ending_done_to_the_speaker(store: NovaStore) -> None:
    say(store, "I'm on 50mg sertraline, is it ok to drink at a wedding?", T0)
    say(store, "Good news from the GP: she's taken me off the sertraline after two months of tapering. I feel fine.",
         T0 + 120 * DAY)
    assert held(store, "user", T0 + DAY, "sertraline")
    assert held(store, "user", T0 + 121 * DAY, "sertraline") == []


@pytest.mark.xfail(strict=True, reason=(
    "FINDING changes/clause_reader.npz: the network reader (twelve writers, 2026-11-29; eight before it, 0.87) "
    "reads 'Another 11pm finish at it' as a one-off event (other 0.98, state 0.02), so Deloitte is not stored from "
    "it; the linear reader before read it as a state (0.68). The development sets lost this case (ninth_a nv-002)"))
def test_a_known_employer_told_in_passing_ends_with_a_last_day(store: NovaStore) -> None:
    say(store, "Another 11pm finish at Deloitte. Busy season is inhumane. Quick dinners?", T0)
    say(store, "Update: handed in my notice. Last day was Friday and I slept 11 hours on Saturday.", T0 + 70 * DAY)
    assert held(store, "user", T0 + DAY, "Deloitte") == ["Deloitte"]
    assert held(store, "user", T0 + 71 * DAY, "Deloitte") == []


def test_where_someone_lives_with_words_between(store: NovaStore) -> None:
    say(store, "My brother Karim lives about ten minutes from me in Sheffield, we're planning mum's 60th.", T0)
    assert held(store, "karim", T0 + DAY, "Sheffield") == ["Sheffield"]


def test_a_bank_acting_is_no_person_and_its_account_closes(store: NovaStore) -> None:
    say(store, "Barclays have frozen my card again because I bought something in Lisbon. I TOLD them.", T0)
    assert not [f for f in store.facts("u") if f.subject == "barclays"]
    say(store, "Everything's on Monzo now, salary and bills. Barclays account closed last week, good riddance.",
         T0 + 60 * DAY)
    assert held(store, "user", T0 + DAY, "Barclays") == ["Barclays"]
    assert held(store, "user", T0 + 61 * DAY, "Barclays", "Monzo") == ["Monzo"]
    assert not [f for f in store.facts("u") if f.subject == "everything"]


@pytest.mark.parametrize(("first", "later", "wrong", "right"), [
    ("I grew up in Carlisle so I'm used to rain. Best waterproof for hiking?",
     "Did I say I grew up in Carlisle? I meant Penrith. Don't tell anyone from Penrith.", "Carlisle", "Penrith"),
    ("I'm learning Italian before our trip next year, 20 mins a day. Best podcast?",
     "Did I say Italian?? Brain fog from this cold. It's Greek I'm learning, we're off to Crete.", "Italian", "Greek"),
])
def test_the_speaker_doubting_their_own_words_corrects_them(store: NovaStore, first: str, later: str, wrong: str,
                                                           right: str) -> None:
    say(store, first, T0)
    say(store, later, T0 + 10 * DAY)
    for at in (T0 + DAY, T0 + 11 * DAY):  # never true, even before the correction
        assert held(store, "user", at, wrong) == []
        assert [v.split()[0] for v in held(store, "user", at, right)] == [right]


@pytest.mark.parametrize(("first", "later", "wrong", "right"), [
    ("We live just outside Ludlow and want a dog-friendly walk with a pub at the end.",
     "Not Ludlow — Leominster. I always say Ludlow because nobody's heard of Leominster.", "Ludlow", "Leominster"),
    ("My gym is PureGym and I can get in 24/7. What's a good 5am routine?",
     "not PureGym btw, it's The Gym Group. I always get those two confused", "PureGym", "Gym Group"),
])
def test_a_sentence_opening_with_the_denial_corrects(store: NovaStore, first: str, later: str, wrong: str,
                                                     right: str) -> None:
    say(store, first, T0)
    say(store, later, T0 + 10 * DAY)
    assert held(store, "user", T0 + 11 * DAY, wrong) == []
    assert held(store, "user", T0 + 11 * DAY, right)


def test_not_doing_something_anymore_is_an_ending_not_a_correction(store: NovaStore) -> None:
    say(store, "day 300 on duolingo, french is finally making sense", T0)
    say(store, "Duolingo streak died and I've deleted the app. Not doing French anymore, I'm putting the time "
         "into the garden", T0 + 60 * DAY)
    assert held(store, "user", T0 + 61 * DAY, "Duolingo") == []


def test_a_past_ending_after_a_season_is_done_not_planned(store: NovaStore) -> None:
    say(store, "I sing tenor in the choir at St Jude's and we're doing the Messiah at Christmas.", T0)
    say(store, "I stepped down from the St Jude's choir after the summer. I do miss the people.", T0 + 240 * DAY)
    assert held(store, "user", T0 + DAY, "choir")
    assert held(store, "user", T0 + 241 * DAY, "choir") == []


def test_we_lost_nan_ends_her_states(store: NovaStore) -> None:
    say(store, "My nan's at Birch Court care home and they've started charging for her hairdresser visits.", T0)
    say(store, "We lost Nan on Sunday, peacefully. Birch Court staff were angels. Help me write a eulogy?",
         T0 + 90 * DAY)
    assert held(store, "nan", T0 + DAY, "Birch Court")
    assert held(store, "nan", T0 + 91 * DAY, "Birch Court") == []


def test_losing_a_relatives_thing_is_no_death(store: NovaStore) -> None:
    say(store, "My nan's at Birch Court care home and they've started charging for her hairdresser visits.", T0)
    say(store, "I lost my nan's ring on the bus, I'm gutted. Who do I call?", T0 + 9 * DAY)
    assert held(store, "nan", T0 + 10 * DAY, "Birch Court")


@pytest.mark.parametrize("later", [
    "Traded the Astra in at the Kia place and drove away in a used Niro hybrid! First automatic I've ever owned.",
    "Traded the Astra in against a Kia Niro EV. 280 miles range, heated steering wheel.",
])
def test_a_trade_in_of_a_car_named_in_a_question_tells_the_new_one(store: NovaStore, later: str) -> None:
    say(store, "The Astra failed its MOT again, emissions this time. Is a 2009 even worth fixing?", T0)
    say(store, later, T0 + 40 * DAY)
    assert held(store, "user", T0 + DAY, "Astra")
    assert held(store, "user", T0 + 41 * DAY, "Astra") == []
    assert held(store, "user", T0 + 41 * DAY, "Niro")


@pytest.mark.parametrize(("first", "later", "thing"), [
    ("I drive a Skoda Octavia, 2018 estate.", "Cancelled the car insurance with Admiral, found a cheaper one.",
     "Octavia"),
    ("I ride a Brompton to work every day, it folds under my desk.", "Sold the old bike lock on eBay, got a tenner.",
     "Brompton"),
])
def test_an_ending_of_a_things_accessory_ends_nothing(store: NovaStore, first: str, later: str, thing: str) -> None:
    say(store, first, T0)
    say(store, later, T0 + 30 * DAY)
    assert held(store, "user", T0 + 31 * DAY, thing)


@pytest.mark.parametrize(("text", "thing"), [
    ("Is Spotify Premium worth it for the two of us? We mostly use it for podcasts in the car.", "Spotify"),
    ("is it normal for an iphone 13 battery to die at 40%? mine does it every cold morning", "iphone 13"),
])
def test_a_thing_asked_about_and_claimed_isheld(store: NovaStore, text: str, thing: str) -> None:
    say(store, text, T0)
    assert held(store, "user", T0 + DAY, thing)


def test_a_choice_asked_about_is_notheld(store: NovaStore) -> None:
    say(store, "Should I get an iPhone 15 or a Pixel 8? mine is dying", T0)
    assert held(store, "user", T0 + DAY, "iPhone 15", "Pixel") == []


def test_a_new_medicine_instead_after_a_denial_elsewhere_replaces_the_old(store: NovaStore) -> None:
    say(store, "I take ramipril for blood pressure. Can I take ibuprofen for a sprained ankle?", T0)
    assert held(store, "user", T0 + DAY, "ibuprofen") == []  # asked about, not taken
    say(store, "The ramipril cough never went away so the GP's put me on amlodipine instead, started it last week.",
         T0 + 60 * DAY)
    assert held(store, "user", T0 + DAY, "ramipril") == ["ramipril"]
    assert held(store, "user", T0 + 61 * DAY, "ramipril", "amlodipine") == ["amlodipine"]


def test_a_last_day_told_ahead_ends_the_job_on_that_day(store: NovaStore) -> None:
    say(store, "Can you tidy up a slide deck? I'm a credit risk analyst at Lloyds and my MD hates bullet points.", T0)
    told = T0 + 30 * DAY  # 2024-03-04
    say(store, "Well, I did it. Handed in my notice this morning. Last day is Friday the 29th and then I'm "
                "taking the summer off.", told)
    assert held(store, "user", told + 10 * DAY, "Lloyds") == ["Lloyds"]  # still there until the 29th
    assert held(store, "user", told + 30 * DAY, "Lloyds") == []


def test_a_city_said_to_be_home_replaces_the_one_told_in_passing(store: NovaStore) -> None:
    say(store, "It has rained in Leeds for eleven days straight. Suggest an indoor hobby before I lose it.", T0)
    say(store, "The van's unloaded and Glasgow is officially home now! Where's good for a curry?", T0 + 100 * DAY)
    assert held(store, "user", T0 + 101 * DAY, "Leeds", "Glasgow") == ["Glasgow"]


def test_a_city_that_is_home_to_something_is_no_home(store: NovaStore) -> None:
    say(store, "Paris is home to the Louvre, is it worth a whole day?", T0)
    assert held(store, "user", T0 + DAY, "Paris") == []
