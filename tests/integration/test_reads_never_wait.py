"""Reads never wait behind the vector-index backlog (issue #19).

The indexer is held still (its batch step blocks on an event: a fault injected into a real
store), so every new turn stays queued. Reads must return at once, serve the newest
queued turns by a dense score computed on the spot and older queued turns by keywords,
and never show another user's turns.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.signals import PENDING_EMBED_ALL

QUICK_S = 5.0  # far below the old 30 s index wait; a stalled read would blow it


@pytest.fixture
def stalled(store: NovaStore) -> Iterator[tuple[NovaStore, threading.Event]]:
    """A store whose indexer takes a batch and then waits for ``release``."""
    release = threading.Event()
    indexer = store.components.indexer
    original = indexer._index

    def held(batch: Any) -> None:
        release.wait(timeout=60)
        original(batch)

    store.add_turn("alice", "user", "I keep my bicycle in the garden shed.")
    store.flush()
    indexer._index = held  # type: ignore[method-assign]
    yield store, release
    release.set()
    indexer._index = original  # type: ignore[method-assign]


def _timed_context(store: NovaStore, query: str, user: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    text = store.context(query, user).text
    return time.perf_counter() - t0, text


def test_context_returns_quickly_while_the_turn_is_unindexed(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, _ = stalled
    store.add_turn("alice", "user", "My passport number is ZX-4471 and it expires in May.")
    elapsed, _ = _timed_context(store, "when does my passport expire", "alice")
    assert elapsed < QUICK_S


def test_turn_added_just_before_a_read_is_in_its_context(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, _ = stalled
    store.add_turn("alice", "user", "My passport number is ZX-4471 and it expires in May.")
    _, text = _timed_context(store, "when does my passport expire", "alice")
    assert "ZX-4471" in text


def test_the_turn_was_still_unindexed_during_the_read(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, _ = stalled
    episode = store.add_turn("alice", "user", "My passport number is ZX-4471 and it expires in May.")
    store.context("when does my passport expire", "alice")
    assert episode.id in store.components.indexer.pending_ids("alice", "episodes")


def test_search_finds_the_unindexed_turn_without_waiting(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, _ = stalled
    store.add_turn("alice", "user", "My passport number is ZX-4471 and it expires in May.")
    t0 = time.perf_counter()
    hits = store.search("passport expiry", "alice", k=5)
    assert time.perf_counter() - t0 < QUICK_S
    assert any("ZX-4471" in h.text for h in hits)


def test_older_queued_turns_are_reached_by_keywords(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, _ = stalled
    store.add_turn("alice", "user", "The wifi password at the cabin is glacier-otter-29.")
    for n in range(PENDING_EMBED_ALL + 4):  # a backlog: only the newest few get a dense score
        store.add_turn("alice", "user", f"Reminder number {n}: water the tomatoes.")
    _, text = _timed_context(store, "cabin wifi password", "alice")
    assert "glacier-otter-29" in text


def test_queued_turns_of_another_user_never_appear(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, _ = stalled
    store.add_turn("bob", "user", "Bob's passport number is QQ-9001 and it expires in May.")
    _, text = _timed_context(store, "when does my passport expire", "alice")
    assert "QQ-9001" not in text


def test_everything_is_indexed_once_the_indexer_resumes(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, release = stalled
    store.add_turn("alice", "user", "My passport number is ZX-4471 and it expires in May.")
    release.set()
    assert store.flush(timeout=60)
    assert store.components.indexer.pending_ids("alice", "episodes") == []


def test_a_rule_added_just_before_is_matched(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, _ = stalled
    store.add_rule("alice", "user asks for code", "answer in Rust")
    assert [r.action for r in store.rules("alice", "can you write some code for me?")] == ["answer in Rust"]


def test_a_fact_learnt_just_before_is_found(stalled: tuple[NovaStore, threading.Event]) -> None:
    store, _ = stalled
    store.add_turn("alice", "user", "I live in Lisbon.")
    store.consolidate("alice")
    hits = store.search("where does alice live", "alice", k=5, kinds=("fact",))
    assert any("Lisbon" in h.text for h in hits)
