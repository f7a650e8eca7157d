"""Consolidation over real HTTP: recorded traffic of a real local model, replayed offline.

The cassettes under ``tests/cassettes/llm_http/`` hold real requests of the engine to a
real OpenAI-compatible server (SmolLM2-135M-Instruct served by ``llama-cpp-python[server]``
with ``--chat_format chatml-function-calling``; see ``tests/record_cassettes.py``) and
that server's real answers, as vcrpy cassettes (pytest-recording). Faults (429, 500) come
from ``tests/llm_standin.py``, a stand-in in front of the real server, so they too are real
HTTP traffic. Timeouts cannot be recorded (no answer), so that case talks to a slow local
HTTP server instead.

The model is weak: most of its answers are empty, malformed or nonsense. The tests keep
them as they are and assert what the engine does with each one (applied, repaired, asked
again, handed to the deterministic extractor when no usable answer came, dead-lettered when
the calls failed; nothing lost; nothing implausible stored), never that the model was
right. Replay matches each request by method, path and the messages sent, so a change of
the prompt makes the replay fail until the cassettes are recorded again.

Replay needs no server and no network: requests go to the discard port and vcrpy answers
them. Re-record with a model server running: ``python tests/record_cassettes.py``. The
exact expectations below describe the recorded answers (shown in each test's docstring);
a re-recording gives new answers, so check them after re-recording.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaConfig, NovaStore

pytest.importorskip("langchain_openai", reason="langchain-openai is in the test extra")

from langchain_openai import ChatOpenAI

CASSETTES = Path(__file__).resolve().parents[1] / "cassettes" / "llm_http"
REPLAY_URL = "http://127.0.0.1:9"
"""Replayed requests are addressed to the discard port: if vcrpy did not answer, they fail."""
MODEL = "smollm2-135m-instruct"
T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)


def _recording(request: pytest.FixtureRequest) -> bool:
    return str(request.config.getoption("--record-mode")) not in ("none", "None")


@pytest.fixture(scope="module")
def vcr_cassette_dir() -> str:
    return str(CASSETTES)


@pytest.fixture(scope="module")
def vcr_config() -> dict[str, Any]:
    return {
        "match_on": ["method", "path", "llm_messages"],
        "filter_headers": ["authorization", "cookie", "set-cookie"],
        "decode_compressed_response": True,
    }


@pytest.fixture
def upstream(request: pytest.FixtureRequest) -> str:
    """The model server's base URL while recording (``NOVA_TEST_LLM_URL``), else the discard port."""
    if not _recording(request):
        return REPLAY_URL
    url = os.environ.get("NOVA_TEST_LLM_URL")
    if not url:
        pytest.fail("recording needs NOVA_TEST_LLM_URL (see tests/record_cassettes.py)")
    return url.rstrip("/")


def _standin(request: pytest.FixtureRequest, upstream: str, script: str) -> Iterator[str]:
    """While recording, the fault-injecting stand-in in front of ``upstream``; in replay, ``upstream``."""
    if not _recording(request):
        yield upstream
        return
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve().parents[1] / "llm_standin.py"),
         "--upstream", upstream, "--script", script],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        yield f"http://127.0.0.1:{int(line.split()[1])}"
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.fixture
def flaky(request: pytest.FixtureRequest, upstream: str) -> Iterator[str]:
    yield from _standin(request, upstream, "429,500,pass")


@pytest.fixture
def failing(request: pytest.FixtureRequest, upstream: str) -> Iterator[str]:
    yield from _standin(request, upstream, "500,500,500")


def _chat(base: str, **kw: Any) -> ChatOpenAI:
    """The client as a user would build it for a llama.cpp server.

    ``max_tokens`` goes in ``extra_body``: ChatOpenAI sends ``max_completion_tokens``, which
    llama.cpp ignores. ``max_retries=0`` leaves the retrying to the engine, so the cassette
    holds every attempt.
    """
    max_tokens = kw.pop("max_tokens", 300)
    return ChatOpenAI(model=MODEL, base_url=f"{base}/v1", api_key="sk-local-test", temperature=kw.pop("temperature", 0.8),
                      max_retries=0, timeout=kw.pop("timeout", 600), extra_body={"max_tokens": max_tokens}, **kw)


RECORDED_PROMPT = "consolidation-v2"
"""The prompt the cassettes were recorded with: replay matches the messages sent, and the default
prompt has moved on (v3 asks for importance); re-recording needs a model server."""


def _store(make_store: Any, llm: Any, *, retries: int, fallback: str = "warn") -> NovaStore:
    cfg = {"consolidation": {"retry_backoff_seconds": 0.0, "max_retries": retries, "llm_batch_size": 10,
                             "llm_fallback": fallback, "prompt_version": RECORDED_PROMPT}}
    return make_store(config=NovaConfig.from_dict(cfg), llm=llm)  # type: ignore[no-any-return]


