"""Scale-out: ``NovaStore(chroma_client=chromadb.HttpClient(...))`` against a real Chroma server.

The test starts ``chroma run`` itself on a free port with a tmp data dir.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaConfig, NovaStore

T0 = datetime(2024, 5, 1, tzinfo=timezone.utc)


def _chroma_binary() -> str | None:
    local = Path(sys.executable).parent / "chroma"
    return str(local) if local.exists() else shutil.which("chroma")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    binary = _chroma_binary()
    if binary is None:
        pytest.skip("the `chroma` server binary (chromadb's CLI) is not installed next to this Python or on PATH")
    port = _free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
    env = dict(os.environ, ANONYMIZED_TELEMETRY="False")
    proc = subprocess.Popen([binary, "run", "--path", str(data / "db"), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.close()
                    pytest.fail("chroma server did not start:\n" + (data / "server.log").read_text()[-2000:])
                time.sleep(0.2)
        yield "127.0.0.1", port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
        log.close()


def _client(host: str, port: int) -> Any:
    import chromadb
    from chromadb.config import Settings

    return chromadb.HttpClient(host=host, port=port, settings=Settings(anonymized_telemetry=False))


def test_main_flows_against_a_chroma_server(chroma_server: tuple[str, int], tmp_path: Path, minilm: Any) -> None:
    host, port = chroma_server
    store = NovaStore(tmp_path / "a", embeddings=minilm, chroma_client=_client(host, port))
    try:
        store.add_turns([
            {"user_id": "alice", "role": "user", "content": "I live in Lisbon and I work at Acme.", "timestamp": T0},
            {"user_id": "alice", "role": "user", "content": "My dog Pixel loves the beach.", "timestamp": T0},
            {"user_id": "bob", "role": "user", "content": "I live in Oslo.", "timestamp": T0},
        ])
        res = store.consolidate()
        assert res.episodes_processed == 3 and res.added >= 3
        store.add_rule("alice", "user asks for code", "answer in Rust")
        hits = store.search("where does she live?", "alice", k=5, kinds=("episode", "fact"))
        assert hits and all(h.episode is None or h.episode.user_id == "alice" for h in hits)
        assert all("Oslo" not in h.text for h in hits)
        assert store.rules("alice", "can you write some code for me?")[0].action == "answer in Rust"
        ctx = store.context("Where does the user live?", "alice")
        assert "Lisbon" in ctx.text and "Oslo" not in ctx.text
        store.flush()  # the rule's vector is written by the background indexer
        remote = _client(host, port)
        v = store.components.vectors
        names = {c.name for c in remote.list_collections()}
        alice = {v.collection_name(kind, "alice") for kind in ("episode", "fact", "rule")}
        assert alice <= names and v.collection_name("rule", "bob") not in names  # bob has no rule
        assert remote.get_collection(v.collection_name("episode", "alice")).count() == 2
        assert remote.get_collection(v.collection_name("episode", "bob")).count() == 1
        assert remote.get_collection(v.collection_name("episode", "alice")).metadata["user_id"] == "alice"
        assert v.count("episode") == 3

        assert store.reindex() >= 3 + 1
        assert store.search("dog at the beach", "alice", k=1, kinds=("episode",))[0].text.startswith("My dog")

        store.forget("alice")
        assert store.components.vectors.get_user_ids("episode", "alice") == []
        assert not alice & {c.name for c in remote.list_collections()}
        assert remote.get_collection(v.collection_name("episode", "bob")).count() == 1  # bob's turn
    finally:
        store.close()


def test_two_stores_share_one_server_with_prefixes(chroma_server: tuple[str, int], tmp_path: Path,
                                                   minilm: Any) -> None:
    host, port = chroma_server
    cfg = NovaConfig.from_dict({"storage": {"collection_prefix": "tenant_b"}})
    with NovaStore(tmp_path / "b", embeddings=minilm, chroma_client=_client(host, port), config=cfg) as b:
        b.add_turn("alice", "user", "Tenant B's alice likes chess.")
        hits = b.search("chess", "alice", k=3)
        assert [h.text for h in hits] == ["Tenant B's alice likes chess."]
        remote = _client(host, port)
        assert remote.get_collection(b.components.vectors.collection_name("episode", "alice")).count() == 1
        assert b.components.vectors.collection_name("episode", "alice").startswith("tenant_b_episode_")
        assert b.components.vectors.count("episode") == 1  # the "nova" store's collections are not counted
