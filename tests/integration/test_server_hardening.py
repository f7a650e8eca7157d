"""The memory server against hostile clients and web pages (#42), on a real uvicorn server
over a real store: DNS rebinding (Host), cross-site bodies (Content-Type), request heads
without a size or a deadline, idle connections, bad ``user`` fields and deep JSON, keys on
the command line. Raw sockets where a real client would not misbehave enough."""

from __future__ import annotations

import http.client
import json
import logging
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_harness import FakeUpstream, free_port, wait_for

from nova_memory_integrations import NovaStore

KEY = "admin-key-0123456789abcdef"
ROOT = Path(__file__).resolve().parents[2]
PARSERS = pytest.mark.parametrize("parser", ["httptools", "h11"])  # uvicorn's two HTTP/1.1 parsers, both guarded


def chat(user: object = "alice", text: str = "I keep my spare key under the blue pot.") -> dict[str, Any]:
    return {"model": "echo", "user": user, "messages": [{"role": "user", "content": text}]}


def is_openai_error(r: httpx.Response, status: int) -> bool:
    error = r.json().get("error", {})
    return r.status_code == status and {"message", "type", "param", "code"} <= set(error)


# -- 1. DNS rebinding: Host ---------------------------------------------------------------------
def test_a_keyless_server_answers_a_foreign_host_name_with_421(store: NovaStore, serve: Any,
                                                                upstream: FakeUpstream) -> None:
    store.add_turn("alice", "user", "My locker code is 4821.")
    srv = serve()
    rebound = {"Host": f"attacker.example:{srv.port}"}
    read = httpx.get(f"{srv.url}/v1/memory/users/alice/episodes", headers=rebound)
    write = httpx.post(f"{srv.url}/v1/memory/users/alice/turns", headers=rebound,
                       json={"turns": [{"content": "planted"}]})
    proxied = httpx.post(f"{srv.url}/v1/chat/completions", headers=rebound, json=chat())
    assert [is_openai_error(r, 421) for r in (read, write, proxied)] == [True, True, True]
    assert read.json()["error"]["code"] == "host_not_allowed" and "4821" not in read.text
    assert upstream.chat_requests() == [] and [e.content for e in store.episodes("alice")] == ["My locker code is 4821."]


@pytest.mark.parametrize("host", ["localhost", "localhost:{port}", "127.0.0.1:{port}", "[::1]:{port}", "LOCALHOST.",
                                  "127.0.0.2:9"])
def test_loopback_names_are_served_on_any_port(serve: Any, host: str) -> None:
    srv = serve()
    r = httpx.get(f"{srv.url}/v1/memory/users/alice/episodes", headers={"Host": host.format(port=srv.port)})
    assert r.status_code == 200, r.text


def test_allowed_hosts_and_keyed_servers(serve: Any) -> None:
    named = serve(allowed_hosts=("memory.internal", "*.corp.example"))
    for host, status in (("memory.internal:8765", 200), ("a.b.corp.example", 200), ("corp.example", 421),
                         ("memory.internal.attacker.example", 421)):
        r = httpx.get(f"{named.url}/v1/memory/users/alice/episodes", headers={"Host": host})
        assert r.status_code == status, host
    keyed = serve(api_keys={KEY: None})
    anywhere = {"Host": "memory.example.com", "X-Nova-Key": KEY}
    assert httpx.get(f"{keyed.url}/v1/memory/users/alice/episodes", headers=anywhere).status_code == 200
    no_key = httpx.get(f"{keyed.url}/v1/memory/users/alice/episodes", headers={"Host": "memory.example.com"})
    assert no_key.status_code == 401  # any name, but a key is required


