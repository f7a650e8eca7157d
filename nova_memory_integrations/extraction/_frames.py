"""Capture frames: verb classes as data, compiled into the extractor's rules.

A :class:`Frame` row names a class of verbs (base forms), the aspect that makes the statement hold *now*
and the tail that follows the verb (its preposition and object group), and the facts it yields. Verb
forms are generated (:func:`verb_forms`), so one row covers "I teach", "she teaches", "I am teaching",
"I have been teaching" (state verbs: the present says the state holds; the simple past "I taught" does
not) or "I bought", "I have just bought", "she got" (event verbs: the event starts a state that holds).
Objects are cleaned by kind (:mod:`._things` for held things, groups, homes, habits; :mod:`._objects`
for organisations, jobs and places).

:data:`CAPTURE_RULES` are tried after the subject like the other predicate rules (first valid object
wins); :data:`PASSING_RULES` are *searched* anywhere after the subject and add to what the main rule
found: what a clause mentions in passing ("I play bass in a covers band, The Velvet Hours" -> a
membership besides ``plays bass``; "I do video editing on a 2017 MacBook Pro" -> ``owns``).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..text.lexicon import (
    ACTIVITY_VERBS,
    CONDITION_ADJECTIVES,
    GROUPS,
    HABIT_VERBS,
    IRREGULAR,
    LANGS,
    PETS,
    PLACES,
    POSSESSIONS,
    REL_ALIASES,
    REL_KINDS,
    RELS,
    SERVICE_PLACES,
    SERVICES,
)
from ._rules import Field, Rule, f, rule

__all__ = [
    "CAPTURE_RULES",
    "HELD_MENTION",
    "MY_CAPTURE_RULES",
    "OWNED_START",
    "PROPER",
    "MOVE_MENTIONS",
    "PASSING_RULES",
    "PRE_RULES",
    "STARTING_PREDICATES",
    "STARTS_LATER",
    "REL_INTRO",
    "TENURE",
    "TOP_RULES",
    "RELOCATED",
    "TRANSFER",
    "Frame",
    "verb_forms",
]

_VOWELS = "aeiou"


def _ing(base: str) -> str:
    if base.endswith("ie"):
        return base[:-2] + "ying"
    if base.endswith("e") and base not in ("be", "see"):
        return base[:-1] + "ing"
    if len(base) >= 3 and base[-1] not in _VOWELS + "wxy" and base[-2] in _VOWELS and base[-3] not in _VOWELS \
            and len(base) <= 4:
        return base + base[-1] + "ing"
    return base + "ing"


def _third(base: str) -> str:
    if base == "have":
        return "has"
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return base + "es"
    if base.endswith("y") and base[-2] not in _VOWELS:
        return base[:-1] + "ies"
    return base + "s"


def _past(base: str) -> tuple[str, str]:
    if base in IRREGULAR:
        return IRREGULAR[base]
    if base.endswith("e"):
        form = base + "d"
    elif base.endswith("y") and base[-2] not in _VOWELS:
        form = base[:-1] + "ied"
    elif len(base) <= 4 and base[-1] not in _VOWELS + "wxy" and base[-2] in _VOWELS \
            and base[-3:-2] not in ("", *_VOWELS):
        form = base + base[-1] + "ed"
    else:
        form = base + "ed"
    return form, form


def verb_forms(verbs: str, aspect: str, bare_ing: bool = False) -> str:
    """A regular expression alternation of the forms of ``verbs`` (space-separated base forms) that say the
    state holds: ``state`` (present, progressive, perfect progressive) or ``event`` (past, perfect)."""
    alts: list[str] = []
    for base in verbs.split():
        ing, third = _ing(base), _third(base)
        past, participle = _past(base)
        if aspect in ("state", "both"):
            alts += [base, third, f"(?:am|is|are|was|were|have been|has been|had been) {ing}"]
            if bare_ing:
                alts.append(ing)
            if base == "have":
                alts += ["have got", "has got", "got"]
        if aspect in ("event", "both"):
            alts += [past, f"(?:have|has|had) (?:just |recently |finally |now )?{participle}"]
    alts.sort(key=len, reverse=True)
    return "(?:" + "|".join(dict.fromkeys(alts)) + ")"


class Frame(NamedTuple):
    """One verb class: its verbs, the aspect that makes its statement current, the tail and the facts."""

    verbs: str
    """Base forms, space-separated."""
    aspect: str
    """``state``, ``event`` or ``both``."""
    tail: str
    """The pattern after the verb (rule macros allowed: ``<O>``, ``<JOBAT>`` ...)."""
    fields: tuple[Field, ...]
    we_ok: bool = True
    conf: float = 0.8
    any_field: bool = False
    bare_ing: bool = False
    """The bare -ing form says it too, after a coordinating "and" ("she's back home and working at ...")."""


PROPER = r"(?:the )?(?-i:[A-Z])[\w'&-]*(?: (?:&|and|of|de) (?-i:[A-Z])[\w'&-]*| (?-i:[A-Z])[\w'&-]*)*"
"""A proper name of a few capitalised words ("Foster and Partners", "the Royal Oak"), where it ends."""
TENURE = r" for (?:\w+ )?(?:years|months)| since (?:\d{4}|(?-i:[A-Z]))"
"""How long someone has been with an employer ("... for ten years", "... since 2019")."""

_GAP = r"(?P<gap>(?:\s+(?!(?:out|up|on|off|around|through|hard|with|at|for|as|to|my|our)\b)[^\s,;()]+){0,4}?)"
_ART = r"(?:a|an|the|my|our|his|her|their)"
_PLACE_AHEAD = r"(?=\s+(?:(?:the\s+)?(?-i:[A-Z])))"

WORK: tuple[Frame, ...] = (
    Frame("work teach intern volunteer freelance contract temp lecture tutor nurse consult",
          "state", _GAP + r" as <JOBAT>", (f("job_title", "job", "j"), f("works_at", "org")), bare_ing=True),
    Frame("teach tutor", "state", r" (?P<t>[^,;.!?]+?)(?: (?:at|for) (?P<o>.+))?(?=$| from| online| to| privately|"
          r" part[- ]time| full[- ]time|[,.;!])", (f("job_title", "teacher", "t"), f("works_at", "org"))),
    Frame("work intern volunteer freelance contract temp lecture consult", "state",
          _GAP + r" (?:at|for|with(?= (?:the )?(?-i:[A-Z]))) (?P<o>.+?)(?:\s+as\s+(?P<j>.+))?$",
          (f("works_at", "org"), f("job_title", "job", "j")), bare_ing=True),
    Frame("drive deliver ride cook clean bartend waitress manage", "state",
          r" (?:for|at)" + _PLACE_AHEAD + r" (?P<o>.+)", (f("works_at", "corg"),)),
    Frame("manage run", "state", r" (?:the|a) (?P<o>(?-i:[A-Z]).+?(?:branch|office|store|shop|team|site|depot))\b",
          (f("works_at", "org"),)),
    Frame("do", "state", r" (?P<gap>(?!(?:a|an|the|some|my|it|this|that)\b)[a-z][\w -]{2,30}?) (?:for|at) "
          r"(?P<o>.+)", (f("works_at", "corg"),)),
)
JOBS_START: tuple[Frame, ...] = (
    Frame("start begin", "event", r" (?:(?:(?:a|an|my|the|his|her|their) )?(?P<n>[\w'-]+(?: [\w'-]+){0,2}) )?"
          r"(?:at|with)" + _PLACE_AHEAD + r" <O>", (f("@joined", "org"),)),
    Frame("jump", "event", r" ship (?:to|for) <O>", (f("@joined", "org"),)),
    Frame("take land accept get", "event", r" (?:a|an|my|the|his|her|their)(?: [\w'-]+){0,3}? (?:job|position|role|"
          r"post|internship|placement|contract|gig|apprenticeship),? (?:at|with) (?P<o>.+?)(?:\s+as\s+(?P<j>.+))?$",
          (f("works_at", "org"), f("job_title", "job", "j"))),
    Frame("transfer", "event", r" to <O>", (f("@joined", "org"),)),
    Frame("have", "state", r" (?:a|an)(?: [\w'-]+){0,2}? (?:job|position|role|post|gig|placement|internship),? "
          r"(?:at|with) (?P<o>.+?)(?:\s+as\s+(?P<j>.+))?$", (f("works_at", "org"), f("job_title", "job", "j"))),
)
HELD: tuple[Frame, ...] = (
    Frame("own rent share have", "state", r" (?P<o>(?:a|an|the|our|my|this)\s.+)", (f("lives_in", "home"),)),
    Frame("live", "state", r" (?:on|aboard) (?P<o>(?:a|an|the|our|my)\s.+)", (f("lives_in", "held"),)),
    Frame("own keep lease run", "state", r" (?P<o>(?:a|an|the|two|three|\d+|my|our)\b.+)",
          (f("@held", "held"),)),
    # "I ride a bike" is how one gets about; "I ride a 2019 Specialized Tarmac" says which one is one's own
    Frame("drive ride", "state", r" (?P<o>(?:a|an|the|my|our)\b.+)", (f("@held", "product"),)),
    Frame("have", "state", r" (?P<o>(?:a|an|two|three|four|\d+|this|these)\b.+)", (f("@held", "held"),)),
    Frame("buy get adopt rescue inherit lease pick build", "event", r"(?: up)? (?P<o>(?:a|an|two|three|\d+|"
          r"myself a|myself an|ourselves a|herself a|himself a|(?:my|our|his|her|their) own)\b.+)",
          (f("@held", "held"),)),
    Frame("go", "state", r" (?P<o>[a-z]+ing)\b", (f("@activity2", "activity2"),)),
    Frame("go", "event", r" for (?P<o>(?:a|an)\s(?:\w+ )?(?-i:[A-Z0-9]).+)", (f("@held", "held"),)),
    Frame("commute scoot cycle travel get", "state", r"(?: [^\s,;]+){0,3}? (?:on|by) (?P<o>(?:a|an|my)\s.+)",
          (f("@held", "held"),), conf=0.7),
)
MEMBER: tuple[Frame, ...] = (
    Frame("go", "state", r" to (?P<o>(?:a|an|the)? ?(?-i:[A-Z0-9])[^,;]*)(?=.*\b(?:\d+x|times|every|a week|weekly|"
          r"twice|once|most))", (f("member_of", "group"),)),
    Frame("train swim climb box lift", "state", r"(?: [^\s,;]+){0,2}? at (?P<o>(?:the )?(?-i:[A-Z0-9]).+)",
          (f("member_of", "group"),)),
    Frame("join", "event", r" (?P<o>(?:a|an|the)\s.+)", (f("@joined", "group"),)),
    Frame("sing play drum dance perform row run compete", "state",
          r"(?: [^\s,;]+){0,3}? (?:in|for|with) (?P<o>(?:a|an|the|my|our)\s.+)", (f("member_of", "group"),)),
)
HABITS: tuple[Frame, ...] = (
    Frame("have eat take", "state", r" (?P<o>.+)", (f("habit", "habit"),)),
    Frame("drink", "state", r" (?P<o>.+)", (f("habit", "drinks"),)),
    Frame("do practise practice", "state", r" (?P<o>.+)", (f("@activity2", "activity2"),)),
)
HEALTH: tuple[Frame, ...] = (
    Frame("have", "state", r" (?:a |an )?(?:\w+ )?(?:allergy|intolerance|sensitivity) to <O>",
          (f("allergic_to", "allergen"),)),
    Frame("take", "state", r" <O>", (f("takes_medication", "med"),)),
)


def _compile(frames: tuple[Frame, ...]) -> tuple[Rule, ...]:
    out = []
    for fr in frames:
        verbs = verb_forms(fr.verbs, fr.aspect, fr.bare_ing)
        out.append(rule("<A>" + verbs + fr.tail, *fr.fields, we_ok=fr.we_ok, conf=fr.conf, any_field=fr.any_field))
    return tuple(out)


_ACTIVITY = "|".join(sorted({form for base in (*ACTIVITY_VERBS, *HABIT_VERBS) for form in (base, _third(base))},
                            key=len, reverse=True))

PRE_RULES: tuple[Rule, ...] = (
    # before the endings: "retired to Spain" is a move as well as a retirement
    rule(r"<A>(?:have |has )?retired (?:out )?to <O>", f("lives_in", "place"),
         f("employment_status", "status", "=retired"), we_ok=True),
    rule(r"<A>(?:have |has )?(?:emigrated|moved (?:abroad|away|back|home|down|up|over|out)) to <O>",
         f("lives_in", "place"), we_ok=True),
    # before the endings: "left for a job at the BBC" names the new workplace as well as the leaving
    rule(r"<A>(?:have |has )?(?:left|quit|resigned)(?: (?:my|his|her|their) (?:job|role|post))? "
         r"(?:for|to take|to start) (?:a|an)(?: new| better| dream| [\w-]+-paid)? (?:job|position|role|post|gig|"
         r"contract) (?:at|with) <O>",
         f("works_at", "org")),
    # before the switches of products: "switched to the night team at Asda" is a new workplace
    rule(r"<A>(?:have |has |had )?(?:switched|transferred) (?:over )?"
         r"to (?:a|an|the|my|his|her|their) (?:[\w'-]+ ){0,4}?(?:at|with) (?P<o>(?-i:[A-Z]).+)",
         f("@joined", "org")),
)
"""Tried before the endings of :mod:`._endings`."""
TOP_RULES: tuple[Rule, ...] = (
    # before the older rules: "a severe allergy to shellfish" is not an allergy to "severe"
    rule(r"<A>(?:have|has|have got|has got|got) (?:a |an )?(?:\w+ )?(?:allergy|intolerance) to <O>",
         f("allergic_to", "allergen")),
    rule(r"<A>(?:am|is|are) (?:a |an )?(?:member|members|regular) (?:at|of) <O>", f("member_of", "group")),
    rule(r"<A>(?:am|is|are) (?:in|part of) (?P<o>(?:a|an|the)\s.+)", f("member_of", "group")),
    rule(r"<A>(?:am|is|are) in (?:year|grade|form) \d{1,2} (?:at|of) <O>", f("studies_at", "org")),
    rule(r"<A>(?:am|is|are) (?:doing|studying for|taking|working on|in the middle of) (?:a|an|my|his|her) "
         r"(?P<c>[\w' -]*?(?:degree|master'?s|masters|phd|doctorate|mba|msc|ma|bsc|ba|course|apprenticeship|"
         r"diploma))(?: (?:in|on) (?P<s>[a-z][\w -]*?))?(?: at <O>)?$",
         f("studies", "study", "s"), f("studies_at", "org"), any_field=True),
    rule(r"<A>(?:am|is|are) (?:a |an )?(?P<j>(?:freelance|self-employed|contract) .+)",  # the way of working too
         f("job_title", "job", "j")),
    rule(r"<A>(?P<v>freelance|freelances|am freelancing|have been freelancing) as (?:a |an )?(?P<j>[\w -]+)",
         f("job_title", "freelancejob", "j")),
    rule(r"<A>(?:got|get|have been|has been|was|were|just got) (?:promoted|made|appointed|named) (?:to |as )?"
         r"(?:a |an |the )?"
         r"(?P<j>.+)", f("job_title", "job", "j")),
    rule(r"<A>(?:was|is|has been|have been) (?:just |recently )?(?:made|appointed|named) (?:a |an |the )?(?P<j>.+)",
         f("job_title", "job", "j")),
    rule(r"<A>(?:am|is|are) (?P<j>(?!a |an |the |in |at |on )[\w-]+(?: [\w-]+){0,2}) (?:at|for|with) <O>",
         f("job_title", "job", "j"), f("works_at", "org")),
    rule(r"<A>(?:am|is|are|have been|has been) (?:getting )?(?:marrying|engaged to marry|getting married to) <O>",
         f("engaged_to", "person")),
    rule(r"<A>(?:(?:(?:am|is|are|have been|has been) )?(?:living|staying) (?:on (?:my|his|her|their) own|alone|"
         r"together|with \w+(?: \w+)?)|(?:live|lives) (?:on (?:my|his|her|their) own|alone|together|with \w+"
         r"(?: \w+)?)) in <O>", f("lives_in", "place")),
    rule(r"<A>(?:got|get|was|were|have been|has been) (?:headhunted|poached|recruited|hired|snapped up) (?:by|at) <O>",
         f("works_at", "org")),
    rule(r"<A>(?:have|has) been (?:in|living in|based in) (?P<o>(?-i:[A-Z])[\w'-]+(?: (?-i:[A-Z])[\w'-]+)?)"
         r"(?= (?:for )?(?:a|an|one|two|three|four|five|six|\d+|a few|several|over|almost|nearly) (?:days?|weeks?|"
         r"months?|years?)| since\b| now\b)", f("lives_in", "place"), we_ok=True),
    rule(r"<A>(?:am|is|are) <A>(?:now |currently |still )?(?:back )?(?:home )?in (?P<o>(?-i:[A-Z])[\w'-]+"
         r"(?: (?-i:[A-Z])[\w'-]+)?)(?=\s*$|\s*[,.;!)]|\s+(?:now|and|these days|at the moment|with|since|after|"
         r"for (?:years|ages|\d+ years)))",
         f("lives_in", "place"), conf=0.6, we_ok=True),
    rule(r"<A>(?:am|is|are) (?:now |currently |still )?(?:on|taking) <O>", f("takes_medication", "med"), we_ok=True),
    rule(r"<A>(?:am|is|are) <A>(?:(?:\d{1,2}|[a-z]+) (?:weeks?|months?) )?(?P<o>"  # "is 7 months pregnant"
         + "|".join(sorted(CONDITION_ADJECTIVES, key=len, reverse=True)) + r")\b",
         f("has_condition", "condadj")),
    rule(r"<A>(?:have|has) been (?:at|with) (?P<o>(?-i:[A-Z])[\w'&-]*(?: (?-i:[A-Z])[\w'&-]*){0,3})(?=" + TENURE + ")",
         f("works_at", "corg"), conf=0.6),
    rule(r"<A>(?:have |has )?(?:just |recently )?(?:moved into|(?:downsized|upsized) to) <O>", f("lives_in", "home"),
         we_ok=True),
    rule(r"<A>(?:am|is|are) (?:now )?(?:on|with) (?:an? |the )?(?P<o>(?-i:[a-z]?[A-Z])[\w+'&-]*"
         r"(?: (?-i:[A-Z0-9])[\w+'&-]*){0,2})(?=\s+(?:now|these days|nowadays|at the moment)\b)", f("uses", "corg"),
         conf=0.6, we_ok=True),
    rule(r"<A>(?:got|have got|have) the keys (?:to|for) <O>", f("lives_in", "home"), we_ok=True),
    rule(r"<A>(?:have |has )?(?:just |finally )?(?:closed|completed) on (?:the|a|our|my) (?:new )?(?P<o>(?:house|home|"
         r"flat|place|condo|apartment|bungalow|cottage) (?:in|on) .+)", f("lives_in", "home"), we_ok=True),
)
CAPTURE_RULES: tuple[Rule, ...] = (
    *_compile(WORK + JOBS_START + HEALTH + HABITS + MEMBER + HELD),
    rule(r"<A>(?P<v>" + _ACTIVITY + r")(?=\s+(?:\d|most|every|each|daily|regularly|a lot|twice|three|several|at|"
         r"along|around|before|after|in the|about|like|roughly|heavily|socially|too|since|again|still|competitively|"
         r"on|outside|indoors|inside|when|while|whenever)"
         r"|\s*$|\s*[,.;!])", f("@activity2", "verbact", "v")),
    rule(r"<A>(?:pay for|pays for|subscribe to|subscribes to|have subscriptions? to) <O>",
         f("subscribes_to", "things")),
)
MOVE_MENTIONS: tuple[Rule, ...] = (
    rule(r"\b(?:my|our) new (?:place|home|house|flat|apartment) (?:is )?in (?P<o>(?-i:[A-Z])[\w'-]+"
         r"(?: (?-i:[A-Z])[\w'-]+)?)", f("lives_in", "place")),
    rule(r"\b(?:the|my|our) (?:big |recent )?move (?:down |up |over |back )?to (?P<o>(?-i:[A-Z])[\w'-]+"
         r"(?: (?-i:[A-Z])[\w'-]+)?)", f("lives_in", "place")),
    # "Bristol is officially home now!": a known city said to be home
    rule(r"\b(?P<o>" + "|".join(sorted((p.title() for p in PLACES), key=len, reverse=True)) + r")(?:'s| is) (?:now |"
         r"officially |finally |properly )*(?:home|my home|our home|my new home|our new home)\b(?! (?:to|of|for)\b)",
         f("lives_in", "place")),
)
"""A home named in passing ("after the move to Cheltenham"): the speaker's, also in a clause without "I"."""
PASSING_RULES: tuple[Rule, ...] = (
    rule(r"\b(?:in|with|for|of) (?P<o>(?:a|an|the|my|our)\s(?:[\w'-]+\s){0,3}?(?:club|choir|band|orchestra|team|"
         r"group|squad|league|society|crew|troupe|ensemble)\b.*)", f("member_of", "namedgroup")),
    rule(r"\bon (?P<o>(?:a|an|my|our)\s(?:\d{4} )?(?-i:[A-Z0-9])[^,;]*)", f("@held", "held"), conf=0.6),
    *MOVE_MENTIONS,
)
"""Frames searched anywhere after the subject; what they find adds to the clause's main rule."""

