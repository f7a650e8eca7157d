"""Readings of a cue's clause (pure): which words are its object, who acts, what a word refers to.

The planner (:mod:`.planner`) asks these before it scores candidates, so that a cue lands on the state the
clause is about: the cue's own object ("cancelled *the dentist* on Monday"), a thing that acts rather than
ends ("*Netflix* cancelled my favourite show"), a thing's part ("the MX-5's *clutch* is done"), an owner's
possessive ("gave away *Biscuit's* toys"), a determiner ("*this* week"), the subject "it" / "that".
"""

from __future__ import annotations

import re

from .cues import CueHit
from .guards import Actor
from .lexicon import AFFIRM, STOPWORDS
from .segments import Sentence, Word, words
from .targets import FactInfo, category_fit, describes, name_evidence, named_fit

_TO = re.compile(r"\b(?:to|into|for|with|in favou?r of|against)\b", re.IGNORECASE)  # "traded it in *against* a Kia"
_GERUND_BEFORE = re.compile(r"\s+\w+ing\s*", re.IGNORECASE)
_FROM = re.compile(r"\b(?:from|out of)\b", re.IGNORECASE)

__all__ = [
    "ANOTHER",
    "PRONOUNS",
    "about_something_else",
    "goes_on",
    "agent",
    "destination",
    "determiner",
    "object_place",
    "object_words",
    "owner_of_next",
    "subject_pronoun",
    "thing_named_nothing",
]

PRONOUNS = frozenset({"it", "her", "him", "them", "that", "this", "she", "he"})
"""Words that refer back to something named before."""
_PASSIVE = frozenset("is was were been being be got gets get getting has had have it's".split())
"""Words between a thing and its cue that make the thing what the cue happened to."""
_NEXT_WORD = re.compile(r" ([A-Za-z][\w'-]*)")
_AUX = frozenset("is was were has had have will would did does do got one".split())
"""After "this" / "that", the words that leave it a pronoun ("that was sad", "this one")."""
_BREAK = re.compile(r"[,;:.!?()—–-]")
ANOTHER = frozenset("other another second new old former previous".split())
"""After "my" / "the", a word that makes the noun another one than the state held ("my other job")."""
_STOP = re.compile(r"[;:.!?()—–]")
_NOT_OBJECT = frozenset("in on at after before since for from with to by of about because and but so when while "
                        "until as than or over up down off out through across around during into onto within "
                        "without like via per near behind along past till".split())
"""Words that end the object right after a verb ("retired *on Friday after twenty years*": no object)."""
_PREPOSITIONS = _NOT_OBJECT - {"and", "or", "but", "so"}
"""Words that end an object phrase that may go on across "and" ("cut out sugar *and booze*")."""
_NOT_A_NOUN_AFTER_HER = frozenset("last this yesterday today tonight now then again too either because once twice "
                                  "already just still a an the".split())
"""After "her", words that leave it the object pronoun ("dumped her last week", "left her again")."""


def determiner(text: str, w: Word) -> bool:
    """Whether "this" / "that" at ``w`` goes with the noun after it ("*this* week", "*that* job"), or "her" is a
    possessive before its noun ("finished *her* retraining", not "dumped her last week"): no pronoun."""
    if w.low == "her":
        nxt = _NEXT_WORD.match(text, w.end)
        return nxt is not None and nxt.group(1).lower() not in _AUX | _NOT_OBJECT | _NOT_A_NOUN_AFTER_HER
    return w.low in ("this", "that") and _before_a_noun(text, w)


def _before_a_noun(text: str, w: Word) -> bool:
    """Whether a word follows ``w`` that is not an auxiliary ("this *week*", not "that *was* sad")."""
    nxt = _NEXT_WORD.match(text, w.end)
    return nxt is not None and nxt.group(1).lower() not in _AUX


def subject_pronoun(clause_words: list[Word], hit: CueHit) -> Word | None:
    """The "it" / "that" / "this" (also "it's", "that's") that is the subject of the cue: the last one before it
    in its clause ("She's fine but *it's* being written off", "So *that's* over")."""
    before = [w for w in clause_words if w.start < hit.start and w.low.split("'")[0] in ("it", "that", "this")]
    return before[-1] if before else None


def object_words(text: str, hit: CueHit, clause_words: list[Word]) -> list[Word]:
    """The content words of the cue's own object: after it, up to the first preposition or conjunction
    ("cancelled *the dentist* on Monday"; "retired on Friday": none)."""
    out = []
    end = hit.end
    for w in (w for w in clause_words if w.start >= hit.end):
        if w.low in _NOT_OBJECT or _BREAK.search(text, end, w.start):  # "lapse this week, nothing on it": ends
            break
        end = w.end
        if w.low not in STOPWORDS and w.low not in PRONOUNS and not w.low.isdigit() and not w.low.endswith("ly"):
            out.append(w)
    return out


_ATTACHING = frozenset({"at", "with"})
"""Prepositions that put the cue's object at the held state it belongs to ("my Saturdays at Oxfam")."""


def object_place(text: str, found: list[Word], clause_words: list[Word]) -> list[Word]:
    """The words of the place the cue's object (``found``: :func:`object_words`) is at, right after it: "given up
    my Saturdays *at Oxfam*", "quit my shifts *with the Co-op*" (up to the next preposition or conjunction); none
    when the object is followed by anything else."""
    if not found:
        return []
    out: list[Word] = []
    rest = [w for w in clause_words if w.start >= found[-1].end]
    if not rest or rest[0].low not in _ATTACHING or _STOP.search(text, found[-1].end, rest[0].start):
        return []
    for w in rest[1:]:
        if w.low in _PREPOSITIONS or _STOP.search(text, rest[0].end, w.start):
            break
        out.append(w)
    return out


