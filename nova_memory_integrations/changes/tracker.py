"""The change planner in consolidation: one user episode -> its :class:`~.planner.ChangePlan`.

:class:`ChangeTracker` is what the consolidator holds. For each user episode of a deterministic
batch, once the extractor's own statements of that episode are applied, it reads the user's facts
holding at the episode's time (only when a cue fired: most turns cost one regex pass) and plans;
the consolidator applies the plan in the batch's transaction. Meaning is the store's embedder
(already loaded), asked only when a cue fired, candidates exist and names or references do not
decide.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any

import numpy as np

from .._once import WarnOnce
from .._time import to_epoch
from ..embeddings.base import embedding_space
from ..errors import ConfigError, EmbeddingError
from ..storage.sqlite import SQLiteStore
from ..text.known_names import value_names
from ..types import Episode, Fact
from .births import births, may_tell_a_birth
from .clause_reader import ClauseReader, shipped
from .contrasts import contrasted, may_contrast
from .corrections import Correction
from .displaced import ONE_AT_A_TIME, displaced
from .fallback import may_mean_an_ending, meant_endings
from .lapsed import Lapsed, lapsed, predecessor
from .lexicon import STOPWORDS
from .named_states import named_states, same_kind
from .place_states import LIVES_IN, place_states
from .planner import ChangePlan, Ending, held_facts, pending, plan_changes
from .replacements import NewValue
from .scheduled import may_schedule, scheduled_endings
from .segments import words
from .state_reading import StateCandidate, state_candidates
from .states import OPEN_PREDICATE, OpenState, open_states
from .supersede import Superseded, kind_successors, may_supersede, superseded
from .targets import fact_info, name_evidence
from .thing_finder import ThingFinder
from .thing_finder import shipped as shipped_finder

__all__ = ["FOUND_STATE_PROBABILITY", "RECENT_TURNS", "SAME_STATE_COSINE", "STATE_PROBABILITY", "ChangeTracker"]

_EPSILON = timedelta(milliseconds=1)
_WARN = WarnOnce(logging.getLogger(__name__),
                 "nova-memory: the clause reader is off (%s); the prototypes alone read endings")
_WARN_FINDER = WarnOnce(logging.getLogger(__name__),
                        "nova-memory: the thing finder is off (%s); only names and 'my <thing>' are read for states")
STATE_PROBABILITY = 0.6
"""Lowest probability of ``state`` (the clause reader) at which a clause no rule read adds a state told in passing."""
FOUND_STATE_PROBABILITY = 0.6
"""The same for a clause whose thing the thing finder named (no shape did)."""
RECENT_TURNS = 40
"""How many of the user's turns before a change are read for what it replaced (:meth:`ChangeTracker.predecessors`)."""
SAME_STATE_COSINE = 0.8
"""Cosine (MiniLM) of two clauses at or above which a newly told open state is one already held
(reinforced, not added): "I sing in a choir" then "choir practice with my choir in the church"."""


