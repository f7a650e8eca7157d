"""What a message says about each candidate a cue may end (pure): the structural evidence of :mod:`.targets`.

:func:`evidence_for` reads, for one cue of a message, each candidate fact's name in the cue's clause and in its
sentence, a pronoun or a definite description that refers to it, and whether it is the actor's only state of
the cue's categories (:class:`~.targets.Evidence`). :class:`Message` is the message as the planner reads it:
its sentences, words, the facts held and the people known.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cues import CueHit
from .guards import Actor, Known
from .lexicon import ANY, STOPWORDS
from .reading import (
    ANOTHER,
    PRONOUNS,
    about_something_else,
    agent,
    destination,
    determiner,
    object_words,
    owner_of_next,
    subject_pronoun,
    thing_named_nothing,
)
from .segments import Sentence, Word
from .targets import Evidence, FactInfo, category_fit, describes, name_evidence

__all__ = ["Message", "antecedents", "evidence_for"]

_DEFINITE, _OWN = frozenset({"the", "my", "our", "his", "her", "their", "that"}), frozenset({"my", "our"})
_SUBJECT_FORMS = frozenset({"she", "he"})
"""Pronouns after a cue: the subject of what follows ("gave away her toys *she* never uses"), never what ended."""
_IDIOMS = frozenset({"broke up", "gave up"})  # "called it quits", "packed it in": no object in the pronoun


@dataclass
class Message:
    """One user message as the planner reads it: its sentences and words, the facts held, the people known."""

    text: str
    sentences: list[Sentence]
    words: list[Word]
    infos: list[FactInfo]
    known: Known
    found: list[tuple[int, FactInfo]] | None = None

    def between(self, start: int, end: int) -> list[Word]:
        """The message's words from ``start`` up to ``end``."""
        return [w for w in self.words if start <= w.start < end]

    @property
    def mentions(self) -> list[tuple[int, FactInfo]]:
        """``(position, fact)`` for every word that names a fact; computed on the first pronoun."""
        if self.found is None:
            self.found = _mentions(self)
        return self.found




def _mentions(msg: Message) -> list[tuple[int, FactInfo]]:
    """``(position, fact)`` for every word of the message that names a fact (for antecedents)."""
    out: list[tuple[int, FactInfo]] = []
    for w in msg.words:
        if w.low in PRONOUNS or w.low in STOPWORDS:
            continue
        for info in msg.infos:
            if name_evidence(info, [w]) >= 0.5:
                out.append((w.start, info))
    return out


def antecedents(msg: Message, pos: int) -> list[FactInfo]:
    before = [m for m in msg.mentions if m[0] < pos]
    if not before:
        return []
    last = max(p for p, _ in before)
    return [i for p, i in before if p == last]


