"""Objects of the capture frames (:mod:`._frames`): things held, groups, homes, habits, named things.

A frame's group captures a noun phrase as people write it ("an old upright piano, a Yamaha U1 my grandma
left me", "a running club, the Clapham Chasers", "a studio flat above a bakery on Cowley Road", "two double
espressos every morning before work"). Each kind here reduces it to its *head* (the noun that says what
the thing is) and validates that head against a word class of :mod:`..text.lexicon`, or accepts a proper
name in its place ("a 2012 Honda Civic", "PureGym"). The *named-thing frame* ("a <noun> called|named <Name>",
"a <noun>, the <Name>") keeps the name, which is what a later turn will mention.

``@`` predicates of the frames are resolved here from the object's class (:func:`resolve_capture`):
``@held`` (a pet or a possession), ``@joined`` (a club, a school or an employer), ``@activity2`` (a hobby or
a habit).
"""

from __future__ import annotations

import re

from ..text.dates import NUMBER_WORDS
from ..text.known_names import kind_of
from ..text.lexicon import (
    ABSTRACT,
    ACTIVITY_VERBS,
    BUSINESSES,
    CONDITION_ADJECTIVES,
    CONSUMABLES,
    COURSES,
    DEGREES,
    DWELLINGS,
    FIELDS,
    GROUPS,
    HABIT_NOUNS,
    HABIT_VERBS,
    HOBBY_NOUNS,
    MEDICATIONS,
    NOT_NAMES,
    NOT_OWNED,
    PETS,
    POSSESSIONS,
    SCHOOLS,
    STARTERS,
    STOP_GERUNDS,
    THING_ADJECTIVES,
)
from ._subjects import rel_word

__all__ = ["CAPTURE_KINDS", "CAPTURE_PREDICATES", "clean_capture", "held_head", "resolve_capture"]

_I = re.IGNORECASE

CAPTURE_KINDS = frozenset({
    "condadj", "held", "product", "switched", "group", "namedgroup", "aged", "drinks", "home", "habit",
    "verbact", "activity2", "med", "teacher", "corg", "allergen", "breed",
})
"""The object kinds cleaned by :func:`clean_capture`."""
CAPTURE_PREDICATES = frozenset({"@held", "@joined", "@activity2", "@switched"})
"""The ``@`` predicates resolved by :func:`resolve_capture`."""

_BREAK = re.compile(
    r"\s*(?:[;:!?()\[\]\"]|\s[-\u2013\u2014]\s|\s(?:because|since|but|so|when|whenever|while|although|though|"
    r"unless|until|cause|cuz|except|especially|including|if|whereas|plus|and (?:then|I|it|my|the|this|that|there|"
    r"so|now|also|we|she|he|they|is|am|are|have|has|had|was|were|keep|keeps|want|need))\b)",
    _I,
)
_NAMED = re.compile(r"^(?P<np>.+?),?\s+(?:called|named)\s+(?P<name>.+)$", _I)
_PREPOSITION = re.compile(r"(?:with|at|for|in|on|from|to|by|of|near|off)\b", _I)
_APPOS = re.compile(r"^(?P<np>[^,]+),\s+(?P<name>(?:the |a |an )?\S.*)$", _I)
_LEAD = re.compile(r"^(?:(?:a|an|the|my|our|his|her|their|this|that|some|one|two|three|four|five|six|\d{1,2}|"
                   r"a couple of|a pair of|a few)\s+)+", _I)
_REL_CUT = re.compile(r"\s+(?:which|who|that|my|our|his|her|their|i|we|she|he|they|it|from|for|with|at|to|near|"
                      r"above|below|behind|next|opposite|over|under|beside|off|"
                      r"by|since|in|on|as|because|after|before|when|while|and|but|so|or|than|like|about|of|"
                      r"into|off|out|up)\b.*$", _I)
_HOME_PLACE = re.compile(r"\b(?:in|on|at|off|near)\s+(?P<place>(?:the\s+)?(?-i:[A-Z0-9][\w'&.-]*)(?:\s+(?-i:[A-Z0-9&]"
                         r"[\w'&.-]*))*)", _I)
