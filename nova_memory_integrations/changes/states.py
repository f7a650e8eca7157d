"""Open-predicate state capture (pure): present states that no specific rule read, as ``states`` facts.

The extractor's rules are verb frames x head-noun lexicons, fitted to one writer's phrasing; a second
writer's "I volunteer in a food bank", "big Everton fan here", "week three of keto" or "my Three contract"
fall through them and the store never learns the state, so nothing can later end it. This module is the
mechanism beneath the rules: any clause whose subject is the user (or a named / related third party)
and whose shape says *a state that holds now* becomes ``<subject> states "<its object phrase>"``; the
whole clause is kept (``clause``) so that later cues can be matched to it by meaning.
Every clause of a message is read, and a clause that yields nothing whole is read again piece by piece
(its commas, an "and today ..."): a state is as often in the middle of a message as at its start. The
shapes beyond "<subject> <verb> <object>" (a dropped subject, a time phrase first, a perfect with a
duration, "X and I", a coordination, an apposition, a recurring event) are :mod:`.state_shapes`'.

What is not a state is filtered out by shape, not vocabulary: questions, conditionals, wishes and plans
(the guard layer's modal and future markers, over what follows them in the sentence), denials (over what
follows them), memories, one-off events (a time like "yesterday", "tonight", over its own piece), feelings
and opinions ("I feel", "I love", "I'm so tired"), generic activities ("playing games is my escape"), and
every sentence holding a change cue (an ending is the change layer's, never a new state). A sentence a
specific rule read leaves the user's states of the clause it read to that rule."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.dates import MONTHS, NUMBER_WORDS
from ..text.known_names import is_firm
from ..text.lexicon import BRITISH, NOT_HABIT_VERBS, NOT_OWNED, REL_ALIASES, RELS, STARTERS
from .cues import find_corrections_cues, find_cues, has_cue
from .guard_words import FUTURE_MARKERS, MODAL_MARKERS, REMINISCENCE_MARKERS
from .lexicon import STOPWORDS, negates
from .segments import Clause, Sentence, normalize_text, segment
from .state_mentions import (
    KIN_TITLES,
    acquired,
    complaint,
    identity,
    kept_at_home,
    label,
    owner_relation,
    possessed,
    priced,
    recurring,
    scheduled,
)
from .state_shapes import (
    DURATION,
    GERUND_SUBJECT_END,
    HABITUAL,
    MAX_WORDS,
    apposition,
    before_others_change,
    coordinated,
    durative,
    fit,
    is_participle,
    joint_subject,
    recurrence,
    relation_value,
    strip_time_lead,
    subjectless,
    told_first,
)

__all__ = ["JOKE", "NOT_A_STATE", "OPEN_PREDICATE", "PERSON_PRONOUN", "OpenState", "last_person", "open_states"]

OPEN_PREDICATE = "states"
"""The predicate of an open-predicate fact: its object is the state's phrase, its metadata the clause."""

_I = re.IGNORECASE
NOT_A_STATE = re.compile("|".join((*MODAL_MARKERS, *FUTURE_MARKERS, *REMINISCENCE_MARKERS, r"\bused to\b",
                                    r"\bdreamt\b", r"\bdream\b")), _I)
"""A plan, a wish, a hypothetical, a memory or a joke: it holds over what follows it in the sentence."""
_ANNIVERSARY = re.compile(r"\b(?:years?|months?|weeks?)\s+(?:next|this coming)\s+(?:week|month|year|\w+day)\b", _I)
"""A duration that completes in the future ("married eight years next month"): the state holds now."""
JOKE = re.compile(r"\blol\b|\blmao\b|\bjoke\b|\bjoking\b|\bkidding\b", _I)
"""A joke holds over its whole sentence."""
_ONE_OFF = re.compile(r"\byesterday\b|\blast (?:night|week|weekend|month|year)\b|\bago\b|\bthis morning\b|"
                      r"\btonight\b|\btoday\b|\bearlier\b|\bonce\b|\bthis (?:weekend|week|afternoon|evening)\b", _I)
"""A one-off event's time: it holds over its own piece of a clause only ("I teach Year 4 at X and today a
child asked me ..." still tells where the user teaches)."""
_PIECES = re.compile(r",\s+|\s+and\s+(?=(?:today|yesterday|tonight|then|this|last)\b)", _I)
_LEAD = re.compile(r"^\W*(?:(?:so|and|but|also|oh|ok|okay|well|honestly|anyway|yeah|btw|plus|still|now|"
                   r"currently|these days|at the moment|right now|update)\b[\s,!:-]*)*", _I)
_ADVERBS = r"(?:\s+(?:still|now|currently|also|just|only|both|always|usually|really|normally|mostly|basically|" \
           r"literally|" \
           r"actually|even|properly|officially|regularly|finally))*"
# "I run", "we've got", "I've been using", "Priya and I have": the user as subject, then a verb
_FIRST = re.compile(r"^(?:(?:I|[Ww]e)|[A-Z][\w-]+ and I|my [\w-]+ and I)"
                    r"(?P<aux>'ve|'re|'m|\s+(?:have|has|am|are))?"
                    r"(?P<been>\s+been)?" + _ADVERBS + r"\s+(?P<verb>[a-z][\w-]*)\b(?P<rest>.*)$")
