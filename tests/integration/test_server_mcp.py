"""MCP tools through the official ``mcp`` client: streamable HTTP on the server app, and stdio
(``nova-memory mcp`` in a subprocess), over real stores with the default embeddings."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, ClientSession
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from server_harness import ServerThread

from nova_memory_integrations import NovaStore
from nova_memory_integrations.server import ServerConfig, create_app

ALICE_KEY = "alice-mcp-key-0123456789"
ADMIN_KEY = "admin-mcp-key-0123456789"
TOOLS = {"remember", "recall", "search", "facts", "pinned_blocks", "edit_pinned_block", "rules", "rule_proposals",
         "adopt_rule", "delete_rule", "hide", "restore", "forget"}


@pytest.fixture
def mcp_server(store: NovaStore) -> Iterator[ServerThread]:
    srv = ServerThread(create_app(store, ServerConfig(api_keys={ALICE_KEY: "alice", ADMIN_KEY: None}))).start()
    yield srv
    srv.stop()


def text_of(result: Any) -> str:
    return "\n".join(getattr(c, "text", "") for c in result.content)


async def session_call(url: str, key: str, calls: list[tuple[str, dict[str, Any]]]) -> tuple[set[str], list[Any]]:
    async with httpx2.AsyncClient(headers={"X-Nova-Key": key}, timeout=60) as http, \
            streamable_http_client(url, http_client=http) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {t.name for t in (await session.list_tools()).tools}
        return tools, [await session.call_tool(name, args) for name, args in calls]


async def test_mcp_tools_over_streamable_http(mcp_server: ServerThread, store: NovaStore) -> None:
    url = f"{mcp_server.url}/mcp"
    tools, (stored,) = await session_call(url, ADMIN_KEY, [("remember", {"user_id": "bob", "content":
                                                                          "Bob's locker code is 9182."})])
    assert tools == TOOLS and not stored.is_error
    _, results = await session_call(url, ALICE_KEY, [
        ("remember", {"user_id": "alice", "content": "I live in Lisbon and I drink green tea every morning."}),
        ("recall", {"user_id": "alice", "query": "What does the user drink?"}),
        ("search", {"user_id": "alice", "query": "tea", "k": 3}),
        ("facts", {"user_id": "alice"}),
        ("recall", {"user_id": "bob", "query": "locker code"}),
        ("search", {"user_id": "bob", "query": "locker code"}),
        ("forget", {"user_id": "bob"}),
    ])
    remembered, recalled, searched, facts, other_recall, other_search, other_forget = results
    assert not remembered.is_error and json.loads(text_of(remembered))["user_id"] == "alice"
    assert "green tea" in text_of(recalled)
    assert "green tea" in text_of(searched)
    assert not facts.is_error
    for denied in (other_recall, other_search, other_forget):
        assert denied.is_error and "own user" in text_of(denied) and "9182" not in text_of(denied)
    assert "9182" not in json.dumps([text_of(r) for r in results])
    assert len(store.episodes("bob")) == 1  # the pinned key could not erase bob
    _, (erased,) = await session_call(url, ALICE_KEY, [("forget", {"user_id": "alice"})])
    assert json.loads(text_of(erased))["episodes"] == 1 and store.episodes("alice") == []
    r = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "missing_api_key"


async def test_mcp_hide_and_restore(mcp_server: ServerThread, store: NovaStore) -> None:
    url = f"{mcp_server.url}/mcp"
    kept = store.add_turn("alice", "user", "I drink green tea every morning.")
    secret = store.add_turn("alice", "user", "My locker code is 4821.")
    bobs = store.add_turn("bob", "user", "Bob's locker code is 9182.")
    _, (hidden, recalled, other, restored) = await session_call(url, ALICE_KEY, [
        ("hide", {"user_id": "alice", "ids": [secret.id]}),
        ("recall", {"user_id": "alice", "query": "locker code"}),
        ("hide", {"user_id": "bob", "ids": [bobs.id]}),
        ("restore", {"user_id": "alice", "ids": [secret.id]}),
    ])
    assert json.loads(text_of(hidden))["episodes"] == [secret.id]
    assert "4821" not in text_of(recalled)
    assert other.is_error and "own user" in text_of(other)
    assert json.loads(text_of(restored))["episodes"] == [secret.id]
    assert {e.id for e in store.episodes("alice")} == {kept.id, secret.id}
    assert [e.id for e in store.episodes("bob")] == [bobs.id]


async def test_mcp_pinned_blocks_are_edited_and_recalled_per_user(mcp_server: ServerThread, store: NovaStore) -> None:
    url = f"{mcp_server.url}/mcp"
    store.set_block("bob", "human", "Bob's locker code is 9182.")
    _, (edited, appended, listed, recalled, other, too_long) = await session_call(url, ALICE_KEY, [
        ("edit_pinned_block", {"user_id": "alice", "name": "human", "content": "Alice, a pilot."}),
        ("edit_pinned_block", {"user_id": "alice", "name": "human", "append": "Vegan."}),
        ("pinned_blocks", {"user_id": "alice"}),
        ("recall", {"user_id": "alice", "query": "weather tomorrow"}),
        ("pinned_blocks", {"user_id": "bob"}),
        ("edit_pinned_block", {"user_id": "alice", "name": "human", "content": "x" * 5000}),
    ])
    assert "Alice, a pilot." in text_of(edited) and "Vegan." in text_of(appended)
    assert "Vegan." in text_of(listed) and "Alice, a pilot." in text_of(recalled)
    assert other.is_error and "9182" not in text_of(other)
    assert "at most 2000 characters" in text_of(too_long)  # told to the model, not stored
    assert [b.author for b in store.block_history("alice", "human")] == ["agent", "agent"]


async def test_mcp_tools_over_stdio(tmp_path: Path, minilm_onnx: object) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "nova_memory_integrations", "mcp", "--path", str(tmp_path / "mem"),
                                      "--user", "alice"],
        env={**os.environ, "NOVA_MEMORY_OFFLINE": "1"})
    async with Client(params, read_timeout_seconds=120) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOLS
        stored = await client.call_tool("remember", {"user_id": "alice", "content": "My cat is named Miso."})
        assert not stored.is_error, text_of(stored)
        recalled = await client.call_tool("recall", {"user_id": "alice", "query": "What is my cat's name?"})
        assert "Miso" in text_of(recalled)
        bad = await client.call_tool("remember", {"user_id": "alice", "content": "   "})
        assert bad.is_error and "InvalidInputError" in text_of(bad)
        other = await client.call_tool("search", {"user_id": "bob", "query": "cat"})
        assert other.is_error and "own user" in text_of(other)
        at = await client.call_tool("facts", {"user_id": "alice", "as_of": "2020-01-01T00:00:00+00:00"})
        assert not at.is_error
    with NovaStore(tmp_path / "mem", embeddings=minilm_onnx) as s:  # type: ignore[arg-type]
        assert [e.content for e in s.episodes("alice")] == ["My cat is named Miso."] and s.users() == ["alice"]
