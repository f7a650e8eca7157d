"""What ``pip install nova-memory-integrations`` gives: the built wheel and sdist, checked.

Fast (a few seconds, every run): ``python -m build`` makes the sdist and, from it, the wheel; the
wheel's METADATA is read and every module of the wheel is parsed:

- the modules that the public objects load (``nova_memory_integrations.__all__``, ``.langchain``,
  ``.llama_index``, ``.langgraph``, the ``nova-memory`` CLI) import, at import time, only
  distributions that are unconditional ``Requires-Dist`` of the wheel;
- every other import of a third-party module anywhere in the package is either a dependency or
  stands inside ``with needs_extra("<extra>"):`` naming an extra that provides it, so a missing
  optional part raises ``MissingExtraError`` with the install line;
- the license, ``Requires-Python`` and the classifiers.

Import names are mapped to distributions with ``importlib.metadata.packages_distributions()`` of
this environment (which has every extra installed).

Slow, opt-in (``NOVA_MEMORY_FRESH_VENV=1``, marker ``fresh_venv``): the wheel installed without
extras into a new virtual environment (CPU torch first), then the README's main job
(``nova-memory demo``) and its LangChain middleware example with a fake chat model.
"""

from __future__ import annotations

import ast
import email.parser
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import textwrap
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "nova_memory_integrations"
DIST = "nova-memory-integrations"
ENTRY_MODULES = (PACKAGE, f"{PACKAGE}.langchain", f"{PACKAGE}.llama_index", f"{PACKAGE}.langgraph", f"{PACKAGE}.cli")
"""What a user imports first; the public names of the package's ``__all__`` are resolved too."""
PYTHONS = ("3.10", "3.11", "3.12", "3.13")

packaging_requirements = pytest.importorskip("packaging.requirements")
packaging_utils = pytest.importorskip("packaging.utils")
pytest.importorskip("build", reason="the 'build' package (test extra) builds the wheel")


def _norm(name: str) -> str:
    return str(packaging_utils.canonicalize_name(name))


# -- the build ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Built:
    wheel: Path
    sdist: Path
    metadata: email.message.Message
    sources: dict[str, str]
    """Module name -> source, as shipped in the wheel."""

    def requirements(self) -> list[packaging_requirements.Requirement]:
        return [packaging_requirements.Requirement(r) for r in self.metadata.get_all("Requires-Dist") or []]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The sdist, and the wheel built from it (``python -m build``), of the working tree."""
    out = tmp_path_factory.mktemp("dist")
    # the test extra has hatchling: no build environment to download, seconds
    isolation = ["--no-isolation"] if importlib.util.find_spec("hatchling") else []
    done = subprocess.run([sys.executable, "-m", "build", *isolation, "--outdir", str(out), str(ROOT)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheel = next(out.glob("*.whl"))
    sdist = next(out.glob("*.tar.gz"))
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(zf.read(meta).decode())
        sources = {}
        for name in zf.namelist():
            if name.startswith(f"{PACKAGE}/") and name.endswith(".py"):
                module = name[:-3].replace("/", ".").removesuffix(".__init__")
                sources[module] = zf.read(name).decode()
    return Built(wheel, sdist, metadata, sources)


# -- imports of a module, with their context ---------------------------------------------------------------------
@dataclass(frozen=True)
class Import:
    module: str  # the importing module
    top: str  # top-level name imported
    line: int
    at_import_time: bool  # module level, not under TYPE_CHECKING, not in a function
    guarded: bool  # in a try whose handler catches ImportError, or under an ``if sys.version_info``
    extra: str | None  # the extra of an enclosing ``with needs_extra("..."):``


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in ("ImportError", "ModuleNotFoundError", "Exception") for n in names)


def _needs_extra(item: ast.withitem) -> str | None:
    call = item.context_expr
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name | ast.Attribute)
            and (call.func.id if isinstance(call.func, ast.Name) else call.func.attr) == "needs_extra"
            and call.args and isinstance(call.args[0], ast.Constant)):
        return str(call.args[0].value)
    return None


def imports_of(module: str, source: str) -> list[Import]:
    """Every absolute import of ``module``'s source, with where it stands."""
    found: list[Import] = []

    def visit(node: ast.AST, *, top_level: bool, guarded: bool, extra: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                if isinstance(child, ast.ImportFrom) and (child.level or not child.module):
                    continue
                names = [a.name for a in child.names] if isinstance(child, ast.Import) else [child.module]
                for name in names:
                    found.append(Import(module, name.split(".")[0], child.lineno, top_level, guarded, extra))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                visit(child, top_level=False, guarded=guarded, extra=extra)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), top_level=top_level, guarded=guarded, extra=extra)
            elif isinstance(child, ast.If) and "version_info" in ast.unparse(child.test):
                # a per-Python branch: its requirement carries the matching python_version marker
                visit(child, top_level=top_level, guarded=True, extra=extra)
            elif isinstance(child, ast.Try):
                caught = any(_catches_import_error(h) for h in child.handlers)
                for stmt in [*child.body, *child.handlers]:
                    visit(ast.Module(body=[stmt], type_ignores=[]) if isinstance(stmt, ast.stmt) else stmt,
                          top_level=top_level, guarded=guarded or caught, extra=extra)
                for stmt in [*child.orelse, *child.finalbody]:
                    visit(ast.Module(body=[stmt], type_ignores=[]), top_level=top_level, guarded=guarded, extra=extra)
            elif isinstance(child, ast.With):
                named = next((e for e in map(_needs_extra, child.items) if e is not None), None)
                visit(child, top_level=top_level, guarded=guarded, extra=named or extra)
            else:
                visit(child, top_level=top_level, guarded=guarded, extra=extra)

    visit(ast.parse(source), top_level=True, guarded=False, extra=None)
    return found


