"""Stage 1 of recall: every signal's candidates for one query (:func:`gather`).

Each signal returns a ranking of ``(kind, id)`` keys with raw scores: dense (the vector index,
and the rows it does not hold yet), keyword (BM25), a day or a span the query names, the fact
graph, rules. :func:`gather` runs them all for one query and hands fusion what they found.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from .._threads import Pool
from .._time import utcnow
from ..changes.states import OPEN_PREDICATE
from ..embeddings.base import CachedEmbedder
from ..embeddings.similarity import cosines
from ..engine.indexer import TABLES
from ..memory.graph import FactGraph
from ..memory.temporal import normalize_value
from ..storage.sqlite import SQLiteStore
from ..storage.vectors import VectorIndex
from ..text.dates import Window, named_windows
from ..text.roles import GENERIC_ROLES
from ..types import Fact, MemoryKind
from .candidate import Candidate, Key
from .lexical import any_of, name_words, phrase, searched_words, terms
from .point_in_time import overfetch
from .reads import read_index
from .search_config import SearchConfig, Signal

if TYPE_CHECKING:
    from ..engine.components import Components

__all__ = [
    "GENERIC_ROLES", "PENDING_EMBED_ALL", "PENDING_EMBED_NEWEST", "Candidate", "Found", "Key", "asks", "cosines",
    "dated", "dense", "dense_now", "gather", "graph_entities", "graph_facts", "in_windows", "keyword_dense",
    "lexical", "merge_hits", "name_words", "named_speakers", "pending_dense", "without_speaker_name",
]

_FIRST_PERSON = re.compile(r"\b(i|me|my|mine|myself|i'm|i've|i'd)\b", re.IGNORECASE)

_BESIDE = Pool(4, "nova-memory-recall")
"""The pool for work of one recall that runs beside its query embedding (the keyword
search), shared by every store of the process: its tasks never wait on each other, so a
full pool only queues. Its threads start on first use, and again in a forked child (whose
copy of the parent's pool has none); the interpreter's exit stops them after the stores'
workers (``_threads``)."""


def _beside() -> Pool:
    return _BESIDE


@dataclass(frozen=True)
class Found:
    """What the signals found for one query (:func:`gather`): fusion's input."""

    query_vector: list[float]
    """The dense query's vector (the query without the name of the one speaker it names)."""
    moment: datetime
    """The time the query asks about: its ``as_of``, else the time it was embedded."""
    windows: tuple[Window, ...]
    """The stretches of time the query names (:func:`.when.named_windows`)."""
    rankings: dict[Signal, list[Key]]
    """Each signal's ranking, best first."""
    raw: dict[Key, dict[Signal, float]]
    """Every item a ranking holds, with the raw score of each signal that found it."""
    graph_hits: list[tuple[Fact, int]]
    """Facts reached through the fact graph, with their hop."""
    rule_hits: list[tuple[str, float]]
    """Rules whose condition is close enough to the query (``rule_min_similarity``)."""
    timings: dict[str, float]
    """``embed_ms`` (up to the query's vector) and ``signals_ms`` (the rest)."""
    until: datetime | None = None
    """A point-in-time read's ``as_of``: the rankings may hold turns, facts and rules learnt after
    it, which fusion drops where it reads their rows (:mod:`.point_in_time`); ``None``: no filter."""


def gather(
    parts: Components, query: str, user_id: str, *, config: SearchConfig, kinds: Sequence[MemoryKind],
    session_id: str | None, as_of: datetime | None,
) -> Found:
    """Every signal's candidates for ``query``: dense, keyword (BM25) and named-date turns,
    dense, keyword and graph facts, dense rules (each for the ``kinds`` asked)."""
    clock = time.perf_counter()
    # the dense query leaves out the name of the speaker it names (read before the keyword
    # search starts: that holds the connection while it runs)
    dense_query = (without_speaker_name(query, parts.db.speakers(user_id)) if config.dense_without_speaker
                   else query)
    # a point-in-time read asks for as many more turns as came after as_of: fusion drops those
    more = overfetch(parts.db, user_id, as_of) if "episode" in kinds else 0
    # the keyword search runs beside the query embedding: SQLite and the model both
    # release the GIL, so on two cores BM25 costs (almost) nothing on top of the floor
    # (inline when this thread is inside a transaction: a hook may recall there, and the
    # other thread would wait for the connection this one holds)
    keyword_search = partial(lexical, parts.db, "episode", query, user_id, config.lexical_k + more, session_id,
                             window=0 if as_of is not None else config.lexical_window, common=config.lexical_common,
                             common_min=config.lexical_common_min)
    keywords = (_beside().submit(keyword_search)
                if "episode" in kinds and not parts.db.in_transaction_here() else None)
    try:
        qvec = parts.embedder.embed_query(dense_query)
    except BaseException:
        if keywords is not None:
            keywords.cancel()
        raise
    timings = {"embed_ms": _ms(clock)}
    clock = time.perf_counter()
    moment = as_of or utcnow()
    rankings: dict[Signal, list[Key]] = {}
    raw: dict[Key, dict[Signal, float]] = {}

    def add(signal: Signal, kind: MemoryKind, hits: Sequence[tuple[str, float]]) -> None:
        rankings[signal] = [(kind, i) for i, _ in hits]
        for i, s in hits:
            raw.setdefault((kind, i), {})[signal] = s

    windows = named_windows(query, moment) if config.date_k or config.weights.date else ()
    if "episode" in kinds:
        add(Signal.DENSE, "episode", dense_now(parts, "episode", qvec, user_id, config.dense_k + more,
                                               session_id=session_id))
        add(Signal.LEXICAL, "episode", keywords.result() if keywords is not None else keyword_search())
        if windows and config.date_k:
            add(Signal.DATE, "episode", dated(parts.db, user_id, qvec, windows, config.date_k, config.date_pool,
                                              session_id))
    graph_hits: list[tuple[Fact, int]] = []
    if "fact" in kinds and parts.db.has_rows("facts", user_id):  # no facts: skip every fact lookup
        add(Signal.FACT_DENSE, "fact", dense_now(parts, "fact", qvec, user_id, config.fact_k))
        add(Signal.FACT_LEXICAL, "fact", lexical(parts.db, "fact", query, user_id, config.fact_k))
        graph_hits = graph_facts(parts.graph, user_id, query, hops=config.graph_hops, k=config.graph_k,
                                 as_of=moment)
        add(Signal.GRAPH, "fact", [(f.id, 1.0 / (1 + hop)) for f, hop in graph_hits])
    rule_hits: list[tuple[str, float]] = []
    if "rule" in kinds and config.rule_k > 0 and parts.db.has_rows("rules", user_id):
        rule_hits = [h for h in dense_now(parts, "rule", qvec, user_id, config.rule_k)
                     if h[1] >= config.rule_min_similarity]
    timings["signals_ms"] = _ms(clock)
    return Found(qvec, moment, windows, rankings, raw, graph_hits, rule_hits, timings, as_of)


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)


