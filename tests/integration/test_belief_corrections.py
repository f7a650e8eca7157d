"""Corrections without a cue word and one more job, through a real store (SQLite, Chroma, MiniLM): issue #38.

A correction retracts the old value as never true (``known_at`` before it still shows it); a value close to
the wrong one must not resolve back onto it; the correcting message restating the wrong value does not keep
it; a job said as one more ("too", "as well") keeps the held job.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

from nova_memory_integrations import NovaStore
from nova_memory_integrations._time import utcnow

T0 = datetime(2024, 3, 1, 10, tzinfo=timezone.utc)
DAY = timedelta(days=1)


def _say(store: NovaStore, user: str, text: str, at: datetime) -> None:
    store.add_turn(user, "user", text, timestamp=at)
    store.consolidate(user)


def _held(store: NovaStore, user: str, **kw: object) -> set[str]:
    return {f"{f.predicate}:{f.object}" for f in store.facts(user, **kw)}  # type: ignore[arg-type]


def test_a_near_value_is_not_resolved_back_onto_the_value_it_corrects(store: NovaStore) -> None:
    store.add_fact("u", "user", "states", "choir practice on Thursdays", valid_from=T0)
    time.sleep(0.01)
    before = utcnow()
    time.sleep(0.01)
    _say(store, "u", "I told you Thursdays for choir practice but it's Tuesdays, always has been.", T0 + 10 * DAY)
    assert "states:choir practice on Tuesdays" in _held(store, "u", as_of=T0 + 2 * DAY)
    assert "states:choir practice on Thursdays" not in _held(store, "u", as_of=T0 + 2 * DAY)
    assert "states:choir practice on Thursdays" in _held(store, "u", as_of=T0 + 2 * DAY, known_at=before)


def test_the_correcting_message_restating_the_wrong_value_does_not_keep_it(store: NovaStore) -> None:
    _say(store, "u", "I'm pescatarian these days", T0)
    assert _held(store, "u") == {"diet:pescatarian"}
    _say(store, "u", "Ugh I misspoke before - I'm fully vegetarian, no fish at all. Pescatarian was my mum.",
         T0 + 10 * DAY)
    assert _held(store, "u", as_of=T0 + 2 * DAY) == {"diet:vegetarian"}
    assert _held(store, "u", as_of=T0 + 20 * DAY) == {"diet:vegetarian"}


def test_kidding_about_a_value_retracts_it(store: NovaStore) -> None:
    store.add_fact("u", "user", "supports", "Hibs", valid_from=T0)
    _say(store, "u", "I was only kidding about Hibs 🙈 I'm Hearts, born and raised.", T0 + 10 * DAY)
    supports = {f.object for f in store.facts("u", as_of=T0 + 2 * DAY) if f.predicate == "supports"}
    assert supports == {"Hearts"}


def test_a_job_said_as_one_more_keeps_the_held_job(store: NovaStore) -> None:
    _say(store, "u", "I work as a nurse", T0)
    _say(store, "u", "I'm a tutor on the side too, two evenings a week.", T0 + 10 * DAY)
    assert {"job_title:nurse", "job_title:tutor"} <= _held(store, "u", as_of=T0 + 20 * DAY)
    assert not [f for f in store.facts("u", include_history=True) if f.valid_to is not None]


def test_a_job_said_instead_still_replaces_the_held_job(store: NovaStore) -> None:
    _say(store, "u", "I work at the council", T0)
    _say(store, "u", "I work at the Oxfam shop now.", T0 + 10 * DAY)
    works = {f.object for f in store.facts("u", as_of=T0 + 20 * DAY) if f.predicate == "works_at"}
    assert works == {"the Oxfam shop"}
