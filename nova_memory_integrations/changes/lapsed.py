"""What an ending says held before it (pure): a state never stored, named by the change that ends it.

"sold the civic on saturday" tells that the user had a Civic until Saturday, however the Civic was first
mentioned ("best way to get a wet dog smell out of a honda civic??", a question no state reader stores). When
an unguarded change cue ends nothing held, the planner keeps the content words of its clause
(:class:`Unheld`); the tracker looks each one up in the user's own earlier turns, and a word an earlier turn
names as a thing (:func:`named_thing`) becomes the state it was (:class:`Lapsed`): valid from that earlier
turn until the change, learnt now (bi-temporal: what was known before the change never held it), with both
turns as provenance.

A word names a thing in an earlier turn when it is (by class):

* part of a **known name** (:mod:`~nova_memory_integrations.text.known_names`: "civic", "hellofresh",
  "Disney+" for "disney");
* a **capitalised name** inside a sentence there or in the change's clause ("the *Copper Kettle*",
  "*St Mary's*", "called *Static Owls*"), taken whole;
* a thing the speaker **calls theirs or names** ("*my allotment*", "a staffie *called tyson*").

Never a word of what the change goes to (its destination), a time, a number, a pronoun, a word that describes
any state of a category ("job", "house", "membership": they name no state of their own), or the acting
person's own name. Precision first: only words both turns hold, so a change of something the user never
mentioned adds nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from ..text.known_names import find_names, value_names
from .cues import CueHit
from .guards import Actor
from .lexicon import PAST_FORMS, RELATIONS, STOPWORDS
from .reading import PRONOUNS, destination, object_words
from .segments import Sentence, words
from .states import OPEN_PREDICATE
from .targets import CATEGORY_NOUNS

__all__ = ["MAX_WORDS", "PREDECESSOR_KINDS", "Lapsed", "Unheld", "lapsed", "named_thing", "predecessor", "unheld"]

MAX_WORDS = 6
"""At most this many words of one clause are looked up in the earlier turns."""
_NO_STATE = frozenset().union(*CATEGORY_NOUNS.values()) | frozenset(
    "thing things stuff lot bit way app account name end start time times years months weeks days hours ago back off "
    "out over away down up gone done knee knees hip hips back neck shoulder shoulders ankle ankles wrist wrists foot "
    "feet leg legs arm arms hand hands head eye eyes tooth teeth heart skin hair brain body".split()
) | frozenset(RELATIONS)
"""Words that describe a state of any kind, or none, a person or a part of one: never the name of a state."""
_DETERMINERS = frozenset({"the", "my", "our", "that"})
_PART = re.compile(r"[,;:()—–]|\s-\s")
_TOKEN = r"[A-Z][\w'+&-]*(?:\.\w+)*"
_CAPITALISED = re.compile(rf"(?-i:{_TOKEN})(?:[ \t]+(?:of[ \t]+|&[ \t]+)?(?-i:{_TOKEN}))*")
"""A run of capitalised words ("The Golden Haddock", "St Mary's", "Disney+"), never across a sentence's end."""
_PHRASE_ENDS = "|".join(re.escape(w) for w in sorted(STOPWORDS | set(
    "and but or to for with at in on from by of because cos since which who where".split())))
_NAMED_BY = r"\b(?:my|our|called|named)\s+(?:[\w'-]+\s+){{0,2}}?{word}(?=\s*(?:[^\w\s]|$|(?:{ends})\b))"
"""The speaker's own thing ("my allotment is", "a staffie called tyson who"): the word heads its noun phrase
(what follows it is punctuation, the end, or a word of :data:`_PHRASE_ENDS`; "my current account": not
"current")."""
_SOMEONE_ELSE = frozenset({"he", "she", "his", "her", "him", "they", "their", "he's", "she's", "they're"}) | \
    frozenset(RELATIONS)
"""Words before a thing in its sentence that make it another person's ("my partner Jamie's a barista at Pret")."""


@dataclass(frozen=True)
class Unheld:
    """An unguarded change cue that ended nothing held: whose news it is (``subject``), the candidate words of
    its clause (lower-case, in order), the clause, when the change holds and the cue."""

    subject: str
    words: tuple[str, ...]
    clause: str
    at: datetime
    cue: str
    object: tuple[str, ...] = ()
    """Those of ``words`` the cue's own object holds ("sold *my old PS4* on ebay", "handed *the Niro* back"):
    what the change ended, never what it goes to."""


@dataclass(frozen=True)
class Lapsed:
    """``subject predicate object`` held from ``since`` (the earlier turn ``since_episode`` that names it) until
    ``until`` (the change that ends it)."""

    subject: str
    predicate: str
    object: str
    since: datetime
    since_episode: str
    until: datetime
    cue: str

    @property
    def reason(self) -> str:
        """The decision's reason."""
        return f"held until its ending: cue {self.cue!r} names {self.object!r}, told on {self.since:%Y-%m-%d}"