_THIRD = re.compile(r"^(?:(?:[Mm]y|[Oo]ur)\s+(?P<rel>" + RELS + r")(?:\s+(?P<name>[A-Z][\w-]+))?"
                    r"|(?P<named>[A-Z][a-z]+))"
                    r"(?:,\s+(?:my|our)\s+(?P<appos>[\w\s-]{2,30}),)?"
                    r"(?P<aux>'s|\s+(?:is|has|'s been|has been))?" + _ADVERBS +
                    r"\s+(?P<verb>[A-Za-z][\w-]*)\b(?P<rest>.*)$")
_DATE_WORDS = "|".join(sorted(
    {m.capitalize() for m in MONTHS} | {f"{d}day" for d in ("Mon", "Tues", "Wednes", "Thurs", "Fri", "Satur", "Sun")}
    | {"Christmas", "Easter", "New Year"}, key=len, reverse=True))
"""A month, a day or a holiday: "on Friday" is a date, not a named place or platform."""
_MY_THING = re.compile(r"\b(?:my|our)\s+(?:(?:trusty|old|new|beloved|little|faithful|battered|ancient|own)\s+){0,2}"
                       r"(?!(?:" + _DATE_WORDS + r")s?\b)"
                       r"(?P<np>(?:[A-Z0-9][\w&+'-]*\s+){1,3}(?!(?:is|was|has|had|are|were|needs|keeps|does|did|will|would|can|"
                       r"could|gets|got|goes|went)\b)[a-z]+s?|[a-z]+\s+(?:at|with|"
                       r"from|on)\s+(?:[A-Z][\w&+'-]*\s*){1,3}|[A-Z0-9][\w&+-]*(?:\s+[A-Z0-9][\w&+-]*){0,2})")
_NUMBERS = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ][a-z]+)?|" + "|".join(
    sorted((w for w in NUMBER_WORDS if w.isalpha()), key=len, reverse=True))
"""A number in words, a compound ("thirty-one") too."""
_VERBLESS = re.compile(r"^(?P<np>[\w\s-]+?\s+life\s+(?:at|in|with|on)\s+[A-Z].*|"
                       r"(?:[\w-]+\s+){0,3}[\w-]+(?:er|or|ist|ian|ite|fan|nerd|geek|head|addict|native|mum|dad)"
                       r"\s+here|(?:day|week|month|year)\s+\w+\s+(?:of|at|in|on)\s+.+|(?:\d+|" + _NUMBERS +
                       r")[- ]?(?:day|week|month)s?\s+"
                       r"(?:[\w-]+\s+){0,3}streak\b.*|(?:\d+|" + _NUMBERS +
                       r"|a few|a couple of)\s+(?:years?|months?)\s+"
                       r"(?:\w+ing\s+)?(?:at|in|with|on)\s+.+|"
                       r"(?:first|second|third|fourth|final|1st|2nd|3rd|4th)[- ]year\s+(?:[\w-]+\s+){0,3}"
                       r"(?:at|in)\s+[A-Z].*|"
                       r"(?:full|part)[- ]time\s+[a-z]+ing\b.*|big\s+.+\s+fan|.+\s+fan\s+here|.+\s+here,?\s+"
                       r"(?:born|bred)\b.*|as\s+(?!(?:well|usual|soon|far|long|much|if|for|of|i|we|you|it|always|"
                       r"ever|a result)\b).+)$", _I)
_BARE_SUBJECT = re.compile(r"^\W*(?:(?:[Mm]y|[Oo]ur)\s+(?:" + RELS + r")(?:\s+[A-Z][\w-]+)?|[A-Z][a-z][\w-]*)\s*$")
"""A clause that is only a person (the segmenter split "my flatmate Kasia and I ..." at the "and")."""
_OWNED = re.compile(r"^\s+(?P<np>[A-Z0-9][\w&+-]*(?:\s+[A-Z0-9][\w&+-]*){0,2}(?:\s+[a-z]+)?)"
                    r"\s+(?:is|was|has|needs|keeps|'s)\b")
"""A possessive before a proper noun phrase that is itself the subject of a verb ("Greg's Transit van is")."""
_PERFECT = re.compile(r"\s+(?:(?:just|already|finally|now|also)\s+)?(?:[a-z]+ed|put|got|been|done|gone|made|taken|"
                      r"given|left|sent|set|cut|let|seen|bought|sold|lost|found|told|said|paid|had|run|won)\b")
_BEEN = re.compile(r"^(?:(?:still|now|also|just)\s+)*been\s+(?P<rest>(?:in|at|with|on|a|an|the|part of|"
                   r"[a-z]+(?:ed|an|ian|ist|er|or))\b.+)$", _I)
