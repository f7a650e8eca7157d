"""The background indexer over real SQLite and a real Chroma ``PersistentClient`` in a tmp dir
(kills the mutants of ``engine/indexer.py``). Embeddings come from the repo's hashed
bag-of-words embedder (tests/integration/test_embedding_space.py), so no model is loaded.

Failures are real ones: a Chroma collection that belongs to another user makes every upsert
into it fail until it is dropped."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from integration.test_embedding_space import HashedBagOfWords

from nova_memory_integrations.embeddings import CachedEmbedder, embedding_space
from nova_memory_integrations.engine.indexer import SPACE_KEY, Indexer
from nova_memory_integrations.storage.sqlite import SQLiteStore
from nova_memory_integrations.storage.vectors import VectorIndex
from nova_memory_integrations.types import Episode, Fact, Rule

T0 = datetime(2024, 1, 1, 12, tzinfo=timezone.utc)


class OtherModel(HashedBagOfWords):
    """The same vectors under another model name: another embedding space for the store."""

    model = "hashed-bow-64-other"


@pytest.fixture()
def vectors(tmp_path: Path) -> VectorIndex:
    return VectorIndex(path=tmp_path / "chroma")


@pytest.fixture()
def embedder() -> CachedEmbedder:
    return CachedEmbedder(HashedBagOfWords())


@pytest.fixture()
def indexer(db: SQLiteStore, vectors: VectorIndex, embedder: CachedEmbedder) -> Iterator[Indexer]:
    ix = Indexer(db, vectors, embedder, batch_size=2, max_batch_size=4, max_wait_ms=1)
    yield ix
    ix.stop(timeout=5)


@pytest.fixture()
def hijack(vectors: VectorIndex, indexer: Indexer) -> Iterator[Any]:
    """Create a user's collection owned by somebody else: every write into it fails (until the
    test ends, so that the worker drains before it is stopped)."""
    made: list[str] = []

    def make(kind: str, user: str) -> None:
        name = vectors.collection_name(kind, user)  # type: ignore[arg-type]
        vectors.client.create_collection(name=name, embedding_function=None,
                                         metadata={"hnsw:space": "cosine", "user_id": "mallory"})
        made.append(name)

    yield make
    for name in made:
        try:
            vectors.client.delete_collection(name)
        except Exception:  # released by the test already
            pass


def episode(eid: str, user: str = "alice", session: str | None = "s1") -> Episode:
    return Episode(id=eid, user_id=user, session_id=session, role="user", content=f"content of {eid}",
                   timestamp=T0, ingested_at=T0)


def fact(fid: str, user: str = "alice", **kw: Any) -> Fact:
    return Fact(id=fid, lineage_id=fid, user_id=user, subject="user", predicate="likes", object=f"obj {fid}",
                confidence=0.5, valid_from=T0, ingested_at=T0, **kw)


def rule(rid: str, user: str = "alice") -> Rule:
    return Rule(id=rid, user_id=user, condition=f"condition {rid}", action=f"action {rid}", confidence=0.5,
                created_at=T0)


def _unit(vector: Any) -> tuple[float, ...]:
    v = np.asarray(vector, dtype=np.float64)
    return tuple(np.round(v / np.linalg.norm(v), 5))


def vec(text: str) -> tuple[float, ...]:
    """The (unit, rounded) vector the embedder makes of ``text``."""
    return _unit(HashedBagOfWords().embed_query(text))


def digest(value: str) -> str:
    """How the index stores a metadata value other than ``user_id`` (never as text)."""
    return hashlib.blake2b(value.encode("utf-8"), digest_size=16).hexdigest()


def stored(vectors: VectorIndex, kind: str, user: str) -> dict[str, tuple[tuple[float, ...], dict[str, Any]]]:
    """id -> (unit vector, metadata) of one user's collection (which holds no document)."""
    col = vectors.collection(kind, user)  # type: ignore[arg-type]
    if col is None:
        return {}
    res = col.get(include=["documents", "embeddings", "metadatas"])
    assert all(d is None for d in res["documents"])
    return {i: (_unit(e), m) for i, e, m in zip(res["ids"], res["embeddings"], res["metadatas"])}


def release(vectors: VectorIndex, kind: str, user: str) -> None:
    vectors.client.delete_collection(vectors.collection_name(kind, user))  # type: ignore[arg-type]


# -- construction and embedding space ---------------------------------------------------------------------


def test_defaults(db: SQLiteStore, vectors: VectorIndex, embedder: CachedEmbedder) -> None:
    ix = Indexer(db, vectors, embedder)
    assert (ix.batch_size, ix.max_batch_size, ix.max_wait) == (128, 1024, 0.025)


