"""The guard layer (pure): when a cue is not a change of the user's state, and whose news a clause is.

:func:`check` reads one cue in its clause and sentence and answers a :class:`Verdict`: the guard that
blocks it, if any, and the clause's *actor* (who or what the news is about). Guards, in order:

* ``question``: the sentence asks ("should I sell my Polo?");
* ``reported``: someone else's words or belief ("Physio says my knees are done with running");
  quoted speech never reaches here (blanked by :func:`~.segments.normalize_text`);
* ``reminiscence``: a memory of an earlier, different thing ("my first car", "back in college");
* ``negation``: the cue is denied ("I didn't sell it"), unless it carries its own negation
  ("no longer", "didn't renew");
* ``modality``: a possibility, wish, plan or doubt ("might", "if", "thinking about", "talk me out of");
* ``modality`` also holds an attempt ("*trying to* quit") and a rumour asked about ("keeps *asking if* I left");
* ``temporary``: a pause, not an end ("the pool's closed *for the summer*", "*back in September*"), a short
  stretch right after the cue ("cancelled the lessons *for August*"), a breakdown ("died *on me*"), or the
  state going on, coming back or sparing the user later in the sentence ("*but I keep going*", "*but she's
  back*", "layoffs, *not in my team*");
* ``joke``: banter, a change not told as done beside laughter ("divorcing him *lol*");
* ``future``: the change is ahead ("I'm moving to Berlin in June", "handed in my notice", "next spring"):
  never a change now.

The actor decides whose facts a cue may end (:mod:`.targets`): the user ("I", "we", "Priya and I", no
subject at all in diary style), a third party ("my friend Beth", "she", "Tom") whose news never ends the
user's own facts (a possessed person too: "the club's old *coach*", "Bruno's *brother*"), a thing ("the boat",
"it", "Bean There"), or an indefinite someone ("someone nicked
the brompton": not an owner).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from ..extraction._subjects import KNOWN_FROM, rel_word
from .cues import CueHit
from .guard_words import (
    ADDITIVE,
    ATTEMPT,
    BOUNDED_AFTER_CUE,
    DREAM,
    EVENT_NOUNS,
    FUTURE_MARKERS,
    IRREVERSIBLE_CUES,
    LAUGHTER,
    MALFUNCTION,
    MODAL_MARKERS,
    NEAR_MISS,
    PERSON_NOUNS,
    REMINISCENCE_MARKERS,
    REPAIR,
    REPORTING_VERBS,
    RESUMED,
    TEMPORARY_MARKERS,
    TIME_AHEAD,
    TIME_PAST,
)
from .lexicon import INDEFINITE_ACTORS, PAST_FORMS, PREDICATE_CATEGORIES, RELATIONS, negates
from .segments import Clause, Sentence, words
from .segments import asks as _asks

__all__ = ["POSSIBLE", "Actor", "Known", "Verdict", "adds_to_held", "check", "find_actor", "restates"]

_I = re.IGNORECASE
_MODAL = re.compile("|".join(MODAL_MARKERS), _I)
_FUTURE = re.compile("|".join(FUTURE_MARKERS), _I)
POSSIBLE = re.compile("|".join((*MODAL_MARKERS, *FUTURE_MARKERS)), _I)
"""A modal or a future marker: what follows may happen or is ahead, not done (the readers of new values, of
successors and of births test a clause with it before they take anything from it)."""
_REMINISCENCE = re.compile("|".join(REMINISCENCE_MARKERS), _I)
_AHEAD = re.compile(TIME_AHEAD, _I)
_NEAR_MISS = re.compile(NEAR_MISS, _I)
_DREAM = re.compile(DREAM, _I)
_WHO = re.compile(r"^(?P<head>.+?),?\s+(?:who|whose)\b", _I)
_TEMPORARY = re.compile("|".join(TEMPORARY_MARKERS), _I)
_ATTEMPT = re.compile(ATTEMPT, _I)
_LAUGHTER = re.compile(LAUGHTER, _I)
_BOUNDED = re.compile(BOUNDED_AFTER_CUE, _I)
_RESUMED = re.compile(RESUMED, _I)
_MALFUNCTION = re.compile(MALFUNCTION, _I)
_REPAIR = re.compile(REPAIR, _I)
_ADDITIVE = re.compile(ADDITIVE, _I)
_MANY_HELD = frozenset({"job", "study"})
"""Categories a person often holds two of at once (a second job, an evening course); a home or a partner is not."""
_TO_BEFORE = re.compile(r"\b(?:to|gonna|will|'ll)\s+(?:\w+ly\s+|just\s+)?$", _I)
_PASSIVE = re.compile(r"\b(?:was|were|got|been|is|are)\s+(?:\w+ly\s+|just\s+)?$", _I)
_ONCE = re.compile(r"^\s+(?:again\s+)?(?:this (?:week|weekend|time)|today|tonight)\b", _I)
_CALLED_OFF = re.compile(r"cancel|call|postpon|scrap", _I)
"""After a passive cancelling cue, the one occasion ("the class *was cancelled this week*"): that session, not the
class ("was put to sleep this morning" is no occasion)."""
_PAST = re.compile(TIME_PAST, _I)
_REPORTED = re.compile(r"(?P<who>[\w']+)\s+(?:\w+\s+)?" + REPORTING_VERBS, _I)
_NOT_YET = re.compile(r"\bnot (?:yet|doing it yet|decided)\b", _I)
_CONDITIONAL_CLAUSE = re.compile(r"^\W*(?:if|unless|whether|in case|what if|suppose)\b", _I)
_PROGRESSIVE = re.compile(r"(?:\b(?:am|is|are|be|been)|'m|'s|'re)\s+(?:\w+ly\s+|just\s+|now\s+)?$", _I)
_RELS = "|".join(sorted((re.escape(w) for w in RELATIONS), key=len, reverse=True))
_LEAD = re.compile(
    r"^(?:\W*(?:oh|ok|okay|so|well|yeah|yes|no|nope|haha+|lol|lmao|welp|ugh|wow|ah|um|hmm|right|update(?: on [\w ]+?)?|"
    r"(?:quick|small|big|honest|sad|final) (?:update|news)|news|big news|honestly|anyway|anyways|also|and|but|then|"
    r"now|just|finally|sadly|unfortunately|officially|basically|fyi|btw|by the way|long story short|in the end|"
    r"eventually|turns out|guess what|today|yesterday|this morning|last (?:week|night|month)|on \w+day|recently|"
    r"at last|plot twist|anyhow|well then|as of (?:today|now|the \w+|last \w+|this \w+|\w+day|"
    r"\d{1,2}(?:st|nd|rd|th)?(?: of)? \w+|\w+ \d{1,2}(?:st|nd|rd|th)?)|actually)\b[\s,:!.\-—]*)*", _I)
_AND_I = re.compile(r"^(?P<x>[\w'-]+(?: [\w'-]+)?) and (?:I|me|i)\b(?!')", _I)
_AND_PERSON = re.compile(r"^(?P<a>[\w'-]+) and (?P<b>(?!(?:I|me|my|our|the|a|an|his|her|their)\b)[\w'-]+)\s+"
                         r"(?:(?:are|were|have|had|'ve|'re|finally|officially|just|both|also)\s+)*$", _I)
"""Two people told as one subject ("chloe and liam are finished"): the first a known person, whose news it is, the
second its partner."""
_ACQUAINTANCE = re.compile(r"^(?P<name>(?-i:[A-Z])[a-z][\w'-]*)\s+(?:from|at|in|on)\s+" + KNOWN_FROM + r"\b", _I)
"""A name told with where one knows them from ("Kate from my team", "Dave at work"): a person's news."""
_EVENT_SUBJECT = re.compile(r"\b(?P<e>" + "|".join(sorted(EVENT_NOUNS)) + r")(?:'s|\s+(?:is|was|has|had|got|"
                            r"were|are|have))?(?:\s+(?:been|just|now|already|officially))*\s*$", _I)
