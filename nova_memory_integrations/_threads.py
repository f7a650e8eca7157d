"""The package's background threads: one worker class, one pool class, their ordered stop at
interpreter exit and their reset in a forked child, and the priority of reads over background work.

Why an ordered stop. A thread still inside ONNX Runtime (or Chroma's Rust client) when the
interpreter finalises is ended by ``pthread_exit`` as soon as it takes the GIL back; that
forced unwind through ONNX Runtime's C++ frames aborts the process (``terminate called
without an active exception``, exit status 134). So every thread of the package belongs to an
object registered here with a *rank*, and :func:`stop_all`, run once by an ``atexit`` handler
(after the interpreter has joined the non-daemon threads, before it finalises anything), stops
and joins them in rank order: the stores' jobs (consolidation, lifecycle, checkpoints), then
their indexers, then the shared pools they use (embedding, recall), then the stores' storage
(SQLite, the directory lock). From then on nothing here starts a thread again, a pool runs
what it is given in the caller's thread, and an ONNX embedding stops at its next model run
(:func:`exiting`). Objects are held by weak references: registering keeps nothing alive.

Why a reset after ``fork``. A forked child has only the thread that forked; the locks and
queues the parent's workers held are copied as they were. :func:`os.register_at_fork` runs
each registered object's ``after_fork`` in the child, which drops the dead threads' state
(new locks, no thread, work the dead thread had taken handed back), so a worker starts again
on its next use instead of waiting forever on a thread that does not exist.

Reads first. :func:`reading` marks a read (a search, a recall) in flight in the process.
While one is, background model runs (:func:`background_step`: the indexer's ONNX batches) take
one slot, one core's worth, and rest as long as each run took, and background writes wait for
the reads in flight (:func:`yield_to_reads`, bounded): reads get the CPU and the GIL during an
import. Work that must catch up runs :func:`unthrottled`; a read's own work never waits.

A stdlib-only leaf: every layer may import it.
"""

from __future__ import annotations

import atexit
import itertools
import logging
import math
import os
import queue
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeVar

__all__ = [
    "INDEXING",
    "JOBS",
    "POOLS",
    "STORAGE",
    "BackgroundWorker",
    "Pool",
    "background_step",
    "exiting",
    "reading",
    "reads_in_flight",
    "stop_all",
    "throttled",
    "track",
    "unthrottled",
    "yield_to_reads",
]

logger = logging.getLogger("nova_memory_integrations")

T = TypeVar("T")
OwnerT = TypeVar("OwnerT")

JOBS = 0
"""Rank of jobs that feed others (consolidation, lifecycle, model consolidation, checkpoints)."""
INDEXING = 1
"""Rank of the indexers (they use the pools)."""
POOLS = 2
"""Rank of the shared thread pools (embedding, recall)."""
STORAGE = 3
"""Rank of what closes once every thread is gone (a store's SQLite and directory lock)."""
EXIT_TIMEOUT_S = 30.0
"""How long the exit waits for each thread (one model run or one write: far less in practice)."""

# -- the registry -----------------------------------------------------------------------------------
_registry_lock = threading.Lock()


class _Entry(NamedTuple):
    rank: int
    order: int
    ref: weakref.ref[Any]
    stop: Callable[[Any], object] | None
    after_fork: Callable[[Any], object] | None


_registry: list[_Entry] = []
_order = itertools.count()
_prune_at = 64
_exiting = False


def track(owner: OwnerT, *, rank: int, stop: Callable[[OwnerT], object] | None = None,
          after_fork: Callable[[OwnerT], object] | None = None) -> None:
    """Stop ``owner`` at interpreter exit (``stop(owner)``, in rank order, then registration order)
    and reset it in a forked child (``after_fork(owner)``). Holds ``owner`` weakly."""
    global _prune_at
    ref = weakref.ref(owner)
    with _registry_lock:
        if len(_registry) >= _prune_at:  # drop the dead now and then
            _registry[:] = [e for e in _registry if e.ref() is not None]
            _prune_at = max(64, 2 * len(_registry))
        _registry.append(_Entry(rank, next(_order), ref, stop, after_fork))


