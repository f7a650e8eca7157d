"""Clause shapes of a present state beyond "<subject> <verb> <object>" at a clause start (pure).

People rarely state what holds in the textbook shape. The state is told with the subject dropped
("renting a one-bed in Walthamstow", "been using vim for years"), after a time phrase ("Twelve years
I've had ..."), in a perfect with a duration ("Dan and I have been married eight years"), as the second
half of a coordination whose subject was said once ("my dad's 66 and still doing shifts at ..."), or
as a person or a pet named beside what they are to the user ("Biscuit (our beagle)", "Dev, the guy I
sit next to at Halcyon, ..."). Each helper here recognises one such shape of the clause, never a
phrase, and returns the parts :mod:`.states` turns into facts.
"""

from __future__ import annotations

import re

from ..text.dates import MONTHS, NUMBER_WORDS
from ..text.lexicon import RELS
from .segments import Sentence, asks

__all__ = [
    "DURATION", "GERUND_SUBJECT_END", "HABITUAL", "MAX_WORDS", "apposition", "before_others_change", "coordinated",
    "durative", "fit", "is_participle", "joint_subject", "recurrence", "relation_value", "strip_time_lead",
    "subjectless", "told_first",
]

_I = re.IGNORECASE
MAX_WORDS = 9
"""The longest phrase a state's value is: longer, it is a story, not a state."""
_NUM = (r"(?:\d{1,3}|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ][a-z]+)?|a couple of|a few|a|an|"
        + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True)) + r")")
_UNIT = r"(?:years?|yrs?|months?|weeks?|decades?)"
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
DURATION = re.compile(
    rf"(?<!twice)(?<!once)(?<!times)\s+(?:(?:for|about|nearly|almost|over|going on|just|under|around|roughly|well)\s+)*"
    rf"(?:the (?:last|past)\s+)?"
    rf"{_NUM}\s+{_UNIT}\b"
    rf"|\s+for\s+(?:ages|years|months|decades|a while|ever|donkey's years|as long as I can remember)\b"
    rf"|\s+since\s+(?:\d{{4}}|(?:{_MONTH})\b|uni\b|school\b|forever\b|I was\b|the\b|last\b|we\b|before\b|"
    rf"childhood\b|birth\b|day one\b)", _I)
"""A duration or a start told after a state ("for about ten years", "eight years", "since 2019"): it says
the state has held a while, and it is not part of the state's phrase."""
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
HABITUAL = re.compile(
    rf"\s*\b(?:every\s+(?:single\s+|other\s+)?(?:day|night|morning|evening|week|weekend|month|year|{_DAY})"
    rf"|on\s+{_DAY}s(?:\s+and\s+{_DAY}s)?|(?:most|some)\s+(?:days|nights|mornings|evenings|weekends|{_DAY}s)"
    rf"|(?:once|twice|\d+\s+times|{_NUM}\s+times)\s+a\s+(?:day|week|month|year)|as usual|daily|weekly|monthly"
    rf"|at the weekends?)\b", _I)
"""A recurring event's marker ("every Sunday", "on Tuesdays", "twice a week"): what it marks is a habit."""
_RECURRENCE_WORDS = ("every", "days", "most", "some", "once", "twice", "times", "usual", "daily", "weekly", "monthly",
                     "weekend")
"""A word each :data:`HABITUAL` marker holds: a text without one has no marker (a fast test first, the
marker's search is slow)."""


def recurrence(text: str) -> re.Match[str] | None:
    """The first recurring event's marker in ``text`` (:data:`HABITUAL`), else ``None``."""
    low = text.lower()
    return HABITUAL.search(text) if any(w in low for w in _RECURRENCE_WORDS) else None
_TIME_LEAD = re.compile(  # a duration, a start or a recurrence told first
    rf"^(?:(?:for\s+)?(?:(?:about|nearly|almost|over)\s+)?{_NUM}\s+{_UNIT}(?:\s+now)?"
    rf"|since\s+(?:\d{{4}}|(?:{_MONTH})(?:\s+\d{{4}})?|uni|school|forever)"
    r"|for\s+(?:ages|years|months|a while)"
    rf"|every\s+(?:single\s+|other\s+)?(?:day|night|morning|evening|week|weekend|month|{_DAY})|on\s+{_DAY}s)"
    r"\s*,?\s+(?=(?:I|we|my|our|me)\b|(?:still\s+)?[a-z]+ing\b)", _I)
_STATE_GERUNDS = frozenset(
    "running doing taking playing working volunteering living driving using teaching studying coaching attending "
    "riding managing leading singing training paying renting supporting following writing hosting caring "
    "swimming cycling learning dating fostering mentoring collecting growing brewing practising practicing "
    "organising organizing captaining chairing refereeing umpiring owning sharing".split())