"""An occasion as the subject of a cancelling cue ("the arsenal *game's been* cancelled")."""
_SAID_BY_US = re.compile(r"(?:we|i|and (?:i|me))\b", _I)
"""A cue whose own words open on the speaker ("*we*'re done"): the speaker's, whatever came before."""
_FOR_GOOD = re.compile(r"^\s+(?:for good|permanently|altogether|for ever|forever)\b", _I)
_TIME_SUBJECT = re.compile(r"^(?:today|yesterday|tonight|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
                           r"last (?:week|night|month)|this (?:week|morning|afternoon|evening))"
                           r"(?:'s|\s+(?:was|is|will be|were))?\s+", _I)
"""A time told as the subject of a clause ("*Friday was* my last day", "*today's* my last shift")."""
_FIRST = re.compile(r"^(?:I|i|we|We|WE|me|Me)(?:'(?:ve|m|d|re|ll))?\b(?!-)")
_MY_REL = re.compile(r"^(?:my|our)\s+(?:[a-z]+[\s-]+)?(?P<rel>" + _RELS
                     + r")\b(?:,?\s+(?P<name>(?-i:[A-Z])[\w-]+))?(?P<pos>'s?\s+"
                     r"(?P<thing>[\w-]+))?", _I)
_MY_THING = re.compile(r"^(?:my|our)\s+(?P<np>[\w-]+(?:\s+[\w-]+)?)", _I)
_PRONOUN = re.compile(r"^(?P<p>she|he)(?:'s|'d|'ll)?\b", _I)
_THEY = re.compile(r"^they(?:'ve|'re|'d)?\b", _I)
_IT = re.compile(r"^(?:it|that|this)(?:'s)?\b", _I)
_INDEFINITE = re.compile(r"^(?:someone|somebody|some\s+\w+|an?\s+(?:[\w-]+\s+){0,2}(?P<head>[\w-]+))", _I)
_THE = re.compile(r"^(?:the|this|that)\s+(?P<np>[\w&+-]+(?:\s+[\w&+-]+){0,3}?)(?='s\b|\s+(?:is|are|was|were|has|"
                  r"have|had|got|went|'s|been|just|finally)\b|\s*$)", _I)
