"""The new value a change names (pure): "switched *to giffgaff*", "swapped it *for a Niro*", "*PS5* gang now".

When a cue ends a current fact, the message often names what holds instead. This module reads that phrase
and the planner stores it as the ended fact's successor: the same subject and predicate (an open ``states``
fact stays open), valid from the change. Where the phrase is found, by class:

* the **destination of a change** ("moved *to Bristol*", "switched *to aldi*", "traded her in *for a Kia*",
  "jumped ship *to Deloitte*"): the span after the cue's ``to`` / ``into`` / ``for`` (:func:`destination`
  of the planner), or of another change verb in the same sentence ("Moved everything over *to Starling* and
  closed my Barclays account");
* after an ending of a job, home, membership, study or habit, a **proper name** the cue goes to or for
  ("left Tesco *for Aldi*"); a possession's or a pet's destination is who received it ("sold her *to a
  lad from Leeds*"), never a new state;
* a phrase marked as the **present alternative**, in the cue's sentence or the next one: "*X* instead",
  "*X* now" ("sold the xbox. *PS5* gang now.", "Started *Japanese* instead").

The phrase is cut at punctuation, a conjunction, a preposition or a time word, loses its leading
determiners and adjectives of age or novelty ("a used", "the new"), and must hold a content word and no
pronoun; otherwise nothing is added (precision first).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ..text.lexicon import POSSESSIONS
from ..types import Fact
from .cues import CueHit
from .guards import POSSIBLE, Known, check
from .lexicon import ANY, IDENTITY, RELATIONS, STOPWORDS
from .reading import destination
from .segments import Sentence, words
from .slots import same_slot
from .states import OPEN_PREDICATE
from .targets import FactInfo, fact_info, name_evidence

__all__ = ["NEW_STATE_CATEGORIES", "NewValue", "acquired", "after_handled", "clean_value", "new_value", "onward",
           "present_alternative", "proper_destination", "successors", "told_value", "without_repeats"]

NEW_STATE_CATEGORIES = frozenset({"job", "home", "membership", "study", "habit", "any"})
"""Categories whose ending may go *to* a new one named by a proper name ("left Tesco for Aldi"); a possession
or a pet goes to whoever received it."""


@dataclass(frozen=True)
class NewValue:
    """Add ``subject predicate object`` valid from ``at``: what holds now instead of ``replaces`` (``None``: a
    change whose old value the store never held, "ported my number to giffgaff": its new value is still told).
    ``subject`` and ``predicate`` are those of ``replaces`` when it is given."""

    replaces: Fact | None
    object: str
    at: datetime
    cue: str
    subject: str = ""
    predicate: str = ""

    def __post_init__(self) -> None:
        if self.replaces is not None:
            object.__setattr__(self, "subject", self.subject or self.replaces.subject)
            object.__setattr__(self, "predicate", self.predicate or self.replaces.predicate)

    @property
    def reason(self) -> str:
        """The decision's reason."""
        if self.replaces is None:
            return f"told: cue {self.cue!r} names a new state of {self.subject}"
        return f"replaced: cue {self.cue!r} names the new value of {self.predicate}"

_I = re.IGNORECASE
_CUT = re.compile(
    r"\s*(?:[.,;:!?()\"—–]|\s-\s|\b(?:and|but|so|because|cos|as|which|who|where|when|while|after|before|since|until|"
    r"last|this|next|on|in|at|from|for|to|by|with|through|via|during|off|lol|haha|lmao|now|instead|though|tho|tbh|today|yesterday|tonight|"
    r"then|too|again|anyway|finally|ago|is|was|are|were|has|had|will|it's|which)\b)", _I)
_LEAD = re.compile(r"^(?:(?:to|into|for|with|in favou?r of|against|a|an|the|my|our|his|her|their|some|used|new|"
                   r"brand[- ]new|second[- ]hand|secondhand|shiny|little|lovely|proper|old|just|over|down|up|back|"
                   r"across)\s+)+", _I)
_PRONOUNS = frozenset("i me we us you he she it they them him her his hers its their one someone something".split())
_PEOPLE = frozenset(RELATIONS) | frozenset("lad guy bloke man woman girl boy couple family friend mate buyer dealer "
                                           "neighbour neighbor person people".split())
_WORD = re.compile(r"[\w&+'-]+")
MAX_WORDS = 5
"""A new value longer than this is a clause, not a name: nothing is added."""

_INSTEAD = re.compile(r"(?P<phrase>[^.;!?—–]{1,60}?)\s+(?:instead|now)\b(?!\s+(?:that|of|and)\b)", _I)
_SUBJECT_VERB = re.compile(
    r"^\s*(?:(?:so|and|but|ok|well|now)\s+)?(?:(?:i|we|he|she|they)(?:'m|'re|'s|'ve| am| are| is| have| has)?\s+)?"
    r"(?:(?:just|officially|finally|also)\s+)?(?:(?:started|start|starting|doing|do|using|use|taking|take|playing|"
    r"play|learning|learn|joined|got|get|getting|on|into|going to|go to|riding|driving|drive|been|become|became)\s+)?",
    _I)
