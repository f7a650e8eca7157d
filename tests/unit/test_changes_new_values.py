"""The new value a change names (:mod:`nova_memory_integrations.changes.replacements`), in wording of our own.

When a message ends a current fact and names what holds instead, the plan carries that value for the same
subject and predicate, valid from the change; a recipient, a feeling or a long clause is never a value.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.replacements import clean_value, present_alternative, proper_destination
from nova_memory_integrations.memory.temporal import expiry_ahead
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=120)


def _fact(i: int, subject: str, predicate: str, obj: str, *, valid_to: datetime | None = None) -> Fact:
    return Fact(id=f"f{i}", lineage_id=f"f{i}", user_id="u", subject=subject, predicate=predicate, object=obj,
                confidence=0.8, valid_from=T0, valid_to=valid_to, ingested_at=T0, provenance=(f"e{i}",))


FACTS = [_fact(i, *t) for i, t in enumerate([
    ("user", "works_at", "Lidl"), ("user", "lives_in", "Norwich"), ("user", "member_of", "Anytime Fitness"),
    ("user", "owns", "Renault Clio"), ("user", "uses", "Monzo"), ("user", "brother_name", "Idris"),
    ("idris", "works_at", "Arup"), ("user", "states", "play bass in a covers band"),
])]


def _new(text: str, facts: list[Fact] = FACTS) -> set[str]:
    plan = plan_changes(text, at=AT, episode_id="now", facts=facts)
    return {f"{n.subject}:{n.predicate}={n.object}" for n in plan.new_values}


@pytest.mark.parametrize(("text", "new"), [
    # the destination of a change
    ("We relocated from Norwich to Cardiff in the spring.", {"user:lives_in=Cardiff"}),
    ("Switched from Monzo to Starling last week, the app's nicer.", {"user:uses=Starling"}),
    ("Traded the Clio in for a second-hand Skoda Fabia.", {"user:owns=Skoda Fabia"}),
    ("Idris jumped ship to Atkins for a pay rise.", {"idris:works_at=Atkins"}),
    # a proper name an ending of a job or a club goes to
    ("I left Lidl for Waitrose, better hours.", {"user:works_at=Waitrose"}),
    # another change verb of the sentence
    ("Moved my savings over to Chase and closed the Monzo account.", {"user:uses=Chase"}),
    # an alternative marked "instead" / "now"
    ("Sold the Clio. Cycling everywhere instead!", {"user:owns=Cycling everywhere"}),
    ("Cancelled Anytime Fitness, doing Joe Wicks videos at home now.", {"user:member_of=Joe Wicks videos"}),
])
def test_the_value_a_change_names_holds_instead(text: str, new: set[str]) -> None:
    assert _new(text) == new


@pytest.mark.parametrize("text", [
    "Sold the Clio to my cousin's boyfriend.",  # who received it, not a new car
    "Sold the Clio. I'm gutted now.",  # a feeling, not a state held
    "I left Lidl for personal reasons.",  # a reason, not an employer
    "Thinking of switching from Monzo to Starling.",  # nothing ended
    "Switched from Monzo to Starling and back to Monzo a week later, Starling was awful.",  # a value held
    "Idris sold his car to a lad from work.",  # nothing of Idris's held, and a recipient
])
def test_no_new_value_without_a_named_replacement(text: str) -> None:
    assert _new(text) == set()


def test_the_new_value_of_an_ending_the_extractor_made_is_read_from_its_sentence() -> None:
    closed = [_fact(0, "user", "owns", "Renault Clio", valid_to=AT)]
    plan = plan_changes("Sold the Clio last weekend. Honda Jazz gang now.", at=AT, episode_id="now", facts=closed,
                        handled=["Sold the Clio last weekend."])
    assert [(n.replaces.predicate, n.object, n.at) for n in plan.new_values] == [("owns", "Honda Jazz gang", AT)]
    assert not plan.endings


@pytest.mark.parametrize(("phrase", "value"), [
    ("to a brand new Fiat Panda, finally", "Fiat Panda"), ("into the sales team last month", "sales team"),
    ("to them", None), ("to my mate from work", None), ("for one of those electric ones because", None),
])
def test_clean_value(phrase: str, value: str | None) -> None:
    assert clean_value(phrase) == value


def test_a_destination_after_an_ending_counts_only_as_a_proper_name() -> None:
    assert proper_destination("for Octopus Energy") == "Octopus Energy"
    assert proper_destination("for my kids") is None


@pytest.mark.parametrize(("text", "value"), [
    ("Doing spin classes instead", "spin classes"), ("Team Android now", "Team Android"),
    ("so tired now", None), ("I'm happier now", None),
])
def test_present_alternative(text: str, value: str | None) -> None:
    assert present_alternative(text) == value


def test_an_ending_dated_ahead_holds_until_its_day() -> None:
    said = datetime(2024, 3, 12, 9, tzinfo=timezone.utc)
    facts = [_fact(0, "user", "subscribes_to", "Audible")]
    plan = plan_changes("Cancelled Audible, my plan runs out on the 28th.", at=said, episode_id="now", facts=facts)
    assert [(e.fact.object, e.at) for e in plan.endings] == [("Audible", datetime(2024, 3, 28, tzinfo=timezone.utc))]
    plan = plan_changes("Cancelled Audible, it expires at the end of the month.", at=said, episode_id="now",
                        facts=facts)
    assert [e.at for e in plan.endings] == [datetime(2024, 3, 31, tzinfo=timezone.utc)]


@pytest.mark.parametrize(("text", "day"), [
    ("the lease is up on the 3rd", datetime(2024, 4, 3, tzinfo=timezone.utc)),  # the 3rd has passed: next month
    ("my last day is the 30th", datetime(2024, 3, 30, tzinfo=timezone.utc)),
    ("it ended on the 5th", None),  # past tense: said of an earlier day
    ("I was born on the 3rd", None),  # no state running out
    ("the trial ran out on the 2nd", None),
])
def test_expiry_ahead(text: str, day: datetime | None) -> None:
    assert expiry_ahead(text, datetime(2024, 3, 12, 9, tzinfo=timezone.utc)) == day