_OWNED = re.compile(r"'s\s+([\w-]+)\s+\S")
_PEOPLE_SET = frozenset({*PERSON_NOUNS, *(w for w in RELATIONS if " " not in w)})
_PEOPLE = "|".join(sorted(_PEOPLE_SET, key=len, reverse=True))
_POSSESSED_PERSON = re.compile(r"^(?:(?:my|our|the|this|that)\s+)?(?P<owner>[\w&+-]+(?:\s+[\w&+-]+){0,2}?)'s?\s+"
                               r"(?:[\w-]+\s+){0,2}?(?P<who>" + _PEOPLE + r")\b", _I)
"""A possessed person ("the club's old *coach*", "Bruno's *brother* Max"): their news, not the possessor's."""
_NAME = re.compile(r"^(?P<name>[A-Za-zÀ-ÿ][\w&+-]*(?:\s+[A-Z][\w&+-]*){0,2})(?P<pos>'s?\s+(?P<next>[\w-]+))?")
_CONTRACTED = frozenset(
    "been gone got just officially moved left quit done finished dropped transferred a an the not no still now in "
    "at out off over history back fine getting going moving leaving taking started starting finally really also "
    "definitely sold split divorced retired".split()
)
"""Words after ``'s`` that make it "is"/"has" ("Katie's getting divorced"), not a possessive."""
_VERB_FIRST = re.compile(r"^(?:[a-z]+(?:ed|ing)|quit|left|sold|sent|gave|put|cut|split|got|went|made|said|bit|"
                         r"found|took|tore|fell|handed|had|kept|let|lost|told|threw|shut|broke|ran|been|done|"
                         r"since|after|before|post|first|cancel|finally|still)\b", _I)

