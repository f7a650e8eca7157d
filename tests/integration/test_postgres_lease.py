"""Maintenance scheduled once per period, not once per process (issue #39): three processes on one
Postgres database, each with a lifecycle pass scheduled every second, make about one pass a second
between them (the database's ``lifecycle`` lease), not three."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.maintenance.schedule import LEASE

PROCESSES = 3
INTERVAL_S = 1.0
WATCHED_S = 8.0
psycopg = pytest.importorskip("psycopg")


def test_three_processes_make_each_periods_lifecycle_pass_once(tmp_path: Path, pg_url: str,
                                                                minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    from pg_peers import lifecycle_peer

    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(PROCESSES)
    outs = [tmp_path / f"peer{n}.json" for n in range(PROCESSES)]
    procs = [ctx.Process(target=lifecycle_peer, args=(pg_url, str(tmp_path / f"data{n}"), INTERVAL_S, WATCHED_S,
                                                      barrier, str(outs[n]))) for n in range(PROCESSES)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=600)
    assert [p.exitcode for p in procs] == [0] * PROCESSES
    reports = [json.loads(out.read_text()) for out in outs]
    assert all(r["running"] for r in reports)  # every process scheduled passes all along
    passes = sum(r["passes"] for r in reports)
    skipped = sum(r["skipped"] for r in reports)
    # the lease runs one interval by the database's clock: at most one pass per interval watched
    # (and one at each edge), where three unleased schedulers make about three
    assert 2 <= passes <= WATCHED_S / INTERVAL_S + 2, reports
    assert skipped >= passes - 2, reports  # the other processes' turns: left to the lease's holder
    with psycopg.connect(pg_url) as conn:
        (holder,) = conn.execute("SELECT holder FROM leases WHERE name = %s", (LEASE,)).fetchone()
    assert holder.count(":") == 2  # host:pid:store


def test_a_lease_is_one_holders_until_it_runs_out(pg_url: str, tmp_path: Path,
                                                  minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    config = NovaConfig.from_dict({"consolidation": {"mode": "manual"}})
    a = NovaStore(tmp_path / "a", embeddings=minilm_onnx, database_url=pg_url, config=config)
    b = NovaStore(tmp_path / "b", embeddings=minilm_onnx, database_url=pg_url, config=config)
    try:
        db_a, db_b = a.components.db, b.components.db
        assert db_a.try_lease("job", 60.0) and not db_b.try_lease("job", 60.0) and not db_a.try_lease("job", 60.0)
        assert db_b.try_lease("other", 60.0)  # leases are per job
        with psycopg.connect(pg_url, autocommit=True) as conn:  # the holder died an hour ago: run out
            conn.execute("UPDATE leases SET expires_at = expires_at - 3600 WHERE name = 'job'")
        assert db_b.try_lease("job", 60.0) and not db_a.try_lease("job", 60.0)
    finally:
        a.close()
        b.close()
