"""The package's shape: no import circle, SQL only in ``storage/``, modules under 600 lines, a text layer at
the bottom, consolidation over extraction (one way)."""

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


def _package(module: str) -> str:
    """The first-level package (or root module) ``module`` belongs to: ``text`` for ``NAME.text.dates``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else NAME


def _package_graph() -> nx.DiGraph:
    """Imports between first-level packages (``extraction`` -> ``text``), each edge with the module pairs."""
    graph = nx.DiGraph()
    for a, b in _graph().edges:
        pa, pb = _package(a), _package(b)
        if pa != pb:
            graph.add_edge(pa, pb)
            graph.edges[pa, pb].setdefault("imports", []).append(f"{a} -> {b}")
    return graph


TEXT_MAY_IMPORT = {"errors"}
"""Vocabulary modules the text layer may import: ``errors`` (``InvalidInputError`` of a naive datetime)."""


def test_the_text_layer_imports_nothing_of_the_package_but_vocabulary() -> None:
    graph = _package_graph()
    assert "text" in graph, "the text layer is imported by nothing?"
    outside = {pb: graph.edges["text", pb]["imports"] for pb in graph.successors("text") if pb not in TEXT_MAY_IMPORT}
    assert outside == {}


def test_the_text_layer_is_read_by_the_services_below_the_engine() -> None:
    readers = set(_package_graph().predecessors("text"))
    assert {"extraction", "retrieval", "memory", "engine"} <= readers


def test_extraction_never_imports_consolidation() -> None:
    graph = _package_graph()
    assert not graph.has_edge("extraction", "consolidation"), graph.edges["extraction", "consolidation"]["imports"]
    assert graph.has_edge("consolidation", "extraction")  # the one way: consolidation applies what extraction proposes


def test_the_engine_never_imports_retrieval() -> None:
    """``engine/components`` hands the indexer ``text.sentences.sentences_of``, not recall's compression module."""
    graph = _package_graph()
    assert not graph.has_edge("engine", "retrieval"), graph.edges["engine", "retrieval"]["imports"]


ARCHITECTURE = PACKAGE.parent / "ARCHITECTURE.md"
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("adapters", frozenset({"langchain", "llama_index", "langgraph", "cli", "server"})),
    ("facade", frozenset({"store"})),
    ("services", frozenset({"retrieval", "consolidation", "changes", "extraction", "items", "maintenance"})),
    ("engine", frozenset({"engine"})),
    ("domain", frozenset({"memory"})),
    ("providers", frozenset({"embeddings", "rerank"})),
    ("storage", frozenset({"storage"})),
    ("text", frozenset({"text"})),
    ("vocabulary", frozenset({"types", "errors", "config", "_time", "_once", "_threads", "_tracing"})),
)
"""The layer order of ARCHITECTURE.md, top to bottom (the package root's front door -- ``__init__``,
``__main__``, ``_compat`` -- stands outside it: it re-exports every layer)."""
FRONT_DOOR = frozenset({NAME, "__main__", "_compat"})


def _layer_lines() -> dict[str, str]:
    """ARCHITECTURE.md's layer block: layer name -> the text of its lines."""
    block = ARCHITECTURE.read_text(encoding="utf-8").split("## Layers", 1)[1].split("```")[1]
    names = {name for name, _ in LAYERS}
    out: dict[str, str] = {}
    current = None
    for line in block.splitlines():
        head = line[:14].strip()
        if head in names:
            current = head
        if current is not None:
            out[current] = out.get(current, "") + "\n" + line
    return out


def test_the_layers_here_are_the_layers_of_architecture_md() -> None:
    lines = _layer_lines()
    assert list(lines) == [name for name, _ in LAYERS]
    missing = [f"{pkg} under {layer}" for layer, pkgs in LAYERS for pkg in sorted(pkgs)
               if not re.search(rf"(?<![\w./]){re.escape(pkg)}(/|\.py\b)", lines[layer])]
    assert missing == []


def test_every_package_has_a_layer() -> None:
    placed = set().union(*(pkgs for _, pkgs in LAYERS))
    unplaced = sorted({_package(m) for m in _modules()} - placed - FRONT_DOOR)
    assert unplaced == []


def test_every_import_points_down_the_layers() -> None:
    """An import goes to a module of the same layer or of a layer below, never up."""
    rank = {pkg: i for i, (_, pkgs) in enumerate(LAYERS) for pkg in pkgs}
    upward = sorted(f"{a} -> {b}" for a, b in _graph().edges
                    if _package(a) in rank and _package(b) in rank and rank[_package(b)] < rank[_package(a)])
    assert upward == []


def test_the_layer_check_sees_an_upward_import() -> None:
    rank = {pkg: i for i, (_, pkgs) in enumerate(LAYERS) for pkg in pkgs}
    assert rank["storage"] > rank["engine"] > rank["retrieval"]  # storage -> engine would be flagged


@pytest.mark.parametrize("package", ["text", "extraction", "consolidation", "retrieval"])
def test_no_package_circle_through(package: str) -> None:
    """No import path leads from ``package`` back to itself through other packages (module-level circles
    are :func:`test_no_import_circle`'s)."""
    cycles = [c for c in nx.simple_cycles(_package_graph()) if package in c]
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
    assert root == ["__init__.py", "__main__.py", "_compat.py", "_once.py", "_threads.py", "_time.py", "_tracing.py", "config.py", "errors.py",
                    "store.py", "types.py"]


def test_the_threads_module_is_a_leaf() -> None:
    """``_threads`` (the one background worker, the pools, their stop at exit) is imported by every
    layer, storage included, so it imports nothing of the package."""
    assert sorted(_graph().successors(f"{NAME}._threads")) == []


def test_the_tracing_module_is_a_leaf() -> None:
    """``_tracing`` (spans and metrics over ``opentelemetry-api``) is imported by the engine, the services
    and the server alike, so it imports nothing of the package."""
    assert sorted(_graph().successors(f"{NAME}._tracing")) == []


def test_storage_imports_nothing_above_it() -> None:
    upward = sorted(f"{m} -> {d}" for m, d in _graph().edges
                    if m.startswith(f"{NAME}.storage") and d.split(".")[1] in {
                        "engine", "retrieval", "consolidation", "extraction", "maintenance", "memory", "embeddings",
                        "rerank", "langchain", "llama_index", "langgraph", "cli", "server", "store"})
    assert upward == []
