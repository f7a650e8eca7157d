"""Candidate generation: each signal returns a ranking of ``(kind, id)`` keys with raw scores."""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from ..embeddings.base import CachedEmbedder
from ..embeddings.similarity import cosines
from ..engine.indexer import TABLES
from ..errors import StorageError
from ..memory.graph import FactGraph
from ..memory.temporal import normalize_value
from ..storage.rows import EpisodeRow
from ..storage.sqlite import SQLiteStore
from ..storage.vectors import Vector, VectorIndex, unreachable
from ..text.dates import Window
from ..text.roles import GENERIC_ROLES
from ..text.terms import terms
from ..types import Episode, Fact, MemoryKind, Rule
from .lexical import any_of, phrase, searched_words

if TYPE_CHECKING:
    from ..engine.components import Components

__all__ = [
    "GENERIC_ROLES", "PENDING_EMBED_ALL", "PENDING_EMBED_NEWEST", "Candidate", "Key", "asks", "cosines", "dated",
    "dense", "dense_now", "fill_vectors", "graph_entities", "graph_facts", "in_windows", "index_down",
    "keyword_dense", "lexical", "merge_hits", "name_words", "named_speakers", "pending_dense", "read_index",
    "stored_vectors", "without_speaker_name",
]

Key = tuple[MemoryKind, str]
_T = TypeVar("_T")
logger = logging.getLogger(__name__)
RETRY_INDEX_S = 1.0
"""While the vector index is unreachable, reads try it again at most this often (in between they
skip it at no cost)."""
_OUTAGES: weakref.WeakKeyDictionary[VectorIndex, list[float]] = weakref.WeakKeyDictionary()
"""Indexes found unreachable: ``[since, last try]`` (monotonic)."""
_OUTAGES_LOCK = threading.Lock()
_FIRST_PERSON = re.compile(r"\b(i|me|my|mine|myself|i'm|i've|i'd)\b", re.IGNORECASE)


@dataclass
class Candidate:
    """A memory item under consideration, with the raw score of each signal that found it."""

    kind: MemoryKind
    id: str
    text: str
    timestamp: datetime | None = None
    episode: Episode | None = None
    row: EpisodeRow | None = None
    """A turn found by a ranking signal: what ranking reads of its row; ``episode`` is filled
    once the turn is among those a read returns (:meth:`.pipeline.RecallPipeline.retrieve`)."""
    fact: Fact | None = None
    rule: Rule | None = None
    raw: dict[str, float] = field(default_factory=dict)
    contributions: dict[str, float] = field(default_factory=dict)
    score: float = 0.0
    rerank: float | None = None
    vector: Sequence[float] | Vector | None = None
    """Its stored vector, once a step of this recall has read it (later steps reuse it)."""
    reason: str = ""

    @property
    def key(self) -> Key:
        return (self.kind, self.id)

    @property
    def turn(self) -> Episode | EpisodeRow | None:
        """The turn's episode, or its row before that is read (both carry what ranking uses)."""
        return self.episode if self.episode is not None else self.row


def dense(
    vectors: VectorIndex, kind: MemoryKind, vector: Sequence[float], user_id: str, k: int,
    where: dict[str, Any] | None = None,
) -> list[tuple[str, float]]:
    """Nearest neighbours of the query vector among the user's items of ``kind``."""
    if k <= 0:
        return []
    return read_index(vectors, lambda: vectors.query(kind, vector, user_id=user_id, k=k, where=where), [])


def read_index(vectors: VectorIndex, read: Callable[[], _T], default: _T) -> _T:
    """``read()`` of the vector index, or ``default`` while its server is unreachable: reads
    then rest on keywords (BM25), the fact graph and facts, and the rows not yet indexed (the
    indexer keeps them queued). One warning per outage; other Chroma errors still raise.
    """
    with _OUTAGES_LOCK:
        outage = _OUTAGES.get(vectors)
        if outage is not None and time.monotonic() - outage[1] < RETRY_INDEX_S:
            return default
    try:
        out = read()
    except StorageError as exc:
        if not unreachable(exc):
            raise
        with _OUTAGES_LOCK:
            outage = _OUTAGES.get(vectors)
            if outage is not None:
                outage[1] = time.monotonic()
                return default
            _OUTAGES[vectors] = [time.monotonic()] * 2
        logger.warning("nova-memory: the vector index (Chroma, %s) is unreachable (%s): recall falls back to "
                       "keywords (BM25), the fact graph and facts; new memories stay in SQLite and are indexed "
                       "when it is back", _where(vectors), exc)
        return default
    if outage is not None:
        with _OUTAGES_LOCK:
            if _OUTAGES.pop(vectors, None) is not None:
                logger.info("nova-memory: the vector index is reachable again after %.1f s",
                            time.monotonic() - outage[0])
    return out


def _where(vectors: VectorIndex) -> str:
    try:
        settings = vectors.client.get_settings()
        host = settings.chroma_server_host
        return f"{host}:{settings.chroma_server_http_port}" if host else str(vectors.local_path() or "client")
    except Exception:
        return "client"