FALLBACK_FACTS = {("user", "lives_in", "Berlin"), ("user", "owns", "Tesla")}
"""What the deterministic extractor makes of "I live in Berlin." and "I sold my Honda Civic and
bought a Tesla." (the Civic is only ended, and nothing owned it before)."""


def _add(store: NovaStore, texts: list[str]) -> None:
    for i, text in enumerate(texts):
        store.add_turn("u", "user", text, timestamp=T0 + timedelta(days=i))


def _facts(store: NovaStore) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in store.facts("u")}


def _unprocessed(store: NovaStore) -> int:
    return sum(not e.processed for e in store.episodes("u"))


# -- recorded answers -----------------------------------------------------------------------------


@pytest.mark.vcr
def test_a_real_answer_is_applied(make_store: Any, upstream: str, vcr: Any) -> None:
    """Recorded: ``{"episodes": [{"episode": "1", "operations": []}, {"episode": "2", "operations": []}]}``.

    A well-formed answer (bare numbers are episode references) that finds nothing to
    remember: both episodes are processed, nothing is dead-lettered, one call.
    """
    store = _store(make_store, _chat(upstream), retries=0)
    _add(store, ["I live in Berlin.", "I sold my Honda Civic and bought a Tesla."])
    result = store.consolidate("u")
    assert (result.episodes_processed, result.failed_episodes) == (2, 0)
    assert _facts(store) == set()
    assert store.dead_letters("u") == []
    assert all(e.processed for e in store.episodes("u"))
    assert _calls(vcr) == 1