def test_the_backlog_batch_is_never_smaller_than_the_batch(db: SQLiteStore, vectors: VectorIndex,
                                                           embedder: CachedEmbedder) -> None:
    assert Indexer(db, vectors, embedder, batch_size=10, max_batch_size=4).max_batch_size == 10


def test_a_new_store_matches_without_recording(indexer: Indexer, db: SQLiteStore) -> None:
    assert indexer.space_matches() is True
    assert db.get_meta(SPACE_KEY) is None  # the migration adopt_embedding_space records it (engine/migrations.py)


def test_the_recorded_space_matches_again(indexer: Indexer) -> None:
    indexer.adopt_space()
    assert indexer.space_matches() is True


def test_another_space_does_not_match(db: SQLiteStore, vectors: VectorIndex, indexer: Indexer) -> None:
    indexer.adopt_space()
    assert Indexer(db, vectors, CachedEmbedder(OtherModel())).space_matches() is False


def test_another_space_keeps_the_recorded_one(db: SQLiteStore, vectors: VectorIndex, indexer: Indexer) -> None:
    indexer.adopt_space()
    Indexer(db, vectors, CachedEmbedder(OtherModel())).space_matches()
    assert db.get_meta(SPACE_KEY) == embedding_space(HashedBagOfWords())


def test_another_space_is_logged(db: SQLiteStore, vectors: VectorIndex, indexer: Indexer,
                                 caplog: pytest.LogCaptureFixture) -> None:
    indexer.adopt_space()
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.engine.indexer"):
        Indexer(db, vectors, CachedEmbedder(OtherModel())).space_matches()
    assert [r.getMessage() for r in caplog.records] == [
        f"nova-memory: the vectors of this store were made by {embedding_space(HashedBagOfWords())!r} but it now "
        f"embeds with {embedding_space(OtherModel())!r}: dense search will be poor (or fail on a dimension "
        "mismatch) until NovaStore.reindex() / `nova-memory reindex` rebuilds them (or set "
        'embeddings.on_model_change = "reindex")']


def test_adopt_space_records_the_new_embedder(db: SQLiteStore, vectors: VectorIndex, indexer: Indexer) -> None:
    indexer.adopt_space()
    Indexer(db, vectors, CachedEmbedder(OtherModel())).adopt_space()
    assert db.get_meta(SPACE_KEY) == embedding_space(OtherModel())


# -- indexing ------------------------------------------------------------------------------------------------


@pytest.fixture()
def rows(db: SQLiteStore) -> SQLiteStore:
    db.insert_episodes([episode("ae1"), episode("ae2", session=None), episode("be1", "bob")])
    db.insert_fact(fact("af1"), "x", 0.0)
    db.insert_fact(fact("af2", expired_at=T0), "x", 0.0)
    db.insert_rule(rule("ar1"))
    return db


def test_episodes_reach_their_users_collection(rows: SQLiteStore, indexer: Indexer, vectors: VectorIndex) -> None:
    indexer.submit("episodes", [("ae1", "alice"), ("ae2", "alice"), ("be1", "bob")])
    indexer.wait(timeout=30)
    assert stored(vectors, "episode", "alice") == {
        "ae1": (vec("content of ae1"), {"user_id": "alice", "h_session_id": digest("s1")}),
        "ae2": (vec("content of ae2"), {"user_id": "alice", "h_session_id": digest("")}),
    }


def test_another_users_episode_goes_to_their_collection(rows: SQLiteStore, indexer: Indexer,
                                                        vectors: VectorIndex) -> None:
    indexer.submit("episodes", [("ae1", "alice"), ("be1", "bob")])
    indexer.wait(timeout=30)
    assert list(stored(vectors, "episode", "bob")) == ["be1"]


def test_facts_are_indexed_with_their_text(rows: SQLiteStore, indexer: Indexer, vectors: VectorIndex) -> None:
    indexer.submit("facts", [("af1", "alice")])
    indexer.wait(timeout=30)
    assert stored(vectors, "fact", "alice") == {
        "af1": (vec("user likes obj af1"), {"user_id": "alice"})}


def test_rules_are_indexed_by_their_condition(rows: SQLiteStore, indexer: Indexer, vectors: VectorIndex) -> None:
    indexer.submit("rules", [("ar1", "alice")])
    indexer.wait(timeout=30)
    assert stored(vectors, "rule", "alice") == {"ar1": (vec("condition ar1"), {"user_id": "alice"})}


def test_indexed_vectors_are_the_embedders(rows: SQLiteStore, indexer: Indexer, vectors: VectorIndex) -> None:
    indexer.submit("rules", [("ar1", "alice")])
    indexer.wait(timeout=30)
    got = vectors.get_embeddings("rule", ["ar1"], user_id="alice")["ar1"]
    assert got == pytest.approx(HashedBagOfWords().embed_query("condition ar1"), abs=1e-6)


