"""Background embedder: moves new rows from SQLite into the Chroma index in batches.

``add_turn`` writes the episode to SQLite (durable) and hands its id to the indexer; a
single worker thread embeds queued rows in batches and upserts them into Chroma. Readers
that must see the index in sync (delete, forget) call :meth:`Indexer.wait` for that user;
reads never wait, they ask :meth:`Indexer.pending_ids` which of the user's rows are not
in the index yet and serve those from SQLite. Rows that
were never indexed (a crash, an embedding failure) are found again through the
``indexed`` flag in SQLite, so the index always converges to the system of record.

The worker is a :class:`~nova_memory_integrations._threads.BackgroundWorker` (its debounce is
``max_wait_ms``, the time a burst may accumulate): it stops after the stores' other jobs at
interpreter exit, and starts again after a ``fork``. Reads come first: while a read is in
flight (``_threads.reading``) the worker takes batches of ``batch_size`` rows, not
``max_batch_size``, embeds them on at most half of one core (``_threads.background_step``) and
writes their vectors in small writes, each after the reads in flight (bounded), so that no
Chroma write, which holds the GIL throughout, holds a read up for long. Once the index has
been behind for :data:`CATCH_UP_S` without a break, it stops giving way until it has caught up.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Literal

import numpy as np

from .. import _tracing
from .._threads import (
    INDEXING,
    BackgroundWorker,
    exiting,
    reads_in_flight,
    throttled,
    track,
    unthrottled,
    yield_to_reads,
)
from ..embeddings.base import CachedEmbedder, embedding_space
from ..storage.sqlite import SQLiteStore
from ..storage.vectors import VectorIndex, VectorKind

if TYPE_CHECKING:
    from opentelemetry.trace import Link, SpanContext

__all__ = ["INDEX_WAIT_S", "TABLES", "Indexer", "Table"]

logger = logging.getLogger(__name__)

Table = Literal["episodes", "facts", "rules"]
_KIND: dict[Table, VectorKind] = {"episodes": "episode", "facts": "fact", "rules": "rule"}
TABLES: dict[VectorKind, Table] = {kind: table for table, kind in _KIND.items()}
"""The SQLite table of each vector kind's rows."""
_MAX_BACKOFF_S = 30.0
INDEX_WAIT_S = 30.0
"""How long a call that must see a user's index in sync (delete, forget, export) waits for it.

Reads never wait: rows still queued are served from SQLite (see :meth:`Indexer.pending_ids`)."""
WRITE_ROWS_UNDER_READS = 32
"""Rows per vector write while reads are in flight (see :func:`_writes`)."""
CATCH_UP_S = 30.0
"""Once the index has been behind this long without a break, the worker stops giving way to
reads until it has caught up: reads slow indexing down, they never starve it."""
SPACE_KEY = "embedding_space"
"""``meta`` key: the vector space (:func:`.embeddings.embedding_space`) of the indexed vectors."""