"""A perfect with its subject dropped ("been in Bristol about six years"); the duration makes it a state."""
_MY = re.compile(r"(?<![\w'])(?-i:me)(?=\s+(?:" + RELS + r")\b)", _I)
"""A dialect's possessive "me" before a relation word ("me mum", "me best mate")."""
_BORN = re.compile(r"^(?:I|we) (?:was|were) born (?:and (?:raised|bred) )?(?P<where>in\s+[A-Z].*)$")
"""Where the user was born: a state that never ends."""
_MENTAL = frozenset("think thinks wonder wonders worry worries feel feels love loves hate hates miss misses want wants "
                    "need needs hope hopes wish wishes forget forgets remember remembers know knows say says tell "
                    "tells cry cries dream dreams regret regrets complain complains moan moans".split())
"""Verbs of mind and speech: done every day, they tell a mood, not a habit to remember."""
_NOT_AGENT = re.compile(r"^(?:winter|summer|weather|never|ever|other|later|water|dinner|after|over|under|"
                        r"whatever|another|nobody|somebody|everybody)\s+here$", _I)
"""Words ending like an agent noun that describe no one ("winter here", "never here")."""
_STATE_VERBS = frozenset(
    "have has got own run runs do does take takes play plays go goes work works volunteer volunteers live lives "
    "drive drives use uses teach teaches study studies coach coaches attend attends belong belongs ride rides "
    "keep keeps manage manages lead leads sing sings train trains pay pays rent rents support supports follow "
    "follows write writes host hosts help helps care cares look looks walk walks swim swims cycle cycles "
    "subscribe subscribes bank banks see sees shop shops listen listens watch watches wear wears "
    "having owning running doing taking playing going working volunteering living driving using teaching "
    "studying coaching attending riding keeping managing leading singing training paying renting supporting "
    "following writing hosting helping caring walking swimming cycling learning seeing shopping listening "
    "watching wearing dating married engaged co-host co-hosts co-own co-owns co-run co-runs mentor mentors "
    "foster fosters sponsor sponsors collect collects grow grows brew brews practise practises practice practices "
    "organise organises organize organizes captain captains chair chairs referee referees umpire umpires "
    "refereeing umpiring fostering mentoring collecting growing brewing practising organising captaining chairing "
    "hosting".split())
"""Verbs (present, third person or progressive) whose object is a state that holds: what someone has,
does, belongs to or takes part in, as against what they feel, think or did once."""
_COPULA_NEXT = re.compile(r"^\s+(?:(?:a|an|in|on|at|with|into|part of|member of|the|on the|training|\d)\b|"
                          r"(?:single|married|engaged|divorced|separated|widowed|pregnant|retired|vegan|vegetarian|"
                          r"pescatarian|teetotal|sober|self-employed|freelance|unemployed|tee-total)\b|"
                          r"(?-i:[A-Z][a-z]+\b))", _I)
"""What follows a copula when it tells a state: a noun phrase, a place, a status ("single", "retired") or
a proper adjective ("Portuguese"), as against a feeling or an opinion."""
_FEELINGS = re.compile(r"\b(?:feel\w*|tired|stressed|sad|happy|glad|sorry|sick of|fed up|worried|nervous|excited|"
                       r"anxious|bored|annoyed|angry|upset|scared|lost|confused|coping|exhausted|knackered|done with|"
                       r"ill|poorly|unwell|"
                       r"sick|under the weather|"
                       r"over the moon|gutted|thrilled|proud|relieved|grateful|struggling|busy|late|away|off)\b", _I)
_CUT = re.compile(r"\s*(?:[,;:!?()]|\.(?:\s|$)|\s+(?:I|we)\s|\s+-+\s+|\s+(?:and|but|so|because|cos|which|who|"
                  r"when|while|since|though|although|till|until|lol|haha)\b)")
_THIRD_AGE = re.compile(r"^(?:(?:[Mm]y|[Oo]ur)\s+(?P<rel>" + RELS + r")|(?P<name>[A-Z][a-z]+))"
                        r"(?:'s|\s+is)\s+(?:\d{1,3}|[\w-]+)\s+and\b")
"""A subject and a short predicate (an age, a word) before a coordination that tells the state."""
_MIN_WORDS = 1
_NAME = r"[A-Z0-9][\w&+'-]*(?:\s+[A-Z0-9][\w&+'-]*)*"
"""A capitalised name of one or more words ("Spotify Family", "Disney+")."""
_LIST_OF_NAMES = re.compile(rf"^{_NAME}(?:,\s+{_NAME})*,?\s+and\s+{_NAME}$")
_NAMES_AHEAD = re.compile(rf"{_NAME}(?:,\s+{_NAME})*,?\s+and\s+{_NAME}(?=\s+and\b|[\s,.!?]|$)|"
                          r"[\w\s-]{2,30}?,\s+(?:Dr|Mr|Mrs|Ms)\.?\s+[A-Z][\w-]+(?=,)")
_LIST = re.compile(r",\s+and\s+|,\s+|\s+and\s+")
_STARTED = re.compile(r"^(?:I(?:'ve| have)?\s+)?(?:just\s+|recently\s+|finally\s+)?(?:started|joined|"
                      r"signed up (?:for|to)|took up|taken up|enrolled (?:in|on))\s+(?P<rest>.+)$", _I)