class ChangeTracker:
    """Plans the endings and corrections of user episodes against one store's facts.

    Args:
        db: the store's SQLite (facts are read through its user-scoped methods).
        embedder: anything with ``embed_documents`` (``embed_cached`` is used when present);
            ``None``: meaning is not used.
    """

    def __init__(self, db: SQLiteStore, embedder: Any | None = None) -> None:
        self.db = db
        self.embedder = embedder

    def plan(
        self, user_id: str, episode: Episode, *, handled: Sequence[str] = (), stated: Sequence[str] = (),
        displacing: Sequence[str] = (),
    ) -> ChangePlan:
        """The plan for one episode (empty for other roles and for turns without a pending cue).

        ``handled``: the sentences in which the extractor's own statements already ended or replaced
        a fact (:func:`~.planner.pending`); ``stated``: the fact versions those statements wrote;
        ``displacing``: those of them whose predicate is one of :data:`~.displaced.ONE_AT_A_TIME`. Open
        states those new facts displace (:func:`~.displaced.displaced`) are ended with the plan's own.
        """
        if episode.role != "user" or not episode.content:
            return ChangePlan()
        plan = self._plan(user_id, episode, handled=handled, stated=stated)
        ended = {e.fact.id for e in plan.endings}
        extra = [e for e in self._displaced(user_id, episode, displacing) if e.fact.id not in ended]
        birth, ahead = may_tell_a_birth(episode.content), may_schedule(episode.content)
        holding = self._holding(user_id, episode.timestamp) if birth or ahead else []  # read once, only then
        born = births(episode.content, holding, episode.timestamp) if birth else None
        if born is not None:
            extra += [e for e in born.endings if e.fact.id not in ended]
            plan = replace(plan, new_values=plan.new_values + born.children)
        if ahead:  # "last day is Friday the 29th": held until then
            infos, _ = held_facts(holding, at=episode.timestamp, episode_id="")
            extra += [e for e in scheduled_endings(episode.content, infos, episode.timestamp) if e.fact.id not in ended]
        return replace(plan, endings=plan.endings + tuple(extra)) if extra else plan

    def _holding(self, user_id: str, at: datetime) -> list[Fact]:
        """The user's believed facts valid at ``at``."""
        return [f for f in self.db.current_facts(user_id, valid_after=to_epoch(at - _EPSILON)) if f.valid_from <= at]

    def _displaced(self, user_id: str, episode: Episode, displacing: Sequence[str]) -> list[Ending]:
        """The open states the facts this episode newly stated end (``displacing``, read by id, then the open
        states of their subjects)."""
        if not displacing:
            return []
        new = [f for f in self.db.select_facts(user_id, ids=list(displacing))
               if f.predicate in ONE_AT_A_TIME and f.valid_to is None and f.provenance[:1] == (episode.id,)]
        held = [f for subject in {f.subject for f in new}
                for f in self.db.current_facts(user_id, subject=subject, predicate=OPEN_PREDICATE)]
        return displaced(new, held) if held else []

    def _plan(
        self, user_id: str, episode: Episode, *, handled: Sequence[str], stated: Sequence[str],
    ) -> ChangePlan:
        cued = pending(episode.content, handled)
        news = may_supersede(episode.content)
        mistake = may_contrast(episode.content)
        if not cued and not news and not mistake and (self.embedder is None or
                                                      not may_mean_an_ending(episode.content)):
            return ChangePlan()
        at = episode.timestamp
        # believed facts still valid at `at`, those this very episode closed at `at` (correctable), and
        # those it stated (whatever their time)
        facts = self._holding(user_id, at)
        seen = {f.id for f in facts}
        facts += [f for f in self.db.select_facts(user_id, ids=list(stated)) if f.id not in seen]
        similarity = self.similarity if self.embedder is not None else None
        plan = plan_changes(episode.content, at=at, episode_id=episode.id, facts=facts, handled=handled,
                            similarity=similarity) if cued else ChangePlan()
        if any(n.replaces is None for n in plan.new_values):  # a told value the store holds at another time
            plan = replace(plan, new_values=tuple(n for n in plan.new_values if n.replaces is not None
                                                  or not self._holds(user_id, n.subject, n.object)))
        if plan.unheld:
            plan = replace(plan, lapsed=self.lapsed(user_id, plan, episode, facts))
        if any(n.replaces is None and n.subject == "user" for n in plan.new_values):
            plan = replace(plan, lapsed=plan.lapsed + self.predecessors(user_id, plan, facts))
        infos, known = held_facts(facts, at=at, episode_id=episode.id)
        if mistake:
            plan = _with_contrasts(plan, contrasted(episode.content, infos))
        if news:
            plan = _with_superseded(plan, [*superseded(episode.content, infos, known, at),
                                           *kind_successors(episode.content, infos, at)])
        plan = _with_same_kind(plan, facts)
        if cued:
            plan = _with_successors(plan, episode.content, facts, at)
        if similarity is None:
            return plan
        meant = meant_endings(episode.content, infos=infos, known=known, similarity=similarity,
                              read=self.read_clauses if self.reader is not None else None,
                              ended={e.fact.id for e in plan.endings}, handled=handled)
        if not meant:
            return plan
        return replace(plan, embedded=True, endings=plan.endings + tuple(
            Ending(m.info.fact, at, "meaning", m.why) for m in meant))

    def open_states(
        self, user_id: str, episode: Episode, *, covered: Sequence[str] = (), read: Sequence[str] = (),
        changed: Sequence[str] = (),
    ) -> list[tuple[OpenState, Fact | None]]:
        """The open states one user episode tells (:func:`~.states.open_states`), each with the held
        open fact it repeats (to reinforce) or ``None`` (to add); a state whose value another fact of
        its subject already holds is left out (the specific fact says it), and so is a known thing's name
        whose fact this episode's changes ended or wrote (``changed``: those fact versions' ids)."""
        if episode.role != "user" or not episode.content:
            return []
        found = open_states(episode.content, covered=tuple(covered), read=tuple(read))
        passing = self.read_states(episode.content, taken=(*read, *(s.clause for s in found)),
                                   covered=(*covered, *(s.value for s in found)), user_id=user_id)
        if passing and changed:  # the thing this episode ended or changed is not told anew by it
            gone = [_content(f.object) for f in self.db.select_facts(user_id, ids=list(changed))]
            passing = [s for s in passing if not any(_content(s.value) & words for words in gone)]
        found += passing
        named = named_states(episode.content, covered=tuple(covered))
        for place in place_states(episode.content):  # a home told in passing, only where none is held yet
            homes = [f.object.lower() for f in self.db.current_facts(user_id, subject=place.subject,
                                                                      predicate=LIVES_IN)]
            if not homes or place.value.lower() in homes:
                named.append(place)
        if named and changed:
            ended = [_named_by(f.object) for f in self.db.select_facts(user_id, ids=list(changed))]
            named = [s for s in named if not any(_named_by(s.value) & words for words in ended)]
        # one thing read twice: the known name's whole ("British Gas") over a shape's part of it ("Gas")
        found = [s for s in found if not any(s.value.lower() in n.value.lower() for n in named)]
        found += [n for n in named if not any(n.value.lower() in s.value.lower() for s in found)]
        out: list[tuple[OpenState, Fact | None]] = []
        held: dict[str, list[Fact]] = {}
        for state in found:
            facts = held.setdefault(state.subject, self.db.current_facts(user_id, subject=state.subject))
            value = state.value.lower()
            same = [f for f in facts
                    if _content(f.object) & _content(value) or _model_words(f.object) & _model_words(value)]
            if same:
                own = [f for f in same if f.predicate == state.predicate]
                if own:
                    out.append((state, own[0]))
                continue
            opens = [f for f in facts if f.predicate == OPEN_PREDICATE]
            if opens and self.embedder is not None and state.predicate == OPEN_PREDICATE:
                cosines = self.similarity(state.clause, [_clause_of(f) for f in opens])
                best = max(range(len(opens)), key=cosines.__getitem__)
                if cosines[best] >= SAME_STATE_COSINE:
                    out.append((state, opens[best]))
                    continue
            out.append((state, None))
        return out

    def touched(self, user_id: str, episodes: Sequence[Episode], related: Sequence[Fact], limit: int) -> list[Fact]:
        """``related`` (an LLM batch's context facts) with the current facts the batch's change cues and
        corrections may be about put first, so the model can answer UPDATE / DELETE against them.

        At most ``max(limit, number touched)`` facts; nothing is read for a batch without a cue.
        """
        pending_ones = [e for e in episodes if e.role == "user" and e.content and pending(e.content)]
        if not pending_ones:
            return list(related)
        latest = max(e.timestamp for e in pending_ones)
        facts = [f for f in self.db.current_facts(user_id, valid_after=(to_epoch(min(
            e.timestamp for e in pending_ones)) or 0.0) - 1e-3) if f.valid_from <= latest]
        found: dict[str, Fact] = {}
        for e in pending_ones:
            now = [f for f in facts
                   if f.valid_from <= e.timestamp and (f.valid_to is None or f.valid_to >= e.timestamp)]
            plan = plan_changes(e.content, at=e.timestamp, episode_id=e.id, facts=now)
            found.update((f.id, f) for f in plan.touched)
        if not found:
            return list(related)
        rest = [f for f in related if f.id not in found]
        return [*found.values(), *rest][: max(limit, len(found))]

    def lapsed(self, user_id: str, plan: ChangePlan, episode: Episode, facts: Sequence[Fact]) -> tuple[Lapsed, ...]:
        """What the cues of ``plan`` that ended nothing held end (:mod:`.lapsed`): a thing a word of their clause
        names in an earlier turn of the user, held from that turn until the change; never a value the subject
        holds (``facts``: those holding at the episode's time and those it stated) or held at another time (read
        only for a state found: "no longer at Initech" after Globex replaced it has nothing to add), nor one the
        plan tells as new."""
        told = {n.object.lower() for n in plan.new_values}
        out: dict[tuple[str, str], Lapsed] = {}
        for item in plan.unheld:
            held = [f.object.lower() for f in facts if f.subject == item.subject]
            before = to_epoch(min(item.at, episode.timestamp)) or 0.0
            for word in item.words:
                if any(word in h for h in held):
                    continue
                for turn in self.db.user_turns_naming(user_id, word, before=before):
                    found = lapsed(item, word, turn.content, turn.timestamp, turn.id)
                    if found is not None and found.object.lower() not in told:
                        ever = self.db.current_facts(user_id, subject=found.subject)
                        if not any(word in f.object.lower() for f in ever):
                            out.setdefault((found.subject, found.object.lower()), found)
                        break
        return tuple(out.values())

    def predecessors(self, user_id: str, plan: ChangePlan, facts: Sequence[Fact]) -> tuple[Lapsed, ...]:
        """What a change that told its new value alone replaced ("moved to giffgaff" after "O2 want £42 a month
        to keep me"): the one other known thing of the value's kind that the user's last :data:`RECENT_TURNS`
        turns name (:func:`~.lapsed.predecessor`), held from the first turn naming it until the change; none
        when the user holds a thing of that kind (``facts``) or ever held that name, or the turns name several."""
        out: list[Lapsed] = []
        held = {k for f in facts if f.subject == "user" for h in value_names(f.object) for k in h.kinds}
        taken = {x.object.lower() for x in plan.lapsed}
        ever: list[str] | None = None
        for new in plan.new_values:
            if new.replaces is not None or new.subject != "user" or not (kinds := {
                    k for h in value_names(new.object)[:1] for k in h.kinds}) or kinds & held:
                continue
            before = to_epoch(new.at) or 0.0
            named: dict[str, str] = {}
            for turn in self.db.user_turns_before(user_id, before=before, limit=RECENT_TURNS):
                found = predecessor(new.object, turn.content)
                if found is not None:
                    named.setdefault(found.lower(), found)
            if len(named) != 1:
                continue
            name = next(iter(named.values()))
            first = [] if name.lower() in taken else self.db.user_turns_naming(user_id, name.lower(), before=before,
                                                                                limit=1)
            if ever is None and first:  # the user's facts of any time, read once, only for a name found
                ever = [f.object.lower() for f in self.db.current_facts(user_id, subject="user")]
            if not first or any(name.lower() in obj for obj in ever or ()):
                continue
            out.append(Lapsed("user", OPEN_PREDICATE, name, first[0].timestamp, first[0].id, new.at, new.cue))
        return tuple(out)

    def _holds(self, user_id: str, subject: str, value: str) -> bool:
        """Whether a fact ``subject`` holds now (at any valid time) names ``value``: a change's new value the
        store already has ("moved to Berlin" when Berlin was learnt from a later-dated message) is no news."""
        said = words(value)
        return any(name_evidence(fact_info(f), said) >= 0.8 for f in self.db.current_facts(user_id, subject=subject))

    def read_states(
        self, text: str, *, taken: Sequence[str], covered: Sequence[str], user_id: str | None = None,
    ) -> list[OpenState]:
        """The states ``text`` tells only in passing, the user's or a person's in their life
        (:mod:`.state_reading`'s candidates the clause reader reads as ``state`` with probability
        :data:`STATE_PROBABILITY` or more), each valued by the thing it names; none without a reader, none whose
        thing a rule already stated (``covered``). A clause with a bare name first is that person's only when the
        store holds facts of them for ``user_id`` (a capitalised word with a verb may be a shop as well as a
        friend), else the user's."""
        if self.reader is None:
            return []
        candidates = state_candidates(text, taken=tuple(taken), covered=tuple(covered),
                                      find=self.find_things if self.finder is not None else None)
        if not candidates:
            return []
        whose = [c.subject if c.known else self._person(user_id, c) for c in candidates]
        readings = self.read_clauses([c.masked for c in candidates])
        return [OpenState(who, c.thing, c.clause, found=c.found)
                for c, who, r in zip(candidates, whose, readings, strict=True)
                if who and r["state"] >= (FOUND_STATE_PROBABILITY if c.found else STATE_PROBABILITY)]

    def _person(self, user_id: str | None, candidate: StateCandidate) -> str | None:
        """Whose state a clause with a bare name first tells: that person's when the store holds facts of them
        for ``user_id`` (``None`` if the thing is one of the user's: "Dougie borrowed my drill"), else the
        user's ("Netflix keeps buffering on the Roku": a thing as subject, the user's thing)."""
        if user_id is None or not self.db.current_facts(user_id, subject=candidate.subject):
            return "user"
        return candidate.subject if not candidate.thing[:1].islower() else None

    @cached_property
    def reader(self) -> ClauseReader | None:
        """The shipped clause reader when the store embeds in the space it was trained in (the packaged
        MiniLM), else ``None``: another model's vectors mean nothing to its weights, so the fallback's
        prototypes alone decide for that store (as they do, after one warning, if the weights are unreadable).
        Looked at once, on first use."""
        if self.embedder is None:
            return None
        try:
            reader = shipped()
        except ConfigError as exc:
            _WARN(exc)
            return None
        return reader if embedding_space(self.embedder) == reader.space else None

    @cached_property
    def finder(self) -> ThingFinder | None:
        """The shipped thing finder when the store embeds with the packaged MiniLM through a model that gives
        token outputs (the ONNX one), else ``None``: the shapes of :mod:`.state_reading` alone name things then
        (as they do, after one warning, if the weights are unreadable). Looked at once, on first use."""
        if self.reader is None or not callable(getattr(self._inner, "embed_tokens", None)):
            return None
        try:
            finder = shipped_finder()
        except ConfigError as exc:
            _WARN_FINDER(exc)
            return None
        return finder if embedding_space(self.embedder) == finder.space else None

    @property
    def _inner(self) -> Any:
        """The store's embedding model (looked through its cache)."""
        return getattr(self.embedder, "inner", self.embedder)

    def find_things(self, clauses: list[str]) -> list[str | None]:
        """Per clause, the words the thing finder reads as naming a state (``None``: none); every clause's
        ``None`` when the model gives no token outputs after all (the torch fallback runs)."""
        assert self.finder is not None
        try:
            found = self.finder.find(clauses, self._inner.embed_tokens)
        except EmbeddingError as exc:
            _WARN_FINDER(exc)
            self.__dict__["finder"] = None
            return [None] * len(clauses)
        return [f.text if f is not None else None for f in found]

    @property
    def _embed(self) -> Any:
        """The store's embedder's batch call (``embed_cached`` when it has one)."""
        return getattr(self.embedder, "embed_cached", None) or self.embedder.embed_documents  # type: ignore[union-attr]

    def read_clauses(self, texts: list[str]) -> list[dict[str, float]]:
        """The clause reader's probabilities for ``texts``, embedded in one call of the store's embedder."""
        assert self.reader is not None
        return self.reader.read(texts, self._embed)

    def similarity(self, clause: str, texts: Sequence[str]) -> list[float]:
        """Cosine of ``clause`` and each of ``texts`` under the store's embedder."""
        vectors = np.asarray(self._embed([clause, *texts]), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        unit = vectors / norms[:, None]
        return [float(x) for x in unit[1:] @ unit[0]]


def _with_contrasts(plan: ChangePlan, found: Sequence[Correction]) -> ChangePlan:
    """``plan`` with the corrections by contrast (:mod:`.contrasts`) of facts it neither corrects nor ends otherwise;
    a value it corrects is no longer ended or replaced by the plan."""
    done = {c.fact.fact.lineage_id for c in plan.corrections}
    found = [c for c in found if c.fact.fact.lineage_id not in done]
    if not found:
        return plan
    fixed = {c.fact.fact.id for c in found}
    return replace(plan, corrections=plan.corrections + tuple(found),
                   endings=tuple(e for e in plan.endings if e.fact.id not in fixed),
                   new_values=tuple(n for n in plan.new_values if n.replaces is None or n.replaces.id not in fixed))


def _with_superseded(plan: ChangePlan, found: Sequence[Superseded]) -> ChangePlan:
    """``plan`` with the new values told by time alone (:mod:`.supersede`) and the ending of what each replaces,
    where the plan itself neither ended that fact nor gave its slot a value."""
    ended = {e.fact.id for e in plan.endings}
    slots = {(n.subject, n.predicate) for n in plan.new_values if n.replaces is not None}
    found = [s for s in found if s.old.fact.id not in ended and (s.new.subject, s.new.predicate) not in slots]
    if not found:
        return plan
    return replace(plan, endings=plan.endings + tuple(
        Ending(s.old.fact, s.new.at, s.new.cue, f"its new value {s.new.object!r} is told") for s in found),
        new_values=plan.new_values + tuple(s.new for s in found))


def _with_same_kind(plan: ChangePlan, facts: Sequence[Fact]) -> ChangePlan:
    """``plan`` with each new value told without what it replaces made the successor of the one held thing of its
    known kind (:func:`.named_states.same_kind`: "ported my number to giffgaff" replaces the held network), that
    thing ended when the new value starts."""
    ended = {e.fact.id for e in plan.endings}
    values: list[NewValue] = []
    endings: list[Ending] = []
    wrong: set[str] = set()  # a fact the cue replaced though the new value's known kind is another's
    for n in plan.new_values:
        held = [f for f in facts if f.subject == n.subject and f.valid_to is None and f.id not in ended
                and (n.replaces is None or f.id != n.replaces.id)]
        found = same_kind(n.object, [(f.id, f.object) for f in held])
        if found is None:
            values.append(n)
            continue
        if n.replaces is not None:  # "Moved over to Octopus": the supplier held, not the "2 bed terrace"
            wrong.add(n.replaces.id)
        old = next(f for f in held if f.id == found[0])
        values.append(NewValue(old, found[1], n.at, n.cue))
        endings.append(Ending(old, n.at, n.cue, f"its new value {found[1]!r} is of the same kind"))
        ended.add(old.id)
    if not endings:
        return plan
    kept = tuple(e for e in plan.endings if e.fact.id not in wrong)
    return replace(plan, endings=kept + tuple(endings), new_values=tuple(values))


def _with_successors(plan: ChangePlan, text: str, facts: Sequence[Fact], at: Any) -> ChangePlan:
    """``plan`` with the known things a change message tells someone now has (:func:`.named_states.named_states`
    read in its change sentences too: the user's, or a person's, "my wife picked up her Tesla and the Qashqai went
    in part-ex") made the successors of the one held thing of their kind of that subject, when that
    thing is part of the change: ended by the plan, or named in the message ("ported my number to giffgaff,
    vodafone can do one"; "come off the metformin, she's put me on gliclazide"). A specific value first
    ("Pixel 8" over "android"); never one the plan already tells or a thing it already replaced."""
    told = named_states(text, changes=True) if not plan.corrections else []
    if not told:
        return plan  # a correction retracts what it corrects: nothing succeeds it
    ended = {e.fact.id for e in plan.endings}
    replaced = {n.replaces.id for n in plan.new_values if n.replaces is not None}
    values = {n.object.lower() for n in plan.new_values}
    held = [f for f in facts if f.valid_to is None and f.id not in replaced]
    gone = [_content(f.object) for f in facts if f.id in ended | replaced]
    gone += [set(u.object) for u in plan.unheld]  # what a cue that ended nothing held ended: "sold my old PS4"
    told = [s for s in told if not any(_named_by(s.value) & words for words in gone)]
    low = text.lower()
    new_values: list[NewValue] = []
    endings: list[Ending] = []
    for state in sorted(told, key=lambda s: (not any(c.isdigit() for c in s.value), -len(s.value.split()))):
        found = same_kind(state.value, [(f.id, f.object) for f in held if f.subject == state.subject]) \
            if state.value.lower() not in values else None
        if found is None:
            continue
        old = next(f for f in held if f.id == found[0])
        if old.id not in ended and not any(h.text.lower() in low for h in value_names(old.object)):
            continue  # the held thing is no part of this change
        held = [f for f in held if f.id != old.id]
        new_values.append(NewValue(old, found[1], at, "successor"))
        if old.id not in ended:
            endings.append(Ending(old, at, "successor", f"{found[1]!r}, of its kind, is told instead"))
    if not new_values:
        return plan
    return replace(plan, endings=plan.endings + tuple(endings), new_values=plan.new_values + tuple(new_values))


def _clause_of(fact: Fact) -> str:
    """The clause an open fact was read from (its metadata), else its value."""
    meta = fact.metadata or {}
    return str(meta.get("clause") or meta.get("source_text") or fact.object)


def _model_words(text: str) -> set[str]:
    """The words of a value with a digit in them ("s23", "td-17"): a short model name repeats a known thing
    ("my s23" is the "Samsung Galaxy S23" held) though it has no content word of four letters."""
    return {w for w in re.findall(r"[a-z0-9][a-z0-9+-]*", text.lower()) if any(c.isdigit() for c in w)
            and any(c.isalpha() for c in w)}


def _named_by(value: str) -> set[str]:
    """What names a value: its content words (:func:`_content`) and the whole of it, lower-cased (a short name
    has no content word of four letters: "O2")."""
    return _content(value) | {value.lower()}


def _content(text: str) -> set[str]:
    """The content words of a value, crudely singular ("espressos" -> "espresso") and without a possessive
    ("Fiesta's" -> "fiesta"): two values that share one name the same thing ("two espressos a day", "2 espressos")."""
    return {w.removesuffix("'s").removesuffix("s") for w in re.findall(r"[a-z0-9][a-z0-9'+-]*", text.lower())
            if len(w) >= 4 and w not in STOPWORDS}
