"""The memory proxy in front of a real model server: recorded upstream traffic, replayed offline.

The official ``openai`` client (sync and async) talks to the proxy (a real uvicorn server
on ``127.0.0.1``); the proxy's upstream is SmolLM2-135M-Instruct served by
``llama-cpp-python[server]`` (``--chat_format chatml-function-calling``, see
``tests/record_cassettes.py``), whose real requests and answers are vcrpy cassettes under
``tests/cassettes/proxy/`` (pytest-recording).

Only the proxy -> upstream side is recorded and replayed. vcrpy patches ``httpx`` in the
whole test process, so it also sees the client's calls to the proxy (running in a thread
of this process); those are addressed to ``127.0.0.1`` and passed through untouched
(``ignore_hosts``), while the upstream is addressed as ``localhost`` (``localhost:9``,
the discard port, in replay: a request vcrpy does not answer fails loudly).

Replay matches each upstream request on method, path, ``stream`` and the messages with the
``<nova-memory>...</nova-memory>`` section taken out of the system message (its recalled
lines carry dates and ids that change from run to run). The section itself is asserted
separately, in the request the proxy sends in this run and in the recorded one.

In replay a recorded event stream is served event by event (as llama.cpp sent it), not as
one block, so the proxy's tee sees the real chunking.

The model is weak: the tests keep its answers as recorded (temperature 0, ``max_tokens``
32) and assert what the proxy does with them: passed to the client unchanged, captured as
the assistant turn. Re-record with a model server running::

    .venv/bin/python tests/record_cassettes.py --url http://127.0.0.1:8766 --only proxy

(without ``--only`` it re-records ``test_llm_http.py`` too). A new recording may give new
answers: update the ``RECORDED_*`` constants below (``git diff tests/cassettes/proxy``).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import openai
import pytest
from server_harness import ServerThread, wait_for

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.section import MEMORY_SECTION_END, MEMORY_SECTION_START, SECTION_RE
from nova_memory_integrations.server import ServerConfig, create_app

CASSETTES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cassettes", "proxy")
PROXY_HOST = "127.0.0.1"
"""The proxy's own host: vcrpy leaves this traffic alone."""
REPLAY_UPSTREAM = "http://localhost:9/v1"
"""In replay the upstream is the discard port: a request vcrpy does not answer fails."""
MODEL = "smollm2-135m-instruct"
KEY = "sk-local-test"
SYSTEM = "You are a helpful assistant. Answer in one short sentence."

RECORDED_SYNC_REPLY = "Your dog is called Rex."
RECORDED_STREAM_REPLY = "I'm allergic to peanuts."
RECORDED_ASYNC_REPLY = ("I'm not sure what your favourite colour is, but I can tell you that it's a very rare and "
                        'precious color. It\'s called "Nova-')
"""Cut off by ``max_tokens`` (32), and wrong although the memory holds the answer: a weak model."""
RECORDED_ASYNC_STREAM_REPLY = "You can't live in a place called Nova-\n&lt;/memory&gt;"
"""The model echoes (escaped) a tag of the memory block it was given."""


def _recording(request: pytest.FixtureRequest) -> bool:
    return str(request.config.getoption("--record-mode")) not in ("none", "None")


# -- vcr: only the upstream side, matched without the memory section ------------------------------


def _messages_without_memory(request: Any) -> object:
    try:
        body = json.loads(request.body or b"{}")
    except (ValueError, TypeError):
        return request.body
    messages = []
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "system" and isinstance(message.get("content"), str):
            stripped = SECTION_RE.sub("", message["content"]).strip()
            if not stripped:
                continue  # a system message the proxy added only for the memory section
            message = {**message, "content": stripped}
        messages.append(message)
    return {"stream": body.get("stream"), "messages": messages}


def _upstream_messages(recorded: Any, sent: Any) -> None:
    """vcrpy matcher: same ``stream`` and messages once the ``<nova-memory>`` section is taken out."""
    assert _messages_without_memory(recorded) == _messages_without_memory(sent), \
        "the upstream request differs from the recorded one (memory section aside)"


class _MatcherPlugin:
    """Registers the matcher with each VCR that pytest-recording builds (tests/conftest.py does
    the same for ``llm_messages``; kept here so the module is self-contained)."""

    def pytest_recording_configure(self, config: pytest.Config, vcr: Any) -> None:
        vcr.register_matcher("upstream_messages", _upstream_messages)


SENT: list[Any] = []
"""The upstream requests of the running test as vcrpy saw them (memory section included)."""


def _track_upstream(request: Any) -> Any:
    """``before_record_request`` hook: vcrpy calls it (with a copy) for every request it sees,
    several times per request; keep one copy of each distinct upstream request."""
    if not any(r.method == request.method and r.uri == request.uri and r.body == request.body for r in SENT):
        SENT.append(request)
    return request


@pytest.fixture(scope="module")
def vcr_cassette_dir() -> str:
    return CASSETTES


