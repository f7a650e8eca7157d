"""The script :meth:`~.vectors.VectorIndex.scrub` runs in a child process over an embedded
Chroma directory (``python -c SCRUB_SCRIPT <dir>``): standard library only."""

from __future__ import annotations

__all__ = ["SCRUB_SCRIPT"]

SCRUB_SCRIPT = r"""
import os, re, shutil, sqlite3, struct, sys, time
root = sys.argv[1]
db = os.path.join(root, "chroma.sqlite3")
marker = os.path.join(root, ".nova-scrubbed")
since = os.path.getmtime(marker) - 5 if os.path.exists(marker) else 0.0


def zero(path, start):
    size = os.path.getsize(path) if os.path.isfile(path) else 0
    if start >= size or os.path.getmtime(path) < since:
        return
    with open(path, "r+b") as fh:
        fh.seek(start)
        for at in range(start, size, 1 << 20):
            fh.write(bytes(min(1 << 20, size - at)))


if os.path.isfile(db):
    uuid = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
    found = [d for d in os.listdir(root) if uuid.fullmatch(d) and os.path.isdir(os.path.join(root, d))]
    con = sqlite3.connect(db, timeout=60, isolation_level=None)
    live = {str(r[0]) for r in con.execute("SELECT id FROM segments")}  # listed after the directories
    for d in found:
        seg = os.path.join(root, d)
        if d not in live:
            shutil.rmtree(seg, ignore_errors=True)
            continue
        try:
            with open(os.path.join(seg, "header.bin"), "rb") as fh:
                head = fh.read(36)
        except OSError:
            continue
        if len(head) < 36 or struct.unpack_from("<I", head)[0] != 1:
            continue
        count, per = struct.unpack_from("<QQ", head, 20)  # cur_element_count, size_data_per_element
        zero(os.path.join(seg, "data_level0.bin"), count * per)
        zero(os.path.join(seg, "length.bin"), count * 4)
    con.execute("VACUUM")
    con.close()
    with open(marker, "wb"):
        pass
    os.utime(marker, (time.time(), time.time()))
"""
"""Run in a child process, while this process writes nothing to Chroma (``vectors._WRITES``):

- remove the segment directories no segment owns (a dropped collection's HNSW files);
- zero the unused capacity of the HNSW files (Chroma 1.5 writes a collection's index files
  with room for 100 vectors before it has persisted any, straight from uninitialised
  memory: whatever the process freed before, another user's text or vectors included);
  files not written since the last scrub are skipped;
- VACUUM ``chroma.sqlite3`` (deleted rows stay in its free pages otherwise).

A child process, because Chroma's own SQLite library has the file open in this process, and
two SQLite libraries in one process would release each other's POSIX locks; across
processes SQLite's locking holds."""
