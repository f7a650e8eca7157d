"""Leaving told with a preposition's object or a verb of withdrawing (#38): ``changes/reading.object_place``, the
cue lexicon, and the part of a clause a plan guards (``guards._part``): "given up my Sundays *at the food bank*",
"withdrew from the course", "my last Thursday with the choir", "stepping down", "had to give up ...", "sold it
*since we're getting a company car next month*". Phrasings of our own, with the near misses that must end nothing.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from change_helpers import T0, held_fact

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.cues import find_cues, has_cue
from nova_memory_integrations.changes.segments import normalize_text, segment

AT = T0 + timedelta(days=90)


FACTS = [held_fact(i, *t) for i, t in enumerate([
    ("user", "works_at", "the Trussell food bank"), ("user", "member_of", "Halifax Choral Society"),
    ("user", "studies_at", "Open University"), ("user", "owns", "Skoda Fabia"), ("user", "lives_in", "Halifax"),
])]


def _ended(text: str) -> set[str]:
    return {e.fact.object for e in plan_changes(text, at=AT, episode_id="now", facts=FACTS).endings}


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("I've given up my Sundays at the Trussell food bank, there's no time with the new job.",
         {"the Trussell food bank"}),
        ("I withdrew from the Open University in March, work got too much.", {"Open University"}),
        ("Tonight was my last Thursday with Halifax Choral Society, I'll miss the altos.",
         {"Halifax Choral Society"}),
        ("Had to give up my shifts at the Trussell food bank when Mum got ill.", {"the Trussell food bank"}),
        # a plan in the reason is the reason's own time: the leaving is done
        ("Sold the Fabia since we're getting a company car next month.", {"Skoda Fabia"}),
        ("Quit Halifax Choral Society so I can do the evening course next term.", {"Halifax Choral Society"}),
    ],
)
def test_the_leaving_ends_what_it_names(text: str, ended: set[str]) -> None:
    assert _ended(text) == ended


@pytest.mark.parametrize(
    "text",
    [
        "I've given up my Sundays to help at my sister's cafe, the food bank still gets my Saturdays.",  # not named
        "I withdrew £200 from the cash machine and the Fabia needed petrol.",  # money, not a course
        "I'd never give up the choir, it keeps me sane.",  # a denial, no cue at all
        "My last Thursday at work before the holidays, then a week off.",  # a holiday, nothing named held
        "I'm selling the Fabia because we're moving to Porto next year.",  # the selling itself is ahead
        "Selling the Fabia next month since the company car arrives in May.",  # a plan before the reason
    ],
)
def test_no_ending_where_the_leaving_is_of_something_else(text: str) -> None:
    assert _ended(text) == set()


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("I've formally withdrawn.", "dropped out"),
        ("I withdrew from the degree.", "dropped out"),
        ("I told them I'm stepping down as treasurer.", "stepped away"),
        ("Had my last Saturday at the shop.", "last day"),
        ("We had to give up the allotment.", "gave up"),
    ],
)
def test_the_words_are_cues(text: str, cue: str) -> None:
    norm = normalize_text(text)
    assert has_cue(norm)  # the cheap pre-test lets the message through
    assert cue in {h.cue.name for h in find_cues(norm, segment(norm))}


def test_a_plain_give_up_is_no_cue() -> None:
    """"I'd never give up X" states a lasting habit: only "had to / decided to / needed to give up" is a leaving."""
    norm = normalize_text("Prime is the one subscription I'd never give up.")
    assert "gave up" not in {h.cue.name for h in find_cues(norm, segment(norm))}
