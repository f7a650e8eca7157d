"""What an ending says held before it (:mod:`nova_memory_integrations.changes.lapsed`), read without a store.

The planner keeps the words of a change that ended nothing held; :func:`named_thing` decides whether an
earlier turn names one of them as a thing of the speaker's. Each class has a case that must be found and one
that must not, so a reader that finds everything (or nothing) fails. Through a real store:
``tests/integration/test_belief_lapsed.py``.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations.changes import plan_changes
from nova_memory_integrations.changes.lapsed import lapsed, named_thing
from nova_memory_integrations.types import Fact

T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
AT = T0 + timedelta(days=30)


def _unheld(text: str, *facts: Fact) -> list[tuple[str, tuple[str, ...]]]:
    return [(u.subject, u.words) for u in plan_changes(text, at=AT, episode_id="now", facts=list(facts)).unheld]


@pytest.mark.parametrize(("word", "earlier", "clause", "value"), [
    # a known name, whatever its case
    ("civic", "whats the best way to get a wet dog smell out of a honda civic?? mine reeks", "sold the civic", "civic"),
    ("disney", "Kids want to rewatch the Marvel films on Disney+ over half term", "Disney Plus is cancelled",
     "Disney+"),
    # a capitalised name inside a sentence, whole; a sentence's first word is no part of it
    ("kettle", "Running the Copper Kettle is a seven-day-a-week thing", "we shut the Copper Kettle", "Copper Kettle"),
    ("mary", "I play the organ at St Mary's most Sundays.", "We stopped going to St Mary's", "St Mary"),
    ("bjj", "Started BJJ in January, loving it", "gave up BJJ", "BJJ"),
    ("java", "I code in Java. Is it worth learning Go?", "switched from java", "Java"),  # never "Java. Is"
    # the speaker's own thing, the word heading its noun phrase
    ("allotment", "My allotment is overrun with bindweed again.", "handed the allotment back", "allotment"),
    ("bramble", "we've got a spaniel called bramble who eats socks", "had to rehome bramble", "bramble"),
])
def test_an_earlier_turn_names_the_thing(word: str, earlier: str, clause: str, value: str) -> None:
    assert named_thing(word, earlier, clause) == value


@pytest.mark.parametrize(("word", "earlier", "clause"), [
    ("current", "I want to move my current account somewhere with a better app", "did the current account switch"),
    ("pret", "my partner Jamie's a barista at Pret but he's studying", "Left Pret for good"),  # someone else's
    ("tyson", "my mate gaz has a staffie called tyson", "lost tyson on monday"),
    ("sold", "Sold out again at the market!", "sold the van"),
    ("garden", "the garden is a mess", "gave up the garden"),  # no name, not told as the speaker's
    ("civic", "I want to sell my car", "sold the civic"),  # not in the earlier turn at all
])
def test_an_earlier_turn_that_does_not_name_the_thing(word: str, earlier: str, clause: str) -> None:
    assert named_thing(word, earlier, clause) is None


def test_a_change_that_ended_nothing_keeps_the_words_of_its_own_part() -> None:
    assert _unheld("not giving up BJJ, just giving up on that train") == [("user", ("train",))]
    assert _unheld("Handed the Niro back at the end of the lease") == [("user", ("niro",))]
    # its destination is the new value, never what ended
    assert _unheld("Traded the Passat in for an ID.3") == [("user", ("passat",))]


def test_the_cues_own_object_is_kept_apart_from_the_rest_of_its_part() -> None:
    def objects(text: str) -> list[tuple[str, ...]]:
        return [u.object for u in plan_changes(text, at=AT, episode_id="now", facts=[]).unheld]

    assert objects("sold my old PS4 on ebay for £120") == [("ps4",)]
    assert objects("Handed the Niro back at the end of the lease") == [("niro",)]
    assert objects("My nurse has switched me off metformin and onto Ozempic") == [()]  # what follows: no object


def test_a_change_that_ended_a_held_fact_or_was_guarded_keeps_nothing() -> None:
    held = Fact(id="f1", lineage_id="f1", user_id="u", subject="user", predicate="owns", object="Honda Civic",
                confidence=0.8, valid_from=T0, ingested_at=T0, provenance=("e1",))
    assert _unheld("sold the civic on saturday", held) == []
    assert _unheld("thinking about selling the civic") == []  # a possibility
    assert _unheld("did you sell the civic?") == []  # a question


def test_another_persons_news_is_not_the_users() -> None:
    sister = Fact(id="f2", lineage_id="f2", user_id="u", subject="user", predicate="sister_name", object="Jo",
                  confidence=0.8, valid_from=T0, ingested_at=T0, provenance=("e1",))
    assert _unheld("Jo sold the Clio last week", sister) == []
    assert _unheld("She sold the Clio last week", sister) == []


def test_a_lapsed_state_holds_from_the_earlier_turn_until_the_change() -> None:
    [item] = plan_changes("sold the civic on saturday", at=AT, episode_id="now", facts=[]).unheld
    found = lapsed(item, "civic", "smell out of a honda civic??", T0, "e1")
    assert found is not None
    assert (found.subject, found.predicate, found.object, found.since, found.since_episode) == \
        ("user", "states", "civic", T0, "e1")
    assert found.until <= AT and "civic" in found.reason
    assert lapsed(item, "civic", "smell out of a honda civic??", AT + timedelta(days=1), "e9") is None  # after
