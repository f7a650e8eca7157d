"""The REST API under ``/v1/memory/`` on a real uvicorn server over a real store."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

import httpx
import pytest
from server_harness import ServerThread

from nova_memory_integrations import NovaStore
from nova_memory_integrations.server import ServerConfig, create_app

PINNED = "alice-rest-key-0123456789"


@pytest.fixture
def api(store: NovaStore) -> Iterator[httpx.Client]:
    srv = ServerThread(create_app(store, ServerConfig(mcp=False))).start()
    with httpx.Client(base_url=f"{srv.url}/v1/memory", timeout=60) as client:
        yield client
    srv.stop()


def test_turns_search_context_facts_consolidate_forget_round_trip(api: httpx.Client, store: NovaStore) -> None:
    r = api.post("/users/alice/turns", json={"turns": [
        {"content": "I live in Lisbon and I work at Acme.", "timestamp": "2024-01-10T09:00:00+00:00",
         "session_id": "s1"},
        {"role": "assistant", "content": "Noted, Lisbon and Acme.", "timestamp": "2024-01-10T09:00:01+00:00",
         "session_id": "s1", "metadata": {"channel": "web"}},
    ]})
    assert r.status_code == 200, r.text
    episodes = r.json()["episodes"]
    assert [e["role"] for e in episodes] == ["user", "assistant"] and episodes[1]["metadata"] == {"channel": "web"}
    api.post("/users/alice/turns", json={"turns": [{"content": "I moved to Berlin.",
                                                     "timestamp": "2024-06-01T10:00:00+00:00"}]})
    listed = api.get("/users/alice/episodes", params={"session_id": "s1"}).json()["episodes"]
    assert {e["content"] for e in listed} == {"I live in Lisbon and I work at Acme.", "Noted, Lisbon and Acme."}

    hits = api.post("/users/alice/search", json={"query": "where do I work?", "k": 3}).json()["hits"]
    assert hits and "Acme" in hits[0]["text"]

    result = api.post("/users/alice/consolidate").json()
    assert result["added"] >= 2 and result["episodes_processed"] == 3

    def lives_in(**params: str) -> list[str]:
        r = api.get("/users/alice/facts", params={"predicate": "lives_in", **params})
        assert r.status_code == 200, r.text
        return [f["object"] for f in r.json()["facts"]]

    assert lives_in() == ["Berlin"]
    assert lives_in(as_of="2024-03-01T00:00:00+00:00") == ["Lisbon"]
    known = datetime.now(timezone.utc).isoformat()
    assert lives_in(as_of="2024-03-01T00:00:00+00:00", known_at=known) == ["Lisbon"]
    assert sorted(lives_in(history="true")) == ["Berlin", "Lisbon"]
    old = api.get("/users/alice/facts", params={"predicate": "lives_in", "as_of": "2024-03-01T00:00:00+00:00"})
    versions = api.get(f"/users/alice/facts/{old.json()['facts'][0]['id']}/history").json()["facts"]
    assert {f["object"] for f in versions} == {"Lisbon"} and any(f["valid_to"] for f in versions)

    then = api.post("/users/alice/context", json={"query": "Where does the user live?",
                                                   "as_of": "2024-03-01T00:00:00+00:00", "budget_tokens": 200})
    now = api.post("/users/alice/context", json={"query": "Where does the user live?", "format": "plain"})
    assert then.status_code == 200 and now.status_code == 200
    assert "Lisbon" in then.json()["text"] and then.json()["tokens"] <= 200
    assert "Berlin" in now.json()["text"] and now.json()["format"] == "plain"

    forgotten = api.delete("/users/alice").json()["forgotten"]
    assert forgotten["episodes"] == 3
    assert api.get("/users/alice/episodes").json()["episodes"] == [] and store.users() == []


@pytest.fixture
def two_turns(api: httpx.Client) -> list[str]:
    r = api.post("/users/alice/turns", json={"turns": [{"content": "My locker code is 4821."},
                                                        {"content": "I like green tea."}]})
    return [e["id"] for e in r.json()["episodes"]]


def _episode_texts(api: httpx.Client) -> set[str]:
    return {e["content"] for e in api.get("/users/alice/episodes").json()["episodes"]}


def test_hide_takes_a_memory_out_of_every_read(api: httpx.Client, two_turns: list[str]) -> None:
    assert api.post("/users/alice/hide", json={"ids": two_turns[:1]}).json()["hidden"]["episodes"] == two_turns[:1]
    assert _episode_texts(api) == {"I like green tea."}


def test_a_hidden_memory_is_not_in_the_context(api: httpx.Client, two_turns: list[str]) -> None:
    api.post("/users/alice/hide", json={"ids": two_turns[:1]})
    assert "4821" not in api.post("/users/alice/context", json={"query": "locker code"}).json()["text"]


def test_hidden_lists_the_hidden_ids(api: httpx.Client, two_turns: list[str]) -> None:
    api.post("/users/alice/hide", json={"ids": two_turns[:1]})
    assert api.get("/users/alice/hidden").json()["hidden"]["episodes"] == two_turns[:1]


def test_restore_brings_it_back(api: httpx.Client, two_turns: list[str]) -> None:
    api.post("/users/alice/hide", json={"ids": two_turns[:1]})
    assert api.post("/users/alice/restore", json={"ids": two_turns[:1]}).json()["restored"]["episodes"] == two_turns[:1]
    assert _episode_texts(api) == {"My locker code is 4821.", "I like green tea."}


def test_delete_erases_by_id(api: httpx.Client, two_turns: list[str]) -> None:
    assert api.post("/users/alice/delete", json={"ids": two_turns[:1]}).json()["deleted"]["episodes"] == two_turns[:1]
    assert _episode_texts(api) == {"I like green tea."}


def test_another_users_ids_are_not_found_through_this_users_path(
    api: httpx.Client, two_turns: list[str], store: NovaStore
) -> None:
    api.post("/users/bob/hide", json={"ids": two_turns})
    api.post("/users/bob/delete", json={"ids": two_turns})
    assert len(store.episodes("alice")) == 2


def test_hide_of_a_junk_id_is_a_typed_error(api: httpx.Client) -> None:
    r = api.post("/users/alice/hide", json={"ids": ["x" * 100_000]})
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidInputError"


def test_errors_are_json_with_the_typed_errors_name(api: httpx.Client) -> None:
    r = api.post("/users/alice/turns", json={"turns": [{"content": "   "}]})
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidInputError"
    r = api.post("/users/alice/turns", json={"turns": [{"content": "hi", "timestamp": "not a date"}]})
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidInputError"
    r = api.get("/users/alice/facts", params={"as_of": "yesterday-ish"})
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidInputError"
    r = api.post("/users/alice/search", json={"query": "x", "k": 0})
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidInputError"
    r = api.post("/users/" + "u" * 300 + "/search", json={"query": "x"})
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidInputError"
    r = api.post("/users/alice/turns", json={"turns": "nope"})
    assert r.status_code == 422 and r.json()["error"]["type"] == "RequestValidationError"
    r = api.post("/users/alice/search", content=b"{oops", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_json"
    assert api.get("/users/alice/nothing-here").status_code == 404


def test_a_fact_posted_is_explicit_and_a_turn_says_its_source(api: httpx.Client, store: NovaStore) -> None:
    r = api.post("/users/alice/facts", json={"subject": "alice", "predicate": "allergic_to", "object": "penicillin"})
    assert r.status_code == 200 and r.json()["op"] == "ADD"
    (fact,) = store.facts("alice")
    assert (fact.source, fact.importance) == ("explicit", 0.9)
    r = api.post("/users/alice/turns", json={"turns": [{"content": "I like tea."},
                                                       {"content": "I like jazz.", "source": "explicit"}]})
    assert [e["source"] for e in r.json()["episodes"]] == ["inferred", "explicit"]
    assert api.post("/users/alice/turns", json={"turns": [{"content": "x", "source": "told"}]}).status_code == 422


def test_pinned_blocks_are_written_read_appended_and_closed_with_history(api: httpx.Client) -> None:
    r = api.put("/users/alice/blocks/human", json={"content": "Alice, a pilot.", "limit": 60})
    assert r.status_code == 200 and r.json()["limit"] == 60
    assert api.post("/users/alice/blocks/human/append", json={"text": "Vegan."}).json()["content"] == \
        "Alice, a pilot.\nVegan."
    assert api.put("/users/alice/blocks/human", json={"content": "x" * 61}).status_code == 422  # over its limit
    assert api.put("/users/alice/blocks/9bad", json={"content": "x"}).status_code == 422
    assert "Vegan." in api.post("/users/alice/context", json={"query": "weather tomorrow"}).json()["text"]
    assert [b["name"] for b in api.get("/users/alice/blocks").json()["blocks"]] == ["human"]
    assert api.get("/users/bob/blocks").json()["blocks"] == []
    assert api.delete("/users/alice/blocks/human").json() == {"deleted": True}
    assert api.get("/users/alice/blocks").json()["blocks"] == []
    history = api.get("/users/alice/blocks/human/history").json()["blocks"]
    assert [b["content"] for b in history] == ["Alice, a pilot.", "Alice, a pilot.\nVegan."]
    assert all(b["valid_to"] for b in history)


def test_openapi_docs_are_served(api: httpx.Client) -> None:
    base = str(api.base_url).removesuffix("/v1/memory/").removesuffix("/v1/memory")
    spec = httpx.get(f"{base}/openapi.json").json()
    assert {"/v1/chat/completions", "/v1/memory/users/{user_id}/facts", "/v1/memory/users/{user_id}"} <= set(
        spec["paths"])
    assert httpx.get(f"{base}/docs").status_code == 200


def test_a_pinned_key_reaches_only_its_user(store: NovaStore) -> None:
    store.add_turn("bob", "user", "Bob's secret: the vault code is quartz.")
    srv = ServerThread(create_app(store, ServerConfig(mcp=False, api_keys={PINNED: "alice"}))).start()
    try:
        with httpx.Client(base_url=f"{srv.url}/v1/memory", headers={"Authorization": f"Bearer {PINNED}"},
                          timeout=60) as api:
            assert api.post("/users/alice/turns", json={"turns": [{"content": "I like tea."}]}).status_code == 200
            for method, path, body in (("POST", "/users/bob/search", {"query": "vault"}),
                                       ("POST", "/users/bob/context", {"query": "vault"}),
                                       ("GET", "/users/bob/facts", None), ("GET", "/users/bob/episodes", None),
                                       ("POST", "/users/bob/facts", {"subject": "bob", "predicate": "likes",
                                                                     "object": "x"}),
                                       ("POST", "/users/bob/turns", {"turns": [{"content": "hijack"}]}),
                                       ("POST", "/users/bob/consolidate", None), ("DELETE", "/users/bob", None),
                                       ("POST", "/users/bob/hide", {"ids": ["x"]}),
                                       ("POST", "/users/bob/restore", {"ids": ["x"]}),
                                       ("GET", "/users/bob/hidden", None),
                                       ("POST", "/users/bob/delete", {"ids": ["x"]}),
                                       ("GET", "/users/bob/blocks", None),
                                       ("PUT", "/users/bob/blocks/human", {"content": "x"}),
                                       ("POST", "/users/bob/blocks/human/append", {"text": "x"}),
                                       ("GET", "/users/bob/blocks/human/history", None),
                                       ("DELETE", "/users/bob/blocks/human", None)):
                r = api.request(method, path, json=body)
                assert r.status_code == 403, (method, path)
            r = api.post("/users/alice/search", json={"query": "vault"}, headers={"X-Nova-User": "bob"})
            assert r.status_code == 400 and "quartz" not in r.text
            assert "quartz" not in api.post("/users/alice/context", json={"query": "vault code"}).text
        assert httpx.get(f"{srv.url}/v1/memory/users/alice/episodes", timeout=60).status_code == 401
        assert [e.content for e in store.episodes("bob")] == ["Bob's secret: the vault code is quartz."]
    finally:
        srv.stop()