def test_indexed_rows_are_flagged(rows: SQLiteStore, indexer: Indexer) -> None:
    indexer.submit("episodes", [("ae1", "alice"), ("be1", "bob")])
    indexer.wait(timeout=30)
    assert rows.unindexed_ids("episodes") == [("ae2", "alice")]


def test_an_expired_fact_is_kept_out_of_the_index(rows: SQLiteStore, indexer: Indexer, vectors: VectorIndex) -> None:
    indexer.submit("facts", [("af1", "alice"), ("af2", "alice")])
    indexer.wait(timeout=30)
    assert list(stored(vectors, "fact", "alice")) == ["af1"]


def test_an_expired_fact_is_flagged_done(rows: SQLiteStore, indexer: Indexer) -> None:
    indexer.submit("facts", [("af2", "alice")])
    indexer.wait(timeout=30)
    assert rows.unindexed_ids("facts") == [("af1", "alice")]


def test_a_fact_expired_after_indexing_leaves_the_index(rows: SQLiteStore, indexer: Indexer,
                                                       vectors: VectorIndex) -> None:
    indexer.submit("facts", [("af1", "alice")])
    indexer.wait(timeout=30)
    rows.expire_fact("alice", "af1", T0.timestamp())
    indexer.submit("facts", [("af1", "alice")])
    indexer.wait(timeout=30)
    assert stored(vectors, "fact", "alice") == {}


def test_a_deleted_row_leaves_its_users_index(rows: SQLiteStore, indexer: Indexer, vectors: VectorIndex) -> None:
    indexer.submit("episodes", [("ae1", "alice"), ("ae2", "alice"), ("be1", "bob")])
    indexer.wait(timeout=30)
    rows.delete_ids("alice", ["ae1"])
    rows.delete_ids("bob", ["be1"])
    indexer.submit("episodes", [("ae1", "alice"), ("be1", "bob")])
    indexer.wait(timeout=30)
    assert [list(stored(vectors, "episode", "alice")), list(stored(vectors, "episode", "bob"))] == [["ae2"], []]


def test_a_row_queued_twice_is_indexed_once(rows: SQLiteStore, indexer: Indexer, vectors: VectorIndex) -> None:
    indexer.submit("episodes", [("ae1", "alice"), ("ae1", "alice")])
    indexer.wait(timeout=30)
    assert list(stored(vectors, "episode", "alice")) == ["ae1"]


def test_recover_queues_every_unindexed_row(rows: SQLiteStore, indexer: Indexer) -> None:
    assert indexer.recover() == 6


def test_recover_indexes_every_table(rows: SQLiteStore, indexer: Indexer, vectors: VectorIndex) -> None:
    indexer.recover()
    indexer.wait(timeout=30)
    assert [len(stored(vectors, k, "alice")) for k in ("episode", "fact", "rule")] == [2, 1, 1]


# -- pending, wait, stop ---------------------------------------------------------------------------------------


@pytest.fixture()
def stopped(db: SQLiteStore, vectors: VectorIndex, embedder: CachedEmbedder) -> Indexer:
    """An indexer whose worker is stopped: what is submitted stays queued."""
    ix = Indexer(db, vectors, embedder)
    ix.stop(timeout=0)
    ix.submit("episodes", [("e1", "alice"), ("e2", "alice"), ("e1", "alice")])
    ix.submit("facts", [("f1", "alice"), ("g1", "bob")])
    return ix


def test_pending_of_a_user(stopped: Indexer) -> None:
    assert stopped.pending("alice") == 4


def test_pending_of_everyone(stopped: Indexer) -> None:
    assert stopped.pending() == 5


def test_pending_of_a_user_without_rows(stopped: Indexer) -> None:
    assert stopped.pending("carol") == 0


def test_pending_ids_of_a_table_oldest_first_once_each(stopped: Indexer) -> None:
    assert stopped.pending_ids("alice", "episodes") == ["e1", "e2"]


def test_pending_ids_of_another_table(stopped: Indexer) -> None:
    assert stopped.pending_ids("alice", "facts") == ["f1"]


def test_pending_ids_of_another_user(stopped: Indexer) -> None:
    assert stopped.pending_ids("bob", "facts") == ["g1"]


def test_pending_ids_of_a_user_without_rows(stopped: Indexer) -> None:
    assert stopped.pending_ids("carol", "facts") == []


def test_wait_times_out_on_a_stopped_worker(stopped: Indexer) -> None:
    assert stopped.wait("alice", timeout=0.05) is False


def test_wait_for_a_user_without_rows_returns_at_once(stopped: Indexer) -> None:
    assert stopped.wait("carol", timeout=0) is True


def test_wait_with_nothing_queued(indexer: Indexer) -> None:
    assert indexer.wait(timeout=0) is True