_CAPWORD = re.compile(r"^(?:[A-ZÀ-Þ][\w'&+.-]*|[a-z]+[A-Z][\w+-]*|\d[\w.-]*|[A-Z0-9]+[\w+-]*|[a-z]{1,3}\d[\w-]*)$")
_TRAIL_OK = frozenset({"hybrid", "electric", "diesel", "petrol", "estate", "convertible", "pro", "plus", "max",
                       "mini", "ultra", "conversion", "ev"})
_WEEKDAYS = frozenset("Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May "
                      "June July August September October November December Christmas Easter".split())
_FREQ = re.compile(r"\b(?P<freq>(?:a|per|every|each)\s+(?:day|night|morning|evening|week|weekend|month)|daily|"
                   r"nightly|weekly|most (?:days|mornings|nights|evenings)|(?:once|twice|\w+ times|\d+x) (?:a|per) "
                   r"(?:day|week|month))\b", _I)
_QTY = re.compile(r"^(?P<q>\d{1,3}|" + "|".join(w for w in NUMBER_WORDS if " " not in w) + r"|a couple of|a few|"
                  r"several)\s+", _I)
_GROUP_WORD = re.compile(r"(?:club|gym|fitness|crossfit|choir|band|orchestra|team|singers|society|league|"
                         r"players|chasers|harriers|runners|united|rovers|wanderers|athletic)s?$", _I)
_MED_DOSE = re.compile(r"\b\d+\s?(?:mg|mcg|ml|iu)\b", _I)


_FILLER = re.compile(r"(?:\s+(?:now|too|anymore|these days|at the moment|currently|lol|haha|though|tbh|honestly|"
                     r"and|obviously|instead|as well))+\s*$", _I)


_NEXT_CLAUSE = re.compile(r"\s+(?:and|but)\s+(?=(?:\w+\s+){1,2}(?:is|are|was|has|have)\b)", _I)


def _cut(value: str) -> str:
    value = _BREAK.split(value, maxsplit=1)[0].strip(" \t,.;:!?'\"")
    value = _NEXT_CLAUSE.split(value, maxsplit=1)[0]  # "a Leaf and range anxiety is real"
    return _FILLER.sub("", value)


def _lead(value: str) -> str:
    """Drop articles, possessives, counts and adjectives from the front."""
    while True:
        shorter = _LEAD.sub("", value.strip())
        words = shorter.split()
        while len(words) > 1 and words[0].lower() in THING_ADJECTIVES and not (
                words[0][:1].isupper() and words[1][:1].isupper()):  # "the Red Lion", "Old Trafford": a name
            words = words[1:]
        shorter = " ".join(words)
        if shorter == value:
            return value
        value = shorter


def _is_name(word: str, first: bool = True) -> bool:
    if not _CAPWORD.match(word) or word in _WEEKDAYS or word == "I":
        return False
    return not first or (word not in STARTERS and word not in NOT_NAMES)


def _name(value: str) -> str | None:
    """The proper name at the start of ``value`` ("the Dog & Duck Dynamos (pub team)" -> "Dog & Duck Dynamos")."""
    words = value.replace('"', " ").strip().split()
    if words and words[0].lower() == "the" and len(words) > 1 and not words[1][:1].isalpha():
        return None  # "the 11th"
    if words and words[0].lower() == "the" and len(words) > 1 and _is_name(words[1]):
        words = words[1:]
    if words and not words[0][:1].isalpha() and not (len(words) > 1 and words[1][:1].isupper()):
        return None
    taken: list[str] = []
    for w in words[:5]:
        bare = w.strip(".,!;:'\"")
        if taken and re.fullmatch(r"\d+(?:x|k|km|am|pm)?", bare, _I):  # "The Castle 3x a week"
            break
        joiner = bare in ("&", "and", "of", "de", "la", "le", "du") and len(words) > len(taken) + 1
        if _is_name(bare, not taken) or (taken and joiner):
            taken.append(bare)
            if bare != w:
                break
        else:
            break
    while taken and taken[-1].lower() in ("&", "and", "of", "de", "la", "le", "du"):
        taken.pop()
    return " ".join(taken) if taken else None


