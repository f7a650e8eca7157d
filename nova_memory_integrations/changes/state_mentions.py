"""States told by mention, not asserted (pure): shapes of a clause that show what the user has or does.

Much of what holds is never put as "I <verb> <object>". It shows in how a thing is talked about:

- an identity copula names which one of a kind is the user's ("my GP surgery is Parkview Medical Centre",
  "work laptop is a Dell XPS 13", "my birthday's on the 3rd of May");
- a complaint about a named thing is its owner's or customer's ("the Vespa needs a new clutch", "Sky
  broadband keeps cutting out", "my kindle 4 is dying"): nobody complains of a stranger's scooter's clutch;
- a habit is named with its recurrence and no verb, or with the subject dropped ("swimming club every
  Thursday", "Thursday pottery class at the college is ...", "still on two coffees a day", "coach the
  under-9s on Saturdays");
- a label names the user's situation ("Choir: the Dunmore Singers", "Second year Physics at Leeds");
- a relation told with another person's possessive ("Ana's cat Miso") is that person's;
- a price per period of a named service is what the user pays ("Netflix Premium is £18 a month");
- a thing said to be in the user's home is theirs ("there's an old Bechstein piano in our hallway");
- a thing just acquired is held from then on ("picked up my new bike - a Brompton", "got a Switch for my
  birthday"), even when the acquiring was a one-off told with its day;
- a named thing put with a possessive is its owner's whatever the sentence's mood ("is my Corolla's warning
  light urgent?", "rotate the tyres on my Honda Civic?", "my brother Ollie's Vauxhall Corsa failed its MOT"):
  a question or a request around it presupposes the owning, and so does one of the user's kinds of thing placed
  at a name ("my shift at the Amazon depot", "my gym, Virgin Active,") (:func:`possessed`).

Each helper recognises one shape, never a phrase of a particular sentence, and returns ``(subject, value)``
pairs; :mod:`.states` applies its filters (questions, plans, denials, one-off times, change cues) before any
of these is read.
"""

from __future__ import annotations

import re

from ..text.lexicon import NOT_OWNED, PET_RE, POSSESSIONS, RELS, STARTERS
from .guard_words import ASKING_MARKERS, FUTURE_MARKERS, MODAL_MARKERS, REMINISCENCE_MARKERS
from .lexicon import negates
from .state_shapes import GERUND_SUBJECT_END, recurrence

__all__ = ["KIN_TITLES", "acquired", "complaint", "identity", "kept_at_home", "label", "owner_relation", "possessed",
           "priced", "recurring", "scheduled"]

KIN_TITLES = frozenset("mum mom dad mam mammy mummy mommy daddy gran granny grandma grandad granddad grandpa nan "
                       "nana nanna grandmother grandfather".split())
"""Kinship words used as a name ("Dad still drives ...", "Gran's in ..."): the speaker's own relative."""

_THING = r"(?:[A-Z0-9][\w&+'-]*|i[A-Z][\w-]*|e[A-Z][\w-]*|[a-z]{1,2}\d[\w-]*)"
"""A word of a product's or an organisation's name: capitalised, a model number, or "iPhone" / "eBay"."""
_NAMED = rf"{_THING}(?:\s+(?:(?:of|and|de|&)\s+)?{_THING})*"
_KIND_MODIFIERS = r"(?:current|work|home|main|daily|everyday|family|usual|regular|local|new|old|own)"
_IDENTITY = re.compile(
    rf"^(?:(?i:my|our)\s+(?:{_KIND_MODIFIERS}\s+)?|(?i:{_KIND_MODIFIERS})\s+)"
    r"(?P<kind>(?:[A-Z]{2,}\s+)?[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2}?)"
    r"(?:'s|\s+is|\s+are)\s+(?:(?:a|an|the|with|on|from|through|at)\s+)?(?:the\s+)?"
    rf"(?P<name>\d{{1,2}}(?:st|nd|rd|th)(?:\s+of)?\s+[A-Z][a-z]+|(?=\S*[A-Za-z]){_NAMED})(?=[\s,.!?;:)-]|$)")
