"""A stand-in in front of a real OpenAI-compatible model server, for recording faults.

It answers each ``POST /v1/chat/completions`` by the next step of a script, then keeps
forwarding: ``429`` (a rate limit with ``Retry-After: 0``), ``500`` (a server error),
``pass`` (forwarded to ``--upstream`` as is, streaming included). Everything else is
forwarded. It runs in its own process so the recorder in the test process (vcrpy patches
``httpx`` and ``http.client``) sees only the client's side of the traffic.

Only used while re-recording cassettes (``tests/record_cassettes.py``); replayed tests
never reach it.

Usage::

    python tests/llm_standin.py --upstream http://127.0.0.1:8765 --script 429,500,pass --port 0
    # prints "listening <port>" on its first line
"""

from __future__ import annotations

import argparse
import http.client
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

ERRORS = {
    "429": (429, {"error": {"message": "Rate limit reached (stand-in)", "type": "rate_limit_error",
                            "code": "rate_limit_exceeded"}}),
    "500": (500, {"error": {"message": "Internal server error (stand-in)", "type": "server_error",
                            "code": None}}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="base URL of the real server, without /v1")
    parser.add_argument("--script", default="pass", help="comma-separated steps: 429, 500, pass")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    steps = [s.strip() for s in args.script.split(",") if s.strip()]
    lock = threading.Lock()
    upstream = urlsplit(args.upstream)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *a: object) -> None:
            pass

        def _forward(self, body: bytes | None) -> None:
            conn = http.client.HTTPConnection(upstream.hostname or "127.0.0.1", upstream.port or 80, timeout=600)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            conn.request(self.command, self.path, body=body, headers=headers)
            reply = conn.getresponse()
            self.send_response(reply.status)
            for key, value in reply.getheaders():
                if key.lower() not in ("transfer-encoding", "content-length", "connection"):
                    self.send_header(key, value)
            self.send_header("Connection", "close")
            self.end_headers()
            while chunk := reply.read1(65536):
                self.wfile.write(chunk)
                self.wfile.flush()
            conn.close()

        def do_GET(self) -> None:
            self._forward(None)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            step = "pass"
            if self.path.endswith("/chat/completions"):
                with lock:
                    step = steps.pop(0) if steps else "pass"
            if step in ERRORS:
                status, payload = ERRORS[step]
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(data)
                return
            self._forward(body)

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    sys.exit(0)


if __name__ == "__main__":
    main()
