"""Reads during a write burst: do a user's reads wait behind the vector-index backlog?

A new user imports a chat history while the same user keeps talking. One store (temporary
data directory, the packaged MiniLM embedder, default config):

1. **Seed.** ``--users`` writer users and ``--other-users`` other users get ``--seed``
   turns each, indexed (``flush``) before anything is timed.
2. **Quiet.** ``--readers`` threads call ``context()`` for the writer users and the other
   users, with no write in flight: the quiet p50 / p95.
3. **Burst.** ``--users`` writer threads each add ``--turns`` turns to their own user
   (``add_turn``, one call a turn, as a chat import does), while the same reader threads
   keep calling ``context()`` for those same users and for the other users, until the
   writers are done and the vector-index backlog has drained (the time a read could
   spend waiting behind it). Every
   ``--probe-every``-th same-user read is a *probe*: the reader adds a turn stating a
   unique code to its user and immediately asks for it; the probe counts as fresh when
   that turn is in the read's context.
4. **After.** ``flush()``; the same readers for ``--quiet-seconds`` again, with no write in
   flight (``after_*_ms``: the writers' users now hold ``--turns`` more turns each, so this
   is the floor their burst reads are to be compared with to see the contention alone,
   ``same_user_vs_after``); then every written turn must be in SQLite (``lost`` counts the
   missing ones) and in the vector index (``findable_after``: no row left unindexed and
   Chroma holds one vector per turn).

Every turn carries a marker word naming its user (``mk<user>q<turn>``), so any context
text holding another user's marker is a cross-user leak (``cross_user``).

Timings on the shared 2-core machines drift, so the targets are ratios within one run:
same-user read p95 during the burst <= 3x the quiet p95 or <= 100 ms, whichever is larger
(``same_user_ratio``, ``same_user_target_ms``; other users' reads likewise), the index caught
up within a minute of the writers' last turn (``catch_up_s``), 0 lost, 0 cross-user texts,
every probe fresh.

Usage:
    .venv/bin/python benchmarks/load.py [--users 4] [--turns 300] [--readers 4] [--seed 60]
    .venv/bin/python benchmarks/load.py --quick      # 2 writers x 60 turns (smoke test)

Progress goes to stderr; the last line of stdout is one JSON object.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import emit, generate_queries, generate_turns, log, percentile, set_offline_env, summarize

set_offline_env()

from nova_memory_integrations import NovaStore  # noqa: E402

MARKER = re.compile(r"\bmk(\d+)q\d+\b")
BUDGET = 600


def user_name(index: int) -> str:
    return f"user-{index}"


def turn_text(user: int, n: int, content: str) -> str:
    return f"{content} mk{user}q{n}"


class Reads:
    """Latency samples and leak / freshness counts of one phase (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.same: list[float] = []
        self.other: list[float] = []
        self.stages: dict[str, list[float]] = {}
        self.cross_user = 0
        self.probes = 0
        self.fresh = 0


def read_once(store: NovaStore, user: int, query: str, reads: Reads, bucket: str) -> str:
    t0 = time.perf_counter()
    res = store.context(query, user_name(user), budget_tokens=BUDGET)
    ms = (time.perf_counter() - t0) * 1000
    text = res.text
    leaked = sum(1 for m in MARKER.finditer(text) if int(m.group(1)) != user)
    with reads.lock:
        getattr(reads, bucket).append(ms)
        if bucket == "same":
            for stage, value in res.timings.items():
                reads.stages.setdefault(stage, []).append(value)
        reads.cross_user += leaked
    return text


def reader(store: NovaStore, same_users: list[int], other_users: list[int], queries: list[str], reads: Reads,
           stop: threading.Event, seed: int, probe_every: int) -> None:
    rng = random.Random(seed)
    n = 0
    while not stop.is_set():
        n += 1
        if same_users:
            user = rng.choice(same_users)
            if probe_every and n % probe_every == 1:
                code = f"{seed}x{n}"
                store.add_turn(user_name(user), "user", f"My locker code is {code} mk{user}q{code}")
                text = read_once(store, user, f"What is my locker code {code}?", reads, "same")
                with reads.lock:
                    reads.probes += 1
                    reads.fresh += f"mk{user}q{code}" in text
                continue
            read_once(store, user, rng.choice(queries), reads, "same")
        else:
            read_once(store, rng.choice(other_users), rng.choice(queries), reads, "other")


def writer(store: NovaStore, user: int, turns: list[tuple[str, str]], add_ms: list[float], lock: threading.Lock
           ) -> None:
    for n, (role, content) in enumerate(turns):
        t0 = time.perf_counter()
        store.add_turn(user_name(user), role, turn_text(user, n, content), session_id=f"import-{user}")
        with lock:
            add_ms.append((time.perf_counter() - t0) * 1000)


def run_readers(store: NovaStore, args: argparse.Namespace, same: list[int], other: list[int], queries: list[str],
                reads: Reads, seconds: float | None, until: threading.Event | None, probe_every: int) -> None:
    stop = until or threading.Event()
    # even readers read the writers' users, odd readers the other users
    threads = [threading.Thread(target=reader, args=(store, same if i % 2 == 0 else [], other, queries, reads, stop,
                                                     1000 + i, probe_every)) for i in range(args.readers)]
    for t in threads:
        t.start()
    if seconds is not None:
        time.sleep(seconds)
        stop.set()
    for t in threads:
        t.join()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--users", type=int, default=4, help="writer threads, one user each")
    ap.add_argument("--other-users", type=int, default=4, help="users nobody writes to during the burst")
    ap.add_argument("--turns", type=int, default=300, help="turns each writer adds during the burst")
    ap.add_argument("--readers", type=int, default=4,
                    help="reader threads: even ones read the writers' users, odd ones the other users")
    ap.add_argument("--seed", type=int, default=60, help="indexed turns per user before timing")
    ap.add_argument("--quiet-seconds", type=float, default=8.0)
    ap.add_argument("--probe-every", type=int, default=5, help="every n-th same-user read is a freshness probe")
    ap.add_argument("--quick", action="store_true", help="2 writers x 60 turns, 2 readers (smoke test)")
    args = ap.parse_args(argv)
    if args.quick:
        args.users, args.other_users, args.turns, args.readers, args.seed, args.quiet_seconds = 2, 2, 60, 2, 20, 2.0
    same = list(range(args.users))
    other = list(range(args.users, args.users + args.other_users))
    pool = generate_turns(args.seed + args.turns, seed=5)
    queries = generate_queries(50)
    with tempfile.TemporaryDirectory() as tmp, NovaStore(Path(tmp) / "data") as store:
        store.warm_up()
        log(f"seeding {len(same) + len(other)} users x {args.seed} turns")
        for user in same + other:
            store.add_turns([{"user_id": user_name(user), "role": r, "content": turn_text(user, -1 - n, c),
                              "session_id": f"seed-{user}"} for n, (r, c) in enumerate(pool[: args.seed])])
        store.flush()
        for q in queries[:5]:  # warm-up, untimed
            store.context(q, user_name(0), budget_tokens=BUDGET)

        log(f"quiet: {args.readers} readers for {args.quiet_seconds:.0f} s")
        quiet = Reads()
        run_readers(store, args, same, other, queries, quiet, args.quiet_seconds, None, probe_every=0)

        log(f"burst: {args.users} writers x {args.turns} turns, {args.readers} readers")
        burst = Reads()
        add_ms: list[float] = []
        lock = threading.Lock()
        writers_done = threading.Event()
        writers = [threading.Thread(target=writer, args=(store, u, pool[args.seed:], add_ms, lock)) for u in same]
        t0 = time.perf_counter()
        for t in writers:
            t.start()

        marks: dict[str, float] = {}

        def finish() -> None:  # the burst lasts while the writers write and the index backlog drains
            for t in writers:
                t.join()
            marks["written"] = time.perf_counter()
            marks["backlog"] = store.components.indexer.pending()
            deadline = time.monotonic() + 600
            while store.components.indexer.pending() and time.monotonic() < deadline:
                time.sleep(0.05)
            marks["drained"] = time.perf_counter()
            writers_done.set()

        threading.Thread(target=finish).start()
        run_readers(store, args, same, other, queries, burst, None, writers_done, probe_every=args.probe_every)
        burst_s = time.perf_counter() - t0
        write_s, catch_up_s = marks["written"] - t0, marks["drained"] - marks["written"]
        log(f"burst took {burst_s:.1f} s: writes {write_s:.1f} s, then the index caught up ({marks['backlog']:.0f} "
            f"rows queued) in {catch_up_s:.1f} s; add_turn p95 {summarize(add_ms)['p95']} ms")

        t1 = time.perf_counter()
        store.flush()
        drain_s = time.perf_counter() - t1
        log(f"after: {args.readers} readers for {args.quiet_seconds:.0f} s")
        after = Reads()
        run_readers(store, args, same, other, queries, after, args.quiet_seconds, None, probe_every=0)
        db = store.components.db
        written = {u: args.seed + args.turns for u in same} | {u: args.seed for u in other}
        stored = {u: db.count("episodes", user_name(u)) for u in same + other}
        probes_written = {u: 0 for u in same}
        for u in same:  # probes are extra turns of their user
            probes_written[u] = sum(1 for e in db.list_episodes(user_name(u), limit=100_000)
                                    if "locker code" in e.content)
        lost = sum(max(0, written[u] + probes_written.get(u, 0) - stored[u]) for u in written)
        unindexed = len(db.unindexed_ids("episodes"))
        vectors = store.components.vectors.count("episode")
        findable = unindexed == 0 and vectors == sum(stored.values())

    q95, o95 = summarize(quiet.same)["p95"], summarize(quiet.other)["p95"]
    b95, bo95 = summarize(burst.same)["p95"], summarize(burst.other)["p95"]
    result: dict[str, Any] = {
        "benchmark": "load",
        "writers": args.users, "turns_per_writer": args.turns, "readers": args.readers,
        "quiet_same_user_ms": summarize(quiet.same), "quiet_other_user_ms": summarize(quiet.other),
        "burst_same_user_ms": summarize(burst.same), "burst_other_user_ms": summarize(burst.other),
        "after_same_user_ms": summarize(after.same), "after_other_user_ms": summarize(after.other),
        "add_turn_ms": summarize(add_ms),
        "quiet_same_user_stages_p50": {k: round(statistics.median(v), 1) for k, v in quiet.stages.items()},
        "burst_same_user_stages_p50": {k: round(statistics.median(v), 1) for k, v in burst.stages.items()},
        "burst_same_user_stages_p95": {k: round(percentile(v, 95), 1) for k, v in burst.stages.items()},
        "same_user_ratio": round(b95 / q95, 2) if q95 else None,
        "other_user_ratio": round(bo95 / o95, 2) if o95 else None,
        "same_user_vs_after": round(b95 / a95, 2) if (a95 := summarize(after.same)["p95"]) else None,
        "same_user_target_ms": round(max(3 * q95, 100.0), 1), "other_user_target_ms": round(max(3 * o95, 100.0), 1),
        "burst_s": round(burst_s, 1), "write_s": round(write_s, 1), "backlog_at_end_of_writes": marks["backlog"],
        "catch_up_s": round(catch_up_s, 1), "drain_after_s": round(drain_s, 1),
        "lost": lost, "cross_user": quiet.cross_user + burst.cross_user + after.cross_user,
        "probes": burst.probes, "probes_fresh": burst.fresh,
        "findable_after": findable,
    }
    result["reads_met"] = bool(b95 <= result["same_user_target_ms"] and bo95 <= result["other_user_target_ms"])
    result["target_met"] = bool(result["reads_met"] and catch_up_s <= 60 and lost == 0 and result["cross_user"] == 0
                                and burst.fresh == burst.probes and findable)
    emit(result)
    return result


if __name__ == "__main__":
    main()
