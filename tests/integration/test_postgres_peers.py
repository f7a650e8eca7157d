"""Four processes, twenty users, one Postgres database: every process a peer (issue #39).

Each process (``tests/pg_peers.py``, spawned) adds turns for every user, consolidates every user
and reads every user's context in step with the others; then one forgets two users and every
process reads them. Pinned: no errors, no acknowledged turn lost, each turn's vector written by
exactly one process, no read showing another user's text, a forget seen by every process once it
returned, at most one current value of a single-valued predicate per user. The same run with two
"hosts" (own HOME, data directory and model cache; the database over TCP only) pins the same.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings

PROCESSES = 4
USERS = [f"u{n:02d}" for n in range(20)]
FORGOTTEN = USERS[-2:]
ROUNDS = 2
psycopg = pytest.importorskip("psycopg")


def _run_peers(url: str, tmp_path: Path, processes: int, env: Any = None) -> list[dict[str, Any]]:
    """Start ``processes`` peers on ``url`` in step; their reports (``env(n)``: a peer's own environment)."""
    from pg_peers import peer  # tests/ is on sys.path (its conftest); a spawned child imports it by name

    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(processes)
    outs = [tmp_path / f"peer{n}.json" for n in range(processes)]
    procs = [ctx.Process(target=peer, args=(url, str(tmp_path / f"data{n}"), n, USERS, ROUNDS, FORGOTTEN,
                                            barrier, str(outs[n]), env(n) if env else None))
             for n in range(processes)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=900)
    assert [p.exitcode for p in procs] == [0] * processes
    return [json.loads(out.read_text()) for out in outs]


def _check_peers(reports: list[dict[str, Any]], pg_url: str) -> None:
    """What every peer run must show: no errors, no foreign text, forgets seen everywhere, no acknowledged
    turn lost, each turn embedded by exactly one process, one current value of a single-valued predicate."""
    processes = len(reports)
    assert [r["errors"] for r in reports] == [[]] * processes
    assert [r["foreign"] for r in reports] == [[]] * processes  # no read showed another user's note
    assert [r["forgotten_seen"] for r in reports] == [[]] * processes
    acked = [i for r in reports for i in r["acked"]]
    assert len(acked) == len(set(acked)) == processes * ROUNDS * len(USERS) * 2
    embedded = Counter(i for r in reports for i in r["embedded"])
    assert max(embedded.values()) == 1, [i for i, n in embedded.items() if n > 1][:5]  # one writer per turn
    with psycopg.connect(pg_url) as conn:
        stored = {row[0]: (row[1], row[2]) for row in conn.execute("SELECT id, user_id, indexed FROM episodes")}
        kept = [i for i in acked if i in stored]
        # no acknowledged turn lost: every one is stored, but the forgotten users'
        assert len(kept) == len(acked) * (len(USERS) - len(FORGOTTEN)) // len(USERS)
        assert {stored[i][0] for i in kept} == set(USERS) - set(FORGOTTEN)
        assert all(stored[i][1] == 1 for i in kept)  # and indexed, by some process
        assert set(kept) <= set(embedded)
        vectors = {row[0] for row in conn.execute("SELECT id FROM vectors WHERE kind = 'episode'")}
        assert vectors == set(kept)
        for user in FORGOTTEN:
            assert conn.execute("SELECT count(*) FROM facts WHERE user_id = %s", (user,)).fetchone() == (0,)
            assert conn.execute("SELECT count(*) FROM vectors WHERE user_id = %s", (user,)).fetchone() == (0,)
        current = conn.execute(
            "SELECT user_id, count(*) FROM facts WHERE predicate = 'favorite_color' AND expired_at IS NULL"
            " AND valid_to IS NULL GROUP BY user_id").fetchall()
    assert {u for u, _ in current} == set(USERS) - set(FORGOTTEN)
    assert all(n == 1 for _, n in current), current  # one current value of a single-valued predicate


def test_four_processes_share_one_database(tmp_path: Path, pg_url: str, minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    """(``minilm_onnx``: the children load the session's exported model, never export it.)"""
    _check_peers(_run_peers(pg_url, tmp_path, PROCESSES), pg_url)


def test_two_hosts_share_one_database_under_load(tmp_path: Path, pg_url: str, model_cache: Path,
                                                minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    """The same run with two "hosts": each its own HOME, data directory and copy of the model cache,
    the database reached over TCP only."""
    from pg_local import tcp_url

    caches = [shutil.copytree(model_cache, tmp_path / f"host{n}" / "model-cache") for n in range(2)]

    def env(n: int) -> dict[str, str]:
        home = tmp_path / f"host{n}"
        return {"HOME": str(home), "NOVA_MEMORY_HOME": str(home / "data"), "XDG_CACHE_HOME": str(home / "cache"),
                "NOVA_MEMORY_MODEL_CACHE": str(caches[n])}

    with tcp_url(pg_url) as url:
        reports = _run_peers(url, tmp_path, 2, env)
    _check_peers(reports, pg_url)


def test_the_rows_of_a_peer_killed_mid_import_are_indexed_by_the_others(
        tmp_path: Path, pg_url: str, minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    from pg_peers import importer

    survivor = NovaStore(tmp_path / "survivor", embeddings=minilm_onnx, database_url=pg_url)
    survivor.components.indexer.sweep_s = 0.5
    survivor.components.indexer._worker.interval = 0.5  # the sweep's pace
    turns = 240
    child = multiprocessing.get_context("spawn").Process(target=importer, args=(pg_url, str(tmp_path / "dead"), turns))
    child.start()
    try:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            def indexed() -> tuple[int, int]:
                row = conn.execute("SELECT count(*), count(*) FILTER (WHERE indexed = 1) FROM episodes").fetchone()
                return int(row[0]), int(row[1])

            deadline = time.monotonic() + 300
            while not (indexed()[0] == turns and indexed()[1] > 0):  # all stored (one transaction), some indexed
                assert time.monotonic() < deadline and child.is_alive()
                time.sleep(0.05)
            os.kill(child.pid, signal.SIGKILL)  # type: ignore[arg-type]
            child.join(timeout=30)
            killed_at = indexed()
            assert killed_at[1] < turns, "the peer indexed everything before it was killed: nothing to take over"
            while indexed() != (turns, turns):  # the survivor's sweep takes the dead peer's rows
                assert time.monotonic() < deadline
                time.sleep(0.2)
            per_turn = conn.execute("SELECT count(*) FROM episodes e JOIN vectors v ON v.id = e.id AND v.kind = "
                                    "'episode' GROUP BY e.id").fetchall()
            assert len(per_turn) == turns and {n for (n,) in per_turn} == {1}
    finally:
        if child.is_alive():
            child.kill()
        survivor.close()