def unheld(text: str, sentences: list[Sentence], hit: CueHit, actor: Actor, person: str | None,
           at: datetime) -> Unheld | None:
    """The :class:`Unheld` of a cue that ended nothing, the user's own (``None`` for a third party's news): the
    words of its part of the clause outside the cue itself and its destination that are marked as a thing's (a
    known name, a capital, after "the" / "my" / "our" / "that": "sold *the civic*"); ``None`` when none is left."""
    if person is not None or (actor.kind in ("third", "pronoun") and actor.name != "it"):
        return None
    clause = sentences[hit.sentence].clauses[hit.clause]
    dest = destination(text, sentences, hit)
    cuts = [m.end() for m in _PART.finditer(text, clause.start, hit.start)]
    after = _PART.search(text, hit.end, clause.end)
    found: list[str] = []  # the cue's part of its clause ("not giving up BJJ, just giving up *on that train*")
    part = words(text, cuts[-1] if cuts else clause.start, after.start() if after else clause.end)
    own = {w.low for w in object_words(text, hit, words(text, clause.start, clause.end))} | {
        w.low for w in part if hit.start <= w.start < hit.end}
    known = {w.low for h in find_names(text[part[0].start:part[-1].end]) for w in words(h.text)} if part else set()
    for i, w in enumerate(part):
        low = w.low.removesuffix("'s")
        marked = low in known or w.text[:1].isupper() or (i > 0 and part[i - 1].low in _DETERMINERS)
        if marked and low not in found and not dest[0] <= w.start < dest[1] and _names_a_state(
                low, hit.cue.name.split(), hit.start <= w.start < hit.end) and low not in actor.partner.split():
            found.append(low)
    if not found:
        return None
    return Unheld("user", tuple(found[:MAX_WORDS]), clause.text, at, hit.cue.name,
                  tuple(w for w in found[:MAX_WORDS] if w in own))


def _names_a_state(low: str, cue: list[str], in_cue: bool) -> bool:
    """Whether a word may name a state: not a word of the cue itself (its object inside it may: "handed *the
    allotment* back"), a function word, a generic or a body word, a number or an adverb."""
    if in_cue and (low in cue or low in PAST_FORMS or low.endswith(("ing", "ed"))):
        return False
    return len(low) >= 3 and low[0].isalpha() and not low.endswith("ly") and low not in STOPWORDS \
        and low not in PRONOUNS and low not in _NO_STATE


def named_thing(word: str, earlier: str, clause: str) -> str | None:
    """The value of the thing ``word`` names in the ``earlier`` turn (the change's ``clause`` may
    show its capitals instead), or ``None`` when that turn does not name it as a thing (see the module)."""
    first = re.search(rf"(?<!\w){re.escape(word)}(?!\w)", earlier, re.IGNORECASE)  # "disney+": no \b after "+"
    if first is None:
        return None
    word = word.rstrip("+")
    start = max(earlier.rfind(c, 0, first.start()) for c in ".!?\n") + 1
    if {w.low for w in words(earlier, start, first.start())} & _SOMEONE_ELSE:
        return None  # told of someone else: "my partner Jamie's a barista at *Pret*"
    for hit in find_names(earlier):
        if word in hit.text.lower().replace("+", " ").split():
            return hit.text
    for text in (earlier, clause):
        starts = _sentence_starts(text)
        for run_at in _CAPITALISED.finditer(text):
            run = run_at.group()
            if run_at.start() in starts and len(run.split()) > 1:
                run = run.split(None, 1)[1]  # "Started BJJ": a sentence's first word is capitalised anyway
            if word in [w.low.removesuffix("'s") for w in words(run)] and _inside(text, run_at.end() - len(run), run):
                return run.removesuffix("'s").strip(" .-")
    own = re.search(_NAMED_BY.format(word=re.escape(word), ends=_PHRASE_ENDS), earlier, re.IGNORECASE)
    if own is not None:  # the noun phrase after "my" up to the word
        return re.sub(r"^(?:my|our|called|named)\s+", "", own.group(), flags=re.IGNORECASE)
    return None


PREDECESSOR_KINDS = frozenset({"car", "motorbike", "bicycle", "phone", "device", "streaming", "bank", "telecom",
                               "energy", "insurer_or_utility_other", "gym"})
"""Known kinds one holds one of, whose change names the new one only ("moved to giffgaff"): an earlier turn's
other thing of the kind is what it replaced. Never an employer, a team or a medicine (named for many reasons)."""


def predecessor(value: str, earlier: str) -> str | None:
    """The one other known thing of ``value``'s kind (:data:`PREDECESSOR_KINDS`) that the user's ``earlier`` turn
    names as theirs ("*O2* want £42 a month to keep me on the same plan" before "moved to giffgaff"), or ``None``
    (no known kind, none or several named, or told of someone else)."""
    new = value_names(value)  # a stored value read as a name in its own right ("Max")
    kinds = set(new[0].kinds) & PREDECESSOR_KINDS if new else set()
    if not kinds:
        return None
    found = {h.text.lower(): h.text for h in find_names(earlier)
             if set(h.kinds) & kinds and h.text.lower() != new[0].text.lower()}
    if len(found) != 1:
        return None
    name = next(iter(found.values()))
    return name if named_thing(name.split()[0].lower(), earlier, "") is not None else None


def _sentence_starts(text: str) -> set[int]:
    """The offsets at which ``text``'s sentences start (after spaces)."""
    return {m.end() for m in re.finditer(r"(?:^|[.!?\n])[\s\"'(]*", text)}


def _inside(text: str, start: int, run: str) -> bool:
    """Whether a capitalised run names something: two words or more, or one not first in its sentence."""
    if len(run.split()) > 1 and run.split()[0].lower() not in STOPWORDS:
        return True
    before = text[:start].rstrip(" \"'(")
    return bool(before) and before[-1] not in ".!?\n:" and run.lower() not in STOPWORDS


def lapsed(item: Unheld, word: str, earlier: str, since: datetime, since_episode: str) -> Lapsed | None:
    """The :class:`Lapsed` state ``word`` of ``item`` names in an earlier turn said at ``since``, if any."""
    if since >= item.at:
        return None
    found = named_thing(word, earlier, item.clause)
    if found is None:
        return None
    return Lapsed(item.subject, OPEN_PREDICATE, found, since, since_episode, item.at, item.cue)
