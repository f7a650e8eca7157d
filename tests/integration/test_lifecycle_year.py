"""The lifecycle over a simulated year (#17): 300 turns of one user with event times spread over 365 days
(and a year of another user's), on real SQLite, Chroma and MiniLM. Capacity levels trigger at 70 / 80 / 95 %,
protected memories survive, tombstones are searchable, old episodes become summaries and later keywords,
the schedule runs by itself in bounded passes, ``add_turn`` stays fast while a pass runs, a dry run changes
no row, and another user's memories are never touched."""

from __future__ import annotations

import io
import logging
import re
import shutil
import statistics
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from integration.test_embedding_space import HashedBagOfWords

from nova_memory_integrations import NovaConfig, NovaStore

NOW = datetime.now(timezone.utc).replace(microsecond=0)
TURNS = 300
TOPICS = ["my cat Miso chased the red laser pointer", "hiking in the Alps above Zermatt",
          "my Portuguese lesson with Ana", "the tomatoes in the garden", "my early shift at the bakery",
          "jazz piano practice with Theo"]
HEAVY = (285, 290)
"""Turns of importance 1.0 in the last month: their effective weight is above ``protect_weight``."""
ACCESSED = 10
"""An old turn retrieved yesterday: protected as recently accessed."""


def _year(user: str, n: int = TURNS) -> list[dict[str, Any]]:
    return [{"user_id": user, "role": "user", "content": f"{TOPICS[i % len(TOPICS)].capitalize()}, day {i}.",
             "timestamp": NOW - timedelta(days=365 * (1 - i / n)), "session_id": f"{user}-{i // 5}",
             "importance": 1.0 if i in HEAVY else 0.5} for i in range(n)]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: Any) -> Path:
    """A store with a consolidated, indexed year of alice and of bob (built once, copied per test)."""
    path = tmp_path_factory.mktemp("year") / "store"
    with NovaStore(path, embeddings=minilm_onnx) as store:
        alice = store.add_turns(_year("alice"))
        store.add_turns(_year("bob", 60))
        store.consolidate()
        store.components.db.touch_episodes("alice", [alice[ACCESSED].id], (NOW - timedelta(days=1)).timestamp())
        store.flush()
    return path


@pytest.fixture
def year(template: Path, tmp_path: Path, minilm_onnx: Any) -> Iterator[Any]:
    """``year(**lifecycle)``: a copy of the template opened with these lifecycle settings."""
    opened: list[NovaStore] = []

    def open_copy(**lifecycle: Any) -> NovaStore:
        path = tmp_path / f"store{len(opened)}"
        shutil.copytree(template, path)
        store = NovaStore(path, embeddings=minilm_onnx, config=NovaConfig.from_dict({"lifecycle": lifecycle}))
        opened.append(store)
        return store

    yield open_copy
    for store in opened:
        store.close()


def _live(store: NovaStore, user: str) -> list[Any]:
    return [e for e in store.episodes(user) if e.role != "tombstone"]


def _all_rows(store: NovaStore) -> dict[str, list[tuple[Any, ...]]]:
    db = store.components.db
    return {t: sorted(tuple(map(repr, r)) for r in db.query(f"SELECT * FROM {t}")) for t in db.table_names()
            if not t.startswith("sqlite_")}  # every table, FTS shadow tables included


def _bob(store: NovaStore) -> str:
    buf = io.StringIO()
    store.export(buf, user_id="bob")
    return "\n".join(buf.getvalue().splitlines()[1:])  # the header holds the export time


# -- capacity levels ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("capacity", "level", "after"), [
    (429, "ok", 300), (428, "warn", 300),            # 69.9 % | 70.1 %
    (376, "warn", 300), (375, "evict", 281),         # 79.8 % | 80.0 %: down to 75 % of 375
    (316, "evict", 237), (315, "aggressive", 220),   # 94.9 % | 95.2 %: down to 70 % of 315
])
def test_capacity_levels_trigger_at_their_fractions(year: Any, capacity: int, level: str, after: int) -> None:
    store = year(max_episodes_per_user=capacity)
    report = store.apply_lifecycle("alice", now=NOW, dry_run=True)
    assert report.per_user["alice"].level == level
    assert report.per_user["alice"].episodes_after == after