_REL_NAMED = re.compile(r"\b(?P<pos>[Mm]y|[Oo]ur|[Hh]is|[Hh]er)\s+(?P<rel>" + RELS +
                        r")\s+(?P<name>[A-Z][a-z][\w-]*\b|[a-z]{3,}(?=(?:'s|\s+(?:is|was|has|says|said|thinks)|\s+and\s+(?:I|i|me))\b))")
"""A relation and the name after it; typed in lower case ("my boyfriend marcus is ...") a name is known by
what follows it: a verb of its own or a boundary."""
_NOT_NAME_WORDS = frozenset("and is was has had who the a an".split())
_DONE = re.compile(r"\b(?:\w+ed|sold|left|gave|quit|got|let|cut|shut|went|made|took|lost|broke|gone|rip|"
                   r"traded|sent|put|ran|done|over|bye|goodbye|farewell|last)\b", _I)
"""A clause with a past or finished verb: a thing of the user's named there may be what just ended."""
_RELATION_WORDS = re.compile(r"^(?:" + RELS + r")$", _I)
_NAME_STOP = STARTERS | frozenset("Dr Mr Mrs Ms Mum Dad Got Had Went Been Did Is Was Just Still Loving Week Day "
                                   "Month Year Big Had Work As Started Joined Need Needs Want Hope Thanks Thank Love "
                                   "Hate Feeling Looking Trying Planning Thinking Appreciate Sorry Happy Glad".split())


@dataclass(frozen=True)
class OpenState:
    """One captured present state: whose (``"user"``, a relation or a lowercase name), its value, the clause read (for
    meaning), its ``predicate``, and ``found``: named by the learned thing finder, not a shape (stored less sure)."""

    subject: str
    value: str
    clause: str
    shared: bool = False
    """Told of a subject that includes the user ("me and my wife ..."): a rule read it of the other person only."""
    predicate: str = OPEN_PREDICATE
    found: bool = False

    def __post_init__(self) -> None:
        # A relation word as the extractor's rules spell it ("mum" -> "mom", "gf" -> "girlfriend"): one person,
        # one subject, whichever reader found the state.
        word = REL_ALIASES.get(self.subject, self.subject)
        object.__setattr__(self, "subject", BRITISH.get(word, word))


_OBJECT_APPOS = re.compile(r"\s*,\s+(?:a|an|the)\s+(?P<ap>[A-Z][\w&+'-]*(?:\s+[\w&+'-]+){0,2}?)\s*"
                           r"(?=,|$|\.|\s+(?:at|in|on|from|with)\b)")
"""A name in apposition to the object ("a little boat, a Wayfarer dinghy,"): which one it is."""


def _phrase(rest: str) -> str:
    """The object phrase: ``rest`` up to the first clause boundary, trimmed of articles and filler; a list
    of names ("Netflix, Disney+ and Spotify") and a name in apposition ("a therapist, Dr Okafor,") stay."""
    rest = rest.strip()
    rest = re.sub(r"^(?:a|an|the|to|for|at|in|on|with|of|as|my|our)\s+", "", rest, flags=_I)
    # "lives on her own in a flat in Leeds": where, not how
    rest = re.sub(r"^(?:(?:his|her|their|my|our)\s+)?own\s+(?:in|at|on|with)\s+(?:(?:a|an|the)\s+)?", "", rest,
                  flags=_I)
    if m := _NAMES_AHEAD.match(rest):
        return m.group(0).strip()
    cut = _CUT.search(rest)
    body = rest[: cut.start()] if cut else rest
    if cut and (named := _OBJECT_APPOS.match(rest, cut.start())):  # "a little boat, a Wayfarer dinghy, at ..."
        body = f"{body} ({named.group('ap')})"
    if (lasting := DURATION.search(body)) and lasting.start() > 0:  # "vim for 12 years": the state, not how long
        body = body[: lasting.start()]
    body = re.sub(r"\s+(?:now|here|at this point|these days|at the moment)$", "", body.strip(" .!?'\""), flags=_I)
    body = re.sub(r"^(?:a|an|the|to|for|at|in|on|with|of|as|my|our|his|her|their)\s+", "", body, flags=_I)
    return body.strip()


_VAGUE = frozenset(
    "each yourself ourselves myself themselves your us our care what about great good ok okay alright well fine "
    "awesome amazing better worse longer able all so such really just there here back lots some few more much "
    "many plenty how why when where idea ideas chance feeling impression news".split())
"""Lower-case first words of a phrase that is no state: a pronoun, a quantity with no thing, how someone is
("doing great"), an idiom's remains ("taking care of")."""


_NOT_A_THING = frozenset("it this that them him her you me one ones something nothing anything everything stuff things "
                          "lot bit way time".split())
"""First words of a phrase that names no state: a pronoun, a placeholder, a quantity with no thing."""


def _valid(value: str) -> bool:
    if "   " in value:  # quoted speech, blanked by normalize_text: someone else's words
        return False
    n = len(value.split())
    if not _MIN_WORDS <= n <= MAX_WORDS or not re.search(r"[A-Za-z]", value):
        return False
    first = value.split()[0]
    if not first[0].isalnum() or (len(first) == 1 and first.islower() and first != "a") or \
            (n == 1 and first.endswith("ly")):  # "- Oscar", "s such a ...", "professionally"
        return False
    return first.lower() not in _NOT_A_THING and first not in _VAGUE