class Indexer:
    """One worker thread per store; thread-safe ``submit`` / ``wait``."""

    def __init__(
        self,
        db: SQLiteStore,
        vectors: VectorIndex,
        embedder: CachedEmbedder,
        *,
        batch_size: int = 128,
        max_batch_size: int = 1024,
        max_wait_ms: int = 25,
        sentences: Callable[[str], Sequence[str]] | None = None,
        sweep_s: float | None = None,
    ) -> None:
        self.db = db
        self.sweep_s = sweep_s
        """With other processes on the same database (Postgres): how often the worker looks for rows
        nobody has indexed (a peer that died mid-batch) and queues them; ``None``: never (SQLite's
        rows are all this process's, recovered when the store opens)."""
        self._next_sweep = 0.0
        self.sentences = sentences
        """Splits an episode into the sentences whose vectors are kept beside its own (turns of
        two sentences or more; ``None``: none are kept)."""
        self.vectors = vectors
        self.embedder = embedder
        self.batch_size = batch_size
        self.max_batch_size = max(batch_size, max_batch_size)
        self.max_wait = max_wait_ms / 1000
        self._queue: deque[tuple[Table, str, str]] = deque()
        self._pending_users: Counter[str] = Counter()
        self._cond = threading.Condition()
        self._stopping = False
        self._in_flight: list[tuple[Table, str, str]] = []
        self._user_locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._failures = 0
        self.last_error: str | None = None
        self._links: dict[str, SpanContext] = {}  # row id -> the recorded span that queued it
        self._behind_since: float | None = None  # since when rows have been waiting without a break
        self._worker = BackgroundWorker(self._drain, interval=sweep_s or math.inf, debounce=self.max_wait,
                                        name="indexer",
                                        final_pass=False, exit_rank=INDEXING)
        track(self, rank=INDEXING, after_fork=Indexer._after_fork)

    @property
    def _thread(self) -> threading.Thread | None:
        """The worker's thread (the last one started)."""
        return self._worker._thread

    # -- which embedder made the vectors --------------------------------------------------
    def space_matches(self) -> bool:
        """Whether the index holds this embedder's vectors; logs a warning when it does not.

        A data directory remembers the embedding space of its vectors (recorded by the migration
        ``adopt_embedding_space`` when first opened, and by :meth:`adopt_space`). Opening it with an embedder of
        another space (another model) would compare vectors of different spaces, or fail
        on a different dimension, until the index is rebuilt.
        """
        current = embedding_space(self.embedder)
        recorded = self.db.get_meta(SPACE_KEY)
        if recorded is None or recorded == current:  # None: nothing recorded yet (see engine/migrations)
            return True
        logger.warning(
            "nova-memory: the vectors of this store were made by %r but it now embeds with %r: dense search "
            "will be poor (or fail on a dimension mismatch) until NovaStore.reindex() / `nova-memory reindex` "
            "rebuilds them (or set embeddings.on_model_change = \"reindex\")", recorded, current,
        )
        return False

    def adopt_space(self) -> None:
        """Record this embedder's space as the index's (after a rebuild)."""
        self.db.set_meta(SPACE_KEY, embedding_space(self.embedder))

    # -- producer side ------------------------------------------------------------------
    def submit(self, table: Table, items: Iterable[tuple[str, str]]) -> None:
        """Queue ``(row_id, user_id)`` pairs for (re)indexing or removal."""
        with self._cond:
            if not self._queue and not self._in_flight:
                self._behind_since = time.monotonic()
            n = 0
            link = _tracing.current_link()  # the batch that indexes these rows links to the span that queued them
            for row_id, user_id in items:
                self._queue.append((table, row_id, user_id))
                if link is not None:
                    self._links[row_id] = link
                self._pending_users[user_id] += 1
                n += 1
            if not n:
                return
            full = len(self._queue) >= self.batch_size  # a whole batch: no burst wait
            depth = len(self._queue)
            self._cond.notify_all()
        _tracing.instruments().queue_depth.set(depth)
        self._ensure_thread(now=full)

    def recover(self) -> int:
        """Queue every row SQLite marks as not indexed (after a crash or reindex); with ``sweep_s``,
        the worker starts, to sweep again every ``sweep_s`` seconds."""
        total = 0
        for table in ("episodes", "facts", "rules"):
            rows = self.db.unindexed_ids(table)
            self.submit(table, rows)  # type: ignore[arg-type]
            total += len(rows)
        if self.sweep_s is not None:
            self._next_sweep = time.monotonic() + self.sweep_s
            self._ensure_thread()
        return total

    def _sweep(self) -> None:
        """Queue the rows not indexed that this process has not queued (every ``sweep_s``): those a
        peer process left when it died, or has not claimed yet (a claim decides who embeds a row)."""
        now = time.monotonic()
        if self.sweep_s is None or now < self._next_sweep or self._stopping:
            return
        self._next_sweep = now + self.sweep_s
        with self._cond:
            known = {(t, i) for t, i, _ in [*self._queue, *self._in_flight]}
        try:
            for table in ("episodes", "facts", "rules"):
                rows = [(i, u) for i, u in self.db.unindexed_ids(table) if (table, i) not in known]
                self.submit(table, rows)  # type: ignore[arg-type]
        except Exception as exc:  # the database is down: the next sweep tries again
            logger.debug("nova-memory indexer: sweep failed: %s", exc)

    def pending(self, user_id: str | None = None) -> int:
        """Rows still waiting to be indexed (for one user, or all)."""
        with self._cond:
            return sum(self._pending_users.values()) if user_id is None else self._pending_users[user_id]

    def pending_ids(self, user_id: str, table: Table) -> list[str]:
        """Ids of the user's ``table`` rows queued or being indexed, oldest first.

        A read serves these from SQLite instead of waiting for them to reach the vector
        index; cheap (no I/O) and never blocks on the worker's embedding.
        """
        with self._cond:
            if not self._pending_users[user_id]:
                return []
            rows = [*self._in_flight, *self._queue]
        return list(dict.fromkeys(i for t, i, u in rows if u == user_id and t == table))

    def wait(self, user_id: str | None = None, timeout: float | None = None) -> bool:
        """Block until the user's (or every) queued row is indexed; False on timeout."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                busy = sum(self._pending_users.values()) if user_id is None else self._pending_users[user_id]
                if busy == 0:
                    return True
                if not self._worker.running:  # never started, died, or left behind by a fork
                    if self._stopping or exiting():  # none will start again
                        return False
                    self._ensure_thread(now=True)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                self._cond.wait(timeout=remaining if remaining is not None else 1.0)

    def stop(self, timeout: float = 30.0, *, drain: bool = True) -> None:
        """Drain the queue (up to ``timeout``; not when not ``drain``) and stop the worker (after
        its current batch, which goes back to the queue if it cannot finish)."""
        if drain:
            self.wait(timeout=timeout)
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._worker.stop(timeout)

    # -- worker side ----------------------------------------------------------------------
    def _ensure_thread(self, *, now: bool = False) -> None:
        if self._stopping:
            return
        self._worker.start()  # idempotent; restarts a thread that died or that a fork left behind
        self._worker.poke(now=now or self.max_wait <= 0)

    def _after_fork(self) -> None:
        """In a forked child: the parent's worker thread is not here; what it had taken is queued again."""
        self._cond = threading.Condition()
        self._locks_guard = threading.Lock()
        self._user_locks = {}
        if self._in_flight:
            self._queue.extendleft(reversed(self._in_flight))
            self._in_flight = []

    def _take_batch(self) -> list[tuple[Table, str, str]] | None:
        with self._cond:
            if not self._queue or self._stopping:
                return None
            # a backlog: take more, so that each user's rows reach Chroma in fewer calls, unless
            # reads are in flight (a smaller batch holds no read up for long)
            size = self.max_batch_size if len(self._queue) > self.batch_size and not (
                reads_in_flight() and throttled()) else self.batch_size
            self._in_flight = [self._queue.popleft() for _ in range(min(size, len(self._queue)))]
            return list(self._in_flight)

    def _drain(self) -> None:
        """The worker's job: index queued batches until the queue is empty or the worker stops."""
        self._sweep()
        while not self._worker.stopping:
            batch = self._take_batch()
            if batch is None or not self._index_batch(batch):
                return

    def _index_batch(self, batch: list[tuple[Table, str, str]]) -> bool:
        """Index one batch; False when the worker is to stop (the batch is queued again)."""
        behind = self._behind_since is not None and time.monotonic() - self._behind_since > CATCH_UP_S
        try:
            if self._failures:
                self.vectors.ping()  # still down: no embedding wasted on the retry
            with unthrottled() if behind else nullcontext(), _tracing.span(
                    "nova_memory.index.batch", lambda: {"nova_memory.rows": len(batch)}, links=self._linked(batch)):
                self._index(batch)
        except Exception as exc:
            return self._retry_later(batch, exc)
        except BaseException:  # the worker dies (SystemExit ...): its batch goes back first, for the
            self._requeue(batch)  # worker `wait` or `submit` start next, or `recover` at the next open
            raise
        if self._failures:
            logger.info("nova-memory indexer: indexing again after %d failed attempt(s)", self._failures)
        self._failures = 0
        self.last_error = None
        with self._cond:
            self._in_flight = []
            for _, _, user_id in batch:
                self._pending_users[user_id] -= 1
                if self._pending_users[user_id] <= 0:
                    del self._pending_users[user_id]
            if not self._queue:
                self._behind_since = None
            depth, since = len(self._queue), self._behind_since
            self._cond.notify_all()
        measure = _tracing.instruments()
        measure.queue_depth.set(depth)
        measure.index_lag.set(0.0 if since is None else time.monotonic() - since)
        return True

    def _linked(self, batch: list[tuple[Table, str, str]]) -> list[Link]:
        """Links to the spans that queued ``batch``'s rows (forgotten here: one batch links them)."""
        with self._cond:
            found = [self._links.pop(row_id, None) for _, row_id, _ in batch] if self._links else []
        return _tracing.links(found)

    def _requeue(self, batch: list[tuple[Table, str, str]]) -> None:
        with self._cond:
            self._in_flight = []
            self._queue.extendleft(reversed(batch))

    def _retry_later(self, batch: list[tuple[Table, str, str]], exc: Exception) -> bool:
        """Put a failed batch back at the head of the queue (its rows stay unindexed in SQLite)
        and back off (doubling, capped at :data:`_MAX_BACKOFF_S`; new work does not cut it short).

        One warning per run of failures. Returns False when the store is stopping: the rows
        stay queued, and unindexed in SQLite for :meth:`recover` on the next open (a batch cut
        short by the stop itself, e.g. at interpreter exit, is no failure and logs nothing).
        """
        self._requeue(batch)
        if self._stopping or self._worker.stopping or exiting():
            return False
        self._failures += 1
        self.last_error = f"{type(exc).__name__}: {exc}"
        log = logger.warning if self._failures == 1 else logger.debug
        log("nova-memory indexer: batch of %d failed (%s); will retry", len(batch), exc)
        return self._worker.sleep(min(_MAX_BACKOFF_S, 0.1 * 2 ** min(self._failures, 16)))

    def _index(self, batch: list[tuple[Table, str, str]]) -> None:
        by_table: dict[Table, dict[str, str]] = {}  # row id -> user id (unique: Chroma rejects duplicate ids)
        for table, row_id, user_id in batch:
            by_table.setdefault(table, {})[row_id] = user_id
        for table, submitted in by_table.items():
            with self.db.claim_rows(table, list(submitted)) as claimed:  # Postgres: rows no peer is indexing
                self._index_rows(table, {i: submitted[i] for i in claimed})

    def _index_rows(self, table: Table, owners: dict[str, str]) -> None:
        """Index (or drop from the index) the rows ``owners`` names (row id -> user id) of one table."""
        if not owners:
            return
        rows = {r["id"]: r for r in self.db.rows_by_id(table, list(owners))}
        kind = _KIND[table]
        gone = [i for i in owners if i not in rows or (table == "facts" and rows[i]["expired_at"] is not None)]
        live = [rows[i] for i in owners if i in rows and i not in gone]
        if gone:
            gone_by_user: dict[str, list[str]] = {}
            for i in gone:
                gone_by_user.setdefault(owners[i], []).append(i)
            for user_id, user_gone in gone_by_user.items():
                self.vectors.delete(kind, user_gone, user_id=user_id)
            expired = [i for i in gone if i in rows]  # kept in SQLite as history, out of the index
            if expired:
                self.db.mark_indexed(table, expired)
        if live:
            texts = [_text(table, r) for r in live]
            per_sentence: list[np.ndarray | None] | None = None
            if table == "episodes" and self.sentences is not None:  # the sentences' vectors too
                vectors, per_sentence = self.embedder.embed_with_sentences(
                    texts, [self.sentences(t) for t in texts])
            else:
                vectors = self.embedder.embed_cached(texts, remember=False)  # a read may have embedded the newest
            by_user: dict[str, list[int]] = {}
            for n, r in enumerate(live):
                by_user.setdefault(str(r["user_id"]), []).append(n)
            for user_id, rows_of_user in by_user.items():
                for chunk in _writes(rows_of_user):
                    with self.barrier(user_id):  # rows erased while we embedded stay out of the index
                        kept = self._still_live(table, [live[n]["id"] for n in chunk])
                        keep = [n for n in chunk if live[n]["id"] in kept]
                        if keep:
                            ids, vecs = [live[n]["id"] for n in keep], [vectors[n] for n in keep]
                            self.vectors.upsert(kind, ids, vecs, [_meta(table, live[n]) for n in keep])
                            if table == "episodes":  # with a copy of each vector beside the row, for recall
                                self.db.mark_episodes_indexed(
                                    ids, vecs, None if per_sentence is None else [per_sentence[n] for n in keep])
                            else:
                                self.db.mark_indexed(table, ids)

    def _still_live(self, table: Table, ids: list[str]) -> set[str]:
        """Which of these rows still exist (and, for facts, are not expired) in SQLite (on Postgres,
        held so until the batch commits: :meth:`~..storage.postgres.PostgresStore.live_ids`)."""
        return self.db.live_ids(table, ids)

    @contextmanager
    def barrier(self, user_id: str) -> Iterator[None]:
        """Hold off the indexer's writes for ``user_id`` (erasure runs inside this).

        The indexer re-checks its rows in SQLite and writes their vectors inside the same
        barrier, so an erase that holds it is never outrun: a row embedded before the
        erase and written after it finds its row gone and is skipped.
        """
        with self._locks_guard:
            lock = self._user_locks.setdefault(user_id, threading.Lock())
        with lock:
            yield


