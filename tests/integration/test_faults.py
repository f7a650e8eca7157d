"""Crash safety: a process SIGKILLed while ingesting or in the middle of a consolidation batch.

On reopen no acknowledged turn is lost and no batch is half applied: a batch's episodes
are either all processed with their facts, or all unprocessed with none.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX-only")

HOBBIES = ["tea", "chess", "jazz", "sushi", "tennis", "origami", "karate", "opera", "pottery", "rowing",
           "sailing", "fencing", "archery", "baking", "cycling", "diving", "gardening", "hiking", "juggling",
           "knitting", "painting", "quilting", "rugby", "skiing", "surfing", "yoga", "bowling", "curling",
           "darts", "golf", "hockey", "judo", "lacrosse", "netball", "polo", "squash", "snooker", "badminton",
           "canoeing", "climbing"]
T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)

INGEST_CHILD = textwrap.dedent("""
    import sys
    from nova_memory_integrations import NovaStore
    store = NovaStore(sys.argv[1])
    i = 0
    while True:
        if i % 4 == 3:  # an atomic multi-turn write, acknowledged as a whole
            eps = store.add_turns([{"user_id": f"u{i % 3}", "role": "user", "content": f"batch turn {i}.{j}"}
                                   for j in range(3)])
        else:
            eps = [store.add_turn(f"u{i % 3}", "user", f"turn {i}: I like topic {i % 7}", session_id="s")]
        for ep in eps:
            print(ep.user_id, ep.id, flush=True)
        i += 1
""")

CONSOLIDATE_CHILD = textwrap.dedent("""
    import sys, time
    from nova_memory_integrations import NovaStore
    from nova_memory_integrations.consolidation import deterministic_batch
    store = NovaStore(sys.argv[1])
    real_insert = store.components.db.insert_fact
    calls = [0]
    def insert_then_maybe_hang(*args, **kwargs):
        real_insert(*args, **kwargs)
        calls[0] += 1
        if calls[0] == int(sys.argv[2]):
            print("MID-BATCH", flush=True)  # inside the batch's open transaction
            time.sleep(600)
    store.components.db.insert_fact = insert_then_maybe_hang
    store._consolidation.consolidator.run("u", deterministic_batch(store.extractor), batch_size=int(sys.argv[3]))
    print("FINISHED", flush=True)
""")


def _spawn(code: str, *args: str) -> subprocess.Popen[str]:
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env)


def _kill(proc: subprocess.Popen[str]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def _integrity(path: Path) -> None:
    con = sqlite3.connect(path / "nova.sqlite3")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()


def test_sigkill_while_ingesting_loses_no_acknowledged_turn(tmp_path: Path, minilm: Any) -> None:
    path = tmp_path / "data"
    NovaStore(path, embeddings=minilm).close()  # schema in place; the child starts writing at once
    proc = _spawn(INGEST_CHILD, str(path))
    acked: list[tuple[str, str]] = []
    deadline = time.monotonic() + 120
    assert proc.stdout is not None
    while len(acked) < 60 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        user, ep_id = line.split()
        acked.append((user, ep_id))
    _kill(proc)
    assert len(acked) >= 60, "the child did not acknowledge enough turns"
    _integrity(path)
    with NovaStore(path, embeddings=minilm) as store:
        for user in {u for u, _ in acked}:
            want = [i for u, i in acked if u == user]
            stored = {e.id for e in store.get_episodes(user, want)}
            assert stored == set(want), f"lost acknowledged turns of {user}"
        # batches written with add_turns are all there or not at all
        for user in ("u0", "u1", "u2"):
            batch_turns = [e.content for e in store.episodes(user) if e.content.startswith("batch turn")]
            groups: dict[str, int] = {}
            for c in batch_turns:
                groups[c.split(".")[0]] = groups.get(c.split(".")[0], 0) + 1
            assert all(n == 3 for n in groups.values())
        # the index converges: rows the child never embedded are picked up on reopen
        assert store.flush(timeout=120)
        total = sum(store.stats(u)["episodes"] for u in ("u0", "u1", "u2"))
        assert store.components.vectors.count("episode") == total
        assert store.search("I like topic 3", "u0", k=1)


def _provenance(store: NovaStore, user: str) -> set[str]:
    ids: set[str] = set()
    for (raw,) in store.components.db.query("SELECT provenance FROM facts WHERE user_id = ?", [user]):
        ids.update(json.loads(raw))
    for (raw,) in store.components.db.query("SELECT episode_ids FROM fact_events WHERE user_id = ?", [user]):
        ids.update(json.loads(raw))
    return ids


def test_sigkill_mid_consolidation_batch_applies_all_or_nothing(tmp_path: Path, minilm: Any) -> None:
    path, batch_size = tmp_path / "data", 10
    with NovaStore(path, embeddings=minilm) as store:
        episodes = store.add_turns([{"user_id": "u", "role": "user", "content": f"I like {h}.",
                                     "timestamp": T0 + timedelta(minutes=n)} for n, h in enumerate(HOBBIES)])
    ids = [e.id for e in episodes]
    batches = [ids[i : i + batch_size] for i in range(0, len(ids), batch_size)]
    proc = _spawn(CONSOLIDATE_CHILD, str(path), str(batch_size + batch_size // 2), str(batch_size))
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()  # blocks until the child is inside batch 2
    assert line == "MID-BATCH"
    _kill(proc)
    _integrity(path)
    with NovaStore(path, embeddings=minilm) as store:
        processed = {e.id for e in store.episodes("u") if e.processed}
        with_facts = _provenance(store, "u")
        states = []
        for batch in batches:
            done = [i in processed for i in batch]
            facts = [i in with_facts for i in batch]
            assert all(done) == all(facts) and any(done) == all(done) and any(facts) == all(facts), batch
            states.append(all(done))
        assert states == [True, False, False, False]  # batch 1 committed, batch 2 rolled back
        assert store.dead_letters("u") == []
        # recovery: the next run consolidates the rest exactly once
        res = store.consolidate("u")
        assert res.episodes_processed == 30
        assert {e.id for e in store.episodes("u") if e.processed} == set(ids)
        assert set(ids) <= _provenance(store, "u")
        likes = {f.object for f in store.facts("u", predicate="likes")}
        assert len(likes) >= 35
