"""One data directory, one owning process (engine/dirlock.py): a second process gets a clear
error naming the server; the same process may open it twice; closing releases it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from nova_memory_integrations import NovaStore

OPEN_IN_CHILD = (
    "import sys\n"
    "from nova_memory_integrations import NovaStore\n"
    "from nova_memory_integrations.errors import StorageError\n"
    "try:\n"
    "    NovaStore(sys.argv[1]).close()\n"
    "except StorageError as exc:\n"
    "    print('REFUSED', exc)\n"
    "else:\n"
    "    print('OPENED')\n"
)


def _open_in_child(path: Path) -> str:
    out = subprocess.run([sys.executable, "-c", OPEN_IN_CHILD, str(path)], capture_output=True, text=True,
                         timeout=300, check=True)
    return out.stdout.strip()


def test_a_second_process_is_refused_and_told_about_the_server(tmp_path: Path, minilm_onnx: Any) -> None:
    store = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    try:
        answer = _open_in_child(tmp_path / "mem")
    finally:
        store.close()
    assert (answer.startswith("REFUSED"), "nova-memory serve" in answer) == (True, True)


def test_closing_releases_the_directory(tmp_path: Path, minilm_onnx: Any) -> None:
    NovaStore(tmp_path / "mem", embeddings=minilm_onnx).close()
    assert _open_in_child(tmp_path / "mem") == "OPENED"


def test_one_process_may_open_it_twice_and_the_last_close_releases(tmp_path: Path, minilm_onnx: Any) -> None:
    first = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    second = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    second.close()
    still_held = _open_in_child(tmp_path / "mem")
    first.close()
    assert (still_held.startswith("REFUSED"), _open_in_child(tmp_path / "mem")) == (True, "OPENED")
