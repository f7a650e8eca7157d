"""WAL checkpoints run on their own thread (``storage/checkpoint.py``), against real SQLite files:
no commit below the fallback bound checkpoints, the background thread moves committed pages
into the database file, the scrub still truncates the log, and close ends the thread."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations.storage import checkpoint
from nova_memory_integrations.storage.checkpoint import WAL_FALLBACK_PAGES, WalCheckpointer
from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.types import Episode

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)
PAGE = 4096


def ep(eid: str, text: str) -> Episode:
    return Episode(id=eid, user_id="alice", session_id="s1", role="user", content=text, timestamp=T0,
                   ingested_at=T0)


def until(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def wal(db: SQLiteStore) -> Path:
    return db.path.with_name(db.path.name + "-wal")


def test_the_connection_checkpoints_by_itself_only_past_the_fallback(db: SQLiteStore) -> None:
    assert db.query("PRAGMA wal_autocheckpoint")[0][0] == WAL_FALLBACK_PAGES


def test_the_fallback_is_well_above_sqlite_s_default() -> None:
    assert WAL_FALLBACK_PAGES >= 4 * 1000


def test_commits_past_sqlite_s_default_do_not_checkpoint_in_the_committing_thread(
        db: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the background thread kept away, 1,500 pages of commits stay in the log: under
    SQLite's default the commit that passed 1,000 pages would have copied them out and reset it."""
    monkeypatch.setattr(db.checkpointer, "poke", lambda: None)
    for i in range(300):
        db.insert_episodes([ep(f"e{i}", f"turn {i} " + "x" * 20_000)])  # ~5 pages each
    assert wal(db).stat().st_size > 1_200 * PAGE


def test_a_commit_is_checkpointed_on_the_background_thread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    connect = sqlite3.connect

    def recording(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        threads.append(threading.current_thread().name)
        return connect(*args, **kwargs)

    store = SQLiteStore(tmp_path / "m.sqlite3")
    monkeypatch.setattr(checkpoint.sqlite3, "connect", recording)  # the checkpointer connects on first use
    try:
        store.insert_episodes([ep("e1", "hello")])
        assert (until(lambda: store.checkpointer.runs >= 1), threads) == (True, ["nova-memory-checkpoint"])
    finally:
        store.close()


def test_the_background_checkpoint_moves_the_commit_into_the_database_file(db: SQLiteStore) -> None:
    db.insert_episodes([ep("e1", "a-marker-only-this-turn-holds")])
    assert until(lambda: b"a-marker-only-this-turn-holds" in db.path.read_bytes())


def test_a_burst_of_commits_shares_few_checkpoints(db: SQLiteStore) -> None:
    for i in range(50):
        db.insert_episodes([ep(f"e{i}", "hello")])
    assert until(lambda: db.checkpointer.runs >= 1)
    assert db.checkpointer.runs < 10


@pytest.fixture()
def checkpoint_under_way(db: SQLiteStore) -> Iterator[list[str]]:
    """A background checkpoint holding its place for 0.3 s (notes when it ends)."""
    db.insert_episodes([ep("e1", "hello")])
    held, events = threading.Event(), []

    def hold() -> None:
        with db.checkpointer.paused():  # what a running checkpoint holds
            held.set()
            time.sleep(0.3)
            events.append("checkpoint ended")

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    yield events
    holder.join()


def test_the_scrub_waits_for_a_checkpoint_under_way(db: SQLiteStore, checkpoint_under_way: list[str]) -> None:
    db.scrub()
    checkpoint_under_way.append("scrubbed")
    assert checkpoint_under_way == ["checkpoint ended", "scrubbed"]


def test_the_scrub_truncates_the_log_after_a_checkpoint(db: SQLiteStore, checkpoint_under_way: list[str]) -> None:
    db.scrub()
    assert wal(db).stat().st_size == 0


def test_close_ends_the_thread(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "m.sqlite3")
    store.insert_episodes([ep("e1", "hello")])
    thread = store.checkpointer._worker._thread
    store.close()
    assert (thread is not None, thread is not None and thread.is_alive()) == (True, False)


def test_a_poke_after_stop_starts_nothing(tmp_path: Path) -> None:
    checkpointer = WalCheckpointer(tmp_path / "none.sqlite3", busy_timeout_s=1)
    checkpointer.stop()
    checkpointer.poke()
    assert not checkpointer._worker.running


def test_a_store_whose_file_is_gone_gets_no_new_one(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    checkpointer = WalCheckpointer(tmp_path / "gone.sqlite3", busy_timeout_s=1, delay_s=0)
    with caplog.at_level(logging.DEBUG, logger="nova_memory_integrations.storage"):
        checkpointer.poke()
        assert until(lambda: "background WAL checkpoint" in caplog.text)
    checkpointer.stop()
    assert not (tmp_path / "gone.sqlite3").exists()


def test_the_thread_goes_on_after_a_failed_checkpoint(tmp_path: Path) -> None:
    checkpointer = WalCheckpointer(tmp_path / "late.sqlite3", busy_timeout_s=1, delay_s=0)
    checkpointer.poke()  # no file yet: this checkpoint fails
    time.sleep(0.2)
    SQLiteStore(tmp_path / "late.sqlite3").close()
    checkpointer.poke()
    assert until(lambda: checkpointer.runs >= 1)
    checkpointer.stop()