def _writes(rows: list[int]) -> Iterator[list[int]]:
    """A user's rows of a batch in one write, or, while reads are in flight, in writes of at most
    :data:`WRITE_ROWS_UNDER_READS` rows, each after the reads in flight (bounded): a Chroma write
    holds the GIL throughout (~30 ms + ~1 ms a row on a busy machine), which every read waits out."""
    start = 0
    while start < len(rows):
        size = len(rows)
        if reads_in_flight() and throttled():
            yield_to_reads()
            size = WRITE_ROWS_UNDER_READS
        yield rows[start:start + size]
        start += size


def _text(table: Table, row: object) -> str:
    r = row  # sqlite3.Row
    if table == "episodes":
        return str(r["content"])  # type: ignore[index]
    if table == "facts":
        return str(r["text"])  # type: ignore[index]
    return str(r["condition"])  # type: ignore[index]


def _meta(table: Table, row: object) -> dict[str, str | int | float | bool]:
    """What the index keeps of a row besides its vector: the owner, and an episode's session (the one
    filter queries use). Never its text: SQLite holds that."""
    r = row
    meta: dict[str, str | int | float | bool] = {"user_id": r["user_id"]}  # type: ignore[index]
    if table == "episodes":
        meta["session_id"] = r["session_id"] or ""  # type: ignore[index]
    return meta