def test_the_mcp_route_is_guarded_alike(serve: Any) -> None:
    srv = serve(mcp=True)
    r = httpx.post(f"{srv.url}/mcp", headers={"Host": "attacker.example", "Accept": "application/json"},
                   json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert r.status_code == 421


def test_a_cross_origin_page_is_refused_by_a_keyless_server(serve: Any, store: NovaStore) -> None:
    srv = serve()
    r = httpx.post(f"{srv.url}/v1/memory/users/alice/turns", headers={"Origin": "https://attacker.example"},
                   json={"turns": [{"content": "planted"}]})
    local = httpx.post(f"{srv.url}/v1/memory/users/alice/turns", headers={"Origin": f"http://localhost:{srv.port}"},
                       json={"turns": [{"content": "mine"}]})
    assert is_openai_error(r, 403) and local.status_code == 200
    assert [e.content for e in store.episodes("alice")] == ["mine"]


# -- 2. cross-site bodies: Content-Type ----------------------------------------------------------
@pytest.mark.parametrize("content_type", ["text/plain;charset=UTF-8", "application/x-www-form-urlencoded", None])
def test_a_body_that_is_not_declared_json_is_415_and_stores_nothing(store: NovaStore, serve: Any,
                                                                   upstream: FakeUpstream,
                                                                   content_type: str | None) -> None:
    srv = serve()
    headers = {"Content-Type": content_type} if content_type else {}
    proxied = httpx.post(f"{srv.url}/v1/chat/completions", content=json.dumps(chat()).encode(), headers=headers)
    rest = httpx.post(f"{srv.url}/v1/memory/users/alice/turns", headers=headers,
                      content=json.dumps({"turns": [{"content": "planted"}]}).encode())
    assert [is_openai_error(proxied, 415), is_openai_error(rest, 415)] == [True, True]
    assert upstream.chat_requests() == [] and store.episodes("alice") == []


def test_json_with_a_charset_and_bodyless_posts_still_pass(serve: Any) -> None:
    srv = serve()
    r = httpx.post(f"{srv.url}/v1/memory/users/alice/turns", content=b'{"turns": [{"content": "hello"}]}',
                   headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert r.status_code == 200, r.text
    assert httpx.post(f"{srv.url}/v1/memory/users/alice/consolidate").status_code == 200


# -- 3. request heads: size and count -----------------------------------------------------------
def _send_until_answered(port: int, head: bytes, filler: bytes, limit: int) -> tuple[bytes, int]:
    """Send ``head`` then ``filler`` chunks (up to ``limit`` bytes) until the server answers; the
    answer and the bytes sent."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(head)
    sock.setblocking(False)
    sent, answer, start = 0, b"", time.monotonic()
    poll = selectors.DefaultSelector()  # epoll: select() refuses descriptors past 1024, which a long suite reaches
    poll.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE)
    try:
        while sent < limit and time.monotonic() - start < 30:
            events = poll.select(1)
            readable = any(mask & selectors.EVENT_READ for _, mask in events)
            writable = any(mask & selectors.EVENT_WRITE for _, mask in events)
            if readable:
                break
            if writable:
                try:
                    sent += sock.send(filler)
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    break
        sock.setblocking(True)
        sock.settimeout(10)
        while True:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    except OSError:
        pass
    finally:
        poll.close()
        sock.close()
    return answer, sent


@PARSERS
def test_a_huge_header_is_refused_with_431_before_the_key_check(serve: Any, parser: str) -> None:
    srv = serve(parser=parser, api_keys={KEY: None})
    answer, sent = _send_until_answered(srv.port, b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ",
                                        b"a" * 65536, 64 * 2**20)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "headers_too_large"
    assert sent < 16 * 2**20  # refused early (64 MiB were on offer), not read to the end


@PARSERS
def test_others_are_served_while_a_huge_header_is_refused(serve: Any, parser: str) -> None:
    srv = serve(parser=parser)
    results: list[float] = []

    def others() -> None:
        with httpx.Client(timeout=30) as client:
            for _ in range(20):
                start = time.monotonic()
                assert client.get(f"{srv.url}/v1/memory/users/alice/episodes").status_code == 200
                results.append(time.monotonic() - start)

    thread = threading.Thread(target=others)
    thread.start()
    answer, _ = _send_until_answered(srv.port, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ",
                                     b"a" * 65536, 64 * 2**20)
    thread.join(60)
    assert answer.startswith(b"HTTP/1.1 431 ") and len(results) == 20 and max(results) < 5


@PARSERS
def test_too_many_header_fields_are_refused_with_431(serve: Any, parser: str) -> None:
    srv = serve(parser=parser)
    fields = "".join(f"X-F{i}: {i}\r\n" for i in range(300)).encode()
    answer, _ = _send_until_answered(srv.port, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + fields + b"\r\n",
                                     b"", 0)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]


@PARSERS
def test_big_bodies_keep_alive_and_pipelining_are_unaffected(serve: Any, upstream: FakeUpstream, parser: str) -> None:
    srv = serve(parser=parser)
    big = json.dumps({"model": "echo", "messages": [{"role": "user", "content": "x" * 300_000}]}).encode()
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    statuses = []
    for _ in range(3):  # head and a 300 kB body, often in one read: none of it counts as head
        conn.request("POST", "/v1/chat/completions", body=big, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        statuses.append((response.status, len(response.read()) > 300_000))
    conn.close()
    assert statuses == [(200, True)] * 3
    one = b"GET /v1/memory/users/alice/episodes HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with socket.create_connection(("127.0.0.1", srv.port), timeout=30) as sock:
        sock.sendall(one * 3)  # pipelined
        answer = b""
        while answer.count(b"HTTP/1.1 200 ") < 3:
            chunk = sock.recv(65536)
            assert chunk, answer
            answer += chunk


# -- 4. idle and slow connections, the connection cap ---------------------------------------------
@PARSERS
def test_an_idle_connection_is_closed_after_the_header_timeout(serve: Any, parser: str) -> None:
    srv = serve(parser=parser, header_timeout=1.0)
    sock = socket.create_connection(("127.0.0.1", srv.port))
    sock.settimeout(10)
    start = time.monotonic()
    try:
        data = sock.recv(100)
    except OSError:
        data = b"(reset)"
    finally:
        sock.close()
    assert data == b"" and 0.8 < time.monotonic() - start < 5


@PARSERS
def test_a_head_sent_a_byte_at_a_time_meets_a_total_deadline(serve: Any, parser: str) -> None:
    srv = serve(parser=parser, header_timeout=1.0)
    sock = socket.create_connection(("127.0.0.1", srv.port))
    sock.settimeout(0.1)
    head = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 400
    answer, start = b"", time.monotonic()
    try:
        for byte in head:  # one byte every 0.1 s: 40 s for the whole head
            try:
                sock.send(bytes([byte]))
            except OSError:
                break
            try:
                answer += sock.recv(4096)
                break
            except TimeoutError:
                pass
        sock.settimeout(5)
        while chunk := sock.recv(4096):
            answer += chunk
    except OSError:
        pass
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 408 ") and time.monotonic() - start < 5


@PARSERS
def test_a_body_that_never_arrives_gets_a_408(serve: Any, store: NovaStore, parser: str) -> None:
    srv = serve(parser=parser, body_timeout=1.0)
    sock = socket.create_connection(("127.0.0.1", srv.port))
    sock.settimeout(10)
    start = time.monotonic()
    sock.sendall(b"POST /v1/memory/users/alice/turns HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                 b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"turns\": ")
    answer = b""
    try:
        while chunk := sock.recv(4096):
            answer += chunk
    except OSError:
        pass
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 408 ") and time.monotonic() - start < 8 and store.episodes("alice") == []


@PARSERS
def test_past_the_connection_cap_a_503_and_idle_connections_free_their_slots(serve: Any, parser: str) -> None:
    srv = serve(parser=parser, max_connections=4, header_timeout=1.5)
    idle = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(4)]
    try:
        time.sleep(0.2)
        full = httpx.get(f"{srv.url}/health", timeout=10)
        assert full.status_code == 503 and full.json()["error"]["code"] == "too_many_connections"
        # the silent ones are closed by the header deadline: the slots come back by themselves
        wait_for(lambda: httpx.get(f"{srv.url}/health", timeout=10).status_code == 200, timeout=10, interval=0.3)
    finally:
        for sock in idle:
            sock.close()


# -- 5. bad input is a 400, not a 500 -----------------------------------------------------------
@pytest.fixture
def server_log() -> Iterator[list[logging.LogRecord]]:
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    handler = Keep(level=logging.DEBUG)
    loggers = [logging.getLogger(n) for n in ("uvicorn.error", "uvicorn", "nova_memory_integrations", "")]
    for lg in loggers:
        lg.addHandler(handler)
    yield records
    for lg in loggers:
        lg.removeHandler(handler)


def _post_twice_on_one_connection(port: int, path: str, bad: bytes, good: bytes) -> tuple[Any, Any, bool]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    conn.request("POST", path, body=bad, headers=headers)
    first = conn.getresponse()
    first_body = json.loads(first.read())
    sock = conn.sock
    conn.request("POST", path, body=good, headers=headers)
    second = conn.getresponse()
    second.read()
    same = sock is not None and conn.sock is sock
    conn.close()
    return (first.status, first_body, first.getheader("connection")), second.status, same


@pytest.mark.parametrize("user", [["alice", "bob"], {"id": "alice"}, [["x"]]])
def test_a_user_that_is_not_a_string_is_a_400_and_the_connection_lives(
    store: NovaStore, serve: Any, upstream: FakeUpstream, server_log: list[logging.LogRecord], user: object
) -> None:
    srv = serve(api_keys={KEY: None}) if isinstance(user, dict) else serve()
    path = "/v1/chat/completions"
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
    headers = {"Content-Type": "application/json", "X-Nova-Key": KEY}
    conn.request("POST", path, body=json.dumps(chat(user)).encode(), headers=headers)
    first = conn.getresponse()
    body = json.loads(first.read())
    sock = conn.sock
    conn.request("POST", path, body=json.dumps(chat("alice", "hello again")).encode(), headers=headers)
    second = conn.getresponse()
    second.read()
    assert (first.status, body["error"]["type"], body["error"]["param"]) == (400, "invalid_request_error", "user")
    assert second.status == 200 and conn.sock is sock  # the same keep-alive connection
    conn.close()
    assert not [r for r in server_log if r.exc_info or r.levelno >= logging.ERROR]
    assert [e.content for e in store.episodes("alice")] == ["hello again", "echo: hello again"]


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/memory/users/alice/turns"])
def test_json_nested_100000_deep_is_a_400_and_the_connection_lives(
    store: NovaStore, serve: Any, server_log: list[logging.LogRecord], path: str
) -> None:
    srv = serve()
    deep = b'{"model": "echo", "user": "alice", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    if "turns" in path:
        deep = b'{"turns": [{"content": "x", "metadata": {"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}]}"
        good = b'{"turns": [{"content": "fine"}]}'
    else:
        good = json.dumps(chat("alice", "fine")).encode()
    (status, body, connection), second, same = _post_twice_on_one_connection(srv.port, path, deep, good)
    assert (status, body["error"]["type"], connection) == (400, "invalid_request_error", None)
    assert second == 200 and same
    assert not [r for r in server_log if r.exc_info or r.levelno >= logging.ERROR]
    assert "fine" in [e.content for e in store.episodes("alice")]


# -- 7. keys on the command line ----------------------------------------------------------------
def _serve_cli(tmp_path: Path, args: list[str], env: dict[str, str],
               hosts: dict[str, int] | None = None) -> str:
    """Run ``nova-memory serve`` until it answers /health (and each of ``hosts`` with its status), stop it;
    its stderr."""
    port = free_port()
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", **env}
    full_env.pop("NOVA_MEMORY_API_KEYS", None) if "NOVA_MEMORY_API_KEYS" not in env else None
    proc = subprocess.Popen([str(Path(sys.executable).with_name("nova-memory")), "serve", "--path",
                             str(tmp_path / "mem"), "--port", str(port), "--no-mcp", "--log-level", "warning", *args],
                            env=full_env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        def up() -> bool:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200
            except httpx.HTTPError:
                assert proc.poll() is None, "the server exited"
                return False

        wait_for(up, timeout=120, interval=0.3)
        assert httpx.get(f"http://127.0.0.1:{port}/v1/memory/users/a/episodes",
                         headers={"X-Nova-Key": KEY}).status_code == 200
        for host, status in (hosts or {}).items():
            assert httpx.get(f"http://127.0.0.1:{port}/v1/memory/users/a/episodes",
                             headers={"X-Nova-Key": KEY, "Host": host}).status_code == status, host
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    return err


def test_a_key_on_the_command_line_warns_once_and_the_environment_does_not(tmp_path: Path, minilm_onnx: Any) -> None:
    argv = _serve_cli(tmp_path, ["--api-key", KEY], {})
    warnings = [line for line in argv.splitlines() if "--api-key" in line]
    assert len(warnings) == 1 and "NOVA_MEMORY_API_KEYS" in warnings[0] and "ps" in warnings[0]
    env = _serve_cli(tmp_path, ["--allowed-host", "memory.test"], {"NOVA_MEMORY_API_KEYS": KEY},
                     hosts={"memory.test:80": 200, "other.test": 421})
    assert "--api-key" not in env and "Warning" not in env
