"""Homes told in passing (:mod:`nova_memory_integrations.changes.place_states`), pure (issue #38)."""

from __future__ import annotations

import pytest

from nova_memory_integrations.changes.place_states import LIVES_IN, place_states


def _homes(text: str) -> set[tuple[str, str]]:
    states = place_states(text)
    assert all(s.predicate == LIVES_IN for s in states)
    return {(s.subject, s.value) for s in states}


@pytest.mark.parametrize(("text", "homes"), [
    ("My flat in Hackney has had a damp problem for months.", {("user", "Hackney")}),
    ("Our house on Elm Road in Didsbury needs a new boiler.", {("user", "Didsbury")}),
    ("Looking for a brunch place near me in Clapham that takes bookings for 8", {("user", "Clapham")}),
    ("It's -22 with windchill here in Toronto, eh.", {("user", "Toronto")}),
    ("The commute from Croydon to London Bridge is killing me.", {("user", "Croydon")}),
    ("any decent ramen nearby? i live in ancoats so walking distance ideally", {("user", "ancoats")}),
    ("Staying at my friend Marcus's flat in Peckham this weekend", {("marcus", "Peckham")}),
    ("We live in Portland, Oregon and want a vegetable garden", set()),  # capitalised: the rules' own
])
def test_a_home_told_in_passing_is_read_with_whose_it_is(text: str, homes: set[tuple[str, str]]) -> None:
    assert _homes(text) == homes


@pytest.mark.parametrize("text", [
    "If I had a flat in Lisbon I'd never leave.",  # a hypothetical
    "I wish my flat in Hackney had a garden, but we moved out in May.",  # a wish, and a change: the change layer's
    "My first flat in Leeds was a shoebox.",  # a memory
    "Any good walks near the town centre in the rain?",  # no home named
])
def test_what_tells_no_present_home_is_no_home(text: str) -> None:
    assert _homes(text) == set()


@pytest.mark.parametrize(("text", "place"), [
    ("What's on in Norwich this weekend that's free? I've lived here 5 years and still haven't explored it", "Norwich"),
    ("Good day trip from Austin with two kids? We've lived here 6 years and done the obvious stuff", "Austin"),
])
def test_a_home_told_as_here_is_the_one_place_the_message_names(text: str, place: str) -> None:
    assert [(s.subject, s.predicate, s.value) for s in place_states(text)] == [("user", "lives_in", place)]


@pytest.mark.parametrize("text", ["We've lived here 6 years, any ideas for trips from Leeds or York?",
                                  "I haven't lived here long, what is there to do?"])
def test_here_with_no_place_or_several_is_no_home(text: str) -> None:
    assert place_states(text) == []
