"""The hostile-input harness, long profile (issue #20): >= 50,000 junk calls.

Every public method of the engine, the LangChain and LlamaIndex adapters and the CLI is
called with junk arguments (``tests/fuzz_harness.py``, whose fast profile runs in CI as
``tests/integration/test_fuzz_harness.py``). The last line of stdout is one JSON object:
calls made, typed errors, untyped errors (anything not the library's base error), failures
(a storage error on bad input), crashes (this process died: then there is no JSON line),
and the read paths broken afterwards. Targets: untyped 0, failures 0, reads broken none.

Usage:
    .venv/bin/python benchmarks/fuzz.py                  # ~50,000 calls
    .venv/bin/python benchmarks/fuzz.py --calls 2000     # quick
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _common import emit, log, set_offline_env

set_offline_env()

from fuzz_harness import run_harness  # noqa: E402

from nova_memory_integrations import NovaStore  # noqa: E402


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=50_000, help="about this many calls in all")
    args = ap.parse_args(argv)
    engine, adapters, cli = round(args.calls * 0.8), round(args.calls * 0.18), round(args.calls * 0.02)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        with NovaStore(data) as store:
            log(f"engine {engine}, adapters {adapters}, cli {cli} calls")
            figures = run_harness(store, "fuzz-victim", engine_examples=engine, adapter_examples=adapters,
                                  cli_runs=cli, data=data, embeddings=store.components.embedder.inner)
    result = {"benchmark": "fuzz", **figures, "crashes": 0, "seconds": round(time.perf_counter() - t0, 1)}
    result["target_met"] = (figures["untyped_errors"] == 0 and figures["failures"] == 0
                            and not figures["reads_broken"])
    emit(result)
    return result


if __name__ == "__main__":
    main()
