"""The change planner (pure): one user message and the facts current at its time -> what it ends or corrects.

Detect, then resolve: :mod:`.cues` finds that a state ended or changed, :mod:`.guards` drops what is
not the user's change now (questions, denials, plans, memories, someone else's words) and names the
actor, :mod:`.targets` finds which current fact the clause is about, :mod:`.corrections` finds values
the user takes back. Nothing here reads storage or a clock; meaning comes from an optional
``similarity(clause, texts) -> cosines`` callable, called only when a cue fired, candidates exist and
the structural evidence does not decide.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from ..memory.temporal import expiry_ahead
from ..text.dates import resolve_relative_time
from ..types import Fact
from .corrections import Correction, find_corrections
from .cues import CueHit, find_corrections_cues, find_cues, has_cue
from .evidence import Message, evidence_for
from .guards import Actor, Known, check, find_actor
from .lapsed import Lapsed, Unheld, unheld
from .lexicon import ANY, ROLE_PREDICATES, STOPWORDS
from .meaning import MIN_CLAUSE_WORDS, VALUE_COSINE, Similarity, another_model, meaning_text, resolve
from .reading import (
    destination,
    goes_on,
    object_place,
    object_words,
)
from .replacements import NewValue, after_handled, clean_value, new_value, successors, told_value, without_repeats
from .segments import Sentence, normalize_text, segment, words
from .slots import origin_facts, same_slot, slot_choice
from .targets import (
    THRESHOLD,
    Evidence,
    FactInfo,
    category_fit,
    choose,
    describe,
    fact_info,
    fits_of,
    gender_of,
    name_evidence,
    rescale_similarity,
    separate_lists,
    target_score,
    with_sim,
)

__all__ = ["ChangePlan", "Ending", "Guarded", "Similarity", "held_facts", "pending", "plan_changes"]

_LONG_BEFORE = timedelta(days=365)
"""How long before a held state's start (when it was learnt) an ending may be dated and still be its ending ("moved
from York in May" told late), but not years back ("sold it in 2006" of a car first mentioned in 2023)."""

MAX_SIMILAR = 24
"""At most this many candidates are embedded for one cue."""
SMALL_POOL = 6
"""Meaning is asked with structural evidence, or among at most this many states of the cue's own categories."""