"""A kind of thing of the user's, a copula, and a name: the user's one of that kind."""
_COMPLAINT = re.compile(
    r"\s+(?:(?:still|just|now|always|literally|constantly|finally)\s+)?"
    r"(?:needs\s+(?:(?:a\s+|an\s+|its\s+|some\s+)?new|replacing|fixing|servicing|repairing|(?:a|an|its)\s+(?:[a-z]+\s+)?"
    r"(?:service|MOT|repair|fix|replacement|check))\b|keeps\s+(?P<going>[a-z]+ing)\b|"
    r"(?:is|'s)\s+(?:down|dying|broken|playing up|acting up|on the blink|overheating|leaking|making (?:a|that) noise)"
    r"\b|won't\s+(?:start|charge|connect|turn on|switch on|work|load|boot|sync)\b|"
    r"(?:has\s+)?(?:stopped working|broken down|packed up|died on me)\b)")
"""What goes wrong with a thing: it needs a part or a service, keeps failing, is down or won't start."""
_PEOPLE_GOING = frozenset("saying asking telling texting calling messaging moaning complaining nagging talking "
                          "laughing crying shouting winning losing bringing sending".split())
"""What people keep doing: "X keeps asking" is a person, not a thing that fails."""
_COMPLAINED_OF = re.compile(
    rf"(?:\b(?P<det>(?i:the|my|our))\s+|^)(?P<np>(?:{_THING}|[a-z][\w-]*\s+\d+[a-z]*)"
    rf"(?:\s+{_THING})*(?:\s+[a-z][a-z-]+)?)(?=\s)")
_DAY = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
_DAY_KIND = re.compile(rf"^(?i:{_DAY})\s+(?:(?:morning|evening|night|afternoon|lunchtime)\s+)?"
                       r"(?P<np>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}?\s+"
                       r"(?:class|classes|club|group|session|sessions|lesson|lessons|practice|training|league|"
                       r"match|game|shift|shifts|run|ride|swim|meeting|service|choir|rehearsal|quiz))\b(?P<rest>.*)$")
"""A day as the modifier of an activity ("Thursday pottery class at the college"): it recurs on that day."""
_RATE = re.compile(r"\b(?:a|per|an)\s+(?:day|night|week|month)\b", re.IGNORECASE)
_ON_RATE = re.compile(r"^(?:(?:still|now|currently|also)\s+)*on\s+(?:(?:about|around|like|roughly|nearly)\s+)?"
                      r"(?P<np>.+)$", re.IGNORECASE)
"""A dose or an amount one is "on" ("on sertraline 50mg once a day", "still on about 10 a day")."""
_BASE_VERB = re.compile(r"^(?P<verb>[A-Z]?[a-z]+)\s+(?P<rest>[a-z0-9].*)$")
_REQUESTS = frozenset("remind tell ask send give show call text email message let help check make get find "
                      "please try keep stop write give list suggest recommend explain".split())
"""Verbs of an instruction to the assistant ("remind me every Monday ..."), never a habit of the user's."""
_LABEL = re.compile(r"^(?P<kind>[A-Za-z][a-z-]+(?:\s+[a-z][a-z-]+){0,2}):\s+(?:the\s+)?"
                    rf"(?P<name>{_NAMED})\s*(?=[,.;!]|$)")
_META = frozenset("update question note edit ps fyi tip problem issue context background answer reminder warning "
                  "spoiler summary tldr quote example result step plan goal".split())
"""Labels that frame the message, not the user's situation ("Update: ...", "Question: ...")."""
_OWNER_RELATION = re.compile(rf"\b(?P<owner>[A-Z][a-z][\w-]*)'s\s+(?P<rel>{RELS}|{PET_RE})\s+"
                             r"(?P<name>[A-Z][a-z][\w-]*)\b")


def identity(body: str) -> tuple[str, str] | None:
    """``("user", "<kind> <name>")`` for "my phone's a Pixel 7", "current car is a VW Polo", "work laptop is a
    ThinkPad"; ``None`` for a kind that is no possession ("my problem is Tom") or a relation ("my boss is
    Ian", which the relation rules read)."""
    m = _IDENTITY.match(body)
    if not m:
        return None
    kind = m.group("kind")
    if kind.split()[-1] in NOT_OWNED or re.fullmatch(RELS, kind, re.IGNORECASE) or kind.split()[0] in \
            ("favourite", "favorite", "fave", "fav", "guess", "bet", "point", "view", "take", "vote", "pick", "name",
             "surname", "nickname"):  # a name is the name rules' (``name``)
        return None
    return "user", f"{kind} {m.group('name').strip()}"


