"""``nova-memory serve --workers N`` on Postgres (issue #39): several uvicorn worker processes
over one database, started as a user starts them (the console command, in a process of its own)
and reached with the official ``openai`` client by several users at once.

Pinned: both workers serve; every turn is stored once (whichever worker took the request and
captured it); no upstream request carries another user's memory; a user's earlier turns are
recalled whichever worker answers. And ``--workers 2`` on an embedded store is refused, naming
``--database-url``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import FakeUpstream, free_port, wait_for
from typer.testing import CliRunner

from nova_memory_integrations.cli.app import app
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings

openai = pytest.importorskip("openai")
psycopg = pytest.importorskip("psycopg")
USERS = [f"w{n}" for n in range(6)]
MARKER = re.compile(r"parcel-(w\d)-r(\d)")
KEY = "sk-upstream-secret-0123456789"


def workers_of(pid: int) -> set[int]:
    """The live worker processes ``pid`` spawned (Linux ``/proc``; not spawn's resource tracker)."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(c) for c in (task / "children").read_text().split()}
    cmdlines = {c: Path(f"/proc/{c}/cmdline").read_bytes() for c in found}
    return {c for c, cmd in cmdlines.items() if b"spawn_main" in cmd and b"resource_tracker" not in cmd}


@pytest.fixture
def server(tmp_path: Path, pg_url: str, minilm_onnx: OnnxMiniLMEmbeddings) -> Iterator[tuple[str, int, FakeUpstream]]:
    """``nova-memory serve --workers 2`` on the test's database (and the fake upstream), stopped by SIGTERM.
    (``minilm_onnx``: the workers load the session's exported model, never export it.)"""
    upstream = FakeUpstream().start()
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "NOVA_MEMORY_DATABASE_URL"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "from nova_memory_integrations.cli.app import main; main()", "serve",
         "--workers", "2", "--database-url", pg_url, "--port", str(port), "--upstream", upstream.base_url,
         "--no-mcp", "--log-level", "warning", "--path", str(tmp_path / "data")],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        def healthy() -> bool:
            assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
            try:
                return httpx.get(f"{url}/health", timeout=5).json()["store"]["ok"] is True
            except httpx.HTTPError:
                return False

        wait_for(healthy, timeout=240, interval=0.5)
        yield url, proc.pid, upstream
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        upstream.stop()
    assert proc.returncode == 0, out  # SIGTERM: the workers stop gracefully and close their stores


def test_two_workers_on_one_database_store_each_turn_once_per_user(server: tuple[str, int, FakeUpstream],
                                                                   pg_url: str) -> None:
    url, pid, upstream = server
    assert len(workers_of(pid)) == 2
    client = openai.OpenAI(base_url=f"{url}/v1", api_key=KEY, max_retries=0, timeout=120)
    errors: list[BaseException] = []

    def say(user: str, text: str) -> None:
        try:
            reply = client.chat.completions.create(model="echo", user=user, messages=[{"role": "user", "content": text}])
            assert reply.choices[0].message.content == f"echo: {text}"
        except BaseException as exc:
            errors.append(exc)

    def round_(n: int, text: Any) -> None:
        threads = [threading.Thread(target=say, args=(u, text(u, i))) for u in USERS for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        assert errors == []

    def stored() -> list[tuple[str, str, str]]:
        with psycopg.connect(pg_url) as conn:
            return [tuple(r) for r in conn.execute("SELECT user_id, role, content FROM episodes")]

    round_(1, lambda u, i: f"Remember: my parcel-{u}-r1 tracking note number {i} is in the blue folder.")
    per_user = 3 * 2  # three exchanges: the user's turn and the reply
    wait_for(lambda: len(stored()) == len(USERS) * per_user, timeout=120, interval=0.2)
    round_(2, lambda u, i: f"Where is my parcel tracking note {i}? (parcel-{u}-r2)")
    wait_for(lambda: len(stored()) == 2 * len(USERS) * per_user, timeout=120, interval=0.2)
    time.sleep(1.0)  # a late duplicate capture would land now
    rows = stored()
    counts = Counter((u, c) for u, _, c in rows)
    assert len(rows) == 2 * len(USERS) * per_user and set(counts.values()) == {1}  # every turn stored once
    assert all(m.group(1) == u for u, _, c in rows for m in MARKER.finditer(c))  # each under its own user

    recalled: set[str] = set()
    for request in upstream.chat_requests():
        body = request["body"]
        user = body.get("user") or MARKER.search(body["messages"][-1]["content"]).group(1)
        system = body["messages"][0]["content"] if body["messages"][0]["role"] == "system" else ""
        owners = {m.group(1) for m in MARKER.finditer(system)}
        assert owners <= {user}, (user, owners)  # no request carries another user's memory
        if owners and MARKER.search(body["messages"][-1]["content"]).group(2) == "2":
            recalled.add(user)
    assert recalled == set(USERS)  # round 1 recalled in round 2, whichever worker stored and answers


def test_several_workers_on_an_embedded_store_are_refused(tmp_path: Path) -> None:
    env = {"NOVA_MEMORY_DATABASE_URL": ""}
    result = CliRunner().invoke(app, ["serve", "--workers", "2", "--path", str(tmp_path / "data")], env=env)
    assert result.exit_code == 1
    assert "--database-url" in result.output and "--workers 2" in result.output
    assert not (tmp_path / "data" / "nova.sqlite3").exists()  # refused before any store was opened