_DISTS = importlib.metadata.packages_distributions()


def distributions_of(top: str) -> set[str]:
    """The distributions providing import name ``top`` here (its own name when none is installed)."""
    return {_norm(d) for d in _DISTS.get(top, [])} or {_norm(top)}


def third_party(imp: Import) -> bool:
    return imp.top not in sys.stdlib_module_names and imp.top != PACKAGE and imp.top != "__future__"


def provided(imp: Import, requirements: list[packaging_requirements.Requirement], extra: str | None) -> bool:
    """Whether a requirement of the wheel (core, or of ``extra``) provides ``imp``.

    A core requirement counts when its marker holds here; under a guard (``try: import x``
    ``except ImportError``, ``if sys.version_info < (3, 11)``) any marker counts
    (``tomli; python_version < '3.11'``).
    """
    dists = distributions_of(imp.top)
    for req in requirements:
        if _norm(req.name) not in dists:
            continue
        if req.marker is None or imp.guarded:
            return True
        if req.marker.evaluate({"extra": ""}):
            return True
        if extra is not None and req.marker.evaluate({"extra": extra}):
            return True
    return False


def loaded_modules() -> list[str]:
    """The package's modules in ``sys.modules`` after a user's first imports (a clean interpreter)."""
    code = textwrap.dedent(f"""
        import importlib, json, sys
        import {PACKAGE} as pkg
        for name in pkg.__all__:
            getattr(pkg, name)
        for module in {list(ENTRY_MODULES)!r}:
            importlib.import_module(module)
        print(json.dumps(sorted(m for m in sys.modules if m == {PACKAGE!r} or m.startswith({PACKAGE + '.'!r}))))
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


# -- the fast checks ----------------------------------------------------------------------------------------------
def test_the_public_objects_import_only_dependencies(built: Built) -> None:
    """``pip install nova-memory-integrations`` (no extra) is enough for NovaMemory, the adapters and the CLI."""
    requirements = built.requirements()
    modules = loaded_modules()
    assert f"{PACKAGE}.langchain.middleware" in modules  # NovaMemory itself is walked
    assert not set(modules) - set(built.sources) - {f"{PACKAGE}.{m}" for m in _moved_aliases()}, \
        "modules the public objects load are missing from the wheel"
    unmet = sorted({
        f"{imp.module}:{imp.line} imports {imp.top} ({', '.join(sorted(distributions_of(imp.top)))})"
        for module in modules if module in built.sources
        for imp in imports_of(module, built.sources[module])
        if imp.at_import_time and third_party(imp) and not provided(imp, requirements, None)
    })
    assert not unmet, "imported at import time but not an unconditional Requires-Dist of the wheel:\n" + "\n".join(unmet)


def test_every_optional_import_names_its_extra(built: Built) -> None:
    """Anywhere in the package, a module that is no dependency is imported inside ``needs_extra(<extra>)``."""
    requirements = built.requirements()
    extras = set(built.metadata.get_all("Provides-Extra") or [])
    unmet = []
    for module, source in sorted(built.sources.items()):
        for imp in imports_of(module, source):
            if not third_party(imp) or provided(imp, requirements, None):
                continue
            if imp.extra is None:
                unmet.append(f"{module}:{imp.line} imports {imp.top}: not a dependency, not in needs_extra(...)")
            elif imp.extra not in extras or not provided(imp, requirements, imp.extra):
                unmet.append(f"{module}:{imp.line} imports {imp.top}: the {imp.extra!r} extra does not provide it")
    assert not unmet, "\n".join(unmet)


def test_the_extras_named_in_code_exist(built: Built) -> None:
    from nova_memory_integrations.errors import EXTRAS

    assert set(EXTRAS) == set(built.metadata.get_all("Provides-Extra") or []) - {"test"}


def test_metadata_license_and_pythons(built: Built) -> None:
    import nova_memory_integrations

    meta = built.metadata
    assert meta["Name"] == DIST and meta["Version"] == nova_memory_integrations.__version__
    assert meta["Requires-Python"] == ">=3.10"
    classifiers = set(meta.get_all("Classifier") or [])
    assert {f"Programming Language :: Python :: {v}" for v in PYTHONS} <= classifiers
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    license_text = (ROOT / "LICENSE").read_text()
    assert license_text.startswith("MIT License") and "Copyright (c) 2026 nova-memory-integrations developers" in license_text
    with zipfile.ZipFile(built.wheel) as zf:
        shipped = [n for n in zf.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        assert len(shipped) == 1 and zf.read(shipped[0]).decode() == license_text
        assert f"{PACKAGE}/py.typed" in zf.namelist()
    with tarfile.open(built.sdist) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    assert {"LICENSE", "README.md", "pyproject.toml", f"{PACKAGE}/__init__.py"} <= names
    assert not any(n.startswith(("tests/", "benchmarks/", ".ci/")) for n in names)
    core = {_norm(r.name) for r in built.requirements() if r.marker is None}
    assert {"langchain", "langgraph", "langchain-core", "llama-index-core"} <= core


def test_no_syntax_newer_than_python_310(built: Built) -> None:
    """Every shipped module parses as Python 3.10 (``ast.parse(feature_version=(3, 10))``)."""
    bad = []
    for module, source in built.sources.items():
        try:
            ast.parse(source, feature_version=(3, 10))
        except SyntaxError as exc:
            bad.append(f"{module}:{exc.lineno}: {exc.msg}")
    assert not bad, bad


def _moved_aliases() -> list[str]:
    from nova_memory_integrations._compat import MOVED

    return list(MOVED)


# -- the slow check: a fresh virtual environment ---------------------------------------------------------------------
QUICKSTART = '''
import asyncio, os, sys
from dataclasses import dataclass
from datetime import datetime, timezone

from langchain.agents import create_agent
from nova_memory_integrations import NovaMemory, NovaStore
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel

# README, "The engine"
store = NovaStore(sys.argv[1])
store.add_turn("alice", "user", "My favorite color is blue.", timestamp=datetime(2024, 1, 10, tzinfo=timezone.utc))
store.add_turn("alice", "user", "My favorite color is green now.", timestamp=datetime(2024, 6, 1, tzinfo=timezone.utc))
store.consolidate("alice")
then = store.facts("alice", predicate="favorite_color", as_of=datetime(2024, 3, 1, tzinfo=timezone.utc))
assert [f.object for f in then] == ["blue"], then
ctx = store.context("what colour should the poster be?", "alice", budget_tokens=1000, format="markdown")
assert "green" in ctx.text, ctx.text

# README, "LangChain agent (middleware)", with a fake chat model
@dataclass
class Context:
    user_id: str

model = EchoMemoryChatModel()
agent = create_agent(model, [], middleware=[NovaMemory(store, consolidation="immediate")], context_schema=Context)
agent.invoke({"messages": [("user", "I moved to Berlin last week")]}, context=Context(user_id="bob"))
reply = asyncio.run(agent.ainvoke({"messages": [("user", "Where do I live?")]}, context=Context(user_id="bob")))
assert "Berlin" in reply["messages"][-1].content, reply["messages"][-1].content
assert "Berlin" not in str(store.context("where do I live?", "alice").text)
store.close()
print("quickstart ok")
'''


@pytest.mark.fresh_venv
@pytest.mark.skipif(os.environ.get("NOVA_MEMORY_FRESH_VENV") != "1",
                    reason="installs the wheel into a new venv (minutes): set NOVA_MEMORY_FRESH_VENV=1")
def test_the_wheel_installs_and_runs_in_a_fresh_venv(built: Built, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    timings: dict[str, float] = {}

    def run(label: str, *cmd: str | Path, timeout: float = 1800, **kw: object) -> str:
        start = time.monotonic()
        done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)
        timings[label] = round(time.monotonic() - start, 1)
        assert done.returncode == 0, f"{label}: {done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        return done.stdout

    run("venv", sys.executable, "-m", "venv", venv)
    pip = [venv / "bin" / "python", "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    # CI's CPU torch (README: elsewhere pip install torch --index-url https://download.pytorch.org/whl/cpu)
    run("torch", *pip, "torch==2.13.0")
    run("wheel", *pip, built.wheel)
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))},
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "NOVA_MEMORY_OFFLINE": "1",
           "NOVA_MEMORY_HOME": str(tmp_path / "home"), "NOVA_MEMORY_MODEL_CACHE": str(tmp_path / "models")}
    script = tmp_path / "quickstart.py"
    script.write_text(QUICKSTART)
    out = run("quickstart", venv / "bin" / "python", script, tmp_path / "mem", env=env, cwd=tmp_path)
    assert "quickstart ok" in out
    run("demo", venv / "bin" / "nova-memory", "demo", env=env, cwd=tmp_path)
    # an extra that is not installed says how to get it
    done = subprocess.run([str(venv / "bin" / "nova-memory"), "serve"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 1 and 'pip install "nova-memory-integrations[server]"' in done.stderr, done.stderr
    print("fresh venv timings (s):", timings)
