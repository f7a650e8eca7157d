"""Corrections by contrast through a real store (real SQLite, Chroma and MiniLM): issue #38.

"scratch what I said about Lebara ... it's Lyca Mobile, I always mix the two up" names no correction cue; the
held value and another of its kind, put against each other in a message that owns a mistake, retract the held
value in valid time (never true) while belief time keeps what was believed before.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from nova_memory_integrations import NovaStore
from nova_memory_integrations._time import utcnow

T0 = datetime(2024, 5, 20, 9, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def _say(store: NovaStore, text: str, at: datetime) -> None:
    store.add_turn("u", "user", text, timestamp=at)
    store.consolidate("u")


def _named(store: NovaStore, word: str, **kw: object) -> list[str]:
    return [f.object for f in store.facts("u", **kw) if word in f.object.lower()]  # type: ignore[arg-type]


def test_a_held_value_put_against_another_of_its_kind_is_retracted(store: NovaStore) -> None:
    store.add_fact("u", "user", "customer_of", "Lebara", valid_from=T0)
    time.sleep(0.01)
    before = utcnow()
    time.sleep(0.01)
    _say(store, "ugh, Lebara?? no, I checked my SIM and it's Lyca Mobile. I always mix the two up. "
                "so is it the same roaming deal?", T0 + 19 * DAY)
    assert _named(store, "lebara", as_of=T0 + 9 * DAY) == []  # never true
    assert _named(store, "lyca", as_of=T0 + 9 * DAY) == ["Lyca"]  # from the wrong value's start
    assert _named(store, "lebara", as_of=T0 + 9 * DAY, known_at=before) == ["Lebara"]  # what was believed
    (decision,) = [d for d in store.components.db.decisions("u") if d.object == "Lyca"]
    assert "corrected (cue 'contrast')" in decision.reason


def test_a_change_between_two_of_a_kind_is_not_a_correction(store: NovaStore) -> None:
    store.add_fact("u", "user", "customer_of", "EDF", valid_from=T0)
    _say(store, "Switched from EDF to Octopus last week, I always mix up their apps though", T0 + 19 * DAY)
    assert _named(store, "edf", as_of=T0 + 9 * DAY) == ["EDF"]  # it held until the switch


def test_scratch_what_i_said_takes_the_value_back(store: NovaStore) -> None:
    store.add_fact("u", "user", "customer_of", "Lebara", valid_from=T0)
    _say(store, "scratch what I said about Lebara, I checked my SIM and it's Lyca Mobile. I always mix the two up. "
                "so is it the same roaming deal?", T0 + 19 * DAY)
    assert _named(store, "lebara", as_of=T0 + 9 * DAY) == []  # never true
    assert _named(store, "lyca", as_of=T0 + 9 * DAY) == ["Lyca Mobile"]  # the name as said, from the wrong one's start
    (decision,) = [d for d in store.components.db.decisions("u") if d.object == "Lyca Mobile"]
    assert "corrected (cue 'take back')" in decision.reason

