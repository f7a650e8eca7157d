"""Files of the per-machine model cache: sha256 sidecars, atomic installs and a cross-process lock.

Private plumbing shared by the ONNX embedder (:mod:`.onnx`) and the reranker fetcher
(:mod:`..rerank.fetch`); standard library only. A cached file ``x.onnx`` is trusted only next to
``x.onnx.sha256`` (``sha256sum`` format, written when the file was made) and only while its
bytes hash to that value; the hash is computed once per process and file version (size, mtime,
inode), so a file replaced or edited later is checked again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

__all__ = ["file_lock", "install", "is_intact", "forget", "recorded_digest", "sha256_file", "sidecar", "tmp_name"]

_BLOCK = 1 << 20
_lock = threading.Lock()
_checked: dict[str, tuple[int, int, int]] = {}  # path -> (size, mtime_ns, inode) of a file whose hash matched


def sidecar(path: Path) -> Path:
    """The ``.sha256`` file recording ``path``'s digest."""
    return path.with_name(path.name + ".sha256")


def tmp_name(target: Path) -> Path:
    """A hidden temporary name next to ``target``, unique per process and thread."""
    return target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def sha256_file(path: Path, *, copy_to: Path | None = None) -> str:
    """The hex sha256 of ``path`` (written to ``copy_to`` on the way when given)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh, (open(copy_to, "wb") if copy_to is not None else contextlib.nullcontext()) as out:
        while block := fh.read(_BLOCK):
            digest.update(block)
            if out is not None:
                out.write(block)
    return digest.hexdigest()


def recorded_digest(path: Path) -> str | None:
    """The digest in ``path``'s sidecar, or ``None`` (missing or malformed)."""
    try:
        text = sidecar(path).read_text(encoding="ascii").split()
    except (OSError, ValueError):
        return None
    value = text[0].lower() if text else ""
    return value if len(value) == 64 and all(c in "0123456789abcdef" for c in value) else None


def _signature(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def is_intact(path: Path) -> bool:
    """Whether ``path`` exists, has a sidecar, and hashes to it (hashed once per file version)."""
    expected = recorded_digest(path)
    signature = _signature(path)
    if expected is None or signature is None:
        return False
    key = str(path)
    with _lock:
        if _checked.get(key) == signature:
            return True
    try:
        ok = sha256_file(path) == expected
    except OSError:
        return False
    with _lock:
        if ok:
            _checked[key] = signature
        else:
            _checked.pop(key, None)
    return ok


def forget(path: Path) -> None:
    """Drop the memoised check of ``path`` (it is checked again on next use)."""
    with _lock:
        _checked.pop(str(path), None)


def install(tmp: Path, target: Path, digest: str) -> None:
    """Move a finished ``tmp`` file to ``target`` with its sidecar, each by an atomic rename.

    The sidecar goes first: a reader never trusts a new file before its digest is there, and a
    reader that sees the new digest next to the old bytes just finds a mismatch and waits on
    :func:`file_lock` for the writer.
    """
    side = sidecar(target)
    side_tmp = tmp_name(side)
    try:
        side_tmp.write_text(f"{digest}  {target.name}\n", encoding="ascii")
        os.replace(side_tmp, side)
    finally:
        side_tmp.unlink(missing_ok=True)
    os.replace(tmp, target)
    signature = _signature(target)
    if signature is not None:
        with _lock:
            _checked[str(target)] = signature


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock between processes (``flock`` on ``path``; a no-op where it is missing).

    Writers of one cache entry take it, so concurrent processes make a file once: the second
    waits, then finds the first one's file intact.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: atomic renames still keep readers safe
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