def complaint(body: str) -> tuple[str, str] | None:
    """``("user", "<thing>")`` for a named thing that fails or needs something: "the Vespa needs a new
    clutch", "Sky broadband keeps cutting out", "my kindle 4 is dying". A bare name with no determiner and no
    noun after it may be a person ("Dave keeps asking"): only a name with a noun after it ("Sky broadband")
    or a determiner counts, and never with what people keep doing."""
    trouble = _COMPLAINT.search(body)
    if not trouble or (trouble.group("going") or "") in _PEOPLE_GOING:
        return None
    before = body[: trouble.start()]
    found = None
    for m in _COMPLAINED_OF.finditer(before + " "):
        if m.end() >= len(before) - 1:
            found = m
    if found is None:
        return None
    np, det = found.group("np").strip(), (found.group("det") or "").lower()
    words = np.split()
    if words[0] in STARTERS or words[0].lower() in KIN_TITLES or re.fullmatch(RELS, np, re.IGNORECASE) or \
            not re.search(r"[A-Z0-9]", np):
        return None
    if not det and (len(words) < 2 or not words[-1].islower()):  # "Dave keeps ...": maybe a person
        return None
    return "user", np


def recurring(body: str) -> tuple[str, str] | None:
    """A habit told without "I": a day-modified activity ("Thursday pottery class at the college"), an
    amount one is on ("still on two coffees a day"), or a phrase with a recurrence and no subject
    ("coach the under-9s on Saturdays", "swimming club every Thursday"): ``("user", phrase)``."""
    if m := _DAY_KIND.match(body):
        return "user", f"{m.group(0)[: m.start('np')].strip()} {m.group('np')}{_adjunct(m.group('rest'))}"
    if (m := _ON_RATE.match(body)) and (recurrence(body) or _RATE.search(body)):
        return "user", m.group("np").strip(" .!?")
    marker = recurrence(body)
    if marker and (finite := _FINITE.search(body, 0, marker.start())):
        # "Lidl on the ring road is heaving every Saturday": a named place one goes to; "the flat's quiet on
        # Saturdays" is a clause, no habit
        place = re.fullmatch(rf"(?:the\s+)?(?P<np>{_NAMED}(?:\s+(?:on|in|at|by)\s+[\w\s'-]+)?)", body[: finite.start()])
        return ("user", place.group("np")) if place and place.group("np").split()[0] not in STARTERS else None
    if not marker or re.match(r"^(?:I|we|you|he|she|they|it|there|this|that|my|our|your)\b", body, re.IGNORECASE):
        return None
    if (verb := _BASE_VERB.match(body)) and verb.group("verb").lower() in _REQUESTS:
        return None  # "remind me every Monday": an instruction
    if re.search(r"\b(?:me|us)\b", body[: marker.start()]) or not re.search(r"[a-z]{2}", body[: marker.start()]):
        return None  # "call us every day", "Every month with this bank": no habit named before the recurrence
    phrase = (body[: marker.start()] + _adjunct(body[marker.end():])).strip(" ,.!?")
    return ("user", phrase) if phrase and not phrase.endswith("ing") else None


_FINITE = re.compile(r"(?:\s|')(?:is|are|was|were|has|have|had|s)\b")


def _adjunct(rest: str) -> str:
    """A place told after the habit ("... at Bushy Park"), up to the next boundary; else nothing."""
    m = re.match(r"^\s+(?:at|in|on|with)\s+[^,.;:!?]+", rest)
    if not m:
        return ""
    cut = GERUND_SUBJECT_END.search(m.group(0))
    return m.group(0)[: cut.start()] if cut else m.group(0)


def label(body: str) -> tuple[str, str] | None:
    """"Choir: the Dunmore Singers" -> ``("user", "choir Dunmore Singers")``; a label that frames the
    message ("Update: ...") is none."""
    m = _LABEL.match(body)
    if not m or m.group("kind").lower().split()[-1] in _META or m.group("kind").lower() in _META:
        return None
    return "user", f"{m.group('kind').lower()} {m.group('name').strip()}"