def test_the_warning_at_70_percent_is_one_line_naming_the_setting(year: Any, caplog: Any) -> None:
    store = year(max_episodes_per_user=428)
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations"):
        store._lifecycle.run_pass()
        store._lifecycle.run_pass()
    lines = [r.getMessage() for r in caplog.records if "lifecycle.max_episodes_per_user" in r.getMessage()]
    assert len(lines) == 1
    assert "alice" in lines[0]
    assert "lifecycle.capacity_warnings = false" in lines[0]
    assert "\n" not in lines[0]
    assert len(_live(store, "alice")) == TURNS


def test_eviction_at_80_percent_brings_the_user_to_75_percent(year: Any) -> None:
    store = year(max_episodes_per_user=375)
    report = store.apply_lifecycle("alice", now=NOW)
    assert len(_live(store, "alice")) == 281
    assert len(report.evicted) == 19
    assert report.tombstones


def test_aggressive_eviction_keeps_the_protected_and_leaves_searchable_tombstones(year: Any) -> None:
    store = year(max_episodes_per_user=20)
    before = {e.id: e for e in store.episodes("alice")}
    order = sorted(before.values(), key=lambda e: e.timestamp)
    late = store.add_turn("alice", "user", "Arrived after consolidation.", timestamp=NOW - timedelta(days=200))
    bob = _bob(store)
    report = store.apply_lifecycle("alice", now=NOW)
    left = {e.id for e in store.episodes("alice")}
    recent = [e.id for e in order if e.timestamp >= NOW - timedelta(days=7)]
    assert report.per_user["alice"].level == "aggressive"
    assert {order[i].id for i in HEAVY} <= left
    assert order[ACCESSED].id in left
    assert set(recent) <= left
    assert late.id in left
    assert len(_live(store, "alice")) == 14  # 70 % of 20; the protected fit
    stones = [e for e in store.episodes("alice") if e.role == "tombstone"]
    assert len(stones) >= 12  # one per month of the year at least
    assert all(s.content.startswith("I previously knew about ") for s in stones)
    assert all("evicted: capacity pressure" in s.content for s in stones)
    hits = store.search("what do you know about my cat Miso and the laser pointer?", "alice", k=10,
                        kinds=("episode",))
    assert any(h.episode is not None and h.episode.role == "tombstone" for h in hits)
    assert _bob(store) == bob


# -- compaction ----------------------------------------------------------------------------------------
def test_a_year_compacts_to_summaries_and_later_to_keywords(year: Any) -> None:
    store = year(compact_after_days=30, keywords_after_days=180)
    bob = _bob(store)
    report = store.apply_lifecycle("alice", now=NOW)
    eps = store.episodes("alice")
    keywords = [e for e in eps if e.role == "summary" and e.metadata["compression"] == "keywords"]
    summaries = [e for e in eps if e.role == "summary" and e.metadata["compression"] == "summary"]
    turns = [e for e in eps if e.role == "user"]
    assert all(e.timestamp < NOW - timedelta(days=180) for e in keywords)
    assert all(NOW - timedelta(days=180) <= e.timestamp < NOW - timedelta(days=30) for e in summaries)
    assert all(e.content.startswith("Keywords of ") for e in keywords)
    assert len(keywords) == len(report.keywords)
    assert len(summaries) + len(keywords) == len(report.summaries)
    old_turns = [e.content for e in turns if e.timestamp < NOW - timedelta(days=31)]
    assert old_turns == [f"{TOPICS[ACCESSED % len(TOPICS)].capitalize()}, day {ACCESSED}."]  # accessed: protected
    assert {e.id for e in keywords} & {i for i, _ in store.components.db.fts_episodes("alice", "Zermatt", 100)}
    assert _bob(store) == bob


# -- dry run ---------------------------------------------------------------------------------------------
def test_a_dry_run_changes_no_row_and_no_vector(year: Any) -> None:
    store = year(max_episodes_per_user=315, compact_after_days=30, keywords_after_days=180, retention_days=330)
    rows = _all_rows(store)
    vectors = sorted(store.components.vectors.get_user_ids("episode", "alice"))
    report = store.apply_lifecycle(now=NOW, dry_run=True)
    assert all(report.counts()[k] for k in ("retention_deleted", "compacted", "summaries", "keywords"))
    assert _all_rows(store) == rows
    assert sorted(store.components.vectors.get_user_ids("episode", "alice")) == vectors


