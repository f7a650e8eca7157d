"""Real servers for the memory-server tests: an OpenAI-compatible upstream and uvicorn.

``FakeUpstream`` is a small real HTTP server (stdlib, 127.0.0.1, a free port) that
answers like an OpenAI-compatible one and records every request it receives (headers and
JSON body), so tests can check what the proxy forwarded. What it does depends on the
request's ``model``:

- anything else: a completion ``"echo: <latest user text>"`` (streamed as SSE chunks,
  word by word, with ``stream: true``);
- ``fail-429`` / ``fail-500``: that status with an OpenAI error body (and Retry-After);
- ``slow-stream``: the first chunk, then it waits for ``upstream.gate`` (``paused`` is
  set while it waits), then the rest;
- ``cut-stream``: two chunks, waits for ``gate``, then ends without ``[DONE]``;
- ``slow-first-byte``: sets ``paused``, waits for ``gate`` (or ``first_byte_delay``
  seconds when set) before sending anything, headers included, then answers normally;
- ``slow-first-chunk``: streams the headers, sets ``paused``, waits for ``gate``, then
  the events;
- ``invalid-json``: a 200 ``application/json`` answer whose body is not JSON.

``ServerThread`` runs an ASGI app under a real uvicorn server in a thread.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _last_user(messages: list[dict[str, Any]]) -> str:
    for m in reversed(messages):
        if m.get("role") == "user":
            c = m.get("content")
            return c if isinstance(c, str) else " ".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


class FakeUpstream:
    """An OpenAI-compatible upstream that records what it receives."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.gate = threading.Event()
        self.paused = threading.Event()
        self.finished = threading.Event()
        self.disconnected = threading.Event()
        self.first_byte_delay: float | None = None
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # quiet
                pass

            def handle(self) -> None:
                try:
                    super().handle()
                except OSError:  # the proxy dropped the connection (a client that left early)
                    upstream.disconnected.set()

            def do_GET(self) -> None:
                upstream.requests.append({"method": "GET", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}})
                self._json(200, {"object": "list", "data": [{"id": "echo-model", "object": "model", "created": 0,
                                                             "owned_by": "tests"}]})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = None
                upstream.requests.append({"method": "POST", "path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
                                          "body": body, "raw": raw})
                if not isinstance(body, dict):
                    self._json(400, {"error": {"message": "bad json", "type": "invalid_request_error"}})
                    return
                model = body.get("model", "")
                if model in ("fail-429", "fail-500"):
                    status = int(model[-3:])
                    self._json(status, {"error": {"message": f"upstream says {status}", "type": "tests_error",
                                                  "param": None, "code": f"code_{status}"}},
                               {"Retry-After": "0"} if status == 429 else None)
                    return
                if model == "invalid-json":
                    payload = b'{"id": "chatcmpl-1", "choices": [{"message": {"content": "garbled'
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                if model == "slow-first-byte":
                    upstream.paused.set()
                    if upstream.first_byte_delay is not None:
                        time.sleep(upstream.first_byte_delay)
                    else:
                        upstream.gate.wait(30)
                reply = "echo: " + _last_user(body.get("messages", []))
                if body.get("stream"):
                    self._stream(model, reply)
                else:
                    self._json(200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
                                     "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                                  "finish_reason": "stop"}],
                                     "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

            def _json(self, status: int, data: object, headers: dict[str, str] | None = None) -> None:
                payload = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            def _event(self, model: str, delta: dict[str, Any], finish: str | None = None) -> None:
                chunk = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": model,
                         "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()

            def _stream(self, model: str, reply: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                if model == "slow-first-chunk":
                    self.wfile.flush()
                    upstream.paused.set()
                    upstream.gate.wait(30)
                words = reply.split(" ")
                try:
                    self._event(model, {"role": "assistant", "content": ""})
                    for i, word in enumerate(words):
                        self._event(model, {"content": word if i == 0 else " " + word})
                        if (i == 0 and model == "slow-stream") or (i == 1 and model == "cut-stream"):
                            upstream.paused.set()
                            upstream.gate.wait(30)
                            if model == "cut-stream":
                                return
                    self._event(model, {}, "stop")
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                    upstream.finished.set()
                except OSError:
                    upstream.disconnected.set()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.server.serve_forever, name="fake-upstream", daemon=True)

    def start(self) -> FakeUpstream:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.gate.set()
        self.server.shutdown()
        self.server.server_close()

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"]


class ServerThread:
    """A real uvicorn server on 127.0.0.1 running ``app`` in a thread.

    An app of ``create_app`` runs as ``nova-memory serve`` runs it (``uvicorn_config``: the
    guarded protocol and its limits, from the app's ``ServerConfig``; ``parser``: httptools
    or h11, ``auto`` as uvicorn would choose).
    """

    def __init__(self, app: Any, port: int | None = None, parser: str = "auto") -> None:
        self.port = port or free_port()
        settings = getattr(getattr(app, "state", None), "config", None)
        if settings is not None:
            from dataclasses import replace

            from nova_memory_integrations.server.protocol import uvicorn_config

            config = uvicorn_config(app, replace(settings, host="127.0.0.1", port=self.port), parser=parser,
                                    log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
        else:
            config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on",
                                    timeout_graceful_shutdown=5)
        self.server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self.server.run, name="nova-memory-server", daemon=True)
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerThread:
        self._thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the memory server did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self._thread.join(30)


def wait_for(predicate: Any, timeout: float = 20.0, interval: float = 0.05) -> Any:
    """Poll ``predicate`` until it returns something truthy (then return it) or fail."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(interval)