def evidence_for(msg: Message, hit: CueHit, actor: Actor, scope: list[FactInfo]) -> dict[str, Evidence]:
    sentence = msg.sentences[hit.sentence]
    clause = sentence.clauses[hit.clause]
    dest = destination(msg.text, msg.sentences, hit)
    clause_words = [w for w in msg.words if clause.start <= w.start < clause.end and not dest[0] <= w.start < dest[1]]
    other_words = [w for w in msg.words if sentence.start <= w.start < sentence.end and not
                   clause.start <= w.start < clause.end]
    clause_words = [w for w in clause_words if not owner_of_next(msg.text, w, hit)]
    if about_something_else(msg.text, hit, clause_words, scope) or thing_named_nothing(actor, hit, scope):
        return {i.fact.id: Evidence() for i in scope}
    if agent(msg.text, actor, hit, clause_words):  # "The club cancelled training": the club acts, training ended
        clause_words = [w for w in clause_words if w.start >= hit.start or w.low.removesuffix("'s") not in
                        actor.name.split()]
    refs: dict[str, float] = {}
    skip = (hit.start, hit.end) if hit.cue.name in _IDIOMS else (0, 0)
    subject = subject_pronoun(clause_words, hit) if actor.kind == "pronoun" and actor.name == "it" else None
    for i, w in enumerate(clause_words):
        if (w.low in PRONOUNS and w.low not in _SUBJECT_FORMS and w.start >= hit.start
                and not skip[0] <= w.start < skip[1] and not determiner(msg.text, w)) or w is subject:
            for info in antecedents(msg, w.start):
                refs[info.fact.id] = 1.0
        if w.low in _DEFINITE and i + 1 < len(clause_words) and (actor.kind != "indefinite" or w.low in _OWN) \
                and clause_words[i + 1].low not in ANOTHER:  # "my *other* job": not the one held
            # "they sold the house next door": an indefinite someone's "the house" is not the user's
            nouns = [clause_words[j].low for j in range(i + 1, min(i + 3, len(clause_words)))]
            fits = [info for info in scope if any(describes(info, n) for n in nouns)]
            own = [info for info in fits if info.fact.subject == "user"]
            fits = own or fits  # the user's "the car" is the user's car, unless the message named another
            for info in fits:
                refs[info.fact.id] = max(refs.get(info.fact.id, 0.0), 0.8 if len({f.state for f in fits}) == 1
                                         else 0.4)
    if actor.partner:
        for info in scope:
            if info.person == actor.partner:
                refs[info.fact.id] = 1.0
    person = actor_person(actor, scope)
    if person:  # the actor's own name is who acts, not what ended ("Jake's mum died", "Tom left early")
        clause_words = [w for w in clause_words if w.start >= hit.start or w.low.removesuffix("'s") not in
                        person.split()]
        if "relationship" in hit.cue.categories and hit.cue.strength >= 0.9 and actor.kind != "thing":
            for info in scope:  # "Hannah broke off the engagement": the relationship with the actor
                if info.category == "relationship" and info.person == person:
                    refs[info.fact.id] = 1.0
    cue = hit.cue
    states = {i.state for i in scope if category_fit(i.category, cue.categories) == 1.0}
    if not _may_be_the_only_one(msg.text, hit, actor, clause_words, scope):
        states = set()
    named = {i.fact.id: name_evidence(i, clause_words) for i in scope}
    if any(n >= 0.8 for n in named.values()):  # the clause names what ended: "the only one" is no rival
        states = set()
    out: dict[str, Evidence] = {}
    for info in scope:
        ev = Evidence(name_clause=named[info.fact.id], name_sentence=name_evidence(info, other_words),
                      ref=refs.get(info.fact.id, 0.0), unique=1.0 if states == {info.state} else 0.0)
        out[info.fact.id] = Evidence(name_clause=ev.name_clause) if cue.needs_name else ev
    return out


def actor_person(actor: Actor, scope: list[FactInfo]) -> str:
    """The person acting in a clause (a third party, or the owner of a thing), lower-case; else ``""``."""
    if actor.kind == "thing" and actor.owner:
        return actor.owner.lower()
    if actor.kind == "third":
        return actor.name.lower()
    return ""


def _may_be_the_only_one(text: str, hit: CueHit, actor: Actor, clause_words: list[Word],
                         scope: list[FactInfo]) -> bool:
    """Whether "the only state of the cue's categories" can count as evidence for this cue.

    Never for a cue that can end anything, a change to something else across categories, a thing (a
    thing is named) or someone unknown; and for a verb of several categories only when it names no
    object of its own ("I quit", not "I cancelled the dentist": that is about the dentist). A word that
    names or is a kind of a candidate is not an object of its own ("gave up coffee" for the espressos).
    """
    cue = hit.cue
    if ANY in cue.categories or actor.kind in ("thing", "indefinite") or (
            actor.kind == "pronoun" and actor.name == "it"):
        return False
    if len(cue.categories) == 1 or cue.noun:
        return True
    if cue.kind == "change":
        return False
    after = object_words(text, hit, clause_words)
    endable = [i for i in scope if category_fit(i.category, cue.categories) > 0]
    return all(any(name_evidence(i, [w]) > 0 or describes(i, w.low) for i in endable) for w in after)
