"""Stages 1-2 of recall: gather candidates from every signal, fuse, rerank.

``RecallPipeline.retrieve`` returns scored candidates; :mod:`.assemble` packs them into a
budgeted context. The pipeline reads through the engine's storage objects and never
writes, except access counts of what it returns.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from .._threads import Pool
from .._time import utcnow
from ..engine.hooks import Veto
from ..storage.vectors import Vector
from ..types import MemoryKind
from .config import SearchConfig
from .fusion import min_max, recency, rrf, saturating, weight_at, weight_reference
from .signals import (
    Candidate,
    Key,
    asks,
    cosines,
    dated,
    dense_now,
    fill_vectors,
    graph_facts,
    in_windows,
    lexical,
    named_speakers,
    without_speaker_name,
)
from .when import Window, named_windows

if TYPE_CHECKING:
    from ..engine.components import Components
    from ..rerank.base import Reranker

__all__ = ["RecallPipeline"]

_BESIDE = Pool(4, "nova-memory-recall")
"""The pool for work of one recall that runs beside its query embedding (the keyword
search), shared by every store of the process: its tasks never wait on each other, so a
full pool only queues. Its threads start on first use, and again in a forked child (whose
copy of the parent's pool has none); the interpreter's exit stops them after the stores'
workers (``_threads``)."""


def _beside() -> Pool:
    return _BESIDE


class RecallPipeline:
    """Hybrid retrieval over one store: dense + BM25 + graph + rules, fused and reranked."""

    def __init__(self, components: Components) -> None:
        self.components = components
        self._reranker: Reranker | None = None
        self._lock = threading.Lock()
        self._local = threading.local()

    # -- reranker -----------------------------------------------------------------------
    @property
    def reranker(self) -> Reranker:
        """The configured reranker (built on first use; falls back with one warning)."""
        if self._reranker is None:
            with self._lock:
                if self._reranker is None:
                    from ..rerank import make_reranker_from_config

                    self._reranker = make_reranker_from_config(self.components.config, embed=self._embed_for_rerank)
        return self._reranker

    @reranker.setter
    def reranker(self, value: Reranker) -> None:
        self._reranker = value

    def _should_rerank(self, wanted: bool | None) -> bool:
        if wanted is not None:
            return wanted
        from ..rerank import LexicalSemanticReranker

        return not isinstance(self.reranker, LexicalSemanticReranker)

    @contextmanager
    def known_vectors(self, vectors: Mapping[str, Sequence[float] | Vector]) -> Iterator[None]:
        """Let the fallback reranker reuse these text vectors (this thread, inside the block)."""
        self._local.vectors = dict(vectors)
        try:
            yield
        finally:
            self._local.vectors = {}

    def _embed_for_rerank(self, texts: list[str]) -> list[Sequence[float] | Vector]:
        """Embeddings for the fallback reranker, reusing vectors already fetched this call."""
        known: dict[str, Sequence[float] | Vector] = getattr(self._local, "vectors", {})
        missing = [t for t in dict.fromkeys(texts) if t not in known]
        if missing:
            known = {**known, **dict(zip(missing, self.components.embedder.embed_documents(missing)))}
        return [known[t] for t in texts]

    # -- stage 1 + 2 ----------------------------------------------------------------------
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
        timings: dict[str, float] | None = None,
        rerank: bool | None = None,
        query_vectors: list[list[float]] | None = None,
    ) -> list[Candidate]:
        """The ``k`` best candidates for ``query``, best first, with per-signal scores (the dense
        query's vector is appended to ``query_vectors`` when that is given, as ``timings`` gets
        the stages' times)."""
        timings = timings if timings is not None else {}
        clock = time.perf_counter()
        parts = self.components
        hooks = parts.hooks
        try:  # a hook may rewrite the query or veto the lookup
            query = hooks.run("before_retrieve", user_id, query)
        except Veto:
            return []
        # the dense query leaves out the name of the speaker it names (read before the keyword
        # search starts: that holds the connection while it runs)
        dense_query = (without_speaker_name(query, parts.db.speakers(user_id)) if config.dense_without_speaker
                       else query)
        # the keyword search runs beside the query embedding: SQLite and the model both
        # release the GIL, so on two cores BM25 costs (almost) nothing on top of the floor
        # (inline when this thread is inside a transaction: a hook may recall there, and the
        # other thread would wait for the connection this one holds)
        keyword_search = partial(lexical, parts.db, "episode", query, user_id, config.lexical_k, session_id,
                                 window=config.lexical_window, common=config.lexical_common,
                                 common_min=config.lexical_common_min)
        keywords = (_beside().submit(keyword_search)
                    if "episode" in kinds and not parts.db.in_transaction_here() else None)
        try:
            qvec = parts.embedder.embed_query(dense_query)
        except BaseException:
            if keywords is not None:
                keywords.cancel()
            raise
        if query_vectors is not None:
            query_vectors.append(qvec)
        timings["embed_ms"] = _ms(clock)
        clock = time.perf_counter()
        moment = as_of or utcnow()
        rankings: dict[str, list[Key]] = {}
        raw: dict[Key, dict[str, float]] = {}

        def add(signal: str, kind: MemoryKind, hits: Sequence[tuple[str, float]]) -> None:
            rankings[signal] = [(kind, i) for i, _ in hits]
            for i, s in hits:
                raw.setdefault((kind, i), {})[signal] = s

        windows = named_windows(query, moment) if config.date_k or config.weights.date else ()
        if "episode" in kinds:
            add("dense", "episode", dense_now(parts, "episode", qvec, user_id, config.dense_k, session_id=session_id))
            add("lexical", "episode", keywords.result() if keywords is not None else keyword_search())
            if windows and config.date_k:
                add("date", "episode", dated(parts.db, user_id, qvec, windows, config.date_k, config.date_pool,
                                             session_id))
        graph_hits: list[Any] = []
        if "fact" in kinds and parts.db.has_rows("facts", user_id):  # no facts: skip every fact lookup
            add("fact_dense", "fact", dense_now(parts, "fact", qvec, user_id, config.fact_k))
            add("fact_lexical", "fact", lexical(parts.db, "fact", query, user_id, config.fact_k))
            graph_hits = graph_facts(parts.graph, user_id, query, hops=config.graph_hops, k=config.graph_k,
                                     as_of=moment)
            add("graph", "fact", [(f.id, 1.0 / (1 + hop)) for f, hop in graph_hits])
        rule_hits: list[tuple[str, float]] = []
        if "rule" in kinds and config.rule_k > 0 and parts.db.has_rows("rules", user_id):
            rule_hits = [h for h in dense_now(parts, "rule", qvec, user_id, config.rule_k)
                         if h[1] >= config.rule_min_similarity]
        timings["signals_ms"] = _ms(clock)

        clock = time.perf_counter()
        cands = self._materialize(user_id, raw, rule_hits, moment)
        if config.fusion == "rrf":
            self._fuse_rrf(cands, rankings, config)
        else:
            self._fuse_weighted(user_id, query, cands, qvec, graph_hits, config, windows)
        unit = 1.0 if config.fusion == "weighted" else 1.0 / (config.rrf_k + 1)
        confidence = self.components.facts.effective_confidences(
            user_id, [c.fact for c in cands.values() if c.fact is not None], now=moment)
        reference = self._weight_reference(user_id, moment) if config.weights.effective_weight else None
        for cand in cands.values():
            self._priors(cand, moment, config, unit, confidence, reference)
            cand.score = sum(cand.contributions.values())
        ranked = sorted(cands.values(), key=lambda c: c.score, reverse=True)
        if any(hooks.active(stage) for stage in ("after_retrieve", "before_rerank", "after_rerank")):
            ranked = self._read_turns(ranked, len(ranked))  # hooks see every turn's episode
        ranked = hooks.run_list("after_retrieve", user_id, ranked)
        timings["fuse_ms"] = _ms(clock)

        clock = time.perf_counter()
        if self._should_rerank(config.rerank if rerank is None else rerank) and ranked:
            ranked = hooks.run_list("before_rerank", user_id, ranked)
            ranked = hooks.run_list("after_rerank", user_id, self._rerank(user_id, query, qvec, ranked, config))
        timings["rerank_ms"] = _ms(clock)
        return self._read_turns(ranked, k)

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

    def _fuse_rrf(self, cands: dict[Key, Candidate], rankings: dict[str, list[Key]], config: SearchConfig) -> None:
        fused = rrf({s: [key for key in r if key in cands] for s, r in rankings.items()},
                    config.weights.model_dump(), config.rrf_k)
        unit = 1.0 / (config.rrf_k + 1)
        for key, cand in cands.items():
            cand.contributions = dict(fused.get(key, {}))
            if cand.kind == "rule":
                cand.contributions["rule"] = unit * cand.raw.get("rule", 0.0)

    def _fuse_weighted(
        self, user_id: str, query: str, cands: dict[Key, Candidate], qvec: list[float], graph_hits: list[Any],
        config: SearchConfig, windows: Sequence[Window],
    ) -> None:
        """Weighted score: cosine and max-normalised BM25 per kind, then conversation structure.

        A turn passes ``neighbour_weight`` of its score to the turns just before and after
        it in its session (answers live next to their questions; a neighbour from beyond the
        dense and keyword lists also gets its own cosine), a turn that asks passes
        ``reply_weight`` more to the turn after it (the reply), and every turn gets
        ``session_weight`` times the mean of its session's best three scores. Then the
        boosts, each a share of that score: ``weights.speaker`` for a turn of a speaker the
        query names, ``weights.date`` for a turn in a stretch of time it names (``windows``).
        """
        w = config.weights
        self._fill_cosine(user_id, cands, qvec)
        for kind, sig_d, sig_l, wd, wl in (("episode", "dense", "lexical", w.dense, w.lexical),
                                            ("fact", "fact_dense", "fact_lexical", w.fact_dense, w.fact_lexical)):
            group = [c for c in cands.values() if c.kind == kind]
            top_lex = max((c.raw.get(sig_l, 0.0) for c in group), default=0.0) or 1.0
            for c in group:
                c.contributions = {sig_d: wd * c.raw.get("cosine", 0.0), sig_l: wl * c.raw.get(sig_l, 0.0) / top_lex}
        for fact, hop in graph_hits:
            cand = cands.get(("fact", fact.id))
            if cand is not None:
                cand.contributions["graph"] = w.graph / (1 + hop)
        for cand in cands.values():
            if cand.kind == "rule":
                cand.contributions = {"rule": cand.raw.get("rule", 0.0)}
        self._conversation_structure(user_id, cands, config, qvec)
        turns = [(c, turn) for c in cands.values() if (turn := c.turn) is not None]
        named = named_speakers(query, {turn.role for _, turn in turns}) if w.speaker else set()
        if not named and not (w.date and windows):
            return  # no boost applies: no turn's score is summed for one
        for c, turn in turns:
            base = sum(c.contributions.values())
            if turn.role in named:
                c.contributions["speaker"] = w.speaker * base
            if w.date and in_windows(turn.timestamp, windows):
                c.contributions["date"] = w.date * base

    def _fill_cosine(self, user_id: str, cands: dict[Key, Candidate], qvec: list[float]) -> None:
        """Cosine to the query for every candidate (fetching vectors BM25-only hits lack)."""
        for kind, sig in (("episode", "dense"), ("fact", "fact_dense")):
            group = [c for c in cands.values() if c.kind == kind]
            for c in group:
                if sig in c.raw:
                    c.raw["cosine"] = c.raw[sig]
            missing = [c for c in group if sig not in c.raw]
            if not missing:
                continue
            # most came with their rows; compression's dedupe compares them next, not read again
            fill_vectors(self.components.db, self.components.vectors, user_id, missing)
            found = [(c, c.vector) for c in missing if c.vector is not None]
            if found:  # one matrix product for the lot
                for (c, _), cos in zip(found, cosines([v for _, v in found], qvec)):
                    c.raw["cosine"] = float(cos)

    def _conversation_structure(
        self, user_id: str, cands: dict[Key, Candidate], config: SearchConfig, qvec: list[float]
    ) -> None:
        base = {c.id: sum(c.contributions.values()) for c in cands.values() if c.kind == "episode"}
        turns = sorted((c for c in cands.values() if c.kind == "episode"), key=lambda c: base[c.id], reverse=True)
        if (config.neighbour_weight > 0 or config.reply_weight > 0) and config.neighbour_pool > 0 and turns:
            pool = turns[: config.neighbour_pool]
            links = self.components.db.nearby(user_id, [c.id for c in pool], config.neighbour_reach)
            passed: dict[str, float] = {}
            for c in pool:
                reply = config.reply_weight * base[c.id] if config.reply_weight and asks(c.text) else 0.0
                for n, offset in links.get(c.id, ()):
                    passed[n] = passed.get(n, 0.0) + config.neighbour_weight * base[c.id] / abs(offset)
                    if offset == 1 and reply:
                        passed[n] += reply
            new_ids = [i for i in passed if ("episode", i) not in cands]
            added: dict[Key, Candidate] = {}
            rows, kept = self.components.db.episode_rows_and_vectors(user_id, new_ids)
            for row in rows:
                cands[("episode", row.id)] = added[("episode", row.id)] = Candidate(
                    "episode", row.id, row.content, row.timestamp, row=row, raw={"neighbour": passed[row.id]},
                    vector=kept.get(row.id))
                base[row.id] = 0.0
            # a neighbour from beyond the dense and keyword lists still has its own similarity to
            # the query: without it, it ranked on what its neighbour passed it alone
            self._fill_cosine(user_id, added, qvec)
            for c in added.values():
                c.contributions["dense"] = config.weights.dense * c.raw.get("cosine", 0.0)
            for i, value in passed.items():
                cand = cands.get(("episode", i))
                if cand is not None:
                    cand.contributions["neighbour"] = value
        if config.session_weight > 0:
            by_session: dict[str, list[float]] = {}
            for c in cands.values():
                if c.kind == "episode" and (turn := c.turn) is not None and turn.session_id:
                    by_session.setdefault(turn.session_id, []).append(base.get(c.id, 0.0))
            boost = {s: sum(sorted(v)[-3:]) / 3 for s, v in by_session.items()}
            for c in cands.values():
                if c.kind == "episode" and (turn := c.turn) is not None and turn.session_id in boost:
                    c.contributions["session"] = config.session_weight * boost[turn.session_id]

    def _materialize(
        self, user_id: str, raw: dict[Key, dict[str, float]], rule_hits: list[tuple[str, float]], moment: datetime
    ) -> dict[Key, Candidate]:
        db = self.components.db
        out: dict[Key, Candidate] = {}
        ep_ids = [i for kind, i in raw if kind == "episode"]
        rows, kept = db.episode_rows_and_vectors(user_id, ep_ids)  # fusion and compression compare the vectors
        for row in rows:
            out[("episode", row.id)] = Candidate("episode", row.id, row.content, row.timestamp, row=row,
                                                 raw=raw[("episode", row.id)], vector=kept.get(row.id))
        fact_ids = [i for kind, i in raw if kind == "fact"]
        for fact in db.select_facts(user_id, ids=fact_ids):
            if fact.is_valid_at(moment):
                out[("fact", fact.id)] = Candidate("fact", fact.id, fact.text, fact.valid_from, fact=fact,
                                                   raw=raw[("fact", fact.id)])
        rule_scores = dict(rule_hits)
        for rule in db.list_rules(user_id, ids=list(rule_scores)):
            out[("rule", rule.id)] = Candidate("rule", rule.id, f"When {rule.condition}: {rule.action}",
                                               rule.created_at, rule=rule, raw={"rule": rule_scores[rule.id]})
        return out

    def _weight_reference(self, user_id: str, moment: datetime) -> datetime:
        """:func:`.fusion.weight_reference` of the user's latest turn (one indexed read per query)."""
        latest = self.components.db.list_episodes(user_id, limit=1, newest_first=True)
        return weight_reference(moment, latest[0].timestamp if latest else None)

    def _priors(
        self, cand: Candidate, now: datetime, config: SearchConfig, unit: float, confidence: dict[str, float],
        reference: datetime | None = None,
    ) -> None:
        w = config.weights
        c = cand.contributions
        if w.recency:
            c["recency"] = w.recency * unit * recency(cand.timestamp, now, config.recency_half_life_days)
        if (turn := cand.turn) is not None:
            c["importance"] = w.importance * unit * turn.importance
            c["access"] = w.access * unit * saturating(turn.access_count)
            if w.effective_weight and reference is not None:  # access counts came with the batched row read
                life = self.components.config.lifecycle
                c["weight"] = w.effective_weight * unit * weight_at(
                    turn.importance, turn.access_count, turn.timestamp, reference,
                    access_mult=life.access_mult, decay_rate=life.decay_rate)
        if cand.fact is not None:
            c["confidence"] = w.confidence * unit * confidence[cand.fact.id]

    def _rerank(
        self, user_id: str, query: str, qvec: list[float], ranked: list[Candidate], config: SearchConfig
    ) -> list[Candidate]:
        head, tail = ranked[: config.rerank_top_n], ranked[config.rerank_top_n :]
        self._local.vectors = self._vectors_for(user_id, head)
        self._local.vectors[query] = qvec
        try:
            scores = self.reranker.score(query, [c.text for c in head])
        finally:
            self._local.vectors = {}
        fused = min_max([c.score for c in head])
        w = config.rerank_weight
        for cand, f, r in zip(head, fused, scores):
            cand.rerank = float(r)
            cand.contributions["rerank"] = r
            cand.score = (1 - w) * f + w * float(r) if math.isfinite(r) else f
        # the tail keeps its order below the reranked head
        floor = min((c.score for c in head), default=0.0)
        for i, cand in enumerate(tail):
            cand.score = floor - (i + 1) * 1e-6
        return sorted(head, key=lambda c: c.score, reverse=True) + tail

    def _vectors_for(self, user_id: str, cands: Sequence[Candidate]) -> dict[str, Sequence[float] | Vector]:
        fill_vectors(self.components.db, self.components.vectors, user_id, cands)  # fusion read most already
        return {c.text: c.vector for c in cands if c.vector is not None}


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