def held_head(np: str) -> str:
    """The head noun of a held thing, lower case and singular ("double espressos" -> "espresso")."""
    words = np.lower().split()
    if not words:
        return ""
    head = words[-1]
    two = " ".join(words[-2:])
    if two in POSSESSIONS or two in GROUPS:
        return two
    return head[:-1] if head.endswith("s") and head[:-1] in POSSESSIONS | PETS | BUSINESSES else head


def _product(np: str) -> bool:
    """A proper-named product: a capitalised or numbered word at its end ("2012 Honda Civic", "iPhone 16")."""
    words = np.split()
    if not words or len(words) > 6:
        return False
    last = len(words) - 1
    if len(words) > 1 and (words[-1].lower() in _TRAIL_OK or words[-1].lower() in POSSESSIONS):
        last -= 1
    if last < 0:
        return False
    tail = words[last]
    if not _CAPWORD.match(tail) or tail in _WEEKDAYS or tail in STARTERS:
        return False
    if tail.isdigit() and last == 0:
        return False
    return not any(w.lower() in COURSES | DEGREES for w in words)


def _held(raw: str) -> list[str]:
    value = _cut(raw)
    named = _NAMED.match(value)
    name = None
    if named is not None:
        value, name = named.group("np"), _name(named.group("name"))
    else:
        appos = _APPOS.match(value)
        if appos is not None and _PREPOSITION.match(appos.group("name")):  # "a paper round, with the Post"
            value, appos = appos.group("np"), None
        if appos is not None:
            pets = _pet_names(appos.group("np"), appos.group("name"))
            if pets:
                return pets
            second = _lead(_REL_CUT.sub("", appos.group("name"))).split(",")[0].strip(" .")  # it ends at its comma
            own = _lead(_REL_CUT.sub("", appos.group("np"))).strip(" ,.")
            business = _name(appos.group("name")) if held_head(own) in BUSINESSES else None
            if business and len(own.split()) <= 3:  # "my own bakery, Flour Power": a business by its name
                return [f"{own} named {business}"]
            if _product(second) or held_head(second) in POSSESSIONS:  # "a sailboat, a 22ft Catalina"
                # the kind and the name that says which one ("sailboat (22ft Catalina)"); the kind alone when
                # the apposition names nothing
                kind = _held(appos.group("np"))
                if kind and re.search(r"\b[A-Z]", second) and len(second.split()) <= 4:
                    return [f"{kind[0]} ({second})"]
                value = appos.group("np") if kind else second
            else:  # "an old Trek Domane, aluminium": what follows the comma describes it
                value = appos.group("np")
    value = _lead(value)
    dwelling = held_head(_REL_CUT.sub("", value)) in DWELLINGS
    place = _HOME_PLACE.search(value) if dwelling else None
    core = _REL_CUT.sub("", value).strip(" ,.")
    words = core.split()
    if not words or len(words) > 6:
        return []
    head = held_head(core)
    if head in NOT_OWNED or head in ABSTRACT or head in DEGREES or head in COURSES:
        return []
    if not (head in POSSESSIONS or head in BUSINESSES or head in PETS or _product(core) or name):
        return []
    if name:
        return [f"{core} named {name}"]
    if place is not None:
        return [f"{core} {place.group(0).split()[0].lower()} {place.group('place')}"]
    return [core]


def _named_product(raw: str) -> list[str]:
    """A held thing told by its make or name ("a 2012 Honda Civic", "a Brompton"), not a kind ("a bike")."""
    found = _held(raw)
    return found if found and (_product(found[0]) or " named " in found[0]) else []


_WHEN_CUT = re.compile(r"\s+(?:over|during|in|for|this|last|at|since|after|before) (?:the |a |my )?(?:summer|winter|"
                       r"spring|autumn|fall|holidays?|break|weekend|year|month|week|pandemic|lockdown|end)\b.*$", _I)


