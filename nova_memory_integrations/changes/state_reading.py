"""States by meaning (pure): the clauses no capture rule read that may tell a state of the user's in passing.

The capture rules (:mod:`.states`, the extractor's) read states from shapes: "I work at X", "my X is ...".
People as often tell a state only in passing, by an event that presumes it: "cycled in on the Brompton
today", "Vodafone have put my bill up again", "reading on my kindle on the commute". This module picks the
clauses such a state may hide in, for the learned clause reader (:mod:`.clause_reader`) to judge: a
statement (no question, no plan, wish, memory, dream or joke: the markers :mod:`.states` uses; no denial;
no change or correction cue: those are the change layer's), in a sentence no rule read and no open state
came from, about the user (no relation word, no he / she / they: someone else's news is not the user's
state), naming one *thing*: a capitalised name inside the clause ("on the Brompton", "at PureGym") or a
"my <thing>" ("my kindle paperwhite"). The thing is masked as "it" (as at training) so that the reader
judges the predicate: whether "cycled in on it today" presumes a lasting state, or tells a one-off event
("had a curry at it last night"). The caller keeps a candidate only when the reader's ``state`` reaches
its threshold; its value is the thing's words, its clause the clause.

The people in the user's life tell states the same way ("my sister does her big shop at Aldi", "Raj on my
team is always at Fenwick Insurance till seven"). A clause about someone else is read the same way when its
subject is someone the turn introduces or the store knows, found by the extractor's own subject shapes
(:mod:`..extraction._subjects`): a relation ("my sister", "my brother Sam", "Sam, my brother,", "Uncle Ray"),
a name with where one knows them from ("Raj on my team"), "she" / "he" as the person last named before it
(:func:`.states.last_person`), or a capitalised name with a verb of its own, which only the store can tell is a
person (``StateCandidate.known`` is ``False``: the caller makes it that person's when the store holds facts of
that subject, else the user's as before: "Netflix keeps buffering on the Roku" tells the user's Roku). The
thing is one capitalised name after the subject, else "his / her / their <thing>" (never "my <thing>": the
user's thing in a person's clause is no state of theirs).

A clause no shape names a thing in ("I play squash twice a week", "I've got a frozen shoulder") is handed to
the learned thing finder (:mod:`.thing_finder`, the ``find`` argument; one call for all such clauses of a
message), and so is a clause whose subject is the user though it names someone ("I play squash with my mate
Steve"). Its thing is kept when it comes after the clause's subject, holds a word that is no stopword or
pronoun, shares no word with a value a rule stated, names no relation, is not one word straight after a
subject pronoun (the verb: "I only *drive* twice a month"), and in someone else's clause is no "my <thing>";
such a candidate is marked ``found`` (the caller holds it to its own threshold and stores it less sure). A
sentence a rule read is left to the rule, finder or not: its thing would be the rule's in other words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..extraction._subjects import KNOWN_FROM, THIRD_APPOS, THIRD_MY, THIRD_NAME, THIRD_TITLE, rel_word
from ..text.dates import MONTHS
from ..text.known_names import is_firm
from ..text.lexicon import RELS, STARTERS
from .clause_reader import mask_phrase
from .cues import cued_sentences
from .lexicon import STOPWORDS, negates
from .segments import normalize_text, segment
from .state_mentions import KIN_TITLES
from .states import JOKE, NOT_A_STATE, PERSON_PRONOUN, last_person

__all__ = ["MAX_CANDIDATES", "FindThings", "StateCandidate", "clause_subject", "state_candidates"]

MAX_CANDIDATES = 3
"""At most this many clauses of one message are read (one embedding each)."""

_I = re.IGNORECASE
_SOMEONE_ELSE = re.compile(r"\b(?:" + RELS + r"|he|she|they|he's|she's|they're|his|her|their|him|them)\b", _I)
"""A clause about someone else (a relation word, a third-person pronoun)."""
_NAME = re.compile(r"(?<=[a-z,] )(?P<np>[A-Z][\w&+'-]*[a-z0-9+][\w&+'-]*(?:\s+(?:[A-Z0-9][\w&+'-]*))*)")
"""A capitalised name inside a clause (not its first word: a sentence starter is capitalised anyway)."""
_MY_THING = re.compile(r"\b(?:my|our)\s+(?P<np>[a-z][\w'-]{2,}(?:\s+[a-z][\w'-]{2,})?)\b")
"""A thing of the user's named in passing ("my kindle paperwhite")."""
_THEIR_THING = re.compile(r"\b(?:his|her|their)\s+(?P<np>[a-z][\w'-]{2,}(?:\s+[a-z][\w'-]{2,})?)\b")
"""A thing of a third party's named in passing ("on her kindle")."""
_NOT_A_NAME = frozenset(w.lower() for w in STARTERS) | frozenset(MONTHS) | {"i", "i'm", "i've", "i'd", "i'll"}
_NOT_A_THING = frozenset("own way life day time week weekend morning night evening turn fault head mind god".split())
_PRONOUNS = frozenset("it its it's there here them this that these those one ones stuff things thing".split())
"""Words a found thing must hold more than (a pronoun names no state)."""
_FIRST_PERSON = re.compile(r"(?:i|i'm|i've|i'd|we|we're|we've|me and \w+)\b", _I)
"""A clause whose subject is the user (or the user and someone)."""
_GOAL = re.compile(r"\b(?:my|our|one|main|big|the)\s+(?:goals?|aims?|targets?|ambitions?|resolutions?)\b|"
                   r"\bbucket list\b|\baiming (?:to|for)\b", _I)