@pytest.fixture(scope="module")
def vcr_config(pytestconfig: pytest.Config) -> dict[str, Any]:
    if not pytestconfig.pluginmanager.has_plugin("nova-proxy-recorded-matcher"):
        pytestconfig.pluginmanager.register(_MatcherPlugin(), "nova-proxy-recorded-matcher")
    return {
        "match_on": ["method", "path", "upstream_messages"],
        "ignore_hosts": [PROXY_HOST],
        "before_record_request": _track_upstream,
        "filter_headers": ["authorization", "cookie", "set-cookie"],
        "decode_compressed_response": True,
    }


class _EventStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A replayed body served in parts (one server-sent event each)."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = parts

    def __iter__(self) -> Iterator[bytes]:
        yield from self.parts

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for part in self.parts:
            yield part


@pytest.fixture(autouse=True)
def events_one_by_one(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """In replay, a recorded ``text/event-stream`` body is served event by event (vcrpy would
    hand it over as one block). Yields the number of parts of each replayed stream."""
    from vcr.stubs import httpx_stubs

    served: list[int] = []
    real = httpx_stubs._deserialize_response

    def deserialize(vcr_response: Any, httpx_module: Any) -> Any:
        response = real(vcr_response, httpx_module)
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            body = vcr_response["body"]["string"]
            body = body if isinstance(body, bytes) else str(body).encode()
            parts = re.findall(rb".*?(?:\r\n\r\n|\n\n)|.+", body, re.S)
            served.append(len(parts))
            response.stream = _EventStream(parts)
        return response

    monkeypatch.setattr(httpx_stubs, "_deserialize_response", deserialize)
    SENT.clear()
    yield served
    SENT.clear()


@pytest.fixture
def upstream(request: pytest.FixtureRequest) -> str:
    """The model server while recording (``NOVA_TEST_LLM_URL``, addressed as ``localhost`` so
    it is told apart from the proxy), else the discard port."""
    if not _recording(request):
        return REPLAY_UPSTREAM
    url = os.environ.get("NOVA_TEST_LLM_URL")
    if not url:
        pytest.fail("recording needs NOVA_TEST_LLM_URL (see tests/record_cassettes.py)")
    parts = urlsplit(url.rstrip("/"))
    if parts.hostname in (PROXY_HOST, "0.0.0.0"):
        parts = parts._replace(netloc=f"localhost:{parts.port or 80}")
    return urlunsplit(parts) + "/v1"


@pytest.fixture
def proxy(store: NovaStore, upstream: str, vcr: Any) -> Iterator[ServerThread]:
    """The memory server on 127.0.0.1 (inside the cassette: stopped before it is saved)."""
    srv = ServerThread(create_app(store, ServerConfig(mcp=False, upstream=upstream))).start()
    assert urlsplit(srv.url).hostname == PROXY_HOST
    yield srv
    srv.stop()


def _client(srv: ServerThread, **headers: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{srv.url}/v1", api_key=KEY, max_retries=0, timeout=600,
                         default_headers=headers)


def _aclient(srv: ServerThread) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=f"{srv.url}/v1", api_key=KEY, max_retries=0, timeout=600)