_PRICED = re.compile(rf"^(?:(?i:my|our)\s+)?(?P<np>{_THING}(?:\s+{_THING})*(?:\s+[a-z][\w-]*){{0,2}})\s+"
                     r"(?:is|costs|'s|comes to|went up to|has gone up to)\s+(?:now\s+|still\s+|only\s+)?"
                     r"[£$€]\d[\d.,]*\s*(?:a|per|/)\s*(?:month|year|week|mo|yr)\b")
_AT_HOME = re.compile(r"^there(?:'s| is| are)\s+(?:a|an|the|two|three|\d+)\s+(?P<np>(?:[\w&+-]+\s+){0,3}?[\w-]+)\s+"
                      r"(?:in|on|at)\s+(?:my|our)\s+(?:[a-z]+\s+)?(?:room|hall|hallway|kitchen|garage|garden|shed|drive|"
                      r"driveway|house|flat|loft|attic|lounge|study|office|bedroom|basement|cellar|conservatory|home)\b",
                      re.IGNORECASE)
_ACQUIRED = re.compile(
    r"(?:^|\b(?:I|we)(?:'ve|\s+have)?\s+)(?:(?:just|finally|recently)\s+)?(?i:picked up|bought|got|collected|treated "
    r"(?:myself|ourselves) to)\s+(?:my|our|a|an)\s+(?:(?:new|first|own|shiny)\s+)*(?P<kind>[a-z][\w-]*)"
    r"(?:\s+(?:today|yesterday|this morning|at last|finally))?\s*(?:-+|—|,|:)\s*(?:a|an|the|it's a)?\s*"
    rf"(?P<name>{_NAMED})")
_GIFT = re.compile(r"(?:^|\b(?:I|we)\s+)(?i:got|was given|were given|received)\s+(?:a|an)\s+"
                   r"(?P<np>[\w-]+(?:\s+[\w-]+){0,3}?)\s+"
                   r"(?i:for (?:christmas|xmas|my birthday|our anniversary))\b")


def priced(body: str) -> tuple[str, str] | None:
    """"Netflix Premium is £18 a month" -> ``("user", "Netflix Premium")``: what one pays for by the month."""
    m = _PRICED.match(body)
    if not m or m.group("np").split()[0] in STARTERS:
        return None
    # a clause opens with a capital: one word is a name only by a capital or a digit inside it ("PureGym",
    # "BT"), else the clause's second word on must be a name ("Spotify Family"), never "Rent"
    np = m.group("np")
    return ("user", np) if re.search(r"\w[A-Z0-9]|\s[A-Z0-9]", np) else None


def kept_at_home(body: str) -> tuple[str, str] | None:
    """"There's an old Bechstein piano in our hallway" -> ``("user", "old Bechstein piano")``: a possession or
    a named thing in the user's home (a spider in the bath is neither)."""
    m = _AT_HOME.match(body)
    if not m:
        return None
    np = m.group("np")
    return ("user", np) if np.split()[-1].lower() in POSSESSIONS or re.search(r"\b[A-Z]", np) else None


_GIFT_WORDS = ("christmas", "xmas", "birthday", "anniversary")


def acquired(text: str) -> list[tuple[str, str]]:
    """A thing the user just got: "picked up my new bike today - a Brompton" -> ``("user", "bike Brompton")``;
    a gift: "got a Switch for my birthday" -> ``("user", "Switch")``. A kind of thing one owns only (never "got
    my results - an A")."""
    out = [("user", f"{m.group('kind')} {m.group('name').strip()}") for m in _ACQUIRED.finditer(text)
           if m.group("kind").lower() in POSSESSIONS]
    if not any(w in text.lower() for w in _GIFT_WORDS):
        return out
    return out + [("user", m.group("np")) for m in _GIFT.finditer(text)
                  if m.group("np").split()[0].lower() not in NOT_OWNED]