"""Progressives that tell a state when their subject is dropped ("renting a flat in Leeds", "teaching Year 2
is ..."); not those of a passing activity ("watching", "looking", "going", "having")."""
_SUBJECTLESS = re.compile(r"^(?:(?:still|now|currently|also|just)\s+)*(?P<been>been\s+)?(?P<verb>[a-z]+ing)\b"
                          r"(?P<rest>.*)$", _I)
GERUND_SUBJECT_END = re.compile(r"\s+(?:is|was|are|has|have|means|makes|made|keeps|feels|takes|remains|can|could|must|"
                                r"will|would|should|helps|helped|lets|let|gives|brings|brought)\b", _I)
"""Where a gerund that is the subject ends ("teaching Year 2 is basically ..."): the rest is a comment."""
_JOINT = re.compile(r"^(?:(?:[Mm]y|[Oo]ur)\s+(?:(?P<rel>" + RELS + r")\s+)?"
                    r"(?P<relname>[A-Z][\w-]+)?\s*|(?:[Mm]e|I)\s+and\s+(?:my|our)\s+[\w-]+(?:\s+[\w-]+)?|"
                    r"(?!(?:My|Our|Me)\b)(?P<name>[A-Z][\w-]+))"
                    r"\s*(?:and\s+(?:I|me)\b)?", 0)
_PARTICIPLES = frozenset(
    "lived worked had owned run played used taught studied driven supported volunteered rented attended "
    "coached managed led sung trained followed written hosted kept ridden belonged banked shopped "
    "dated fostered mentored collected grown brewed practised practiced organised organized captained "
    "chaired refereed umpired shared".split())
"""Past participles of the state verbs: "have lived in Peckham for four years" is a state that holds."""
_RELATION_STATES = frozenset("married engaged together dating".split())
_CARRY = re.compile(r"\band\s+(?:(?:still|also|now|currently|even|always)\s+)+(?P<verb>[a-z]+ing|[a-z]+s)\b"
                    r"(?P<rest>.*)$")
_APPOSITION = re.compile(
    r"(?P<name>[A-Z][a-z][\w-]*)\s*(?:\(\s*(?:(?:my|our)\s+)?(?P<rel>" + RELS + r")\s*[),]"
    r"|\(\s*(?:my|our)\s+(?P<pet>(?:[\w-]+\s+){0,2}[\w-]+)\s*\)"
    r"|,\s+the\s+(?P<role>(?:[\w'-]+\s+){1,9}?(?:at|in|from|with|on)\s+[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*)\s*,)")


def strip_time_lead(body: str) -> str:
    """``body`` without a leading duration or start ("Twelve years I've had ...", "Since March we've ...")."""
    m = _TIME_LEAD.match(body)
    return body[m.end():] if m else body


def subjectless(body: str) -> tuple[str, str, bool] | None:
    """A clause opening with a state's progressive and no subject ("renting a one-bed in X", "been using
    vim for 12 years", "teaching Year 2 is ..."): ``(verb, rest, been)``, else ``None``."""
    m = _SUBJECTLESS.match(body)
    if not m or m.group("verb").lower() not in _STATE_GERUNDS:
        return None
    return m.group("verb").lower(), m.group("rest"), bool(m.group("been"))


def durative(verb: str, rest: str) -> str | None:
    """The state of a perfect with a duration ("been vegetarian for ten years", "been married eight years",
    "have lived together in Peckham for four years"): its phrase before the duration, else ``None`` (a
    perfect with no duration may be a one-off: "I've been ill")."""
    whole = f"{verb}{rest}"
    m = DURATION.search(whole)
    if not m or m.start() == 0:
        return None
    phrase = whole[: m.start()].strip(" ,")
    return phrase if phrase and len(phrase.split()) <= 8 else None


def is_participle(verb: str) -> bool:
    return verb.lower() in _PARTICIPLES


def joint_subject(body: str) -> tuple[str | None, int]:
    """``("dan", end)`` for a clause opening "Dan and I ..." / "my flatmate Kasia and I ...": the other person
    of a subject that includes the user (``None`` for "me and my wife"), and where the subject ends; ``(None,
    0)`` when the clause does not open with such a subject."""
    m = _JOINT.match(body)
    if not m or not re.search(r"\band\s+(?:I|me)\b|^(?:[Mm]e|I)\s+and\b", m.group(0)):
        return None, 0
    name = m.group("name") or m.group("relname")
    return (name.lower() if name else None), m.end()


def relation_value(phrase: str, partner: str | None) -> str:
    """"married" said of "Dan and I" is "married to Dan": the partner belongs in the user's state."""
    first = phrase.split()[0].lower() if phrase else ""
    if partner and first in _RELATION_STATES and len(phrase.split()) == 1:
        return f"{phrase} {'to' if first in ('married', 'engaged') else 'with'} {partner.capitalize()}"
    return phrase