def dense(
    vectors: VectorIndex, kind: MemoryKind, vector: Sequence[float], user_id: str, k: int,
    where: dict[str, Any] | None = None,
) -> list[tuple[str, float]]:
    """Nearest neighbours of the query vector among the user's items of ``kind``."""
    if k <= 0:
        return []
    return read_index(vectors, lambda: vectors.query(kind, vector, user_id=user_id, k=k, where=where), [])


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
    """Facts about entities named in the query and their neighbours, valid at ``as_of``.

    Open-predicate facts (``states``, read by shape from any clause) are left out: every one of the
    user's hangs off ``user``, so through the graph they would crowd the facts section for any "I/my"
    query; they reach the context by their own relevance (dense and lexical signals) only.
    """
    if hops <= 0 or k <= 0:
        return []
    out: dict[str, tuple[Fact, int]] = {}
    for entity in graph_entities(graph, user_id, query):
        for hop, fact in graph.traverse(user_id, entity, max_hops=hops, as_of=as_of):
            if fact.predicate == OPEN_PREDICATE:
                continue
            if fact.id not in out or out[fact.id][1] > hop:
                out[fact.id] = (fact, hop)
    ranked = sorted(out.values(), key=lambda fh: (fh[1], -fh[0].confidence))
    return ranked[:k]