ActorKind = Literal["user", "third", "thing", "indefinite", "pronoun", "implicit"]


@dataclass(frozen=True)
class Known:
    """What the user's facts name: people (a name or relation word -> subject) and their pronoun genders."""

    people: Mapping[str, str]
    genders: Mapping[str, str]


@dataclass(frozen=True)
class Actor:
    """Who or what a clause's news is about.

    ``kind``: ``user``, ``implicit`` (no subject: the user, diary style), ``third`` (``name`` is the
    subject of their facts), ``thing`` (``name`` is its noun phrase; ``owner`` a third party owning
    it, e.g. "my neighbour's dog"), ``pronoun`` (``she``/``he``/``it``, resolved by :mod:`.targets`),
    ``indefinite`` (someone: never an owner). ``partner``: the other one of "Priya and I".
    """

    kind: ActorKind
    name: str = ""
    owner: str = ""
    partner: str = ""


@dataclass(frozen=True)
class Verdict:
    """A cue's guard (``None``: not blocked), why, and the actor of its clause."""

    guard: str | None
    reason: str
    actor: Actor


def _person(name: str, known: Known) -> str | None:
    low = rel_word(name.strip())  # "mum" is the rules' "mom"
    if low in known.people:
        return known.people[low]
    parts = low.split()
    if len(parts) > 1 and parts[0] in RELATIONS:  # "Uncle Ray"
        return known.people.get(" ".join(parts[1:]), known.people.get(parts[0], " ".join(parts[1:])))
    if low in RELATIONS:
        return known.people.get(low, low)
    return None


_SEGMENTS = re.compile(r"[,:]\s*|\s+(?:and|but|so|then)\s+", _I)


_LAST_SUBJECT = re.compile(r"(?:^|\s)(?P<p>she|he|I|we)(?:'s|'ve|'d|'m| has| have| had| was| were| am| is)?"
                           r"(?:\s+(?:finally|just|actually|now|already|officially|eventually|properly|totally|"
                           r"(?:ready|able|allowed|free|cleared|decided|managed|agreed|going|got|chose|planning) to))*"
                           r"\s*$", _I)
"""A subject pronoun right before the cue after words that are no subject ("So glad *she* got out of Boots", "GP
agreed *I* was ready to come off the sertraline"): it is who acts, not what the part starts with."""


