"""Learnt rules and their proposals over the real servers: REST through httpx, MCP through the
official ``mcp`` client (streamable HTTP), on a real store in "suggest" mode. A user's key reaches
only that user's proposals and rules, whatever path, header or tool argument it names.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from server_harness import ServerThread
from test_server_mcp import session_call, text_of

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.server import ServerConfig, create_app
from nova_memory_integrations.types import LEARNT

ALICE_KEY = "alice-rules-key-0123456789"
BOB_KEY = "bob-rules-key-0123456789"
ADMIN_KEY = "admin-rules-key-0123456789"
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=timezone.utc)
ASKS = {"alice": ["Use metric units.", "In celsius please.", "I prefer metric."],
        "bob": ["Can you put that in bullet points?", "Bullet points please.", "Answer in bullet points."]}


@pytest.fixture
def taught(make_store: Any) -> NovaStore:
    """A store that only suggests rules, where alice asked for metric and bob for bullets in three sessions."""
    config = NovaConfig()
    config.consolidation.learn_rules = "suggest"
    store: NovaStore = make_store(config=config)
    for user, asks in ASKS.items():
        for n, text in enumerate(asks, start=1):
            store.add_turn(user, "user", text, session_id=f"s{n}", timestamp=T0 + timedelta(days=n))
    store.consolidate()
    return store


@pytest.fixture
def server(taught: NovaStore) -> Iterator[ServerThread]:
    keys = {ALICE_KEY: "alice", BOB_KEY: "bob", ADMIN_KEY: None}
    srv = ServerThread(create_app(taught, ServerConfig(api_keys=keys))).start()
    yield srv
    srv.stop()


def _client(srv: ServerThread, key: str) -> httpx.Client:
    return httpx.Client(base_url=f"{srv.url}/v1/memory", headers={"X-Nova-Key": key}, timeout=60)


def test_rest_lists_adopts_and_deletes_a_users_rules(server: ServerThread, taught: NovaStore) -> None:
    with _client(server, ALICE_KEY) as api:
        assert api.get("/users/alice/rules").json() == {"rules": []}  # suggest: nothing adopted by itself
        (proposal,) = api.get("/users/alice/rules/proposals").json()["proposals"]
        assert (proposal["key"], proposal["action"], len(proposal["sessions"])) == ("metric", "Use metric units.", 3)
        r = api.post("/users/alice/rules/proposals/metric/adopt")
        assert r.status_code == 200, r.text
        rule = r.json()["rule"]
        assert rule["metadata"][LEARNT] == "metric" and rule["metadata"]["episode_ids"] == proposal["episode_ids"]
        assert api.get("/users/alice/rules/proposals").json() == {"proposals": []}
        assert [x["id"] for x in api.get("/users/alice/rules").json()["rules"]] == [rule["id"]]
        again = api.post("/users/alice/rules/proposals/metric/adopt")
        assert again.status_code == 404 and again.json()["error"]["type"] == "NotFoundError"
        assert api.delete(f"/users/alice/rules/{rule['id']}").json() == {"deleted": True}
        assert api.delete(f"/users/alice/rules/{rule['id']}").json() == {"deleted": False}
        assert api.get("/users/alice/rules").json() == {"rules": []}
    assert [p.key for p in taught.rule_proposals("bob")] == ["bullets"]  # bob's untouched


def test_rest_a_key_never_reaches_another_users_proposals(server: ServerThread, taught: NovaStore) -> None:
    bob_rule = taught.adopt_rule("bob", "bullets")
    with _client(server, ALICE_KEY) as api:
        for method, path in (("GET", "/users/bob/rules"), ("GET", "/users/bob/rules/proposals"),
                             ("POST", "/users/bob/rules/proposals/bullets/adopt"),
                             ("DELETE", f"/users/bob/rules/{bob_rule.id}")):
            assert api.request(method, path).status_code == 403, (method, path)
        r = api.get("/users/alice/rules/proposals", headers={"X-Nova-User": "bob"})
        assert r.status_code == 400 and "bullets" not in r.text
        assert api.delete(f"/users/alice/rules/{bob_rule.id}").json() == {"deleted": False}  # bob's id, alice's path
        assert api.post("/users/alice/rules/proposals/bullets/adopt").status_code == 404
        episode = taught.episodes("alice")[0].id  # an id that is no rule is not deleted through the rules route
        assert api.delete(f"/users/alice/rules/{episode}").json() == {"deleted": False}
    with _client(server, ADMIN_KEY) as admin:  # an unpinned key names the user in the path
        assert [p["key"] for p in admin.get("/users/alice/rules/proposals").json()["proposals"]] == ["metric"]
    assert [r.id for r in taught.rules("bob")] == [bob_rule.id] and len(taught.episodes("alice")) == 3
    assert httpx.get(f"{server.url}/v1/memory/users/alice/rules", timeout=60).status_code == 401


async def test_mcp_lists_adopts_and_deletes_only_the_callers_rules(server: ServerThread, taught: NovaStore) -> None:
    url = f"{server.url}/mcp"
    tools, (listed, adopted, rules, foreign, foreign_adopt) = await session_call(url, ALICE_KEY, [
        ("rule_proposals", {"user_id": "alice"}),
        ("adopt_rule", {"user_id": "alice", "key": "metric"}),
        ("rules", {"user_id": "alice"}),
        ("rule_proposals", {"user_id": "bob"}),
        ("adopt_rule", {"user_id": "bob", "key": "bullets"}),
    ])
    assert {"rules", "rule_proposals", "adopt_rule", "delete_rule"} <= tools
    assert not listed.is_error and '"metric"' in text_of(listed) and "bullets" not in text_of(listed)
    assert not adopted.is_error and not rules.is_error
    (rule,) = taught.rules("alice")
    assert rule.metadata[LEARNT] == "metric" and rule.id in text_of(rules)
    assert foreign.is_error and foreign_adopt.is_error and "bullets" not in text_of(foreign)
    assert taught.rules("bob") == [] and [p.key for p in taught.rule_proposals("bob")] == ["bullets"]

    _, (unknown, bobs_delete) = await session_call(url, ALICE_KEY, [
        ("adopt_rule", {"user_id": "alice", "key": "metric"}),  # adopted already: no proposal now
        ("delete_rule", {"user_id": "bob", "rule_id": rule.id}),
    ])
    assert unknown.is_error and "NotFoundError" in text_of(unknown) and bobs_delete.is_error
    _, (deleted,) = await session_call(url, ALICE_KEY, [("delete_rule", {"user_id": "alice", "rule_id": rule.id})])
    assert not deleted.is_error and text_of(deleted) == "true" and taught.rules("alice") == []
