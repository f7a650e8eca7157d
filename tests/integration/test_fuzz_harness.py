"""The hostile-input harness, fast profile (issue #20): every public method of the engine, the
LangChain and LlamaIndex adapters and the CLI with junk arguments. The long profile is
``benchmarks/fuzz.py`` (>= 50,000 calls); both use ``tests/fuzz_harness.py``."""

from __future__ import annotations

from typing import Any

import pytest
from fuzz_harness import run_harness

from nova_memory_integrations import NovaStore

USER = "fuzz-victim"


@pytest.fixture(scope="module")
def figures(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: Any) -> dict[str, Any]:
    data = tmp_path_factory.mktemp("fuzz") / "data"
    with NovaStore(data, embeddings=minilm_onnx) as store:
        return run_harness(store, USER, engine_examples=300, adapter_examples=150, cli_runs=60, data=data,
                           embeddings=minilm_onnx)


def test_every_call_was_made(figures: dict[str, Any]) -> None:
    assert figures["calls"] >= 500


def test_bad_input_is_refused_with_typed_errors(figures: dict[str, Any]) -> None:
    assert figures["typed_errors"] > 100


def test_no_untyped_error_escapes(figures: dict[str, Any]) -> None:
    assert figures["untyped_errors"] == 0, figures["examples"]


def test_no_storage_failure_on_bad_input(figures: dict[str, Any]) -> None:
    assert figures["failures"] == 0, figures["examples"]


def test_every_read_path_works_afterwards(figures: dict[str, Any]) -> None:
    assert figures["reads_broken"] == []

