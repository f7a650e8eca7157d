"""Clause segmentation for the rule-based extractor (:mod:`.deterministic`).

Expands contractions and normalises curly quotes, splits sentences into clauses at conjunctions that start
a new subject, and holds the sentence filters (questions, hypotheticals, reported speech) and the lead-in
fillers of a clause. A turn is cut into sentences before, by
:data:`nova_memory_integrations.text.sentences.FACT_SENTENCES` (abbreviations such as ``Dr.`` kept together).
"""

from __future__ import annotations

import re

from ..text.lexicon import CONTRACTIONS, DIET_RE, JOBS, REL_MODIFIERS, RELS

__all__ = [
    "CLAUSE_SPLIT",
    "CONDITIONAL",
    "HYPOTHETICAL",
    "LEAD",
    "QUESTION_START",
    "REPORTED",
    "adjunct",
    "elide",
    "expand",
    "split_clauses",
    "statement_part",
]

_I = re.IGNORECASE

_CONTRACTION_RE = re.compile(r"\b(?:" + "|".join(re.escape(c) for c in CONTRACTIONS) + r")\b", _I)
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
QUESTION_START = re.compile(
    r"^\W*(?:do|does|did|am|is|are|was|were|can|could|would|should|will|shall|may|what|where|when|who|whom|why|"
    r"how|which|have you|has|whats)\b",
    _I,
)
HYPOTHETICAL = re.compile(
    r"\b(?:if|whether|wish|wonder|wondering|would|could|should|might|maybe|perhaps|suppose|supposing|imagine|"
    r"imagining|pretend|pretending|hypothetically|unless|never said|someday|one day)\b",
    _I,
)
CONDITIONAL = re.compile(
    r"\b(?:if|whether|wish|wonder|wondering|suppose|supposing|imagine|imagining|pretend|pretending|hypothetically|"
    r"unless|never said)\b",
    _I,
)
"""The words of :data:`HYPOTHETICAL` that condition what follows them in the sentence too ("if I get the job,
I move to Berlin"); the others (``would``, ``should``, ``maybe`` ...) only their own clause."""
REPORTED = re.compile(  # words before a subject that make the statement reported or subordinate
    r"\b(?:said|say|says|think|thinks|thought|asked|ask|asks|told me|tell|tells|believe|believes|guess|hope|doubt|"
    r"claim|claims|claimed|heard|dream|dreamt|dreamed|assume|know|knows|knew|forgot|pretend|meant|bet|when|what|"
    r"where|why|how|who|than)\b",
    _I,
)
CLAUSE_SPLIT = re.compile(
    r"\s*;\s*|\s+[-\u2013\u2014]+\s+|:\s+|,?\s+(?:but|although|though|whereas|while|because|since|so|and)\s+"
    r"(?!I (?:have |had )?(?:just |finally |recently )?(?:broke up|split|separated|got divorced|divorced)\b)"
    r"(?=(?:now\s+|then\s+|also\s+)?(?:I|i|we|my|My|she|he|they|it)\b)|,\s+(?=(?:now\s+)?(?:I|i|she|he|they|we)\s)"
    r"|,\s+(?=[Mm]y \w+(?: [A-Z]\w+)? (?:is|has|was|just)\b)"
    r"|,\s+(?=(?-i:[A-Z][a-z]+) (?:has|is|was|just|sold|got|went|left|took|quit|bought|lost|became|broke|gave|"
    r"(?-i:[a-z]+ed))\b)"
)
_BARE_RELATIVE = re.compile(r"(?:[Mm]y|[Oo]ur) (?:" + REL_MODIFIERS + r")(?:" + RELS + r")(?:,? [A-ZÀ-Þ][\w'-]+)?")


def split_clauses(sentence: str) -> list[str]:
    """The clauses of ``sentence`` (:data:`CLAUSE_SPLIT`); a clause that is only a relative ("my friend Ana")
    is the first half of a coordinated subject and goes with the next ("my friend Ana and my cousin Rosa
    both work at ...")."""
    out: list[str] = []
    for part in CLAUSE_SPLIT.split(sentence):
        if not part:
            continue
        if out and _BARE_RELATIVE.fullmatch(out[-1].strip()) and f"{out[-1].strip()} and {part}" in sentence:
            out[-1] = f"{out[-1].strip()} and {part}"
        else:
            out.append(part)
    return out