def _alive(*, fork: bool) -> list[tuple[Any, Callable[[Any], object]]]:
    """The live owners with their exit stop (or after-fork reset), in rank then registration order."""
    with _registry_lock:
        entries = sorted(_registry, key=lambda e: (e.rank, e.order))
    out = []
    for entry in entries:
        owner, action = entry.ref(), entry.after_fork if fork else entry.stop
        if owner is not None and action is not None:
            out.append((owner, action))
    return out


def exiting() -> bool:
    """Whether the interpreter is exiting (:func:`stop_all` has begun): start nothing new."""
    return _exiting


def stop_all() -> None:
    """Stop every registered object in rank order and join its threads (once; at exit)."""
    global _exiting
    if _exiting:
        return
    _exiting = True
    for owner, stop in _alive(fork=False):
        try:
            stop(owner)
        except Exception as exc:  # best effort: the next ones must still stop
            logger.debug("nova-memory: stopping %r at exit failed: %s", owner, exc)


def _after_fork_in_child() -> None:
    global _registry_lock, _reads_cond, _reads, _background
    _registry_lock = threading.Lock()  # the parent's holder does not exist here
    _reads_cond = threading.Condition()
    _background = 0
    _reads = 1 if getattr(_reader, "depth", 0) else 0  # only this thread's read can be in flight here
    for owner, reset in _alive(fork=True):
        try:
            reset(owner)
        except Exception as exc:  # pragma: no cover - best effort
            logger.debug("nova-memory: resetting %r after fork failed: %s", owner, exc)


