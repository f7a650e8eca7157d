"""Which current fact a cue ends (pure): evidence per candidate, one scoring function, a margin.

A cue says *that* something ended; the target is looked for among the user's facts current at the
message's time, by four kinds of evidence, each in ``[0, 1]``:

* **name** (``name_clause``, ``name_sentence``): words of the fact's object (or, for a partner, of the
  person) in the cue's clause, else elsewhere in its sentence: 1.0 for the whole object or a proper
  word of it ("Golf", "CX-5"), 0.8 for another content word ("running"), 0.5 for a kind noun or a part
  of a word ("boat" in "sailboat", "Bonnie" for "Bonneville");
* **reference** (``ref``): a pronoun whose antecedent in the message is the fact ("we gave *it* to the
  school" after "the Yamaha"), 1.0; a definite description of its kind ("the van", "my job", "the
  company"), 0.8 when it fits one candidate only, else 0.4;
* **uniqueness** (``unique``): the fact is the actor's only state of the cue's categories (so "the
  layoffs" or "retirement" can only mean that job);
* **meaning** (``sim``): cosine of the clause and the fact's text, rescaled to ``[0, 1]`` between
  :data:`SIM_FLOOR` and :data:`SIM_CEIL`; computed only when the other evidence does not decide.

:func:`target_score` combines them (formula in its docstring); :func:`choose` applies the threshold
and the margin. Facts stated together about one subject in one category (``works_at`` and
``job_title`` of one job) form one *state*: they are counted once and end together.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from ..text.known_names import KINDS, value_names
from ..text.lexicon import PLACES
from ..types import Fact
from .lexicon import (
    ANY,
    GENERIC_WORDS,
    IDENTITY,
    KIND_WORDS,
    OBJECT_CATEGORY_WORDS,
    PREDICATE_CATEGORIES,
    PREDICATE_SUFFIX_CATEGORIES,
    RELATIONS,
    STOPWORDS,
)
from .segments import Word, words
from .states import OPEN_PREDICATE

__all__ = [
    "CATEGORY_NOUNS",
    "KIND_EVIDENCE",
    "LAMBDA",
    "MARGIN",
    "OPEN_SIM_CEIL",
    "OPEN_SIM_FLOOR",
    "SIM_CEIL",
    "SIM_FLOOR",
    "THRESHOLD",
    "Evidence",
    "FactInfo",
    "category_fit",
    "fits_of",
    "named_fit",
    "choose",
    "describe",
    "describes",
    "fact_category",
    "fact_info",
    "gender_of",
    "name_evidence",
    "rescale_similarity",
    "separate_lists",
    "target_score",
    "with_sim",
]

THRESHOLD = 0.5
"""Lowest score that ends a fact."""
MARGIN = 0.2
"""How far the best candidate must lead the next one (when not named explicitly)."""
KIND_EVIDENCE = 0.4
"""Name evidence of a kind noun that is not a word of the fact ("coffee" for espressos, "cigarettes" for
smoking): below the threshold alone, so it needs uniqueness or meaning to end anything."""
LAMBDA = 0.6
"""Weight of meaning in the share of the score the structural evidence leaves open."""
SIM_FLOOR, SIM_CEIL = 0.25, 0.6
"""Cosine (MiniLM) at or below which meaning counts 0, at or above which it counts 1."""
OPEN_SIM_FLOOR, OPEN_SIM_CEIL = 0.3, 0.6
"""The same for an open-predicate fact, whose score meaning may carry alone (so a higher floor): the
cue's clause and the clause the state was read from."""

CATEGORY_NOUNS: dict[str, frozenset[str]] = {
    "job": frozenset("job work company firm employer office contract role position gig shifts".split()),
    "home": frozenset("house flat place home apartment lease tenancy".split()),
    "membership": frozenset("membership subscription app account".split()),
    "relationship": frozenset("relationship marriage engagement".split()),
    "study": frozenset("course degree studies".split()),
    "habit": frozenset("habit routine".split()),
}
"""Nouns that describe any state of a category ("the company" -> the job, "my membership"); a more
specific noun ("the gym", "the choir", "the dog") must be a word of the fact itself."""