def find_actor(prefix: str, known: Known) -> Actor:
    """The actor of a clause from its words before the cue (see :class:`Actor`).

    The subject is read at the start of the last comma- or "and"-separated part of the words before
    the cue ("problem solved itself, *Pat* sold up"); when the cue follows "and" directly, the part
    before it has the shared subject ("*She* hates it and quit").
    """
    last = prefix.rsplit(",", 1)[-1]
    if m := _AND_I.match(last[_LEAD.match(last).end():]):  # type: ignore[union-attr]  # "Priya and I split up"
        partner = re.sub(r"^(?:my|our)\s+", "", m.group("x"), flags=_I)
        return Actor("user", partner=_person(partner, known) or partner.lower())
    if m := _AND_PERSON.match(last[_LEAD.match(last).end():]):  # type: ignore[union-attr]  # "chloe and liam are"
        a, b = _person(m.group("a"), known), _person(m.group("b"), known) or m.group("b").lower()
        if a is not None and a != b:
            return Actor("third", name=a, partner=b)
    parts = [p for p in _SEGMENTS.split(prefix)]
    while len(parts) > 1 and not parts[-1][_LEAD.match(parts[-1]).end():].strip():  # type: ignore[union-attr]
        parts.pop()
    part = parts[-1] if parts else ""
    rest = part[_LEAD.match(part).end():]  # type: ignore[union-attr]
    if when := _TIME_SUBJECT.match(rest):  # "Friday was my last day": the day is when, not who
        rest = rest[when.end():]
    if not rest.strip():
        return Actor("implicit")
    if m := _AND_I.match(rest):
        partner = re.sub(r"^(?:my|our)\s+", "", m.group("x"), flags=_I)
        return Actor("user", partner=_person(partner, known) or partner.lower())
    if m := _POSSESSED_PERSON.match(rest):  # "our choir's old *conductor*", "Bruno's *brother* Max"
        return Actor("third", name=f"{m.group('owner').lower()}'s {m.group('who').lower()}")
    if (relative := _WHO.match(rest)) and not _FIRST.match(rest):  # "the guy who runs the club retired"
        subject = find_actor(relative.group("head"), known)
        if subject.kind in ("third", "user"):
            return subject
        return Actor("third", name=subject.name or relative.group("head").lower())
    if _FIRST.match(rest):
        return Actor("user")
    if (late := _LAST_SUBJECT.search(rest)) and len(rest[:late.start()].split()) >= 1:  # "So glad *she* got out"
        pronoun = late.group("p").lower()
        return Actor("user") if pronoun in ("i", "we") else Actor("pronoun", name=pronoun)
    if m := _MY_REL.match(rest):
        who = _person(m.group("name") or m.group("rel"), known) or (m.group("name") or m.group("rel")).lower()
        thing = m.group("thing")
        if m.group("pos") and thing and thing.lower() not in _CONTRACTED and not thing.lower().endswith("ing"):
            return Actor("thing", name=thing.lower(), owner=who)
        return Actor("third", name=who)
    if m := _ACQUAINTANCE.match(rest):  # "Kate from my team quit the BBC": a person, whoever Kate is
        return Actor("third", name=_person(m.group("name"), known) or m.group("name").lower())
    if m := _PRONOUN.match(rest):
        return Actor("pronoun", name=m.group("p").lower())
    if _THEY.match(rest):
        return Actor("indefinite", name="they")
    if _IT.match(rest):
        return Actor("pronoun", name="it")
    if rest.strip().lower() in ("my", "our"):  # "*my* resignation", "*our* move": a noun cue of the user's own
        return Actor("user")
    if m := _MY_THING.match(rest):
        return Actor("thing", name=m.group("np").lower())
    if (m := _INDEFINITE.match(rest)) and (m.group("head") or "someone").lower() not in known.people:
        return Actor("indefinite", name=(m.group("head") or "someone").lower())
    if m := _THE.match(rest):
        if m.group("np").split()[-1].lower() in _PEOPLE_SET:  # "the Oxfam shop *manager*": a person, not the shop
            return Actor("third", name=m.group("np").lower())
        owned = _OWNED.match(rest, m.end())  # "the Octavia's service is done": the service
        if owned and owned.group(1).lower() not in _CONTRACTED and not owned.group(1).lower().endswith(("ing", "ed")):
            return Actor("thing", name=owned.group(1).lower())
        return Actor("thing", name=m.group("np").lower())
    phrase = rest.split()
    if len(phrase) > 1 and phrase[-1].lower() in INDEFINITE_ACTORS and not _VERB_FIRST.match(rest):
        return Actor("indefinite", name=phrase[-1].lower())  # "new neighbours moved in": people, not the user
    if (m := _NAME.match(rest)) is not None:
        name = m.group("name")
        who = _person(name, known) or _person(name.split()[0], known)
        nxt = (m.group("next") or "").lower()
        possessive = bool(m.group("pos")) and nxt not in _CONTRACTED and not nxt.endswith(("ing", "ed"))
        if who is not None:
            if possessive and len(rest) > m.end():  # "Katie's divorce" is Katie's; "Pat's dog" is Pat's thing
                return Actor("thing", name=nxt, owner=who)
            return Actor("third", name=who)
        if name.split()[0].lower() in INDEFINITE_ACTORS:
            return Actor("indefinite", name=name.lower())
        if _VERB_FIRST.match(name) or (name[0].islower() and not m.group("pos")):
            return Actor("implicit")
        return Actor("thing", name=name.lower())
    return Actor("implicit")