def about_something_else(text: str, hit: CueHit, clause_words: list[Word], scope: list[FactInfo]) -> bool:
    """Whether the cue's own object is something the user's facts do not hold, and nothing after the cue names
    one: "took the Raleigh to the tip and sold *that lawnmower*" is about the lawnmower, not the Raleigh."""
    found = object_words(text, hit, clause_words)
    first = next((w for w in clause_words if w.start >= hit.end), None)
    if hit.cue.noun or not found or (found[0].low.endswith("ing") and found[0] is first):
        return False  # "stopped *going* to the class": a gerund's object is after its preposition ("her retraining"
        # is a noun: what ended is the retraining)
    after = []  # the object phrase, "let *Peacock* lapse" inside the cue too, "sugar *and booze*" conjoined
    for w in (w for w in clause_words if w.start >= hit.start):
        if w.start >= hit.end and (w.low in _PREPOSITIONS or _STOP.search(text, hit.end, w.start)):
            break
        after.append(w)
    after += object_place(text, found, clause_words)
    endable = [i for i in scope if named_fit(i.category, hit.cue.categories, name_evidence(i, after)) > 0]
    return not any(name_evidence(i, [w]) > 0 or describes(i, w.low) for i in endable for w in after)


def thing_named_nothing(actor: Actor, hit: CueHit, scope: list[FactInfo]) -> bool:
    """Whether the subject is a thing that names or describes nothing the cue could end: the cue is about that
    thing ("my Aldi shift was cancelled", "the Octavia's service is done"), not about a held state."""
    if actor.kind != "thing" or actor.owner or not actor.name:
        return False
    said = words(actor.name)
    endable = [i for i in scope if category_fit(i.category, hit.cue.categories) > 0]
    return not any(name_evidence(i, said) > 0 or any(describes(i, w.low) for w in said) for i in endable)


def owner_of_next(text: str, w: Word, hit: CueHit) -> bool:
    """Whether ``w`` after the cue is a possessive before its noun ("gave away *Miso's* toys") or a noun modifying
    a part or an accessory ("sold my old *bike* helmet", "cancelled the *car* insurance"): the owner of what
    ended, or what it was for, not what ended."""
    if w.start < hit.end:
        return False
    if w.low.endswith("'s") and _before_a_noun(text, w):
        return True
    after = _NEXT_WORD.match(text, w.end)
    return after is not None and after.group(1).lower() in ACCESSORIES


ACCESSORIES = frozenset("helmet helmets case cover charger seat rack lock wheels wheel tyres tires saddle pedals "
                        "lights keys cable strap bag box mount stand bell pump insurance warranty parts".split())
"""Nouns of a part or an accessory of a thing: the thing's name before one is a modifier ("bike helmet")."""
_NEXT_WORD = re.compile(r"\s+([\w-]+)")


def agent(text: str, actor: Actor, hit: CueHit, clause_words: list[Word]) -> bool:
    """Whether a thing is the *agent* of the cue, not what ended: the active subject of a verb with an object
    of its own ("Netflix cancelled my favourite show", "the club cancelled training"). A passive or
    intransitive cue ends its subject ("the Octavia got written off", "the café closed down")."""
    if actor.kind != "thing" or actor.owner or not object_words(text, hit, clause_words):
        return False
    between = {w.low for w in clause_words if w.start < hit.start}
    return between.isdisjoint(_PASSIVE)


def destination(text: str, sentences: list[Sentence], hit: CueHit) -> tuple[int, int]:
    """The span of a cue's clause naming the *new* state ("moved *to Lyon*", "swapped it *for a Tesla*")."""
    if hit.cue.negated:  # "not with the NHS any more", "no longer with Tom": what follows is what ended
        return (0, 0)
    clause = sentences[hit.sentence].clauses[hit.clause]
    first = text.find(" ", hit.start, hit.end)  # after the cue's first word: "switched to X", "gave it to X"
    if hit.cue.object_after or first < 0:  # "said goodbye *to* the van": what follows is what ended
        first = hit.end
    m = _TO.search(text, first, clause.end)
    if m is None or _GERUND_BEFORE.fullmatch(text, hit.end, m.start()):
        return (0, 0)  # "stopped *going* to the class": the gerund's place is what ended, not a new state
    back = _FROM.search(text, m.end(), clause.end) if hit.cue.kind == "change" else None  # "to X from Y"
    return (m.start(), back.start() if back else clause.end)  # "sold her to a lad from Leeds": all the buyer


_BE = frozenset("is are was were am 's".split())
_GOES_ON = frozenset("survives survived stays remains remain staying".split())


def goes_on(part: list[Word]) -> list[Word]:
    """The words of a part of a message that name what it says goes on, around its :data:`~.lexicon.AFFIRM` word:
    the subject before a verb or a copula ("Netflix *survives*", "Aldi is *still* going"), else the object after
    it ("sold my strat ... *still* got the acoustic"); ``[]`` when the part says nothing goes on."""
    k = next((j for j, w in enumerate(part) if w.low in AFFIRM), None)
    if k is None:
        return []
    before = k > 0 and (part[k].low in _GOES_ON or part[k - 1].low in _BE or part[k - 1].low.endswith("'s"))
    return (part[:k] if before else part[k + 1:]) or part
