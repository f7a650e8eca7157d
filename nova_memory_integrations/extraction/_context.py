"""Context reading (pure): where the user lives, works, studies or belongs, told only by the topic around a name.

People rarely say "I work at Deloitte" to an assistant; they say "busy season at Deloitte is starting and I'm
dreading it", "our landlord in Hackney wants to put the rent up", "Clapham Chasers track session tonight".
No clause rule reads those: the relation is carried by the *topic* of the sentence (a landlord and rent are
about one's home; a shift, a boss, busy season about one's work; lectures and modules about one's
university; a session, a match, rehearsals about a club), and the value is the name the topic is attached
to by a preposition. :data:`TOPICS` holds that as data: per relation, the topic words, the prepositions
that attach a name, and the kind of value. :func:`read_context` finds, per sentence, a name after one of
those prepositions in a sentence holding one of the topic words, and proposes the relation for the user
when:

* the message speaks in the first person (I, my, we, our ...) and the sentence is not about someone else
  (no relative, no third-person pronoun, no named person doing the thing);
* no guard word puts the sentence elsewhere than the user's own present: a visit or a trip, a plan or a
  wish, a question about a place to go, a memory ("used to", "back when"), a negation;
* the turn's own rules found no value of that relation already (a stated fact always wins) and the name
  is not a person the turn named.

:func:`read_starts` reads a start told by its consequence ("first week at PwC done", "two weeks into Bristol
life", "Jamie's started his new job in Berlin"): the new home, workplace or school of the user, or of the person
the sentence opens on. :func:`context_facts` runs both after the turn's own rules, for what they left empty.

Everything here proposes at a lower confidence (:data:`CONFIDENCE`) than a stated fact, marked
:data:`~.base.READ_BY_TOPIC`; an explicit statement of the same relation later replaces it through the usual
single-valued slot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ..text.dates import CALENDAR_NAMES
from ..text.lexicon import PLACES, RELS
from ._objects import clean_object
from .base import READ_BY_TOPIC, CandidateFact

__all__ = ["CONFIDENCE", "STUDY_WORDS", "TOPICS", "Topic", "context_facts", "read_context", "read_starts"]

CONFIDENCE = 0.6
"""Confidence of a relation read from the topic of a sentence (a stated fact is 0.8)."""

_I = re.IGNORECASE


class Topic(NamedTuple):
    """One relation told by its topic: words of the topic, prepositions that attach the name, the value's kind."""

    predicate: str
    kind: str
    words: re.Pattern[str]
    preps: tuple[str, ...]


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", _I)


TOPICS: tuple[Topic, ...] = (
    Topic("lives_in", "place", _words(
        r"landlord", r"landlady", r"letting agent", r"rent", r"lease", r"tenancy", r"council tax", r"neighbou?rs?",
        r"round here", r"around here", r"rain(?:ed|ing|y|s)?", r"snow(?:ed|ing|s)?", r"heat ?wave", r"humid(?:ity)?",
        r"\d{2,3} ?(?:degrees|°|f\b|c\b)", r"it'?s \d{2,3}", r"(?:first|second|third|fourth|fifth|\d+(?:st|nd|rd|th)) "
        r"(?:winter|summer)", r"years? (?:of )?living", r"living in", r"new(?:-ish)? to the (?:city|area|town)",
        r"our (?:flat|house|home|street|road|area|apartment|place)", r"my (?:flat|apartment|street|road|area)",
        r"commute"), ("in",)),
    Topic("works_at", "org", _words(
        r"shifts?", r"rota", r"my boss", r"my manager", r"line manager", r"colleagues?", r"co-?workers?",
        r"busy season", r"payroll", r"appraisal", r"probation", r"annual leave", r"overtime", r"on call",
        r"my team", r"the office", r"my office", r"at work", r"work(?:ing)? (?:late|nights)",
        r"clock(?:ed)? (?:in|off)", r"staff room", r"my desk", r"my (?:students|pupils|patients|customers|clients)",
        r"year \d+s"),
        ("at", "for")),
    Topic("studies_at", "org", _words(
        r"uni", r"university", r"degree", r"modules?", r"lectures?", r"lecturers?", r"seminars?", r"dissertation",
        r"coursework", r"sixth form", r"tutors?", r"halls", r"studying"), ("at",)),
    Topic("member_of", "org", _words(
        r"club", r"session", r"training", r"rehearsals?", r"members?", r"membership", r"league", r"fixtures?",
        r"track (?:night|session)", r"parkrun", r"choir", r"squad", r"(?:home|away) game", r"season ticket"),
        ("with",)),
)
"""The relations a topic tells, as data (order: the first relation to claim a name keeps it)."""
_ANY_TOPIC = re.compile("|".join(t.words.pattern for t in TOPICS), _I)
"""Every topic word at once: the pre-test of a turn."""

