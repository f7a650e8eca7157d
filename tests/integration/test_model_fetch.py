"""The reranker model fetched on first use, against a local HTTP server (never the internet).

The server (``http.server`` on 127.0.0.1, in a thread) serves a stand-in flashrank model zip
built here: the real tokenizer files of the packaged MiniLM and a tiny ONNX cross-encoder
(``logit = -2 + 4 * [passage mentions paris]``), laid out as flashrank's own archives.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import os
import socket
import stat
import threading
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from standin_models import build_flashrank_model
from typer.testing import CliRunner

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.cli import app
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.rerank import (
    FlashRankReranker,
    LexicalSemanticReranker,
    fetch,
    make_reranker,
    make_reranker_from_config,
)
from nova_memory_integrations.rerank import factory as rerank_factory
from nova_memory_integrations.rerank.base import ModelNotAvailable

MODEL = "ms-marco-TinyBERT-L-2-v2"
ROUTE = f"/{MODEL}.zip"
RERANK_LOGGER = "nova_memory_integrations.rerank"
TEXTS = ["bananas are yellow", "the louvre is in paris", "paris is lovely in spring", "cats sleep a lot"]


# -- the stand-in model and the server ---------------------------------------------------------------
def _standin_dir(root: Path) -> Path:
    """``<root>/<MODEL>/`` as flashrank's unzipped archive: tokenizer files and a tiny ONNX model."""
    return build_flashrank_model(root, MODEL, {"paris": 4.0})


def _zip(entries: dict[str, bytes], links: tuple[str, ...] = (), method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as zf:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            if name in links:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, data)
    return buf.getvalue()


