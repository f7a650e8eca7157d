"""Point-in-time recall: what a read at ``as_of`` may see (nothing learnt after it).

``context(as_of=...)``, ``retrieve(as_of=...)`` and ``search(as_of=...)`` answer as the store
would have answered at ``as_of``. What was *learnt* after it never reaches them:

- a turn (and a summary or tombstone, which carry the time of the last turn they stand for)
  whose event time is after ``as_of``;
- a fact not valid at ``as_of`` (event time), or learnt after it: its *known time* is the
  event time of the earliest of its source turns still stored ("Since 2015 I have worked at
  Acme", said in June 2024, is known from June 2024 although valid from 2015). A fact with no
  readable source turn (``add_fact`` without ``source_episode_ids``, or its sources erased)
  has no place on the conversation's timeline: it is known from its ``valid_from``, so the
  validity filter alone decides (the application that added it said it held from then);
- a rule created after ``as_of``.

A fact is shown as it was believed at ``as_of``: when a source turn of it is later than
``as_of`` (the turn that ended or changed it: "I moved to Lisbon" closes "lives in Berlin"),
its end of validity and those later turns are left out.

The filters apply where the candidates' rows are read (:func:`.fusion.gather` for recall,
:func:`.context.dense_search` for ``search``), never in the vector index, whose metadata
holds digests, not times. So a point-in-time read asks the dense and keyword searches for as
many more turns as the user added after ``as_of`` (:func:`overfetch`, up to
:data:`OVERFETCH_MAX` more): the later turns it drops cannot crowd the earlier ones out.
Without ``as_of`` nothing here runs and nothing is filtered.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from .._time import to_epoch
from ..storage.sqlite import SQLiteStore
from ..types import Fact, Rule

__all__ = ["OVERFETCH_MAX", "facts_known_by", "overfetch", "rules_known_by"]

OVERFETCH_MAX = 1000
"""At most this many more turns a point-in-time read asks each search for. A moment further
back than that many turns rests on fewer candidates from the dense and keyword searches (the
date, graph and fact signals are filtered the same way and not bounded)."""


def overfetch(db: SQLiteStore, user_id: str, until: datetime | None) -> int:
    """How many more turns a read at ``until`` asks a search for: the user's turns after it (up to
    :data:`OVERFETCH_MAX`); ``0`` without ``until``."""
    if until is None:
        return 0
    return db.count_episodes_after(user_id, to_epoch(until) or 0.0, OVERFETCH_MAX)


def facts_known_by(db: SQLiteStore, user_id: str, facts: Sequence[Fact], until: datetime) -> list[Fact]:
    """The ``facts`` valid at ``until`` and learnt by then (their known time, see the module), as
    believed then: without an end after ``until`` and without source turns after it."""
    valid = [f for f in facts if f.is_valid_at(until)]
    sources = sorted({i for f in valid for i in f.provenance})
    said = {row.id: row.timestamp for row in db.episode_rows(user_id, sources)} if sources else {}
    out: list[Fact] = []
    for fact in valid:
        times = [said[i] for i in fact.provenance if i in said]
        if times and min(times) > until:
            continue
        if times and max(times) > until:  # a later turn ended or changed it: not known at until
            earlier = tuple(i for i in fact.provenance if i not in said or said[i] <= until)
            fact = fact.model_copy(update={"valid_to": None, "provenance": earlier})
        out.append(fact)
    return out


def rules_known_by(rules: Sequence[Rule], until: datetime) -> list[Rule]:
    """The ``rules`` created by ``until``."""
    return [r for r in rules if r.created_at <= until]
