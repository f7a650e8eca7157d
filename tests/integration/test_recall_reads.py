"""Recall builds an Episode only for the turns it returns (#13): ranking reads rows
(:class:`~nova_memory_integrations.storage.rows.EpisodeRow`), a returned turn whose row is
damaged elsewhere is skipped and the next one moves up, and hooks still see episodes."""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.engine.hooks import HookEvent
from nova_memory_integrations.retrieval.search_config import SearchConfig
from nova_memory_integrations.storage.rows import row_to_episode

USER = "ann"
TOPICS = ["sailing", "bread", "chess", "gardening", "jazz", "cycling", "pottery", "astronomy"]


def _fill(store: NovaStore) -> None:
    store.add_turns([{"user_id": USER, "role": "user", "session_id": f"s{i % 8}",
                      "content": f"Turn {i}: I spent the evening on {TOPICS[i % 8]} with my brother."}
                     for i in range(160)])
    store.flush()


@pytest.fixture()
def conversions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Ids of the rows converted to an Episode by the episode reads."""
    seen: list[str] = []

    def counting(row: sqlite3.Row) -> Any:
        seen.append(row["id"])
        return row_to_episode(row)

    monkeypatch.setattr("nova_memory_integrations.storage.episodes.row_to_episode", counting)
    return seen


def test_retrieve_builds_episodes_only_for_what_it_returns(store: NovaStore, conversions: list[str]) -> None:
    _fill(store)
    conversions.clear()
    hits = store.retrieve("evenings of chess with my brother", USER, k=3, kinds=("episode",))
    assert len(conversions) <= len(hits) * SearchConfig.preset("balanced").snippet_max_turns  # ranking read ~150


def test_context_builds_episodes_for_at_most_its_candidates(store: NovaStore, conversions: list[str]) -> None:
    _fill(store)
    conversions.clear()
    store.context("evenings of chess with my brother", USER, budget_tokens=1000)
    assert len(conversions) <= 40  # candidates at 1,000 tokens; ranking read ~150 rows


def test_a_returned_turn_damaged_outside_the_ranked_columns_is_skipped(
    store: NovaStore, caplog: pytest.LogCaptureFixture
) -> None:
    _fill(store)
    best = store.retrieve("Turn 42 chess", USER, k=1, kinds=("episode",))[0]
    raw = sqlite3.connect(store.path / "nova.sqlite3")
    raw.execute("UPDATE episodes SET metadata = '{broken' WHERE id = ?", (best.id,))
    raw.commit()
    raw.close()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        hits = store.retrieve("Turn 42 chess", USER, k=5, kinds=("episode",))
    assert (len(hits), best.id in {h.id for h in hits},
            sum("skipped damaged" in r.getMessage() and best.id in r.getMessage() for r in caplog.records)) == (5, False, 1)


def test_an_after_retrieve_hook_sees_every_turn_as_an_episode(store: NovaStore) -> None:
    _fill(store)
    seen: list[bool] = []

    def hook(event: HookEvent) -> Any:
        seen.extend(c.episode is not None for c in event.value if c.kind == "episode")
        return event.value

    store.hooks.register("after_retrieve", hook)
    store.context("evenings of chess with my brother", USER, budget_tokens=1000)
    assert (len(seen) > 40, all(seen)) == (True, True)