_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|Im|my|me|mine|we|we're|we've|our|ours|us)\b", _I)
_SOMEONE_ELSE = re.compile(r"\b(?:he|she|they|his|her|their|him|them|" + RELS + r")\b", _I)
_GUARD = _words(
    r"visit(?:ing|ed)?", r"trip", r"holidays?", r"vacation", r"flying", r"flight", r"going to",
    r"heading (?:to|down|up)", r"weekend in", r"day in", r"week in", r"off to", r"conference", r"wedding", r"stag",
    r"hen do", r"tour",
    r"next (?:week|month|year|weekend)", r"tomorrow", r"planning", r"plan to", r"thinking (?:of|about)", r"might",
    r"would", r"could", r"should I", r"if", r"hotel", r"airbnb", r"tourist", r"used to", r"back when", r"when I was",
    r"grew up", r"first job", r"old job", r"no longer", r"any ?more", r"ex-", r"interview",
    r"apply(?:ing)?", r"application", r"offer", r"moving to", r"move to", r"looking at", r"open day",
    r"last (?:day|shift|session|service|game|match|week|month)", r"notice", r"quit", r"left", r"leaving", r"resign\w*",
    r"g[ai]ve up", r"handed", r"cleared", r"former", r"previous", r"until", r"moved out", r"sold", r"storage",
    r"(?:i'?m|i am|we'?re|we are) (?:at|in) [\w' -]{2,40}? (?:now|right now|at the moment)", r"waiting")
_WORKMATES = re.compile(r"\bmy (?:line |new )?(?:boss|manager|colleagues?|co-?workers?|team ?lead)\b", _I)
"""A workmate of the user's: a sentence about them still tells where the user works ("my manager at Capita")."""
_NAMED_PERSON = re.compile(r"(?:^|\s)(?-i:[A-Z][a-z]+)(?=\s+(?:on|from|in) (?:my|our) (?:team|class|course|ward|"
                           r"shift|floor)\b|,? who\b)|(?<=\s)(?-i:[A-Z][a-z]+)(?=\s+(?:is|was|has|says|said)\b)")
"""A named person before the name ("Raj on my team is always at Fenwick"): the sentence is about them."""
_DENIED = _words(r"not", r"never", r"n't")
"""A denial before the name ("I don't work at Asda"); after it, the sentence says something else of it."""
_ASKED_TAIL = re.compile(r"[,;:]\s*[^,;:]*\?\s*$|\?\s*$")
"""A question at the end of a sentence ("..., any tips?"): what is told before it still holds."""


def _told(sentence: str) -> str:
    """``sentence`` without a trailing question after a comma ("Night shifts at Asda are killing me, any tips?");
    empty when the whole sentence asks."""
    sentence = sentence.strip()
    if not sentence.endswith("?"):
        return sentence
    cut = _ASKED_TAIL.search(sentence)
    return sentence[:cut.start()].strip() if cut is not None and sentence[cut.start()] != "?" else ""


_NAME = re.compile(r"(?P<o>(?-i:[A-Z])[\w'&.-]*(?:\s+(?:of |the |and |& |on |upon )?(?-i:[A-Z0-9])[\w'&.-]*){0,4})")
_NOT_A_NAME = CALENDAR_NAMES | frozenset("i xmas the a my our dr mr mrs ms miss prof".split())
"""First words after a preposition that start no name of a place or a firm: a time, a title ("with Dr Khan")."""
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _names_after(sentence: str, preps: Sequence[str]) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for prep in preps:
        for m in re.finditer(r"\b" + prep + r"\s+(?:the\s+)?", sentence, _I):
            tail = sentence[m.end():]
            name = _NAME.match(tail)
            if name is not None and name.group("o").split()[0].lower().strip(".,'!") not in _NOT_A_NAME:
                out.append((m.end(), name.group("o")))
            else:
                low = [w for w in (" ".join(tail.split()[:2]).strip(".,!;:"), tail.split(" ", 1)[0].strip(".,!;:"))
                       if w and w.islower() and w in PLACES]
                if low:
                    out.append((m.end(), low[0].title()))
    return sorted(out)