def _states(subject: str, value: str, body: str) -> list[OpenState]:
    """One state per item of a list ("Netflix, Disney+ and Spotify"), else one; none when not a value. A phrase
    too long for a state loses its recurrence ("... on the first Thursday of the month") only."""
    value = fit(value, recurrence_only=True)
    items = [v.strip() for v in _LIST.split(value)] if _LIST_OF_NAMES.match(value) else [value]
    return [OpenState(subject, v, body) for v in items if _valid(v)]


def _clause_states(text: str, person: str | None = None) -> list[OpenState]:
    body = text[_LEAD.match(text).end():].strip()  # type: ignore[union-attr]
    if person and (pronoun := PERSON_PRONOUN.match(body)):  # "she's in halls at Leeds now": the person last named
        body = person[0].upper() + person[1:] + body[pronoun.end():]
    lead = len(body)
    body = strip_time_lead(body)
    lasting = len(body) < lead  # "Twelve years I've had ...": the duration told first
    if not body:
        return []
    partner, end = joint_subject(body)
    if end:  # "Dan and I have been married ...", "me and my wife have been vegetarian ...": "we"
        m = _FIRST.match("We" + ("" if body[end:].startswith("'") else " ") + body[end:].lstrip())
        found = _from_verb("user", m, body, lasting) if m else []
        out = [OpenState(s.subject, relation_value(s.value, partner), s.clause, shared=True) for s in found]
        if partner and not any(s.value != relation_value(s.value, partner) for s in found):
            out += [OpenState(partner, s.value, s.clause) for s in found]
        return out
    if m := _BORN.match(body):
        return _states("user", f"born in {_phrase(m.group('where')[3:])}", body)
    if m := _FIRST.match(body):
        return _from_verb("user", m, body, lasting) + _carried("user", body)
    if named := label(body):  # "Running club: X" is a label, not a progressive
        return _states(*named, body)
    if shape := subjectless(body):  # "renting a one-bed in X", "been using vim for years": the user, unsaid
        verb, rest, _been = shape
        if re.match(r"\s+(?:and|or)\b", rest):  # "Writing and hanging out with friends": activities listed
            return []
        if cut := GERUND_SUBJECT_END.search(rest):  # "teaching Year 2 is basically ...": the subject only
            rest = rest[: cut.start()]
            if not re.search(r"\s[A-Z0-9]", rest):  # "playing games is my escape": a generic activity, no state
                return []
        if verb in ("living", "working") and not re.match(r"\s+(?:in|at|for|with|on)\b", rest):
            return []
        return _states("user", _phrase(rest), body)
    if m := _STARTED.match(body):  # "started a pottery course", "I joined the choir": a state begins
        return _states("user", _phrase(m.group("rest")), body)
    if (m := _THIRD.match(body)) and not (m.group("named") and ((m.group("named") in _NAME_STOP and m.group(
            "named").lower() not in KIN_TITLES) or is_firm(m.group("named")))):  # "Lloyds have frozen my card"
        who = (m.group("name") or m.group("named") or m.group("rel") or "").lower()
        kin = who in KIN_TITLES and bool(m.group("named"))  # "Dad still drives ...": the speaker's dad
        bare = m.group("named") and not m.group("aux") and m.group("verb").endswith("ing")  # "Love living here"
        if ((who and not _RELATION_WORDS.match(who)) or m.group("rel") or kin) and not bare and \
                (found := _from_verb(who, m, body) + _carried(who, body)):
            return found
    if (m := _THIRD_AGE.match(body)) and (who := (m.group("name") or m.group("rel") or "").lower()):
        return _carried(who, body)  # "my dad's 66 and still doing shifts at X"
    if (m := _VERBLESS.match(body)) and not _NOT_AGENT.search(m.group("np")):
        np = m.group("np")
        if cut := GERUND_SUBJECT_END.search(np):  # "sous chef life at X means ...": the description only
            np = np[: cut.start()]
        return _states("user", _phrase(np), body)
    if m := _BEEN.match(body):  # "been in Leeds four years", "been with Monzo since uni": the user, unsaid
        phrase = durative("", f" {m.group('rest')}")
        return _states("user", _phrase(phrase), body) if phrase and not _FEELINGS.search(phrase) else []
    for mention in (identity, scheduled, complaint, priced, kept_at_home, recurring):  # told by mention
        if told := mention(body):
            return _states(told[0], fit(told[1]), body)
    return []


_NAMED_PLACE = re.compile(r"\s(?:on|at|for|through|via|with|from)\s+(?:the\s+)?(?!(?:" + _DATE_WORDS +
                          r")\b)[A-Z][\w&+'-]*")



