"""Opposite attitudes to related topics are logged as conflicts on the real store (real extraction,
consolidation, MiniLM): "I love email newsletters" then "I hate electronic communication".

The pure rules are in ``tests/unit/test_attitudes.py``; the labelled rate is
``benchmarks/attitude_conflicts.py`` (and its floor below).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nova_memory_integrations import NovaConfig, NovaStore

pytestmark = pytest.mark.both_backends

LABELLED = Path(__file__).resolve().parent.parent / "data" / "attitude_conflicts.jsonl"
DAY1, DAY2 = "2025-03-01T10:00:00+00:00", "2025-03-02T10:00:00+00:00"


def _say(store: NovaStore, user: str, first: str, second: str) -> None:
    store.add_turn(user, "user", first, timestamp=DAY1)
    store.add_turn(user, "user", second, timestamp=DAY2)
    store.consolidate(user)


def test_the_newsletter_conflict_is_logged_and_both_facts_kept(store: NovaStore) -> None:
    _say(store, "ann", "I really love weekly email newsletters.",
         "To be honest I hate electronic communication.")
    (conflict,) = store.conflicts("ann")
    facts = {(f.predicate, f.object): f for f in store.facts("ann")}
    liked, hated = facts[("likes", "weekly email newsletters")], facts[("dislikes", "electronic communication")]
    assert (conflict.kind, conflict.status, conflict.winner, conflict.strategy) == (
        "related_topic", "flagged", "both", "keep_both")
    assert (conflict.existing_fact_id, conflict.new_fact_id) == (liked.id, hated.id)
    assert (conflict.predicate, conflict.new_predicate) == ("likes", "dislikes")
    assert "'electronic communication' includes 'weekly email newsletters'" in conflict.reason
    assert "newsletter is a kind of email is a kind of electronic communication" in conflict.reason
    assert "topic cosine 0." in conflict.reason  # the score is recorded, though it alone would not relate them
    assert liked.valid_to is None and hated.valid_to is None  # the newer did not end the older
    assert store.conflicts("bob") == []


def test_a_synonym_by_meaning_and_the_other_direction(store: NovaStore) -> None:
    _say(store, "cal", "I hate football.", "Actually I really love soccer.")
    (conflict,) = store.conflicts("cal")
    assert conflict.kind == "related_topic" and "mean the same (cosine 0.8" in conflict.reason
    _say(store, "dee", "I can't stand seafood.", "I love salmon.")
    (conflict,) = store.conflicts("dee")
    assert "'seafood' includes 'salmon'" in conflict.reason


@pytest.mark.parametrize(("first", "second"), [
    ("I love dogs.", "I hate cats."),
    ("I like tea.", "I hate coffee."),
    ("I enjoy winter.", "I can't stand summer."),
    ("I love hot dogs.", "I don't like dogs."),
])
def test_siblings_never_conflict(store: NovaStore, first: str, second: str) -> None:
    _say(store, "eve", first, second)
    assert len(store.facts("eve")) == 2  # both read, so the check ran
    assert store.conflicts("eve") == []


def test_another_users_attitude_and_another_subject_never_clash(store: NovaStore) -> None:
    store.add_turn("fay", "user", "I love email newsletters.", timestamp=DAY1)
    store.add_turn("gus", "user", "I hate electronic communication.", timestamp=DAY2)
    store.add_turn("fay", "user", "My brother hates electronic communication.", timestamp=DAY2)
    store.consolidate()
    assert store.conflicts("fay") == [] and store.conflicts("gus") == []


def test_off_by_configuration(make_store) -> None:  # type: ignore[no-untyped-def]
    config = NovaConfig()
    config = config.model_copy(update={"facts": config.facts.model_copy(update={"attitude_conflicts": False})})
    store = make_store(config=config)
    _say(store, "hal", "I love email newsletters.", "I hate electronic communication.")
    assert len(store.facts("hal")) == 2 and store.conflicts("hal") == []


@pytest.mark.sqlite_only("one run of the labelled set is enough")
def test_labelled_set_no_false_conflict_and_most_found(store: NovaStore) -> None:
    rows = [json.loads(line) for line in LABELLED.read_text().splitlines() if line.strip()]
    assert len(rows) >= 30 and sum(r["conflict"] for r in rows) >= 15 and sum(not r["conflict"] for r in rows) >= 15
    for n, r in enumerate(rows):
        store.add_turn(f"p{n}", "user", r["first"], timestamp=DAY1)
        store.add_turn(f"p{n}", "user", r["second"], timestamp=DAY2)
    store.consolidate()
    fired = [bool(store.conflicts(f"p{n}")) for n in range(len(rows))]
    false = [r["second"] for r, f in zip(rows, fired) if f and not r["conflict"]]
    found = sum(f for r, f in zip(rows, fired) if r["conflict"])
    assert false == []
    assert found >= 0.9 * sum(r["conflict"] for r in rows)  # 22 of 23 on 2026-11-28 (one sentence unread)