def test_pending_drops_to_zero_once_indexed(rows: SQLiteStore, indexer: Indexer) -> None:
    indexer.submit("episodes", [("ae1", "alice"), ("ae2", "alice")])
    indexer.wait("alice", timeout=30)
    assert indexer.pending() == 0


def test_wait_without_a_timeout_returns_once_indexed(rows: SQLiteStore, indexer: Indexer) -> None:
    indexer.submit("episodes", [("ae1", "alice")])
    assert indexer.wait("alice") is True


def indexer_threads() -> int:
    return sum(t.name == "nova-memory-indexer" and t.is_alive() for t in threading.enumerate())


def test_submitting_nothing_starts_no_worker(indexer: Indexer) -> None:
    before = indexer_threads()
    indexer.submit("episodes", [])
    assert indexer_threads() == before


def test_stop_drains_the_queue_first(rows: SQLiteStore, db: SQLiteStore, vectors: VectorIndex,
                                     embedder: CachedEmbedder) -> None:
    ix = Indexer(db, vectors, embedder, max_wait_ms=200)
    ix.submit("episodes", [("ae1", "alice")])
    ix.stop()
    assert list(stored(vectors, "episode", "alice")) == ["ae1"]


def test_stop_ends_the_worker(rows: SQLiteStore, indexer: Indexer) -> None:
    indexer.submit("episodes", [("ae1", "alice")])
    indexer.wait(timeout=30)
    indexer.stop()
    assert indexer._thread is not None and not indexer._thread.is_alive()


# -- failures ----------------------------------------------------------------------------------------------------


def test_a_failing_batch_stays_queued(rows: SQLiteStore, indexer: Indexer, hijack: Any, vectors: VectorIndex) -> None:
    hijack("episode", "alice")
    indexer.submit("episodes", [("ae1", "alice")])
    assert indexer.wait("alice", timeout=0.2) is False


def test_a_failing_batch_reports_the_error(rows: SQLiteStore, indexer: Indexer, hijack: Any, vectors: VectorIndex) -> None:
    hijack("episode", "alice")
    indexer.submit("episodes", [("ae1", "alice")])
    indexer.wait("alice", timeout=0.5)
    assert indexer.last_error == (f"StorageError: Chroma collection {vectors.collection_name('episode', 'alice')}"
                                  " belongs to another user")


def test_a_failing_batch_is_logged_with_its_size(rows: SQLiteStore, db: SQLiteStore, vectors: VectorIndex,
                                                 indexer: Indexer, hijack: Any, caplog: pytest.LogCaptureFixture) -> None:
    db.insert_episodes([episode(f"x{n}") for n in range(3)])
    hijack("episode", "alice")
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.engine.indexer"):
        indexer.submit("episodes", [("ae1", "alice"), ("ae2", "alice"), ("x0", "alice"), ("x1", "alice"),
                                    ("x2", "alice")])  # 5 queued > batch of 2: a backlog batch of 4
        indexer.wait("alice", timeout=0.3)
    assert caplog.records[0].getMessage() == (
        "nova-memory indexer: batch of 4 failed (Chroma collection "
        f"{vectors.collection_name('episode', 'alice')} belongs to another user); will retry")