def _switched(raw: str) -> list[str]:
    """What one switched to or from: a product or service ("Linux", "oat milk"), a club, or a field of study."""
    named = _NAMED.match(_cut(raw))
    if named is not None:  # "a CrossFit box called Ironside"
        name = _name(named.group("name"))
        return [name] if name else []
    value = _WHEN_CUT.sub("", _FILLER.sub("", _cut(raw)))
    value = re.split(r"\s*,\s*|\s+(?:because|since|as|after|when|for|last|this|and)\b", value, maxsplit=1)[0]
    value = _LEAD.sub("", value).strip(" .")
    words = value.split()
    if not words or len(words) > 5 or words[0].lower() in ("it", "that", "this", "them", "something", "nothing"):
        return []
    return [value]


def _pet_names(np: str, names: str) -> list[str]:
    """ "two budgies", "Kiwi and Mango" -> one pet per name ("budgie named Kiwi", "budgie named Mango")."""
    species = _lead(np.strip())
    head = held_head(species)
    if head not in PETS or len(species.split()) > 3:
        return []
    if species.lower().endswith("s") and species.lower()[:-1].split()[-1] in PETS:
        species = species[:-1]
    found = [n.strip(" .!") for n in re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", _cut(names))]
    if not found or not all(n and _is_name(n) and " " not in n for n in found):
        return []
    return [f"{species} named {n}" for n in found]


def _named_group(raw: str) -> list[str]:
    """A group by its name only ("a covers band, The Velvet Hours"): a group mentioned in passing."""
    found = _group(raw)
    return found if found and found[0][:1].isupper() else []


def _group(raw: str) -> list[str]:
    value = raw.strip()
    value = re.split(r"\s*(?:[;:!?()\[\]]|\s[-\u2013\u2014]\s)", value, maxsplit=1)[0]
    named = _NAMED.match(value)
    if named is not None:
        name = _name(named.group("name"))
        return [name] if name else []
    first, _, rest = value.partition(",")
    rest = rest.strip()
    core = _lead(_REL_CUT.sub("", _cut(first)))
    if rest and held_head(core) in GROUPS | {"choir", "band"}:
        name = _name(rest)
        if name:
            return [name]
    name = _name(_LEAD.sub("", first.strip()))
    if name and len(name.split()) <= 5 and not (" " not in name and _GERUND.fullmatch(name)):
        return [name]
    words = core.split()
    if 2 <= len(words) <= 4 and held_head(core) in GROUPS and core.lower() == core:  # "a running club", not "a team"
        return [core]
    return []


_GERUND = re.compile(r"[A-Z][a-z]+ing")


_CARE_HOME = re.compile(r"^(?:(?P<name>(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,3}),?\s+)?(?:(?:the|a|an)\s+)?"
                        r"(?P<home>(?:care|nursing|residential|retirement) home)(?:\s+in\s+(?P<place>(?-i:[A-Z])"
                        r"[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*)?))?", _I)
_NAMED_HOME = re.compile(r"^(?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2}\s+(?:House|Lodge|Court|Manor|Grange|Hall|"
                         r"Gardens|View|Park|Place)\b")


def _home(raw: str) -> list[str]:
    """Where a home is: a named home or care home ("Oakwood care home in Thirsk", "Glan Yr Afon, the care home
    in Swansea", "Willow Lodge"), else the place of a dwelling ("a 2-bed in Walthamstow" -> "Walthamstow")."""
    value = _cut(raw)
    text = _lead(value)
    if (care := _CARE_HOME.match(text)) is not None:
        if care.group("name"):  # "Glan Yr Afon, the care home": the name; "Oakwood care home": all of it
            return [care.group("name") + ("" if "," in care.group(0) or " the " in care.group(0).lower()
                                          else " " + care.group("home"))]
        return [care.group("home") + (f" in {care.group('place')}" if care.group("place") else "")]
    if (named := _NAMED_HOME.match(text)) is not None:
        return [named.group(0)]
    np = _lead(_REL_CUT.sub("", value))
    if held_head(np) not in DWELLINGS:
        return []
    place = _HOME_PLACE.search(value)
    if place is None:
        return []
    found = place.group("place")
    return [found[4:] if found.lower().startswith("the ") else found]


def _drinks(raw: str) -> list[str]:
    """What one drinks so many of a day: any drink ("three flat whites a day")."""
    return _habit(raw, any_head=True)


def _habit(raw: str, any_head: bool = False) -> list[str]:
    value = _cut(raw)
    freq = _FREQ.search(value)
    if freq is None:
        return []
    np = value[: freq.start()].strip(" ,")
    qty = _QTY.match(np)
    count = ""
    if qty is not None:
        q = qty.group("q").lower()
        count = str(NUMBER_WORDS.get(q, q)) if q in NUMBER_WORDS or q.isdigit() else q
        np = np[qty.end():]
    np = _lead(_REL_CUT.sub("", np))
    words = np.split()
    if not words or len(words) > 4 or not (any_head or words[-1].lower() in CONSUMABLES):
        return []
    return [" ".join(x for x in (count, np, freq.group("freq").lower()) if x)]


_ACTS = frozenset(HOBBY_NOUNS | HABIT_NOUNS | {"meditation", "yoga", "fasting", "intermittent fasting", "therapy",
                                                "journaling", "stretching", "weights", "parkrun"})


def _activity(raw: str) -> list[str]:
    value = _cut(raw).split(",")[0]
    value = re.sub(r"^(?:(?:a|an|some|about|around|roughly|\d+|\w+) (?:minutes?|mins?|hours?|hrs?|sessions?) of "
                   r"|a (?:bit|lot) of |some )", "", value, flags=_I)
    value = _REL_CUT.sub("", value)
    value = re.sub(r"\s+(?:every|each|most|a|per|daily|regularly|twice|once)\b.*$", "", value, flags=_I).strip(" ,.")
    words = value.split()
    if not words or len(words) > 3:
        return []
    last = words[-1].lower()
    if value.lower() in _ACTS or last in _ACTS or (last.endswith("ing") and last not in STOP_GERUNDS and len(words) <= 2
                                                     and words[0].lower() == last):
        return [value]
    return []


def _verbact(raw: str) -> list[str]:
    """An activity verb as the activity: "run" / "runs" -> "running", "smokes" -> "smoking"."""
    verb = raw.strip().lower()
    for base in (verb, verb[:-1], verb[:-2]):
        found = ACTIVITY_VERBS.get(base) or HABIT_VERBS.get(base)
        if found:
            return [found]
    return []


def _med(raw: str) -> list[str]:
    value = _lead(_REL_CUT.sub("", _FREQ.split(_cut(raw))[0].split(",")[0])).strip()
    words = value.split()
    if not words or len(words) > 3:
        return []
    if any(w.lower() in MEDICATIONS for w in words) or _MED_DOSE.search(raw):
        return [value]
    return []


def _teacher(raw: str) -> list[str]:
    value = _REL_CUT.sub("", _cut(raw)).strip()
    words = value.split()
    if not words or len(words) > 4 or words[0].lower() in ("my", "our", "his", "her", "their", "them", "him", "it",
                                                          "kids", "people", "myself", "you", "a", "the"):
        return []
    return [f"{value} teacher"] if all(w.replace("-", "").isalnum() for w in words) else []


def _corg(raw: str) -> list[str]:
    value = _cut(raw)
    named = _NAMED.match(value)
    if named is not None:
        name = _name(named.group("name"))
        return [name] if name else []
    name = _name(_LEAD.sub("", value))
    return [name] if name else []


_ALLERGEN_CUT = re.compile(r"\s+(?:which|that|from|for|since|as|because|when|like|ever|too|at|in)\b.*$", _I)


def _allergen(raw: str) -> list[str]:
    value = re.sub(r"^(?:most|some|all|certain|many|a few)\s+", "", _lead(_ALLERGEN_CUT.sub("", _cut(raw))), flags=_I)
    if value.split() and value.split()[0].lower() in ("anything", "nothing", "everything", "something", "that", "it"):
        return []
    out: list[str] = []
    for item in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", value):
        item = item.strip(" .")
        words = item.split()
        if not words or len(words) > 3 or words[-1].lower().endswith("ly") or words[0].lower() in (
                "pretty", "very", "really", "quite", "so", "it", "them", "that", "this"):
            break
        out.append(item)
    return out


def _aged(raw: str) -> list[str]:
    """A thing of one's own told by its age ("my prius is 11 years old"): not a body part or an abstraction."""
    value = raw.strip()
    words = value.lower().split()
    if not words or words[-1] in NOT_OWNED | ABSTRACT | _BODY or not all(w.replace("-", "").isalnum() for w in words):
        return []
    return [value]


_BODY = frozenset("hair skin knee knees back body heart face teeth tooth eyes relationship marriage account house "
                  "son daughter boy girl kid baby child".split())


def _condition_adjective(raw: str) -> list[str]:
    """ "diabetic" -> "diabetes", "lactose intolerant" -> "lactose intolerance"."""
    found = CONDITION_ADJECTIVES.get(" ".join(raw.lower().split()))
    return [found] if found else []


def _breed(raw: str) -> list[str]:
    value = _lead(_REL_CUT.sub("", _cut(raw)))
    words = value.split()
    if not words or len(words) > 3 or not all(w.replace("-", "").isalpha() for w in words):
        return []
    return [value] if held_head(value) in PETS or words[-1].lower() in PETS else []


_CLEAN = {
    "held": _held, "product": _named_product, "switched": _switched, "group": _group, "namedgroup": _named_group,
    "home": _home, "habit": _habit, "drinks": _drinks, "activity2": _activity, "verbact": _verbact, "med": _med,
    "teacher": _teacher, "corg": _corg, "allergen": _allergen, "breed": _breed, "condadj": _condition_adjective,
    "aged": _aged,
}


def clean_capture(raw: str, kind: str) -> list[str]:
    """Cut and validate an object of a capture ``kind``; ``[]`` when it is not usable."""
    return _CLEAN[kind](raw.strip())


def _classes(text: str) -> set[str]:
    words = {w.strip(".,'") for w in re.findall(r"[\w'.-]+", text.lower())}
    out: set[str] = set()
    if words & SCHOOLS or words & COURSES or "sixth form" in text.lower():
        out.add("school")
    if words & GROUPS or any(_GROUP_WORD.search(w) for w in words):
        out.add("group")
    return out


_PARTNERS = frozenset("boyfriend girlfriend partner fiance fiancé fiancee fiancée husband wife".split())
"""A partner told as had with a name ("a boyfriend called Finn"): stored as the ``<relation>_name`` a rule of the
form "my boyfriend Finn" states (:func:`._subjects.rel_word` spells the relation)."""


def resolve_capture(pred: str, value: str, context: str) -> tuple[str, str] | None:
    """The predicate and object of a capture ``@`` field (``None`` when the object does not fit).

    ``context`` is the text the rule matched before the object ("started my PhD at").
    """
    if pred == "@held":
        head = held_head(value.split(" named ")[0])
        if head in _PARTNERS and " named " in value:  # "has a boyfriend called Finn": a person, not a pet
            return (f"{rel_word(head)}_name", value.split(" named ", 1)[1])
        if head in PETS or (" named " in value and head not in POSSESSIONS | BUSINESSES | DWELLINGS):
            return ("has_pet", value)
        return ("owns", value)
    if pred == "@joined":
        own = _classes(value)
        around = _classes(context)
        if "group" in own and "school" not in own:
            return ("member_of", value)
        if "school" in own or "school" in around:
            return ("studies_at", value)
        if "group" in around and "employer" not in kind_of(value):  # "started at Deloitte, in their forensic team"
            return ("member_of", value)
        return ("works_at", value)
    if pred == "@switched":
        low = value.lower()
        if low in FIELDS or low.split()[-1] in FIELDS:
            return ("studies", value)
        if "group" in _classes(value) or "group" in _classes(context):  # "from F45 to a CrossFit box"
            return ("member_of", value)
        return ("uses", value)
    if pred == "@activity2":
        low = value.lower()
        if low in HABIT_NOUNS or low.split()[-1] in ("fasting",) or low.split()[0] in HABIT_VERBS.values():
            return ("habit", value)
        return ("hobby", value)
    return (pred, value)