def _habit(subject: str, m: re.Match[str], body: str) -> list[OpenState]:
    """A present event told as recurring ("I video call my gran every Sunday", "we swim at the lido on
    Saturdays") is a habit that holds: the verb and its phrase. A mental verb ("I think about it every day"),
    a past is none."""
    verb, rest = m.group("verb"), m.group("rest")
    # a simple present told of a named place or platform ("I sell prints on Etsy") is as much a habit
    named = _NAMED_PLACE.search(rest.split(",")[0])
    if not (recurrence(body) or named) or verb.lower() in _MENTAL | NOT_HABIT_VERBS or \
            not re.fullmatch(r"[a-z]+", verb) or verb.endswith("ed") or verb in _STATE_VERBS:
        return []
    rest = HABITUAL.sub("", rest)
    cut = _CUT.search(rest)
    phrase = (rest[: cut.start()] if cut else rest).strip(" .!?")
    habit = fit(f"{verb} {phrase}")
    if not phrase or not _valid(habit) or habit.split()[-1].lower() in ("them", "him", "her", "it", "you", "us"):
        return []  # "I video call them every Sunday": whom is for the pronoun layer, not a state's phrase
    return _states(subject, habit, body)


def _carried(subject: str, body: str) -> list[OpenState]:
    """The second predicate of a coordination, said of the clause's subject ("... and still runs X")."""
    if not (second := coordinated(body)):
        return []
    verb, rest = second
    if verb not in _STATE_VERBS or verb in ("looking", "watching", "seeing", "going", "having", "keeping"):
        return []
    return _states(subject, _phrase(rest), body)


def _from_verb(subject: str, m: re.Match[str], body: str, lasting: bool = False) -> list[OpenState]:
    verb, rest, aux = m.group("verb").lower(), m.group("rest"), (m.group("aux") or "").lower()
    been = "been" in m.re.groupindex and m.group("been")
    if been and (verb not in _STATE_VERBS or not verb.endswith("ing")):  # "been in Leeds", "been married"
        if verb in ("in", "at", "with", "on", "part", "members", "member"):
            return _states(subject, _phrase(f" {verb}{rest}" if verb.startswith("member") else rest), body)
        phrase = _phrase(f"{verb}{rest}") if lasting else durative(verb, rest)
        return _states(subject, phrase, body) if phrase and not _FEELINGS.search(phrase) else []
    if aux.strip() in ("'ve", "have", "has") and is_participle(verb) and verb != "had":
        phrase = rest if lasting else durative("", rest)  # "have lived in X for four years": held, and holding
        return _states(subject, _phrase(phrase), body) if phrase else []
    if appos := m.group("appos") if "appos" in m.re.groupindex else None:  # "Marta, my team lead, is ...": the role
        return _states(subject, _phrase(appos), body)
    if aux.strip() in ("have", "has") and not been and verb not in _STATE_VERBS:  # "I have type 1 diabetes"
        verb, rest, aux = aux.strip(), f" {m.group('verb')}{rest}", ""
    if aux.strip() in ("'ve", "have", "has") and verb == "had" and not been:  # "I've had a season ticket"
        verb = "have"
    if aux.strip() in {"'m", "am", "'re", "are", "'s", "is"} and not been:
        # "I'm a nurse", "I'm in a choir", "we're with Octopus": a copula before a noun phrase, never an adjective
        whole = f" {m.group('verb')}{rest}"
        if verb in _STATE_VERBS and verb.endswith("ing"):
            whole = rest
            if _phrase(rest).lower() in ("us", "me") and re.match(r"\s+with\b", rest):  # "is living with us"
                whole = f" {verb}{rest}"
        elif verb.endswith("ing") and verb not in _MENTAL and (held_for := durative(verb, rest)) and " " in held_for:
            return _states(subject, _phrase(held_for), body)  # "I'm staying in Leeds since 2019": it holds
        elif not _COPULA_NEXT.match(whole) or _FEELINGS.search(_phrase(whole)):
            return []
        if aux == "'s" and (owned := _OWNED.match(whole)):  # "Greg's Transit van is ...": his van, not him
            return _states(subject, owned.group("np"), body)
        return _states(subject, _phrase(whole), body)
    if verb not in _STATE_VERBS:
        return _habit(subject, m, body) if not aux.strip() and (subject == "user" or ("rel" in m.re.groupindex
                                                                 and m.group("rel"))) else []
    if verb in ("go", "goes", "going") and not re.match(r"\s+(?:to|swimming|running|climbing)\b", rest):
        return []
    value = _phrase(rest)
    if not _phrase(HABITUAL.sub("", rest) if recurrence(rest) else rest):  # "I only drive twice a month": of what?
        return []
    if value.lower() in ("us", "me") and re.match(r"\s+with\b", rest):  # "lives with us": the household
        value = f"{verb} with {value}"
    if not value or (verb in ("have", "has", "got") and value.split()[0].lower() in {"to", "been", "no", "had"}):
        return []
    if verb in ("have", "has") and _PERFECT.match(rest):  # "have put my bill up": a perfect, not a possession
        return []
    if verb in ("do", "does") and re.match(r"\s+(?:[a-z]+)\b", rest) and rest.split()[0] in _MENTAL | {"like", "enjoy"}:
        return []  # "I do like nature": an emphatic do before a feeling
    if verb == "got" and re.match(r"\s+[a-z]+ed\b", rest):  # "I got noticed by ...": a passive event
        return []
    if verb in ("have", "has", "got") and _BREAK_HEAD.split(value)[0].split()[-1].lower() in NOT_OWNED:
        return []  # "got a job offer from X", "has a meeting with Y": an event or an idea, not a thing held
    if verb in ("keep", "keeps", "keeping") and value.split()[0].lower().endswith("ing"):  # "keeps saying": goes on
        return []
    return _states(subject, value, body)