def test_a_batch_within_the_batch_size_is_taken_whole(rows: SQLiteStore, vectors: VectorIndex, indexer: Indexer, hijack: Any,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    hijack("episode", "alice")
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.engine.indexer"):
        indexer.submit("episodes", [("ae1", "alice"), ("ae2", "alice")])
        indexer.wait("alice", timeout=0.3)
    assert caplog.records[0].getMessage().startswith("nova-memory indexer: batch of 2 failed")


def test_a_failed_batch_is_retried_until_it_succeeds(rows: SQLiteStore, indexer: Indexer, hijack: Any,
                                                     vectors: VectorIndex) -> None:
    hijack("episode", "alice")
    indexer.submit("episodes", [("ae1", "alice")])
    indexer.wait("alice", timeout=0.3)
    release(vectors, "episode", "alice")
    assert indexer.wait("alice", timeout=30) is True


def test_success_clears_the_last_error(rows: SQLiteStore, indexer: Indexer, hijack: Any, vectors: VectorIndex) -> None:
    hijack("episode", "alice")
    indexer.submit("episodes", [("ae1", "alice")])
    indexer.wait("alice", timeout=0.3)
    release(vectors, "episode", "alice")
    indexer.wait("alice", timeout=30)
    assert indexer.last_error is None


def test_other_users_are_indexed_while_one_fails(rows: SQLiteStore, indexer: Indexer, hijack: Any, vectors: VectorIndex) -> None:
    hijack("rule", "alice")
    indexer.submit("rules", [("ar1", "alice")])
    indexer.submit("episodes", [("be1", "bob")])
    assert indexer.wait("bob", timeout=0.2) is False  # one worker, one failing batch first: bob waits too


def test_a_fact_expired_while_it_is_embedded_stays_out(rows: SQLiteStore, indexer: Indexer, embedder: CachedEmbedder,
                                                       vectors: VectorIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    real = embedder.embed_cached

    def expire_meanwhile(texts: list[str], *, remember: bool = True) -> list[list[float]]:
        rows.expire_fact("alice", "af1", T0.timestamp())  # the fact ends between embedding and writing
        return real(texts, remember=remember)

    monkeypatch.setattr(embedder, "embed_cached", expire_meanwhile)
    indexer.submit("facts", [("af1", "alice")])
    indexer.wait(timeout=30)
    assert stored(vectors, "fact", "alice") == {}


def test_a_failure_after_a_success_is_retried(rows: SQLiteStore, indexer: Indexer, hijack: Any,
                                              vectors: VectorIndex) -> None:
    indexer.submit("episodes", [("be1", "bob")])
    indexer.wait("bob", timeout=30)  # a success first
    hijack("episode", "alice")
    indexer.submit("episodes", [("ae1", "alice")])
    indexer.wait("alice", timeout=0.3)
    release(vectors, "episode", "alice")
    assert indexer.wait("alice", timeout=30) is True


def test_pending_ids_between_batches_is_empty(rows: SQLiteStore, indexer: Indexer) -> None:
    indexer.submit("episodes", [("ae1", "alice")])
    indexer.wait(timeout=30)
    assert indexer.pending_ids("alice", "episodes") == []


# -- the worker thread, the barrier, the embedder's cache ------------------------------------------------------------


def test_a_new_indexer_has_no_error(db: SQLiteStore, vectors: VectorIndex, embedder: CachedEmbedder) -> None:
    assert Indexer(db, vectors, embedder).last_error is None


def test_the_worker_is_a_named_daemon_thread(rows: SQLiteStore, indexer: Indexer) -> None:
    indexer.submit("episodes", [("ae1", "alice")])
    thread = indexer._thread
    assert thread is not None and (thread.name, thread.daemon) == ("nova-memory-indexer", True)


def test_wait_returns_soon_after_its_timeout(stopped: Indexer) -> None:
    start = time.monotonic()
    stopped.wait("alice", timeout=0.05)
    assert time.monotonic() - start < 0.9  # not after a 1 s poll


def test_stop_gives_up_draining_after_its_timeout(rows: SQLiteStore, indexer: Indexer, hijack: Any) -> None:
    hijack("episode", "alice")  # never drains
    indexer.submit("episodes", [("ae1", "alice")])
    start = time.monotonic()
    indexer.stop(timeout=0.3)
    assert time.monotonic() - start < 5


def test_indexing_does_not_grow_the_embedders_cache(rows: SQLiteStore, indexer: Indexer,
                                                    embedder: CachedEmbedder) -> None:
    indexer.submit("rules", [("ar1", "alice")])
    indexer.wait(timeout=30)
    assert embedder.cached(["condition ar1"]) == {}


def test_a_users_barrier_holds_the_indexers_writes(rows: SQLiteStore, indexer: Indexer) -> None:
    with indexer.barrier("alice"):  # as an erasure of alice does
        indexer.submit("episodes", [("ae1", "alice")])
        assert indexer.wait("alice", timeout=1) is False


def test_another_users_barrier_does_not_hold_the_writes(rows: SQLiteStore, indexer: Indexer) -> None:
    with indexer.barrier("bob"):
        indexer.submit("episodes", [("ae1", "alice")])
        assert indexer.wait("alice", timeout=10) is True


def test_a_failing_batch_stays_pending_in_order_throughout(rows: SQLiteStore, indexer: Indexer, hijack: Any) -> None:
    hijack("episode", "alice")
    indexer.submit("episodes", [("ae1", "alice"), ("ae2", "alice")])
    deadline = time.monotonic() + 10
    while indexer.last_error is None and time.monotonic() < deadline:  # failed once, now retrying
        time.sleep(0.005)
    seen = set()
    end = time.monotonic() + 0.6  # spans back-offs (0.2 s, 0.4 s) and retries
    while time.monotonic() < end:
        seen.add(tuple(indexer.pending_ids("alice", "episodes")))
        time.sleep(0.002)
    assert seen == {("ae1", "ae2")}


# -- a run of failures: one warning, the count reported on recovery ----------------------------------------------------

RETRY = "will retry"
LOG = "nova_memory_integrations.engine.indexer"


def retries(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in list(caplog.records) if r.name == LOG and r.getMessage().endswith(RETRY)]


def fail_twice(indexer: Indexer, hijack: Any, caplog: pytest.LogCaptureFixture) -> None:
    """Make alice's batch fail at least twice (the second attempt comes after a 0.2 s back-off)."""
    hijack("episode", "alice")
    indexer.submit("episodes", [("ae1", "alice")])
    deadline = time.monotonic() + 10
    while len(retries(caplog)) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)


def test_a_run_of_failures_is_warned_about_once(rows: SQLiteStore, indexer: Indexer, hijack: Any,
                                                caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger=LOG):
        fail_twice(indexer, hijack, caplog)
        levels = [r.levelname for r in retries(caplog)][:2]
    assert levels == ["WARNING", "DEBUG"]


def test_recovery_reports_the_number_of_failed_attempts(rows: SQLiteStore, indexer: Indexer, hijack: Any,
                                                        vectors: VectorIndex,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger=LOG):
        fail_twice(indexer, hijack, caplog)
        release(vectors, "episode", "alice")
        indexer.wait("alice", timeout=30)
    recovered = [r.getMessage() for r in caplog.records if r.name == LOG and r.levelno == logging.INFO]
    assert recovered == [f"nova-memory indexer: indexing again after {len(retries(caplog))} failed attempt(s)"]


def first_back_off(indexer: Indexer, hijack: Any, caplog: pytest.LogCaptureFixture) -> float:
    """Seconds between the first and the second failed attempt of a batch."""
    with caplog.at_level(logging.DEBUG, logger=LOG):
        fail_twice(indexer, hijack, caplog)
    first, second = [r.created for r in retries(caplog)][:2]
    return second - first


def test_a_failed_batch_is_not_retried_before_its_back_off(rows: SQLiteStore, indexer: Indexer, hijack: Any,
                                                           caplog: pytest.LogCaptureFixture) -> None:
    assert first_back_off(indexer, hijack, caplog) >= 0.18  # 0.2 s: a down Chroma is not hammered


def test_the_first_back_off_is_short(rows: SQLiteStore, indexer: Indexer, hijack: Any,
                                     caplog: pytest.LogCaptureFixture) -> None:
    assert first_back_off(indexer, hijack, caplog) < 1.5  # 0.2 s, doubling from there


def test_indexing_without_failures_reports_no_recovery(rows: SQLiteStore, indexer: Indexer,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger=LOG):
        for eid in ("ae1", "ae2"):  # two batches, one after the other
            indexer.submit("episodes", [(eid, "alice")])
            indexer.wait("alice", timeout=30)
    assert [r.getMessage() for r in caplog.records if r.name == LOG] == []


def test_pending_ids_of_rows_queued_after_a_batch(rows: SQLiteStore, db: SQLiteStore, vectors: VectorIndex,
                                                  embedder: CachedEmbedder) -> None:
    ix = Indexer(db, vectors, embedder, max_wait_ms=1)
    ix.submit("episodes", [("ae1", "alice")])
    ix.wait(timeout=30)
    ix.stop()  # the worker ends after its batch: what is submitted now stays queued
    ix.submit("episodes", [("ae2", "alice")])
    assert ix.pending_ids("alice", "episodes") == ["ae2"]


def test_pending_counts_down_one_per_row_indexed(rows: SQLiteStore, db: SQLiteStore, indexer: Indexer,
                                                 embedder: CachedEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    db.insert_episodes([episode(f"x{n}") for n in range(3)])
    real = embedder.embed_cached
    seen: list[int] = []

    def count_then_embed(texts: list[str], *, remember: bool = True) -> list[list[float]]:
        seen.append(indexer.pending("alice"))  # rows of alice not indexed yet, at each batch
        return real(texts, remember=remember)

    monkeypatch.setattr(embedder, "embed_cached", count_then_embed)
    indexer.submit("episodes", [("ae1", "alice"), ("ae2", "alice"), ("x0", "alice"), ("x1", "alice"),
                                ("x2", "alice")])  # a backlog batch of 4, then 1
    indexer.wait("alice", timeout=30)
    assert seen == [5, 1]


def test_an_expired_fact_is_never_embedded(rows: SQLiteStore, indexer: Indexer, embedder: CachedEmbedder,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    real = embedder.embed_cached
    embedded: list[str] = []

    def record(texts: list[str], *, remember: bool = True) -> list[list[float]]:
        embedded.extend(texts)
        return real(texts, remember=remember)

    monkeypatch.setattr(embedder, "embed_cached", record)
    indexer.submit("facts", [("af1", "alice"), ("af2", "alice")])
    indexer.wait(timeout=30)
    assert embedded == ["user likes obj af1"]


# -- the worker's batches and its one thread ----------------------------------------------------------------------------


def batches_of(embedder: CachedEmbedder, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The texts of each batch the indexer embeds, recorded as they come."""
    real = embedder.embed_cached
    batches: list[list[str]] = []

    def record(texts: list[str], *, remember: bool = True) -> list[list[float]]:
        batches.append(list(texts))
        return real(texts, remember=remember)

    monkeypatch.setattr(embedder, "embed_cached", record)
    return batches


def test_one_worker_thread_at_a_time(rows: SQLiteStore, indexer: Indexer) -> None:
    before = indexer_threads()
    indexer.submit("episodes", [("ae1", "alice")])
    indexer.submit("episodes", [("ae2", "alice")])  # the worker is alive: no second one
    indexer.wait(timeout=30)
    assert indexer_threads() - before == 1


def test_the_worker_waits_for_more_work(rows: SQLiteStore, indexer: Indexer) -> None:
    indexer.submit("episodes", [("ae1", "alice")])
    indexer.wait(timeout=30)
    first = indexer._thread
    time.sleep(0.05)  # idle
    indexer.submit("episodes", [("ae2", "alice")])
    indexer.wait(timeout=30)
    assert indexer._thread is first


def test_a_burst_is_indexed_in_one_batch(rows: SQLiteStore, db: SQLiteStore, vectors: VectorIndex,
                                         embedder: CachedEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    batches = batches_of(embedder, monkeypatch)
    ix = Indexer(db, vectors, embedder, max_wait_ms=900)  # the worker lets a burst accumulate for 0.9 s
    ix.submit("episodes", [("ae1", "alice")])
    time.sleep(0.05)
    ix.submit("episodes", [("ae2", "alice")])
    ix.stop()
    assert batches == [["content of ae1", "content of ae2"]]


def test_a_full_batch_is_taken_at_once(rows: SQLiteStore, db: SQLiteStore, vectors: VectorIndex,
                                       embedder: CachedEmbedder) -> None:
    ix = Indexer(db, vectors, embedder, batch_size=2, max_wait_ms=5000)
    start = time.monotonic()
    ix.submit("episodes", [("ae1", "alice"), ("ae2", "alice")])  # a whole batch: no burst wait
    ix.wait(timeout=30)
    elapsed = time.monotonic() - start
    ix.stop()
    assert elapsed < 2.5


def test_stop_gives_up_on_a_worker_stuck_in_a_call(rows: SQLiteStore, db: SQLiteStore, vectors: VectorIndex,
                                                   embedder: CachedEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    real = embedder.embed_cached
    started = threading.Event()

    def slow(texts: list[str], *, remember: bool = True) -> list[list[float]]:
        started.set()
        time.sleep(4)  # an embedding (or Chroma) call that takes far longer than the stop's timeout
        return real(texts, remember=remember)

    monkeypatch.setattr(embedder, "embed_cached", slow)
    ix = Indexer(db, vectors, embedder, max_wait_ms=1)
    ix.submit("episodes", [("ae1", "alice")])
    started.wait(10)
    start = time.monotonic()
    ix.stop(timeout=0.2)  # waits 0.2 s for the queue, then 0.2 s for the thread
    assert time.monotonic() - start < 2.5


# -- a worker that dies: ``wait`` starts another --------------------------------------------------------------------


class WorkerDeath(BaseException):
    """Not an ``Exception``: ``_run``'s ``except Exception`` lets it through, so the worker thread dies (as it
    would of any fault outside the batch's ``try``)."""


def die_once(embedder: CachedEmbedder, monkeypatch: pytest.MonkeyPatch, after: float = 0.0) -> None:
    """The first embedding call kills the worker thread (``after`` seconds into it); later calls embed."""
    real = embedder.embed_cached
    calls: list[int] = []

    def embed(texts: list[str], *, remember: bool = True) -> list[list[float]]:
        calls.append(len(texts))
        if len(calls) == 1:
            time.sleep(after)
            raise WorkerDeath
        return real(texts, remember=remember)

    monkeypatch.setattr(embedder, "embed_cached", embed)


def kill_the_first_worker(ix: Indexer, embedder: CachedEmbedder, monkeypatch: pytest.MonkeyPatch,
                          rows: list[tuple[str, str]]) -> None:
    """Submit ``rows`` and wait until the worker has died on the first batch (see :func:`die_once`)."""
    die_once(embedder, monkeypatch)
    ix.submit("episodes", rows)
    first = ix._thread
    if first is not None:
        first.join(10)


@pytest.fixture()
def one_row_batches(rows: SQLiteStore, db: SQLiteStore, vectors: VectorIndex,
                    embedder: CachedEmbedder) -> Iterator[Indexer]:
    """An indexer taking one row per batch: of alice's ae1 and bob's be1, only ae1 is in the first batch."""
    ix = Indexer(db, vectors, embedder, batch_size=1, max_batch_size=1, max_wait_ms=1)
    yield ix
    ix.stop(timeout=10)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_wait_restarts_a_worker_that_died(one_row_batches: Indexer, embedder: CachedEmbedder,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    kill_the_first_worker(one_row_batches, embedder, monkeypatch, [("ae1", "alice"), ("be1", "bob")])
    assert one_row_batches.wait("bob", timeout=10) is True  # be1 was still queued


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_wait_without_a_timeout_notices_the_worker_dying(one_row_batches: Indexer, embedder: CachedEmbedder,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    die_once(embedder, monkeypatch, after=0.2)  # the worker dies while the wait below is blocked
    one_row_batches.submit("episodes", [("ae1", "alice"), ("be1", "bob")])
    done: list[bool] = []
    waiter = threading.Thread(target=lambda: done.append(one_row_batches.wait("bob")), daemon=True)
    waiter.start()
    waiter.join(10)  # nothing notifies a death: the wait's 1 s poll finds the dead worker and starts another
    assert done == [True]


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_batch_a_worker_died_in_is_indexed_by_the_next(one_row_batches: Indexer, embedder: CachedEmbedder,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    kill_the_first_worker(one_row_batches, embedder, monkeypatch, [("ae1", "alice"), ("be1", "bob")])
    assert one_row_batches.wait("alice", timeout=10) is True  # ae1's batch went back to the queue


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_the_rows_a_worker_died_on_are_served_as_pending(one_row_batches: Indexer, embedder: CachedEmbedder,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    kill_the_first_worker(one_row_batches, embedder, monkeypatch, [("ae1", "alice")])
    assert one_row_batches.pending_ids("alice", "episodes") == ["ae1"]


# -- exit and fork (``_threads``) ----------------------------------------------------------------------------------


def test_a_stop_without_drain_leaves_the_rows_queued_and_unindexed(rows: SQLiteStore, db: SQLiteStore,
                                                                    vectors: VectorIndex,
                                                                    embedder: CachedEmbedder) -> None:
    ix = Indexer(db, vectors, embedder, max_wait_ms=5000)  # the burst wait keeps the row queued
    ix.submit("episodes", [("ae1", "alice")])
    t0 = time.monotonic()
    ix.stop(timeout=5, drain=False)
    assert time.monotonic() - t0 < 2.5
    assert ix.pending("alice") == 1 and "ae1" in {i for i, _ in db.unindexed_ids("episodes")}
    assert ix.wait("alice", timeout=5) is False  # stopped: no worker is started again


def test_after_a_fork_the_rows_the_parents_worker_held_are_indexed(rows: SQLiteStore, indexer: Indexer,
                                                                    vectors: VectorIndex) -> None:
    with indexer._cond:  # as a fork copies it: the parent's worker had taken ae1 (pending, in flight)
        indexer._in_flight = [("episodes", "ae1", "alice")]
        indexer._pending_users["alice"] += 1
    indexer._after_fork()
    assert indexer.pending_ids("alice", "episodes") == ["ae1"]
    assert indexer.wait("alice", timeout=30) is True
    assert set(stored(vectors, "episode", "alice")) == {"ae1"}


def test_a_batch_cut_short_by_the_stop_is_no_failure(rows: SQLiteStore, db: SQLiteStore, vectors: VectorIndex,
                                                     embedder: CachedEmbedder, monkeypatch: pytest.MonkeyPatch,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    started = threading.Event()

    def cut(texts: list[str], *, remember: bool = True) -> list[list[float]]:
        started.set()
        time.sleep(0.3)
        raise RuntimeError("the interpreter is exiting")

    monkeypatch.setattr(embedder, "embed_cached", cut)
    ix = Indexer(db, vectors, embedder, max_wait_ms=1, sentences=None)
    ix.submit("facts", [("af1", "alice")])
    assert started.wait(10)
    with caplog.at_level(logging.WARNING):
        ix.stop(timeout=5, drain=False)
    assert ix.pending("alice") == 1 and ix.last_error is None and not caplog.records


def test_an_index_behind_for_too_long_stops_giving_way_to_reads(rows: SQLiteStore, db: SQLiteStore,
                                                                 vectors: VectorIndex, embedder: CachedEmbedder,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from nova_memory_integrations import _threads
    from nova_memory_integrations.engine import indexer as indexer_module

    seen: list[bool] = []
    ix = Indexer(db, vectors, embedder, max_wait_ms=1)
    real = ix._index
    monkeypatch.setattr(ix, "_index", lambda batch: (seen.append(_threads.throttled()), real(batch)))
    ix.submit("episodes", [("ae1", "alice")])
    assert ix.wait(timeout=30)
    assert ix._behind_since is None  # caught up
    monkeypatch.setattr(indexer_module, "CATCH_UP_S", 0.0)
    ix.submit("episodes", [("ae2", "alice")])
    assert ix.wait(timeout=30)
    ix.stop(timeout=5)
    assert seen == [True, False]
