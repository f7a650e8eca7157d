"""Entity resolution: one canonical entity (one graph node) per real-world thing, per user.

A name is matched, in order, by its exact surface form, its normalised form (case,
accents, punctuation, leading articles), the alias table, its *key* (the normalised
form split on ``- _ . /`` with trailing descriptors such as "language", "lang",
"inc" dropped, so "Rust", "rust-lang" and "the Rust language" share the key ``rust``)
and finally a fuzzy match (``difflib`` ratio above a threshold; stdlib only). Names that
match nothing become new entities. Every successful non-exact match records an alias,
so the evidence that merged two names is kept and the next lookup is a table hit.

Invariant: never two entities with the same normalised name for one user (a UNIQUE
constraint in SQLite). Objects of literal predicates (ages, birthdays), numbers and
long phrases are values, not entities, and are left untouched.
"""

from __future__ import annotations

import difflib
import logging
import re
import threading
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from .._time import from_epoch, to_epoch, utcnow
from ..config import FactConfig
from ..storage.sqlite import SQLiteStore
from ..text.lexicon import KIN_SYNONYMS, REL_KINDS
from ..types import Episode, Fact
from .temporal import normalize_value

if TYPE_CHECKING:
    from .graph import FactGraph

__all__ = ["Entity", "EntityResolver", "MatchMethod", "RelatedFacts", "Resolution", "entity_key", "fuzzy_score"]

logger = logging.getLogger(__name__)

MatchMethod = Literal["exact", "normalised", "alias", "key", "fuzzy", "new"]

_DESCRIPTORS = frozenset(
    {"language", "lang", "programming", "inc", "corp", "corporation", "ltd", "llc", "gmbh", "plc"}
)
_ARTICLES = frozenset({"the", "a", "an"})
_SPLIT = re.compile(r"[\s\-_./]+")
_MAX_ENTITY_WORDS = 8


def entity_key(name: str) -> str:
    """The matching key of a name: normalised, split on separators, descriptors dropped.

    ``"the Rust language"``, ``"rust-lang"`` and ``"Rust"`` all give ``"rust"``.
    """
    tokens = [t for t in _SPLIT.split(normalize_value(name.replace("'", "").replace("\u2019", ""))) if t]
    while len(tokens) > 1 and tokens[0] in _ARTICLES:
        tokens.pop(0)
    while len(tokens) > 1 and tokens[-1] in _DESCRIPTORS:
        tokens.pop()
    return " ".join(tokens)


def _is_relation(alias: str) -> bool:
    """Whether a normalised alias is a relation word ("sister", "best friend", "mother in law")."""
    words = alias.split()
    return bool(words) and ("-".join(words) in REL_KINDS or words[-1] in REL_KINDS)


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def fuzzy_score(a: str, b: str, *, min_chars: int) -> float:
    """Similarity of two keys in ``[0, 1]`` (0 when either is too short or numbers differ)."""
    if min(len(a), len(b)) < min_chars or _digits(a) != _digits(b) or a[:1] != b[:1]:
        return 0.0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < 0.5 or matcher.quick_ratio() < 0.5:
        return 0.0
    return matcher.ratio()