def _relations(text: str) -> list[OpenState]:
    """Named relations told in passing: "my brother Sam and his girlfriend Leah" -> ``user states
    "brother Sam"``, ``sam states "girlfriend Leah"`` (whose "his" / "her" is: the last person named)."""
    out: list[OpenState] = []
    last = ""
    for m in _REL_NAMED.finditer(text):
        name = m.group("name")
        if name in _NAME_STOP or name.lower() in _NOT_NAME_WORDS or (name.islower() and (
                name in STOPWORDS or name.endswith(("ly", "ing", "ed")) or name.capitalize() in _NAME_STOP)):
            continue
        owner = "user" if m.group("pos").lower() in ("my", "our") else last
        if owner:
            out.append(OpenState(owner, f"{m.group('rel')} {name[0].upper()}{name[1:]}", text.strip()))
        last = name.lower()
    return out


def _holds(text: str, value: str) -> bool:
    """Whether ``value`` is in ``text`` as whole words (a one-letter value "F" is not in every clause)."""
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, _I) is not None


def _upto(piece: str, value: str) -> str:
    """``piece`` up to the end of ``value`` in it (all of it when the value is not there word for word): a
    negation after the state ("As a physio I ... they won't") denies something else."""
    at = piece.lower().find(value.lower())
    return piece if at < 0 else piece[: at + len(value)]


def _denied(clause: str) -> bool:
    """A clause with a negation ("I don't have a car", "I have never seen ..."): nothing it holds is told."""
    return negates(clause.lower().split())


def open_states(text: str, *, covered: tuple[str, ...] = (), read: tuple[str, ...] = ()) -> list[OpenState]:
    """The present states ``text`` tells that no specific rule captured.

    Args:
        text: a user message.
        covered: values the extractor already stated from this message; a state whose value holds one of
            them (or is held in one) is left to the rule that read it.
        read: the sentences the extractor stated something from: the user's own states there are left to
            its rules; a third party's, a relation or an apposition told in passing are still read.
    """
    norm = _MY.sub("my", normalize_text(text))  # "me best mate Dazza": a dialect's "my" (same length)
    marks = [m for m in (normalize_text(r).strip(" .!?") for r in read) if m]
    if not norm.strip(" .!?"):
        return []
    sentences = segment(norm)
    busy: dict[int, int] = {}  # sentence -> where its first change cue starts
    if has_cue(norm):  # a word-set pre-test: most messages hold no cue
        starts = [(c.sentence, c.start) for c in find_cues(norm, sentences)]
        starts += [(c.sentence, c.start) for c in find_corrections_cues(norm, sentences)]
        for index, start in starts:
            busy[index] = min(busy.get(index, start), start)
    taken = [c.lower() for c in covered if c and len(c) > 1 and c.lower() not in STOPWORDS]
    out: list[OpenState] = []
    seen: set[tuple[str, str]] = set()
    for i, sentence in enumerate(sentences):
        body = sentence.text.strip(" .!?")
        told = len(norm)
        if sentence.question:  # "my Vespa needs a new clutch, any tips?": what is told before the asking holds
            told = told_first(sentence) or -1
        if i in busy:  # a change: the change layer's, unless it is someone else's in a clause of its own
            told = min(told, before_others_change(sentence, busy[i]) or -1)
        if JOKE.search(sentence.text):
            continue
        asked = told < 0 and i not in busy  # a question: only its possessives and its relations are read
        told = sentence.start if asked else max(told, sentence.start)
        clauses = tuple(Clause(norm[c.start:min(c.end, told)], c.start, min(c.end, told))
                        for c in sentence.clauses if c.start < told)
        if i in busy and not sentence.question:  # a birthplace never ends: no change is about it
            clauses = tuple(c for c in sentence.clauses if c.end <= busy[i] and _BORN.match(c.text.strip())
                            and c.start >= told) + clauses
            clauses += tuple(c for c in _after_change(sentence, busy[i]) if c.start >= told)
        ruled = any(body and (body in r or r in body) for r in marks)
        # a sentence a rule read: the user's states are the rule's, except in a clause other than the one
        # holding what it stated ("Learning guitar from YouTube, and my F chord ...")
        elsewhere = [c.text for c in sentence.clauses
                     if any(re.search(rf"(?<!\w){re.escape(t)}(?!\w)", c.text) for t in covered if t)] if ruled else []
        # where a plan, a wish or a memory starts: it holds over every piece that ends after it (one search
        # a sentence; an anniversary's "next month" blanked, same length)
        marker = NOT_A_STATE.search(_ANNIVERSARY.sub(lambda a: " " * len(a.group(0)), sentence.text))
        blocked = sentence.start + marker.end() if marker else len(norm) + 1
        found = [state for clause in _joined(norm, clauses) for state in _clause_found(norm, blocked, clause)]
        found += _relations(sentence.text) + [OpenState(who, value, body) for who, value in
                                              (*apposition(sentence.text), *owner_relation(sentence.text))]
        if not marker and not asked:  # "picked up my new bike today - a Brompton": a one-off that leaves a state
            found += [OpenState(who, value, body) for who, value in acquired(sentence.text)]
        # a named thing put with a possessive holds in any mood ("is my Corolla's light urgent?"), once
        found += [OpenState(who, value, body) for who, value in ([] if i in busy else possessed(sentence.text))
                  if not any(s.subject == who and _holds(s.value, value) for s in found)]
        for state in found:
            low = state.value.lower()
            if (not state.shared and (
                    (ruled and state.subject == "user" and (not elsewhere or any(state.clause in c for c in elsewhere)))
                    or any(_holds(low, c) or _holds(c, low) for c in taken))) or \
                    (state.subject, low) in seen or not _valid(state.value):
                continue
            seen.add((state.subject, low))
            out.append(state)
    return out


