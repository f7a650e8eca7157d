"""What recall reads beside its signals: the vector index through its outage state, the system
of record through its own (recall fails open on both), and the stored vectors of candidates
(SQLite's copies first, then the index)."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..errors import DatabaseUnavailableError, StorageError
from ..storage.sqlite import SQLiteStore
from ..storage.vectors import Vector, VectorIndex, unreachable
from ..types import MemoryKind
from .candidate import Candidate, Key

__all__ = ["fill_vectors", "read_database", "read_index", "stored_vectors"]

_T = TypeVar("_T")
logger = logging.getLogger(__name__)


def read_index(vectors: VectorIndex, read: Callable[[], _T], default: _T) -> _T:
    """``read()`` of the vector index, or ``default`` while its server is unreachable: reads
    then rest on keywords (BM25), the fact graph and facts, and the rows not yet indexed (the
    indexer keeps them queued). The index's
    :class:`~nova_memory_integrations.storage.outage.Outage` (``vectors.outage``) holds whether
    it is down: while it is, reads skip it but for one try a
    :data:`~nova_memory_integrations.storage.outage.RETRY_S`. One warning per outage; other
    Chroma errors still raise.
    """
    outage = vectors.outage
    was_down = outage.down
    if was_down and outage.resting():
        return default
    try:
        out = read()
    except StorageError as exc:
        if not unreachable(exc):
            raise
        if outage.failed():
            db = getattr(vectors, "db", None)  # pgvector: the index is the database's, and so is its outage
            if db is not None and outage is db.outage:
                _database_down(db, exc)
            else:
                logger.warning("nova-memory: the vector index (Chroma, %s) is unreachable (%s): recall falls back "
                               "to keywords (BM25), the fact graph and facts; new memories stay in SQLite and are "
                               "indexed when it is back", _where(vectors), exc)
        return default
    if was_down and (lasted := outage.recovered()) is not None:
        logger.info("nova-memory: the vector index is reachable again after %.1f s", lasted)
    return out


def read_database(db: SQLiteStore, read: Callable[[], _T], default: Callable[[], _T]) -> _T:
    """``read()`` (one whole recall: ``context()``, ``retrieve()``, ``search()``), or ``default()``
    (an empty result) while the system of record is unavailable (Postgres down or restarting:
    :class:`~nova_memory_integrations.errors.DatabaseUnavailableError`). Recall fails open, as
    it does without the vector index: an agent's chain goes on without memories instead of
    failing, and a read within
    :data:`~nova_memory_integrations.storage.outage.RETRY_S` of a failed one does not wait out
    the connect timeout again. Writes keep failing closed (``add_turn`` raises: nothing is
    acknowledged that is not stored), and any statement that succeeds ends the outage. One
    warning per outage (``db.outage``, which a pgvector index shares); other errors still raise.
    """
    outage = db.outage
    if outage.resting():
        return default()
    try:
        return read()
    except DatabaseUnavailableError as exc:
        if outage.failed():
            _database_down(db, exc)
        return default()


def _database_down(db: SQLiteStore, exc: BaseException) -> None:
    logger.warning("nova-memory: the database (%s) is unavailable (%s): recall returns no memories until it is "
                   "back; add_turn raises DatabaseUnavailableError meanwhile (nothing unstored is acknowledged)",
                   db.path, exc)


def _where(vectors: VectorIndex) -> str:
    try:
        settings = vectors.client.get_settings()
        host = settings.chroma_server_host
        return f"{host}:{settings.chroma_server_http_port}" if host else str(vectors.local_path() or "client")
    except Exception:
        return "client"


def stored_vectors(
    db: SQLiteStore, vectors: VectorIndex, user_id: str, cands: Sequence[Candidate],
) -> dict[Key, Vector]:
    """The indexed vectors of one user's candidates (unindexed ones are absent): episodes' from
    the copies SQLite keeps beside their rows, the rest with one index lookup per kind.

    An episode indexed before copies were kept is read from the index, and its copy kept then
    (that write fails open: the read has its vectors either way).
    """
    by_kind: dict[MemoryKind, list[str]] = {}
    for c in cands:
        by_kind.setdefault(c.kind, []).append(c.id)
    out: dict[Key, Vector] = {}
    for kind, ids in by_kind.items():
        kept = db.episode_vectors(user_id, ids) if kind == "episode" else {}
        out.update({(kind, i): v for i, v in kept.items()})
        rest = [i for i in ids if i not in kept]
        if not rest:
            continue
        none: dict[str, Vector] = {}
        found = read_index(vectors, lambda: vectors.get_embeddings(kind, rest, user_id=user_id), none)  # noqa: B023
        out.update({(kind, i): v for i, v in found.items()})
        if kind == "episode" and found:
            try:
                db.keep_episode_vectors(user_id, found)
            except (StorageError, sqlite3.Error) as exc:
                logger.debug("nova-memory: vectors read from the index not kept in SQLite (%s)", exc)
    return out


def fill_vectors(db: SQLiteStore, vectors: VectorIndex, user_id: str, cands: Sequence[Candidate]) -> None:
    """Give each candidate its stored vector (:func:`stored_vectors`) unless a step of this recall
    has read it already; unindexed ones keep ``None``."""
    found = stored_vectors(db, vectors, user_id, [c for c in cands if c.vector is None])
    for c in cands:
        if c.vector is None and c.key in found:
            c.vector = found[c.key]