_SCHEDULED = re.compile(rf"^(?i:my|our)\s+(?P<np>(?:[\w-]+\s+){{0,3}}?[\w-]+)\s+(?:is|are)\s+(?:always\s+)?"
                        rf"(?P<when>(?:on\s+)?(?:(?i:{_DAY})s(?:\s+(?:and|&)\s+(?i:{_DAY})s)?"
                        r"(?:\s+(?:mornings?|evenings?|nights?|afternoons?))?|"
                        rf"(?i:{_DAY})\s+(?:mornings|evenings|nights|afternoons))|every\s+(?:other\s+)?\w+)\b")
"""Something of the user's with its recurring day ("our choir practice is on Wednesdays"): a plural day or
"every": "my interview is on Tuesday" is a one-off date."""


def scheduled(body: str) -> tuple[str, str] | None:
    """"Our choir practice is on Wednesdays" -> ``("user", "choir practice on Wednesdays")``."""
    m = _SCHEDULED.match(body)
    if not m:
        return None
    when = m.group("when")
    return "user", f"{m.group('np')} {when if when.lower().startswith(('on ', 'every')) else 'on ' + when}"


def owner_relation(text: str) -> list[tuple[str, str]]:
    """"Ana's cat Miso is staying with us" -> ``("ana", "cat Miso")``: a relation or a pet of someone named."""
    return [(m.group("owner").lower(), f"{m.group('rel').lower()} {m.group('name')}")
            for m in _OWNER_RELATION.finditer(text) if m.group("owner") not in STARTERS]


_NOT_NOW = re.compile("|".join((*(m for m in MODAL_MARKERS if m not in ASKING_MARKERS), *FUTURE_MARKERS,
                                 *REMINISCENCE_MARKERS, r"\bused to\b", r"\bdreamt\b", r"\bdream\b")), re.IGNORECASE)
"""A plan, a wish, a memory: a possessive after one is of a thing not held now ("thinking of selling my Golf"
is kept conservative too: the change layer reads a sale that happens)."""
_NOT_HELD = r"(?:first|previous|last|former|ex|next|future|dream|ideal|late|old|other|spare)"
"""What a possessive's adjective can say of a thing not held now: an earlier one, a wished-for one."""
_POSSESSED = re.compile(
    r"(?<![\w'])(?:(?:(?i:my|our)\s+)?(?P<kin>Mum|Mom|Dad|Gran|Granny|Grandma|Grandad|Grandpa|Nan|Nana)'s\s+|"
    rf"(?i:my|our)\s+(?:(?P<rel>{RELS})(?:\s+(?P<name>[A-Z][a-z][\w-]*))?'s\s+)?)"
    rf"(?P<adj>[a-z]+\s+)?(?P<np>{_THING}(?:\s+(?!I\b|I'){_THING}){{0,2}})"
    r"(?P<after>'s|\s+(?:was|were|used|had)\b)?")
"""A possessive ("my", "our", "my brother Ollie's", "Mum's"), an adjective at most, and a name."""
_ANYONE = frozenset("friend mate colleague coworker co-worker boss manager neighbour neighbor roommate flatmate "
                    "housemate cousin best friend".split())
"""Relations one has many of: "my friend's" without a name is no one the store can hold a state of."""
_PLACED = re.compile(rf"(?<![\w'])(?i:my|our)\s+(?P<noun>[a-z]+)(?:\s+(?:at|with|from)\s+(?:the\s+)?|(?P<comma>,\s+))"
                     rf"(?P<np>{_THING}(?:\s+{_THING}){{0,2}})(?(comma)(?=,))")
"""One of the user's kinds of thing and the name it is placed at or named as ("my shift at the Amazon depot",
"our broadband with Plusnet", "my gym, Virgin Active,"): the name is the user's employer, provider, venue."""
_EVENTS = frozenset("exam exams test tests interview party wedding birthday trip holiday match game concert gig show "
                    "appointment lesson lessons results result ceremony stay visit flight booking order".split())