_NAMED = re.compile(r"(?<!^)[A-Z]|^[A-Z](?!\s|$)|\d")
_PROPER = re.compile(r"^(?:[A-Z][\w&+'-]*|[A-Z0-9]{2,}[\w&+-]*)(?:\s+[A-Z0-9][\w&+'-]*){0,3}")


_ACQUIRED = re.compile(
    r"(?:(?:^|[,;:—–]|\s-\s|\band\b|\bthen\b|\bso\b)\s*(?:(?:i|we)(?:'ve)?\s+)?(?:(?:just|finally|also|then)\s+)?"
    r"(?:bought|got|picked up|ordered|built|treated (?:myself|ourselves) to|drove (?:away|off|home) in)"
    r"|\b(?:gave|given|got|bought) (?:me|us))"
    r"\s+(?P<obj>(?:a|an)\s+[^.;!?—–]{2,60})", _I)


def clean_value(phrase: str) -> str | None:
    """The name a phrase gives a new state, or ``None`` when it names none (see the module docstring)."""
    text = _LEAD.sub("", phrase.strip())
    cut = _CUT.search(text)
    if cut is not None:
        text = text[: cut.start()]
    text = _LEAD.sub("", text.strip()).strip(" '\"")
    ws = _WORD.findall(text.lower())
    if not ws or len(ws) > MAX_WORDS or any(w in _PRONOUNS for w in ws) or ws[-1] in _PEOPLE:
        return None
    if all(w in STOPWORDS for w in ws):
        return None
    return text


def proper_destination(span: str) -> str | None:
    """A destination span that is a proper name ("for *Aldi*", "to *Google*"): the new employer, home or
    club after an ending; else ``None`` (a recipient, a reason, a common noun)."""
    text = _LEAD.sub("", span.strip())
    m = _PROPER.match(text)
    return clean_value(m.group(0)) if m else None


def present_alternative(text: str) -> str | None:
    """The phrase a sentence marks as what holds now ("Started *Japanese* instead", "*PS5* gang now"), or
    ``None``. Only the words right before the marker, after a subject and a verb of taking up."""
    m = _INSTEAD.search(text)
    if m is None:
        return None
    phrase = re.split(r"[,:]|\s-\s|\b(?:and|but|so)\b", m.group("phrase"), flags=_I)[-1]
    value = clean_value(_SUBJECT_VERB.sub("", phrase, count=1))
    if value is not None and m.group(0).lower().endswith("now") and not _NAMED.search(value):
        return None  # "I'm skint now": a feeling; "now" marks a new state only with a name or a number
    return value


def new_value(text: str, sentences: list[Sentence], known: Known, hit: CueHit, ended: Sequence[FactInfo],
              hits: Sequence[CueHit]) -> str | None:
    """What the cue's sentence names as holding instead of what it ended : the
    destination of a change (this cue's or another change verb's in the sentence), a proper name an ending
    of a job, home, club, study or habit goes to, else an alternative marked "instead" / "now" after the cue
    or in the next sentence."""
    dest = destination(text, sentences, hit)
    if hit.cue.kind == "change" and dest[1] > dest[0]:
        return clean_value(text[dest[0]:dest[1]])
    if dest[1] > dest[0] and all(i.category in NEW_STATE_CATEGORIES for i in ended) and (
            found := proper_destination(text[dest[0]:dest[1]])):
        return found
    for other in hits:
        if other is not hit and other.sentence == hit.sentence and other.cue.kind == "change" and check(
                text, sentences[other.sentence], other.clause, other, known).guard is None:
            span = destination(text, sentences, other)
            if span[1] > span[0] and (found := clean_value(text[span[0]:span[1]])):
                return found
    sentence = sentences[hit.sentence]
    following = sentences[hit.sentence + 1].text if hit.sentence + 1 < len(sentences) else ""
    found = present_alternative(text[hit.end:sentence.end]) or present_alternative(following)
    if found is None and ended and all(i.category in NEW_STATE_CATEGORIES for i in ended):
        found = onward(text[hit.end:sentence.end]) or onward(following)
    mine = all(i.fact.subject == "user" and i.category in ("possession", ANY) for i in ended) if ended else (
        hit.cue.kind == "change" and "possession" in hit.cue.categories)  # a trade-in of a thing never stored
    if found is None and mine:
        return acquired(sentences, hit.sentence)
    return found


_ONWARD = re.compile(r"\b(?:gone|moved|headed|jumped ship|joined|started at|now at|now with)\s+(?:over\s+|across\s+)?"
                     r"(?:to\s+)?(?P<o>[^.;!?]{2,60})", _I)


