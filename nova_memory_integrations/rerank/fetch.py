"""Fetch a flashrank model into the per-machine model cache: one zip, checked, unpacked safely.

Used when no ``retrieval.reranker_model_dir`` is configured. The URL scheme is flashrank's own
(``flashrank.Config.model_url``): ``<base URL>/<model name>.zip``, an archive holding
``<model name>/`` with the ONNX file and tokenizer files. The result::

    <model cache>/rerankers/<model name>/               # the unzipped model, as flashrank lays it out
    <model cache>/rerankers/<model name>/.nova-fetch.json   # source, archive sha256, sha256 per file

Safety: the download streams to a temporary file with a size cap; its size is checked against
``Content-Length`` and its sha256 against :data:`KNOWN_ARCHIVES` or the server's
``X-Linked-Etag`` / ``X-Linked-Size`` (Hugging Face sends the LFS sha256 there) when known;
members are extracted only below the model directory (no absolute paths, ``..`` or links),
CRC-checked, into a temporary directory that is renamed into place, under a cross-process
lock. On first use in a process the files are checked against the manifest (a damaged model
is fetched again). Nothing is fetched when fetching is off (``retrieval.reranker_fetch =
false``, ``NOVA_MEMORY_OFFLINE=1`` or ``HF_HUB_OFFLINE=1``), and a URL that just failed is not
tried again by this process for :data:`RETRY_AFTER_S` (``nova-memory models pull`` always tries).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import stat
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from ..config import model_cache_dir
from ..embeddings._cache_file import file_lock, sha256_file, tmp_name
from .base import ModelNotAvailable

__all__ = [
    "DEFAULT_MODEL_URL",
    "FETCH_MODEL",
    "KNOWN_ARCHIVES",
    "cached_model",
    "ensure_model",
    "fetch_model",
    "fetching_off",
    "model_url",
    "next_step",
    "rerankers_dir",
]

DEFAULT_MODEL_URL = "https://huggingface.co/prithivida/flashrank/resolve/main"
"""flashrank's model host (``flashrank.Config.model_url`` without ``/{}.zip``)."""
FETCH_MODEL = "ms-marco-TinyBERT-L-2-v2"
"""The model fetched when none is named: flashrank's default (~4 MB)."""
KNOWN_ARCHIVES: dict[str, tuple[int, str]] = {}
"""Pinned ``(size, sha256)`` of archives by model name, checked when present (else the server's
``X-Linked-Size`` / ``X-Linked-Etag`` and ``Content-Length`` are)."""
MANIFEST = ".nova-fetch.json"
MAX_ARCHIVE_BYTES = 8 << 30
"""Downloads and unpacked archives larger than this are refused."""
TIMEOUT_S = 30.0
"""Seconds a connection may stay silent before the fetch gives up."""
RETRY_AFTER_S = 600.0
"""After a failed fetch, stores of this process use the fallback without trying the same URL
again for this long (a blocked network costs one timeout, not one per store)."""
_OFF = ("NOVA_MEMORY_OFFLINE", "HF_HUB_OFFLINE")
_TRUE = {"1", "true", "yes", "on"}
_BLOCK = 1 << 16

_lock = threading.RLock()
_checked: dict[str, tuple[tuple[str, int, int], ...]] = {}  # model dir -> file stats that matched the manifest
_failed: dict[str, tuple[float, str]] = {}  # source URL -> (time.monotonic() of the failure, why)


def fetching_off(fetch: bool | None = True) -> str | None:
    """Why fetching is off, or ``None`` when it is on.

    Args:
        fetch: the setting (``retrieval.reranker_fetch``); ``None`` counts as on.

    Returns:
        ``"NOVA_MEMORY_OFFLINE"`` / ``"HF_HUB_OFFLINE"`` when that variable is set to a true
        value (it wins over the setting), ``"retrieval.reranker_fetch = false"``, or ``None``.
    """
    for name in _OFF:
        if os.environ.get(name, "").strip().lower() in _TRUE:
            return name
    return None if fetch is None or fetch else "retrieval.reranker_fetch = false"


def next_step(off: str | None, model_name: str, root: Path, url: str | None = None) -> str:
    """What to do to get ``model_name`` into ``root``: allow fetching (naming what turned it off), or
    place the files by hand.

    Args:
        off: what :func:`fetching_off` returned (``None``: fetching was on and failed).
        model_name: the flashrank model.
        root: the directory that holds models (``<model cache>/rerankers``).
        url: the base URL (``retrieval.reranker_url``).
    """
    if off in _OFF:
        allow = f"unset {off} (or set it to 0) and run nova-memory models pull"
    elif off is not None:
        allow = "run nova-memory models pull (it fetches whatever retrieval.reranker_fetch says)"
    else:
        allow = "run nova-memory models pull where the URL is reachable (--url for a mirror)"
    return f"to get it, {allow}, or unzip {model_url(url)}/{model_name}.zip into {root}"


def model_url(configured: str | None = None) -> str:
    """The base URL: ``configured`` (``retrieval.reranker_url``), ``$NOVA_MEMORY_MODEL_URL`` or flashrank's."""
    return (configured or os.environ.get("NOVA_MEMORY_MODEL_URL") or DEFAULT_MODEL_URL).rstrip("/")