"""Nouns of a one-off event: "my interview at Google" places no state of the user's at Google."""
_INVERTED = re.compile(r"\b(?:do|does|did|can|could|will|would|should|might|must)\s+(?:\w+'s\s+)?$", re.IGNORECASE)
"""An auxiliary just before the possessive ("why does my Kia rattle"): the word after the name is its verb."""
_QUALIFIES = re.compile(r"(?!(?:is|are|was|were|has|have|had|does|did|can|will|just|still|now|also|and|or|but|"
                        r"to|for|in|on|at|with|from|of|that|which|who|when|since|again|already|always|never|"
                        r"came|went|got|broke|died|ran|made|took|gave|kept|left|told|said|fell|won|lost|paid|bought|"
                        r"sold|drove|rode|threw|blew|froze|shook|wore|tore|felt|held|let|cut|hit|put|set|shut|split|"
                        r"quit|sat|stood|seem|seems|look|looks|need|keep|won't|can't)\b)"
                        r"[a-z][a-z-]*(?<!s)(?<!ed)(?<!ly)(?<!ing)")
"""A lower-case word after the name that is no verb, adverb or function word: a head noun the name only
qualifies ("my Grade 5 exam", "my Arsenal season ticket", "my Duolingo streak"); the thing is the noun's,
which other readers value whole."""


def possessed(text: str) -> list[tuple[str, str]]:
    """The named things ``text`` puts with a possessive, in any mood: ``("user", "Honda Civic")`` from "how often
    should I rotate the tyres on my Honda Civic?", ``("ollie", "Vauxhall Corsa")`` from "my brother Ollie's
    Vauxhall Corsa failed its MOT". Not a thing the adjective places out of the present ("my first Golf", "my
    next Tesla"), one told in the past ("my Micra was ..."), one that is an event's qualifier ("my Grade 5 exam"),
    a date or a person (a relation, a kinship word). "my <kind> at / with / from <Name>" and "my <kind>, <Name>,"
    give the name as the user's (not a relation's place, nor a one-off event's: "my interview at X"). Nothing
    after a plan, a wish or a memory marker ("thinking of selling my Golf"; the question modals "should I ...?"
    are no such marker), nor in a clause with a denial; questions, jokes and change cues are :mod:`.states`'."""
    out: list[tuple[str, str]] = []
    plan = _NOT_NOW.search(text)
    for m in _POSSESSED.finditer(text):
        clause = re.split(r"[,;:.!?]\s", text[: m.start()])[-1].lower().split()
        if (plan and plan.start() < m.end()) or negates(clause):
            continue  # a plan or a memory before it, a denial in its clause ("I don't have my Kindle now")
        adj = (m.group("adj") or "").strip().lower()
        words = m.group("np").split()
        # "my Corolla's light": the Corolla, whatever its light; "does my Kia rattle": a verb after an inversion
        owner = words[-1].endswith("'s") or bool(_INVERTED.search(text[: m.start()]))
        words[-1] = words[-1].removesuffix("'s")
        head = text[m.end("np"):].split(maxsplit=1)[:1]
        if re.fullmatch(_NOT_HELD, adj) or (m.group("after") or "").strip() in ("was", "were", "used", "had") or \
                (adj and adj[0].isupper()) or words[0] in STARTERS or words[0].lower() in KIN_TITLES or \
                re.fullmatch(RELS, words[0].lower()) or (head and not owner and _QUALIFIES.fullmatch(head[0])) or \
                not any(c.isalpha() for c in words[0]) or len(m.group("np")) < 2:
            continue
        if adj and adj not in ("new", "trusty", "beloved", "little", "faithful", "battered", "own", "current", "work",
                               "home", "main", "family", "lovely", "poor", "beautiful"):
            continue  # "my sister's Golf" is hers; "my favourite Netflix show" is no Netflix of mine
        if m.group("rel") and not m.group("name") and m.group("rel").lower() in _ANYONE:
            continue  # "my friend's Tesla": a friend's, but which friend the store cannot tell
        who = (m.group("name") or m.group("rel") or m.group("kin") or "user").lower()
        out.append((who, " ".join(words)))
    for m in _PLACED.finditer(text):  # "my shift at the Amazon depot", "my gym, Virgin Active, ..."
        noun = m.group("noun").lower()
        if (plan and plan.start() < m.end()) or re.fullmatch(RELS, noun) or noun in KIN_TITLES | NOT_OWNED | \
                _EVENTS or m.group("np").split()[0] in STARTERS or \
                negates(re.split(r"[,;:.!?]\s", text[: m.start()])[-1].split()):
            continue
        out.append(("user", m.group("np").removesuffix("'s")))
    return out
