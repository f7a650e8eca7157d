"""The cookbooks: committed without outputs, and every one executes headless and offline.

Execution runs each notebook in a fresh ``python3`` kernel of this interpreter, with the
notebook's own directory as working directory (as ``pytest --nbmake cookbooks/`` does), so
no separate ``--nbmake`` run is needed. It is marked ``slow``: skip with ``-m "not slow"``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

COOKBOOKS = Path(__file__).resolve().parents[2] / "cookbooks"
NOTEBOOKS = sorted(COOKBOOKS.glob("*.ipynb"))
EXPECTED = {
    "01_langchain_agent_memory.ipynb",
    "02_llamaindex_query_engine.ipynb",
    "03_temporal_fact_graph.ipynb",
    "04_context_compression.ipynb",
    "05_locomo_benchmark.ipynb",
    "07_health_coach.ipynb",
}


def test_all_cookbooks_are_present() -> None:
    assert {p.name for p in NOTEBOOKS} >= EXPECTED


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_notebook_is_stripped(path: Path) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [], f"{path.name} cell {i} has stored outputs"
            assert cell.get("execution_count") is None, f"{path.name} cell {i} has an execution count"
        assert "execution" not in cell.get("metadata", {}), f"{path.name} cell {i} has execution timings"
    assert "widgets" not in nb.get("metadata", {})
    text = path.read_text(encoding="utf-8")
    assert "Traceback" not in text and "sk-" not in text  # no stale errors, no pasted keys


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_real_provider_cell_is_guarded(path: Path) -> None:
    """Each cookbook shows a real provider, behind an opt-in environment variable."""
    source = "\n".join("".join(c["source"]) for c in json.loads(path.read_text(encoding="utf-8"))["cells"])
    assert "real provider instead" in source
    assert 'os.environ.get("NOVA_COOKBOOK_REAL_LLM") == "1"' in source


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_executes_offline(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    for var in ("NOVA_COOKBOOK_REAL_LLM", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=540, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError on the first failing cell
    elapsed = time.perf_counter() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    if os.environ.get("NOVA_NOTEBOOK_TIMINGS"):
        print(f"{path.name}: {elapsed:.1f} s")
