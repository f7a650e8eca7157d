"""Whether a vector index or a database is reachable, as recall's reads find it (one
:class:`Outage` per index, and one per system of record).

:class:`~.vectors.VectorIndex` holds one as ``outage``; the reads that can do without the
index (recall's, :func:`~nova_memory_integrations.retrieval.reads.read_index`) report to it
and ask it whether to try the index at all, so the state of an outage lives with the index
it is about and ends with it. The store's database holds one too (``db.outage``, reported to by
:func:`~nova_memory_integrations.retrieval.reads.read_database`): on Postgres, recall returns
nothing while the server is down instead of raising, and the pgvector index shares the
database's (one server, one outage, one warning).
"""

from __future__ import annotations

import threading
import time

__all__ = ["RETRY_S", "Outage"]

RETRY_S = 1.0
"""While the index is unreachable, reads try it again at most this often (in between they
skip it at no cost)."""


class Outage:
    """The reachability of one vector index: since when reads found it unreachable, and when
    one last tried it (monotonic clock). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._since: float | None = None
        self._tried = 0.0

    @property
    def down(self) -> bool:
        """Whether the last read found the index unreachable (and none has reached it since)."""
        with self._lock:
            return self._since is not None

    def resting(self) -> bool:
        """Whether a read should skip the index now: it is down and was tried less than
        :data:`RETRY_S` ago."""
        with self._lock:
            return self._since is not None and time.monotonic() - self._tried < RETRY_S

    def failed(self) -> bool:
        """Record a read that found the index unreachable; whether it starts an outage (the
        first such read since the index was last reached)."""
        now = time.monotonic()
        with self._lock:
            first = self._since is None
            if first:
                self._since = now
            self._tried = now
            return first

    def recovered(self) -> float | None:
        """Record a read that reached the index; the seconds the outage it ends lasted (``None``:
        there was none, or another read ended it first)."""
        with self._lock:
            since, self._since = self._since, None
        return None if since is None else time.monotonic() - since
