"""``context(as_of=...)`` is a point-in-time recall: nothing learnt after ``as_of`` reaches it.

Real SQLite, Chroma and MiniLM; deterministic consolidation (no model). One user's turns on
four dates, a belief change in June, a fact said in June but valid from 2015, and a rule
created today. Read as of April, the context holds what the store knew in April and nothing
else; read without ``as_of``, the later memories are there (so the filters are what removed
them). ``retrieve`` and ``search`` take the same filters.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.types import ContextResult


def _at(month: int, day: int) -> datetime:
    return datetime(2024, month, day, 9, 0, tzinfo=timezone.utc)


APRIL = datetime(2024, 4, 1, tzinfo=timezone.utc)
TURNS = [
    ("s1", _at(1, 10), "I live in Berlin."),
    ("s1", _at(1, 10), "My favorite color is blue."),
    ("s2", _at(3, 5), "I adopted a cat named Miso."),
    ("s3", _at(6, 1), "I moved to Lisbon."),
    ("s3", _at(6, 1), "My favorite color is green now."),
    ("s4", _at(6, 2), "Since 2015 I have worked at Acme."),  # learnt in June, valid from 2015
]
LATER = ("Lisbon", "green", "Acme")
"""Words only memories learnt after April hold."""
QUERY = "Where do I live, what is my favorite color, where do I work, my cat?"


@pytest.fixture
def store(make_store: Any) -> NovaStore:
    s: NovaStore = make_store(config=NovaConfig.from_dict({"retrieval": {"reranker": "fallback"}}))
    for session, ts, text in TURNS:
        s.add_turn("al", "user", text, timestamp=ts, session_id=session)
    s.add_turn("bo", "user", "I live in Lisbon and work at Acme.", timestamp=_at(1, 1))  # another user
    s.consolidate("al")
    s.add_rule("al", "the user asks for travel tips", "suggest trains over planes")
    return s


def _texts(ctx: ContextResult) -> str:
    return ctx.text + "\n".join(item.text for item in ctx.sources)


def test_nothing_learnt_after_as_of_reaches_the_context(store: NovaStore) -> None:
    now = store.context(QUERY, "al", budget_tokens=600)
    assert all(word in _texts(now) for word in LATER)  # without as_of they are all there

    then = store.context(QUERY, "al", budget_tokens=600, as_of=APRIL)
    assert not [word for word in LATER if word in _texts(then)]
    assert {"Berlin", "blue", "Miso"} <= set(_texts(then).replace(".", " ").split())
    turns = [s for s in then.sources if s.kind == "episode"]
    assert turns and all(s.timestamp is not None and s.timestamp <= APRIL for s in turns)
    facts = {(s.text, s.valid_to) for s in then.sources if s.kind == "fact"}
    # believed in April: Berlin and blue held, with no end (the June turns that ended them are later)
    assert {("user lives in Berlin", None), ("user favorite color blue", None)} <= facts
    said = {e.id: e.timestamp for e in store.episodes("al")}
    assert all(said[i] <= APRIL for s in then.sources for i in s.provenance)


def test_a_rule_created_later_is_left_out(store: NovaStore) -> None:
    assert [s.kind for s in store.context("Any travel tips for me?", "al").sources].count("rule") == 1
    then = store.context("Any travel tips for me?", "al", as_of=APRIL)
    assert "trains" not in _texts(then) and not [s for s in then.sources if s.kind == "rule"]


def test_a_fact_valid_from_earlier_but_said_later_is_not_known_before_it_was_said(store: NovaStore) -> None:
    (acme,) = store.facts("al", predicate="works_at", as_of=APRIL)  # valid then (event time) ...
    assert acme.valid_from.year == 2015
    ctx = store.context("Where do I work?", "al", budget_tokens=400, as_of=APRIL)
    assert "Acme" not in _texts(ctx)  # ... but learnt in June
    june = store.context("Where do I work?", "al", budget_tokens=400, as_of=_at(6, 3))
    assert any(s.kind == "fact" and "Acme" in s.text for s in june.sources)


def test_a_point_in_time_read_between_the_turns_of_one_day(store: NovaStore) -> None:
    """The day of the move: before 09:00 Berlin, from 09:00 (the turn's time) Lisbon."""
    before = store.context("Where do I live?", "al", budget_tokens=300, as_of=datetime(2024, 6, 1, 8, tzinfo=timezone.utc))
    after = store.context("Where do I live?", "al", budget_tokens=300, as_of=_at(6, 1))
    assert "Lisbon" not in _texts(before) and "Berlin" in _texts(before)
    assert "Lisbon" in _texts(after)


def test_retrieve_and_search_take_the_same_point_in_time(store: NovaStore) -> None:
    for hits in (store.retrieve(QUERY, "al", k=20, as_of=APRIL), store.search(QUERY, "al", k=20, as_of=APRIL,
                                                                               kinds=("episode", "fact", "rule"))):
        assert hits and not [h for h in hits if any(word in h.text for word in LATER)]
        assert all(h.timestamp is not None and h.timestamp <= APRIL for h in hits if h.kind == "episode")
    assert any("Lisbon" in h.text for h in store.search(QUERY, "al", k=20))


def test_later_turns_do_not_crowd_out_the_earlier_ones(make_store: Any) -> None:
    """More later turns close to the query than a search returns (``fast``: 20 dense, 20 keyword):
    the searches ask for as many more as came later, so the one earlier turn is still found."""
    store: NovaStore = make_store(config=NovaConfig.from_dict({"retrieval": {"reranker": "fallback"}}))
    early = "Ana, my younger sibling, is a violinist."  # ranked below all the later turns by both searches
    store.add_turn("al", "user", early, timestamp=_at(1, 5))
    for day in range(1, 31):
        store.add_turn("al", "user", f"What does my sister Ana play these days? I asked her on day {day}, she "
                       "would not say what she plays.", timestamp=datetime(2024, 5, day, 20, tzinfo=timezone.utc))
    ctx = store.context("What does my sister Ana play?", "al", budget_tokens=300, as_of=APRIL, preset="fast")
    assert [s.text for s in ctx.sources if s.kind == "episode"] == [early]