STARTS_LATER = re.compile(
    r"\b(?:I|we|she|he|they)\s+(?:start|starts|begin|begins|am starting|is starting|are starting|will start|"
    r"will be starting)\b(?P<when>[^.!?;]{0,40})", re.IGNORECASE)
"""A turn that says the new job or school begins later ("I start on January 6th")."""
STARTING_PREDICATES = frozenset({"works_at", "job_title", "studies_at", "studies"})
"""What such a turn's start date applies to."""
TRANSFER = re.compile(
    r"\b(?:gave|passed|handed|sold|donated|gifted)(?: (?:on|down|over))? (?P<o>(?:the|my|our|his|her|their|a|an) "
    r"[^,;.!?]{1,40}?) (?:on |down |over |back )?to (?:my|our) (?P<rel>" + RELS + r")(?: (?P<name>[A-ZÀ-Þ][a-zà-ÿ-]+))?"
    r"(?=[\s,.;!?)]|$)", re.IGNORECASE)
"""A thing handed on to a relative or friend ("passed my old Kindle on to my niece"): theirs now."""
RELOCATED = re.compile(
    r"\b(?:moved|got|settled) (?:my |our )?(?P<rel>" + RELS + r")(?: (?P<name>[A-ZÀ-Þ][a-zà-ÿ-]+))? (?:in ?to|into) "
    r"(?P<o>[^;.!?]{2,60})", re.IGNORECASE)