def _ask(question: str) -> dict[str, Any]:
    return {"model": MODEL, "max_tokens": 32, "temperature": 0,
            "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]}


def _body(request: Any) -> dict[str, Any]:
    return json.loads(request.body)  # type: ignore[no-any-return]


def _memory_of(request: Any) -> str:
    """The memory section of a chat request's system message (asserting where it sits)."""
    system = _body(request)["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith(SYSTEM + "\n\n" + MEMORY_SECTION_START)
    assert system["content"].endswith(MEMORY_SECTION_END)
    return str(system["content"][len(SYSTEM) + 2:])


def _chats(requests: list[Any]) -> list[Any]:
    return [r for r in requests if r.method == "POST" and r.path.endswith("/chat/completions")]


def _sse_contents(body: bytes) -> list[str]:
    """The content deltas of a recorded event stream, in order."""
    out = []
    for line in body.decode().splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            for choice in json.loads(line[6:]).get("choices", []):
                if (choice.get("delta") or {}).get("content"):
                    out.append(choice["delta"]["content"])
    return out


def _recorded_body(vcr: Any, index: int) -> bytes:
    body = vcr.responses[index]["body"]["string"]
    return body if isinstance(body, bytes) else str(body).encode()


def _recorded_reply(request: pytest.FixtureRequest, vcr: Any, index: int, expected: str) -> str:
    """The reply text of the ``index``-th recorded answer (a completion or an event stream);
    in replay it must be ``expected`` (the constant naming it above)."""
    body = _recorded_body(vcr, index)
    if body.lstrip().startswith(b"data:"):
        text = "".join(_sse_contents(body))
    else:
        text = json.loads(body)["choices"][0]["message"]["content"]
    if not _recording(request):
        assert text == expected, "the cassette changed: update the RECORDED_* constants"
    return str(text)


def _assistant(store: NovaStore, user: str, count: int = 1) -> list[Any]:
    turns: list[Any] = wait_for(lambda: len(t := [e for e in store.episodes(user) if e.role == "assistant"]) >= count
                                and t)
    return turns


# -- cases ----------------------------------------------------------------------------------------


@pytest.mark.vcr
def test_memory_is_injected_and_the_real_reply_captured(store: NovaStore, proxy: ServerThread, vcr: Any,
                                                        request: pytest.FixtureRequest) -> None:
    store.add_turn("alice", "user", "My dog is called Rex and he loves the beach.")
    reply = _client(proxy, **{"X-Nova-Session": "s1"}).chat.completions.create(
        user="alice", **_ask("What is my dog called?"))
    recorded = _recorded_reply(request, vcr, 0, RECORDED_SYNC_REPLY)
    assert reply.choices[0].message.content == recorded
    assert reply.model == MODEL
    # the request the proxy sent in this run, and the one recorded: the memory is in its section
    (sent,) = _chats(SENT)
    assert "Rex" in _memory_of(sent)
    assert _body(sent)["messages"][1:] == [{"role": "user", "content": "What is my dog called?"}]
    assert (urlsplit(sent.uri).hostname, _body(sent)["max_tokens"]) == ("localhost", 32)
    assert "Rex" in _memory_of(vcr.requests[0])
    # the recorded answer reached the client unchanged and was captured as the assistant turn
    turns = store.episodes("alice", session_id="s1")
    assert [(t.role, t.content) for t in turns] == [("user", "What is my dog called?"), ("assistant", recorded)]
    assert all(t.metadata == {"source": "nova-memory-proxy", "model": MODEL} for t in turns)
    assert len(vcr.requests) == 1


@pytest.mark.vcr
def test_a_real_stream_passes_through_and_is_captured(store: NovaStore, proxy: ServerThread, vcr: Any,
                                                      events_one_by_one: list[int],
                                                      request: pytest.FixtureRequest) -> None:
    store.add_turn("bob", "user", "I am allergic to peanuts.")
    stream = _client(proxy).chat.completions.create(user="bob", stream=True,
                                                    **_ask("Which food am I allergic to?"))
    chunks = [c for c in stream]
    deltas = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert "".join(deltas) == _recorded_reply(request, vcr, 0, RECORDED_STREAM_REPLY)
    # every event llama.cpp sent reached the client as its own chunk, in order
    recorded = _recorded_body(vcr, 0)
    assert deltas == _sse_contents(recorded)
    assert len(chunks) == recorded.count(b"data: {") and recorded.rstrip().endswith(b"data: [DONE]")
    assert {c.id for c in chunks} == {json.loads(recorded.split(b"\n", 1)[0][6:])["id"]}
    (sent,) = _chats(SENT)
    assert "peanuts" in _memory_of(sent) and _body(sent)["stream"] is True
    assert "peanuts" in _memory_of(vcr.requests[0])
    (turn,) = _assistant(store, "bob")
    assert turn.content == "".join(deltas) and "incomplete" not in turn.metadata
    if events_one_by_one:  # replay: the proxy was handed the stream event by event
        assert events_one_by_one == [recorded.count(b"data: ")]


@pytest.mark.vcr
async def test_async_client_streaming_and_not(store: NovaStore, proxy: ServerThread, vcr: Any,
                                              request: pytest.FixtureRequest) -> None:
    store.add_turn("carol", "user", "My favourite colour is green.")
    store.add_turn("carol", "user", "I live in Lisbon, Portugal.")
    client = _aclient(proxy)
    reply = await client.chat.completions.create(user="carol", **_ask("What is my favourite colour?"))
    stream = await client.chat.completions.create(user="carol", stream=True, **_ask("Where do I live?"))
    text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
    await client.close()
    assert reply.choices[0].message.content == _recorded_reply(request, vcr, 0, RECORDED_ASYNC_REPLY)
    assert text == _recorded_reply(request, vcr, 1, RECORDED_ASYNC_STREAM_REPLY)
    first, second = _chats(SENT)
    assert "green" in _memory_of(first) and "Lisbon" in _memory_of(second)
    turns = await asyncio.to_thread(_assistant, store, "carol", 2)
    assert [t.content for t in turns] == [reply.choices[0].message.content, text]


@pytest.mark.vcr
def test_models_pass_through(proxy: ServerThread, vcr: Any) -> None:
    models = _client(proxy).models.list()
    assert [m.id for m in models.data] == [MODEL]
    resp = httpx.get(f"{proxy.url}/v1/models", headers={"Authorization": f"Bearer {KEY}"})
    assert resp.status_code == 200 and resp.content == _recorded_body(vcr, 0)  # byte for byte
    assert [(r.method, r.path) for r in vcr.requests] == [("GET", "/v1/models")] * 2
    assert [(r.method, urlsplit(r.uri).hostname) for r in SENT] == [("GET", "localhost")]