@pytest.fixture(scope="module")
def standin(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The stand-in model's files, ``{"<MODEL>/<file>": bytes}`` as in flashrank's zip."""
    model_dir = _standin_dir(tmp_path_factory.mktemp("standin"))
    return {f"{MODEL}/{p.name}": p.read_bytes() for p in sorted(model_dir.iterdir())}


class Server:
    """What the local server serves (``routes``: path -> body, headers) and what it was asked."""

    def __init__(self) -> None:
        self.routes: dict[str, tuple[bytes, dict[str, str]]] = {}
        self.requests: list[str] = []
        self.url = ""


@pytest.fixture
def server(standin: dict[str, bytes]) -> Iterator[Server]:
    state = Server()
    state.routes[ROUTE] = (_zip(standin), {})

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.requests.append(self.path)
            if self.path not in state.routes:
                self.send_error(404)
                return
            body, headers = state.routes[self.path]
            self.send_response(200)
            self.send_header("Content-Type", "application/zip")
            self.send_header("Content-Length", headers.get("Content-Length", str(len(body))))
            for key, value in headers.items():
                if key != "Content-Length":
                    self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield state
    httpd.shutdown()
    httpd.server_close()
    thread.join(timeout=5)


@pytest.fixture
def online(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Fetching allowed (conftest turns it off), a fresh model cache; yields the cache's rerankers dir."""
    monkeypatch.delenv("NOVA_MEMORY_OFFLINE", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("NOVA_MEMORY_MODEL_CACHE", str(tmp_path / "cache"))
    rerank_factory._reset_fallback_warning()
    monkeypatch.setattr(fetch, "_failed", {})
    yield tmp_path / "cache" / "rerankers"
    rerank_factory._reset_fallback_warning()


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == RERANK_LOGGER and r.levelno >= logging.WARNING]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _assert_one_short_warning(caplog: pytest.LogCaptureFixture) -> str:
    """One warning, on one line, whole (never cut mid-word), with what to do and the setting that silences it."""
    warnings = _warnings(caplog)
    assert len(warnings) == 1, warnings
    message = warnings[0]
    assert "\n" not in message and "..." not in message, message
    assert message.startswith("nova-memory: no reranker model, using the fallback reranker: "), message
    assert "to get it, " in message and f"{MODEL}.zip into " in message, message
    assert message.endswith('To silence this, set retrieval.reranker = "fallback"'), message
    return message


# -- fetch once, then the cache -----------------------------------------------------------------------
def test_fetched_once_then_served_from_the_cache(
    online: Path, server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=RERANK_LOGGER)
    first = make_reranker("auto", url=server.url)
    assert isinstance(first, FlashRankReranker) and first.model_dir == online / MODEL
    scores = first.score("the capital of france", TEXTS)
    assert max(range(len(TEXTS)), key=scores.__getitem__) in (1, 2) and scores[0] < 0.2 < scores[1]
    assert server.requests == [ROUTE]

    second = make_reranker("auto", url=server.url)
    fetch._checked.clear()  # as a new process: the files are checked against the manifest again
    third = make_reranker("flashrank", url=server.url)
    offline = make_reranker("auto", url=server.url, fetch=False)  # a cached model needs no network
    assert all(isinstance(r, FlashRankReranker) for r in (second, third, offline))
    assert server.requests == [ROUTE]  # one download in all
    assert _warnings(caplog) == []

    manifest = json.loads((online / MODEL / fetch.MANIFEST).read_text())
    assert manifest["source"] == server.url + ROUTE
    assert manifest["archive_sha256"] == hashlib.sha256(server.routes[ROUTE][0]).hexdigest()
    assert sorted(manifest["files"]) == sorted(p.name for p in (online / MODEL).iterdir() if p.name != fetch.MANIFEST)
    leftovers = [p.name for p in online.iterdir() if p.name not in (MODEL, f".{MODEL}.lock")]
    assert leftovers == []  # no temporary archive or directory


def test_a_store_fetches_on_first_recall(
    online: Path, server: Server, tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOVA_MEMORY_MODEL_URL", server.url)
    with NovaStore(tmp_path / "data", embeddings=minilm_onnx) as store:
        store.add_turn("alice", "user", "I spent a week in Paris last spring.")
        store.add_turn("alice", "user", "My cat sleeps all day.")
        assert server.requests == []  # nothing is fetched before the first recall
        result = store.context("where did I travel?", "alice", budget_tokens=200)
        assert "Paris" in result.text
        assert isinstance(store._recall.reranker, FlashRankReranker)
    assert server.requests == [ROUTE]
    assert not list((tmp_path / "data").rglob(f"*{MODEL}*"))  # the model went to the cache, not the data dir


def test_settings_from_the_config(online: Path, server: Server, tmp_path: Path) -> None:
    cache = tmp_path / "configured"
    cfg = NovaConfig.from_dict({"embeddings": {"model_cache_dir": str(cache)},
                                "retrieval": {"reranker_url": server.url + "/"}})
    reranker = make_reranker_from_config(cfg)
    assert isinstance(reranker, FlashRankReranker) and reranker.model_dir == cache / "rerankers" / MODEL
    assert server.requests == [ROUTE] and not online.exists()
    fallback = make_reranker_from_config(NovaConfig.from_dict({"retrieval": {"reranker": "fallback",
                                                                             "reranker_url": server.url}}))
    assert isinstance(fallback, LexicalSemanticReranker) and server.requests == [ROUTE]


# -- fetching off -------------------------------------------------------------------------------------
@pytest.mark.parametrize("how", ["setting", "config", "NOVA_MEMORY_OFFLINE", "HF_HUB_OFFLINE"])
def test_fetching_off_never_contacts_the_server(
    how: str, online: Path, server: Server, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=RERANK_LOGGER)
    if how == "setting":
        first = make_reranker("auto", url=server.url, fetch=False)
    elif how == "config":
        first = make_reranker_from_config(NovaConfig.from_dict(
            {"retrieval": {"reranker_fetch": False, "reranker_url": server.url}}))
    else:
        monkeypatch.setenv(how, "1")
        first = make_reranker("auto", url=server.url, fetch=True)  # the environment wins over the setting
    second = make_reranker("auto", url=server.url, fetch=False)
    assert isinstance(first, LexicalSemanticReranker) and isinstance(second, LexicalSemanticReranker)
    with pytest.raises(ModelNotAvailable, match="fetching is off"):
        make_reranker("flashrank", url=server.url, fetch=False)
    assert server.requests == []
    assert not online.exists()
    message = _assert_one_short_warning(caplog)
    assert "fetching is off" in message
    if how in ("NOVA_MEMORY_OFFLINE", "HF_HUB_OFFLINE"):  # the variable to unset, then the pull
        assert f"to get it, unset {how} (or set it to 0) and run nova-memory models pull, or unzip " in message
    else:
        assert "fetching is off (retrieval.reranker_fetch = false)" in message and "nova-memory models pull" in message
    assert f"{server.url}/{MODEL}.zip into {online}" in message  # or by hand: what to unzip where


# -- failures: the fallback, one warning, nothing left behind ------------------------------------------
def test_unreachable_url_falls_back_with_one_warning(online: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger=RERANK_LOGGER)
    url = f"http://127.0.0.1:{_closed_port()}"
    first = make_reranker("auto", url=url)
    second = make_reranker("auto", url=url)
    assert isinstance(first, LexicalSemanticReranker) and isinstance(second, LexicalSemanticReranker)
    message = _assert_one_short_warning(caplog)
    assert "refused" in message.lower() or "URLError" in message
    with pytest.raises(ModelNotAvailable, match="fetch failed"):
        make_reranker("flashrank", url=url)
    assert not (online / MODEL).exists()


def test_a_failed_fetch_is_not_retried_at_once(online: Path, server: Server) -> None:
    routes = dict(server.routes)
    server.routes.clear()  # 404 for now
    assert isinstance(make_reranker("auto", url=server.url), LexicalSemanticReranker)
    server.routes.update(routes)
    assert isinstance(make_reranker("auto", url=server.url), LexicalSemanticReranker)  # a store opened later
    assert server.requests == [ROUTE]  # one attempt per RETRY_AFTER_S, not one per store
    fetch._failed.clear()  # time has passed
    assert isinstance(make_reranker("auto", url=server.url), FlashRankReranker)
    assert server.requests == [ROUTE, ROUTE]


def _bad_archives(standin: dict[str, bytes]) -> dict[str, tuple[bytes, dict[str, str]]]:
    good = _zip(standin)
    stored = _zip(standin, method=zipfile.ZIP_STORED)
    at = stored.index(b"[unused1]")  # inside a member's data: its CRC no longer matches
    return {
        "http-404": (b"", {}),
        "not-a-zip": (b"<html>rate limited</html>", {}),
        "truncated": (good[: len(good) // 2], {"Content-Length": str(len(good))}),
        "wrong-sha256": (good, {"X-Linked-Etag": '"' + "0" * 64 + '"'}),
        "traversal": (_zip({**standin, f"{MODEL}/../../evil.txt": b"owned"}), {}),
        "absolute": (_zip({**standin, "/tmp/evil.txt": b"owned"}), {}),
        "symlink": (_zip({**standin, f"{MODEL}/link": b"/etc/passwd"}, links=(f"{MODEL}/link",)), {}),
        "corrupt-member": (stored[:at] + b"X" + stored[at + 1:], {}),
    }


REASONS = {"http-404": "HTTP 404", "not-a-zip": "not a zip file", "truncated": "truncated download",
           "wrong-sha256": "is not the expected", "traversal": "unsafe member", "absolute": "unsafe member",
           "symlink": "unsafe member", "corrupt-member": "Bad CRC-32"}


@pytest.mark.parametrize("case", sorted(REASONS))
def test_bad_archives_are_refused(
    case: str, online: Path, server: Server, standin: dict[str, bytes], tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger=RERANK_LOGGER)
    body, headers = _bad_archives(standin)[case]
    if case == "http-404":
        del server.routes[ROUTE]
    else:
        server.routes[ROUTE] = (body, headers)
    with pytest.raises(ModelNotAvailable) as caught:
        fetch.fetch_model(MODEL, online, url=server.url)
    assert REASONS[case] in str(caught.value)
    assert isinstance(make_reranker("auto", url=server.url), LexicalSemanticReranker)
    _assert_one_short_warning(caplog)
    assert not (online / MODEL).exists()
    assert [p.name for p in online.iterdir()] == [f".{MODEL}.lock"]  # no temporary file or directory left
    assert not list(tmp_path.rglob("evil.txt"))


def test_a_damaged_fetched_model_is_fetched_again(online: Path, server: Server) -> None:
    reranker = make_reranker("auto", url=server.url)
    assert isinstance(reranker, FlashRankReranker)
    onnx_file = next(p for p in (online / MODEL).iterdir() if p.suffix == ".onnx")
    data = bytearray(onnx_file.read_bytes())
    data[len(data) // 2] ^= 0xFF
    onnx_file.write_bytes(bytes(data))
    assert fetch.cached_model(MODEL, online) is None
    assert isinstance(make_reranker("auto", url=server.url, fetch=False), LexicalSemanticReranker)
    assert isinstance(make_reranker("auto", url=server.url), FlashRankReranker)
    assert server.requests == [ROUTE, ROUTE]
    assert fetch.cached_model(MODEL, online) == online / MODEL


def test_a_hand_placed_model_in_the_cache_is_used_as_it_is(online: Path, server: Server, standin: dict[str, bytes]) -> None:
    for name, data in standin.items():
        (online / name).parent.mkdir(parents=True, exist_ok=True)
        (online / name).write_bytes(data)
    assert isinstance(make_reranker("auto", url=server.url), FlashRankReranker)
    assert server.requests == []


# -- the CLI ------------------------------------------------------------------------------------------
def _link_embedder_files(src: Path, dst: Path) -> None:
    """The session's exported embedder, hard-linked into another cache (read only: nothing re-exports)."""
    dst.mkdir(parents=True)
    for f in src.iterdir():
        if f.suffix in (".onnx", ".sha256"):
            os.link(f, dst / f.name)


def test_models_pull_and_list(
    online: Path, server: Server, tmp_path: Path, minilm_onnx: OnnxMiniLMEmbeddings
) -> None:
    runner = CliRunner()
    cache = tmp_path / "pulled"
    _link_embedder_files(minilm_onnx.cache_dir, cache / "embeddings")
    data = tmp_path / "data"
    data.mkdir()
    (data / "config.toml").write_text(f'[embeddings]\nmodel_cache_dir = "{cache}"\n\n'
                                      f'[retrieval]\nreranker_url = "{server.url}"\n')

    result = runner.invoke(app, ["models", "pull", "--path", str(data), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["cache_dir"] == str(cache)
    status = {(i["kind"], i.get("variant", i.get("model"))): i["status"] for i in out["items"]}
    assert status == {("embedder", "fp32"): "cached", ("embedder", "int8"): "cached", ("reranker", MODEL): "fetched"}
    assert server.requests == [ROUTE]
    assert (cache / "rerankers" / MODEL / fetch.MANIFEST).is_file() and not online.exists()

    again = runner.invoke(app, ["models", "pull", "--path", str(data)], env={"NO_COLOR": "1"})
    assert again.exit_code == 0, again.output
    assert "cached" in again.output and MODEL in again.output and "fetched" not in again.output
    assert server.requests == [ROUTE]

    listed = json.loads(runner.invoke(app, ["models", "list", "--path", str(data), "--json"]).output)
    assert sorted((m["kind"], m["ok"]) for m in listed["models"]) == [
        ("embedder", True), ("embedder", True), ("reranker", True)]
    assert not list(data.rglob("*.onnx"))


def test_models_pull_respects_an_offline_environment(
    online: Path, server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(app, ["models", "pull", "--no-embedder", "--url", server.url,
                                      "--cache-dir", str(tmp_path / "c"), "--path", str(tmp_path / "d"), "--json"])
    assert result.exit_code == 1
    item = json.loads(result.output)["items"][0]
    assert item["status"] == "error" and item["detail"] == (
        f"fetching is off (HF_HUB_OFFLINE=1); to get it, unset HF_HUB_OFFLINE (or set it to 0) and run nova-memory "
        f"models pull, or unzip {server.url}/{MODEL}.zip into {tmp_path / 'c' / 'rerankers'}"
    )
    assert server.requests == []