"""A relative the speaker moved into a new home ("we moved Mum into Oakwood care home"): where they live now."""
REL_INTRO = re.compile(r"\b[Mm]y (?P<rel>" + RELS + r") (?P<name>[A-ZÀ-Þ][a-zà-ÿ-]+)(?=[\s,.;!?)]|$)")
"""A relative or friend introduced by name in passing ("I'm staying with my brother Tom")."""

_POSSESSION = "(?:" + "|".join(sorted(POSSESSIONS, key=len, reverse=True)) + ")"
_NOT_THING = "|".join(sorted({*REL_KINDS, *REL_ALIASES, *PETS, "mum", "parents", "kids", "children", "family"},
                             key=len, reverse=True))
HELD_MENTION = re.compile(r"(?:my|our) (?:[\w-]+ )?" + _POSSESSION + r"\b", re.IGNORECASE)
"""A clause about a thing held ("my car's been making a noise"): a later "it is a <Name>" in the sentence names it."""
OWNED_START: tuple[Rule, ...] = (
    # "My Mazda CX-5 needs new tires", "My 2016 VW Polo is due its MOT", "my leased Kia Niro goes back"
    # (a language or a nationality before a noun is no make: "my Spanish evening class", "my Polish neighbour")
    rule(r"(?:my|our) (?:(?:old|new|leased|trusty|current|little) )?(?!(?:" + _NOT_THING + r"|" +
         "|".join(sorted(LANGS)) + r")\b)"
         r"(?P<o>(?-i:[A-Z0-9])[\w-]*(?: (?-i:[A-Z0-9])[\w-]*){0,3})(?! (?:" + "|".join(sorted(SERVICE_PLACES)) +
         r")\b)(?: [a-z]+)? (?=[a-z])", f("@held", "held"),
         conf=0.7),
    # "my road bike is an old Trek Domane", "My car is a Hyundai i30"
    rule(r"(?:my|our) (?:[\w-]+ )?" + _POSSESSION + r" is (?:a|an) (?:(?-i:[a-z]+) )?(?P<o>(?-i:[A-Z0-9]).+)",
         f("@held", "held")),
    # "New place is a little house on Larch Avenue", "our new flat is in Leith"
    rule(r"(?:(?:my|our|the) )?new (?:place|home|house|flat|apartment|digs) (?:is )?<O>", f("lives_in", "home")),
    # "my prius is 11 years old": a thing of one's own, by its age
    rule(r"(?:my|our) (?!(?:" + _NOT_THING + r")\b)(?P<o>[\w-]+(?: [\w-]+)?) (?:is|turns|turned|just turned) "
         r"(?:\d{1,3}|[a-z]+) (?:years?|yrs) old\b", f("owns", "aged")),
    # "my allergy is to tree nuts"
    rule(r"(?:my|our) (?:\w+ )?(?:allergy|allergies) (?:is|are) (?:to )?<O>", f("allergic_to", "allergen")),
    # "Our broadband is Virgin Media"
    rule(r"(?:my|our) (?:[\w-]+ )?(?:" + "|".join(sorted(SERVICES)) + r") (?:provider |company |supplier )?(?:is|are) "
         r"(?:with )?(?P<o>(?-i:[A-Z0-9]).+)", f("uses", "corg")),
    # "My book club is reading ...": a group of one's own
    rule(r"(?:my|our) (?!(?:favou?rite|fave|fav|least favou?rite|dream|ideal) )(?P<o>(?:[\w-]+ )?(?:"
         + "|".join(sorted(g for g in GROUPS if " " not in g)) + r"))\b(?! of)",
         f("member_of", "group")),
    rule(r"(?:my|our) (?:new |current |day |full-time |part-time |old )?(?:job|work|role|position|internship|"
         r"placement|post) (?:is )?(?:at|with|for) <O>", f("works_at", "org")),
    rule(r"new (?:job|role|position|post) (?:at|with) (?P<o>" + PROPER + ")", f("works_at", "org")),
    rule(r"(?:my|our) (?:new |current )?(?:employer|company|firm|workplace) (?:is|are) (?:now )?<O>",
         f("works_at", "org")),
    # "Now at Deliveroo as a product manager": a workplace and a title, told without a verb
    rule(r"at (?P<o>" + PROPER + r") as (?:a |an )?(?P<j>[^,.;!?]+)", f("works_at", "org"), f("job_title", "job", "j")),
    # "First day as a junior designer at Arup tomorrow", "my first week at Ocado": a start, told as a noun phrase
    rule(r"(?!.*\bfor (?:my|our|his|her|their)\b)(?:(?:it is|today is|tomorrow is) )?(?:my )?(?:first|1st) "
         r"(?:day|week|shift|month)(?: back)?(?: as (?:a |an )?(?P<j>[^,.;!?]+?))? (?:at|with) "
         r"(?P<o>" + PROPER + ")", f("@joined", "org"), f("job_title", "job", "j")),
)
"""Anchored at a clause that opens on a thing of one's own."""
MY_CAPTURE_RULES: tuple[Rule, ...] = ()
"""Anchored at any "my"."""