_START = re.compile(
    r"\b(?:(?:(?:my|our|his|her|their) )?(?:first|1st|opening)(?: full| proper)? (?:day|days|week|weeks|fortnight|"
    r"month|shift|term|half[- ]term|semester|night)|(?:\w+|\d+) (?:days|weeks|months) in(?:to)?(?: (?:my|the|our|his|"
    r"her|their) new (?:job|role|place|school|course|flat|house))?|(?:settled|moved) in(?:to)? (?:the |our |my |his |"
    r"her |their )?new (?:place|flat|house|home|pad)|(?:the|our|my|his|her|their) new (?:place|flat|house|home|pad|"
    r"job|role|school|uni)|back(?: home)?|started(?: (?:(?:my|his|her|their) new job|work|a new job|uni|school|"
    r"college))?|(?:now|officially) (?:living|working|based|studying)|i'?m(?= at [^.!?]{2,40}\bsince\b)|"
    r"(?:\w+|\d+) (?:days|weeks|months)(?= into ))"
    r" (?P<prep>at|in|with|into) (?:the )?", _I)
"""A start told by its consequence ("first week at PwC done", "settled into the new place in Bristol", "back in
melbourne after eight years", "Jamie's started his new job in Berlin"): the name after it is the new home (``in``)
or workplace/school (``at``) of the user, or of the person the sentence opens on."""
_LIFE = re.compile(r"\b(?:into|to) (?P<o>(?-i:[A-Z])[\w'-]+) life\b|\bkeys to (?:the|our|my) (?P<k>(?-i:[A-Z])[\w'-]+)"
                   r" (?:house|flat|place|home)\b", _I)
"""A new home told as its life or its keys ("two weeks into Bristol life", "keys to the Didsbury house")."""
_AWAY = _words(r"visit(?:ing|ed)?", r"trip", r"holidays?", r"vacation", r"weekend", r"for the day", r"conference",
               r"flights?", r"airport", r"queues?", r"delayed",
               r"wedding", r"stag", r"hen", r"tour", r"interview", r"open day")
_NOT_NOW = _words(r"if", r"would", r"might", r"could", r"planning", r"plan to", r"thinking", r"hoping", r"will",
                  r"going to", r"'ll", r"next", r"tomorrow", r"used to", r"back when", r"when I was", r"never", r"not",
                  r"n't", r"offer", r"wish")
_LATER = _words(r"tomorrow", r"next", r"will", r"'ll", r"going to", r"soon", r"starts?", r"starting")
"""A start still ahead ("first day at Riverside tomorrow", "the new job starts in May"): not a state yet."""
_PERSON_FIRST = re.compile(r"^\W*(?P<who>(?-i:[A-Z][a-z]+))(?:'s|\s+(?:is|has|was|just|finally|started|got|moved))\b")
"""A sentence opening on a person ("Jamie's started his new job in Berlin"): their news, not the user's."""
_MINE = _words(r"my", r"our", r"i", r"i'm", r"we")
"""Words that make a start the user's, not that of the person the sentence opens on ("Mark's started *my* old job")."""
_SCHOOL = _words(r"school", r"homework", r"year \d+", r"gcses?", r"a-levels?", r"nursery", r"teachers?")
"""Words that make "at <name>" someone else's school (a child's): the user's own may be where they teach."""
STUDY_WORDS = _words(r"dorm", r"uni", r"university", r"college", r"course", r"lectures?", r"semester", r"freshers",
                     r"campus", r"degree", r"modules?", r"transfer(?:red)?", r"students?", r"halls")
"""Words that make "at <name>" a place of study rather than of work."""
_TEACHING = _words(r"my class", r"pupils", r"my kids", r"staff", r"colleagues", r"boss", r"manager", r"salary",
                   r"shifts?", r"new class", r"teach(?:ing)?")


