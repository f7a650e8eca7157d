"""The package's shape: no import circle, SQL only in ``storage/``, modules under 600 lines."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "nova_memory_integrations"
NAME = PACKAGE.name
MAX_LINES = 600
SQL = re.compile(
    r"\b(SELECT\s+(\*|DISTINCT|COUNT|MAX|MIN|SUM|[a-z_]+\s*(,|FROM))|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET"
    r"|DELETE\s+FROM|CREATE\s+(TABLE|INDEX|VIRTUAL|TRIGGER)|PRAGMA\s+\w+)",
)


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """Package modules ``module`` imports, at any place (``TYPE_CHECKING`` and function bodies too)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in known else target)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return {m for m in found if m in known and m != module}


def _graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    for module, path in modules.items():
        graph.add_node(module)
        graph.add_edges_from((module, dep) for dep in _imports(module, path, set(modules)))
    return graph


def test_the_import_walker_sees_a_known_edge() -> None:
    assert _graph().has_edge(f"{NAME}.store", f"{NAME}.engine.components")


def test_no_import_circle() -> None:
    cycles = [" -> ".join(c) for c in nx.simple_cycles(_graph())]
    assert cycles == []


def test_services_never_import_the_facade() -> None:
    importers = sorted(m for m in _graph().predecessors(f"{NAME}.store")
                       if not m.startswith((f"{NAME}.langchain", f"{NAME}.llama_index", f"{NAME}.cli")))
    assert importers == [NAME]


@pytest.mark.parametrize("text", ["SELECT * FROM facts WHERE user_id = ?", "INSERT OR IGNORE INTO entities (id)",
                                  "UPDATE dead_letters SET attempts = ?", "DELETE FROM episodes WHERE id = ?",
                                  "SELECT user_id, COUNT(*) FROM episodes", "PRAGMA table_info(facts)"])
def test_the_sql_pattern_matches_sql(text: str) -> None:
    assert SQL.search(text)


@pytest.mark.parametrize("text", ["ADD / UPDATE / DELETE / NOOP", "UPDATE of a given fact", "select the best items"])
def test_the_sql_pattern_ignores_prose(text: str) -> None:
    assert not SQL.search(text)


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string literal, f-strings rendered with ``x`` for their fields."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.append((node.lineno, node.value))
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "x" for v in node.values)
            found.append((node.lineno, str(text)))
    return found


def test_the_string_walker_renders_f_strings() -> None:
    tree = ast.parse('f"SELECT {cols} FROM {table}"')
    assert SQL.search(_strings(tree)[0][1])


def test_sql_only_in_storage() -> None:
    offenders = []
    for module, path in sorted(_modules().items()):
        if module.startswith(f"{NAME}.storage"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [f"{module}:{line}" for line, text in _strings(tree) if SQL.search(text)]
    assert offenders == []


def test_no_module_over_the_line_limit() -> None:
    long = {m: n for m, p in _modules().items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_the_package_root_holds_only_the_front_door() -> None:
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert root == ["__init__.py", "__main__.py", "_compat.py", "_threads.py", "_time.py", "config.py", "errors.py",
                    "store.py", "types.py"]


def test_the_threads_module_is_a_leaf() -> None:
    """``_threads`` (the one background worker, the pools, their stop at exit) is imported by every
    layer, storage included, so it imports nothing of the package."""
    assert sorted(_graph().successors(f"{NAME}._threads")) == []


def test_storage_imports_nothing_above_it() -> None:
    upward = sorted(f"{m} -> {d}" for m, d in _graph().edges
                    if m.startswith(f"{NAME}.storage") and d.split(".")[1] in {
                        "engine", "retrieval", "consolidation", "extraction", "maintenance", "memory", "embeddings",
                        "rerank", "langchain", "llama_index", "langgraph", "cli", "server", "store"})
    assert upward == []