class Entity(BaseModel):
    """A canonical entity of one user with the aliases that resolve to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    user_id: str
    name: str
    key: str
    aliases: tuple[str, ...] = ()
    created_at: datetime


@dataclass(frozen=True)
class Resolution:
    """How a surface name was resolved: the entity, its canonical name, method and score."""

    entity_id: str
    canonical: str
    method: MatchMethod
    score: float = 1.0


@dataclass
class _UserCache:
    by_alias: dict[str, tuple[str, str]]  # alias -> (entity id, canonical name)
    keys: dict[str, tuple[str, str]]  # key -> (entity id, canonical name), oldest entity wins
    facts: dict[tuple[str, str, str], tuple[str, str]] = field(default_factory=dict)  # resolve_fact memo
    revision: int | None = None  # the user's revision read before loading (db.user_revision)


class EntityResolver:
    """Resolves subject and object names to canonical entities, per user.

    Setup:
        Part of the engine; no extra install.

    Instantiate:
        .. code-block:: python

            resolver = store.entities          # created by NovaStore

    Usage:
        .. code-block:: python

            store.entities.resolve("alice", "the Rust language").canonical   # -> "Rust"
            store.entities.add_alias("alice", "Rust", "ferris-lang")
            store.entities.list_entities("alice")

    Args:
        db: the store's SQLite system of record (tables ``entities`` and ``entity_aliases``).
        config: the facts section (fuzzy threshold, minimum length, literal predicates).
    """

    def __init__(self, db: SQLiteStore, config: FactConfig) -> None:
        self.db = db
        self.config = config
        self._cache: dict[str, _UserCache] = {}
        self._lock = threading.RLock()

    # -- cache ----------------------------------------------------------------------------
    def invalidate(self, user_id: str | None = None) -> None:
        """Drop cached lookups (after a rolled-back transaction or a deletion)."""
        with self._lock:
            if user_id is None:
                self._cache.clear()
            else:
                self._cache.pop(user_id, None)

    def _user(self, user_id: str) -> _UserCache:
        # The resolver's lock only guards the in-memory cache and is never held while SQLite is
        # used: callers may already hold the database lock (a consolidation transaction).
        revision = self.db.user_revision(user_id)  # before the rows: a change after it shows next time
        with self._lock:
            cache = self._cache.get(user_id)
        if cache is not None and cache.revision == revision:
            return cache
        rows = self.db.entity_rows(user_id)
        names = {r["id"]: r["name"] for r in rows}
        keys: dict[str, tuple[str, str]] = {}
        for r in rows:
            keys.setdefault(r["key"], (r["id"], r["name"]))
        aliases = self.db.alias_rows(user_id)
        by_alias = {a["alias"]: (a["entity_id"], names[a["entity_id"]]) for a in aliases if a["entity_id"] in names}
        with self._lock:
            cache = self._cache.get(user_id)
            if cache is None or cache.revision != revision:  # else another thread just loaded it
                cache = self._cache[user_id] = _UserCache(by_alias, keys, revision=revision)
            return cache

    # -- resolution -------------------------------------------------------------------------
    def is_entity(self, predicate: str, value: str) -> bool:
        """Whether an object value names an entity (not a number, literal or long phrase)."""
        norm = normalize_value(value)
        if not norm or predicate in self.config.literal_predicates:
            return False
        if len(norm.split()) > _MAX_ENTITY_WORDS:
            return False
        return not norm.replace(".", "").replace(" ", "").isdigit()

    def resolve(self, user_id: str, name: str, *, create: bool = True) -> Resolution | None:
        """Resolve ``name`` to a canonical entity of ``user_id`` (created when new).

        Returns ``None`` for an empty name, or when nothing matches and ``create`` is False.
        """
        surface = " ".join(name.split())
        norm = normalize_value(surface)
        if not norm:
            return None
        cache = self._user(user_id)
        key = entity_key(surface)
        method: MatchMethod = "key"
        score = 1.0
        with self._lock:
            hit = cache.by_alias.get(norm)
            found = None if hit is not None else cache.keys.get(key)
            if hit is None and found is None:
                best: tuple[float, str] | None = None
                for other in cache.keys:
                    ratio = fuzzy_score(key, other, min_chars=self.config.entity_fuzzy_min_chars)
                    if ratio >= self.config.entity_fuzzy_threshold and (best is None or ratio > best[0]):
                        best = (ratio, other)
                if best is not None:
                    found, method, score = cache.keys[best[1]], "fuzzy", best[0]
        if hit is not None:
            if hit[1] == surface:
                return Resolution(hit[0], hit[1], "exact")
            return Resolution(hit[0], hit[1], "normalised" if normalize_value(hit[1]) == norm else "alias")
        if found is not None:
            if create:
                self._insert_alias(user_id, norm, found[0], method, score)
                with self._lock:
                    cache.by_alias[norm] = found
            return Resolution(found[0], found[1], method, score)
        if not create:
            return None
        return self._create(user_id, cache, surface, norm, key)

    def _create(self, user_id: str, cache: _UserCache, surface: str, norm: str, key: str) -> Resolution:
        now = to_epoch(utcnow()) or 0.0
        with self.db.user_transaction(user_id):  # other processes reload the user's names
            target = self.db.insert_entity(f"en_{uuid.uuid4().hex}", user_id, surface, norm, key, now)
            self._insert_alias(user_id, norm, target[0], "new", 1.0)
            with self._lock:  # "mom" is found as "mum" and "mother" too, unless those already name someone
                kin = [w for g in KIN_SYNONYMS if norm in g for w in sorted(g - {norm}) if w not in cache.by_alias]
            for word in kin:
                self._insert_alias(user_id, word, target[0], "synonym", 1.0)
        with self._lock:
            cache.by_alias.update(dict.fromkeys(kin, target))
            cache.by_alias[norm] = target
            cache.keys.setdefault(key, target)
        return Resolution(target[0], target[1], "new" if target[1] == surface else "normalised")

    def _insert_alias(self, user_id: str, alias: str, entity_id: str, method: str, score: float) -> None:
        self.db.insert_alias(user_id, alias, entity_id, method, score, to_epoch(utcnow()) or 0.0)

    def resolve_fact(self, user_id: str, subject: str, predicate: str, obj: str) -> tuple[str, str]:
        """Canonical ``(subject, object)`` of a statement (the hook ``FactMemory`` calls)."""
        memo = self._user(user_id).facts
        with self._lock:
            hit = memo.get((subject, predicate, obj))
        if hit is not None:
            return hit
        resolved = self.resolve(user_id, subject)
        canonical_subject = resolved.canonical if resolved is not None else subject
        canonical_obj = obj
        if obj.strip() and self.is_entity(predicate, obj):
            found = self.resolve(user_id, obj)
            if found is not None:
                canonical_obj = found.canonical
        result = (canonical_subject, canonical_obj)
        if predicate.endswith("_name") and predicate != "name" and normalize_value(subject) == "user" and canonical_obj:
            self._name_relation(user_id, predicate[: -len("_name")].replace("_", " "), canonical_obj)
        with self._lock:
            if len(memo) > 4096:
                memo.clear()
            memo[(subject, predicate, obj)] = memo[(canonical_subject, predicate, canonical_obj)] = result
        return result

    def _name_relation(self, user_id: str, relation: str, name: str) -> None:
        """Make "my <relation>" an alias of the person the user named so ("my sister Jo": "sister" -> Jo), so a
        later statement about "my sister" is about Jo. Never when the relation already names an entity of its
        own (facts told before the name), nor when another relation already names that person ("my boyfriend
        and my brother are both called James": which James is meant stays the relation's)."""
        rel = normalize_value(relation)
        if not _is_relation(rel):
            return
        cache = self._user(user_id)
        with self._lock:
            taken = rel in cache.by_alias
            target = cache.by_alias.get(normalize_value(name))
            shared = target is not None and any(hit[0] == target[0] and _is_relation(alias)
                                                for alias, hit in cache.by_alias.items())
        if taken or target is None or shared:
            return
        self._insert_alias(user_id, rel, target[0], "alias", 1.0)
        with self._lock:
            cache.by_alias[rel] = target
            cache.facts.clear()

    def alias_map(self, user_id: str) -> dict[str, str]:
        """Every known normalised alias of the user's entities -> canonical name."""
        cache = self._user(user_id)
        with self._lock:
            return {alias: hit[1] for alias, hit in cache.by_alias.items()}

    def canonical(self, user_id: str, name: str) -> str:
        """The canonical name ``name`` resolves to, without creating anything."""
        found = self.resolve(user_id, name, create=False)
        return found.canonical if found is not None else name

    # -- administration --------------------------------------------------------------------
    def add_alias(self, user_id: str, canonical: str, alias: str) -> Resolution:
        """Declare that ``alias`` names the entity ``canonical`` (created if needed).

        Raises:
            ValueError: ``alias`` already names a different entity.
        """
        target = self.resolve(user_id, canonical)
        norm = normalize_value(alias)
        if target is None or not norm:
            raise ValueError("canonical name and alias must not be empty")
        cache = self._user(user_id)
        with self._lock:
            existing = cache.by_alias.get(norm)
        if existing is not None and existing[0] != target.entity_id:
            raise ValueError(f"{alias!r} already names the entity {existing[1]!r}")
        self._insert_alias(user_id, norm, target.entity_id, "declared", 1.0)
        with self._lock:
            cache.by_alias[norm] = (target.entity_id, target.canonical)
            cache.facts.clear()
        return Resolution(target.entity_id, target.canonical, "alias")

    def list_entities(self, user_id: str, ids: Sequence[str] | None = None) -> list[Entity]:
        """Entities of a user with their aliases, oldest first."""
        rows = self.db.entity_rows(user_id)
        aliases: dict[str, list[str]] = {}
        for a in self.db.alias_rows(user_id):
            aliases.setdefault(a["entity_id"], []).append(a["alias"])
        wanted = None if ids is None else set(ids)
        return [
            Entity(id=r["id"], user_id=user_id, name=r["name"], key=r["key"],
                   aliases=tuple(aliases.get(r["id"], ())),
                   created_at=from_epoch(r["created_at"]))  # type: ignore[arg-type]
            for r in rows
            if wanted is None or r["id"] in wanted
        ]


class RelatedFacts:
    """Existing facts relevant to a batch of episodes, for an LLM's context.

    Ranked by: entities mentioned in the episodes (names and aliases, via the fact graph:
    facts touching a mentioned node, then one hop further), embedding similarity of the
    episodes to facts (Chroma), and the user's own single-valued facts (what a
    first-person turn most often updates). Only currently believed, open facts count.
    """

    def __init__(
        self,
        db: SQLiteStore,
        config: FactConfig,
        *,
        graph: FactGraph | None = None,
        vectors: Any | None = None,
        embedder: Any | None = None,
        entities: EntityResolver | None = None,
    ) -> None:
        self.db, self.config, self.graph = db, config, graph
        self.vectors, self.embedder, self.entities = vectors, embedder, entities

    def __call__(self, user_id: str, episodes: Sequence[Episode], limit: int) -> list[Fact]:
        """Up to ``limit`` facts, most relevant first."""
        current = {f.id: f for f in self.db.current_facts(user_id) if f.valid_to is None}
        if limit <= 0 or not current:
            return []
        score: dict[str, float] = {}

        def bump(fid: str, value: float) -> None:
            if fid in current:
                score[fid] = score.get(fid, 0.0) + value

        text = " " + " ".join(normalize_value(e.content) for e in episodes) + " "
        names = {normalize_value(n) for f in current.values() for n in (f.subject, f.object)}
        if self.entities is not None:
            for alias, canonical in self.entities.alias_map(user_id).items():
                if f" {alias} " in text:
                    names.add(normalize_value(canonical))
        mentioned = {n for n in names if n and n != "user" and f" {n} " in text}
        if self.graph is not None:  # facts touching a mentioned entity, then one hop on (not through "user")
            near: set[str] = set()
            for node in sorted(mentioned):
                for _, fact in self.graph.traverse(user_id, node, max_hops=1):
                    bump(fact.id, 3.0)
                    near.update(normalize_value(n) for n in (fact.subject, fact.object))
            for node in sorted(near - mentioned - {"user"}):
                for _, fact in self.graph.traverse(user_id, node, max_hops=1):
                    bump(fact.id, 1.0)
        if any(e.role == "user" for e in episodes):
            for f in current.values():
                if f.subject == "user" and self.config.is_single_valued(f.predicate):
                    bump(f.id, 0.5)
        for fid, sim in self._similar(user_id, episodes):
            if sim >= 0.3:
                bump(fid, 2.0 * sim)
        ranked = sorted(score, key=lambda i: (-score[i], -current[i].valid_from.timestamp()))
        return [current[i] for i in ranked[:limit]]

    def _similar(self, user_id: str, episodes: Sequence[Episode]) -> list[tuple[str, float]]:
        if self.vectors is None or self.embedder is None:
            return []
        try:
            known = self.vectors.get_embeddings("episode", [e.id for e in episodes], user_id=user_id)
            missing = [e for e in episodes if e.id not in known]
            if missing:
                vectors = self.embedder.embed_documents([e.content for e in missing])
                known.update(zip([e.id for e in missing], vectors, strict=True))
            out: list[tuple[str, float]] = []
            for e in episodes:
                out += self.vectors.query("fact", known[e.id], user_id=user_id, k=5)
            return out
        except Exception as exc:  # context is best effort
            logger.warning("nova-memory consolidation: similar-fact lookup failed: %s", exc)
            return []
