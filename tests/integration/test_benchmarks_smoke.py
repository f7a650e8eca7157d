"""Smoke test of the engine benchmarks: they run end to end and print their JSON result line.

No timing assertions (the machine is shared): only that each script exits 0 and that its
last stdout line is a JSON object with the expected keys.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"


def _run(script: str, *args: str) -> dict[str, Any]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    assert lines, f"no output; stderr: {proc.stderr[-2000:]}"
    result = json.loads(lines[-1])
    assert isinstance(result, dict)
    return result


def _is_summary(obj: object) -> bool:
    return isinstance(obj, dict) and {"p50", "p95", "mean", "n"} <= obj.keys() and obj["n"] > 0


def test_ingest_benchmark_prints_json_result() -> None:
    res = _run("ingest.py", "--turns", "300", "--latency-samples", "50")
    assert res["benchmark"] == "ingest" and res["turns"] == 300
    for key in ("add_turn_ms", "add_turn_under_load_ms"):
        assert _is_summary(res[key]), res[key]
    assert res["add_turn_ms"]["n"] == 50 and res["add_turn_under_load_ms"]["n"] == 300
    for key in ("ingest_turns_per_s", "add_turns_batch_turns_per_s", "embed_only_texts_per_s"):
        assert isinstance(res[key], (int, float)) and res[key] > 0
    assert res["ingest_share_of_embed_only"] == round(res["ingest_turns_per_s"] / res["embed_only_texts_per_s"], 3)
    assert res["indexed_episodes"] >= 650  # warm-up + latency + two runs, all indexed
    assert set(res["meets_targets"]) == {"add_turn_p50_ms", "ingest_turns_per_s"}
    assert res["embedding_backend"] in {"onnx-int8-documents", "onnx-int8", "onnx-fp32", "torch"}


def test_latency_benchmark_quick_prints_json_result() -> None:
    res = _run("latency.py", "--quick")
    assert res["benchmark"] == "latency" and res["sizes"] == [1000, 5000] and res["queries"] == 30
    per_size = res["results"]["fallback"]
    assert set(per_size) == {"1000", "5000"}
    for row in per_size.values():
        assert _is_summary(row) and row["n"] == 30
        assert row["p50"] <= row["p95"]
        assert {"embed_ms", "signals_ms", "total_ms"} <= row["stages_ms_p50"].keys()
        assert row["mean_sources"] > 0
    assert set(res["p95_ms"]["fallback"]) == {"1000", "5000"}
    assert isinstance(res["sublinear"], float) and res["sublinear"] > 0
    assert res["growth"]["fallback"]["size_ratio"] == pytest.approx(5.0)


def test_server_load_benchmark_short_run_prints_json_result() -> None:
    res = _run("server_load.py", "--clients", "4", "--users", "2", "--duration", "4", "--warmup", "2")
    assert res["benchmark"] == "server_load" and res["clients"] == 4 and res["users"] == 2
    for kind in ("write", "recall", "chat"):
        row = res["latency_ms"][kind]
        assert row["n"] > 0 and row["p50"] <= row["p95"] and row["errors"] == 0
    assert res["throughput_rps"] > 0 and res["writes_acked"] > 0 and res["chats_acked"] > 0
    assert res["own_memory_seen"]["recall"] > 0  # the leak check saw real memory
    assert (res["writes_missing"], res["chats_missing"], res["turns_crossed_users"], res["leaks"]) == (
        0, 0, 0, {"recall": 0, "chat": 0})
    assert res["ok"] is True
