"""Cleaning of the objects the rule-based extractor captures (:mod:`.deterministic`).

A rule's group captures too much ("Paris now because of work", "a dog named Rex and two cats"): every
object is cut at the first clause break, stripped of fillers and time phrases, then validated by its
kind (:data:`_KINDS`: a place needs a capital, a job a known job word, a number is under 120 ...).
Precision over recall: an object that does not fit its kind yields nothing, and the extractor tries its
next rule. The endings' kinds are cleaned by :func:`._endings.clean_ending`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..text.dates import NUMBER_WORDS, TIME_EXPRESSION
from ..text.lexicon import (
    BAD_FIRST,
    BAD_LAST,
    COMPOUNDS,
    CONTEXTUAL,
    JOBS,
    LANGS,
    NAME_STOP,
    NOT_JOB_WORDS,
    NOT_JOBS,
    NOT_NAMES,
    ORDINALS,
    ORG_NOUNS,
    PETS,
    PLAN_STOP,
    POSSESSIVE,
    STARTERS,
)
from ._endings import ENDING_KINDS, clean_ending
from ._things import CAPTURE_KINDS, clean_capture

__all__ = ["clean_object"]

_I = re.IGNORECASE

_TRAIL = re.compile(
    r"(?:\s+|^)(?:now|anymore|any ?more|any longer|too|as well|either|though|tho|lol|lmao|haha+|hehe|really|"
    r"a lot|a ton|so much|very much|these days|nowadays|right now|at the moment|currently|again|for now|by the "
    r"way|btw|sadly|unfortunately|honestly|actually|tbh|obviously|of course|anyway|as usual|always|still|lately|"
    r"recently|finally|officially|already|instead|in general|personally|originally|on (?:the )?weekends?|at "
    r"weekends|in my (?:free|spare) time|every (?:day|week|weekend|morning|night)|full[- ]time|part[- ]time|"
    r"remotely|for (?:about |almost |over |nearly |around |roughly )?(?:a|an|one|half a) (?:year|month|week|day)|"
    + TIME_EXPRESSION + r")[\s.!?,;:)]*$",
    _I,
)
_CUT = re.compile(
    r"\s*(?:[;:!?()\[\]\"]|\s-\s|\s(?:because|since|but|so|when|whenever|while|where|although|though|unless|"
    r"until|cause|cuz|except|especially|including|not|if|whereas|plus|and (?:then|I|it|my|the|this|that|there|"
    r"so|now|also))\b)",
    _I,
)
_COMMA = re.compile(r"\s*,")
_REL_CUT = re.compile(r"\s+(?:which|who|whom|whose|that)\s.*$", _I)
_LEAD_FILLER = re.compile(r"^(?:now|still|also|actually|really|currently|just|even|only)\s+", _I)
_TO = re.compile(r"^to\s+", _I)
_ARTICLE = re.compile(r"^(?:a|an)\s+", _I)
_THE_LOWER = re.compile(r"^the\s+(?=[a-z])")
_LIST_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+", _I)
_PREF_SPLIT = re.compile(r"\s+(?:over|rather than|instead of|more than|than|to)\s+", _I)
_LANG_MOD = re.compile(
    r"(?:\b(?:a little(?: bit of)?|a bit of|some|basic|fluent|conversational|native|broken|decent|good|okay|"
    r"intermediate|beginner|advanced|mostly|only|also|both)\s+)+",
    _I,
)
_LANG_TRAIL = re.compile(r"\s+(?:fluently|natively|well|pretty well|a little|poorly)$", _I)
_NAMED = re.compile(r"\s+(?:named|called)\s+", _I)
_CALLED = re.compile(r"\b(?:called|named)\s+(.+)$")
_PET_ADJ = re.compile(r"^(?:new|little|baby|sweet|old)\s+", _I)
_ORG_CUT = re.compile(r"\s+(?:in|as|on|doing|where|near|since|for|after|before|during|until)\s+.*$", _I)
_ORG_ING = re.compile(r"(\b[A-Z][\w'&.-]*)\s+[a-z]+ing\b.*$")  # "Zillow working on the rentals product"
_JOB_CUT = re.compile(r"\s+(?:at|for|with|in|from|by|on|of|who|and|based)\b.*$", _I)
_ORG_AND = re.compile(r"\s+and\s+(?=[a-z])")
_PLACE_CUT = re.compile(r"\s+(?:and|with|for|to)\s+.*$", _I)
_CAP = re.compile(r"[A-ZÀ-Þ][\w'.&-]*")
_EDGE = " \t\"'`*_.,;:!?-"


def _strip(value: str) -> str:
    """Strip edge punctuation, trailing fillers/time expressions and leading fillers until stable."""
    value = value.strip(_EDGE)
    while True:
        shorter = _LEAD_FILLER.sub("", _TRAIL.sub("", value)).strip(_EDGE)
        if shorter == value:
            return value
        value = shorter


def _ok(value: str, max_words: int = 6) -> bool:
    words = value.split()
    if not words or len(words) > max_words or words[0].lower() in BAD_FIRST:
        return False
    if words[-1].strip(".,!") in BAD_LAST or any(w in ("I", "i") for w in words):
        return False
    return any(c.isalnum() for c in value)


def _name(value: str, lower_ok: bool = False) -> str | None:
    tokens = value.split()
    if not tokens or not tokens[0][0].isalpha():
        return None
    if not tokens[0][0].isupper():  # lowercase names only when the user types everything in lowercase
        ok = lower_ok and len(tokens) == 1 and tokens[0].isalpha()
        return tokens[0] if ok and tokens[0] not in BAD_FIRST | NAME_STOP else None
    taken = [tokens[0]]
    for tok in tokens[1:3]:
        if not tok[0].isupper():
            break
        taken.append(tok)
    name = " ".join(taken).strip(".,'")
    return name if name and name.split()[0] not in NOT_NAMES else None


_HEAD_OF = re.compile(
    r"^(?:the )?(?:head|director|vp|chief|lead|manager|professor|dean|editor) of (?:[a-z&]+ ?){1,3}$", _I
)


_FRAMED_NOT = frozenset("to my our your his her their as i me you it for of the in on at like than with and or but "
                        "bit lot kind sort part way favour favor result hard fast well much long best usual normal "
                        "always team hobby volunteer".split())
"""Words that make "as a ..." something other than a job ("as a favour", "as a bit of fun")."""


def _job(value: str, *, framed: bool = False) -> str | None:
    """A job title: a known job's head ("nurse", "radiographer"); any short noun phrase when the frame says it is
    a job (``framed``: "working as a health visitor")."""
    head_of = _HEAD_OF.match(_CUT.split(value, maxsplit=1)[0].strip(" .,!"))
    if head_of is not None:  # "head of marketing"
        return head_of.group(0).removeprefix("the ")
    value = _ARTICLE.sub("", _JOB_CUT.sub("", value))
    words = value.lower().split()
    if not words or len(words) > 5 or not all(w.replace("-", "").isalpha() for w in words):
        return None
    if any(w in NOT_JOB_WORDS for w in words) or words[-1] in NOT_JOBS:
        return None
    head = words[-1]
    known = head in JOBS or head.rstrip("s") in JOBS
    if framed and not known:  # "as a health visitor": an article and nouns only ("as hard as I can" is no job)
        framed = len(words) <= 3 and not _FRAMED_NOT.intersection(words) and not head.endswith("ly")
    return value if known or framed or head.endswith(("ologist", "ician", "grapher", "ist")) else None


def _items(value: str) -> list[str]:
    if value.lower() in COMPOUNDS:
        return [value]
    out: list[str] = []
    for item in _LIST_SPLIT.split(value):
        item = _ARTICLE.sub("", _strip(item))
        if not _ok(item, 5):
            break
        out.append(item)
    return out


def _pet(value: str) -> list[str]:
    species, _, rest = _NAMED.sub("\x00", _PET_ADJ.sub("", value), count=1).partition("\x00")
    words = species.lower().split()
    if not words or len(words) > 4:
        return []
    head = words[-1]
    if head not in PETS and head.rstrip("s") not in PETS and head[:-3] + "y" not in PETS:
        return []
    name = _name(rest) if rest else None
    return [f"{species} named {name}"] if name else [species]


def _one(value: str | None) -> list[str]:
    return [value] if value else []


def _verb(value: str, lowercase: bool) -> list[str]:
    first = value.split()[0]
    bad = first.lower() in PLAN_STOP | POSSESSIVE | {"the", "a", "an"} or first[0].isupper()
    return [] if bad or not _ok(value, 12) else [value]


def _num(value: str, lowercase: bool) -> list[str]:
    low = value.lower().split()[0] if value else ""
    num = int(low) if low.isdigit() else NUMBER_WORDS.get(low, 0)
    return [str(num)] if 0 < num < 120 else []


def _langs(value: str, lowercase: bool) -> list[str]:
    items = [_LANG_TRAIL.sub("", i) for i in _items(_LANG_MOD.sub("", value))]
    return [i for i in items if i.lower() in LANGS or _CAP.fullmatch(i)]


def _pets(value: str, lowercase: bool) -> list[str]:
    pets = [_pet(_ARTICLE.sub("", p.strip())) for p in _LIST_SPLIT.split(_COMMA.split(value)[0])]
    return [p[0] for p in pets if p] if all(pets) else []


def _org(value: str, lowercase: bool) -> list[str]:
    value = _ORG_AND.split(value, maxsplit=1)[0]
    called = _CALLED.search(value)
    value = (_name(called.group(1)) or "") if called else _ORG_ING.sub(r"\1", _ORG_CUT.sub("", value))
    value = _strip(_THE_LOWER.sub("", value))
    usable = _ok(value) and (_CAP.search(value) or value.split()[-1] in ORG_NOUNS)
    return [value] if usable else []


def _place(value: str, lowercase: bool) -> list[str]:
    value = _PLACE_CUT.sub("", value)
    return [value] if _ok(value) and _CAP.search(value) else []


def _plain(value: str, lowercase: bool) -> list[str]:
    return [value] if _ok(value, 8) else []


@dataclass(frozen=True)
class _Kind:
    """How :func:`clean_object` cuts and validates the objects of one kind (the rules' ``kind`` field)."""

    finish: Callable[[str, bool], list[str]]
    """Validates the cut value (given whether the sentence is all lower case): the objects it yields
    (``[]``: unusable)."""
    drop_to: bool = False
    """A leading "to" belongs to the verb ("want to travel", "prefer to walk")."""
    lists: bool = False
    """A comma separates items of a list, not the object from what follows it."""
    split: re.Pattern[str] | None = None
    """Cut at the first match too ("tea over coffee" -> "tea")."""
    early: bool = False
    """``finish`` sees the value before relative clauses and articles are cut (a verb phrase)."""
    liked: bool = False
    """A liked thing: not "my ...", "the first ...", "the answer"; "it" / "them" is the last thing named."""


_KINDS: dict[str, _Kind] = {
    "verb": _Kind(_verb, drop_to=True, early=True),
    "pref": _Kind(_plain, drop_to=True, split=_PREF_SPLIT, liked=True),
    "study": _Kind(_plain, drop_to=True),
    "things": _Kind(lambda v, lowercase: _items(v), drop_to=True, lists=True, liked=True),
    "thing": _Kind(_plain, liked=True),
    "lang": _Kind(_langs, lists=True),
    "pet": _Kind(_pets, lists=True),
    "name": _Kind(lambda v, lowercase: _one(_name(v, lowercase))),
    "petname": _Kind(lambda v, lowercase: _one(_name(v))),
    "num": _Kind(_num),
    "job": _Kind(lambda v, lowercase: _one(_job(v))),
    "jobas": _Kind(lambda v, lowercase: _one(_job(v, framed=True))),
    "freelancejob": _Kind(lambda v, lowercase: [f"freelance {j}" for j in _one(_job(v))]),
    "org": _Kind(_org),
    "place": _Kind(_place),
}
"""Object kinds of the rules -> their cleaning; any other kind (``plain``) is :data:`_PLAIN_KIND`."""
_PLAIN_KIND = _Kind(_plain)


_ORG_APPOS = re.compile(r"^(?:the|a|an|this|that)\s+(?-i:[a-z])[^,]{0,60},\s+(?:the\s+)?(?P<name>(?-i:[A-Z])[\w'&.-]*"
                        r"(?:\s+(?:(?:of|&|and|de)\s+)?(?-i:[A-Z])[\w'&.-]*)*)", re.IGNORECASE)


def clean_object(raw: str, kind: str, *, lowercase: bool = False, last_obj: str | None = None) -> list[str]:
    """Cut, strip and validate one captured object of ``kind``; ``[]`` when it is not usable.

    Args:
        raw: what the rule's group captured.
        kind: the rule field's kind (:data:`_KINDS`, or an ending kind of :mod:`._endings`).
        lowercase: the sentence is written all in lower case: a lower-case name is taken.
        last_obj: the last liked thing of the sentence, which "it" / "them" stands for.
    """
    if kind in ENDING_KINDS:
        return clean_ending(raw, kind, _strip, lambda v: _name(v, lowercase))
    if kind in CAPTURE_KINDS:
        return clean_capture(raw, kind)
    how = _KINDS.get(kind, _PLAIN_KIND)
    if how.drop_to:
        raw = _TO.sub("", raw.strip())
    value = _CUT.split(raw, maxsplit=1)[0]
    if kind == "org" and (named := _ORG_APPOS.match(value.strip())) is not None \
            and named.group("name").split()[0] not in STARTERS:
        value = named.group("name")  # "the same hotel in Porto, the Infante Sagres": the name told after
    if not how.lists:
        value = _COMMA.split(value, maxsplit=1)[0]
    value = _strip(value)
    words = value.split()
    if not words:
        return []
    if how.split is not None:
        value = how.split.split(value, maxsplit=1)[0]
    if how.early:
        return how.finish(value, lowercase)
    if how.liked:
        if words[0].lower() in POSSESSIVE | ORDINALS | {"be"} or words[-1].lower() in CONTEXTUAL:
            return []
        if value.lower() in ("it", "them") and last_obj:
            return [last_obj]
    else:
        value = _REL_CUT.sub("", value)
    return how.finish(_THE_LOWER.sub("", _ARTICLE.sub("", value)), lowercase)
