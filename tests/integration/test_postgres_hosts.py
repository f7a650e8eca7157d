"""Two "hosts" on one Postgres database (issue #39): two processes that share nothing but the
database URL, over TCP (each its own HOME, data directory and copy of the model cache), each
writing and reading (``tests/pg_peers.host``).

Pinned: what one writes, the other's ``context()``, ``facts()`` and fact graph show, though each
read those users (and filled its caches) before; once ``forget`` returned in one, nothing of that
user comes back from the other (context, facts, its cached graph, search, episodes), and the
database holds no row or vector of the user.
"""

from __future__ import annotations

import json
import multiprocessing
import shutil
from pathlib import Path

import pytest

from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings

psycopg = pytest.importorskip("psycopg")
HOSTS = ("a", "b")


def test_two_hosts_see_each_others_writes_and_forgets(tmp_path: Path, pg_url: str, model_cache: Path,
                                                      minilm_onnx: OnnxMiniLMEmbeddings) -> None:
    from pg_local import tcp_url
    from pg_peers import host

    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(len(HOSTS))
    with tcp_url(pg_url) as url:
        assert url.startswith("postgresql://postgres@127.0.0.1:")
        procs, outs = [], {}
        for name in HOSTS:
            root = tmp_path / f"host-{name}"
            cache = shutil.copytree(model_cache, root / "model-cache")  # no file shared between the hosts
            outs[name] = tmp_path / f"{name}.json"
            procs.append(ctx.Process(target=host, args=(url, str(root), name, str(cache), barrier, str(outs[name]))))
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=900)
    assert [p.exitcode for p in procs] == [0, 0]
    reports = {name: json.loads(out.read_text()) for name, out in outs.items()}
    assert {n: r["errors"] for n, r in reports.items()} == {"a": [], "b": []}

    both = [f"hostmk-{n}-shared-{i}" for n in HOSTS for i in range(2)]
    for name, r in reports.items():
        other = "b" if name == "a" else "a"
        shared = r["seen"]["shared"]
        assert shared["context"] == sorted(both)  # its own writes and the other host's
        assert shared["facts"] == ["kayaka", "kayakb"] and shared["graph"] == 2  # the cached graph too
        assert r["seen"][f"only-{other}"]["context"] == [f"hostmk-{other}-only{other}-{i}" for i in range(2)]
        after = r["after_forget"]
        assert after == {"context": [], "facts": [], "graph": 0, "search": 0, "episodes": 0}, (name, after)
    assert reports["a"]["forgot"]["episodes"] == 4
    with psycopg.connect(pg_url) as conn:
        for table in ("episodes", "facts", "vectors", "fact_events"):
            assert conn.execute(f"SELECT count(*) FROM {table} WHERE user_id = 'shared'").fetchone() == (0,)
        (kept,) = conn.execute("SELECT count(*) FROM episodes WHERE user_id LIKE 'only-%'").fetchone()
    assert kept == 4