"""A goal is a plan, not a state ("my goal is to run a marathon this year"; not "I play goal attack", not
"Goals Sheffield", a place)."""
_AFTER_A_SUBJECT = re.compile(r"\b(?:i|we|you|they|he|she)(?:\s+(?:only|just|still|usually|always|often|really|"
                              r"also|mostly|normally|sometimes))*\s+$", _I)
"""What stands before a one-word thing that is the clause's verb ("I only *drive* twice a month"): no thing."""
_MINE_BEFORE = re.compile(r"\b(?:my|our)\s+$", _I)
FindThings = Callable[[list[str]], Sequence[str | None]]
"""Clauses -> the words naming a state in each, or ``None`` (:meth:`.thing_finder.ThingFinder.find`)."""
_VERB_FORM = re.compile(r"[a-z](?:ing|ed)$")
"""A first word that is a verb with its subject dropped ("Practising scales ..."), not a name."""
_LEAD = re.compile(r"^(?:(?:and|but|so|also|plus|oh|well)\s+)*", _I)
"""Conjunctions before a clause's subject ("and my brother Sam ...")."""
_ACQUAINTANCE = re.compile(r"(?P<name>[A-Z][a-z][\w'-]*)\s+(?:from|on|in|at)\s+" + KNOWN_FROM + r"(?=[\s,])")
"""A name with where one knows them from ("Raj on my team", "Bea from yoga"): a person the turn introduces."""


@dataclass(frozen=True)
class StateCandidate:
    """A clause that may tell a state in passing: its thing, the clause, the clause with the thing masked, whose
    state it would be (``"user"``, a relation word or a lower-case name), whether that subject is known to be
    a person (``False``: a capitalised name only the store can vouch for) and whether the thing finder named
    the thing (``True``) or a shape did."""

    thing: str
    clause: str
    masked: str
    subject: str = "user"
    known: bool = True
    found: bool = False


def _thing(clause: str, start: int = 0, mine: re.Pattern[str] = _MY_THING) -> str | None:
    """The one thing a clause names from ``start`` on (a capitalised name, else a thing ``mine`` names), or
    ``None`` (none, or several)."""
    names = [m.group("np") for m in _NAME.finditer(clause) if m.start() >= start
             and m.group("np").split()[0].lower().strip("'s") not in _NOT_A_NAME]
    if len(names) == 1:
        return names[0]
    if names:
        return None
    owned = [m.group("np") for m in mine.finditer(clause, start)
             if m.group("np").split()[0].lower() not in _NOT_A_THING | STOPWORDS]
    return owned[0] if len(owned) == 1 else None


def clause_subject(piece: str, before: str) -> tuple[str, int, bool] | None:
    """Whom a clause about someone else is about (as the rules spell them), where that subject ends in the
    clause and whether the turn itself shows them a person; ``None`` when its subject is no one resolvable."""
    if m := THIRD_MY.match(piece):  # "my sister", "my brother Sam"
        return (m.group("name") or rel_word(m.group("rel"))).lower(), m.end(), True
    for shape in (THIRD_APPOS, THIRD_TITLE, _ACQUAINTANCE):  # "Sam, my brother,", "Uncle Ray", "Raj on my team"
        if m := shape.match(piece):
            return m.group("name").lower(), m.end(), True
    if (m := PERSON_PRONOUN.match(piece)) and (person := last_person(before)):  # "she ...": the person last named
        return person, m.end(), True
    if (m := THIRD_NAME.match(piece)) and (name := m.group("name").lower()) not in _NOT_A_NAME and \
            not _VERB_FORM.search(name) and not is_firm(name):  # "Priya does ...": maybe a person
        # ("Practising scales": no; "Lloyds have frozen my card": a bank)
        kin = name in KIN_TITLES  # "Gran still ...": the speaker's own relative
        return (rel_word(name) if kin else name), m.end(), kin
    return None


