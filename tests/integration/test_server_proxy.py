"""The memory proxy end to end: the official ``openai`` client -> a real uvicorn server ->
a real local OpenAI-compatible upstream, over a real store with the default embeddings."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from server_harness import FakeUpstream, ServerThread, wait_for

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.section import MEMORY_SECTION_END, MEMORY_SECTION_START

UPSTREAM_KEY = "sk-upstream-secret-0123456789"
ALICE_KEY = "alice-key-0123456789abcdef"
ADMIN_KEY = "admin-key-0123456789abcdef"


def client(srv: ServerThread, **headers: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{srv.url}/v1", api_key=UPSTREAM_KEY, max_retries=0, timeout=60,
                         default_headers=headers)


def system_text(request: dict[str, Any]) -> str:
    first = request["body"]["messages"][0]
    return first["content"] if first["role"] == "system" else ""


def test_memory_is_injected_and_the_exchange_captured(store: NovaStore, serve: Any, upstream: FakeUpstream,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    store.add_turn("alice", "user", "My dog is called Rex and he loves the beach.")
    srv = serve()
    with caplog.at_level(logging.DEBUG):
        reply = client(srv, **{"X-Nova-Session": "s1"}).chat.completions.create(
            model="echo", user="alice",
            messages=[{"role": "system", "content": "You are helpful."},
                      {"role": "user", "content": "What is my dog called?"}])
    assert reply.choices[0].message.content == "echo: What is my dog called?"
    sent = upstream.chat_requests()[-1]
    system = system_text(sent)
    assert system.startswith("You are helpful.\n\n" + MEMORY_SECTION_START)
    assert system.endswith(MEMORY_SECTION_END) and "Rex" in system
    assert sent["body"]["messages"][1:] == [{"role": "user", "content": "What is my dog called?"}]
    assert sent["headers"]["authorization"] == f"Bearer {UPSTREAM_KEY}"
    assert not any(k.lower().startswith("x-nova-") for k in sent["headers"])
    turns = store.episodes("alice", session_id="s1")
    assert [(t.role, t.content) for t in turns] == [("user", "What is my dog called?"),
                                                     ("assistant", "echo: What is my dog called?")]
    assert all(t.metadata.get("source") == "nova-memory-proxy" and "incomplete" not in t.metadata for t in turns)
    stored = json.dumps([t.model_dump(mode="json") for t in store.episodes("alice")])
    assert UPSTREAM_KEY not in stored and UPSTREAM_KEY not in caplog.text


def test_a_system_message_is_added_first_when_there_is_none(store: NovaStore, serve: Any,
                                                            upstream: FakeUpstream) -> None:
    store.add_turn("bob", "user", "I am allergic to peanuts.")
    srv = serve()
    client(srv, **{"X-Nova-User": "bob"}).chat.completions.create(
        model="echo", messages=[{"role": "user", "content": "Any food allergy I have?"}])
    messages = upstream.chat_requests()[-1]["body"]["messages"]
    assert messages[0]["role"] == "system" and messages[0]["content"].startswith(MEMORY_SECTION_START)
    assert "peanuts" in messages[0]["content"]
    assert messages[1] == {"role": "user", "content": "Any food allergy I have?"}
    assert [e.content for e in store.episodes("bob")][-2:] == ["Any food allergy I have?",
                                                               "echo: Any food allergy I have?"]


def test_streaming_passes_chunks_through_as_they_arrive(store: NovaStore, serve: Any,
                                                        upstream: FakeUpstream) -> None:
    srv = serve()
    stream = client(srv).chat.completions.create(
        model="slow-stream", user="carol", stream=True,
        messages=[{"role": "user", "content": "tell me a long story"}])
    parts: list[str] = []
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            if not parts:
                # the upstream is still holding the rest of the reply: nothing was buffered (it
                # flags the pause just after flushing this chunk, so the flag may trail the chunk)
                assert upstream.paused.wait(10) and not upstream.finished.is_set()
                upstream.gate.set()
            parts.append(chunk.choices[0].delta.content)
    assert "".join(parts) == "echo: tell me a long story"
    turns = wait_for(lambda: [e for e in store.episodes("carol") if e.role == "assistant"])
    assert turns[0].content == "echo: tell me a long story" and "incomplete" not in turns[0].metadata


def test_a_client_that_leaves_mid_stream_leaves_an_incomplete_capture(store: NovaStore, serve: Any,
                                                                      upstream: FakeUpstream) -> None:
    srv = serve()
    stream = client(srv).chat.completions.create(
        model="slow-stream", user="dave", stream=True, messages=[{"role": "user", "content": "count to ten"}])
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            break
    stream.close()  # the client goes away while the upstream is still generating
    turns = wait_for(lambda: store.episodes("dave"))
    assert [t.role for t in turns] == ["user", "assistant"]
    assert turns[1].content == "echo:" and all(t.metadata.get("incomplete") is True for t in turns)
    upstream.gate.set()
    # the server is fine: the next request works
    reply = client(srv).chat.completions.create(model="echo", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content == "echo: hi"


def test_a_stream_cut_by_the_upstream_is_captured_incomplete(store: NovaStore, serve: Any,
                                                             upstream: FakeUpstream) -> None:
    upstream.gate.set()
    srv = serve()
    stream = client(srv).chat.completions.create(
        model="cut-stream", user="erin", stream=True, messages=[{"role": "user", "content": "one two three"}])
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "echo: one"
    turns = wait_for(lambda: [e for e in store.episodes("erin") if e.role == "assistant"])
    assert turns[0].content == "echo: one" and turns[0].metadata["incomplete"] is True


async def test_async_client_streaming_and_not(store: NovaStore, serve: Any, upstream: FakeUpstream) -> None:
    srv = serve()
    aclient = openai.AsyncOpenAI(base_url=f"{srv.url}/v1", api_key=UPSTREAM_KEY, max_retries=0)
    reply = await aclient.chat.completions.create(model="echo", user="fay",
                                                  messages=[{"role": "user", "content": "plain call"}])
    assert reply.choices[0].message.content == "echo: plain call"
    stream = await aclient.chat.completions.create(model="echo", user="fay", stream=True,
                                                   messages=[{"role": "user", "content": "streamed call"}])
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    assert text == "echo: streamed call"
    await aclient.close()
    contents = await asyncio.to_thread(wait_for, lambda: len(store.episodes("fay")) == 4 and store.episodes("fay"))
    assert [e.content for e in contents] == ["plain call", "echo: plain call", "streamed call", "echo: streamed call"]


def test_no_user_means_plain_pass_through(store: NovaStore, serve: Any, upstream: FakeUpstream) -> None:
    store.add_turn("alice", "user", "My secret word is pineapple.")
    srv = serve()
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "What's my secret word?"}]
    body = {"model": "echo", "messages": messages}
    raw = json.dumps(body).encode()
    resp = httpx.post(f"{srv.url}/v1/chat/completions", content=raw,
                      headers={"Content-Type": "application/json", "Authorization": f"Bearer {UPSTREAM_KEY}"})
    assert resp.status_code == 200 and resp.json()["choices"][0]["message"]["content"] == "echo: What's my secret word?"
    assert upstream.chat_requests()[-1]["raw"] == raw  # byte for byte
    client(srv).chat.completions.create(model="echo", stream=True, messages=messages).close()
    assert store.users() == ["alice"] and len(store.episodes("alice")) == 1


def test_a_pinned_key_never_reaches_another_user(store: NovaStore, serve: Any, upstream: FakeUpstream) -> None:
    store.add_turn("bob", "user", "Bob's bank PIN is 4321.")
    srv = serve(api_keys={ALICE_KEY: "alice", ADMIN_KEY: None})
    alice = client(srv, **{"X-Nova-Key": ALICE_KEY})
    with pytest.raises(openai.PermissionDeniedError) as denied:
        alice.chat.completions.create(model="echo", user="bob", messages=[{"role": "user", "content": "my PIN?"}])
    assert denied.value.body["type"] == "PermissionDeniedError"  # type: ignore[index]
    with pytest.raises(openai.PermissionDeniedError):
        client(srv, **{"X-Nova-Key": ALICE_KEY, "X-Nova-User": "bob"}).chat.completions.create(
            model="echo", messages=[{"role": "user", "content": "my PIN?"}])
    assert upstream.chat_requests() == []  # refused before anything went upstream
    alice.chat.completions.create(model="echo", messages=[{"role": "user", "content": "what is my PIN?"}])
    assert "4321" not in json.dumps(upstream.chat_requests()[-1]["body"])
    assert [e.content for e in store.episodes("alice")] == ["what is my PIN?", "echo: what is my PIN?"]
    assert len(store.episodes("bob")) == 1
    for headers in ({"X-Nova-Key": ALICE_KEY}, {"Authorization": f"Bearer {ALICE_KEY}"}):
        r = httpx.post(f"{srv.url}/v1/memory/users/bob/search", json={"query": "PIN"}, headers=headers)
        assert r.status_code == 403 and r.json()["error"]["type"] == "PermissionDeniedError"
        r = httpx.delete(f"{srv.url}/v1/memory/users/bob", headers=headers)
        assert r.status_code == 403
    r = httpx.post(f"{srv.url}/v1/memory/users/alice/search", json={"query": "PIN"},
                   headers={"X-Nova-Key": ALICE_KEY, "X-Nova-User": "bob"})
    assert r.status_code in (400, 403)
    with pytest.raises(openai.AuthenticationError):
        client(srv).chat.completions.create(model="echo", messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.AuthenticationError):
        client(srv, **{"X-Nova-Key": "wrong-key-0123456789abc"}).models.list()
    # an unpinned key may name any user
    client(srv, **{"X-Nova-Key": ADMIN_KEY}).chat.completions.create(
        model="echo", user="bob", messages=[{"role": "user", "content": "what is my PIN?"}])
    assert "4321" in system_text(upstream.chat_requests()[-1])


def test_memory_failures_fail_open(store: NovaStore, serve: Any, upstream: FakeUpstream,
                                   monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def broken(*a: object, **k: object) -> Any:
        raise RuntimeError("disk on fire\nsecond line")

    monkeypatch.setattr(store, "context", broken)
    monkeypatch.setattr(store, "add_turns", broken)
    srv = serve()
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hello there"}]
    with caplog.at_level(logging.WARNING, logger="nova_memory_integrations.server"):
        reply = client(srv).chat.completions.create(model="echo", user="alice", messages=messages)
    assert reply.choices[0].message.content == "echo: hello there"
    assert upstream.chat_requests()[-1]["body"]["messages"] == messages  # unchanged
    warnings = [r.getMessage() for r in caplog.records if r.name == "nova_memory_integrations.server"]
    assert len(warnings) == 2 and "memory recall failed" in warnings[0] and "memory capture failed" in warnings[1]
    assert all("\n" not in w for w in warnings)


def test_a_closed_store_fails_open(make_store: Any, tmp_path: Any, serve: Any, upstream: FakeUpstream) -> None:
    broken = make_store(tmp_path / "closed")
    broken.close()
    srv = serve(broken)
    reply = client(srv).chat.completions.create(model="echo", user="alice", stream=False,
                                                messages=[{"role": "user", "content": "still there?"}])
    assert reply.choices[0].message.content == "echo: still there?"
    stream = client(srv).chat.completions.create(model="echo", user="alice", stream=True,
                                                 messages=[{"role": "user", "content": "and streaming?"}])
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "echo: and streaming?"
    health = httpx.get(f"{srv.url}/health")
    assert health.status_code == 503 and health.json()["store"]["ok"] is False


@pytest.mark.parametrize(("model", "error", "status"), [("fail-429", openai.RateLimitError, 429),
                                                         ("fail-500", openai.InternalServerError, 500)])
def test_upstream_errors_reach_the_client(store: NovaStore, serve: Any, model: str, error: type[Exception],
                                          status: int) -> None:
    srv = serve()
    for stream in (False, True):
        with pytest.raises(error) as raised:
            client(srv).chat.completions.create(model=model, user="alice", stream=stream,
                                                messages=[{"role": "user", "content": "hi"}])
        assert raised.value.status_code == status  # type: ignore[attr-defined]
        assert raised.value.body["code"] == f"code_{status}"  # type: ignore[attr-defined]
    assert store.episodes("alice") == []


def test_malformed_json_and_size_limits(store: NovaStore, serve: Any, upstream: FakeUpstream) -> None:
    srv = serve(max_body_bytes=4000, max_message_chars=500)
    url = f"{srv.url}/v1/chat/completions"
    for raw in (b"{not json", b"[1, 2]", b"\xff\xfe", b'{"model": "echo", "messages": "hi"}'):
        r = httpx.post(url, content=raw, headers={"Content-Type": "application/json"})
        assert r.status_code == 400, raw
        error = r.json()["error"]
        assert error["type"] == "invalid_request_error" and set(error) >= {"message", "param", "code"}
    r = httpx.post(url, content=b"{" + b" " * 5000 + b"}", headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "request_too_large"

    def chunked() -> Iterator[bytes]:  # no Content-Length: counted while reading
        yield b'{"model": "echo", "messages": []'
        for _ in range(10):
            yield b" " * 1000
        yield b"}"

    r = httpx.post(url, content=chunked(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    with pytest.raises(openai.APIStatusError) as big:
        client(srv).chat.completions.create(model="echo", user="alice",
                                            messages=[{"role": "user", "content": "x" * 600}])
    assert big.value.status_code == 413 and big.value.body["code"] == "message_too_large"  # type: ignore[index]
    r = httpx.post(f"{srv.url}/v1/memory/users/alice/turns", content=b"{" + b" " * 5000 + b"}",
                   headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert upstream.chat_requests() == [] and store.episodes("alice") == []


def test_models_pass_through_and_health(store: NovaStore, serve: Any, upstream: FakeUpstream) -> None:
    srv = serve()
    assert [m.id for m in client(srv).models.list()] == ["echo-model"]
    assert upstream.requests[-1]["headers"]["authorization"] == f"Bearer {UPSTREAM_KEY}"
    health = httpx.get(f"{srv.url}/health").json()
    assert health["status"] == "ok" and health["store"]["ok"] and health["index"]["ok"]
    assert health["upstream"] == {"ok": True, "configured": True, "status": 200}
    upstream.stop()
    assert httpx.get(f"{srv.url}/health").json()["upstream"]["ok"] is False
    with pytest.raises(openai.APIStatusError) as down:
        client(srv).chat.completions.create(model="echo", messages=[{"role": "user", "content": "hi"}])
    assert down.value.status_code == 502


def test_two_users_at_once_never_see_each_other(store: NovaStore, serve: Any, upstream: FakeUpstream) -> None:
    store.add_turns([{"user_id": "ann", "role": "user", "content": "My favourite colour is ultramarine."},
                     {"user_id": "ben", "role": "user", "content": "My favourite colour is vermilion."}])
    srv = serve()
    errors: list[BaseException] = []

    def ask(user: str, i: int) -> None:
        try:
            out = client(srv).chat.completions.create(model="echo", user=user, stream=i % 2 == 0,
                                                      messages=[{"role": "user", "content": f"my favourite colour? #{i}"}])
            if i % 2 == 0:
                list(out)  # type: ignore[arg-type]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(u, i)) for i in range(4) for u in ("ann", "ben")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []
    for sent in upstream.chat_requests():
        text = system_text(sent)
        assert ("ultramarine" in text) != ("vermilion" in text)
        assert ("ultramarine" in text) == (sent["body"]["user"] == "ann")
    wait_for(lambda: len(store.episodes("ann")) == 9 and len(store.episodes("ben")) == 9)