LEAD = re.compile(
    r"(?:(?:oh|ok|okay|yes|yeah|yep|yup|no|nope|nah|well|so|um|uh|hmm|hi|hello|hey|actually|also|and|but|sure|"
    r"anyway|anyways|honestly|btw|by the way|as i said|again|update|correction|oops|sorry|wait|fun fact|just so "
    r"you know|fyi|remember that|remember|note that|lol|haha|ah|plus|still|then|now|currently|lately|these days|"
    r"nowadays|today|yesterday|recently|right|true|ugh|wow|great|cool|thanks|thank you|good morning|typo)\b"
    r"[\s,:!.\-]*)*",
    _I,
)


def expand(text: str) -> str:
    """``text`` with contractions expanded ("I'm" -> "I am") and curly quotes straightened: the rules are
    written for one spelling."""

    def repl(match: re.Match[str]) -> str:
        word = match.group(0)
        out = CONTRACTIONS[word.lower()]
        return out if out.startswith("I ") or word[0].islower() else out[0].upper() + out[1:]

    text = _PRONOUN_HAS.sub(r"\1 has ", text.translate(_QUOTES))
    text = _CONTRACTION_RE.sub(repl, text)
    text = _IS_S.sub(r"\1 is ", _HAS_S.sub(r"\1 has ", text))
    return _AUX_ADVERB.sub(r"\2 \1 ", text)


# "she has just started", "I am now living": the adverb goes before the auxiliary, where the rules expect adverbs
_AUX_ADVERB = re.compile(r"\b(have|has|had|am|is|are) (just|recently|finally|already|now|also|actually|officially|"
                         r"currently) (?!(?:a|an|the|not|been|in|at|on|a)\b)(?=[a-z]+(?:ed|en|ing|t)\b)", re.IGNORECASE)


# "Tom's just moved", "Laura's lived", "my brother's an accountant": the 's of a name or noun is "has" before a
# participle and "is" before an article, a preposition or a state; anything else is a possessive ("Tom's flat").
_SAYER = (r"(?<!\bat )(?<!\bfor )(?<!\bwith )(?<!\bfrom )(?<!\bto )(?<!\bin )(?<!\bof )(?<!\bby )"  # "at Nando's"
          r"\b(?!(?:Let|It|That|What|He|She|There|Here|Who|Where)')([A-ZÀ-Þ][a-zà-ÿ]+|mum|mom|dad|brother|sister|wife|"
          r"husband|son|daughter|boyfriend|girlfriend|partner|friend|mate|boss|manager|flatmate|roommate|"
          r"neighbou?r|cousin|nan|gran|uncle|aunt|colleague|fianc[eé]e?)")
_PARTICIPLE = (r"(?=(?:(?:just|already|finally|never|recently|always|officially|now|also) )?(?:been|got|gotten|gone|"
               r"had|lived|moved|left|joined|started|quit|dropped|transferred|taken|bought|sold|decided|done|become|"
               r"retired|signed|switched|found|made|sent|passed|swapped|traded|upgraded|relocated|finished|graduated|"
               r"adopted|split|broken|landed|married|separated|divorced)\b)")
"""After "'s", a past participle makes the "'s" a "has" ("he's joined", "Tom's just moved")."""
_HAS_S = re.compile(_SAYER + r"'s " + _PARTICIPLE)
_PRONOUN_HAS = re.compile(r"\b([Hh]e|[Ss]he|[Ii]t)'s " + _PARTICIPLE)
_IS_S = re.compile(
    _SAYER + r"'s (?=(?:a|an|in|at|on|from|still|now|really|not|so|very|back|off|out|home|also|with|into|married|"
    r"engaged|pregnant|divorced|fine|okay|currently|properly|officially|just|always|[a-z]+ing)\b)"
)

# A clause with no subject at the start of a statement is the speaker's: "Been teaching chemistry at ...",
# "Started at Diageo", "Living in Leeds", "Member at Fairfield ...", "vegetarian for 5 years".
_ELIDED = re.compile(
    r"(?P<adv>(?:just|finally|recently|also|still|now|currently|officially|properly|fully|proudly|happily|sadly)\s+)*"
    r"(?:(?P<been>been)|(?P<ing>living|working|teaching|driving|riding|renting|seeing|dating|studying|training|"
    r"interning|volunteering|freelancing|contracting|commuting|sharing|running|swimming|playing|doing)|(?P<past>started|"
    r"joined|moved|bought|got|picked|took|left|quit|went|sold|traded|switched|relocated|dropped|finished|retired|"
    r"handed|jumped|transferred|adopted|rescued|landed|signed|graduated|became|lost|gave|broke|split|ditched|"
    r"cancell?ed|canceled|stopped|married|divorced|built|upgraded|leased|inherited|accepted|began|cut|wound|"
    r"turned|passed|scrapped|rehomed|handed|said(?= goodbye)|waved(?= goodbye)|parted(?= with)|swapped|exchanged|"
    r"replaced)|"
    r"(?P<base>live|work|teach|own|drive|ride|rent|smoke|study|share|"
    r"commute|freelance)|(?P<member>(?:a |an )?(?:member|regular) (?:at|of))|(?P<diet>" + DIET_RE + r")|"
    r"(?P<job>(?:[\w-]+ ){0,2}(?:" + "|".join(sorted(JOBS, key=len, reverse=True)) + r") (?:at|for|with)"
    r"(?= (?:the )?[A-Z])))\b",
    re.IGNORECASE,
)