def state_candidates(text: str, *, taken: tuple[str, ...] = (), covered: tuple[str, ...] = (),
                     find: FindThings | None = None) -> list[StateCandidate]:
    """The clauses of ``text`` that may tell a state in passing (see the module docstring). ``taken``: the
    sentences or clauses a rule already read a statement or a state from (left to it); ``covered``: values a
    rule already stated (a thing among them is not read again); ``find``: the learned thing finder, asked
    once for the clauses whose thing no shape names (none asked without it)."""
    stated = {c.lower() for c in covered if c}
    named = [m.group("np") for pattern in (_NAME, _MY_THING) for m in pattern.finditer(text)]
    if find is None and all(n.lower() in stated for n in named):  # the cheap test: most turns name no thing
        return []
    norm = normalize_text(text)
    sentences = segment(norm)
    cued = cued_sentences(norm, sentences)
    marks = [m for m in (normalize_text(t).strip(" .!?") for t in taken) if m]
    out: list[StateCandidate] = []
    unnamed: list[tuple[str, int, str, bool]] = []  # clauses no shape names a thing in, for the finder
    for i, sentence in enumerate(sentences):
        body = sentence.text.strip(" .!?")
        if sentence.question or i in cued or NOT_A_STATE.search(sentence.text) or JOKE.search(sentence.text) or \
                _GOAL.search(sentence.text) or any(body in m or m in body for m in marks):
            continue
        for clause in sentence.clauses:
            piece = clause.text.strip(" ,;-")
            low = piece.lower().split()
            if len(low) < 3 or negates(low):
                continue
            lead = _LEAD.match(piece).end()  # type: ignore[union-attr]  # "and my brother ..."
            subject, end, known = clause_subject(piece[lead:], norm[: clause.start]) or ("user", 0, True)
            if known and subject != "user":  # someone the turn shows a person: their thing, never "my <thing>"
                thing = _thing(piece, lead + end, _THEIR_THING)
            elif _SOMEONE_ELSE.search(piece):  # someone else's, unless the user is its subject ("I play ... with
                if find is not None and _FIRST_PERSON.match(piece, lead):  # my mate Steve"): then the finder's
                    unnamed.append((piece, 0, "user", True))
                continue
            else:  # the user's, or a bare name's the store may know ("Netflix keeps ..." is the user's)
                thing = _thing(piece)
            if thing and thing.lower() not in stated and thing.lower() != subject:
                out.append(StateCandidate(thing, piece, mask_phrase(piece, thing), subject, known))
            elif thing is None and find is not None:
                unnamed.append((piece, lead + end if subject != "user" else 0, subject, known))
    if unnamed and find is not None and len(out) < MAX_CANDIDATES:
        for (piece, start, subject, known), thing in zip(unnamed, find([u[0] for u in unnamed]), strict=True):
            if thing is not None and _found_thing(piece, thing, start, subject, stated):
                out.append(StateCandidate(thing, piece, mask_phrase(piece, thing), subject, known, found=True))
    return out[:MAX_CANDIDATES]


def _found_thing(piece: str, thing: str, start: int, subject: str, stated: set[str]) -> bool:
    """Whether the finder's ``thing`` of ``piece`` may be a state's value: after the clause's subject
    (``start``), some word no stopword or pronoun, not a value a rule stated or the subject itself, and in
    someone else's clause no "my <thing>" (the user's thing is no state of theirs)."""
    at = piece.lower().find(thing.lower(), start)
    said = {w.strip(".,'") for w in thing.lower().split()} - STOPWORDS - _NOT_A_THING - _PRONOUNS
    if at < 0 or not said or thing.lower() == subject or any(said & set(s.split()) for s in stated) or \
            _SOMEONE_ELSE.search(thing) or (" " not in thing and _AFTER_A_SUBJECT.search(piece[:at])):
        return False
    return subject == "user" or not _MINE_BEFORE.search(piece[:at])