@pytest.mark.vcr
def test_an_empty_answer_is_asked_again_and_what_stays_unanswered_falls_back(
    make_store: Any, upstream: str, vcr: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Recorded: ``{"episodes": []}``, then (asked again for E1, E2)
    ``{"episodes": [{"episode": "1"}, {"episode": "]);\\n{\\n  "}] }``.

    The second answer settles E1 (nothing to remember) and names an unknown episode; E2
    stays unanswered after the retry, so the deterministic extractor takes it, with one
    warning naming the setting. Nothing is dead-lettered.
    """
    store = _store(make_store, _chat(upstream, seed=4), retries=1)
    _add(store, ["I live in Berlin.", "I sold my Honda Civic and bought a Tesla."])
    result = store.consolidate("u")
    assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (2, 0, 1)
    assert _facts(store) == {("user", "owns", "Tesla")}
    assert store.dead_letters("u") == [] and _unprocessed(store) == 0
    warnings = [r.getMessage() for r in caplog.records if "llm_fallback" in r.getMessage()]
    assert len(warnings) == 1 and "could not be used" in warnings[0]
    assert _calls(vcr) == 2
    assert "Give the entries for E1, E2" in _last_message(vcr, 1)


CUT_OFF = CASSETTES / "test_a_cut_off_answer_is_not_trusted.yaml"


@pytest.mark.vcr(str(CUT_OFF))
@pytest.mark.parametrize("fallback", ["warn", "off"])
def test_a_cut_off_answer_is_not_trusted(make_store: Any, upstream: str, vcr: Any, fallback: str) -> None:
    """Recorded with ``max_tokens=24``: ``{"episodes": [{"episode": "}], "}] }`` (an unknown
    reference), then ``{"episodes": [{"episode": "F-reference of the existing fact this
    UPDATE / DELETE / NO`` (cut off by the token limit).

    The cut answer is repaired, its last (possibly shortened) entry is not trusted, and with
    no whole answer left the deterministic extractor consolidates both episodes; with
    ``llm_fallback = "off"`` both are dead-lettered instead. Nothing is lost either way.
    """
    store = _store(make_store, _chat(upstream, seed=1, max_tokens=24), retries=1, fallback=fallback)
    _add(store, ["I live in Berlin.", "I love jazz."])
    result = store.consolidate("u")
    assert _calls(vcr) == 2
    if fallback == "off":
        assert (result.episodes_processed, result.failed_episodes) == (0, 2)
        assert _unprocessed(store) == 2 and _facts(store) == set()
        assert "cut off" in store.dead_letters("u")[0]["error"]
    else:
        assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (2, 0, 2)
        assert _facts(store) == {("user", "lives_in", "Berlin"), ("user", "likes", "jazz")}
        assert store.dead_letters("u") == [] and _unprocessed(store) == 0


@pytest.mark.vcr
def test_a_rate_limit_and_a_server_error_are_retried(make_store: Any, flaky: str, vcr: Any) -> None:
    """Recorded: 429 (``Retry-After: 0``), then 500, then the real model's answer
    ``{"episodes": [{"episode": "&#34;10/25"}, {"episode": "E2"}]}``.

    Both faults are retried (three calls, the budget of ``max_retries=2``); the answer
    settles E2 (nothing to remember) and not E1, which the deterministic extractor takes.
    """
    store = _store(make_store, _chat(flaky, seed=9), retries=2)
    _add(store, ["I live in Berlin.", "I sold my Honda Civic and bought a Tesla."])
    result = store.consolidate("u")
    assert [r["status"]["code"] for r in vcr.responses] == [429, 500, 200]
    assert _calls(vcr) == 3
    assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (2, 0, 1)
    assert _facts(store) == {("user", "lives_in", "Berlin")}


@pytest.mark.vcr
def test_server_errors_dead_letter_the_batch_and_lose_nothing(make_store: Any, failing: str, vcr: Any) -> None:
    """Recorded: three 500s. After the retries the batch is dead-lettered, its episodes kept: no
    answer came, so the deterministic fallback does not take them (the model may answer later)."""
    store = _store(make_store, _chat(failing, seed=9), retries=2)
    _add(store, ["I live in Berlin.", "I love jazz."])
    result = store.consolidate("u")
    assert (result.episodes_processed, result.failed_episodes) == (0, 2)
    assert _unprocessed(store) == 2
    assert "Error code: 500" in store.dead_letters("u")[0]["error"]
    assert _calls(vcr) == 3


@pytest.mark.vcr
def test_a_streamed_answer_is_assembled(make_store: Any, upstream: str, vcr: Any) -> None:
    """Recorded with ``streaming=True``: ten server-sent events whose tool-call chunks join to
    ``{"episodes": []}``. Joined, it answers no episode; with ``llm_fallback = "off"`` here both
    are dead-lettered, with the reason (by default the deterministic extractor takes them)."""
    store = _store(make_store, _chat(upstream, seed=9, streaming=True), retries=0, fallback="off")
    _add(store, ["I live in Berlin.", "I sold my Honda Civic and bought a Tesla."])
    result = store.consolidate("u")
    assert _body(vcr.responses[0]).count(b"data: {") == 10
    assert (result.episodes_processed, result.failed_episodes) == (0, 2)
    assert "no valid entry for E1, E2" in store.dead_letters("u")[0]["error"]
    assert _calls(vcr) == 1


@pytest.mark.vcr
def test_llamaindex_openai_like_over_http(make_store: Any, upstream: str, vcr: Any) -> None:
    """LlamaIndex's OpenAI-like LLM (function calling) through the same engine path.

    Recorded: ``{"episodes":[]}``. The tool is forced by name (llama.cpp refuses
    ``tool_choice="required"``, which LlamaIndex sends for ``tool_required=True``). The empty
    answer leaves both episodes to the deterministic extractor.
    """
    openai_like = pytest.importorskip("llama_index.llms.openai_like")
    llm = openai_like.OpenAILike(
        model=MODEL, api_base=f"{upstream}/v1", api_key="sk-local-test", is_chat_model=True,
        is_function_calling_model=True, temperature=0.8, max_tokens=300, max_retries=0,
        additional_kwargs={"seed": 9},
    )
    store = _store(make_store, llm, retries=0)
    _add(store, ["I live in Berlin.", "I sold my Honda Civic and bought a Tesla."])
    result = store.consolidate("u")
    sent = json.loads(vcr.requests[0].body)
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "record_memory_operations"}}
    assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (2, 0, 2)
    assert _facts(store) == FALLBACK_FACTS
    assert _calls(vcr) == 1


def _calls(vcr: Any) -> int:
    """Requests the engine made: played back in replay, recorded while recording."""
    return int(vcr.play_count) if vcr.record_mode == "none" else len(vcr.data)


def _last_message(vcr: Any, index: int) -> str:
    return str(json.loads(vcr.requests[index].body)["messages"][-1]["content"])


def _body(response: dict[str, Any]) -> bytes:
    body = response["body"]["string"]
    return body if isinstance(body, bytes) else str(body).encode()


# -- a timeout: nothing to record, so a real slow server ------------------------------------------


class _Slow(BaseHTTPRequestHandler):
    delay = 2.0
    hits = 0

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        type(self).hits += 1
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        time.sleep(self.delay)
        try:
            self.send_response(500)
            self.end_headers()
        except OSError:
            pass


@pytest.fixture
def slow_server() -> Iterator[str]:
    _Slow.hits = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Slow)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_timeouts_are_retried_then_dead_lettered(make_store: Any, slow_server: str) -> None:
    store = _store(make_store, _chat(slow_server, timeout=0.3), retries=1)
    _add(store, ["I live in Berlin."])
    result = store.consolidate("u")
    assert (result.failed_episodes, _Slow.hits) == (1, 2)
    assert "Timeout" in store.dead_letters("u")[0]["error"]
    assert _unprocessed(store) == 1
