"""Chroma's files on disk (an embedded Chroma): its HNSW files' unused capacity, and the scrub.

Standard library only, and runnable as a script: :func:`run_child` runs this file's own source
in a child ``python -I -S``, which :meth:`~.vectors.VectorIndex.scrub` uses to scrub and
:class:`~._hnsw_tails.HnswTails` to read which segment directory holds which collection. Those
read ``chroma.sqlite3``, which Chroma's own SQLite library holds open in this process: two SQLite
libraries in one process would release each other's POSIX locks, while across processes
SQLite's locking holds. The HNSW files are plain files: :func:`zero_unused` runs anywhere.

Why the HNSW files need it (Chroma 1.5, its hnswlib): a collection's index is created with room
for 100 vectors in ``malloc``-ed buffers it never initialises, and ``initPersistentIndex`` writes
the whole capacity to ``data_level0.bin`` (100 x 1,676 bytes at 384 dimensions) and
``length.bin`` (400 bytes) straight from them. Those bytes are whatever the process freed there
before: another user's text or vectors (glibc hands a thread that starts the arena of one that
exited, and a process that freed a large block serves 167 kB requests from its heap). A
collection not yet persisted (under ``hnsw:sync_threshold``, 1,000 writes: no
``index_metadata.pickle``) has its files written so again by the first operation of every
process that opens it, a read included. Past the header's element count nothing in those files
is ever read back, so zeroing it is always safe.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import struct
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["DATA_FILE", "run_child", "scrub", "segment_dirs", "vector_segments", "zero_unused"]

DATA_FILE = "data_level0.bin"
"""The HNSW file of each vector (its links, its floats, its label), 100 of them at first."""
_LENGTHS = "length.bin"
_HEADER = struct.Struct("<iQQQQ")  # version, offsetLevel0, max_elements, cur_element_count, size_data_per_element
_VERSION = 1
_CHUNK = 1 << 20
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_MARKER = ".nova-scrubbed"


def segment_dirs(root: str | os.PathLike[str]) -> list[str]:
    """The names of the segment directories (HNSW files) under an embedded Chroma's directory."""
    try:
        with os.scandir(root) as entries:
            return [e.name for e in entries if _UUID.fullmatch(e.name) and e.is_dir()]
    except FileNotFoundError:
        return []


def zero_unused(segment: str | os.PathLike[str], since: float = 0.0) -> int:
    """Zero what lies past the vectors in a segment's ``data_level0.bin`` and ``length.bin`` (the
    header's element count says where); files not modified since ``since`` are skipped.

    Returns:
        How many bytes were zeroed (only chunks holding something are written).
    """
    try:
        with open(os.path.join(segment, "header.bin"), "rb") as fh:
            head = fh.read(_HEADER.size)
    except OSError:
        return 0
    if len(head) < _HEADER.size:
        return 0
    version, _, _, count, per = _HEADER.unpack(head)
    if version != _VERSION:
        return 0
    return (_zero_from(os.path.join(segment, DATA_FILE), count * per, since)
            + _zero_from(os.path.join(segment, _LENGTHS), count * 4, since))


def _zero_from(path: str, start: int, since: float) -> int:
    try:
        st = os.stat(path)
    except OSError:
        return 0
    if start >= st.st_size or st.st_mtime < since:
        return 0
    zeroed = 0
    with open(path, "r+b") as fh:
        for at in range(start, st.st_size, _CHUNK):
            fh.seek(at)
            chunk = fh.read(min(_CHUNK, st.st_size - at))
            if chunk.count(0) != len(chunk):
                fh.seek(at)
                fh.write(bytes(len(chunk)))
                zeroed += len(chunk)
    return zeroed


def vector_segments(root: str | os.PathLike[str]) -> dict[str, str]:
    """Collection id -> the segment directory of its vectors (in a child process only, see above)."""
    db = os.path.join(root, "chroma.sqlite3")
    if not os.path.isfile(db):
        return {}
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=60)
    try:
        rows = con.execute("SELECT collection, id FROM segments WHERE scope = 'VECTOR'").fetchall()
    finally:
        con.close()
    return {str(c): str(s) for c, s in rows}


def scrub(root: str | os.PathLike[str]) -> None:
    """Remove the segment directories no segment owns (a dropped collection's HNSW files), zero the
    unused capacity of the HNSW files written since the last scrub, and VACUUM ``chroma.sqlite3``
    (deleted rows stay in its free pages otherwise). In a child process only (see above), while
    this process writes nothing to Chroma."""
    db = os.path.join(root, "chroma.sqlite3")
    marker = os.path.join(root, _MARKER)
    since = os.path.getmtime(marker) - 5 if os.path.exists(marker) else 0.0
    if not os.path.isfile(db):
        return
    found = segment_dirs(root)
    con = sqlite3.connect(db, timeout=60, isolation_level=None)
    live = {str(r[0]) for r in con.execute("SELECT id FROM segments")}  # listed after the directories
    for name in found:
        if name not in live:
            shutil.rmtree(os.path.join(root, name), ignore_errors=True)
        else:
            zero_unused(os.path.join(root, name), since)
    con.execute("VACUUM")
    con.close()
    with open(marker, "wb"):
        pass
    os.utime(marker, (time.time(), time.time()))


def run_child(command: str, root: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (``scrub``, ``segments``) over ``root`` in a child ``python -I -S``.

    Raises:
        OSError, subprocess.SubprocessError: the child could not run or timed out.
    """
    source = Path(__file__).read_text(encoding="utf-8")
    return subprocess.run([sys.executable, "-I", "-S", "-c", source, command, str(root)], capture_output=True,
                          text=True, timeout=timeout, check=False)


def _main(argv: list[str]) -> int:
    command, root = argv
    if command == "scrub":
        scrub(root)
    elif command == "segments":
        print(json.dumps(vector_segments(root)))
    else:
        raise SystemExit(f"unknown command {command!r}")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
