"""A new value told by time alone supersedes the held value of its slot
(:mod:`nova_memory_integrations.changes.supersede`), in wording of our own; and through a real store.

"I'm X now" (or "Officially X now") ends the one held state X is another value of and adds X in its place;
a second value of a kind held several at once, an addition, a question, a denial, a plan, or someone
else's value the message does not name, supersedes nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.changes.planner import held_facts
from nova_memory_integrations.changes.supersede import kind_successors, may_supersede, superseded
from nova_memory_integrations.config import NovaConfig
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=60)


def _fact(i: int, subject: str, predicate: str, obj: str) -> Fact:
    return Fact(id=f"h{i}", lineage_id=f"h{i}", user_id="u", subject=subject, predicate=predicate, object=obj,
                confidence=0.8, valid_from=T0, ingested_at=T0, provenance=(f"e{i}",))


FACTS = [
    _fact(0, "user", "states", "junior solicitor at Pemberton Lane"), _fact(1, "user", "states", "Year 3 teacher"),
    _fact(2, "user", "has_pet", "grey cat"), _fact(3, "user", "sister_name", "Leila"),
    _fact(4, "leila", "sibling_of", "user"), _fact(5, "leila", "states", "staff nurse on the cardiac ward"),
    _fact(6, "user", "states", "play in the brass band"),
]


def _found(text: str) -> set[tuple[str, str]]:
    infos, known = held_facts(FACTS, at=AT, episode_id="now")
    return {(s.old.fact.object, s.new.object) for s in superseded(text, infos, known, AT)}


@pytest.mark.parametrize(("text", "found"), [
    ("Big day — I'm senior solicitor now!", {("junior solicitor at Pemberton Lane", "senior solicitor")}),
    ("so I'm a Year 5 teacher these days, bigger kids", {("Year 3 teacher", "Year 5 teacher")}),
    ("Leila's a charge nurse now, so proud of her", {("staff nurse on the cardiac ward", "charge nurse")}),
    ("Officially a senior solicitor now.", {("junior solicitor at Pemberton Lane", "senior solicitor")}),
    ("Update on Leila: she's a charge nurse now!", {("staff nurse on the cardiac ward", "charge nurse")}),
    # a plan later in the sentence is not this clause's ("new clients due in two weeks")
    ("So I'm senior solicitor now, same firm, new clients due in two weeks", {("junior solicitor at Pemberton Lane",
                                                                             "senior solicitor")}),
])
def test_a_new_value_marked_by_time_supersedes_its_slot(text: str, found: set[tuple[str, str]]) -> None:
    assert _found(text) == found


@pytest.mark.parametrize("text", [
    "We've a ginger cat now too.",  # an addition
    "We have a black cat now",  # a kind held several at once
    "Am I a senior solicitor now?",  # a question
    "I'm not senior solicitor now, they restructured.",  # a denial
    "I'll be senior solicitor now that Jan has left.",  # ahead
    "If I pass I'm senior solicitor now, basically.",  # a possibility
    "She's a charge nurse now.",  # whose value: no person named in the message
    "Leila rang. He's a charge nurse now.",  # "he" is not Leila
    "Tom's a charge nurse now.",  # someone the store does not know
    "I'm in the jazz band as well now.",  # an addition
    "I'm exhausted now.",  # no held state of that slot
    "Year 3 teacher now and forever!",  # the value held already
])
def test_nothing_is_superseded(text: str) -> None:
    assert _found(text) == set()


def test_only_a_time_marker_makes_the_facts_worth_reading() -> None:
    assert may_supersede("I'm head of year now")
    assert not may_supersede("I'm head of year")


def test_the_store_believes_the_new_value_from_the_message_and_the_old_one_before(tmp_path: Path) -> None:
    config = NovaConfig.model_validate({"consolidation": {"mode": "manual"}})
    with NovaStore(tmp_path / "s", config=config) as store:
        store.add_turn("u1", "user", "I'm a junior sous chef at Nonna's and the hours are brutal.",
                       timestamp=T0.isoformat(), consolidation="manual")
        store.consolidate("u1")
        store.add_turn("u1", "user", "Guess what — I'm senior sous chef now!", timestamp=AT.isoformat(),
                       consolidation="manual")
        store.consolidate("u1")
        before = {f.object for f in store.facts("u1", as_of=T0 + timedelta(days=1))}
        after = {f.object for f in store.facts("u1", as_of=AT + timedelta(days=1))}
        other = {f.object for f in store.facts("u2", as_of=AT + timedelta(days=1))}
    assert any("junior sous chef" in o for o in before)
    assert "senior sous chef" in after and not any("junior" in o for o in after)
    assert not other  # another user's store is untouched


KINDS_HELD = [_fact(10, "user", "owns", "iphone 12"), _fact(11, "user", "owns", "Transit"),
              _fact(12, "user", "customer_of", "British Gas"), _fact(13, "user", "sister_name", "Jo")]


def _succeeded(text: str) -> set[tuple[str, str]]:
    infos, _ = held_facts(KINDS_HELD, at=AT, episode_id="now")
    return {(s.old.fact.object, s.new.object) for s in kind_successors(text, infos, AT)}


@pytest.mark.parametrize(("text", "found"), [
    ("it went in the loo, rice didn't save it. got a pixel 8 instead.", {("iphone 12", "pixel 8")}),
    ("the lease ran out so I've got a Vivaro now. Bit smaller in the back", {("Transit", "Vivaro")}),
    ("we're with Octopus now, the app is miles better", {("British Gas", "Octopus")}),
])
def test_a_known_thing_told_with_now_or_instead_succeeds_the_held_one_of_its_kind(
        text: str, found: set[tuple[str, str]]) -> None:
    assert _succeeded(text) == found


@pytest.mark.parametrize("text", [
    "got a pixel 8 as well now, one for work",  # an addition
    "might get a pixel 8 instead?",  # a question
    "thinking I might get a Vivaro instead next year",  # a possibility
    "Jo's got a pixel 8 now and won't stop showing me the camera",  # someone else's
    "she's with Octopus now and loves it",  # someone else's
    "I didn't get the pixel 8 in the end, stuck with what I had, it's fine now",  # a denial
    "the Vivaro is nice but the Transit is what I drive",  # no replacement marker
])
def test_what_succeeds_nothing_by_kind(text: str) -> None:
    assert _succeeded(text) == set()
