"""Search configuration as small data objects, with named presets.

Every weight and limit of the recall pipeline is a field here; code paths carry no
constants. ``SearchConfig.preset("balanced")`` is the default; ``fast`` skips the reranker
and fetches fewer candidates; ``deep`` casts a wider net before reranking.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import ConfigError

__all__ = ["CANDIDATES_BUDGET", "PRESETS", "SearchConfig", "Signal", "SignalWeights"]

CANDIDATES_BUDGET = 1_000
"""The budget (tokens) that ``SearchConfig.context_candidates`` is given for."""


class Signal(str, Enum):
    """The name of every score recall gives a candidate: the raw score of a signal that found
    it (``Candidate.raw``), a part of its fused score (``Candidate.contributions``, ``w_<name>``
    in ``SearchHit.scores``), the weight of that part (a field of :class:`SignalWeights`, see
    :meth:`SignalWeights.of`). Members are their names as strings (``Signal.DENSE == "dense"``),
    so the scores read the same as plain strings everywhere they are shown."""

    DENSE = "dense"
    """Cosine of a turn to the query: found by the vector index (raw), ``weights.dense`` times the
    cosine (part)."""
    LEXICAL = "lexical"
    """BM25 of a turn (SQLite FTS5; raw), ``weights.lexical`` times it over the best one's (part)."""
    DATE = "date"
    """Cosine of a turn whose event time falls in a stretch the query names (raw), the boost of
    such a turn (part)."""
    FACT_DENSE = "fact_dense"
    FACT_LEXICAL = "fact_lexical"
    GRAPH = "graph"
    """``1 / (1 + hop)`` of a fact reached through the fact graph from an entity the query names."""
    RULE = "rule"
    """Cosine of a rule's condition to the query."""
    NEIGHBOUR = "neighbour"
    """The score a listed turn passes to the turns near it in its session."""
    SESSION = "session"
    SPEAKER = "speaker"
    RECENCY = "recency"
    IMPORTANCE = "importance"
    ACCESS = "access"
    WEIGHT = "weight"
    """The lifecycle's effective weight (its weight is ``SignalWeights.effective_weight``)."""
    CONFIDENCE = "confidence"
    COSINE = "cosine"
    """Cosine of any item to the dense query, whatever found it (raw; weighted fusion)."""
    RERANK = "rerank"
    """The reranker's score (part of the head of the ranking, blended with the fused score)."""

    def __str__(self) -> str:  # the name itself, as str() and f-strings show a string (not "Signal.DENSE")
        return self.value

    def __format__(self, spec: str) -> str:
        return self.value.__format__(spec)


_WEIGHT_FIELD = {Signal.WEIGHT: "effective_weight"}
"""The :class:`SignalWeights` field of a signal whose field is not named after it."""


