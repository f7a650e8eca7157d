"""Open-predicate state capture (pure): present states that no specific rule read, as ``states`` facts.

The extractor's rules are verb frames x head-noun lexicons, fitted to one writer's phrasing; a second
writer's "I volunteer in a food bank", "big Everton fan here", "week three of keto" or "my Three contract"
fall through them and the store never learns the state, so nothing can later end it. This module is the
mechanism beneath the rules: any clause whose subject is the user (or a named / related third party)
and whose shape says *a state that holds now* becomes ``<subject> states "<its object phrase>"``; the
whole clause is kept (``clause``) so that later cues can be matched to it by meaning.

What is not a state is filtered out by shape, not vocabulary: questions, conditionals, wishes and plans
(the guard layer's modal and future markers), denials, memories, past events ("went", "yesterday"),
feelings and opinions ("I feel", "I love", "I'm so tired"), and every sentence holding a change cue (an
ending is the change layer's, never a new state).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.lexicon import RELS, STARTERS
from .cues import find_corrections_cues, find_cues
from .lexicon import FUTURE_MARKERS, MODAL_MARKERS, NEGATORS, REMINISCENCE_MARKERS
from .segments import Sentence, normalize_text, segment

__all__ = ["OPEN_PREDICATE", "OpenState", "open_states"]

OPEN_PREDICATE = "states"
"""The predicate of an open-predicate fact: its object is the state's phrase, its metadata the clause."""

_I = re.IGNORECASE
_NOT_A_STATE = re.compile("|".join((*MODAL_MARKERS, *FUTURE_MARKERS, *REMINISCENCE_MARKERS,
                                    r"\byesterday\b", r"\blast (?:night|week|weekend|month|year)\b", r"\bago\b",
                                    r"\bthis morning\b", r"\btonight\b", r"\bearlier\b", r"\bused to\b",
                                    r"\bonce\b", r"\bdreamt\b", r"\bdream\b", r"\blol\b", r"\bjoke\b")), _I)
_LEAD = re.compile(r"^\W*(?:(?:so|and|but|also|oh|ok|okay|well|honestly|anyway|yeah|btw|plus|still|now|"
                   r"currently|these days|at the moment|right now|update)\b[\s,!:-]*)*", _I)
_ADVERBS = r"(?:\s+(?:still|now|currently|also|just|both|always|usually|really|normally|mostly|basically|" \
           r"actually|even|properly|officially|regularly|finally))*"
# "I run", "we've got", "I've been using", "Priya and I have": the user as subject, then a verb
_FIRST = re.compile(r"^(?:(?:I|we)|[A-Z][\w-]+ and I|my [\w-]+ and I)(?P<aux>'ve|'re|'m|\s+(?:have|has|am|are))?"
                    r"(?P<been>\s+been)?" + _ADVERBS + r"\s+(?P<verb>[a-z][\w-]*)\b(?P<rest>.*)$")
_THIRD = re.compile(r"^(?:(?:my|our)\s+(?P<rel>" + RELS + r")(?:\s+(?P<name>[A-Z][\w-]+))?|(?P<named>[A-Z][a-z]+))"
                    r"(?:,\s+(?:my|our)\s+(?P<appos>[\w\s-]{2,30}),)?(?P<aux>'s|\s+(?:is|has|'s been|has been))?" + _ADVERBS +
                    r"\s+(?P<verb>[a-z][\w-]*)\b(?P<rest>.*)$")
_MY_THING = re.compile(r"\b(?:my|our)\s+(?P<np>(?:[A-Z0-9][\w&+'-]*\s+){1,3}[a-z]+s?|[a-z]+\s+(?:at|with|"
                       r"from|on)\s+(?:[A-Z][\w&+'-]*\s*){1,3}|[A-Z0-9][\w&+-]*(?:\s+[A-Z0-9][\w&+-]*){0,2})")
_VERBLESS = re.compile(r"^(?P<np>(?:day|week|month|year)\s+\w+\s+(?:of|at|in|on)\s+.+|\w+\s+(?:years?|months?)\s+"
                       r"(?:\w+ing\s+)?(?:at|in|with|on)\s+.+|big\s+.+\s+fan|.+\s+fan\s+here|.+\s+here,?\s+"
                       r"(?:born|bred)\b.*|as an?\s+.+)$", _I)
_STATE_VERBS = frozenset(
    "have has got own run runs do does take takes play plays go goes work works volunteer volunteers live lives "
    "drive drives use uses teach teaches study studies coach coaches attend attends belong belongs ride rides "
    "keep keeps manage manages lead leads sing sings train trains pay pays rent rents support supports follow "
    "follows write writes host hosts help helps care cares look looks walk walks swim swims cycle cycles "
    "subscribe subscribes bank banks see sees shop shops listen listens watch watches wear wears "
    "having owning running doing taking playing going working volunteering living driving using teaching "
    "studying coaching attending riding keeping managing leading singing training paying renting supporting "
    "following writing hosting helping caring walking swimming cycling learning seeing shopping listening "
    "watching wearing dating married engaged".split())
"""Verbs (present, third person or progressive) whose object is a state that holds: what someone has,
does, belongs to or takes part in, as against what they feel, think or did once."""
_COPULA_NEXT = re.compile(r"^\s+(?:a|an|in|on|at|with|into|part of|member of|the|on the|training|\d)\b", _I)
_COPULA = frozenset({"'m", " am", "'re", " are", "'s", " is"})
_FEELINGS = re.compile(r"\b(?:feel\w*|tired|stressed|sad|happy|glad|sorry|sick of|fed up|worried|nervous|excited|"
                       r"anxious|bored|annoyed|angry|upset|scared|lost|confused|coping|exhausted|knackered|done with|"
                       r"over the moon|gutted|thrilled|proud|relieved|grateful|struggling|busy|late|away|off)\b", _I)
_CUT = re.compile(r"\s*(?:[,;:!?()]|\.(?:\s|$)|\s+-+\s+|\s+(?:and|but|so|because|cos|which|who|when|while|since|"
                  r"though|although|lol|haha)\b)")
_MIN_WORDS, _MAX_WORDS = 1, 9
_DONE = re.compile(r"\b(?:\w+ed|sold|left|gave|quit|got|let|cut|shut|went|made|took|lost|broke|gone|rip|"
                   r"traded|sent|put|ran|done|over|bye|goodbye|farewell|last)\b", _I)
"""A clause with a past or finished verb: a thing of the user's named there may be what just ended."""
_RELATION_WORDS = re.compile(r"^(?:" + RELS + r")$", _I)
_NAME_STOP = STARTERS | frozenset("Dr Mr Mrs Ms Mum Dad Got Had Went Been Did Is Was Just Still Loving Week "
                                   "Day Month Year Big Had Work".split())


@dataclass(frozen=True)
class OpenState:
    """One captured present state: whose (``"user"``, a relation word or a lowercase name), the
    object phrase (the fact's value) and the clause it was read from (for meaning)."""

    subject: str
    value: str
    clause: str


def _phrase(rest: str) -> str:
    """The object phrase: ``rest`` up to the first clause boundary, trimmed of articles and filler."""
    cut = _CUT.search(rest)
    body = (rest[: cut.start()] if cut else rest).strip(" .!?'\"")
    body = re.sub(r"^(?:a|an|the|to|for|at|in|on|with|of|as|my|our)\s+", "", body, flags=_I)
    return body.strip()


def _valid(value: str) -> bool:
    n = len(value.split())
    if not _MIN_WORDS <= n <= _MAX_WORDS or not re.search(r"[A-Za-z]", value):
        return False
    first = value.split()[0].lower()
    return first not in {"it", "this", "that", "them", "him", "her", "you", "me", "something", "nothing",
                         "anything", "everything", "stuff", "things", "lot", "bit", "way", "time"}


def _clause_state(text: str) -> OpenState | None:
    body = text[_LEAD.match(text).end():].strip()  # type: ignore[union-attr]
    if not body:
        return None
    if m := _FIRST.match(body):
        return _from_verb("user", m, body)
    if (m := _THIRD.match(body)) and not (m.group("named") and m.group("named") in _NAME_STOP):
        who = (m.group("name") or m.group("named") or m.group("rel") or "").lower()
        if who and not _RELATION_WORDS.match(who) or m.group("rel"):
            return _from_verb(who, m, body)
    if m := _VERBLESS.match(body):
        value = _phrase(m.group("np"))
        return OpenState("user", value, body) if _valid(value) else None
    return None


def _from_verb(subject: str, m: re.Match[str], body: str) -> OpenState | None:
    verb, rest, aux = m.group("verb").lower(), m.group("rest"), (m.group("aux") or "").lower()
    been = "been" in m.re.groupindex and m.group("been")
    if appos := m.group("appos") if "appos" in m.re.groupindex else None:  # "Marta, my team lead, is ...": the role
        value = _phrase(appos)
        return OpenState(subject, value, body) if _valid(value) else None
    if aux.strip() in ("have", "has") and not been and verb not in _STATE_VERBS:  # "I have type 1 diabetes"
        verb, rest, aux = aux.strip(), f" {m.group('verb')}{rest}", ""
    if aux.strip() in ("'ve", "have", "has") and verb == "had" and not been:  # "I've had a season ticket"
        verb = "have"
    if aux.strip() in {"'m", "am", "'re", "are", "'s", "is"} and not been:
        # "I'm a nurse", "I'm in a choir", "we're with Octopus": a copula before a noun phrase, never an adjective
        whole = f" {verb}{rest}"
        if verb in _STATE_VERBS and verb.endswith("ing"):
            whole = rest
        elif not _COPULA_NEXT.match(whole) or _FEELINGS.search(whole[:30]):
            return None
        value = _phrase(whole)
        return OpenState(subject, value, body) if _valid(value) else None
    if verb not in _STATE_VERBS:
        return None
    if verb in ("go", "goes", "going") and not re.match(r"\s+(?:to|swimming|running|climbing)\b", rest):
        return None
    value = _phrase(rest)
    if verb in ("have", "has", "got") and value.split()[0].lower() in {"to", "been", "no", "had"}:
        return None
    return OpenState(subject, value, body) if _valid(value) else None


def _blocked(sentence: Sentence, text: str) -> bool:
    if sentence.question or _NOT_A_STATE.search(sentence.text):
        return True
    return any(w in NEGATORS or w.endswith("n't") for w in sentence.text.lower().split())


def open_states(text: str, *, covered: tuple[str, ...] = (), read: tuple[str, ...] = ()) -> list[OpenState]:
    """The present states ``text`` tells that no specific rule captured.

    Args:
        text: a user message.
        covered: values the extractor already stated from this message; a clause holding one of them
            is left to the rule that read it.
        read: the sentences the extractor stated something from: left to its rules whole.
    """
    norm = normalize_text(text)
    sentences = segment(norm)
    busy = {h.sentence for h in find_cues(norm, sentences)}
    busy |= {h.sentence for h in find_corrections_cues(norm, sentences)} if "correct" in norm.lower() or \
        "actually" in norm.lower() or "meant" in norm.lower() else set()
    taken = [c.lower() for c in covered if c]
    marks = [m for m in (normalize_text(r).strip(" .!?") for r in read) if m]
    out: list[OpenState] = []
    seen: set[tuple[str, str]] = set()
    for i, sentence in enumerate(sentences):
        body = sentence.text.strip(" .!?")
        if i in busy or _blocked(sentence, norm) or any(body and (body in r or r in body) for r in marks):
            continue
        for clause in sentence.clauses:
            low = clause.text.lower()
            if any(c in low for c in taken) or _FEELINGS.match(clause.text.strip()):
                continue
            found = _clause_state(clause.text)
            if found is None and not _DONE.search(clause.text):
                for m in _MY_THING.finditer(clause.text):  # a thing of the user's named in passing
                    value = m.group("np").strip()
                    if _valid(value) and not _RELATION_WORDS.match(value.split()[0]) and \
                            not any(value.lower() in c or c in value.lower() for c in taken):
                        found = OpenState("user", value, clause.text.strip())
                        break
            if found is not None and (found.subject, found.value.lower()) not in seen:
                seen.add((found.subject, found.value.lower()))
                out.append(found)
    return out