def rerankers_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """``<model cache>/rerankers`` (``cache_dir`` is ``embeddings.model_cache_dir``)."""
    return model_cache_dir(cache_dir) / "rerankers"


# -- the cached model -------------------------------------------------------------------------------
def _stats(model_dir: Path, names: list[str]) -> tuple[tuple[str, int, int], ...] | None:
    out = []
    for name in names:
        try:
            st = (model_dir / name).stat()
        except OSError:
            return None
        out.append((name, st.st_size, st.st_mtime_ns))
    return tuple(out)


def cached_model(model_name: str, root: Path) -> Path | None:
    """``<root>/<model_name>`` when it is there and intact, else ``None``.

    A fetched model is checked against its manifest once per process (again if a file
    changes); a directory without a manifest was placed by hand and is taken as it is.
    """
    model_dir = root / model_name
    if not model_dir.is_dir():
        return None
    try:
        manifest = json.loads((model_dir / MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return model_dir
    except (OSError, ValueError):
        return None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict) or not files:
        return None
    names = sorted(files)
    stats = _stats(model_dir, names)
    if stats is None:
        return None
    with _lock:
        if _checked.get(str(model_dir)) == stats:
            return model_dir
    try:
        ok = all(sha256_file(model_dir / name) == files[name] for name in names)
    except OSError:
        ok = False
    with _lock:
        if ok:
            _checked[str(model_dir)] = stats
        else:
            _checked.pop(str(model_dir), None)
    return model_dir if ok else None


def ensure_model(model_name: str, root: Path, *, fetch: bool | None = True, url: str | None = None) -> Path:
    """The model directory, from the cache or (when fetching is on) fetched now.

    Raises:
        ModelNotAvailable: not cached (or damaged) and fetching is off or failed.
    """
    with _lock:
        found = cached_model(model_name, root)
        if found is not None:
            return found
        off = fetching_off(fetch)
        if off is not None:
            raise ModelNotAvailable(
                f"fetching is off ({off}) and {model_name} is not in {root}; {next_step(off, model_name, root, url)}"
            )
        failed = _failed.get(f"{model_url(url)}/{model_name}.zip")
        if failed is not None and time.monotonic() - failed[0] < RETRY_AFTER_S:
            raise ModelNotAvailable(f"{failed[1]}; {next_step(None, model_name, root, url)}")
        try:
            return fetch_model(model_name, root, url=url)
        except ModelNotAvailable as exc:
            raise ModelNotAvailable(f"{exc}; {next_step(None, model_name, root, url)}") from exc


def fetch_model(model_name: str, root: Path, *, url: str | None = None, timeout: float = TIMEOUT_S) -> Path:
    """Download ``<url>/<model_name>.zip`` and unpack it into ``<root>/<model_name>``.

    Replaces what is there, unless another process fetched an intact copy while this one
    waited for the lock.

    Args:
        model_name: a flashrank model name (the archive's name).
        root: the directory that holds models (``<model cache>/rerankers``).
        url: the base URL; default :func:`model_url`.
        timeout: seconds a connection may stay silent.

    Returns:
        The model directory.

    Raises:
        ModelNotAvailable: the download, a check or the extraction failed (nothing is left behind).
    """
    if not model_name or any(c in model_name for c in "/\\") or model_name in (".", ".."):
        raise ModelNotAvailable(f"not a model name: {model_name!r}")
    source = f"{model_url(url)}/{model_name}.zip"
    with _lock:
        root.mkdir(parents=True, exist_ok=True)
        with file_lock(root / f".{model_name}.lock"):
            found = cached_model(model_name, root) if (root / model_name / MANIFEST).is_file() else None
            if found is not None:  # fetched meanwhile by another process
                return found
            archive = tmp_name(root / f"{model_name}.zip")
            try:
                digest = _download(source, archive, model_name, timeout)
                return _install(archive, root, model_name, {"source": source, "archive_sha256": digest})
            except (ModelNotAvailable, OSError, ValueError, zipfile.BadZipFile, http.client.HTTPException) as exc:
                why = f"fetch failed: {_short(exc)} ({source})"
                _failed[source] = (time.monotonic(), why)
                raise ModelNotAvailable(why) from exc
            finally:
                archive.unlink(missing_ok=True)


def _short(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code}"
    if isinstance(exc, ModelNotAvailable):
        return str(exc)
    reason = getattr(exc, "reason", None) if isinstance(exc, urllib.error.URLError) else None
    text = " ".join(str(reason if reason is not None else exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text}"


# -- download ---------------------------------------------------------------------------------------
class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follows redirects, keeping the ``X-Linked-*`` headers a hub sends before its CDN."""

    def __init__(self) -> None:
        self.linked: dict[str, str] = {}

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        for key in ("X-Linked-Etag", "X-Linked-Size"):
            if headers.get(key):
                self.linked[key] = headers[key]
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener(source: str) -> tuple[urllib.request.OpenerDirector, _Redirects]:
    redirects = _Redirects()
    handlers: list[Any] = [redirects]
    if (urlsplit(source).hostname or "") in ("localhost", "127.0.0.1", "::1"):
        handlers.append(urllib.request.ProxyHandler({}))  # a local server is never behind a proxy
    return urllib.request.build_opener(*handlers), redirects


def _expected(model_name: str, headers: Any, linked: dict[str, str]) -> tuple[int | None, str | None]:
    if model_name in KNOWN_ARCHIVES:
        pinned_size, pinned_digest = KNOWN_ARCHIVES[model_name]
        return pinned_size, pinned_digest.lower()
    etag = str(headers.get("X-Linked-Etag") or linked.get("X-Linked-Etag") or "")
    etag = etag.strip().removeprefix("W/").strip('"').lower()
    digest = etag if len(etag) == 64 and all(c in "0123456789abcdef" for c in etag) else None
    size = str(headers.get("X-Linked-Size") or linked.get("X-Linked-Size") or headers.get("Content-Length") or "")
    return (int(size) if size.strip().isdigit() else None), digest


def _download(source: str, dest: Path, model_name: str, timeout: float) -> str:
    opener, redirects = _opener(source)
    request = urllib.request.Request(source, headers={"User-Agent": "nova-memory-integrations"})
    digest = hashlib.sha256()
    got = 0
    with opener.open(request, timeout=timeout) as response, open(dest, "wb") as out:
        size, expected = _expected(model_name, response.headers, redirects.linked)
        if size is not None and size > MAX_ARCHIVE_BYTES:
            raise ModelNotAvailable(f"the archive is {size} bytes, more than the {MAX_ARCHIVE_BYTES} allowed")
        while block := response.read(_BLOCK):
            got += len(block)
            if got > MAX_ARCHIVE_BYTES:
                raise ModelNotAvailable(f"the archive is larger than the {MAX_ARCHIVE_BYTES} bytes allowed")
            digest.update(block)
            out.write(block)
    if size is not None and got != size:
        raise ModelNotAvailable(f"got {got} bytes, expected {size} (truncated download?)")
    value = digest.hexdigest()
    if expected is not None and value != expected:
        raise ModelNotAvailable(f"sha256 {value} is not the expected {expected}")
    return value


# -- extraction -------------------------------------------------------------------------------------
def _member_parts(info: zipfile.ZipInfo, model_name: str, strip: bool) -> tuple[str, ...]:
    name = info.filename.replace("\\", "/")
    parts = PurePosixPath(name).parts
    if strip:
        parts = parts[1:]
    unsafe = (name.startswith("/") or not parts or any(p in ("", ".", "..") for p in parts)
              or ":" in parts[0] or stat.S_ISLNK(info.external_attr >> 16))
    if unsafe:
        raise ModelNotAvailable(f"the {model_name} archive holds an unsafe member {info.filename!r}")
    return parts


def _extract(archive: Path, model_name: str, dest: Path) -> dict[str, str]:
    """Unpack into ``dest`` (the archive's ``<model_name>/`` prefix dropped); sha256 per file."""
    files: dict[str, str] = {}
    with zipfile.ZipFile(archive) as zf:
        members = [i for i in zf.infolist() if not i.is_dir() and not i.filename.startswith("__MACOSX/")]
        if sum(i.file_size for i in members) > MAX_ARCHIVE_BYTES:
            raise ModelNotAvailable(f"the {model_name} archive unpacks to more than {MAX_ARCHIVE_BYTES} bytes")
        strip = bool(members) and all(i.filename.replace("\\", "/").split("/")[0] == model_name for i in members)
        for info in members:
            parts = _member_parts(info, model_name, strip)
            target = dest.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            digest, written = hashlib.sha256(), 0
            with zf.open(info) as src, open(target, "wb") as out:  # zipfile checks each member's CRC
                while block := src.read(_BLOCK):
                    written += len(block)
                    if written > info.file_size:
                        raise ModelNotAvailable(f"the {model_name} archive member {info.filename!r} is oversized")
                    digest.update(block)
                    out.write(block)
            files["/".join(parts)] = digest.hexdigest()
    if not files:
        raise ModelNotAvailable(f"the {model_name} archive is empty")
    return files


def _install(archive: Path, root: Path, model_name: str, info: dict[str, Any]) -> Path:
    """Extract into a temporary directory beside the target, then rename it into place."""
    staging = Path(tempfile.mkdtemp(prefix=f".{model_name}.", suffix=".tmp", dir=root))
    target = root / model_name
    try:
        built = staging / model_name
        files = _extract(archive, model_name, built)
        manifest = {"model": model_name, **info, "files": files}
        (built / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True), encoding="utf-8")
        if target.exists():  # damaged or unchecked: move it aside, then swap
            old = staging / "old"
            os.replace(target, old)
        os.replace(built, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    with _lock:
        _checked.pop(str(target), None)
        _failed.pop(info["source"], None)
    found = cached_model(model_name, root)
    if found is None:
        raise ModelNotAvailable(f"{target} does not match its manifest right after extraction")
    return found