class SignalWeights(BaseModel):
    """Weights of each signal in fusion, one field per :class:`Signal` that has one.

    With ``fusion="weighted"`` an item's base score is
    ``dense * cosine + lexical * bm25 / max_bm25`` (per kind), plus ``graph / (1 + hop)``
    for facts found through the graph; priors are added on top. With ``fusion="rrf"``
    each signal contributes ``weight / (rrf_k + rank)``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    dense: float = 0.7
    lexical: float = 0.3
    graph: float = 0.15
    fact_dense: float = 0.4
    fact_lexical: float = 0.15
    """Facts weigh less than turns: a short derived statement matches a question's words
    easily, while the turns hold the evidence and its context."""
    speaker: float = 1.0
    """Relative boost (score x (1 + speaker)) of a turn whose speaker - its role, when that is
    a name such as "Melanie" rather than "user"/"assistant" - is named in the query: in a
    multi-party transcript, what a person did is mostly said by that person. With the name
    out of the dense query (``SearchConfig.dense_without_speaker``) this boost alone says
    whose turn it is, so it weighs more than the 0.3 it had while the query vector carried
    the name (LoCoMo, leave-one-conversation-out over 0.3 / 0.5 / 0.7 / 1.0 / 1.5 / 2.0:
    three folds chose 1.0, two 1.5; see docs/research-notes.md)."""
    date: float = 2.0
    """Relative boost (score x (1 + date)) of a turn whose event time falls on a day or in a
    stretch the query names ("What did Nate do for Joanna on 25 May, 2022?", "in January 2022",
    "yesterday": :func:`~nova_memory_integrations.text.dates.named_windows`); with
    ``fusion="rrf"``, the weight of the ranking of those turns by cosine (``SearchConfig.date_k``).
    ``0`` turns the boost off. Chosen inside LoCoMo's cross-validation folds over 0 / 1 / 2 / 3
    (2 in every fold; see docs/research-notes.md)."""
    recency: float = 0.02
    importance: float = 0.02
    confidence: float = 0.05
    access: float = 0.01
    effective_weight: float = Field(default=0.0, ge=0)
    """Weight of the episode's effective weight as the lifecycle defines it (the seed's
    ``importance * (1 + access_mult * ln(access_count + 1)) * exp(-decay_rate * age_days)``
    with ``lifecycle.access_mult`` / ``lifecycle.decay_rate``), added to the fused score like
    the other priors (contribution ``"weight"``, ``w_weight`` in ``SearchHit.scores``).
    ``0`` turns it off: the default, as on LoCoMo's held-out folds it did not help (see
    docs/research-notes.md). Ages count from the turn's event time to the user's present: the query's
    ``as_of`` (default now), but no later than the user's latest turn
    (:func:`~.fusion.weight_reference`)."""

    def of(self, signal: Signal) -> float:
        """The weight of ``signal``'s part of the fused score (0 for a signal weighed elsewhere:
        ``rule``, ``neighbour`` and ``session`` by :class:`SearchConfig`, ``rerank`` by
        ``SearchConfig.rerank_weight``)."""
        return float(getattr(self, _WEIGHT_FIELD.get(signal, signal.value), 0.0))


class SearchConfig(BaseModel):
    """Limits and weights of retrieve -> rerank -> compress -> assemble."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "balanced"
    dense_k: int = Field(default=50, ge=1)
    lexical_k: int = Field(default=50, ge=0)
    lexical_window: int = Field(default=10_000, ge=0)
    """A query whose words match more than ``lexical_window`` turns has keyword (BM25) search
    score only the user's newest ``lexical_window`` turns (0: never). SQLite FTS5 scores every
    matching row, so a 100k-turn history whose words recur everywhere cost tens of ms per
    query; rarer words are still searched in the whole history, and older turns are found
    by dense search, the fact graph and facts."""
    lexical_common: float = Field(default=0.15, gt=0, le=1)
    """Keyword (BM25) search leaves out a query word found in more than this share of the
    stored turns (and in more than ``lexical_common_min`` of them); a query of nothing but
    such words is left to the dense search (:func:`~.lexical.searched_words`). BM25 scores
    each row a word finds, so such a word is what a keyword search spends most on and weighs
    least in its scores (the lowest IDF): in a history where the same few words recur all
    day it matched most rows. Chosen inside LoCoMo's cross-validation folds (0.15 in four of
    five, 0.3 in the fifth, over keeping every word, 0.1 and 0.2; see docs/research-notes.md). ``1``
    keeps every word."""
    lexical_common_min: int = Field(default=50, ge=0)
    """A word found in at most this many turns is never left out as common: in a short
    history a few turns make a large share, and BM25 over them costs next to nothing."""
    date_k: int = Field(default=20, ge=0)
    """Of the turns whose event time falls in a stretch the query names, the ``date_k`` closest to
    the query (cosine) join the candidates (``0``: none join; the ones found otherwise are still
    boosted by ``weights.date``). A question about a day is answered by that day's turns, which
    need not share its words. 20 was chosen in four of LoCoMo's five folds, 10 in the fifth."""
    date_pool: int = Field(default=500, ge=0)
    """No turn joins through ``date_k`` when the named stretches hold more than this many turns: a
    stretch that long singles out little, and every one of its vectors would be read."""
    fact_k: int = Field(default=20, ge=0)
    graph_hops: int = Field(default=2, ge=0)
    graph_k: int = Field(default=20, ge=0)
    rule_k: int = Field(default=3, ge=0)
    rule_min_similarity: float = 0.35
    fusion: Literal["weighted", "rrf"] = "weighted"
    rrf_k: float = Field(default=60.0, gt=0)
    weights: SignalWeights = Field(default_factory=SignalWeights)
    recency_half_life_days: float = Field(default=90.0, gt=0)
    dense_without_speaker: bool = True
    """Embed the query without the name of the one speaker it names ("Which cities has Tim
    visited?" -> "Which cities has visited?"; :func:`~.signals.without_speaker_name`): every
    line of a transcript starts with its speaker's name and the others' lines address them
    by it, so the name pulls in "Hey Tim!" as much as Tim's own news; who said what is the
    speaker boost's part. Keyword search keeps the name. Roles are read from the user's turns
    (:meth:`~nova_memory_integrations.storage.episodes.EpisodeQueries.speakers`); a store whose
    roles are only user / assistant is unaffected."""
    rerank: bool | None = None
    """``None`` (auto): rerank when a cross-encoder (flashrank or sentence-transformers) is
    configured, not with the model-free fallback, which lowered LoCoMo context recall
    (0.827 -> 0.810 on two conversations) because the fused score already holds its
    signals. ``True``/``False`` force it."""
    rerank_top_n: int = Field(default=40, ge=1)
    rerank_weight: float = Field(default=0.5, ge=0, le=1)
    neighbour_weight: float = Field(default=0.2, ge=0, le=1)
    """Share of a turn's score passed to its adjacent turns in the same session (a neighbour
    outside the dense and keyword lists is also scored on its own cosine to the query)."""
    neighbour_reach: int = Field(default=2, ge=1, le=4)
    """How far along its session a turn passes score: to the turns up to this many places before
    and after it, each getting the share divided by its distance (a reply to a reply often
    holds the answer). LoCoMo held-out, reach 1 / 2 / 3: context recall 0.881 / 0.886 / 0.887,
    recall@10 0.759 / 0.768 / 0.771, for ~1.7 / ~3.6 ms more fusion at 10k; 2 keeps most of
    the gain at half the cost."""
    neighbour_pool: int = Field(default=20, ge=0)
    """How many of the best turns pass score to their neighbours. LoCoMo held-out, 20 / 30 / 40:
    recall@10 0.799 / 0.802 / 0.803, context recall 0.900 / 0.895 / 0.895, answer words
    0.800 / 0.800 / 0.800 (20 chosen by context recall in all five folds), and 20 reads half
    the neighbour rows: fusion ~5.3 -> ~4.0 ms at 10k turns."""
    reply_weight: float = Field(default=0.3, ge=0, le=1)
    """Share of an asking turn's score (its last sentence a question, :func:`.signals.asks`)
    passed to the turn just after it in its session, on top of ``neighbour_weight``: the reply
    holds the answer the question only names ("Got any tips on running a successful biz?" ->
    "Yeah, brand identity is key. ... build relationships with your customers"). Only turns of
    the ``neighbour_pool`` pass it; ``0`` turns it off. LoCoMo held-out, 0 / 0.1 / 0.2 / 0.3 /
    0.5: recall@10 0.815 / 0.821 / 0.823 / 0.822 / 0.822, NDCG@10 0.613 / 0.621 / 0.629 / 0.629 /
    0.626, context recall 0.910 / 0.909 / 0.909 / 0.913 / 0.912, answer words 0.815 / 0.814 /
    0.815 / 0.815 / 0.814; chosen by context recall, 0.3 in four folds of five."""
    session_weight: float = Field(default=0.3, ge=0, le=1)
    """Boost by the mean of the best three turn scores of the turn's session."""
    snippet_max_turns: int = Field(default=4, ge=1)
    """``retrieve`` merges adjacent turns of a session into one snippet of up to this many turns."""
    context_candidates: int = Field(default=40, ge=1)
    """How many of the best candidates ``context()`` compresses and packs for a budget of
    :data:`CANDIDATES_BUDGET` tokens; a larger budget takes proportionally more
    (:meth:`candidates_for`). At 1,000 tokens about 30 items fit."""
    dedupe_threshold: float = Field(default=0.95, gt=0, le=1)
    max_item_tokens: int = Field(default=22, ge=8)
    """Longer items are cut to their sentences most related to the query."""
    lead_items: int = Field(default=8, ge=0)
    lead_item_tokens: int = Field(default=100, ge=8)
    """The ``lead_items`` best items may keep up to ``lead_item_tokens``: the answer most
    often sits in them, while the breadth of the rest needs them short."""
    item_stretch: float = Field(default=2.0, ge=1)
    """A cut item whose sentence sharing the most words with the query is longer than its cap
    (``max_item_tokens`` or ``lead_item_tokens``) keeps that sentence whole, alone, when it fits
    the cap times ``item_stretch`` (``1``: never): rather than the shorter sentences that fit and
    do not answer ("Hey Gina! Good to see you too." for "Lost my job as a banker yesterday, so I'm
    gonna take a shot at starting my own business.")."""
    min_item_tokens: int = Field(default=12, ge=1)
    fact_share: float = Field(default=0.3, ge=0, le=1)
    """At most this share of the budget goes to the facts section chosen by relevance."""
    relevance_floor: float = Field(default=0.12, ge=0, le=1)
    """A query whose best match (the best cosine of a retrieved item to it) is below this gets no
    memories for relevance, only the guaranteed slots (:mod:`.floor`). ``0`` is off. Calibrated
    with ``unmatched_floor`` on LoCoMo's leave-one-conversation-out folds (``benchmarks/locomo.py
    --cv --cv-floors 0.05,0.1,0.12,0.15,0.2,0.25,0.3 --cv-unmatched 0.2,0.25,...,0.5``: each fold
    kept the pairs that lost nothing on its four training conversations and took the one saving
    the most tokens on their unrelated and adversarial probes): four folds chose 0.12 / 0.25, one
    0.2 / 0.25, which cost that fold one held-out question; the default is the four folds' choice,
    below every answered question's best match (the lowest, 0.131: "What would Caroline's
    political leaning likely be?"). Held-out figures unchanged; unrelated questions 994 -> 473
    tokens on average (21 of 40 gated); adversarial ones (category 5) keep theirs (they name what was discussed)."""
    unmatched_floor: float = Field(default=0.25, ge=0, le=1)
    """The same for a query none of whose keywords matched a stored turn or fact: a question in
    words the user never used needs a closer meaning to count. ``0`` is off. See ``relevance_floor``
    (no answered LoCoMo question lacked a keyword match below 0.44)."""
    reserved_share: float = Field(default=0.2, ge=0, le=1)
    """Guaranteed slots: up to this share of the budget goes first to the user's pinned blocks and
    most important current facts (``reserved_importance``), whatever the query; what they leave
    goes to relevance. ``0`` turns them off."""
    reserved_importance: float = Field(default=0.9, ge=0, le=1)
    """The least importance of a fact given a guaranteed slot: 0.9 is level 5, explicit requests and
    health and safety (:mod:`~nova_memory_integrations.memory.importance`); see ``reserved_inferred``."""
    reserved_facts: int = Field(default=10, ge=0)
    """At most this many facts are read for the guaranteed slots."""
    reserved_inferred: bool = False
    """Whether facts the store inferred (not asked for) get guaranteed slots too when important
    enough: a health coach wants "I'm allergic to peanuts" said in passing in every context. Off by
    default: on LoCoMo's held-out folds the health facts inferred from chit-chat took context
    recall from 0.9126 to 0.9116 (``benchmarks/locomo.py --cv``); explicit facts always qualify."""

    def candidates_for(self, budget_tokens: int) -> int:
        """``context_candidates``, scaled up for budgets above :data:`CANDIDATES_BUDGET`."""
        return max(self.context_candidates, -(-self.context_candidates * budget_tokens // CANDIDATES_BUDGET))

    @classmethod
    def preset(cls, name: str) -> SearchConfig:
        """A named preset (``balanced``, ``fast``, ``deep``)."""
        if not isinstance(name, str):
            raise ConfigError(f"a search preset is a name or a SearchConfig, not {type(name).__name__}")
        try:
            return PRESETS[name]
        except KeyError:
            raise ConfigError(f"unknown search preset {name!r}; choose from {sorted(PRESETS)}") from None


PRESETS: dict[str, SearchConfig] = {
    "balanced": SearchConfig(),
    "fast": SearchConfig(name="fast", dense_k=20, lexical_k=20, fact_k=10, graph_k=10, neighbour_pool=10,
                         neighbour_reach=1, context_candidates=40),
    "deep": SearchConfig(name="deep", dense_k=100, lexical_k=100, lexical_window=0, lexical_common=1.0, fact_k=40,
                         graph_k=40, rerank=True, rerank_top_n=60, context_candidates=100),
    "rrf": SearchConfig(name="rrf", fusion="rrf", neighbour_weight=0.0, reply_weight=0.0, session_weight=0.0),
}
