"""``_threads``: the one background worker, the pool, their ordered stop at exit, their reset after
fork, and reads before background work."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import nova_memory_integrations
from nova_memory_integrations import _threads
from nova_memory_integrations._threads import BackgroundWorker, Pool, reading, yield_to_reads
from nova_memory_integrations.engine import scheduler

ROOT = Path(nova_memory_integrations.__file__).resolve().parents[1]


def test_the_scheduler_module_keeps_the_one_worker_class() -> None:
    assert scheduler.BackgroundWorker is BackgroundWorker


def _exit_script(body: str) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(body)], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_exit_stops_in_rank_order_and_joins_the_threads() -> None:
    out = _exit_script("""
        import math, time
        from nova_memory_integrations import _threads as t

        class Owner:
            def __init__(self, name):
                self.name = name

        def stop(owner):
            print(owner.name, flush=True)

        keep = [Owner("storage"), Owner("pool"), Owner("indexer"), Owner("job")]
        for owner, rank in zip(keep, (t.STORAGE, t.POOLS, t.INDEXING, t.JOBS)):
            t.track(owner, rank=rank, stop=stop)

        def job():
            time.sleep(0.3)  # a pass under way when the interpreter exits
            print("pass-done", flush=True)

        worker = t.BackgroundWorker(job, interval=math.inf, debounce=math.inf, name="x", final_pass=True)
        worker.start()
        worker.poke(now=True)
        pool = t.Pool(2, "p")
        pool.submit(time.sleep, 0.05).result()
        # no stop: the exit stops the worker (joined after its pass, without a final one), then the rest
    """)
    assert out == ["job", "pass-done", "indexer", "pool", "storage"]


def test_nothing_starts_once_the_exit_began() -> None:
    out = _exit_script("""
        import threading
        from nova_memory_integrations import _threads as t

        pool = t.Pool(1, "p")
        worker = t.BackgroundWorker(lambda: None, interval=1, debounce=1, name="late")
        t.stop_all()  # what the exit runs
        worker.start()
        print("worker-running", worker.running)
        print("inline", pool.submit(threading.current_thread).result() is threading.main_thread())
        try:
            with t.background_step():  # no model run starts
                print("ran")
        except RuntimeError:
            print("refused")
    """)
    assert out == ["worker-running", "False", "inline", "True", "refused"]


def test_a_stopped_pool_runs_calls_in_the_caller() -> None:
    pool = Pool(2, "test-pool")
    assert pool.submit(threading.current_thread).result() is not threading.current_thread()
    pool.shutdown(timeout=5)
    assert pool.submit(threading.current_thread).result() is threading.current_thread()
    assert pool.map(lambda x: x * 2, [1, 2, 3]) == [2, 4, 6]


def test_a_pool_passes_failures_to_the_caller() -> None:
    pool = Pool(1, "test-pool")
    with pytest.raises(ZeroDivisionError):
        pool.map(lambda x: 1 / x, [1, 0])
    pool.shutdown(timeout=5)


def test_a_dropped_pool_ends_its_threads() -> None:
    pool = Pool(2, "test-dropped-pool")
    pool.submit(lambda: None).result()
    threads = [t for t in threading.enumerate() if t.name.startswith("test-dropped-pool")]
    assert len(threads) == 2
    del pool
    for thread in threads:
        thread.join(5)
    assert not any(t.is_alive() for t in threads)


def test_a_worker_can_be_run_now_without_its_debounce() -> None:
    ran = threading.Event()
    worker = BackgroundWorker(ran.set, interval=math.inf, debounce=30, name="test-now", final_pass=False)
    worker.start()
    try:
        worker.poke(now=True)
        assert ran.wait(5)
    finally:
        worker.stop()


def test_a_worker_sleep_ends_when_it_stops() -> None:
    slept: list[bool] = []
    started = threading.Event()

    def job() -> None:
        started.set()
        slept.append(worker.sleep(30))

    worker = BackgroundWorker(job, interval=math.inf, debounce=0, name="test-sleep", final_pass=False)
    worker.start()
    worker.poke()
    assert started.wait(5)
    t0 = time.monotonic()
    worker.stop(timeout=5)
    assert slept == [False] and time.monotonic() - t0 < 5


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_starts_the_workers_again() -> None:
    ran = threading.Event()
    worker = BackgroundWorker(ran.set, interval=math.inf, debounce=0, name="test-fork", final_pass=False)
    worker.start()
    pool = Pool(2, "test-fork-pool")
    pool.submit(lambda: None).result()
    worker._cond.acquire()  # held by a thread of the parent when it forks
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            ran.clear()
            worker.start()  # the parent's thread is not here, nor its lock
            worker.poke()
            ok_worker = ran.wait(5)
            ok_pool = pool.submit(lambda: 7).result(timeout=5) == 7
            code = 0 if (ok_worker and ok_pool) else 2
        finally:
            os._exit(code)
    worker._cond.release()
    _, status = os.waitpid(pid, 0)
    worker.stop()
    pool.shutdown(timeout=5)
    assert os.waitstatus_to_exitcode(status) == 0


def test_background_work_yields_to_a_read_in_flight() -> None:
    inside = threading.Event()
    leave = threading.Event()

    def read() -> None:
        with reading():
            inside.set()
            assert yield_to_reads(5) == 0.0  # a read never waits for reads (its own included)
            leave.wait(5)

    reader = threading.Thread(target=read)
    reader.start()
    assert inside.wait(5)
    threading.Timer(0.2, leave.set).start()
    paused = yield_to_reads(5)
    reader.join(5)
    assert 0.1 < paused < 4
    assert _threads.reads_in_flight() == 0


def test_a_yield_is_bounded() -> None:
    with reading():
        done: list[float] = []
        thread = threading.Thread(target=lambda: done.append(yield_to_reads(0.1)))
        thread.start()
        thread.join(5)
    assert 0.05 < done[0] < 2


def test_a_yield_without_reads_is_free() -> None:
    assert yield_to_reads(5) == 0.0


def _overlap(steps: int, under_read: bool, hold: float = 0.03) -> tuple[int, float]:
    """Two threads each run ``steps`` background steps; the most running at once, and the time taken."""
    running, most = [0], [0]
    lock = threading.Lock()

    def work() -> None:
        for _ in range(steps):
            with _threads.background_step():
                with lock:
                    running[0] += 1
                    most[0] = max(most[0], running[0])
                time.sleep(hold)
                with lock:
                    running[0] -= 1

    def run() -> float:
        threads = [threading.Thread(target=work) for _ in range(2)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        return time.monotonic() - t0

    if not under_read:
        took = run()
        return most[0], took
    entered, leave = threading.Event(), threading.Event()

    def read() -> None:
        with reading():
            entered.set()
            leave.wait(30)

    reader = threading.Thread(target=read)
    reader.start()
    entered.wait(5)
    try:
        took = run()
    finally:
        leave.set()
        reader.join(5)
    return most[0], took


def test_background_steps_take_one_core_at_half_time_under_reads() -> None:
    most, took = _overlap(4, under_read=True)
    assert most == 1
    assert took >= 2 * 4 * 0.03 / _threads.BACKGROUND_DUTY_UNDER_READS * 0.9  # serial, with rests


def test_background_steps_run_together_without_reads() -> None:
    most, _ = _overlap(4, under_read=False)
    assert most == 2


def test_unthrottled_work_and_a_reads_own_work_do_not_give_way() -> None:
    with reading():
        assert not _threads.throttled()
    with _threads.unthrottled():
        assert not _threads.throttled()
    assert _threads.throttled()
