"""The memory inspector (/ui) over HTTP on a real server and store: keys, tenancy, escaping, headers, actions.

The browser tests (test_ui_browser.py) drive the same pages in chromium; these need no
browser and pin the rules a browser cannot see: status codes, headers, the JSON errors of
actions, that the sign-in cookie opens nothing but /ui.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import free_port, wait_for
from ui_seed import ADMIN_KEY, ALICE_KEY, BOB_SECRET, HOSTILE, KEYS, Seeded, seed

from nova_memory_integrations import NovaStore


@pytest.fixture
def seeded(store: NovaStore) -> Seeded:
    return seed(store)


@pytest.fixture
def keyed(serve: Callable[..., Any], seeded: Seeded) -> Iterator[httpx.Client]:
    srv = serve(api_keys=KEYS)
    with httpx.Client(base_url=srv.url, timeout=120) as client:
        yield client


def _signed_in(client: httpx.Client, key: str) -> httpx.Client:
    r = client.post("/ui/login", json={"key": key})
    assert r.status_code == 200, r.text
    return client


def test_without_a_key_every_page_and_action_is_refused(keyed: httpx.Client, store: NovaStore) -> None:
    for path in ("/ui", "/ui/users/alice", "/ui/users/alice/context?q=colour", "/ui/users/bob/search?q=locker"):
        r = keyed.get(path)
        assert r.status_code == 401, path
        assert 'id="login-form"' in r.text and "locker" not in r.text and "Lisbon" not in r.text
    r = keyed.post("/ui/users/alice/hide", json={"ids": [store.facts("alice")[0].id]})
    assert r.status_code == 401 and r.json()["error"]["code"] == "missing_api_key"
    assert keyed.post("/ui/login", json={"key": "not-a-key-of-this-server"}).status_code == 401
    assert store.hidden("alice") == {"episodes": [], "facts": [], "rules": []}


def test_a_pinned_key_sees_its_own_user_only_whatever_the_url_says(keyed: httpx.Client, store: NovaStore) -> None:
    _signed_in(keyed, ALICE_KEY)
    home = keyed.get("/ui", follow_redirects=False)
    assert home.status_code == 303 and home.headers["location"] == "/ui/users/alice"
    assert "Berlin" in keyed.get("/ui/users/alice").text
    bob_fact = store.facts("bob")[0].id
    for path in ("/ui/users/bob", "/ui/users/bob/search?q=locker", "/ui/users/bob/procedural",
                 f"/ui/users/bob/episodes/{store.episodes('bob')[0].id}", "/ui/users/bob/context?q=locker",
                 "/ui/users/alice?x=1", "/ui/users/bob/graph"):
        r = keyed.get(path, headers={"X-Nova-User": "bob"} if "alice" in path else None)
        assert r.status_code in (400, 403), path
        assert BOB_SECRET not in r.text and "onerror" not in r.text
    # an id of bob's, through alice's own pages: not found, not shown, not touched
    assert keyed.get(f"/ui/users/alice/episodes/{store.episodes('bob')[0].id}").status_code == 404
    assert keyed.post("/ui/users/alice/hide", json={"ids": [bob_fact]}).json() == {
        "hidden": {"episodes": [], "facts": [], "rules": []}}
    assert keyed.post("/ui/users/bob/hide", json={"ids": [bob_fact]}).status_code == 403
    assert keyed.post("/ui/users/bob/forget", json={"confirm": "bob"}).status_code == 403
    assert store.facts("bob")[0].id == bob_fact and "bob" in store.users()
    # the users page of an unpinned key lists everyone; alice's key never reaches that list
    admin = httpx.Client(base_url=str(keyed.base_url), timeout=120)
    with admin:
        _signed_in(admin, ADMIN_KEY)
        listing = admin.get("/ui").text
        assert "/ui/users/alice" in listing and "/ui/users/bob" in listing


def test_the_sign_in_cookie_opens_the_inspector_only(keyed: httpx.Client) -> None:
    _signed_in(keyed, ADMIN_KEY)
    cookie = keyed.cookies.jar
    (session,) = [c for c in cookie if c.name == "nova_ui"]
    assert session.path == "/ui" and session.has_nonstandard_attr("HttpOnly")
    assert session.value != ADMIN_KEY
    assert keyed.get("/ui/users/alice").status_code == 200
    # REST with the cookie sent by hand: still no key
    r = keyed.get("/v1/memory/users/alice/episodes", headers={"Cookie": f"nova_ui={session.value}"})
    assert r.status_code == 401
    keyed.post("/ui/logout", json={})
    assert keyed.get("/ui/users/alice", headers={"Cookie": f"nova_ui={session.value}"}).status_code == 401


def test_memory_text_is_escaped_everywhere_and_the_headers_forbid_inline_script(
        keyed: httpx.Client, store: NovaStore) -> None:
    headers = {"X-Nova-Key": ADMIN_KEY}
    episode = store.episodes("bob")[0].id
    for path in ("/ui/users/bob", "/ui/users/bob/procedural", f"/ui/users/bob/episodes/{episode}",
                 "/ui/users/bob/search?q=locker+code", "/ui/users/bob/context?q=what+does+the+user+like",
                 "/ui/users/bob/graph?entity=user", "/ui/users/bob/changes"):
        r = keyed.get(path, headers=headers)
        assert r.status_code == 200, path
        assert "<script>window" not in r.text and "<img src=x" not in r.text, path
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        assert r.headers["x-content-type-options"] == "nosniff"
    shown = keyed.get("/ui/users/bob/procedural", headers=headers).text
    assert "&lt;script&gt;window.pwned=1&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=&#34;window.pwned=2&#34;&gt;" in shown
    assert HOSTILE not in shown
    # no inline script or style anywhere in the page: the CSP would block it, so none is needed
    assert "<script>" not in shown and " style=" not in shown and "onclick" not in shown


def test_actions_answer_like_rest_and_forgetting_needs_the_typed_id(
        keyed: httpx.Client, store: NovaStore, seeded: Seeded) -> None:
    headers = {"X-Nova-Key": ADMIN_KEY}
    hidden = keyed.post("/ui/users/alice/hide", json={"ids": [seeded.green_id]}, headers=headers)
    assert hidden.json()["hidden"]["facts"] == [seeded.green_id]
    assert "green" not in {f.object for f in store.facts("alice")}
    assert keyed.post("/ui/users/alice/restore", json={"ids": [seeded.green_id]}, headers=headers).status_code == 200
    assert "green" in {f.object for f in store.facts("alice")}
    bad = keyed.post("/ui/users/alice/hide", json={"ids": "x"}, headers=headers)
    assert bad.status_code == 422 and bad.json()["error"]["type"] == "RequestValidationError"
    form = keyed.post("/ui/users/alice/forget", content="confirm=alice", headers={
        **headers, "Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    wrong = keyed.post("/ui/users/alice/forget", json={"confirm": "alic"}, headers=headers)
    assert wrong.status_code == 400 and "alice" in store.users()
    block = keyed.put("/ui/users/alice/blocks/persona", json={"content": "Answers in French."}, headers=headers)
    assert block.status_code == 200 and store.block("alice", "persona").content == "Answers in French."
    assert keyed.post("/ui/users/alice/forget", json={"confirm": "alice"}, headers=headers).status_code == 200
    assert "alice" not in store.users() and store.facts("alice") == []


def test_a_keyless_server_opens_the_inspector_on_loopback_and_refuses_other_sites(
        serve: Callable[..., Any], seeded: Seeded, store: NovaStore) -> None:
    srv = serve()
    with httpx.Client(base_url=srv.url, timeout=120) as client:
        assert client.get("/ui").status_code == 200
        assert client.get("/ui/users/alice?as_of=not-a-date").status_code == 422
        r = client.post("/ui/users/alice/hide", json={"ids": [seeded.green_id]},
                        headers={"Origin": "http://evil.example"})
        assert r.status_code == 403
        r = client.get("/ui", headers={"Host": "evil.example"})
        assert r.status_code == 421
    assert store.hidden("alice")["facts"] == []


def test_nova_memory_ui_serves_the_inspector_of_a_data_directory(tmp_path: Path, minilm_onnx: Any) -> None:
    """``nova-memory ui --path DIR`` as a real process: the embedded store's users and timeline, no key on loopback."""
    data = tmp_path / "data"
    with NovaStore(data, embeddings=minilm_onnx) as s:
        s.add_turns([{"user_id": "carol", "role": "user", "content": "I live in Porto.",
                      "timestamp": "2024-01-10T09:00:00+00:00"}])
        s.consolidate("carol")
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}
    env.pop("NOVA_MEMORY_API_KEYS", None)
    proc = subprocess.Popen([sys.executable, "-m", "nova_memory_integrations", "ui", "--path", str(data),
                             "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def up() -> httpx.Response | None:
            assert proc.poll() is None, proc.communicate()[1]
            try:
                return httpx.get(f"http://127.0.0.1:{port}/ui", timeout=5)
            except httpx.TransportError:
                return None

        users = wait_for(up, timeout=180, interval=0.5)
        assert users.status_code == 200 and "/ui/users/carol" in users.text
        timeline = httpx.get(f"http://127.0.0.1:{port}/ui/users/carol", timeout=60)
        assert timeline.status_code == 200 and "user lives in Porto" in timeline.text
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    assert f"http://127.0.0.1:{port}/ui" in err


def test_the_graph_conflicts_decisions_rules_and_blocks_pages_show_the_users_memory(keyed: httpx.Client) -> None:
    headers = {"X-Nova-Key": ADMIN_KEY}
    graph = keyed.get("/ui/users/alice/graph", params={"entity": "user", "hops": 1}, headers=headers).text
    assert '<svg id="graph"' in graph and "user lives in Berlin" in graph and "user works at Acme" in graph
    assert "user lives in Lisbon" not in graph  # the graph is of what is valid now
    then = keyed.get("/ui/users/alice/graph", params={"entity": "user", "as_of": "2024-03-01T00:00:00Z"},
                     headers=headers).text
    assert "user lives in Lisbon" in then and "user lives in Berlin" not in then
    changes = keyed.get("/ui/users/alice/changes", headers=headers).text
    assert "newer statement supersedes the held fact" in changes  # a conflict and how it was settled
    assert "single-valued predicate: new value supersedes the old one" in changes  # a decision's reason
    procedural = keyed.get("/ui/users/alice/procedural", headers=headers).text
    assert "suggest vegetarian dishes" in procedural and "Prefers short answers." in procedural
    users = keyed.get("/ui", headers=headers).text
    assert "2024-06-02 09:00 UTC" in users  # alice's last turn
