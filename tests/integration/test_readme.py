"""Every ```python snippet of README.md runs, as a reader would paste it.

Each snippet runs on its own (a fresh namespace, so it must import and define every name it
uses) in an empty working directory, on the real engine: SQLite, Chroma, the session's
exported MiniLM. Where a model is needed the README itself uses the package's offline
stand-ins (``EchoMemoryChatModel``, ``ExtractiveMemoryLLM``), so nothing is faked here.

A snippet is skipped only when the line before its fence is ``<!-- no-run: why -->``, and only
for a reason this test lists in ``NOT_RUN``: today the one OpenAI-client call, which needs a
running ``nova-memory serve`` in front of a real model.
"""

from __future__ import annotations

import ast
import contextlib
import gc
import io
import re
from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.langchain._shared import close_shared_stores

README = Path(__file__).resolve().parents[2] / "README.md"
_PRINTS = re.compile(r"print\(.*\)\s+# prints: (.+)$", re.M)
"""A ``# prints: ...`` comment after a ``print()`` is what it prints (``...`` stands for anything)."""
_FENCE = re.compile(r"(?:^<!-- no-run: (?P<why>.+?) -->\n)?^```python\n(?P<code>.*?)^```\n(?:\n```text\n(?P<out>.*?)^```$)?",
                    re.M | re.S)
"""A python fence (after an optional no-run marker), and the ``text`` fence right after it: its output."""
NOT_RUN = {"needs `nova-memory serve` running in front of a real model"}
"""The only reasons a snippet may give for not running."""


def _snippets() -> list[tuple[int, str | None, str, str | None]]:
    """``(line, why not run, code, the output the README shows for it)`` of every python fence."""
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start("code")) + 1, m.group("why"), m.group("code"), m.group("out"))
            for m in _FENCE.finditer(text)]


FOUND = _snippets()
SNIPPETS = [(line, why, code) for line, why, code, _ in FOUND]
OUTPUTS = {line: out for line, _, _, out in FOUND if out}



def test_the_readme_has_snippets_and_skips_only_for_known_reasons() -> None:
    assert len(SNIPPETS) >= 6
    assert {why for _, why, _ in SNIPPETS if why is not None} <= NOT_RUN


@pytest.mark.parametrize(("line", "why", "code"), SNIPPETS, ids=[f"line{n}" for n, _, _ in SNIPPETS])
def test_snippet_is_clean(line: int, why: str | None, code: str) -> None:
    """No top-level ``await``, no unused import (names only imported, never used)."""
    tree = ast.parse(code)  # a top-level await is a SyntaxError here
    imported = {(a.asname or a.name).split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert imported <= used, f"README line {line}: unused imports {sorted(imported - used)}"


@pytest.mark.parametrize(("line", "why", "code"), [s for s in SNIPPETS if s[1] is None],
                         ids=[f"line{n}" for n, why, _ in SNIPPETS if why is None])
def test_snippet_runs(line: int, why: str | None, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      minilm_onnx: Any) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NOVA_MEMORY_HOME", str(tmp_path / "home"))
    namespace: dict[str, Any] = {"__name__": f"readme_line_{line}"}
    before = {id(o) for o in gc.get_objects() if isinstance(o, NovaStore)}
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"README.md:{line}", "exec"), namespace)  # the README's own code
    finally:  # close the stores it opened, named or not (an agent's middleware holds one)
        for store in [o for o in gc.get_objects() if isinstance(o, NovaStore) and id(o) not in before]:
            store.close()
        close_shared_stores()
    printed = out.getvalue()
    if line in OUTPUTS:
        assert OUTPUTS[line] in printed, f"README line {line}: printed {printed!r}, the README shows {OUTPUTS[line]!r}"
    for expected in _PRINTS.findall(code):
        pattern = ".*".join(re.escape(part.strip()) for part in expected.split("..."))
        assert re.search(pattern, printed), f"README line {line}: printed {printed!r}, the README says {expected!r}"