_PART = re.compile(r"[,;—–]|\bbut\b|\bthough\b", re.IGNORECASE)
_ENDS_IN_PREPOSITION = re.compile(r"\b(?:to|for|with|from|of|on|at|in|into)$", re.IGNORECASE)
_TO_ME = re.compile(r"\bme\b", re.IGNORECASE)  # the speaker as the object inside a cue's words ("let *me* go")
_OBJECT_PERSON = re.compile(r"\s*(?P<who>(?:my|our)\s+[\w-]+(?:\s+(?-i:[A-Z])[\w-]+)?|[A-Z][\w-]+)", re.IGNORECASE)
_REPLACEMENT_HINT = re.compile(r"\b(?:instead|now|to|for|into)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Ending:
    """End ``fact`` in valid time at ``at`` (the clause's time), because of ``cue``."""

    fact: Fact
    at: datetime
    cue: str
    why: str

    @property
    def reason(self) -> str:
        """The decision's reason."""
        return f"ended: cue {self.cue!r}, {self.why}"


@dataclass(frozen=True)
class Guarded:
    """A cue the guard layer kept from ending anything."""

    cue: str
    guard: str
    reason: str


@dataclass(frozen=True)
class ChangePlan:
    """What one message changes: facts it ends, values it corrects, cues it guarded."""

    endings: tuple[Ending, ...] = ()
    corrections: tuple[Correction, ...] = ()
    guarded: tuple[Guarded, ...] = ()
    embedded: bool = False
    """Whether meaning was computed (the similarity callable was called)."""
    touched: tuple[Fact, ...] = ()
    """Every fact an unguarded cue or a correction may be about, best first: what an LLM deciding
    UPDATE / DELETE itself must see (:meth:`~.tracker.ChangeTracker.touched`)."""
    new_values: tuple[NewValue, ...] = ()
    """What the message names as holding instead of a fact it ends (:mod:`.replacements`)."""
    unheld: tuple[Unheld, ...] = ()
    """Cues that ended nothing held, with their clauses' words; ``lapsed``: what the tracker found they end."""
    lapsed: tuple[Lapsed, ...] = ()

    @property
    def empty(self) -> bool:
        """Nothing to apply."""
        return not self.endings and not self.corrections and not self.new_values and not self.lapsed


def _known(facts: Sequence[Fact]) -> Known:
    people: dict[str, str] = {}
    for f in facts:
        if f.subject != "user":
            people.setdefault(f.subject.lower(), f.subject)
        if f.subject == "user" and f.predicate.endswith("_name") and f.predicate != "name":
            rel = f.predicate[: -len("_name")].replace("_", " ")
            name = f.object.lower().strip()
            people[rel] = people.get(name, name)
            people.setdefault(name, name)
    genders = {subject: gender_of(subject, facts) for subject in set(people.values())}
    return Known(people, genders)


def _person_before(msg: Message, pos: int, pronoun: str, facts: Sequence[Fact]) -> str | None:
    """The person a ``she``/``he`` at ``pos`` means: the last one named before it, else the most recent one."""
    gender = {"she": "f", "he": "m"}.get(pronoun, "x")
    fits = [s for s, g in msg.known.genders.items() if g in (gender, "x")]
    for w in reversed([w for w in msg.words if w.start < pos]):
        who = msg.known.people.get(w.low)
        if who is not None and who in fits:
            return who
    recent = sorted((f for f in facts if f.subject != "user" and f.subject in fits),
                    key=lambda f: (f.ingested_at, f.valid_from), reverse=True)
    return recent[0].subject if recent else None


def _scope(actor: Actor, msg: Message, hit: CueHit, facts: Sequence[Fact]) -> tuple[list[FactInfo], str | None]:
    """The facts a clause's actor can end, and the third party whose news it is (if any)."""
    infos = msg.infos
    person: str | None = None
    if actor.kind in ("user", "implicit"):
        return [i for i in infos if i.fact.subject == "user" or i.fact.object.lower() == "user"], None
    if actor.kind == "pronoun" and actor.name in ("she", "he"):
        person = _person_before(msg, hit.start, actor.name, facts)
        if person is None:
            return [], None
    elif actor.kind == "third":
        person = actor.name
    elif actor.kind == "thing" and actor.owner:
        return [i for i in infos if i.fact.subject == actor.owner], actor.owner
    if person is not None:
        return [i for i in infos if i.fact.subject == person or (i.category == "relationship" and i.person == person
                                                                 and i.fact.subject != "user")
                or (i.person == person and i.fact.subject == "user" and i.category == "relationship")], person
    return list(infos), None


def _affirmed(msg: Message) -> set[str]:
    """Facts a part of the message says go on: named in a comma- or "but"-separated part that holds "still",
    "kept", "survives" ("I quit my other job, *still at Aldi* though")."""
    out: set[str] = set()
    for sentence in msg.sentences:
        bounds = [sentence.start, *(m.end() for m in _PART.finditer(msg.text, sentence.start, sentence.end)),
                  sentence.end]
        for lo, hi in itertools.pairwise(bounds):
            told = goes_on([w for w in msg.words if lo <= w.start < hi])
            out.update(i.fact.id for i in msg.infos if told and name_evidence(i, told) >= 0.8)
    return out


def _object_person(msg: Message, hit: CueHit) -> Actor | None:
    """The person a cue is done to, when its object is one ("Aldi sacked *my manager*", "dumped *Tom*"): the
    news is theirs (their job, their relationship with the user), not the user's own state."""
    if _ENDS_IN_PREPOSITION.search(msg.text, hit.start, hit.end) and not hit.cue.object_after:
        return None  # "passed the Pixel on *to* my dad": the person after it is who received it
    m = _OBJECT_PERSON.match(msg.text, hit.end)
    if m is None:
        return None
    who = m.group("who")
    if who[0].isupper() and who.lower() not in msg.known.people:
        return None  # a capitalised word not known as a person: a thing ("sold Bessie")
    found = find_actor(who, msg.known)
    return found if found.kind == "third" else None


def _person_has(msg: Message, hit: CueHit, actor: Actor) -> Actor:
    """A known person's "'s" right before the cue is "has" / "is", not a possessive: "*Dan's* transferred",
    "*Jo's* finally left" are news of Dan and Jo, not of a thing of theirs; else ``actor`` unchanged."""
    person = msg.known.people.get(actor.name) if actor.kind == "thing" and not actor.owner else None
    before = msg.text[msg.sentences[hit.sentence].start:hit.start]
    if person is None or not re.search(rf"\b{re.escape(actor.name)}'s\s+(?:(?:\w+ly|just|now|already|gone and)\s+)*$",
                                       before, re.IGNORECASE):
        return actor
    return Actor("third", name=person)


def _with_states(chosen: list[tuple[FactInfo, Evidence, float]],
                 scored: list[tuple[FactInfo, Evidence, float]]) -> list[tuple[FactInfo, Evidence, float]]:
    """The chosen facts and the other candidates of their states (a relationship stored both ways)."""
    states = {c[0].state for c in chosen}
    ids = {c[0].fact.id for c in chosen}
    return chosen + [s for s in scored if s[0].state in states and s[0].fact.id not in ids]


def _choose_for(msg: Message, hit: CueHit, scope: list[FactInfo], evidence: dict[str, Evidence],
                similarity: Similarity | None, hits: Sequence[CueHit] = (),
                ) -> tuple[list[tuple[FactInfo, Evidence, float]], bool]:
    cue = hit.cue
    span = msg.sentences[hit.sentence].clauses[hit.clause]  # what the cue's own object names fits it (fits_of)
    own = object_words(msg.text, hit, between := msg.between(span.start, span.end))
    own += object_place(msg.text, own, between)
    fits = fits_of(scope, cue.categories, {i.fact.id: name_evidence(i, own) for i in scope})
    pool = [i for i in scope if fits[i.fact.id] > 0 and (cue.ends_roles or i.fact.predicate not in ROLE_PREDICATES
                                                          or evidence[i.fact.id].explicit)]
    scored = [(i, evidence[i.fact.id], target_score(evidence[i.fact.id], fit=fits[i.fact.id], strength=cue.strength,
                                                    open_fact=i.open)) for i in pool]
    chosen = _with_states(choose(scored), scored)
    hinted = any(evidence[i.fact.id].structural > 0 for i in pool)
    specific = {i.state for i in pool if fits[i.fact.id] == 1.0}
    small = ANY not in cue.categories and 0 < len(specific) <= SMALL_POOL
    opens = any(i.open for i in pool)  # an open fact is found by meaning, never by its category
    if chosen or similarity is None or not pool:
        return chosen, False
    clause = msg.sentences[hit.sentence].clauses[hit.clause].text
    able = [i for i in pool if target_score(with_sim(evidence[i.fact.id], 1.0), fit=fits[i.fact.id],
                                            strength=cue.strength, open_fact=i.open) >= THRESHOLD]
    if not able or not (hinted or small or opens):  # meaning could lift none of them
        return _resolve(msg, hit, pool, fits, evidence, similarity, scored, hits, by_clause=False)
    ranked = sorted(able, key=lambda i: (-evidence[i.fact.id].structural, -fits[i.fact.id]))[:MAX_SIMILAR]
    cosines = similarity(clause, [i.text for i in ranked])
    sims = {i.fact.id: rescale_similarity(c, open_fact=i.open) for i, c in zip(ranked, cosines, strict=True)}
    scored = [(i, with_sim(evidence[i.fact.id], sims.get(i.fact.id, 0.0)),
               target_score(with_sim(evidence[i.fact.id], sims.get(i.fact.id, 0.0)), fit=fits[i.fact.id],
                            strength=cue.strength, open_fact=i.open)) for i in pool]
    found = choose(scored)
    if not found:
        return _resolve(msg, hit, pool, fits, evidence, similarity, scored, hits)
    return _with_states(found, scored), True


def _resolve(msg: Message, hit: CueHit, pool: list[FactInfo], fits: dict[str, float],
             evidence: dict[str, Evidence], similarity: Similarity, scored: list[tuple[FactInfo, Evidence, float]],
             hits: Sequence[CueHit], *, by_clause: bool = True,
             ) -> tuple[list[tuple[FactInfo, Evidence, float]], bool]:
    """Meaning as a resolver when structure decided nothing (:mod:`.meaning`): among the candidates of the
    cue's own categories, the one whose value is most like the new value the change names ("switched to VS
    Code": the editor held), else (``by_clause``: where meaning was asked before, a structural hint or a
    small pool) the one the clause clearly means."""
    clause = msg.sentences[hit.sentence].clauses[hit.clause].text  # "sold my old PS4" ends no PS5 by likeness
    candidates = [i for i in pool if i.category != "relationship" and not (  # a partner: by name, never likeness
        hit.cue.kind == "end" and another_model(i.fact.object, clause))][:MAX_SIMILAR]
    if hit.cue.needs_name or not candidates:
        return [], False
    value = new_value(msg.text, msg.sentences, msg.known, hit, [], hits)
    if value is not None:
        picked = resolve(candidates, similarity(value, [i.fact.object for i in candidates]), floor=VALUE_COSINE)
        if picked is not None:
            return _with_states([(picked, with_sim(evidence[picked.fact.id], 1.0), THRESHOLD)], scored), True
    if not by_clause:  # nothing structural to confirm, and no small pool: never a search of every fact
        return [], value is not None
    sentence = msg.sentences[hit.sentence]
    if len(clause.split()) < MIN_CLAUSE_WORDS:
        clause = sentence.text
    picked = resolve(candidates, similarity(clause, [meaning_text(i) for i in candidates]))
    if picked is None:
        return [], True
    ev = evidence[picked.fact.id]
    return _with_states([(picked, with_sim(ev, 1.0), THRESHOLD)], scored), True


def _tell(msg: Message, hit: CueHit, actor: Actor, person: str | None, hits: Sequence[CueHit],
          stated: Sequence[FactInfo], when: datetime, new_values: dict[tuple[str, str], NewValue]) -> None:
    """Add the new state a change that replaced nothing held names (:func:`~.replacements.told_value`), for
    the user or the person acting (never a thing or someone unknown)."""
    if actor.kind in ("thing", "indefinite") or (actor.kind == "pronoun" and person is None):
        return
    told = told_value(msg.text, msg.sentences, msg.known, hit, hits, person or "user", [*msg.infos, *stated], when)
    if told is not None:
        new_values.setdefault((told.subject, told.object.lower()), told)


def _plausible(hit: CueHit, scope: list[FactInfo], evidence: dict[str, Evidence]) -> list[FactInfo]:
    """The candidates a cue may be about: those with structural evidence, else the few states of its own
    categories (strongest first)."""
    fits = {i.fact.id: category_fit(i.category, hit.cue.categories) for i in scope}
    hinted = [i for i in scope if fits[i.fact.id] > 0 and evidence[i.fact.id].structural > 0]
    if not hinted and ANY not in hit.cue.categories:
        specific = [i for i in scope if fits[i.fact.id] == 1.0]
        hinted = specific if len({i.state for i in specific}) <= SMALL_POOL else []
    return sorted(hinted, key=lambda i: -evidence[i.fact.id].structural)


def _when(msg: Message, hit: CueHit, at: datetime) -> datetime:
    """When the ending holds: the clause's time when it is behind ("in May"), the day its sentence says the
    state runs out when that is ahead ("my desk runs out *on the 30th*": it holds until then), else ``at``."""
    sentence = msg.sentences[hit.sentence]
    found = resolve_relative_time(sentence.clauses[hit.clause].text, at)
    if found is not None and found <= at:
        return found
    return expiry_ahead(sentence.text, at) or at


def _handled(sentence: Sentence, handled: Sequence[str]) -> bool:
    body = sentence.text.strip(" .!?")
    return bool(body) and any(body in h or h in body for h in handled if h)


def pending(text: str, handled: Sequence[str] = ()) -> bool:
    """Whether a message holds a correction cue, or a change cue outside the sentences ``handled``
    (where the extractor itself already ended or replaced something): the test run before any fact is read."""
    norm = normalize_text(text)
    if not has_cue(norm):
        return False
    sentences = segment(norm)
    if find_corrections_cues(norm, sentences):
        return True
    marks = [normalize_text(h).strip(" .!?") for h in handled]
    return any(not _handled(sentences[h.sentence], marks) or _names_a_new_value(norm, sentences, h)
               for h in find_cues(norm, sentences))


def _names_a_new_value(text: str, sentences: list[Sentence], hit: CueHit) -> bool:
    """Whether a cue in a sentence the extractor already handled may name what holds instead (a change's
    destination, "instead", "now"): the planner then reads it for the new value only."""
    end = sentences[hit.sentence + 1].end if hit.sentence + 1 < len(sentences) else sentences[hit.sentence].end
    return hit.cue.kind == "change" or _REPLACEMENT_HINT.search(text, hit.end, end) is not None


def _not_stated_by(facts: Sequence[Fact], episode_id: str) -> list[Fact]:
    return [f for f in facts if not f.provenance or f.provenance[0] != episode_id]


def held_facts(facts: Sequence[Fact], *, at: datetime, episode_id: str) -> tuple[list[FactInfo], Known]:
    """The candidates a message said at ``at`` may end (facts holding then, not first stated by the
    message itself; the items of a list each a state of its own) and the people ``facts`` name."""
    open_now = [f for f in _not_stated_by(facts, episode_id)
                if f.valid_from <= at and (f.valid_to is None or f.valid_to > at)]
    return separate_lists([fact_info(f) for f in open_now]), _known(facts)


def plan_changes(
    text: str, *, at: datetime, episode_id: str, facts: Sequence[Fact], similarity: Similarity | None = None,
    handled: Sequence[str] = (),
) -> ChangePlan:
    """What a user message ends or corrects among ``facts``.

    Args:
        text: the message.
        at: when it was said (timezone-aware); relative times ("in June") resolve against it.
        episode_id: its episode (facts first stated by it are never its targets).
        facts: the user's believed facts holding at ``at`` (a fact that this very message closed at
            ``at`` may be corrected, not ended), and those the message itself stated, whatever their time.
        similarity: cosine of a clause and fact texts; ``None``: meaning is not used.
        handled: sentences in which the extractor already ended or replaced a fact: their change
            cues are not read again (corrections still are).
    """
    norm = normalize_text(text)
    if not has_cue(norm):
        return ChangePlan()
    sentences = segment(norm)
    marks = [normalize_text(h).strip(" .!?") for h in handled]
    own = _not_stated_by(facts, episode_id)
    # the message's own statements that the store kept as history (learnt after a newer value): for those
    # categories the message's change is older than what is held now, so it ends nothing current
    dated = {fact_info(f).category for f in facts if f.provenance and f.provenance[0] == episode_id
             and f.valid_to is not None and f.valid_to <= at}
    infos, known = held_facts(facts, at=at, episode_id=episode_id)
    stated = [fact_info(f) for f in facts if f.provenance and f.provenance[0] == episode_id and f.valid_to is None]
    msg = Message(norm, sentences, words(norm), infos, known)
    correctable = [fact_info(f) for f in own if f.valid_from < at and (f.valid_to is None or f.valid_to >= at)]
    if not find_corrections_cues(norm, sentences):
        correctable = []
    corrections, used = find_corrections(norm, sentences, find_corrections_cues(norm, sentences), correctable)
    found = [h for h in find_cues(norm, sentences) if h.sentence not in used]
    hits = [h for h in found if not _handled(sentences[h.sentence], marks)]
    new_values = after_handled(norm, sentences, msg.known, msg.infos, [h for h in found if h not in hits], facts,
                               at)
    touched: dict[str, Fact] = {c.fact.fact.id: c.fact.fact for c in corrections}
    if not hits:
        return ChangePlan(corrections=tuple(corrections), touched=tuple(touched.values()),
                          new_values=tuple(new_values.values()))
    endings: dict[str, Ending] = {}
    affirmed = _affirmed(msg)
    guarded: list[Guarded] = []
    unheld_ones: list[Unheld | None] = []
    embedded = False
    for hit in hits:
        verdict = check(norm, sentences[hit.sentence], hit.clause, hit, msg.known)
        if verdict.guard is None and hit.cue.kind == "change" and dated & hit.cue.categories:
            verdict = replace(verdict, guard="older", reason="the new state is older than the one held")
        if verdict.guard is not None:
            guarded.append(Guarded(hit.cue.name, verdict.guard, verdict.reason))
            continue
        actor = _object_person(msg, hit) or _person_has(msg, hit, verdict.actor)
        if actor.kind != "user" and _TO_ME.search(msg.text, hit.start, hit.end):  # "they let me go", "the clinic
            actor = Actor("user")  # discharged me", "she's taken me off metformin": done to the speaker
        scope, person = _scope(actor, msg, hit, facts)
        when = _when(msg, hit, at)
        # an ending told of a time long before a state was even held is of something earlier ("my first car ...
        # sold it for £200 in 2006" ends no car held since 2023)
        scope = [i for i in scope if i.fact.valid_from - _LONG_BEFORE <= when]
        if not scope:  # nothing it could replace: its new value is still told
            _tell(msg, hit, actor, person, hits, stated, when, new_values)
            unheld_ones.append(unheld(msg.text, msg.sentences, hit, actor, person, when))
            continue
        if hit.cue.ends_actor and person is not None and actor.kind in ("third", "pronoun"):
            for info in scope:  # "Nan passed away": every state of hers ends
                if info.fact.subject == person and info.category != "relationship":
                    endings.setdefault(info.fact.id, Ending(info.fact, when, hit.cue.name, f"{person} died"))
            continue
        dest = destination(msg.text, msg.sentences, hit)
        origin, said = origin_facts(msg.text, msg.sentences, hit, dest, scope, msg.between) \
            if hit.cue.kind == "change" else ([], [])
        value = clean_value(msg.text[dest[0]:dest[1]]) if dest[1] > dest[0] else None
        if dest[1] > dest[0]:  # what the clause names as the new state is never the one that ended
            named = msg.between(*dest)
            again = {w.low for w in said} & {w.low for w in named} - STOPWORDS  # "from X to Y and back to X"
            origin = [i for i in origin if not again]
            held = [i for i in scope if name_evidence(i, named) >= 0.8 and i not in origin
                    and not (value and same_slot(value, i.fact.object))]  # "the fraud team" for the payments team
            if hit.cue.kind == "change" and any(category_fit(i.category, hit.cue.categories) == 1.0 for i in held):
                guarded.append(Guarded(hit.cue.name, "held", "the new state is already held: nothing changes"))
                continue
            scope = [i for i in scope if i not in held]
        scope = [i for i in scope if i.fact.id not in affirmed]
        evidence = evidence_for(msg, hit, actor, scope)
        touched.update((i.fact.id, i.fact) for i in _plausible(hit, scope, evidence))
        chosen, used_sim = _choose_for(msg, hit, scope, evidence, similarity, hits)
        if not chosen and hit.cue.kind == "change":
            chosen, slot_sim = slot_choice(value, scope, origin, similarity, stated)
            used_sim = used_sim or slot_sim
        embedded = embedded or used_sim
        states = {c[0].state for c in chosen}
        for info, ev, score in chosen:
            endings.setdefault(info.fact.id, Ending(info.fact, when, hit.cue.name, describe(info, ev, score)))
        value = new_value(msg.text, msg.sentences, msg.known, hit, [c[0] for c in chosen], hits) if chosen else None
        if not chosen:
            _tell(msg, hit, actor, person, hits, stated, when, new_values)
            unheld_ones.append(unheld(msg.text, msg.sentences, hit, actor, person, when))
        if value is not None:
            for info in successors([c[0] for c in chosen], value, msg.infos):
                new_values.setdefault((info.fact.subject, info.fact.predicate),
                                      NewValue(info.fact, value, when, hit.cue.name))
        for info in scope if hit.cue.ends_roles else ():  # retiring ends the whole job: employer and role
            if info.state in states and info.fact.id not in endings:
                endings[info.fact.id] = Ending(info.fact, when, hit.cue.name, "stated with the ended job")
    return ChangePlan(tuple(endings.values()), tuple(corrections), tuple(guarded), embedded, tuple(touched.values()),
                      without_repeats(new_values.values()), tuple(u for u in unheld_ones if u is not None))

