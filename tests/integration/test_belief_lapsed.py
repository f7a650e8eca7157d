"""What an ending says held before it, through a real store (real SQLite, Chroma and MiniLM): issue #38.

A thing first named in passing (a question, a complaint) is never stored as a state; the later turn that ends
it tells that it held. The store then believes it held from the turn that named it until the change, learnt
when the change was told (``known_at`` before it does not hold it), with both turns as provenance.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations._time import utcnow

T0 = datetime(2024, 2, 3, 19, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def _say(store: NovaStore, user: str, text: str, at: datetime, role: str = "user") -> None:
    store.add_turn(user, role, text, timestamp=at)
    store.consolidate(user)


def _named(store: NovaStore, user: str, word: str, **kw: object) -> list[str]:
    return [f.object for f in store.facts(user, **kw) if word in f.object.lower()]  # type: ignore[arg-type]


def test_a_thing_named_in_passing_held_until_the_change_that_ends_it(store: NovaStore) -> None:
    _say(store, "u", "whats the best way to get a wet dog smell out of a honda civic?? tried febreze already", T0)
    assert _named(store, "u", "civic", as_of=T0 + DAY) == []  # a question: no state read
    time.sleep(0.01)
    before = utcnow()
    time.sleep(0.01)
    _say(store, "u", "lol update nobody asked for: sold the civic on saturday. bus pass era begins", T0 + 45 * DAY)
    assert _named(store, "u", "civic", as_of=T0 + 17 * DAY) == ["civic"]
    assert _named(store, "u", "civic", as_of=T0 + 46 * DAY) == []
    assert _named(store, "u", "civic", as_of=T0 + 17 * DAY, known_at=before) == []  # learnt with the change
    (fact,) = [f for f in store.facts("u", include_history=True) if f.object == "civic"]
    first, second = store.episodes("u")
    assert fact.valid_from == T0 and T0 + 40 * DAY <= fact.valid_to <= T0 + 45 * DAY  # "on saturday"
    assert first.id in fact.provenance and second.id in fact.provenance
    ops = [d.op for d in store.components.db.decisions("u") if d.object == "civic"]
    assert sorted(ops) == ["ADD", "DELETE"]


@pytest.mark.parametrize("later", [
    "thinking about selling the civic before the summer",  # a possibility
    "should I sell the civic or keep it another year?",  # a question
    "my neighbour sold his civic on saturday",  # someone else's
])
def test_no_state_from_a_change_that_is_not_the_users(store: NovaStore, later: str) -> None:
    _say(store, "u", "whats the best way to get a wet dog smell out of a honda civic??", T0)
    _say(store, "u", later, T0 + 45 * DAY)
    assert _named(store, "u", "civic", include_history=True) == []


def test_only_the_users_own_earlier_turns_name_it(store: NovaStore) -> None:
    """Another user's turn, or the assistant's, naming the thing is no earlier mention of the user's."""
    _say(store, "other", "any tips for cleaning the seats of a honda civic?", T0)
    _say(store, "u", "Can you compare the Honda Civic and the Golf for me?", T0 + DAY, role="assistant")
    _say(store, "u", "sold the civic on saturday", T0 + 45 * DAY)
    assert _named(store, "u", "civic", include_history=True) == []
    assert _named(store, "other", "civic", include_history=True) == []


def test_a_thing_of_someone_else_earlier_is_not_the_users(store: NovaStore) -> None:
    _say(store, "u", "my partner Jamie's a barista at Pret but he's doing a nursing degree part time", T0)
    _say(store, "u", "Jamie qualified!! He's now a staff nurse on a cardiac ward. Left Pret for good last week.",
         T0 + 200 * DAY)
    assert not [f for f in store.facts("u", include_history=True) if f.subject == "user" and "pret" in
                f.object.lower()]