def read_starts(text: str, persons: set[str]) -> list[tuple[str, str, str, str]]:
    """New homes, workplaces and schools told by their consequence in ``text``: ``(subject, predicate, value,
    sentence)``.

    A name after a start (:data:`_START`, :data:`_LIFE`) with no plan, wish, negation or memory before it, and no
    visit or time ahead in the sentence. Whose: the user's, in a sentence about no one else (a third-person word
    in the start's part, or a sentence opening on a person: :data:`_PERSON_FIRST`); else the person the sentence
    opens on, when the start's words are theirs ("Jamie's started *his* new job in Berlin", never "*my*").
    ``in`` a place -> ``lives_in``; ``at`` a name -> ``studies_at`` where the message speaks of study
    (:data:`STUDY_WORDS`) and not of teaching or work, else ``works_at``.
    """
    if not _START.search(text) and not _LIFE.search(text):
        return []
    studying = bool(STUDY_WORDS.search(text)) and not _TEACHING.search(text)
    out: list[tuple[str, str, str, str]] = []
    for sentence in _SENTENCE.split(text):
        if not sentence.strip() or sentence.rstrip().endswith("?") or _AWAY.search(sentence) \
                or _LATER.search(sentence):
            continue
        opener = _PERSON_FIRST.match(sentence)
        who = opener.group("who").lower() if opener and opener.group("who").lower() not in persons else None
        for m in [*_LIFE.finditer(sentence), *_START.finditer(sentence)]:  # the more specific first
            before = sentence[:m.start()]
            piece = sentence[:m.end() + (sentence[m.end():] + ",").index(",")]  # up to the end of its own part
            if _NOT_NOW.search(before):
                continue
            if opener is None:
                if _SOMEONE_ELSE.search(_WORKMATES.sub("", piece)):
                    continue
                subject = "user"
            elif who is None or _MINE.search(piece[opener.end():]):
                continue
            else:
                subject = who
            if m.re is _LIFE:
                raw, prep = m.group("o") or m.group("k"), "in"
            else:
                prep = m.group("prep").lower()
                names = _names_after(sentence[m.start("prep"):], (prep,))
                if not names or names[0][0] > len(prep) + 5:
                    continue
                raw = names[0][1]
            if prep == "into":  # "two weeks into St Joseph's": a school or a workplace, unless a place
                prep = "in" if raw.lower() in PLACES else "at"
            learning = studying or (subject != "user" and bool(_SCHOOL.search(text)))
            predicate = "lives_in" if prep == "in" else "studies_at" if learning else "works_at"
            values = clean_object(raw, "place" if predicate == "lives_in" else "org")
            if values and values[0].split()[0].lower() not in persons | {subject} \
                    and all((w, p) != (subject, predicate) for w, p, *_ in out):
                out.append((subject, predicate, values[0], sentence.strip()))
                break
    return out


def read_context(text: str, found: set[str], persons: set[str]) -> list[tuple[str, str, str, str]]:
    """Relations of the user told by topic in ``text``: ``(predicate, value, sentence, topic word)`` each.

    Args:
        text: One user turn.
        found: The predicates the turn's own rules already gave a value for the user (not proposed again).
        persons: Lowercased names of people and values the turn's rules named (never a value; a sentence
            naming a person is about them).

    Returns:
        At most one value per relation, in the order of :data:`TOPICS`; a name claimed by one relation is
        not proposed for another.
    """
    if not _ANY_TOPIC.search(text) or not _FIRST_PERSON.search(text):  # most turns: one search each
        return []
    out: list[tuple[str, str, str, str]] = []
    taken: set[str] = set()
    for sentence in map(_told, _SENTENCE.split(text)):
        cues = [(topic, cue) for topic in TOPICS if topic.predicate not in found and sentence
                and (cue := topic.words.search(sentence))]  # the cheap test first: most sentences have no topic
        if not cues or _GUARD.search(sentence) or _SOMEONE_ELSE.search(_WORKMATES.sub("", sentence)) \
                or persons & set(re.findall(r"[a-z]+", sentence.lower())):
            continue
        for topic, cue in cues:
            if topic.predicate in found:
                continue
            for at, raw in _names_after(sentence, topic.preps):
                values = clean_object(raw, topic.kind)
                value = values[0] if values else None
                if not value or value.lower() in taken or value.split()[0].lower() in persons \
                        or _DENIED.search(sentence, 0, at) or _NAMED_PERSON.search(sentence, 0, at):
                    continue
                out.append((topic.predicate, value, sentence.strip(), cue.group(0)))
                found = found | {topic.predicate}
                taken.add(value.lower())
                break
    return out


def context_facts(text: str, found: Sequence[CandidateFact]) -> list[CandidateFact]:
    """The user's relations told by topic in ``text`` (:func:`read_context`) as candidate facts, given what
    the turn's own rules ``found`` (their predicates for the user, their people and values are left alone)."""
    own = {c.predicate.lstrip("@") for c in found if c.subject == "user"}
    named = {w for c in found for w in (c.subject, *(c.object.lower().split() if c.subject != "user" or
                                                     c.predicate.lstrip("@") in _PERSONAL else ()))} - {"user"}
    theirs = {(c.subject, c.predicate.lstrip("@")) for c in found if c.subject != "user"}
    out = [CandidateFact(who, predicate, value, "assert", CONFIDENCE, None, sentence, READ_BY_TOPIC)
           for who, predicate, value, sentence in read_starts(text, named - {c.subject for c in found})
           if (predicate not in own if who == "user" else (who, predicate) not in theirs)]
    own |= {c.predicate for c in out if c.subject == "user"}
    return out + [CandidateFact("user", predicate, value, "assert", CONFIDENCE, None, sentence, READ_BY_TOPIC)
                  for predicate, value, sentence, _ in read_context(text, own, named)]


_PERSONAL = frozenset({"works_at", "lives_in", "studies_at", "member_of", "partner_of", "married_to", "engaged_to",
                       "dating"})
"""The user's predicates whose values a topic must not propose again for another relation."""