def _negated(clause: Clause, hit: CueHit, text: str) -> bool:
    before = [w.low for w in words(text, clause.start, hit.start)][-4:]
    return negates(before)


def check(text: str, sentence: Sentence, clause_index: int, hit: CueHit, known: Known) -> Verdict:
    """The guard (if any) that blocks ``hit`` and the actor of its clause.

    Args:
        text: the normalised message.
        sentence: the sentence of the cue; ``clause_index`` its clause there.
        hit: the cue.
        known: the people the user's facts name (to tell a third party from a thing).
    """
    clause = sentence.clauses[clause_index]
    prefix = text[clause.start:max(clause.start, hit.start)]
    actor = find_actor(prefix, known)
    if _SAID_BY_US.match(text, hit.start):  # "Two years and that's it, we're done": the cue says who
        actor = Actor("user")
    for earlier_clause in reversed(sentence.clauses[:clause_index]):  # "He's done it — retired!": his
        if actor.kind != "implicit" or prefix.strip():
            break
        actor = find_actor(earlier_clause.text, known)
    cue = hit.cue
    if sentence.question and (clause_index == len(sentence.clauses) - 1 or _asks(sentence.text) or _asks(clause.text)):
        return Verdict("question", "asked, not told", actor)  # "Sold it last week, so what next?" tells first
    before = text[(sentence.clauses[clause_index - 1] if clause_index else clause).start:hit.start]
    for m in _REPORTED.finditer(before):  # in this clause or the one before ("X said, and I quote, ...")
        if m.group("who").lower() not in ("i", "we", "i've", "we've"):
            return Verdict("reported", f"someone else's words ({m.group(0).strip()!r})", actor)
    if dream := _DREAM.search(text, sentence.start, hit.start):
        return Verdict("dream", f"a dream or an imagining ({dream.group(0)!r})", actor)
    if memory := _REMINISCENCE.search(sentence.text):
        return Verdict("reminiscence", f"a memory of something earlier ({memory.group(0)!r})", actor)
    if not cue.negated and _negated(clause, hit, text):
        return Verdict("negation", "the cue is denied", actor)
    upto = text[clause.start:hit.end]
    earlier = sentence.clauses[clause_index - 1].text if clause_index > 0 else ""
    maybe = (_MODAL.search(upto) or _NOT_YET.search(clause.text) or _NEAR_MISS.search(prefix)
             or _ATTEMPT.search(prefix))
    if maybe is not None:
        return Verdict("modality", f"a possibility, not a fact ({maybe.group(0)!r})", actor)
    if _CONDITIONAL_CLAUSE.match(earlier):
        return Verdict("modality", "under a condition", actor)
    lasting = cue.negated or cue.name in IRREVERSIBLE_CUES  # "sold my strat to pay for the holiday": for good
    if not lasting and (pause := _TEMPORARY.search(text, _part_start(text, sentence.start, hit), sentence.end)):
        # "haven't smoked for a while": over; "change of plan for the summer visit - Tom's moved up to ...": not his
        return Verdict("temporary", f"a pause, not an end ({pause.group(0)!r})", actor)
    after = text[hit.end:sentence.end]
    if (pause := (None if lasting else _BOUNDED.search(text[hit.end:clause.end])) or _MALFUNCTION.search(after)):
        return Verdict("temporary", f"bounded or a fault, not an end ({pause.group(0).strip()!r})", actor)
    event = _EVENT_SUBJECT.search(prefix) if _CALLED_OFF.match(text, hit.start) else None
    if event is not None and not _FOR_GOOD.match(after):
        return Verdict("temporary", f"one occasion, not the state ({event.group('e')!r})", actor)
    if _CALLED_OFF.match(text, hit.start) and _PASSIVE.search(prefix) and (once := _ONCE.match(after)):
        return Verdict("temporary", f"one occasion, not the state ({once.group(0).strip()!r})", actor)
    if fixing := _REPAIR.search(text, hit.end):
        return Verdict("temporary", f"a fault being repaired ({fixing.group(0)!r})", actor)
    if back := _RESUMED.search(after):
        return Verdict("temporary", f"goes on or came back ({back.group(0)!r})", actor)
    if cue.kind == "announce":
        return Verdict("future", "announced for later", actor)
    if (plan := _FUTURE.search(_part(text, clause.start, clause.end, hit))) and not (
            plan.group(0).lower().startswith("after the") and _done(text[hit.start:hit.end])):
        return Verdict("future", f"a plan ({plan.group(0)!r})", actor)  # "stepped down after the summer": done
    gerund = text[hit.start:hit.end].lower().split()[0].endswith("ing")
    if (gerund or _TO_BEFORE.search(prefix)) and (joke := _LAUGHTER.search(sentence.text)):
        return Verdict("joke", f"banter, not news ({joke.group(0)!r})", actor)
    if gerund and _PROGRESSIVE.search(prefix):
        return Verdict("future", "in progress or planned, not done", actor)
    lead = _LEAD.match(prefix)  # always matches (every part is optional)
    opens = not prefix[lead.end() if lead else 0:].strip()
    if gerund and opens and (ahead := _AHEAD.search(clause.text)) and not _PAST.search(clause.text):
        # "Leaving the band after Christmas": a plan
        return Verdict("future", f"a gerund with a time ahead ({ahead.group(0).strip()!r})", actor)
    return Verdict(None, "", actor)


