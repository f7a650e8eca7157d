"""``forget`` and ``delete`` are barriers against writes that race them (issue #20).

Two threads add turns for a user while ``forget(user)`` runs. Every turn must end either
erased whole (added before the erase: no row, no vector, no byte of its text in SQLite)
or kept whole (added after: row and vector); no vector may outlive its row.
"""

from __future__ import annotations

import threading
import time

from nova_memory_integrations import NovaStore

TRIALS = 20
USER = "racer"


def _raw_sqlite(store: NovaStore) -> bytes:
    db = store.path / "nova.sqlite3"
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))


def _vector_ids(store: NovaStore, user: str) -> set[str]:
    return set(store.components.vectors.get_user_ids("episode", user))


def _row_ids(store: NovaStore, user: str) -> set[str]:
    return {e.id for e in store.episodes(user)}


def _race(store: NovaStore, trial: int) -> tuple[list[tuple[str, float]], float, float]:
    """Two writers add turns before, during and after a forget; returns (marker, added-at) per turn
    and the forget window."""
    done: list[tuple[str, float]] = []
    lock = threading.Lock()
    started, stop = threading.Event(), threading.Event()

    def write(w: int) -> None:
        n = 0
        while not stop.is_set() and n < 400:
            marker = f"zqx{trial}w{w}n{n}q"  # q ends it: n3 is no prefix of n30
            store.add_turn(USER, "user", f"note {marker} about the garden and the lake house")
            with lock:
                done.append((marker, time.monotonic()))
            n += 1
            if n == 30:
                started.set()

    writers = [threading.Thread(target=write, args=(w,)) for w in range(2)]
    for t in writers:
        t.start()
    started.wait(timeout=30)
    t0 = time.monotonic()
    store.forget(USER)
    t1 = time.monotonic()
    time.sleep(0.05)  # writers keep going a little after the erase
    stop.set()
    for t in writers:
        t.join()
    return done, t0, t1


def test_forget_racing_writers_leaves_no_orphan_vector_and_no_erased_text(store: NovaStore) -> None:
    orphans = 0
    unindexed = 0
    erased_left = 0
    erased_bytes = 0
    for trial in range(TRIALS):
        done, t0, _ = _race(store, trial)
        assert store.flush(timeout=60)
        rows, vectors = _row_ids(store, USER), _vector_ids(store, USER)
        orphans += len(vectors - rows)
        unindexed += len(rows - vectors)
        raw = _raw_sqlite(store)
        texts = {e.content for e in store.episodes(USER)}
        erased_left += sum(1 for marker, at in done if at < t0 and any(marker in text for text in texts))
        erased_bytes += sum(1 for marker, at in done if at < t0 and marker.encode() in raw)
        store.forget(USER)  # quiet erase before the next trial
    assert (orphans, unindexed, erased_left, erased_bytes) == (0, 0, 0, 0)


def test_after_a_quiet_forget_nothing_of_the_user_is_left(store: NovaStore) -> None:
    done, _, _ = _race(store, 0)
    store.flush(timeout=60)
    store.forget(USER)
    store.flush(timeout=60)
    left = (len(_row_ids(store, USER)), len(_vector_ids(store, USER)),
            sum(marker.encode() in _raw_sqlite(store) for marker, _ in done))
    assert left == (0, 0, 0)


def test_delete_racing_the_indexer_leaves_no_orphan_vector(store: NovaStore) -> None:
    orphans = 0
    for trial in range(5):
        episodes = store.add_turns([{"user_id": USER, "role": "user", "content": f"entry {trial}-{n} zqd{n}"}
                                    for n in range(60)])
        store.delete(USER, [e.id for e in episodes[::2]])  # races the indexer that is embedding them
        store.flush(timeout=60)
        orphans += len(_vector_ids(store, USER) - _row_ids(store, USER))
    assert orphans == 0

