"""Shared fixtures: real MiniLM embeddings (loaded once), real Chroma and SQLite in tmp dirs.

Stores embed with the default backend, ONNX Runtime (``minilm_onnx``: int8 documents and fp32
queries, exported once per session into ONE model cache, ``model_cache``, which
``NOVA_MEMORY_MODEL_CACHE`` points every store and subprocess of the session at); ``minilm`` is
the same model on torch (sentence-transformers), the reference.

Nothing is ever fetched: ``NOVA_MEMORY_OFFLINE=1`` and an unreachable ``NOVA_MEMORY_MODEL_URL``
keep the reranker on its fallback, as before; tests of fetching undo them with ``monkeypatch``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ["NOVA_MEMORY_OFFLINE"] = "1"  # no model fetching, whatever the caller's environment
os.environ["NOVA_MEMORY_MODEL_URL"] = "http://127.0.0.1:9/nova-memory-tests-never-fetch"  # discard port

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.embeddings import MiniLMEmbeddings
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbeddings:
    """The packaged all-MiniLM-L6-v2, loaded once per test session."""
    emb = MiniLMEmbeddings()
    emb.embed_query("warm up")
    return emb


@pytest.fixture(scope="session", autouse=True)
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The session's one model cache (``NOVA_MEMORY_MODEL_CACHE``): a tmp dir, never the user's."""
    path = tmp_path_factory.mktemp("model-cache")
    before = os.environ.get("NOVA_MEMORY_MODEL_CACHE")
    os.environ["NOVA_MEMORY_MODEL_CACHE"] = str(path)
    yield path
    if before is None:
        os.environ.pop("NOVA_MEMORY_MODEL_CACHE", None)
    else:
        os.environ["NOVA_MEMORY_MODEL_CACHE"] = before


@pytest.fixture(scope="session")
def minilm_onnx(model_cache: Path) -> OnnxMiniLMEmbeddings:
    """The packaged all-MiniLM-L6-v2 on ONNX Runtime as stores use it by default (int8 documents,
    fp32 queries), exported once per session into the session's model cache.

    Stores opened with the default embeddings (and subprocesses) find these files there and
    never export again.
    """
    return OnnxMiniLMEmbeddings(cache_dir=model_cache / "embeddings", fallback=False).load()


@pytest.fixture
def store(tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings) -> Iterator[NovaStore]:
    """A fresh store with real SQLite, real Chroma and real embeddings (the default backend)."""
    s = NovaStore(tmp_path / "mem", embeddings=minilm_onnx)
    yield s
    s.close()


@pytest.fixture
def make_store(tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings) -> Iterator[object]:
    """Factory for stores with custom config / path (closed at teardown)."""
    opened: list[NovaStore] = []

    def factory(path: Path | None = None, config: NovaConfig | None = None, **kw: object) -> NovaStore:
        s = NovaStore(path or tmp_path / "mem", embeddings=kw.pop("embeddings", minilm_onnx), config=config, **kw)  # type: ignore[arg-type]
        opened.append(s)
        return s

    yield factory
    for s in opened:
        s.close()


@pytest.fixture(autouse=True)
def _root_logger_untouched() -> Iterator[None]:
    """No code path may configure the root logger."""
    root = logging.getLogger()

    def state() -> tuple[list[logging.Handler], int]:
        own = [h for h in root.handlers if not type(h).__module__.startswith("_pytest")]
        return own, root.level

    before = state()
    yield
    assert state() == before, "root logger was reconfigured"


def _llm_messages(recorded: object, sent: object) -> None:
    """vcrpy matcher: the chat messages of two LLM requests are the same (other fields may vary
    with client versions). Used by the cassette-backed tests (``tests/integration/test_llm_http.py``)."""
    import json as _json

    def messages(request: object) -> object:
        body = getattr(request, "body", None)
        try:
            return _json.loads(body or b"{}").get("messages")
        except (ValueError, AttributeError):
            return body

    assert messages(recorded) == messages(sent), "the chat messages differ from the recorded ones"


def pytest_recording_configure(config: pytest.Config, vcr: object) -> None:
    vcr.register_matcher("llm_messages", _llm_messages)  # type: ignore[attr-defined]


# -- nothing written into the checkout ------------------------------------------------------
# Tests write only under tmp dirs. The CLI fuzz once left files named `delete`, `facts`, `{`
# in the repo root (a random `export delete` line); a new top-level entry fails the run.
_ROOT = Path(__file__).resolve().parent.parent
_ALLOWED_NEW = {".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache", "mutants", ".venv", ".coverage"}
_ROOT_ENTRIES = pytest.StashKey[set[str]]()


def pytest_sessionstart(session: pytest.Session) -> None:
    session.config.stash[_ROOT_ENTRIES] = {p.name for p in _ROOT.iterdir()}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    before = session.config.stash.get(_ROOT_ENTRIES, None)
    if before is None:
        return
    new = {p.name for p in _ROOT.iterdir()} - before - _ALLOWED_NEW
    if new:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"FAILED: the tests wrote into the checkout: {sorted(new)}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED

