"""States told by naming a known thing (pure): "what's good on netflix", "in the Golf", "HSBC app logged me out".

Most of what holds for a user is never asserted: it shows in a named thing of a kind everyone knows, talked
about as one's own. Which kind a name is (a car, a bank, a network, an employer) is world knowledge, kept
as data (:mod:`..text.known_names`); this module decides, per name found, whether the message tells it as
a state of the user's or of a person in their life, and under which predicate. The tests are of the
*frame*, never of a phrase:

- **not told as holding**: a sentence with a sure change cue or a correction cue (the change layer's; a weak cue,
  "contract is up", "battery dies", "finished a shift", leaves it readable, and the caller leaves out a name of
  what the message's changes ended or told: "about the Yamaha. We gave it away"), a joke said to be one, a
  hypothetical, a wish, a memory ("used to", "my first car", "when I worked at"), a denial in the name's clause, a
  choice (an "or" next to the name, "vs"), the name as what one would get, join or switch to ("should I get
  Sky?", "thinking of joining PureGym"), or "a / an <name>" (a kind, not one's own: "is a Tesla worth it?";
  but "the new one's a Skoda Enyaq" is);
- **whose**: a person's when the clause's subject is that person (:func:`.state_reading.clause_subject`) or
  the name is put with their possessive ("my brother Ollie's Corsa", "the wife's Nissan Leaf"), and then only
  for what a person's clause shows of them (their possession, their employer at work); else the user's, when
  the message is told in the first person or without a subject ("Took the Ducati out", "Finally ditched
  Virgin Media."); a service only asked about is the user's when they claim it in other words ("Is David Lloyd
  worth it? I'm a member");
- **what kind of state**: a name known as an employer is where one works only with work around it
  ("shift", "team", "all-hands", "at Royal Mail sorting office"); a shop named without it is not (a name
  known as both a bank and an employer is the bank then); a medication only in a message that tells of
  taking it ("I'm on 50mg", "prescribed", "my dose"); a team only as one's own ("my Arsenal season ticket",
  "a Spurs fan", "I support Leeds": never "we live in Leeds").

The value of a thing owned is the name with the model words after it ("Samsung Galaxy S22", "Kia Sportage",
"BMW 3 Series"); a service's is its whole known name ("Virgin Media").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..extraction._subjects import rel_word
from ..text.known_names import KINDS, NameHit, find_names, kind_of, value_names
from ..text.lexicon import PLACES, RELS, WORK_WORDS
from .cues import cued_sentences, locate
from .guard_words import REMINISCENCE_MARKERS
from .lexicon import negates
from .segments import Sentence, normalize_text, segment
from .state_reading import clause_subject
from .states import OpenState, last_person

__all__ = ["NOT_HOLDING", "named_states", "same_kind"]

_SURE_CORRECTION = 0.8
"""A correction cue at least this strong leaves its sentence to the correction layer (a bare "actually" in
"what's actually good on netflix" corrects nothing)."""
_SURE_CHANGE = 0.9
"""A change cue at least this strong leaves its sentence to the change layer ("sold", "last day at"); a weaker one
("the battery dies", "contract is up", "finished a shift") does not: the change layer ends a held thing it names,
and the tracker leaves out what the turn's changes ended or wrote."""
_OWNED_KINDS = frozenset(k for k, v in KINDS.items() if v.owned)


def _owned(kinds: set[str]) -> bool:
    """Whether a name is of a thing one owns, so model words after it are part of its value: any of its kinds
    owned ("Nissan" is a car make and an employer: "Nissan Leaf" is the car)."""
    return bool(kinds & _OWNED_KINDS)

_I = re.IGNORECASE
NOT_HOLDING = re.compile("|".join((*REMINISCENCE_MARKERS, r"\bused to\b", r"\bback when\b",
                                    r"\bin the (?:'|19|20)?\d0s\b", r"\bin (?:19|20)\d\d\b",
                                    r"\bdream(?:t|ed|ing)?\b", r"\bif\b",
                                    r"\bunless\b", r"\bwhether\b", r"\bwould(?:n't)?\b", r"\bcould\b", r"\bmight\b",
                                    r"\bimagine\b", r"\bwish\b", r"\bwhat if\b", r"\bsuppose\b", r"\bin theory\b",
                                    r"\bjok(?:e|es|ed|ing)\b", r"\bkidding\b")),
                          _I)
"""A sentence that tells no present holding: a memory, a dream, a hypothetical, a wish or a joke (said to be
one: a "lol" after "failed its MOT again" laughs at the news, it does not take it back)."""
_CHOICE = re.compile(r"\bcompar\w*\b|\balternative", _I)
"""A choice between things: neither is told as one's own."""
_OR = re.compile(r"\b(?:or|vs\.?|versus)\b", _I)
_OR_NEAR = 4
"""An "or" within this many words of a name puts the name in a choice ("the iPhone 15 or the Pixel 8"); one
further off chooses something else ("my iphone 12 battery dies, is it worth replacing or just upgrade")."""
_ACQUIRING = re.compile(
    r"\b(?:get|getting|buy|buying|switch|switching|join|joining|sign(?:ing)? up(?: (?:for|to|with))?|try|trying|"
    r"apply|applying|go(?:ing)? (?:with|for)|choose|choosing|pick(?:ing)?|upgrade|upgrading|subscribe|subscribing|"
    r"lease|leasing|order|ordering|recommend\w*|move|moving|worth|afford|test[- ]drive\w*|look(?:ing)? (?:at|into)|"
    r"change|changing|(?:can|could|should|may) (?:i|we) (?:take|have))\s+(?:(?:a|an|the|to|with|for|into|onto|on|"
    r"over|up|some|another)\s+){0,2}$|"
    r"\b(?:thinking|consider\w*|tempted|want|wants|wanted|wanna|plan|planning|hoping|hope|maybe|might|debating)\b",
    _I)
"""What one would get, join, switch to or take, just before a name ("should I get Sky", "switch to EE", "can I take
ibuprofen"), or a wish or a plan anywhere before it in its clause: not one's own yet ("recommend something to watch
on Netflix" is)."""
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|im|i've|ive|i'd|me|my|mine|we|we're|we've|our|us)\b", _I)
_MINE = re.compile(r"\b(?:my|our)\s+(?:[\w'-]+\s+){0,2}$", _I)
"""A possessive of the user's just before the name ("my 2019 Kia", "our new")."""
_THEIRS = re.compile(r"\b(?:his|her|their)\s+(?:[\w'-]+\s+){0,2}$", _I)
_ARTICLE = re.compile(r"\b(?<!got )(?<!bought )(?<!picked up )(?<!ended up with )(?<!upgraded to )"
                      r"(?:a|an|another|any|some|every)\s+$", _I)
"""A kind, not one's own ("is a Tesla worth it?"), unless just got ("got a Pixel 8")."""
_NEW_ONE = re.compile(r"\b(?:new one(?:'s| is| was)|now (?:have|drive|ride|own|got)|replaced (?:it|her|him) with|"
                      r"upgraded to|traded (?:it |her |him )?(?:in )?for)\s+(?:a|an)\s+$", _I)
""""a <name>" told as what one has now ("the new one's a Skoda Enyaq"): one's own, not a kind."""
_REFLEXIVE = re.compile(r"\b(?:himself|herself|themselves)\s+(?:(?:a|an|the|another|some|new|electric|shiny)\s+)*$",
                        _I)
"""A thing got for someone else ("got *himself an electric* MG4"): the person last named."""
_THEIR_NEW_ONE = re.compile(r"\b(?:his|her|their|[a-z]+'s)\s+new one\b", _I)
_TO_ME = re.compile(r"\b(?:put|got|started|switched|moved|changed|taken|took)\s+me\s+(?:off\s+(?:the\s+|my\s+)?"
                    r"[\w-]+\s+(?:and\s+)?)?(?:on|onto|to|over to)\s+$", _I)
"""Something done to the speaker by someone else ("she's put me on gliclazide"): the speaker's."""
_TAKING = re.compile(r"\b(?:i'm|i am|im|been|still|now|currently|started) on\b|"
                     r"\bme\s+(?:off\s+(?:the\s+|my\s+)?[\w-]+\s+(?:and\s+)?)?(?:on|onto)\b|"
                     r"\btak(?:e|ing)\b|\bprescri(?:bed|ption)\b|"
                     r"\d\s*mg\b|\bmg\b|\bdose\b|\bmy (?:meds|medication|tablets|pills|prescription)\b", _I)
"""A message that tells of taking a medication (else a medication named is asked about, not taken)."""
_OWN_TEAM = re.compile(r"\bseason tickets?\b|\bfan\b|\bsupport(?:er|ers|s|ed|ing)?\b|\bdie-?hard\b|"
                       r"\bfollow(?:s|ed|ing)?\b", _I)
"""What makes a team one's own (a town's name is a team's too: "we live in Brighton" supports no one)."""
_A_PERSON = re.compile(r"\b(?:" + RELS + r"|friend|mate|named|called|name's|name is|dear|hi|hey|thanks)\s+$", _I)
"""A name just after a relation word or a naming ("my friend Marcus", "called Tesla") is a person's or a pet's."""
_WORK_HEADS = re.compile(r"^(?:'s)?\s*(?:sorting office|office|warehouse|depot|store|branch|site|plant|factory|"
                         r"hq|headquarters|call cent(?:re|er)|counter|shop floor|till|checkout|kitchen|line)\b", _I)
_WORK_TOLD = re.compile(r"\b(?:all-hands|return-to-office|rto|payslip|pay rise|appraisal|clock(?:ed|ing)? (?:in|off|"
                        r"on)|on shift|night shift|my team|our team|the team|been (?:at|with) \S+(?: \S+)? for)\b", _I)
_LEFT = re.compile(r"\b(?:gave|given|giving|passed|passing|traded|trading|handed|swapped|not|never|no|off|"
                   r"without|instead of|rid of|from|except|ex|no more|quit|quitting|left|leaving|"
                   r"cancel\w*|sold|sell\w*|ditch\w*|dump\w*|stopp?\w*|came off|come off)\s+"
                   r"(?:(?:in|away|off|up|back)\s+)?(?:(?:the|my|our)\s+)?$",
                   _I)
"""A name just after what leaves it ("off the sertraline", "instead of Sky"): not held, whatever a cue missed."""
_STARTED = re.compile(r"\b(?:start(?:ed|ing|s)?|joined|moved to|now|"
                      r"(?:first|second|1st|2nd) (?:day|week|month|shift))\s+(?:at|with)\s+(?:the\s+)?$", _I)
"""A start put at a name known as an employer ("started at sainsburys on monday"): where one works now."""
_EMPLOYED = re.compile(r"\b(?:work(?:s|ed|ing)?|job|shift|shifts|placement|internship|career|role|position|"
                       r"contract|[a-z]{3,}(?:er|or|ist|ant|ian))\s+(?:at|for|with)\s+(?:the\s+)?$", _I)
"""Work or a worker put at a name ("a claims handler at Allianz", "works at Lloyds"): the name is an employer,
whatever else it is known as."""
_SERVICE_BEFORE = re.compile(r"\b(?:with|on|at|to|from|use|using|via|through|got|get|have|has|pay|paid|my|our|the|"
                             r"into|onto|in)\s+$", _I)
_SERVICE_AFTER = re.compile(r"^(?:'s)?\s*(?:app|account|card|signal|broadband|wifi|internet|fibre|bill|direct debit|"
                            r"membership|subscription|plan|contract|premium|family|ride|rides|class|classes|session|"
                            r"customer service|policy|cover|overdraft|mortgage|savings|isa|tariff|meter|box|mobile|"
                            r"sim|data|coverage|pb|run|league|match|game|training|engineer|technician|installer|hub|"
                            r"router|fibre|fiber|landline|"
                            r"[a-z]+s\b|[a-z]+ed\b|have|has|had|is|are|was|were|just|keep|keeps|"
                            r"won't|can't|never|always|still)\b", _I)
"""A service named as one uses it: after "with" / "on" / "my", or with what one has of it or what it does."""
_MY_ACCOUNT = re.compile(r"\b(?:my|our)\s+(?:monthly\s+)?(?:direct debit|bills?|account|contract|tariff|plan|broadband|"
                         r"policy|premium|renewal|subscription|membership|meter|payments?)\b", _I)
"""What one has with a service, in the sentence that names it ("British Gas want to put *my direct debit* up")."""
_MODEL_WORD = re.compile(r"^(?:[A-Z0-9][\w-]*|[a-z]*\d[\w-]*)$")
"""A word after a name that belongs to it: a capitalised word or a model number ("S22", "3", "TD-17")."""
_RELATIVE_SAYS = re.compile(r"\b(?:my|our)\s+(?:[\w-]+\s+)?(?:" + RELS + r")(?:'s|\s+(?:is|was|has|had|uses|got|"
                            r"gets|loves|swears))\b", _I)
"""A relative's own clause the subject shapes missed ("my sister's on Vodafone"): not the speaker's."""
_REL_POSSESSOR = re.compile(r"\b(?:my|our|the)\s+(?P<rel>" + RELS + r")'s\s+(?:[\w'-]+\s+){0,2}$", _I)
"""A relative's possessive just before the name, no name of theirs told ("the wife's", "my dad's")."""
_ROUTINE = re.compile(r"\b(?:tonight|today|this morning|always|every|usual|as usual|weekly|each week|"
                      r"on (?:mon|tues|wednes|thurs|fri|satur|sun)days)\b", _I)
"""A routine told of no one ("always on Tuesdays at the Powerleague"): the speaker's own."""
_ADVERB = re.compile(r"^\W*(?:(?:finally|just|already|so|well|ok|okay|officially|honestly)\W+)+", _I)
"""Words before a dropped subject's verb ("*Finally* ditched ...")."""
_SUBJECTLESS = re.compile(r"^\W*(?:[A-Za-z]+(?:ing|ed)|been|took|got|had|did|went|back|off|out|up|early|late|another|"
                          r"rehearsal|practice|training|shift|session|class|lesson|match|game|first|new)\b", _I)
"""A clause whose subject is dropped ("Took the Ducati out", "Heading to PureGym", "Early start at ..."): the
speaker's."""


def _choice(before: str, after: str) -> bool:
    """Whether an "or" near the name puts it in a choice (:data:`_OR_NEAR` words either side)."""
    near = " ".join(before.split()[-_OR_NEAR:] + after.split()[:_OR_NEAR])
    return bool(_OR.search(near))


def _work(sentence: str, after: str) -> bool:
    """Whether a sentence tells of work around an employer's name (or the name is put with a workplace)."""
    low = set(re.findall(r"[a-z]+(?:-[a-z]+)*", sentence.lower()))
    parts = {p for w in low for p in w.split("-")}
    return bool((low | parts) & WORK_WORDS) or bool(_WORK_TOLD.search(sentence)) or bool(_WORK_HEADS.match(after))


def same_kind(new: str, held: Sequence[tuple[str, str]]) -> tuple[str, str] | None:
    """The held value a change's new value replaces by kind: ``new`` names a known thing ("ported my number to
    giffgaff", "switched the energy over to Octopus") and exactly one of ``held`` (``(id, object)`` pairs, the
    subject's current facts) names another thing of one of its kinds (the network, the supplier). Returns that
    ``(id, the new thing's name)``, or ``None`` (no known name, none or several held of its kind, or the same)."""
    hits = find_names(new)
    if not hits:
        return None
    hit = hits[0]
    kinds = set(hit.kinds)
    name, _ = _value(new, hit, _owned(kinds))
    matches = []
    for fact_id, obj in held:
        theirs = value_names(obj)
        if any(set(h.kinds) & kinds for h in theirs):
            if any(h.text.lower() == hit.text.lower() for h in theirs):
                return None  # the same thing is already held: nothing is replaced
            matches.append(fact_id)
    return (matches[0], name) if len(matches) == 1 else None


def _value(text: str, hit: NameHit, owned: bool) -> tuple[str, int]:
    """The name with the model words after it (a thing owned: "Kia Sportage", "iPhone 12"; a service's name is
    whole in the data: "Virgin Media", never "CrossFit 5" or "parkrun PB"), and where that ends."""
    end = hit.end
    if not owned:  # a service's whole name is in the data ("Virgin Media"): "parkrun PB" is no name
        return hit.text, end
    for m in re.finditer(r"\s+(?P<w>[\w+-]+)", text[end:]):
        if m.start() != (end - hit.end):
            break
        word = m.group("w")
        if not (_MODEL_WORD.match(word) or set(kind_of(word)) & set(hit.kinds)) or word.lower() in {"i", "a"}:
            break
        end = hit.end + m.end()
    return text[hit.start:end], end


def _kind(hit: NameHit, sentence: str, before: str, after: str, message: str) -> str | None:
    """Which of a name's kinds the sentence tells, or ``None`` (none it can be told as)."""
    if _EMPLOYED.search(before) or ("employer" in hit.kinds and _STARTED.search(before)):
        return "employer"
    kinds = list(hit.kinds)
    if "employer" in kinds:
        if _work(sentence, after):
            return "employer"
        kinds.remove("employer")
    for k in kinds:
        if not KINDS[k].owned and k != "medication" and not (
                _SERVICE_BEFORE.search(before) or _SERVICE_AFTER.match(after) or _MY_ACCOUNT.search(sentence)):
            continue  # a service's bare name ("Hastings!"): nothing shows it used
        if k == "medication" and not _TAKING.search(message):
            continue
        if k == "team" and not _OWN_TEAM.search(sentence):
            continue
        return k
    return None


def named_states(text: str, *, covered: tuple[str, ...] = (), changes: bool = False) -> list[OpenState]:
    """The states ``text`` tells by naming a known thing (see the module docstring), one per name; none whose
    value a rule already stated (``covered``). ``changes``: read the sentences with a change cue too (what a
    change names as holding now: "ported my number to giffgaff"; :func:`same_kind` says what it replaces)."""
    norm = normalize_text(text)
    hits = find_names(norm)
    if not hits:
        return []
    stated = [c.lower() for c in covered if c]
    sentences = segment(norm)
    cued = set() if changes else cued_sentences(norm, sentences, correction_strength=_SURE_CORRECTION,
                                                change_strength=_SURE_CHANGE)
    first_person = bool(_FIRST_PERSON.search(norm)) or any(_SUBJECTLESS.match(_ADVERB.sub("", s.text))
                                                           for s in sentences)  # "Finally ditched Virgin Media."
    out: list[OpenState] = []
    taken_to = 0
    for hit in hits:
        if hit.start < taken_to:  # a model word of the name before ("my Honda Civic": "Civic" is the Honda)
            continue
        kinds = set(hit.kinds)
        value, taken_to = _value(norm, hit, _owned(kinds))
        where = locate(sentences, hit.start)
        if where is None or where[0] in cued:
            continue
        sentence = sentences[where[0]]
        clause = sentence.clauses[where[1]]
        if NOT_HOLDING.search(sentence.text):
            continue
        before = norm[clause.start: hit.start]
        if hit.text.lower() in PLACES or (" " not in hit.text and _A_PERSON.search(before)):
            continue
        if negates(before.lower().split()) or _CHOICE.search(clause.text) or \
                _choice(before, norm[taken_to: clause.end]) or \
                _ACQUIRING.search(before) or (_ARTICLE.search(before) and not _NEW_ONE.search(before)) or \
                _LEFT.search(before):
            continue
        kind = _kind(hit, sentence.text, before, norm[hit.end: clause.end], norm)
        if kind is None:
            continue
        state = KINDS[kind]
        whose = _whose(clause.text, before, norm[: clause.start], first_person, owned=state.owned,
                       employer=kind == "employer", name=hit.text)
        if whose is None:
            continue
        low = value.lower()
        # a rule stated it ("Virgin Active" in "a Virgin Active membership"), not merely a part of it ("Virgin")
        if any(low in c for c in stated) or any(low == o.value.lower() for o in out):
            continue
        out.append(OpenState(whose, value, clause.text.strip(" ,;-"), predicate=state.predicate))
    return out or _claimed(norm, sentences, hits, cued)


_OWN_CLAIM = re.compile(r"\b(?:I'm|I am|im|we're|we are) (?:a |still a |already a )?members?\b(?! of)|"
                        r"\b(?:I|we)(?:'ve| have) (?:had|been with|been using|used|been on) (?:it|them|one)\b|"
                        r"\bmine(?:'s| is| does| has| keeps)\b|\b(?:I|we) (?:mostly |mainly |only )?use it\b|"
                        r"\b(?:the )?one (?:I|we) (?:have|'ve got|own)\b", _I)
"""The speaker's own claim of the thing the message names ("Is David Lloyd worth £120? *I'm a member* ...", "Is
Amazon Prime worth it? *I've had it* for years", "Is a Mazda CX-5 any good in snow? *Mine's* a 2019", "over the
Gold Star *one I have*")."""
_NOT_CLAIMED = frozenset({"employer", "medication", "team"})
"""Kinds a claim in other words never makes the speaker's (work, a medication and a team need their own words)."""


def _claimed(norm: str, sentences: list[Sentence], hits: Sequence[NameHit], cued: set[int]) -> list[OpenState]:
    """The one service the message names, when the speaker claims it as theirs in another words (see
    :data:`_OWN_CLAIM`); none when several are named or the claim is denied, past or hypothetical."""
    claim = _OWN_CLAIM.search(norm)
    services = [h for h in hits if set(h.kinds) - _NOT_CLAIMED]  # a service, or a thing owned ("Mine's a 2019")
    if claim is None or len({h.text.lower() for h in services}) != 1:
        return []
    where = locate(sentences, claim.start())
    if where is None or where[0] in cued or NOT_HOLDING.search(sentences[where[0]].text) or \
            negates(norm[sentences[where[0]].start: claim.start()].lower().split()[-3:]):
        return []
    hit = services[0]
    kind = next(k for k in hit.kinds if k not in _NOT_CLAIMED)
    return [OpenState("user", hit.text, sentences[where[0]].text.strip(), predicate=KINDS[kind].predicate)]


def _whose(clause: str, before: str, earlier: str, first_person: bool, *, owned: bool,
           employer: bool, name: str) -> str | None:
    """Whose state ``name`` in ``clause`` tells (``before``: the clause up to the name; ``earlier``: the message
    before the clause), or ``None``. The known thing as the clause's subject is no person ("Metformin is
    upsetting my stomach")."""
    if _REFLEXIVE.search(before):  # "Raj sold the Defender!! Got himself an MG4": Raj's, never the speaker's
        return last_person(earlier + " " + before)
    if _TO_ME.search(before) or (_NEW_ONE.search(before) and not _THEIR_NEW_ONE.search(before)):
        return "user"
    lead = len(clause) - len(clause.lstrip(" ,;-"))
    subject = clause_subject(clause[lead:], earlier)
    if subject is not None and subject[0] == name.lower().split()[0]:
        subject = None
    possessor = re.search(r"(?P<who>\b[A-Z][a-z]+|\b[a-z]+)'s\s+(?:[\w'-]+\s+){0,2}$", before)
    if subject is not None and subject[0] != "user":
        who, end, known = subject
        if not known or len(before) - lead < end:
            return None
        who = who.removesuffix("'s")
        theirs = bool(_THEIRS.search(before)) or (possessor is not None and possessor.group("who").lower() == who)
        return who if theirs or employer or not owned else None
    if rel := _REL_POSSESSOR.search(before):  # "the wife's Nissan Leaf", "my dad's Volvo": the relative's
        return rel_word(rel.group("rel"))
    if _THEIRS.search(before) or _RELATIVE_SAYS.search(before):
        return None
    if possessor is not None and not _MINE.search(before[: possessor.start()] + " "):
        return None  # "Jo's Corsa" with no subject known to be Jo: nobody's for sure
    if _MINE.search(before) or first_person or _SUBJECTLESS.match(clause[lead:]) or \
            (subject is None and _ROUTINE.search(clause)):
        return "user"
    return None