PENDING_EMBED_ALL = 16
"""A user's backlog of rows not yet in the vector index up to this size is embedded whole by a
read that needs it (the usual case: a few turns just added; the indexer reuses the vectors)."""
PENDING_EMBED_NEWEST = 2
"""Beyond that (an import, a burst), a read embeds only this many of the newest rows.

Reads never wait for the indexer: the embedded rows get a dense score on the spot (so the
turn just added reaches the next context), older queued rows reach the read by keywords
(SQLite FTS holds every row from the moment it is written) until the indexer catches up.
Together the two bound the extra embedding work of one read."""


def pending_dense(
    db: SQLiteStore, embedder: CachedEmbedder, kind: MemoryKind, pending: Sequence[str], vector: Sequence[float],
    user_id: str, *, session_id: str | None = None,
) -> list[tuple[str, float]]:
    """Cosine of the query to the user's not-yet-indexed rows (``pending``, oldest first): all of
    a small backlog, else the newest few (:data:`PENDING_EMBED_ALL`, :data:`PENDING_EMBED_NEWEST`)."""
    if not pending:
        return []
    newest = list(pending)[-(PENDING_EMBED_ALL if len(pending) <= PENDING_EMBED_ALL else PENDING_EMBED_NEWEST):]
    return _cosines(embedder, _texts(db, kind, user_id, newest, session_id), vector)


def _texts(db: SQLiteStore, kind: MemoryKind, user_id: str, ids: Sequence[str], session_id: str | None = None
           ) -> list[tuple[str, str]]:
    """``(id, text as the indexer embeds it)`` of the user's rows ``ids`` (episodes of
    ``session_id`` only, when given)."""
    if kind == "episode":
        return [(e.id, e.content) for e in db.get_episodes(user_id, ids)
                if session_id is None or e.session_id == session_id]
    if kind == "fact":
        return [(f.id, f.text) for f in db.select_facts(user_id, ids=ids)]
    return [(r.id, r.condition) for r in db.list_rules(user_id, ids=ids)]  # rules are embedded by condition


def _cosines(embedder: CachedEmbedder, rows: Sequence[tuple[str, str]], vector: Sequence[float]
             ) -> list[tuple[str, float]]:
    """``(id, cosine of the query to the row's text)``, best first (the texts embedded now)."""
    if not rows:
        return []
    scores = cosines(embedder.embed_cached([text for _, text in rows]), vector)
    return sorted(((i, float(s)) for (i, _), s in zip(rows, scores)), key=lambda h: h[1], reverse=True)


def index_down(vectors: VectorIndex) -> bool:
    """Whether :func:`read_index` currently treats the vector index as unreachable."""
    with _OUTAGES_LOCK:
        return vectors in _OUTAGES


def keyword_dense(
    parts: Components, kind: MemoryKind, query: str, vector: Sequence[float], user_id: str, k: int, *,
    session_id: str | None = None,
) -> list[tuple[str, float]]:
    """Dense scores without the vector index: the ``k`` best BM25 rows of ``kind`` (episodes or
    facts), scored by the cosine of their texts embedded now. What a dense search can still
    find while the index is down (:meth:`NovaStore.search` during an outage)."""
    if kind == "rule":
        return []
    ids = [i for i, _ in lexical(parts.db, kind, query, user_id, k, session_id=session_id)]
    return _cosines(parts.embedder, _texts(parts.db, kind, user_id, ids), vector) if ids else []


def dense_now(
    parts: Components, kind: MemoryKind, vector: Sequence[float], user_id: str, k: int, *,
    session_id: str | None = None,
) -> list[tuple[str, float]]:
    """Nearest neighbours that never wait for the indexer: the vector index's ``k`` best (of one
    session for episodes when ``session_id`` is given) merged with :func:`pending_dense`."""
    where = {"session_id": session_id} if session_id and kind == "episode" else None
    queued = parts.indexer.pending_ids(user_id, TABLES[kind])
    return merge_hits(dense(parts.vectors, kind, vector, user_id, k, where),
                      pending_dense(parts.db, parts.embedder, kind, queued, vector, user_id, session_id=session_id))