_BREAK_HEAD = re.compile(r"\s+(?:at|in|on|with|for|from|of|to|by)\s", _I)
"""Where a noun phrase's head ends ("job offer | from Zalando")."""
PERSON_PRONOUN = re.compile(r"(?:she|he)(?=\s|')", _I)
"""A clause told of "she" / "he": whom it is about is the person last named before it (:func:`last_person`)."""
_PERSON = re.compile(r"(?<![\w'])(?P<name>[A-Z][a-z]{2,})(?='s\b|\s+(?:is|was|has|had|just|finally|still|now|"
                     r"[a-z]{2,}ed|[a-z]{2,}s)\b)")
"""A capitalised word told with a verb of its own ("Zara moved out", "Jo's left"): a person named."""


def last_person(text: str) -> str | None:
    """The person last named in ``text`` (a relation's name, a named subject, a kinship word used as a name),
    lower-cased: whom a following "she" / "he" is about."""
    names = [(m.start(), m.group("name")) for m in _REL_NAMED.finditer(text)]
    names += [(m.start(), m.group("name")) for m in _PERSON.finditer(text)
              if m.group("name") not in _NAME_STOP or m.group("name").lower() in KIN_TITLES]
    names = [(at, name) for at, name in names if (name.lower() not in _NOT_NAME_WORDS and name not in STARTERS)
             or name.lower() in KIN_TITLES]
    return max(names)[1].lower() if names else None


def _after_change(sentence: Sentence, cue: int) -> list[Clause]:
    """The clauses after a change cue's clause that tell of someone by a pronoun ("Zara moved out - she's in
    halls at Leeds now"): the state they are in after the change, which no cue ends."""
    at = next((c.end for c in sentence.clauses if c.start <= cue < c.end), sentence.end)
    return [c for c in sentence.clauses if c.start >= at and PERSON_PRONOUN.match(c.text.strip())]


def _joined(norm: str, clauses: tuple[Clause, ...]) -> list[Clause]:
    """The clauses, with a subject split from its "and I ..." joined back ("My flatmate Kasia | I have lived
    ..." is one clause whose subject includes the user)."""
    out: list[Clause] = []
    for clause in clauses:
        if out and _BARE_SUBJECT.match(out[-1].text) and re.match(r"\s*(?:I|we)\b", clause.text):
            clause = Clause(norm[out[-1].start:clause.end], out[-1].start, clause.end)
            out.pop()
        out.append(clause)
    return out


def _clause_found(norm: str, blocked: int, clause: Clause) -> list[OpenState]:
    """The states of one clause: read whole, else piece by piece ("big X fan here, season starts this
    weekend": the event's time holds over its own piece only). A plan, a wish or a memory holds over what
    follows it in the sentence, so each piece is judged with the sentence up to its end."""
    spans = [(clause.start, clause.end)]
    found = _piece_found(norm, blocked, *spans[0])
    if found:
        return found
    pos = clause.start
    for m in _PIECES.finditer(norm, clause.start, clause.end):
        spans.append((pos, m.start()))
        pos = m.end()
    if len(spans) == 1:
        return []
    spans.append((pos, clause.end))
    return [state for a, b in spans[1:] if b > a for state in _piece_found(norm, blocked, a, b)]


def _piece_found(norm: str, blocked: int, a: int, b: int) -> list[OpenState]:
    piece = norm[a:b]
    if blocked <= b or _FEELINGS.match(piece.strip()) or _ONE_OFF.search(piece):
        return []
    person = last_person(norm[:a]) if PERSON_PRONOUN.match(piece.strip()) else None
    found = [s for s in _clause_states(piece, person) if not _denied(_upto(piece, s.value))]
    if not found and not _DONE.search(piece):
        for m in _MY_THING.finditer(piece):  # a thing of the user's named in passing
            value = m.group("np").strip()
            if _valid(value) and not _RELATION_WORDS.match(value.split()[0]) and not _denied(_upto(piece, value)):
                return [OpenState("user", value, piece.strip())]
    return found
