"""BackgroundWorker wakes its thread once per burst of pokes, not once per poke.

Every commit pokes the WAL checkpointer and every turn pokes consolidation: a thread woken by
each poke only to wait again took the GIL from the request threads (add_turn during a
lifecycle pass: median 0.4 ms -> 2-15 ms in CI).
"""

from __future__ import annotations

import threading
import time

from nova_memory_integrations.engine.scheduler import BackgroundWorker


class CountingCondition(threading.Condition):
    """A condition that counts the waits of the worker's thread."""

    def __init__(self) -> None:
        super().__init__()
        self.waits = 0

    def wait(self, timeout: float | None = None) -> bool:
        self.waits += 1
        return super().wait(timeout)


def _poked(count: int, debounce: float) -> tuple[BackgroundWorker, CountingCondition, list[float]]:
    runs: list[float] = []
    worker = BackgroundWorker(lambda: runs.append(time.monotonic()), interval=float("inf"), debounce=debounce,
                              name="test", final_pass=False)
    cond = CountingCondition()
    worker._cond = cond
    worker.start()
    time.sleep(0.05)  # the thread waits for the first poke
    for _ in range(count):
        worker.poke()
        time.sleep(0.002)  # room for a woken thread to run
    return worker, cond, runs


def test_pokes_within_the_debounce_do_not_wake_the_thread() -> None:
    worker, cond, _ = _poked(100, debounce=5.0)
    try:
        waits = cond.waits
    finally:
        worker.stop()
    assert waits <= 3  # the first wait, the wait until the debounce ends (+1 spurious)


def _wait_for(runs: list[float], count: int) -> None:
    deadline = time.monotonic() + 10
    while len(runs) < count and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_burst_of_pokes_still_runs_the_job_once_after_the_debounce() -> None:
    worker, _, runs = _poked(50, debounce=0.3)
    try:
        _wait_for(runs, 1)
        time.sleep(0.4)  # room for a second run, which must not come
    finally:
        worker.stop()
    assert len(runs) == 1


def test_a_poke_after_a_run_wakes_the_thread_again() -> None:
    worker, _, runs = _poked(1, debounce=0.05)
    try:
        _wait_for(runs, 1)
        worker.poke()
        _wait_for(runs, 2)
    finally:
        worker.stop()
    assert len(runs) == 2