def merge_hits(*rankings: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """Rankings of one signal merged by score, best first (an id keeps its best score)."""
    best: dict[str, float] = {}
    for ranking in rankings:
        for i, s in ranking:
            if i not in best or s > best[i]:
                best[i] = s
    return sorted(best.items(), key=lambda h: h[1], reverse=True)


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


def lexical(
    db: SQLiteStore, kind: MemoryKind, query: str, user_id: str, k: int, session_id: str | None = None,
    *, window: int = 0, common: float = 1.0, common_min: int = 0,
) -> list[tuple[str, float]]:
    """BM25 (SQLite FTS5) over the user's episodes (the newest ``window`` of them when > 0) or
    current facts.

    For episodes, a query word found in more than ``common`` of the stored turns and in more
    than ``common_min`` of them is left out (:func:`.lexical.searched_words`; ``common`` = 1
    keeps them all): a query of nothing but such words finds nothing here.
    """
    words = terms(query)
    if not words or k <= 0:
        return []
    if kind != "episode":
        return db.fts_facts(user_id, any_of(words), k)
    most = None
    if common < 1.0:
        total, counts = db.fts_match_counts([phrase(w) for w in words])
        found = dict(zip(words, counts))
        words = searched_words(words, counts, total, share=common, at_least=common_min)
        if not words:  # no turn holds them, or every one is common
            return []
        most = sum(found[w] for w in words)
    return db.fts_episodes(user_id, any_of(words), k, session_id=session_id, window=window, most=most)


def dated(
    db: SQLiteStore, user_id: str, vector: Sequence[float], windows: Sequence[Window], k: int, pool: int,
    session_id: str | None = None,
) -> list[tuple[str, float]]:
    """The ``k`` turns closest to the query (cosine of their kept vectors) among the user's turns
    whose event time falls in one of ``windows`` (:func:`.when.named_windows`); none when the
    windows hold more than ``pool`` turns (a stretch that long singles out nothing) or no window
    is named."""
    if not windows or k <= 0:
        return []
    read = db.dated_rows_and_vectors(user_id, windows, pool, session_id=session_id)
    if read is None:
        return []
    rows, kept = read
    found = [(row.id, vec) for row in rows if (vec := kept.get(row.id)) is not None]
    if not found:
        return []
    scores = cosines([v for _, v in found], vector)
    return sorted(((i, float(s)) for (i, _), s in zip(found, scores)), key=lambda h: h[1], reverse=True)[:k]


def in_windows(moment: datetime | None, windows: Sequence[Window]) -> bool:
    """Whether ``moment`` falls in one of the half-open ``windows``."""
    return moment is not None and any(start <= moment < end for start, end in windows)


def name_words(role: str) -> list[str]:
    """The words of a speaker's name (casefolded); none for generic roles (user, assistant, ...)."""
    return [] if role.casefold() in GENERIC_ROLES else terms(role)


_TRAILING_NOTES = re.compile(r"(?:\s*\[[^\[\]]*\])+\s*$")
"""Bracketed annotations closing a turn ("... any tips? [shares a photo: a flyer]")."""


def asks(text: str) -> bool:
    """Whether a turn ends by asking: its last sentence, trailing bracketed annotations aside,
    ends with a question mark ("Got any advice on running a business?"); its reply, the next turn
    in the session, then most likely holds what was asked (``SearchConfig.reply_weight``)."""
    text = text.rstrip()
    if text.endswith("]"):  # most turns do not: no regex for them
        text = _TRAILING_NOTES.sub("", text).rstrip()
    return text.endswith("?")


def named_speakers(query: str, roles: Iterable[str]) -> set[str]:
    """The roles among ``roles`` that the query names as words ("What did Melanie paint?").

    Generic roles (user, assistant, ...) never count: only speaker names do.
    """
    words = set(terms(query, max_terms=64))
    return {role for role in roles if (parts := name_words(role)) and all(p in words for p in parts)}


def without_speaker_name(query: str, roles: Iterable[str]) -> str:
    """``query`` as the dense search embeds it: without the name of the one speaker it names.

    In a transcript every line of a speaker's starts with their name, and the others'
    lines address them by it ("Hey Tim!"), so in a query the name matches both alike and
    carries no topic; which speaker said it is weighed apart (``SignalWeights.speaker``).
    A query naming no speaker or several, or nothing but the name, is returned as it is.
    """
    named = named_speakers(query, roles)
    if len(named) != 1:
        return query
    words = name_words(next(iter(named)))
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, words)) + r")(?:['’]s)?\b", re.IGNORECASE)
    stripped = " ".join(pattern.sub(" ", query).split())
    return stripped if terms(stripped) else query


def graph_entities(graph: FactGraph, user_id: str, query: str) -> list[str]:
    """Entities of the user's fact graph named in the query (and ``user`` for "I/my")."""
    g = graph.graph(user_id)
    if g.number_of_nodes() == 0:
        return []
    q = f" {normalize_value(query)} "
    found = [n for n in g.nodes if isinstance(n, str) and len(n) >= 3 and f" {n} " in q]
    if _FIRST_PERSON.search(query) and "user" in g:
        found.append("user")
    return list(dict.fromkeys(found))


def graph_facts(
    graph: FactGraph, user_id: str, query: str, *, hops: int, k: int, as_of: datetime | None
) -> list[tuple[Fact, int]]:
    """Facts about entities named in the query and their neighbours, valid at ``as_of``."""
    if hops <= 0 or k <= 0:
        return []
    out: dict[str, tuple[Fact, int]] = {}
    for entity in graph_entities(graph, user_id, query):
        for hop, fact in graph.traverse(user_id, entity, max_hops=hops, as_of=as_of):
            if fact.id not in out or out[fact.id][1] > hop:
                out[fact.id] = (fact, hop)
    ranked = sorted(out.values(), key=lambda fh: (fh[1], -fh[0].confidence))
    return ranked[:k]
