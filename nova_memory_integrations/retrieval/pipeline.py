"""Stages 1-3 of recall, one call each: signals -> fusion -> rerank, for one query.

``RecallPipeline.retrieve`` runs them (:func:`.signals.gather`, :func:`.fusion.fuse`,
:func:`.rerank.rerank`) with the hooks between them and returns one :class:`Retrieved` record:
the best candidates, the dense query's vector and the stages' times, and for ``context()`` the
vectors compression compares (read here, once). :func:`.context.build_context` hands that record
to :mod:`.compress` and :mod:`.assemble`. The pipeline reads through the engine's storage
objects and never writes, except access counts of what it returns.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from .._tracing import span
from ..engine.hooks import Veto
from ..storage.vectors import Vector
from ..types import MemoryKind
from .candidate import Candidate
from .fusion import fuse
from .reads import fill_vectors
from .rerank import rerank as rerank_head
from .search_config import SearchConfig
from .signals import gather

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ..engine.components import Components
    from ..rerank.base import Reranker

__all__ = ["RecallPipeline", "Retrieved"]


@dataclass(frozen=True)
class Retrieved:
    """What :meth:`RecallPipeline.retrieve` found for one query."""

    hits: list[Candidate]
    """The best candidates, best first, each with its episode, fact or rule, the raw score of
    every signal that found it, the parts of its fused score and that score."""
    query_vector: list[float] | None
    """The dense query's vector (``None`` when a hook vetoed the lookup)."""
    timings: dict[str, float]
    """Milliseconds per stage: ``embed_ms``, ``signals_ms``, ``fuse_ms``, ``rerank_ms``."""
    sentence_vectors: dict[str, Vector] = field(default_factory=dict)
    """With ``with_vectors``: the kept sentence vectors of the hits' turns (turn id -> its
    sentences' vectors one after the other; turns kept without any are absent)."""


class RecallPipeline:
    """Hybrid retrieval over one store: dense + BM25 + graph + rules, fused and reranked."""

    def __init__(self, components: Components) -> None:
        self.components = components
        self._reranker: Reranker | None = None
        self._lock = threading.Lock()

    # -- reranker -----------------------------------------------------------------------
    @property
    def reranker(self) -> Reranker:
        """The configured reranker (built on first use; falls back with one warning)."""
        if self._reranker is None:
            with self._lock:
                if self._reranker is None:
                    from ..rerank import make_reranker_from_config

                    self._reranker = make_reranker_from_config(self.components.config, embed=self._embed)
        return self._reranker

    @reranker.setter
    def reranker(self, value: Reranker) -> None:
        self._reranker = value

    def _embed(self, texts: list[str]) -> list[Sequence[float] | Vector]:
        """Embeddings for the fallback reranker of the texts it is not handed vectors of."""
        return list(self.components.embedder.embed_documents(texts))

    def _should_rerank(self, wanted: bool | None) -> bool:
        if wanted is not None:
            return wanted
        from ..rerank import LexicalSemanticReranker

        return not isinstance(self.reranker, LexicalSemanticReranker)

    # -- stages 1-3 -----------------------------------------------------------------------
    def retrieve(
        self,
        query: str,
        user_id: str,
        *,
        k: int,
        config: SearchConfig,
        kinds: Sequence[MemoryKind] = ("episode", "fact", "rule"),
        as_of: datetime | None = None,
        session_id: str | None = None,
        rerank: bool | None = None,
        with_vectors: bool = False,
    ) -> Retrieved:
        """The ``k`` best candidates for ``query``, best first, with per-signal scores.

        With ``with_vectors`` (what compression compares, read once here): every hit's vector
        (``Candidate.vector``: the stored one, or for a row not indexed yet the one a read
        embedded; ``None`` when there is neither) and the kept sentence vectors of the hits'
        turns (:attr:`Retrieved.sentence_vectors`).
        """
        parts = self.components
        hooks = parts.hooks
        try:  # a hook may rewrite the query or veto the lookup
            query = hooks.run("before_retrieve", user_id, query)
        except Veto:
            return Retrieved([], None, {})
        with span("nova_memory.recall.signals") as traced:
            found = gather(parts, query, user_id, config=config, kinds=kinds, session_id=session_id, as_of=as_of)
            _count(traced, len(found.raw))
        timings = dict(found.timings)

        clock = time.perf_counter()
        with span("nova_memory.recall.fusion") as traced:
            ranked = fuse(parts, user_id, query, found, config)
            _count(traced, len(ranked))
        if any(hooks.active(stage) for stage in ("after_retrieve", "before_rerank", "after_rerank")):
            ranked = self._read_turns(ranked, len(ranked))  # hooks see every turn's episode
        ranked = hooks.run_list("after_retrieve", user_id, ranked)
        timings["fuse_ms"] = _ms(clock)

        clock = time.perf_counter()
        if self._should_rerank(config.rerank if rerank is None else rerank) and ranked:
            with span("nova_memory.recall.rerank") as traced:
                _count(traced, min(len(ranked), config.rerank_top_n))
                ranked = hooks.run_list("before_rerank", user_id, ranked)
                head = ranked[: config.rerank_top_n]
                fill_vectors(parts.db, parts.vectors, user_id, head)  # fusion read most already
                known: dict[str, Sequence[float] | Vector] = {c.text: c.vector for c in head if c.vector is not None}
                known[query] = found.query_vector
                ranked = hooks.run_list("after_rerank", user_id, rerank_head(
                    self.reranker, query, ranked, known, top_n=config.rerank_top_n, weight=config.rerank_weight))
        timings["rerank_ms"] = _ms(clock)
        hits = self._read_turns(ranked, k)
        if not with_vectors:
            return Retrieved(hits, found.query_vector, timings)
        return Retrieved(hits, found.query_vector, timings, self._vectors(user_id, hits))

    def _read_turns(self, ranked: list[Candidate], k: int) -> list[Candidate]:
        """The first ``k`` of ``ranked`` whose turns read as episodes (a row damaged in a column
        ranking does not read is skipped here, with one warning, and the next one moves up)."""
        out: list[Candidate] = []
        pos = 0
        while len(out) < k and pos < len(ranked):
            batch = ranked[pos : pos + k - len(out)]
            pos += len(batch)
            rows = [c.row for c in batch if c.episode is None and c.row is not None]
            episodes = {e.id: e for e in self.components.db.episodes_of(rows)} if rows else {}
            for c in batch:
                if c.episode is None and c.row is not None:
                    c.episode = episodes.get(c.id)
                    if c.episode is None:
                        continue
                out.append(c)
        return out

    def _vectors(self, user_id: str, hits: Sequence[Candidate]) -> dict[str, Vector]:
        """Give every hit its vector (stored ones read once: most came with their rows; for rows
        the indexer has not reached yet, those the read embedded, cached) and read the kept
        sentence vectors of the hits' turns (one read)."""
        parts = self.components
        fill_vectors(parts.db, parts.vectors, user_id, hits)
        missing = [c for c in hits if c.vector is None]
        cached = parts.embedder.cached(c.text for c in missing) if missing else {}
        for c in missing:
            c.vector = cached.get(c.text)
        turns = [c.id for c in hits if c.episode is not None]
        return parts.db.sentence_vectors(user_id, turns) if turns else {}


def _count(traced: Span, n: int) -> None:
    """How many candidates a stage handed on (only on a recording span)."""
    if traced.is_recording():
        traced.set_attribute("nova_memory.candidates", n)


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