def test_the_cli_dry_run_prints_each_users_actions(year: Any, minilm_onnx: Any) -> None:
    from typer.testing import CliRunner

    from nova_memory_integrations.cli.app import app

    store = year()
    path = store.path
    store.close()
    (path / "config.toml").write_text("[lifecycle]\nmax_episodes_per_user = 315\n")
    runner = CliRunner()
    human = runner.invoke(app, ["lifecycle", "--dry-run", "--path", str(path)], obj={"embeddings": minilm_onnx})
    data = runner.invoke(app, ["lifecycle", "--dry-run", "--json", "--path", str(path)],
                         obj={"embeddings": minilm_onnx})
    assert human.exit_code == 0
    assert re.search(r"alice: 300/315 \(95%, aggressive\); hot \d+ warm \d+ cold \d+; \d+ protected -> "
                     r"\d+ evicted", human.output)
    assert "bob: 60/315" in human.output
    assert '"dry_run":true' in data.output.replace(" ", "")
    with NovaStore(path, embeddings=minilm_onnx) as reopened:
        assert len(_live(reopened, "alice")) == TURNS


# -- the schedule ------------------------------------------------------------------------------------------
def test_the_schedule_runs_by_itself_in_bounded_passes(year: Any) -> None:
    store = year(max_episodes_per_user=375, schedule_interval_s=0.2, max_changes_per_pass=5, batch_size=5)
    bob = _bob(store)
    deadline = time.monotonic() + 120
    while len(_live(store, "alice")) > 281 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(_live(store, "alice")) == 281
    assert store._lifecycle.passes >= 4  # 19 evictions, at most 5 per pass
    assert store._lifecycle.running
    assert _bob(store) == bob


def test_add_turn_stays_fast_while_a_pass_runs(tmp_path: Path) -> None:
    config = NovaConfig.from_dict({"lifecycle": {"max_episodes_per_user": 500, "max_changes_per_pass": 5000,
                                                 "batch_size": 25, "schedule_interval_s": None}})
    with NovaStore(tmp_path / "m", embeddings=HashedBagOfWords(), config=config) as store:  # type: ignore[arg-type]
        store.add_turns(_year("alice", 1500))
        store.consolidate("alice")
        store.flush()

        def add(i: int) -> float:
            start = time.perf_counter()
            store.add_turn("carol", "user", f"Carol's note number {i} about the weather.")
            return time.perf_counter() - start

        idle = [add(i) for i in range(60)]
        store.flush()
        during: list[float] = []
        span: list[float] = []

        def run() -> None:
            start = time.perf_counter()
            store._lifecycle.run_pass()
            span.append(time.perf_counter() - start)

        worker = threading.Thread(target=run)
        worker.start()
        while worker.is_alive():
            during.append(add(len(during) + 100))
        worker.join()
    ratio = statistics.median(during) / statistics.median(idle)
    print(f"pass {span[0]:.3f}s; add_turn median idle {statistics.median(idle) * 1e3:.2f} ms, during "
          f"{statistics.median(during) * 1e3:.2f} ms (x{ratio:.1f}), max during {max(during) * 1e3:.1f} ms,"
          f" {len(during)} turns")
    assert len(_live_of(store_path=tmp_path / "m")) == 350
    assert len(during) >= 10  # turns kept being added all through the pass
    # A turn that waited for the pass would take about the whole pass. Half of it, not less: in a
    # loaded CI run one turn in ~300 stalled for a third of the pass (627 ms of 1.84 s, 934 ms of
    # 2.97 s) while its median stayed at 0.3 ms; alone the worst turn is 40-80 ms.
    assert max(during) < span[0] / 2
    assert ratio < 8


def _live_of(store_path: Path) -> list[Any]:
    with NovaStore(store_path, embeddings=HashedBagOfWords()) as store:  # type: ignore[arg-type]
        return _live(store, "alice")
