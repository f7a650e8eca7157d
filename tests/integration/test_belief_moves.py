"""Third parties' new homes, employers and schools told in everyday shapes, through a real store (real SQLite,
Chroma and MiniLM): issue #38.

* a relative the speaker moved into a home ("we moved Gran into Elm Court care home"): where they live now;
* where someone went after leaving a job, told after the ending ("left Arup - she's gone to Google");
* an open state (a home or a school told in passing) ended by a new fact of its kind for the same person
  (:mod:`nova_memory_integrations.changes.displaced`);
* a return ends the time away it names ("back from paternity leave"), never the job or club one comes home from.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from belief_dialogue import held, say

from nova_memory_integrations import NovaStore

T0 = datetime(2024, 2, 3, 19, tzinfo=timezone.utc)
DAY = timedelta(days=1)


@pytest.mark.parametrize(("later", "home"), [
    ("After her last fall we moved Gran into Elm Court care home in Leeds. She's already made friends.", "Elm Court care home"),
    ("we finally moved gran into a care home in York last week, it was her choice in the end", "care home in York"),
    ("We moved Gran into Birchwood, the care home near us, on Friday. Strange few days.", "Birchwood"),
])
def test_a_relative_moved_into_a_home_lives_there_now(store: NovaStore, later: str, home: str) -> None:
    say(store, "My gran lives on her own in Harrogate and she's 90 next month.", T0)
    say(store, later, T0 + 60 * DAY)
    assert held(store, "grandma", T0 + DAY, "Harrogate") or held(store, "gran", T0 + DAY, "Harrogate")
    after = held(store, "grandma", T0 + 61 * DAY, "Harrogate", home) + held(store, "gran", T0 + 61 * DAY,
                                                                             "Harrogate", home)
    assert after == [home]


@pytest.mark.parametrize(("first", "later", "old", "new"), [
    ("My manager Tanya has been at Ofcom for nine years and she's the reason I stay.",
     "Well. Tanya has left Ofcom - she's gone to Amazon to head up a policy team. Her leaving do was Thursday.",
     "Ofcom", "Amazon"),
    ("Greg, my manager at Sage, wants a status update every two hours.",
     "plot twist: Greg's left Sage, he's gone to Accenture. his leaving drinks were last night",
     "Sage", "Accenture"),
])
def test_the_place_a_person_went_after_leaving_a_job(store: NovaStore, first: str, later: str, old: str,
                                                       new: str) -> None:
    subject = later.split("has left")[0].split()[-1].lower().removesuffix("'s") if "has left" in later else "greg"
    say(store, first, T0)
    say(store, later, T0 + 90 * DAY)
    assert [old in v for v in held(store, subject, T0 + DAY, old, new)] == [True]
    assert held(store, subject, T0 + 91 * DAY, old, new) == [new]


def test_no_onward_place_from_a_plan(store: NovaStore) -> None:
    say(store, "My manager Priya has worked at Arup for ten years.", T0)
    say(store, "Priya has left Arup. She might go to Google, who knows.", T0 + 90 * DAY)
    assert held(store, "priya", T0 + 91 * DAY, "Arup", "Google") == []


def test_a_new_school_ends_the_nursery_told_in_passing(store: NovaStore) -> None:
    say(store, "My daughter Ruby goes to Sunflowers nursery on Mondays and Tuesdays and loves the sandpit.", T0)
    say(store, "Ruby started reception at Oak Hill Primary this week! Her book bag is bigger than she is.",
         T0 + 200 * DAY)
    assert held(store, "ruby", T0 + DAY, "Sunflowers")
    assert held(store, "ruby", T0 + 201 * DAY, "Sunflowers", "Oak Hill") == ["Oak Hill Primary"]


def test_a_restated_home_is_not_displaced(store: NovaStore) -> None:
    say(store, "Dad's still in his cottage in Whitby and won't hear of moving.", T0)
    say(store, "My dad lives in Whitby, near the abbey.", T0 + 30 * DAY)
    assert held(store, "dad", T0 + 31 * DAY, "Whitby")


def test_a_return_ends_the_time_away_it_names(store: NovaStore) -> None:
    say(store, "My colleague Anton is on paternity leave till April so I'm covering his accounts.", T0)
    say(store, "Anton's back from paternity leave as of Monday, so I've handed his accounts back.", T0 + 70 * DAY)
    assert held(store, "anton", T0 + DAY, "paternity")
    assert held(store, "anton", T0 + 71 * DAY, "paternity") == []


@pytest.mark.parametrize(("first", "later", "word"), [
    ("I work at Tesco on the tills.", "Home from Tesco after a double shift, knackered. Quick dinner ideas?", "Tesco"),
    ("I volunteer at the Oxfam bookshop on Saturdays.", "Just back from Oxfam, we sold a first edition today!",
     "Oxfam"),
])
def test_back_from_work_or_a_club_ends_nothing(store: NovaStore, first: str, later: str, word: str) -> None:
    say(store, first, T0)
    say(store, later, T0 + 30 * DAY)
    assert held(store, "user", T0 + DAY, word)
    assert held(store, "user", T0 + 31 * DAY, word)
