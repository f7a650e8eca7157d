"""Endings and transitions for the rule-based extractor (:mod:`.deterministic`).

A statement that something stopped holding ("I sold my car", "our cat died", "I quit smoking", "I'm no
longer vegetarian", "I used to play the piano") yields ``op="negate"`` for the value that ended, dated by
the clause's time expression; a replacement in the same turn ("... and now drive a Tesla", "I gave up
tennis for golf") yields its assertion too. Multi-valued predicates (``owns``, ``has_pet``, ``plays``,
``speaks``, ``studies`` ...) are only ever ended by such an explicit statement.

This module holds the ending rules (tried before the other predicate rules), the cleaning of their object
kinds, the resolution of ``@`` predicates (``@owned``, ``@activity``, ``@left``) and the relation kinds of
named relatives and friends (``my brother Luis`` -> ``luis sibling_of user``). Their word lists (what one
plays, quits, recovers from or leaves) are in :mod:`nova_memory_integrations.text.lexicon`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..text.lexicon import (
    ABSTRACT,
    BAD_FIRST,
    COND_HEADS,
    CONDITIONS,
    DEGREES,
    DIET_RE,
    GERUNDS,
    GOING,
    HABIT_GERUNDS,
    HABIT_NOUNS,
    HOBBY_NOUNS,
    PET_RE,
    PETS,
    PLACES,
    PLAYABLE,
    REL_KINDS,
    STOP_GERUNDS,
    THIRD_FORMS,
)
from ._rules import Rule, f, neg, rule

__all__ = [
    "CONT",
    "ENDING_RULES",
    "ENDING_KINDS",
    "MY_ENDING_RULES",
    "PET_END",
    "START_ENDING_RULES",
    "clean_ending",
    "pet_phrase",
    "rel_kind",
    "resolve",
]

_I = re.IGNORECASE

_REL_PREFIX = re.compile(r"^(?:best|older|younger|little|big|baby|twin|step|late)[- ]?", _I)


def rel_kind(rel: str) -> str | None:
    """``sibling_of`` for "brother", "older sister" ...; ``None`` for exes and unknown relations."""
    rel = rel.lower().replace("_", " ").strip()
    if rel.startswith("ex"):
        return None
    kind = REL_KINDS.get(_REL_PREFIX.sub("", rel)) or REL_KINDS.get(rel)
    return f"{kind}_of" if kind else None


# -------------------------------------------------------------------------------------- the rules
_OWN_VERBS = (
    r"(?:sold|sold off|gave away|given away|got rid of|gotten rid of|traded in|traded|donated|scrapped|rehomed|"
    r"re-homed|returned|wrote off|written off|totaled|totalled|retired|parted with|said goodbye to|"
    r"waved goodbye to|got shot of|swapped|exchanged)"
)
_PUT_DOWN = (
    r"(?:had to |have had to |has had to )?(?:put|had|have|got) (?P<x>(?:my|our|his|her|their) .+?) (?:put )?"
    r"(?:down|to sleep)\b"
)
PET_END = re.compile(
    r"(?:has |have |had )?(?:just |recently |sadly |finally |unfortunately )?(?:died|passed away|passed on|passed|"
    r"was put down|was put to sleep|had to be put down|got put down|ran away|went missing|is gone|was killed|"
    r"got killed|was hit by a car|was rehomed)\b",
    _I,
)
ENDING_RULES: tuple[Rule, ...] = (
    # things owned and pets
    rule(r"<A><HAVE>" + _OWN_VERBS + r" (?P<x>.+?)(?:\s+(?:for|in exchange for)\s+(?P<o>.+))?$",
         neg("@owned", "owned", "x"), f("@owned", "owned"), we_ok=True),
    rule(r"<A>" + _PUT_DOWN, neg("has_pet", "pet", "x"), we_ok=True),
    rule(r"<A><HAVE>lost (?P<x>(?:my|our|his|her|their) (?:old |beloved |sweet )?" + PET_RE + r"\b.*)",
         neg("has_pet", "pet", "x"), we_ok=True),
    rule(r"<A>(?:no longer|used to) (?:own|owns|have|has|drive|drives|ride|rides) <O>", neg("@owned", "owned"),
         we_ok=True),
    rule(r"<ANY><A>(?:do|does) not <A>(?:own|have|drive|ride) <O>", neg("@owned", "owned"), we_ok=True),
    rule(r"<A>(?:have|has|have got) (?:a|an) (?P<o>(?-i:[A-Z][\w-]+)(?: (?-i:[A-Z0-9][\w-]*)){0,2})(?=\s*$|\s*[,.!;]|"
         r"\s+(?:and|now|too|that|which|from|since|in|last)\b)", f("owns", "owned"), we_ok=True),
    rule(r"<A><HAVE>(?:just |finally |recently )?(?:bought|purchased|leased) (?:myself |himself |herself )?"
         r"(?P<o>(?:a|an) .+)", f("@owned", "owned"), we_ok=True),
    # work
    rule(r"<A>(?:quit|left|lost|resigned from|retired from|(?:was|got|have been|has been) (?:laid off|let go|fired) "
         r"from) (?:my|his|her|their|the) (?:old |previous |former |last )?(?:job|position|role|work|gig) (?:at|with) "
         r"<O>", neg("works_at", "org")),
    rule(r"<A><HAVE>(?:just |recently |finally )?(?:quit|left|lost) (?:my|his|her|their) (?:job|position|work|gig)"
         r"\b(?!\s+(?:at|with|for)\b)(?!.*\b(?:to (?:join|start|work|take)|for (?:a|another|the)\b))",
         f("employment_status", "status", "=unemployed")),
    rule(r"<A>(?:(?:was|were|got|have been|has been|am|is|are|have|has) )?(?:just |recently )?(?:laid off|let go|fired|"
         r"made redundant|sacked)\b(?!\s+from)", f("employment_status", "status", "=unemployed")),
    rule(r"<A><HAVE>(?:just |finally )?left (?P<o>(?-i:[A-Z])[^,;]+)", neg("@left", "org"), we_ok=True),
    rule(r"<A><HAVE>(?:retired|resigned) from (?:the )?<O>", neg("works_at", "org")),
    rule(r"<ANY><A>(?:am|is|are) not <A>(?:living|based) in <O>", neg("lives_in", "place"), we_ok=True),
    rule(r"<ANY><A>(?:am|is|are) not <A>(?:working|employed) (?:at|for) <O>", neg("works_at", "org")),
    rule(r"<A><HAVE>(?:just |recently |finally )?joined (?P<o>.+?)(?:\s+as\s+(?P<j>.+))?$", f("@joined", "org"),
         f("job_title", "job", "j")),
    rule(r"<A>(?:(?:am|is|are|have|has|had) )?(?:just |recently |finally |now |officially )?(?P<o>retired)\b"
         r"(?!\s+(?:from|the|my|our|his|her|their|a|an|this|that|it|them)\b)", f("employment_status", "status")),
    rule(r"<ANY><A>(?:am|is|are) not <A>(?:a |an )?(?P<o>" + DIET_RE + r")\b", neg("diet", "thing")),
    rule(r"<A>(?:am|is|are) no longer <A>(?:a |an )?(?P<o>" + DIET_RE + r")\b", neg("diet", "thing")),
    rule(r"<A>(?:used to be|(?:stopped|quit) being|gave up being) (?:a |an )?(?P<o>" + DIET_RE + r")\b",
         neg("diet", "thing")),
    rule(r"<ANY><A>(?:am|is|are) not <A>(?:a|an) (?P<j>.+)", neg("job_title", "job", "j")),
    rule(r"<A>(?:am|is|are) no longer <A>(?:a|an) (?P<j>.+)", neg("job_title", "job", "j")),
    rule(r"<A>(?:used to be|used to work as|(?:stopped|quit) (?:being|working as)) (?:a|an) (?P<j>.+)",
         neg("job_title", "job", "j")),
    # partners
    rule(r"<A>(?:am |is |are |got |have |has |have been |has been )?(?:divorced|separated)(?: from)? "
         r"(?P<o>(?-i:[A-Z])[\w'-]+)", neg("married_to", "name")),
    rule(r"<A>(?:am |is |are |got |have |has |have been |has been |was |were )?(?:just |recently |finally |now )?"
         r"(?P<o>divorced|separated)\b", f("relationship_status", "status")),
    rule(r"<A><HAVE>(?:broke up|broken up|split up|split|separated|called it off) with (?P<o>.+)",
         neg("dating", "person")),
    rule(r"<A>(?:am|is|are|have been|has been|(?:have |has )?(?:started|begun|began)) (?:dating|seeing|going out "
         r"with|in a relationship with),? <O>",
         f("dating", "person")),
    # "seeing someone new - her name's Priya", "seeing someone new since july, amara, she's ..."
    rule(r"<A>(?:am|is|are|have been|has been|(?:have |has )?(?:started|begun|began)) (?:dating|seeing) (?:someone|"
         r"somebody)(?: new)?(?:[^.!?]{0,40}?(?:her|his|their) name(?:'s| is)| since \w+,|[,:]| -) (?P<o>[\w'-]+)",
         f("dating", "person")),
    # places
    rule(r"<A><HAVE>(?:moved|moved away|moved out|relocated|got out) (?:out of|away from|from)(?!.*\bto\b) <O>",
         neg("lives_in", "place"), we_ok=True),
    # languages
    rule(r"<A>(?:no longer|used to) (?:speak|speaks) <O>", neg("speaks", "lang")),
    rule(r"<ANY><A>(?:do|does) not <A>speak <O>", neg("speaks", "lang")),
    rule(r"<A><HAVE>(?:forgotten|forgot|lost) (?:all |most |much )?(?:of )?(?:my|his|her|their) <O>",
         neg("speaks", "lang")),
    rule(r"<A><HAVE>stopped speaking <O>", neg("speaks", "lang")),
    # studies
    rule(r"<A><HAVE>(?:just |finally )?graduated (?:from )?(?P<u>(?-i:[A-Z]).+?)(?:\s+(?:in|with a degree in)\s+"
         r"(?P<x>(?-i:[a-z])[a-z ]+))?$", neg("studies_at", "org", "u"), neg("studies", "subject", "x"),
         any_field=True),
    rule(r"<A><HAVE>(?:just |finally )?(?:finished|completed|defended|dropped out of|quit|abandoned|left|got|earned) "
         r"(?:my|his|her|their) (?:(?P<x>(?-i:[a-z])[a-z ]*?) )?(?:degree|course|studies|diploma|master'?s|masters|"
         r"phd|doctorate|bachelor'?s|ba|bsc|msc|mba|program|programme|classes|thesis)(?: (?:in|of) "
         r"(?P<y>(?-i:[a-zA-Z])[a-z ]*?))?(?: (?:at|from) (?P<u>(?-i:[A-Z]).+))?(?=$|[\s,.;!])",
         neg("studies", "subject", "x"), neg("studies", "subject", "y"), neg("studies_at", "org", "u"),
         any_field=True),
    rule(r"<A><HAVE>dropped out of (?P<u>(?-i:[A-Z]).+)", neg("studies_at", "org", "u")),
    rule(r"<A><HAVE>(?:just |finally )?(?:finished|completed) (?:studying|learning) (?P<o>.+?)"
         r"(?:\s+at\s+(?P<u>(?-i:[A-Z]).+))?$",
         neg("studies", "study"), neg("studies_at", "org", "u")),
    # health
    rule(r"<A><HAVE>(?:fully |finally |completely )?(?:recovered from|got over|gotten over|beat|beaten|overcame|"
         r"overcome|kicked|(?:am|is|are) (?:over|cured of|free of|free from|clear of)) <O>",
         neg("has_condition", "cond")),
    rule(r"<A>(?:(?:was|were|got|have been|has been|'s been|'ve been) diagnosed with|have got|have|has|suffer from|"
         r"suffers from|(?:am|is|are) (?:sick|ill|down) with|caught|came down with|live with|lives with) <O>",
         f("has_condition", "cond")),
    # plans
    rule(r"<A><HAVE>(?:cancel+ed|called off|scrapped|shelved) (?:my|our|his|her|their|the) <O>",
         neg("plans_to", "plan"), we_ok=True),
    rule(r"<ANY><A>(?:am|is|are) not <A>(?:planning|going|hoping|intending) to <O>", neg("plans_to", "verb")),
    rule(r"<A>(?:am|is|are) no longer <A>(?:planning|going|hoping|intending) to <O>", neg("plans_to", "verb")),
    rule(r"<A><HAVE>(?:decided|chosen) not to <O>", neg("plans_to", "verb")),
    rule(r"<ANY><A>(?:do|does) not <A>(?:plan|intend|want) to <O>", neg("plans_to", "verb")),
    rule(r"<A>no longer (?:plan|plans|intend|intends|want|wants) to <O>", neg("plans_to", "verb")),
    # people
    rule(r"<A><HAVE>(?:just |recently |sadly )?(?:died|passed away|passed on|passed)\b",
         f("life_status", "status", "=deceased"), third_only=True),
    # activities, habits and hobbies (after the specific verbs above)
    rule(r"<A><HAVE>(?:gave up|given up|quit|stopped|dropped|abandoned|ditched|kicked)(?: on)? (?P<x>.+?)"
         r"(?:\s+(?:for|in favou?r of)\s+(?P<o>.+))?$", neg("@activity", "act", "x"), f("@activity", "act")),
    # "ditched Spotify for Apple Music": a named product or service replaced by another
    rule(r"<A><HAVE>(?:ditched|dropped|dumped|replaced|swapped|binned|cancell?ed) (?:my |our )?"
         r"(?P<x>(?-i:[A-Z])[\w+'&-]*(?: (?-i:[A-Z0-9])[\w+'&-]*){0,2}) (?:for|with) (?P<o>.+)",
         neg("@switched", "switched", "x"), f("@switched", "switched")),
    rule(r"<A>(?:no longer|used to) (?P<x>[a-z]+\b.*)", neg("@activity", "actverb", "x")),
    rule(r"<ANY><A>(?:do|does) not <A>(?P<x>[a-z]+\b.*)", neg("@activity", "actverb", "x")),
    rule(r"<A><HAVE>(?:took up|taken up|picked up|got into|gotten into|started|began|(?:am|is|are) taking up) <O>",
         f("@activity", "act")),
    rule(r"<A>(?:play|plays|(?:am|is|are) playing|(?:have|has) been playing|learned to play|learnt to play) <O>",
         f("plays", "playable")),
)
MY_ENDING_RULES: tuple[Rule, ...] = (
    rule(r"(?:my|our) <O> (?:is|are|has|have) (?:finally |completely |totally )?(?:gone|cured|healed|over)\b",
         neg("has_condition", "cond")),
)
START_ENDING_RULES: tuple[Rule, ...] = (
    rule(r"(?P<o>(?-i:[A-Z])[\w'-]+) and I (?:have )?(?:just |finally )?(?:got )?divorced",
         neg("married_to", "name")),
    rule(r"(?P<o>(?-i:[A-Z])[\w'-]+) and I (?:have )?(?:just |finally )?(?:broke up|split up|split|separated)",
         neg("dating", "name")),
)
# a coordinated verb phrase of the same subject: "I sold my car and (now) drive a Tesla"
CONT = re.compile(
    r"(?:,\s*|\s+)(?:and|but|then|so)\s+(?:(?:now|then|also|later|instead|soon|eventually|recently|finally|just)"
    r",?\s+)*(?=[a-z])"
)

# ---------------------------------------------------------------------------------------- cleaning
ENDING_KINDS = frozenset({"owned", "pet", "act", "actverb", "cond", "plan", "person", "status", "subject",
                          "playable"})
_LEAD = re.compile(
    r"^(?:(?:my|his|her|their|our|your|the|a|an|old|former|beloved|trusty|little|second-hand|used|first|new|"
    r"whole|entire|last)\s+)+", _I,
)
_OBJ_CUT = re.compile(
    r"\s+(?:and|but|for|to|in|on|at|with|because|since|so|after|before|which|that|when|while|as|from|back)\b.*$",
    _I,
)
_ACT_CUT = re.compile(r"\s+(?:and|but|for|because|since|after|when|as|so)\b.*$|\s*,.*$", _I)
_NAMED = re.compile(r"^(?:(?:a |an |this |some )?(?:guy|girl|man|woman|person|someone|boy|lady|dude) "
                    r"(?:(?:named|called) )?|"
                    r"(?:my|his|her|their) (?:girlfriend|boyfriend|partner|fianc[eé]e?) )",
                    _I)
_SOMEONE = re.compile(r"^(?:someone|somebody|a (?:guy|girl|man|woman|lad|bloke|lady|person))(?: new)?\b[^,]{0,40},\s*"
                      r"(?P<name>(?-i:[A-ZÀ-Þ])[\w'-]+)\s*(?:$|[,.;!(])", _I)
_LATER_NAME = re.compile(r"^[^,;.!?]{0,40}?,?\s+(?:named|called)\s+(?P<name>(?-i:[A-ZÀ-Þ])[\w'-]+)", _I)
_NAMED_PET = re.compile(r"\s+(?:named|called)\s+", _I)
_CAPNAME = re.compile(r"[A-ZÀ-Þ][\w'-]*")


def pet_phrase(value: str) -> str | None:
    """``"our dog Max"`` / ``"a cat named Miso"`` / ``"rabbit"`` -> the pet convention, else ``None``."""
    value = _LEAD.sub("", value.strip())
    species, _, name = _NAMED_PET.sub("\x00", value, count=1).partition("\x00")
    words = species.split()
    if not name and len(words) >= 2 and _CAPNAME.fullmatch(words[-1]):
        species, name = " ".join(words[:-1]), words[-1]
        words = words[:-1]
    if not words or len(words) > 3:
        return None
    head = words[-1].lower()
    if head not in PETS and head.rstrip("s") not in PETS:
        return None
    name = name.split()[0].strip(".,!") if name.split() else ""
    return f"{species} named {name}" if name and _CAPNAME.fullmatch(name) else species


def _plain(value: str, max_words: int) -> str | None:
    words = value.split()
    if not words or len(words) > max_words or words[0].lower() in BAD_FIRST:
        return None
    if any(w.lower() in ("i", "me", "it", "them", "this", "that", "anything", "something") for w in words):
        return None
    return value if any(c.isalnum() for c in value) else None


def clean_ending(value: str, kind: str, strip: Callable[[str], str], name: Callable[[str], str | None]) -> list[str]:
    """Clean an object of an ending kind; ``[]`` when unusable. ``strip`` drops fillers and time phrases."""
    if kind in ("status", "playable"):
        value = strip(value if kind == "playable" else _ACT_CUT.sub("", value))
        if kind == "playable":
            out: list[str] = []
            for item in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", value):
                item = _LEAD.sub("", _OBJ_CUT.sub("", item))
                if item.lower() not in PLAYABLE:
                    break
                out.append(item)
            return out
        return [value.lower()] if value.isalpha() else []
    if kind == "person":
        later = _SOMEONE.match(value.strip())  # "someone new since the summer, Aisha": the name comes after
        value = later.group("name") if later else _NAMED.sub("", value.strip())
        found = name(value)
        return [found] if found else []
    if kind in ("act", "actverb"):
        value = strip(_ACT_CUT.sub("", value))
        if kind == "actverb":
            first, _, rest = value.partition(" ")
            base = THIRD_FORMS.get(first.lower(), first.lower())
            base = base if base in GERUNDS else base[:-1] if base.endswith("s") else base
            if base not in GERUNDS:
                return []
            value = f"{GERUNDS[base]} {rest}".strip()
        return [value] if _plain(value, 5) else []
    if kind == "plan":
        value = strip(_LEAD.sub("", _ACT_CUT.sub("", value)))
        return [value] if _plain(value, 6) else []
    whole = value
    value = strip(_LEAD.sub("", _OBJ_CUT.sub("", _LEAD.sub("", value.strip()))))
    if kind == "pet":
        found = pet_phrase(value)
        later = _LATER_NAME.search(whole)  # "a hamster for his birthday, named Nugget"
        if found and later and " named " not in found:
            found = f"{found} named {later.group('name')}"
        return [found] if found else []
    if kind == "cond":
        low = value.lower()
        words = low.split()
        known = low in CONDITIONS or (words and (words[-1] in COND_HEADS or words[-1] in CONDITIONS  # "type 2
                                                 or words[-1].endswith("itis")))  # diabetes", "prostate cancer"
        return [value] if known and _plain(value, 4) else []
    if kind == "subject":
        return [value] if _plain(value, 4) and value.replace(" ", "").replace("'", "").isalpha() else []
    # owned
    if not _plain(value, 4) or value.split()[-1].lower() in ABSTRACT | DEGREES:
        return []
    return [value]


def _activity(value: str) -> tuple[str, str] | None:
    value = _LEAD.sub("", value.strip())
    low = value.lower()
    first = low.partition(" ")[0]
    rest_v = _LEAD.sub("", value.partition(" ")[2]).strip()
    if first == "playing" and rest_v:
        return ("plays", rest_v) if len(rest_v.split()) <= 3 else None
    if first in ("learning", "studying") and rest_v:
        return ("studies", rest_v) if len(rest_v.split()) <= 3 else None
    if first == "going" and (rest_v.lower() in GOING or _activity(rest_v.removeprefix("to ")) is not None):
        return ("hobby", value)
    if first in ("doing", "practising", "practicing") and rest_v:
        return ("hobby", rest_v) if len(rest_v.split()) <= 3 else None
    if low in PLAYABLE:
        return ("plays", value)
    if low in HABIT_NOUNS or first in HABIT_GERUNDS:
        return ("habit", value)
    if low in HOBBY_NOUNS:
        return ("hobby", value)
    if first.endswith("ing") and first not in STOP_GERUNDS and len(low.split()) <= 3:
        return ("hobby", value)
    return None


_SETTINGS = frozenset({"city", "countryside", "country", "suburbs", "town", "village", "coast", "seaside", "sticks"})


def resolve(pred: str, value: str, clause: str) -> tuple[str, str] | None:
    """The predicate and object of an ``@`` field (``None`` when the object does not fit)."""
    if pred == "@owned":
        low = value.lower()
        swapped = re.search(r"([\w'-]+)\s+(?:for|in exchange for)\s+" + re.escape(value), clause)
        if low in PLACES or (swapped and swapped.group(1).lower() in PLACES):  # "swapped London for Brighton"
            return ("lives_in", value)
        if low in _SETTINGS:  # "traded the city for the countryside": no place named
            return None
        pet = pet_phrase(value)
        return ("has_pet", pet) if pet else ("owns", value)
    if pred == "@activity":
        return _activity(value)
    if pred == "@left":  # "I left London" is a move, "I left Accenture" a job
        moving = re.search(r"\b(?:moved|relocated|live|living|lived|moving)\b", clause, _I)
        return ("lives_in" if moving or value.lower() in PLACES else "works_at", value)
    return (pred, value)