atexit.register(stop_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


# -- reads first ------------------------------------------------------------------------------------
_reads_cond = threading.Condition()
_reads = 0
_background = 0
_reader = threading.local()
READ_YIELD_MAX_S = 0.05
"""The longest one :func:`yield_to_reads` pauses: background work is slowed by reads, never stopped."""
BACKGROUND_SLOTS_UNDER_READS = 1
"""Background steps (model runs) that run at once while reads are in flight (one core's worth)."""
BACKGROUND_DUTY_UNDER_READS = 0.5
"""The share of its time a background step's thread works while reads are in flight: after each
step it rests as long as the step took (``0.5``), so the indexer takes at most half of one core
from the reads; ``1``: no rest."""


@contextmanager
def reading() -> Iterator[None]:
    """Mark a read in flight in this process for the duration of the block (re-entrant, cheap)."""
    global _reads
    depth = getattr(_reader, "depth", 0)
    _reader.depth = depth + 1
    if depth:
        try:
            yield
        finally:
            _reader.depth = depth
        return
    with _reads_cond:
        _reads += 1
    try:
        yield
    finally:
        _reader.depth = depth
        with _reads_cond:
            _reads -= 1
            if not _reads:
                _reads_cond.notify_all()


def throttled() -> bool:
    """Whether background work of this thread gives way to reads: not when the thread is inside
    :func:`reading` (work it hands to a pool is the read's too) nor :func:`unthrottled`."""
    return not getattr(_reader, "depth", 0) and not getattr(_reader, "urgent", False)


@contextmanager
def unthrottled() -> Iterator[None]:
    """Background work of this thread runs at full speed inside the block (work that fell too
    far behind: reads slow it down, they never starve it)."""
    before = getattr(_reader, "urgent", False)
    _reader.urgent = True
    try:
        yield
    finally:
        _reader.urgent = before


def reads_in_flight() -> int:
    """How many reads are in flight in this process."""
    return _reads


@contextmanager
def background_step(background: bool = True) -> Iterator[None]:
    """One step of long work (a model run and its pooling) inside the block.

    Raises ``RuntimeError`` once the interpreter is exiting: no C++ call starts under a
    finalising interpreter. A background step (``background`` true and this thread
    :func:`throttled`; others run at once) takes one of the process's background slots: as
    many as it likes with no read in flight, :data:`BACKGROUND_SLOTS_UNDER_READS` while reads
    are in flight, after which it rests per :data:`BACKGROUND_DUTY_UNDER_READS`: background
    work leaves the other cores, and half of its own, to the reads.
    """
    global _background
    if _exiting:
        raise RuntimeError("the interpreter is exiting")
    if not background or not throttled():
        yield
        return
    with _reads_cond:
        while _reads and _background >= BACKGROUND_SLOTS_UNDER_READS and not _exiting:
            _reads_cond.wait(0.1)
        _background += 1
    start = time.monotonic()
    try:
        yield
    finally:
        try:
            if _reads and BACKGROUND_DUTY_UNDER_READS < 1:  # rest, holding the slot, as long as the step took
                time.sleep((time.monotonic() - start) * (1 / BACKGROUND_DUTY_UNDER_READS - 1))
        finally:
            with _reads_cond:
                _background -= 1
                _reads_cond.notify_all()


def yield_to_reads(max_wait: float = READ_YIELD_MAX_S) -> float:
    """Pause while reads are in flight (up to ``max_wait`` seconds); returns the seconds paused.

    Called by background work between steps; free when no read is in flight."""
    if not _reads or _exiting or not throttled():  # a read never waits for reads
        return 0.0
    start = time.monotonic()
    deadline = start + max_wait
    with _reads_cond:
        while _reads and not _exiting and (left := deadline - time.monotonic()) > 0:
            _reads_cond.wait(left)
    return time.monotonic() - start


# -- the background worker --------------------------------------------------------------------------
class BackgroundWorker:
    """Calls ``job()`` after new work settles (debounce) or every ``interval`` seconds.

    ``poke()`` signals new work; ``stop()`` runs a last pass (unless ``final_pass`` is
    false) and joins the thread. Exceptions of ``job`` are logged and never kill the worker.
    At interpreter exit the worker is stopped without a last pass (rank ``exit_rank``); in a
    forked child it starts again on its next ``start()``.

    Args:
        job: the work of one pass.
        interval: seconds between passes (``math.inf``: only when poked).
        debounce: seconds new work must settle before a pass.
        name: what the job is, for the thread's name and the failure warning.
        final_pass: whether ``stop()`` runs the job once more before the thread ends.
        exit_rank: when the exit stops it (:data:`JOBS`; an indexer's: :data:`INDEXING`).
    """

    def __init__(self, job: Callable[[], object], *, interval: float, debounce: float,
                 name: str = "consolidation", final_pass: bool = True, exit_rank: int = JOBS) -> None:
        self._job = job
        self.interval = interval
        self.debounce = debounce
        self.name = name
        self.final_pass = final_pass
        self._cond = threading.Condition()
        self._dirty_since: float | None = None
        self._stopping = False
        self._last_pass = final_pass
        self._thread: threading.Thread | None = None
        self.runs = 0
        track(self, rank=exit_rank, stop=BackgroundWorker._stop_at_exit, after_fork=BackgroundWorker._after_fork)

    def start(self) -> None:
        """Start the thread (idempotent; not once the interpreter is exiting)."""
        with self._cond:
            if (self._thread is None or not self._thread.is_alive()) and not _exiting:
                self._stopping = False
                self._last_pass = self.final_pass
                self._thread = threading.Thread(target=self._loop, name=f"nova-memory-{self.name}", daemon=True)
                self._thread.start()

    @property
    def running(self) -> bool:
        """Whether the worker thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def stopping(self) -> bool:
        """Whether ``stop()`` was called (a long job should return early)."""
        return self._stopping

    def poke(self, *, now: bool = False) -> None:
        """Signal that new work arrived (``now``: run without the debounce)."""
        with self._cond:
            if now:
                settled = time.monotonic() - self.debounce
                if self._dirty_since is None or self._dirty_since > settled:
                    self._dirty_since = settled
                    self._cond.notify_all()
            elif self._dirty_since is None:  # later pokes change nothing the thread waits on: no wake-up
                self._dirty_since = time.monotonic()
                self._cond.notify_all()

    def sleep(self, seconds: float) -> bool:
        """Wait ``seconds`` inside a job unless the worker stops meanwhile; False when it stops."""
        deadline = time.monotonic() + seconds
        with self._cond:
            while not self._stopping and (left := deadline - time.monotonic()) > 0:
                self._cond.wait(left)
            return not self._stopping

    def stop(self, timeout: float = 30.0, *, final_pass: bool | None = None) -> None:
        """Run a final pass over pending work (per ``final_pass``, default the worker's) and stop."""
        with self._cond:
            self._stopping = True
            if final_pass is not None:
                self._last_pass = final_pass
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=timeout)

    def _stop_at_exit(self) -> None:
        self.stop(EXIT_TIMEOUT_S, final_pass=False)

    def _after_fork(self) -> None:
        self._cond = threading.Condition()
        self._thread = None

    def _loop(self) -> None:
        last_run = time.monotonic()
        while True:
            with self._cond:
                while True:
                    now = time.monotonic()
                    if self._stopping:
                        break
                    settled = self._dirty_since is not None and now - self._dirty_since >= self.debounce
                    if settled or now - last_run >= self.interval:
                        break
                    wait = self.interval - (now - last_run)
                    if self._dirty_since is not None:
                        wait = min(wait, self.debounce - (now - self._dirty_since))
                    self._cond.wait(timeout=max(0.01, wait) if math.isfinite(wait) else None)
                stopping = self._stopping
                self._dirty_since = None
            if stopping and not self._last_pass:
                return
            try:
                self._job()
                self.runs += 1
            except Exception as exc:
                logger.warning("nova-memory background %s failed: %s", self.name, exc)
            last_run = time.monotonic()
            if stopping:
                return


# -- the pool ---------------------------------------------------------------------------------------
class Pool:
    """A fixed set of daemon threads running submitted calls (``concurrent.futures`` futures).

    Unlike a ``ThreadPoolExecutor`` its threads are stopped by :func:`stop_all` after the
    workers that use it, not by the interpreter's first exit step (which refuses new work
    while daemon workers still run); once stopped, and in a forked child until its next
    use, it is never left without threads: a stopped pool runs calls in the caller's thread.

    Args:
        size: threads (started on first use).
        name: the threads' name prefix.
    """

    def __init__(self, size: int, name: str) -> None:
        self.size = max(1, size)
        self.name = name
        self._lock = threading.Lock()
        self._tasks: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None] = (
            queue.SimpleQueue())
        self._threads: list[threading.Thread] = []
        self._stopped = False
        track(self, rank=POOLS, stop=Pool._stop_at_exit, after_fork=Pool._after_fork)

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        """Run ``fn(*args)`` on a thread of the pool (in this thread once the pool is stopped)."""
        future: Future[T] = Future()
        with self._lock:
            if not self._stopped and not _exiting:
                if not self._threads:
                    for n in range(self.size):
                        thread = threading.Thread(target=_work, args=(self._tasks,), name=f"{self.name}_{n}",
                                                  daemon=True)
                        thread.start()
                        self._threads.append(thread)
                        # a pool dropped without shutdown ends its threads (each takes one None)
                        weakref.finalize(self, self._tasks.put, None).atexit = False
                self._tasks.put((future, fn, args))
                return future
        _run(future, fn, args)
        return future

    def map(self, fn: Callable[[Any], T], items: Iterable[Any]) -> list[T]:
        """``[fn(item) for item in items]``, run on the pool; raises the first failure."""
        return [f.result() for f in [self.submit(fn, item) for item in items]]

    def shutdown(self, timeout: float | None = None) -> None:
        """Run what is queued, end the threads and wait for them; later calls run in the caller."""
        with self._lock:
            self._stopped = True
            threads, self._threads = self._threads, []
        for _ in threads:
            self._tasks.put(None)
        for thread in threads:
            if thread is not threading.current_thread():
                thread.join(timeout)

    def _stop_at_exit(self) -> None:
        self.shutdown(EXIT_TIMEOUT_S)

    def _after_fork(self) -> None:
        self._lock = threading.Lock()
        self._tasks = queue.SimpleQueue()  # the parent's callers are not in this process
        self._threads = []


def _work(tasks: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]] | None]) -> None:
    while (task := tasks.get()) is not None:
        _run(*task)
        del task


def _run(future: Future[T], fn: Callable[..., T], args: tuple[Any, ...]) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        result = fn(*args)
    except BaseException as exc:
        future.set_exception(exc)
    else:
        future.set_result(result)
