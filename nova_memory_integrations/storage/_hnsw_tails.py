"""The unused capacity of Chroma's HNSW files zeroed right after Chroma writes it (an embedded Chroma).

Chroma writes a collection's HNSW files from memory it never initialised (see
:mod:`._chroma_scrub`) when the collection is first written, and again when a process first
touches a collection it has not persisted yet, a read included. :meth:`HnswTails.settle` runs
after every operation on a collection: one ``stat`` of its ``data_level0.bin`` when nothing
changed; when Chroma wrote the file since the last look, the bytes past its vectors are zeroed
(under the directory's write lock, so no write of this process runs meanwhile) before the
operation returns. Nothing past the header's element count is ever read back.

Which directory holds a collection's files is in ``chroma.sqlite3``'s ``segments`` table, read
once per process in a child (:func:`._chroma_scrub.run_child`); a collection created later is
the one new directory after the write that created it.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import threading
from contextlib import nullcontext
from pathlib import Path

from .._once import WarnOnce
from ._chroma_scrub import DATA_FILE, run_child, segment_dirs, zero_unused

__all__ = ["HnswTails"]

logger = logging.getLogger(__name__)

_SEGMENTS_TIMEOUT_S = 60.0
_FAILED = WarnOnce(logger, "nova-memory: could not zero the unused capacity of Chroma's HNSW files in %s "
                           "(the next erase scrubs them): %s")
_REGISTRY: dict[str, HnswTails] = {}
_REGISTRY_GUARD = threading.Lock()


class HnswTails:
    """One embedded Chroma directory's HNSW files, as this process last left them.

    Args:
        root: the Chroma directory.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._root = str(root)
        self._dirs: dict[str, str] = {}  # collection id -> segment directory
        self._seen: dict[str, tuple[int, int, int]] = {}  # segment directory -> data file when last settled
        self._known: set[str] = set()  # the segment directories listed last
        self._loaded = True  # whether every directory listed is mapped (or the segments table was read)
        self._start_over()

    @classmethod
    def of(cls, root: Path, *, opening: bool) -> HnswTails:
        """The one instance of a directory in this process (every index on it shares it).

        Args:
            root: the Chroma directory.
            opening: a client is being opened on it: what another process did to it meanwhile
                is looked at again (collections are mapped anew).
        """
        key = str(root.resolve())
        with _REGISTRY_GUARD:
            tails = _REGISTRY.get(key)
            if tails is None:
                _REGISTRY[key] = tails = cls(root)
            elif opening:
                tails._start_over()
            return tails

    def _start_over(self) -> None:
        self._dirs.clear()
        self._known = set(segment_dirs(self.root))
        self._loaded = not self._known  # an empty directory: nothing to map

    def settle(self, collection_id: str, lock: threading.Lock, *, locked: bool) -> None:
        """Zero the unused capacity of the collection's HNSW files if Chroma wrote them since the last call.

        Args:
            collection_id: the collection's id (stable across renames).
            lock: the directory's write lock; taken to zero, unless ``locked`` (the caller holds it).
        """
        try:
            segment = self._dirs.get(collection_id)
            if segment is not None and self._stat(segment) == self._seen.get(segment):
                return  # the common case: one stat, no lock
            with nullcontext() if locked else lock:
                segment = self._dirs.get(collection_id) or self._find(collection_id, created_here=locked)
                if segment is not None and self._stat(segment) != self._seen.get(segment):
                    zero_unused(self.root / segment)
                    self._seen[segment] = self._stat(segment)
        except (OSError, ValueError, subprocess.SubprocessError) as exc:  # never fails the operation it follows
            _FAILED(self.root, exc, key=str(self.root))

    def sweep(self, lock: threading.Lock) -> int:
        """Zero the unused capacity of every segment directory's HNSW files (what earlier versions
        left there); returns how many bytes were zeroed."""
        with lock:
            zeroed = 0
            for segment in segment_dirs(self.root):
                zeroed += zero_unused(self.root / segment)
                self._seen[segment] = self._stat(segment)
            return zeroed

    def _stat(self, segment: str) -> tuple[int, int, int]:
        try:
            st = os.stat(os.path.join(self._root, segment, DATA_FILE))  # str paths: ~3x faster than Path's
        except FileNotFoundError:
            return (0, 0, -1)
        return (st.st_mtime_ns, st.st_ctime_ns, st.st_size)

    def _find(self, collection_id: str, *, created_here: bool) -> str | None:
        """The segment directory of a collection this process has not mapped yet (under the lock)."""
        listed = set(segment_dirs(self.root))
        new, self._known = listed - self._known, listed
        if self._loaded and created_here and len(new) == 1:
            self._dirs[collection_id] = segment = new.pop()  # the write that created it made it
            return segment
        if not self._loaded or new:
            self._loaded = True  # a child that fails is not run again for every operation
            proc = run_child("segments", self.root, _SEGMENTS_TIMEOUT_S)
            if proc.returncode != 0:
                raise OSError((proc.stderr or "").strip().splitlines()[-1:] or proc.returncode)
            self._dirs.update(json.loads(proc.stdout))
            self._loaded = True
        return self._dirs.get(collection_id)
