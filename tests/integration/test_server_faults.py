"""The memory proxy when the upstream or the client misbehaves: a slow first byte, a stalled
stream, a success answer that is not JSON, a client that leaves before the first chunk.

Same real pieces as ``test_server_proxy.py``: the official ``openai`` client -> a real
uvicorn server -> ``server_harness.FakeUpstream``, over a real store.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import httpx
import openai
import pytest
from server_harness import FakeUpstream, ServerThread, wait_for

from nova_memory_integrations import NovaStore
from nova_memory_integrations.errors import ConfigError
from nova_memory_integrations.server import ServerConfig

LOGGER = "nova_memory_integrations.server"


def client(srv: ServerThread, timeout: float = 60) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{srv.url}/v1", api_key="sk-test", max_retries=0, timeout=timeout)


def server_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and r.levelno >= logging.WARNING]


def test_the_upstream_read_timeout_is_long_by_default_and_configurable() -> None:
    # a model may think for minutes before its first token: the proxy must not give up first
    assert ServerConfig().upstream_timeout == 600.0
    assert ServerConfig(upstream_timeout=2.5).upstream_timeout == 2.5
    with pytest.raises(ConfigError):
        ServerConfig(upstream_timeout=0)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_a_slow_first_byte_is_waited_for(store: NovaStore, serve: Any, upstream: FakeUpstream,
                                         stream: bool) -> None:
    upstream.first_byte_delay = 1.5  # nothing at all (not even headers) for 1.5 s
    srv = serve(upstream_timeout=30)
    start = time.perf_counter()
    out = client(srv).chat.completions.create(model="slow-first-byte", user="hal", stream=stream,
                                              messages=[{"role": "user", "content": "think hard first"}])
    if stream:
        text = "".join(c.choices[0].delta.content or "" for c in out if c.choices)  # type: ignore[union-attr]
    else:
        text = out.choices[0].message.content  # type: ignore[union-attr]
    assert time.perf_counter() - start >= 1.5
    assert text == "echo: think hard first"
    turns = wait_for(lambda: len(store.episodes("hal")) == 2 and store.episodes("hal"))
    assert [t.content for t in turns] == ["think hard first", "echo: think hard first"]
    assert not any(t.metadata.get("incomplete") for t in turns)


def test_a_stream_whose_first_chunk_is_slow_is_not_held_back(store: NovaStore, serve: Any,
                                                             upstream: FakeUpstream) -> None:
    srv = serve()
    stream = client(srv).chat.completions.create(model="slow-first-chunk", user="ida", stream=True,
                                                 messages=[{"role": "user", "content": "take your time"}])
    # the headers reached the client while the upstream still holds every event (it sets
    # `paused` just after flushing its headers, so the client may get them a moment before)
    assert upstream.paused.wait(10)
    assert not upstream.finished.is_set()
    upstream.gate.set()
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == "echo: take your time"
    wait_for(lambda: len(store.episodes("ida")) == 2)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_an_upstream_slower_than_the_timeout_gets_a_504(store: NovaStore, serve: Any, upstream: FakeUpstream,
                                                        stream: bool) -> None:
    srv = serve(upstream_timeout=0.5)
    start = time.perf_counter()
    with pytest.raises(openai.APIStatusError) as raised:
        client(srv).chat.completions.create(model="slow-first-byte", user="jo", stream=stream,
                                            messages=[{"role": "user", "content": "hello?"}])
    assert time.perf_counter() - start < 10
    assert raised.value.status_code == 504
    assert raised.value.body["code"] == "upstream_timeout"  # type: ignore[index]
    assert store.episodes("jo") == []  # like any upstream error: nothing captured


def test_a_stream_that_stalls_past_the_timeout_is_cut_and_captured_incomplete(
        store: NovaStore, serve: Any, upstream: FakeUpstream, caplog: pytest.LogCaptureFixture) -> None:
    srv = serve(upstream_timeout=0.5)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        stream = client(srv).chat.completions.create(model="slow-stream", user="kim", stream=True,
                                                     messages=[{"role": "user", "content": "go on forever"}])
        text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        turns = wait_for(lambda: len(store.episodes("kim")) == 2 and store.episodes("kim"))
    assert text == "echo:"
    assert [t.content for t in turns] == ["go on forever", "echo:"]
    assert all(t.metadata.get("incomplete") is True for t in turns)
    warnings = server_warnings(caplog)
    assert len(warnings) == 1 and "ReadTimeout" in warnings[0] and "cut" in warnings[0]


def test_invalid_json_from_the_upstream_is_a_502_and_no_garbled_reply(
        store: NovaStore, serve: Any, upstream: FakeUpstream, caplog: pytest.LogCaptureFixture) -> None:
    srv = serve()
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        with pytest.raises(openai.InternalServerError) as raised:
            client(srv).chat.completions.create(model="invalid-json", user="lee",
                                                messages=[{"role": "user", "content": "answer in JSON"}])
        turns = wait_for(lambda: store.episodes("lee"))
    assert raised.value.status_code == 502
    error = raised.value.body
    assert error["type"] == "upstream_error" and error["code"] == "upstream_invalid_response"  # type: ignore[index]
    # only the user message is kept, marked incomplete: nothing of the broken body
    assert [(t.role, t.content) for t in turns] == [("user", "answer in JSON")]
    assert turns[0].metadata["incomplete"] is True
    assert "garbled" not in json.dumps([t.model_dump(mode="json") for t in store.episodes("lee")])
    warnings = server_warnings(caplog)
    assert len(warnings) == 1 and "not a JSON object" in warnings[0]
    # without a user: the same 502, nothing stored
    r = httpx.post(f"{srv.url}/v1/chat/completions", json={"model": "invalid-json", "messages": []}, timeout=30)
    assert r.status_code == 502 and r.json()["error"]["code"] == "upstream_invalid_response"
    assert store.users() == ["lee"]


def test_a_client_that_leaves_before_the_upstream_answers_leaves_an_incomplete_user_turn(
        store: NovaStore, serve: Any, upstream: FakeUpstream) -> None:
    srv = serve()
    for stream in (False, True):
        upstream.paused.clear()
        with pytest.raises(openai.APITimeoutError):  # the client gives up and closes its connection
            client(srv, timeout=1.0).chat.completions.create(
                model="slow-first-byte", user="max", stream=stream, extra_headers={"X-Nova-Session": f"s{stream}"},
                messages=[{"role": "user", "content": f"are you there? stream={stream}"}])
        assert upstream.paused.wait(10)
        # captured at once (not when the upstream finally answers): the upstream call is dropped
        turns = wait_for(lambda: store.episodes("max", session_id=f"s{stream}"), timeout=10)  # noqa: B023
        assert [(t.role, t.content) for t in turns] == [("user", f"are you there? stream={stream}")]
        assert turns[0].metadata["incomplete"] is True
    assert not upstream.finished.is_set()
    upstream.gate.set()
    assert client(srv).chat.completions.create(
        model="echo", messages=[{"role": "user", "content": "still fine"}]).choices[0].message.content == "echo: still fine"
    assert len(store.episodes("max")) == 2


def test_a_client_that_leaves_after_the_headers_before_the_first_chunk(store: NovaStore, serve: Any,
                                                                       upstream: FakeUpstream) -> None:
    srv = serve()
    stream = client(srv).chat.completions.create(model="slow-first-chunk", user="ned", stream=True,
                                                 messages=[{"role": "user", "content": "begin slowly"}])
    assert upstream.paused.wait(10)  # set just after the upstream flushes its headers
    stream.close()  # gone before any event (the body generator never started)
    turns = wait_for(lambda: store.episodes("ned"), timeout=10)
    assert [(t.role, t.content) for t in turns] == [("user", "begin slowly")]
    assert turns[0].metadata["incomplete"] is True
    upstream.gate.set()
    time.sleep(0.3)
    assert len(store.episodes("ned")) == 1  # captured once