def coordinated(body: str) -> tuple[str, str] | None:
    """The second predicate of a coordination that keeps its subject ("... is 66 and still doing early shifts
    at X"): ``(verb, rest)``; only after an aspect adverb (still, also, now), which marks a state going on."""
    m = _CARRY.search(body)
    return (m.group("verb").lower(), m.group("rest")) if m else None


_HANDLE = re.compile(r"\b(?:on|my)\s+(?P<platform>[A-Za-z][\w.]+)\s*(?:\(\s*|,\s*|:\s*)?"
                     r"@(?P<handle>[A-Za-z0-9_.]{2,30})\b")


def apposition(text: str) -> list[tuple[str, str]]:
    """Someone or something named beside what they are, as ``(subject, value)``: "Biscuit (our beagle)" ->
    the user's "beagle Biscuit", "Marco (boyfriend)" the user's "boyfriend Marco";
    "Dev, the guy I sit next to at Halcyon, ..." -> ``dev`` states that role;
    "on strava (@hill_repeats)" -> the user's "strava @hill_repeats"."""
    out: list[tuple[str, str]] = []
    for m in _APPOSITION.finditer(text):
        if m.group("rel"):  # "Marco (boyfriend)", "Jo (my sister, ...)": the user's relation, named
            out.append(("user", f"{m.group('rel').lower()} {m.group('name')}"))
        elif m.group("pet"):
            out.append(("user", f"{m.group('pet')} {m.group('name')}"))
        elif m.group("role"):
            out.append((m.group("name").lower(), m.group("role").strip()))
    # an account named beside its platform ("on instagram (@crumbs_and_co)"): the user's
    out += [("user", f"{m.group('platform')} @{m.group('handle')}") for m in _HANDLE.finditer(text)]
    return out


# --------------------------------------------------------------- long phrases and the parts of a sentence
_WHEN = re.compile(r"\s+(?:on|every)\s+(?:the\s+)?(?:(?:first|second|third|fourth|last|other)\s+)?"
                   r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?|day|night|morning|evening|week|weekend|month)\b.*$",
                   _I)
"""When a habit recurs, told at the end of its phrase ("... on the first Thursday of the month")."""
_BREAK = re.compile(r"\s+(?:at|in|on|with|for|from|of|near|by|during|before|after|as|like|because|since|until)\s", _I)


def fit(value: str, *, recurrence_only: bool = False) -> str:
    """A phrase longer than a state's: without its recurrence ("a book club at the library on the first
    Thursday of the month"), else (unless ``recurrence_only``) cut at its last preposition within the limit;
    the head of a state comes first, the circumstances after it."""
    if len(value.split()) <= MAX_WORDS:
        return value
    value = _WHEN.sub("", value)
    if recurrence_only:
        return value
    while len(value.split()) > MAX_WORDS and (cuts := list(_BREAK.finditer(value))) and cuts[-1].start() > 0:
        value = value[: cuts[-1].start()]
    return value


_ASKING = re.compile(r"(?:,|\s+-+)\s+(?=(?:any|anyone|anybody|thoughts|ideas|tips|recs|advice|suggestions|how|what|"
                     r"which|where|why|who|is it|is there|are there|should|can|could|would|do|does|worth)\b)", _I)
"""Where a question is tacked on to a statement ("..., any ideas?", "..., is it worth ...?")."""


_OTHERS_CLAUSE = re.compile(r"\s+(?:since|because|cos|when|after|before|that|which|while|until|now that)\s+"
                            r"(?:nobody|no one|someone|everyone|(?:my|our|his|her|their|the)\s+\w+|he|she|they|"
                            r"(?-i:[A-Z][a-z]+))\b", _I)


def before_others_change(sentence: Sentence, cue: int) -> int | None:
    """Where the user's part of a sentence ends when its change cue is in a subordinate clause of someone
    else's ("there's a piano in our lounge nobody has touched since my son moved out"): the user's state
    before it stands; ``None`` when the cue may be the user's own."""
    last = None
    for m in _OTHERS_CLAUSE.finditer(sentence.text, 0, cue - sentence.start):
        last = m
    return sentence.start + last.start() if last else None


def told_first(sentence: Sentence) -> int | None:
    """Where the statement before a tacked-on question ends (an offset in the message); ``None`` when the
    sentence asks from its start ("should I sell my car, any thoughts?")."""
    m = _ASKING.search(sentence.text)
    if m is None or asks(sentence.text[: m.start()]) or "?" in sentence.text[: m.start()]:
        return None
    return sentence.start + m.start()