# "Since switching to nights at the depot, I sleep all day": the -ing adjunct's subject is the main clause's
_ADJUNCT = re.compile(r"^(?P<lead>\W*)(?P<conj>since|after|upon|on) (?P<ing>[a-z]{2,}ing)\b"
                      r"[^,.;!?]{3,80}?(?:,\s*|\s+)(?P<subject>(?-i:I|[Ww]e))\s", re.IGNORECASE)
_IRREGULAR_ING = {"leaving": "left", "getting": "got", "taking": "taken", "buying": "bought", "selling": "sold",
                  "going": "gone", "becoming": "become", "building": "built", "beginning": "begun", "finding": "found",
                  "having": "had", "making": "made", "giving": "given", "coming": "come", "winning": "won",
                  "quitting": "quit", "splitting": "split", "setting": "set", "putting": "put", "cutting": "cut"}


def _participle(ing: str) -> str:
    """The past participle of an -ing form: regular verbs by their spelling ("moving" -> "moved",
    "switching" -> "switched", "stopping" -> "stopped"), the common irregular ones by a table."""
    low = ing.lower()
    return _IRREGULAR_ING.get(low) or low[:-3] + "ed"


def adjunct(sentence: str) -> str:
    """``sentence`` with the main clause's "I" / "we" put into an -ing adjunct that opens it: the adjunct's
    event has happened ("Since switching to X, I ..." -> "Since I have switched to X, I ...")."""
    m = _ADJUNCT.match(sentence)
    if m is None:
        return sentence
    subject = "I have " if m.group("subject") == "I" else "we have "
    main = m.start("subject")
    head = sentence[: m.start("ing")] + subject + _participle(m.group("ing")) + sentence[m.end("ing"): main]
    return head.rstrip(" ,") + ", " + sentence[main:]  # the adjunct ends where the main clause starts


_GERUND_SUBJECT = re.compile(  # "Volunteering at the shelter has been great": the -ing phrase is the subject
    r"\b(?:is|was|has|had|makes|made|gives|gave|helps|helped|keeps|kept|brings|brought|feels|felt|can|will|would|"
    r"seems|sounds|takes|took)\b", re.IGNORECASE)


def elide(clause: str, start: int) -> str:
    """``clause`` with the speaker's "I" put back where a statement starts without a subject at ``start``."""
    m = _ELIDED.match(clause, start)
    if m is None or (m.group("ing") and _GERUND_SUBJECT.search(clause, m.end())):
        return clause
    if m.group("been"):
        subject = "I have "
    elif m.group("ing"):
        subject = "I am "
    elif m.group("member") or m.group("job"):
        subject = "I am " if m.group("member") and m.group("member")[:2].lower() in ("a ", "an") else "I am a "
    elif m.group("diet"):
        subject = "I am "
    else:
        subject = "I "
    word = m.start("adv") if m.group("adv") else m.start() + 0
    rest = clause[word:]
    return clause[:start] + clause[start:word] + subject + rest[:1].lower() + rest[1:]


# "my girlfriend Sophie loves hiking, where should we go?": a statement before a question's own clause
_QUESTION_TAIL = re.compile(
    r"(?:,|\s[-\u2013\u2014]|\s\(|;)\s*(?=(?:where|what|how|when|which|who|why|should|can|could|would|do|does|is|"
    r"are|any|anyone|anywhere|anything|somewhere|something|thoughts|ideas|tips|recommendations?|suggestions?|help|"
    r"advice)\b)",
    re.IGNORECASE,
)


def statement_part(sentence: str) -> str:
    """The statement that opens a question ("X, where should we go?" -> "X"), or ``""``."""
    m = _QUESTION_TAIL.search(sentence)
    if m is None:
        return ""
    head = sentence[: m.start()].strip()
    return head if len(head.split()) >= 3 and not QUESTION_START.match(head) else ""