CLAUSE_VERB_CATEGORIES = {"teaching": "job", "working": "job", "studying": "study", "living": "home", "renting": "home"}
"""Verbs of an open state's own clause that say its category when its value does not ("thirty years *teaching* at
Ridgeway High": a job)."""

_DIGIT = re.compile(r"\d")


_SUFFIXES = ("ings", "ing", "ers", "er", "ed", "es", "s")


def _lemma(word: str) -> str:
    """A crude lemma for matching inflections: "smoked", "smoker", "smoking" -> "smok"; "running" -> "run"."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word[:-1] if len(word) >= 4 and word.endswith("e") else word


def _stem(word: str) -> str:
    word = word.lower().replace("’", "'").removesuffix("'s").strip("'")
    if word.endswith("+") and word.rstrip("+").isalpha() and len(word) > 3:  # "Disney+" names "Disney"
        word = word.rstrip("+")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def fact_category(fact: Fact) -> str:
    """The category of the state a fact holds: by predicate, else by the words of its object, else by the kind of
    the known name it is (:mod:`~nova_memory_integrations.text.known_names`), else ``any``."""
    pred = fact.predicate
    if pred in PREDICATE_CATEGORIES:
        category = PREDICATE_CATEGORIES[pred]
        if category == "possession":  # "owns a flat" is a home, "owns a dog" a pet
            for w in words(fact.object):
                if OBJECT_CATEGORY_WORDS.get(_stem(w.low)) in ("home", "pet"):
                    return OBJECT_CATEGORY_WORDS[_stem(w.low)]
        return category
    for suffix, category in PREDICATE_SUFFIX_CATEGORIES:
        if pred.endswith(suffix):
            return category
    for w in words(fact.object):
        if (found := OBJECT_CATEGORY_WORDS.get(_stem(w.low))) is not None:
            return found
    for hit in value_names(fact.object)[:1]:  # a known name says what it is: "Deloitte" an employer, "O2" a network
        for kind in hit.kinds:
            if (found := PREDICATE_CATEGORIES.get(KINDS[kind].predicate)) is not None:
                return found
    if fact.predicate == OPEN_PREDICATE and fact.object.lower() in PLACES:  # "Manchester", told in passing
        return "home"
    clause = fact.metadata.get("clause") if fact.predicate == OPEN_PREDICATE else None
    for w in words(clause) if isinstance(clause, str) else ():  # "thirty years *teaching* at Ridgeway High"
        if (found := CLAUSE_VERB_CATEGORIES.get(w.low)) is not None:
            return found
    return ANY


@dataclass(frozen=True)
class FactInfo:
    """A candidate fact and what names it: stems of its words, the proper ones, its kinds, its state."""

    fact: Fact
    category: str
    names: frozenset[str]
    proper: frozenset[str]
    phrase: str
    kinds: frozenset[str]
    state: str
    """Facts with one ``state`` key were stated together about one subject and category."""
    person: str = ""
    """For a relation fact ("user girlfriend_name Priya", "priya partner_of user"): the other person."""
    clause: str = ""
    """For an open-predicate fact (:data:`~.states.OPEN_PREDICATE`): the clause it was read from."""
    initials: str = ""
    """The initials of a name of two or more capitalised words ("Kendriya Vidyalaya" -> ``kv``): how people
    shorten an employer, a school or a club they named in full once."""

    @property
    def open(self) -> bool:
        """An open-predicate fact: its category unknown, so meaning carries its target score."""
        return bool(self.clause)

    @property
    def text(self) -> str:
        """The fact as words, for the embedder (an open fact: the clause it was read from)."""
        if self.clause:
            return self.clause
        subject = "I" if self.fact.subject == "user" else self.fact.subject
        return f"{subject} {self.fact.predicate.replace('_', ' ')} {self.fact.object}"


_INFOS: dict[str, FactInfo] = {}
_INFOS_MAX = 8192


def fact_info(fact: Fact) -> FactInfo:
    """Precompute what names ``fact`` (its object's words, or the partner's for a reverse relation).

    Memoised by version id (a version never changes; a change is a new version).
    """
    cached = _INFOS.get(fact.id)
    if cached is not None and cached.fact == fact:
        return cached
    if len(_INFOS) >= _INFOS_MAX:
        _INFOS.clear()
    info = _INFOS[fact.id] = _fact_info(fact)
    return info


def _fact_info(fact: Fact) -> FactInfo:
    category = fact_category(fact)
    reverse = fact.object.strip().lower() == "user"
    source = fact.subject if reverse else fact.object
    found = [w for w in words(source) if w.low not in STOPWORDS and not w.low.isdigit()]
    names = frozenset(_stem(w.text) for w in found)
    proper = frozenset(_stem(w.text) for w in found if w.text[0].isupper() or _DIGIT.search(w.text)
                       or not w.text.isalpha())
    kinds = set(CATEGORY_NOUNS.get(category, ()))
    for kind, members in KIND_WORDS.items():
        if any(n == kind or n.endswith(kind) or n in members for n in names):
            kinds.add(kind)
    person = ""
    if category == "relationship" or fact.predicate.endswith(("_name", "_of")):
        person = fact.subject if reverse else fact.object
    first = fact.provenance[0] if fact.provenance else fact.lineage_id
    # one relationship is one state whichever way it is stored ("user husband_name Tom", "tom spouse_of user")
    state = f"{category}|{person.lower()}" if category == "relationship" and person else \
        f"{fact.subject}|{category}|{first}"
    clause = ""
    if fact.predicate == OPEN_PREDICATE:
        clause = str((fact.metadata or {}).get("clause") or fact.object)
    capitals = [w.text[0] for w in found if w.text[0].isupper()]
    initials = "".join(capitals).lower() if len(capitals) >= 2 and len(capitals) == len(found) else ""
    return FactInfo(fact, category, names, proper, " ".join(w.low for w in words(source)), frozenset(kinds),
                    state, person.lower(), clause, initials)


def separate_lists(infos: Sequence[FactInfo]) -> list[FactInfo]:
    """``infos`` with the items of a list each made a state of its own.

    Facts stated together about one subject and category are one state (``works_at`` and ``job_title``
    of one job end together); but several values of *one* predicate stated together ("I pay for Netflix,
    Disney+ and Spotify", "two budgies, Kiwi and Mango") are a list: ending one item leaves the others.
    """
    predicates: dict[tuple[str, str], set[str]] = {}
    for info in infos:
        predicates.setdefault((info.state, info.fact.predicate), set()).add(info.fact.object.strip().lower())
    return [replace(info, state=f"{info.state}|{info.fact.object.strip().lower()}")
            if len(predicates[(info.state, info.fact.predicate)]) > 1 else info for info in infos]


def name_evidence(info: FactInfo, span: Sequence[Word]) -> float:
    """How surely ``span`` names the fact (see the module docstring for the levels)."""
    if not info.names or not span:
        return 0.0
    low = " ".join(w.low for w in span)
    if " " in info.phrase and f" {info.phrase} " in f" {low} ":
        return 1.0
    if info.initials and any(w.text.isupper() and w.low == info.initials for w in span):  # "KV"
        return 1.0
    stems = {_stem(w.text) for w in span if w.low not in STOPWORDS}
    hits = info.names & stems
    if hits & info.proper or hits == info.names:
        return 1.0
    if hits - GENERIC_WORDS - _KIND_NOUNS:
        return 0.8
    if hits:
        return 0.5
    lemmas = {_lemma(n) for n in info.names - GENERIC_WORDS - _KIND_NOUNS if len(n) >= 4}
    if lemmas & {_lemma(s) for s in stems if len(s) >= 4}:  # "smoked" / "smoker" for "smoking"
        return 0.8
    for s in stems:
        if len(s) < 3:
            continue
        for n in info.names:
            if len(n) >= 5 and n != s and (n.endswith(s) or (len(s) >= 4 and n.startswith(s))):
                return 0.5
            if len(s) >= 5 and len(n) >= 5 and s[:4] == n[:4] and s not in STOPWORDS:  # "Bonnie" / "Bonneville"
                return 0.5
    if stems & (info.kinds - _KIND_NOUNS):  # "coffee" for "two espressos a day": a kind of what it names
        return KIND_EVIDENCE
    return 0.0


_KIND_NOUNS = frozenset().union(*CATEGORY_NOUNS.values())


def describes(info: FactInfo, noun: str) -> bool:
    """Whether a definite description's noun ("the van", "my job") fits the fact."""
    noun = _stem(noun)
    if noun in info.kinds:
        return True
    return any(n.endswith(noun) and len(noun) >= 3 for n in info.names)


@dataclass(frozen=True)
class Evidence:
    """The evidence that a cue's clause is about one fact (each in ``[0, 1]``; ``sim`` rescaled)."""

    name_clause: float = 0.0
    name_sentence: float = 0.0
    ref: float = 0.0
    unique: float = 0.0
    sim: float = 0.0

    @property
    def structural(self) -> float:
        """``E = max(name_clause, 0.8 * name_sentence, ref, 0.6 * unique)``."""
        return max(self.name_clause, 0.8 * self.name_sentence, self.ref, 0.6 * self.unique)

    @property
    def explicit(self) -> bool:
        """Named in the clause or referred to by a pronoun: several such facts may all end."""
        return self.name_clause >= 0.8 or self.ref >= 1.0


def category_fit(category: str, cue_categories: Iterable[str]) -> float:
    """1 when the cue can end the fact's category, 0.8 when either side is ``any``, else 0 (and always 0
    for who someone is to the user: ``identity``)."""
    cats = frozenset(cue_categories)
    if category == IDENTITY:
        return 0.0
    if category in cats:
        return 1.0
    return 0.8 if ANY in cats or category == ANY else 0.0


NAMED_FIT = 0.8
"""The fit of a fact the cue's own object names (name evidence >= 0.8) whatever the cue's categories (as ``any``)."""


def named_fit(category: str, cue_categories: Iterable[str], named: float) -> float:
    """:func:`category_fit`, but at least :data:`NAMED_FIT` for a fact the cue names (``named`` >= 0.8, never
    ``identity``): the table lists a verb's usual kinds of state, and a writer's verb need not be listed for the
    one it names ("packed in *Dishoom*": a job; "deleted the *uber* driver app": a gig held)."""
    fit = category_fit(category, cue_categories)
    return NAMED_FIT if fit == 0.0 and named >= 0.8 and category != IDENTITY else fit


def fits_of(infos: Sequence[FactInfo], cue_categories: Iterable[str], named: dict[str, float]) -> dict[str, float]:
    """The fit of each candidate (by fact id) for one cue, ``named`` the name evidence of the cue's own object (the
    words after it, :func:`~.reading.object_words`; "the year I graduated" has none): :func:`category_fit`, or
    :func:`named_fit` when the object names no fact of the cue's own kinds ("moved out of Leeds" names the home,
    so the "Leeds Uni" it also names stays unfit)."""
    fits = {i.fact.id: category_fit(i.category, cue_categories) for i in infos}
    if any(fits[i.fact.id] > 0 and named.get(i.fact.id, 0.0) >= 0.8 for i in infos):
        return fits
    return {i.fact.id: named_fit(i.category, cue_categories, named.get(i.fact.id, 0.0)) for i in infos}


def rescale_similarity(cosine: float, *, open_fact: bool = False) -> float:
    """``clip((cos - SIM_FLOOR) / (SIM_CEIL - SIM_FLOOR), 0, 1)`` (the ``OPEN_`` bounds for an open fact)."""
    floor, ceil = (OPEN_SIM_FLOOR, OPEN_SIM_CEIL) if open_fact else (SIM_FLOOR, SIM_CEIL)
    return min(1.0, max(0.0, (cosine - floor) / (ceil - floor)))


def target_score(evidence: Evidence, *, fit: float, strength: float, open_fact: bool = False) -> float:
    """The score of one candidate fact for one cue.

    ``score = fit * strength * (E + LAMBDA * sim * (1 - E))`` where ``E`` is the strongest structural
    evidence (:attr:`Evidence.structural`): name in the clause, 0.8 x name in the sentence, reference,
    0.6 x uniqueness. Meaning fills part of what structure leaves open, so it can confirm a weak
    structural hint but alone reaches at most ``fit * strength * LAMBDA``. ``fit`` is
    :func:`category_fit`, ``strength`` the cue's.

    An open-predicate fact (``open_fact``) has no category to fit, and no name but the words of its
    clause: ``score = strength * (E + sim * (1 - E))`` with ``sim`` rescaled by :data:`OPEN_SIM_FLOOR`
    and :data:`OPEN_SIM_CEIL`, so a cue whose clause means the state ends it, and the margin of
    :func:`choose` keeps it from ending one of several alike.
    """
    e = evidence.structural
    if open_fact:
        return (strength if fit > 0 else 0.0) * (e + evidence.sim * (1.0 - e))
    return fit * strength * (e + LAMBDA * evidence.sim * (1.0 - e))


def choose(scored: Sequence[tuple[FactInfo, Evidence, float]]) -> list[tuple[FactInfo, Evidence, float]]:
    """The candidates a cue ends: every explicit one at or above :data:`THRESHOLD`; otherwise the best one
    when it reaches the threshold and leads the best candidate of another state by :data:`MARGIN`."""
    passing = [s for s in scored if s[2] >= THRESHOLD]
    if not passing:
        return []
    explicit = [s for s in passing if s[1].explicit]
    ranked = sorted(scored, key=lambda s: -s[2])
    if explicit:
        top = max(s[2] for s in explicit)
        rivals = [s[2] for s in ranked if not s[1].explicit and s[0].state not in {e[0].state for e in explicit}]
        if rivals and top - max(rivals) < MARGIN:
            return []
        return explicit
    best = ranked[0]
    rivals = [s[2] for s in ranked[1:] if s[0].state != best[0].state]
    if rivals and best[2] - max(rivals) < MARGIN:
        return []
    return [best]


def describe(info: FactInfo, evidence: Evidence, score: float) -> str:
    """A short account of why a fact was chosen (recorded in the decision's reason)."""
    parts = [f"{k} {v:.2f}" for k, v in (("name", evidence.name_clause), ("sentence name", evidence.name_sentence),
                                          ("reference", evidence.ref), ("only one", evidence.unique),
                                          ("meaning", evidence.sim)) if v]
    return f"score {score:.2f} ({', '.join(parts) or 'no evidence'})"


def with_sim(evidence: Evidence, sim: float) -> Evidence:
    """``evidence`` with its meaning set."""
    return replace(evidence, sim=sim)


def gender_of(subject: str, facts: Sequence[Fact]) -> str:
    """``f``, ``m`` or ``x``: from the relation word that names ``subject`` (itself, or ``user <rel>_name``)."""
    if subject in RELATIONS:
        return RELATIONS[subject].gender
    for f in facts:
        if f.subject == "user" and f.predicate.endswith("_name") and f.object.lower() == subject:
            rel = f.predicate[: -len("_name")].replace("_", " ")
            if rel in RELATIONS:
                return RELATIONS[rel].gender
    return "x"