def onward(text: str) -> str | None:
    """Where the subject of an ending went next, told after it ("left Arup - she's *gone to Google*", "quit
    the Nuffield and *joined PureGym*"): a proper name only, the new one of the ended job, home or club."""
    for m in _ONWARD.finditer(text):
        if "?" not in text[m.end():m.end() + 1] and not POSSIBLE.search(text[:m.start()]) and (
                found := proper_destination(m.group("o"))):
            return found
    return None


def acquired(sentences: list[Sentence], around: int) -> str | None:
    """What the user got in sentence ``around`` or next to it ("sold the Brompton, *bought a Cannondale*", "work
    gave me *a MacBook Pro*, so I passed the ThinkPad on"): a possession's successor. Only a thing new to them
    ("a" / "an"), got by the user (no other subject before the verb) or given to them; never in a question or
    a possibility."""
    for k in (around, around + 1, around - 1):
        if not 0 <= k < len(sentences) or "?" in sentences[k].text or POSSIBLE.search(sentences[k].text):
            continue
        m = _ACQUIRED.search(sentences[k].text)
        value = clean_value(m.group("obj")) if m is not None else None
        if value is not None and (_NAMED.search(value) or any(w in POSSESSIONS for w in value.lower().split())):
            return value  # a named thing or a possession ("a Trek hybrid", "an e-bike"); not "a good price"
    return None


def after_handled(text: str, sentences: list[Sentence], known: Known, held: Sequence[FactInfo],
                  hits: Sequence[CueHit], facts: Sequence[Fact], at: datetime) -> dict[tuple[str, str], NewValue]:
    """New values named in sentences whose ending the extractor itself made ("sold the xbox. PS5 gang
    now."): the fact it closed at ``at`` and named in the sentence is what the value replaces."""
    closed = [fact_info(f) for f in facts if f.valid_from < at and f.valid_to is not None and f.valid_to == at]
    out: dict[tuple[str, str], NewValue] = {}
    for hit in hits if closed else ():
        sentence = sentences[hit.sentence]
        if check(text, sentence, hit.clause, hit, known).guard is not None:
            continue
        ended = [i for i in closed if name_evidence(i, words(text, sentence.start, sentence.end)) >= 0.8]
        value = new_value(text, sentences, known, hit, ended, hits) if ended else None
        if value is None:
            continue
        for info in successors(ended, value, held):
            out.setdefault((info.fact.subject, info.fact.predicate), NewValue(info.fact, value, at, hit.cue.name))
    return out


_PURPOSE = frozenset("be live work stay study help look care get go see spend start join move settle retire "
                     "train teach raise save pay buy rent share".split())
"""Verbs after "to" that make a purpose, not a destination ("moved out *to live* with her boyfriend")."""


def told_value(text: str, sentences: list[Sentence], known: Known, hit: CueHit, hits: Sequence[CueHit],
               subject: str, held: Sequence[FactInfo], at: datetime) -> NewValue | None:
    """The new state a change names when nothing it could replace was held ("ported my number *to giffgaff*",
    "he's gone *to Google*"): told as an open state of ``subject`` from ``at``. Only a cue of change, or an
    ending of a job, home, club, study or habit (whose destination is a new one of its kind, never a
    possession's recipient); nothing when ``subject`` already holds a fact naming the value (``held``)."""
    if hit.cue.kind != "change" and not hit.cue.categories <= NEW_STATE_CATEGORIES:
        return None
    dest = destination(text, sentences, hit)
    if dest[1] > dest[0] and text[dest[0]:dest[0] + 5].lower() == "with ":
        return None  # "swapped shifts *with* a colleague": who took part, not where the change went
    value = new_value(text, sentences, known, hit, [], hits)
    if value is None or value.split()[0].lower() in _PURPOSE:
        return None
    said = words(value) + (words(text, dest[0], dest[1]) if dest[1] > dest[0] else [])
    if any(i.fact.subject == subject and name_evidence(i, said) >= 0.8 for i in held):
        return None  # the value, or what else the destination names ("... and back to Monzo"), is held
    return NewValue(None, value, at, hit.cue.name, subject=subject, predicate=OPEN_PREDICATE)


def without_repeats(values: Iterable[NewValue]) -> tuple[NewValue, ...]:
    """``values`` without a told value that another change of the message already gives as a replacement."""
    found = list(values)
    replaced = {(n.subject, n.object.lower()) for n in found if n.replaces is not None}
    return tuple(n for n in found if n.replaces is not None or (n.subject, n.object.lower()) not in replaced)


def successors(ended: Sequence[FactInfo], value: str, held: Sequence[FactInfo]) -> list[FactInfo]:
    """The ended facts a new value replaces: one per subject and predicate, none whose subject already holds
    the value (a repeat), none of who someone is to the user."""
    words_of_value = words(value)
    if any(name_evidence(i, words_of_value) >= 0.8 and not same_slot(value, i.fact.object)  # "senior" for "junior"
           for i in held if i.fact.subject in {e.fact.subject for e in ended}):
        return []
    return [i for i in ended if i.category not in (IDENTITY, "relationship")]