def _done(cue_words: str) -> bool:
    """Whether a cue's first word is a past form ("stepped down", "left"): done, whatever time it names."""
    first = cue_words.lower().split()[0] if cue_words.split() else ""
    return first.endswith("ed") or first in PAST_FORMS


def _part(text: str, start: int, end: int, hit: CueHit) -> str:
    """The comma-separated part of a clause that holds the cue, up to a reason or a purpose after it (:data:`_REASONS`):
    "my sister's visiting next week, ... Friday was my last day" plans the visit, not the ending."""
    his = [i for i in (text.find(c, hit.end, end) for c in (*_PARTS, *_REASONS)) if i >= 0]
    return text[_part_start(text, start, hit): min(his, default=end)]


_PARTS = (",", ";", "\u2014", " - ")
_REASONS = (" because ", " cos ", " coz ", " since we", " since I", " since they", " since he", " since she",
            " so that ", " so we ", " so I ")
"""Where a reason or a purpose begins after the cue: its time is its own ("switched to Italian since we've booked
Puglia next year": the switch is done, the trip ahead)."""


def _part_start(text: str, start: int, hit: CueHit) -> int:
    """Where the part holding the cue begins (after the last comma, semicolon or dash before it), from ``start``."""
    found = [(text.rfind(c, start, hit.start), len(c)) for c in _PARTS]
    return max([start, *(at + size for at, size in found if at >= 0)])


def adds_to_held(predicate: str, sentence: str) -> bool:
    """Whether a statement of a single-valued job or study predicate is one more value, not a replacement
    ("I tutor on the side *too*"): the consolidator then keeps the held value beside it."""
    return PREDICATE_CATEGORIES.get(predicate) in _MANY_HELD and _ADDITIVE.search(sentence) is not None


def restates(held: str, new: str) -> bool:
    """Whether a new value of a single-valued predicate only restates the held one, longer or shorter from the
    same start ("Leeds" / "Leeds city centre", "the Co-op" / "the Co-op is fine") or a kind noun made precise
    ("teacher" / "Year 4 teacher"): the same thing told again, not a replacement ("York" / "New York" is not: a
    name)."""
    h, n = [w.low for w in words(held)], [w.low for w in words(new)]
    if not h or not n or h == n:
        return False
    if n[:len(h)] == h or h[:len(n)] == n:
        return True
    short, long = (h, n) if len(h) < len(n) else (n, h)  # "teacher" / "Year 4 teacher": a kind noun, made precise
    return long[-len(short):] == short and not any(w.text[:1].isupper() for w in words(held if short is h else new))
