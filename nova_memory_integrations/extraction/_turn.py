"""Statements one clause leaves open and the rest of the turn settles (:mod:`.deterministic`).

Some clauses say that a state changed without saying, in their own words, what it changed to or what
kind of state it is; people let the rest of the turn say it:

* **a move without a destination** ("we moved in October", "Relocated in June with work", "Jonah moved
  out last week"): the destination is the place the move's own clause names ("moved in with my partner
  in York"), else the one place the rest of the turn names ("First winter in Minneapolis since we moved
  in October", "Writing to you from Lisbon! Relocated in June"). Two different places, none, a place
  moved from, one in a question or, for the speaker's move, one in a sentence about someone else ("My
  parents live in Leeds") settle nothing.
* **being at a named place "now"** ("I'm at Monmouth Coffee now", "he's at Tesco now"): a workplace
  when the turn talks about work (a job, a shift, leaving somewhere, a last or first day), a school or a
  club by its own class (:func:`._things.resolve_capture`); otherwise where someone happens to be, which
  is not a fact to keep; a visit ("now waiting for ...", "now for the match") never.
* **a manager or colleague** the turn names works where the user says they work, in that turn.
* **being with someone** ("I've been with Sam for about three months"): a partner when the turn talks
  about a relationship (a date, an ex, breaking up ...); without that, a named employer when the
  clause gives a tenure ("been with Barclays for ten years", :data:`TENURE`).

The clause rules emit provisional ``@`` predicates (:data:`CONTEXT_RULES`); :func:`settle` turns
them into facts, or drops them, once the whole turn is known.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..text.dates import MONTHS
from ..text.known_names import kind_of
from ..text.lexicon import NOT_NAMES, REL_MODIFIERS, RELS, ROMANCE_WORDS, STARTERS, WORK_WORDS
from ..text.sentences import FACT_SENTENCES
from ._frames import TENURE
from ._rules import f, rule
from ._things import resolve_capture
from .base import CandidateFact

__all__ = ["CONTEXT_PREDICATES", "CONTEXT_RULES", "settle"]

_I = re.IGNORECASE

_NOW = (r"(?:now|these days|nowadays|at the moment|full[- ]time|part[- ]time)\b"
        r"(?!\s*(?:for|to|with|waiting|watching|queuing|queueing)\b|\s+[a-z]+ing\b)")
"""Now as a state, not a visit: "at Costa now waiting for ...", "at Wembley now for the concert" are visits."""
_SPAN = (r"(?:for (?:about |almost |nearly |over |around |roughly )?(?:a|an|one|two|three|four|five|six|seven|eight|"
         r"nine|ten|\d+|a few|several|a couple of) (?:days?|weeks?|months?|years?)|since\b|now\b)")
_NAME = r"(?-i:[A-Z])[\w'&+-]*(?: (?:&|of|de) (?-i:[A-Z])[\w'&+-]*| (?-i:[A-Z])[\w'&+-]*){0,3}"

CONTEXT_RULES = (
    # "I'm at Monmouth Coffee now", "she's now at the BBC"
    rule(r"<A>(?:am|is|are) (?:now |currently )?(?:working )?at (?P<o>(?:the )?" + _NAME + r"(?: (?:uni|university|"
         r"college|school|academy|sixth form))?)(?=\s+" + _NOW + r")",
         f("@now_at", "org"), we_ok=True),
    rule(r"<A>(?:am|is|are) (?:now|currently) (?:working )?at (?P<o>(?:the )?" + _NAME + r")(?!\s+(?:for|to|with|"
         r"waiting|watching)\b|\s+[a-z]+ing\b)", f("@now_at", "org"), we_ok=True),
    # "I've been with Sam for about three months", "she's with Marco now"
    rule(r"<A>(?:am|is|are|have been|has been) (?:together )?with (?P<o>(?-i:[A-Z])[a-zà-ÿ'-]+)(?=\s+" + _SPAN +
         r"|\s*[,.;!)]|\s*$)", f("@with", "person")),
    # "we moved in October", "Relocated in June with work", "Jonah moved out last week"
    rule(r"<A>(?:have |has |had )?(?:just |recently |finally )?(?:moved|relocated|emigrated)(?: (?:house|home|out|"
         r"away|over|back|abroad|in))?(?=\s+(?:in|last|this|earlier|during|with|over the|back in|recently|yesterday|"
         r"when|after)\b|\s*$|\s*[,.;!)])",
         f("@moved", "status", "=moved"), we_ok=True),
)
"""Clause rules whose statement the rest of the turn settles (tried after the capture rules' tops)."""
CONTEXT_PREDICATES = frozenset({"@now_at", "@with", "@moved"})

_WORK = re.compile(r"\b(?:" + "|".join(sorted(WORK_WORDS, key=len, reverse=True)) + r")\b"
                   r"|\b(?:left|leaving) (?!(?:the|a|an|my|our|his|her|home|it|him|them|early|for|town|school|"
                   r"in|at|on|after|before|with)\b)[\w'-]*[A-Za-z]|\b(?:quit|quitting) (?-i:[A-Z])", _I)
_ROMANCE = re.compile(r"\b(?:" + "|".join(sorted(ROMANCE_WORDS, key=len, reverse=True)) + r")\b", _I)
_PLACE = re.compile(r"\b(?:in|to|from)\s+(?:the\s+|(?<!to )(?-i:(?!(?:my|our|his|her|their|a|an|this|that)\b)"
                    r"[a-z]+)\s+)?(?P<p>(?-i:[A-Z])[a-zà-ÿ'-]+(?:\s+(?-i:[A-Z])[a-zà-ÿ'-]+){0,2})",
                    _I)
_SOMEONE_ELSE = re.compile(r"\W*(?:(?:my|our|his|her|their) (?:" + REL_MODIFIERS + r")(?:" + RELS + r")\b|"
                           r"(?:he|she|they)\b)", _I)
_ORIGIN = re.compile(r"\b(?:moved|relocated|emigrated|came|come|originally|am|is|are)(?: \w+)? from\s+$", _I)
_NOT_PLACES = frozenset({*(m.capitalize() for m in MONTHS), *STARTERS, *NOT_NAMES})


def _statements(text: str) -> str:
    """The turn without its questions ("What's a good date night for my parents?" says nothing of the user)."""
    return " ".join(s for s in FACT_SENTENCES.split(text) if not s.rstrip().endswith("?"))


def _places(text: str, speaker: bool) -> set[str]:
    """The places a turn's statements name ("in Minneapolis", "from Lisbon"), without the place one moved from;
    for the ``speaker``'s move, not those of a sentence about someone else ("My parents live in Leeds")."""
    found: set[str] = set()
    for sentence in FACT_SENTENCES.split(text):
        if sentence.rstrip().endswith("?") or (speaker and _SOMEONE_ELSE.match(sentence)):
            continue
        for m in _PLACE.finditer(sentence):
            words = m.group("p").split()
            if words[0] in _NOT_PLACES or _ORIGIN.search(sentence, 0, m.start("p")):
                continue
            found.add(m.group("p"))
    return found


_WORKMATES = frozenset({"boss_of", "coworker_of"})


def _workmates(found: Sequence[CandidateFact]) -> list[CandidateFact]:
    """``found`` plus, for a manager or colleague the turn names, the workplace the user names in it
    ("I work at Halfords; my manager, Dee, ..." -> ``dee works_at Halfords``)."""
    out = list(found)
    work = [c for c in found if c.subject == "user" and c.predicate == "works_at" and c.op == "assert"]
    if len(work) != 1:
        return out
    for c in found:
        if c.predicate in _WORKMATES and c.object == "user" and c.op == "assert" and not any(
                o.subject == c.subject and o.predicate == "works_at" for o in found):
            out.append(replace(work[0], subject=c.subject, confidence=min(work[0].confidence, 0.6)))
    return out


_MOVE_VERB = re.compile(r"\b(?:moved|relocated|emigrated)\b(?P<rest>[^,;.!?]*)", _I)


def _after_move(sentence: str) -> str | None:
    """The place named after the move verb in its own clause ("we moved in with Gran in Whitby" -> Whitby)."""
    m = _MOVE_VERB.search(sentence)
    if m is None:
        return None
    for place in _PLACE.finditer(m.group("rest")):
        if place.group("p").split()[0] not in _NOT_PLACES and not _ORIGIN.search(m.group("rest"), 0, place.start("p")):
            return place.group("p")
    return None


_BOUNDED_STAY = re.compile(r"\b(?:for (?:a|one|two|three|four|a few|a couple of|\d+) (?:days?|nights?|weeks?|"
                           r"fortnights?|months?)|for a fortnight|for the (?:summer|holidays|week|weekend|month)|"
                           r"temporarily|while (?:the|our|my) (?:builders|house|flat|kitchen|bathroom|renovation|"
                           r"work|works|place|home)|until (?:the|our|my) (?:house|flat|new build|renovation|works?|"
                           r"kitchen|sale) )", _I)
"""A stay told with its end ("moved in with my in-laws in Swindon *for a fortnight*", "*while the builders* ..."): no
new home, the held one goes on."""


def settle(found: Sequence[CandidateFact], text: str) -> list[CandidateFact]:
    """``found`` with each provisional ``@`` statement made a fact (or dropped) from what the turn says."""
    found = _workmates(found)
    if not any(c.predicate in CONTEXT_PREDICATES for c in found):
        return _lasting(found)
    out: list[CandidateFact] = []
    for c in found:
        if c.predicate not in CONTEXT_PREDICATES:
            out.append(c)
            continue
        if c.predicate == "@moved":
            places = _places(text, c.subject == "user")
            stated = any(o.subject == c.subject and o.predicate == "lives_in" and o.op == "assert" for o in found)
            own = _after_move(c.source_text)  # "moved in with my partner in York": the move's own clause says
            if own is not None and not stated:
                out.append(replace(c, predicate="lives_in", object=own))
            elif len(places) == 1 and not stated:
                out.append(replace(c, predicate="lives_in", object=next(iter(places))))
        elif c.predicate == "@now_at":
            resolved = resolve_capture("@joined", c.object, "")
            by_class = resolved is not None and resolved[0] in ("studies_at", "member_of")  # a school, a gym
            if resolved is not None and (by_class or _WORK.search(_statements(text))):  # a school says so
                out.append(replace(c, predicate=resolved[0], object=resolved[1]))
        elif _ROMANCE.search(_statements(text)):  # @with
            out.append(replace(c, predicate="dating"))
        elif re.search(r"\bwith " + re.escape(c.object) + r"(?:" + TENURE + ")", c.source_text):
            out.append(replace(c, predicate="works_at", confidence=min(c.confidence, 0.6)))
    return _lasting(out)


def _lasting(found: list[CandidateFact]) -> list[CandidateFact]:
    """``found`` without a home told with its end (:data:`_BOUNDED_STAY`) or at a known thing that is no place
    ("moved over to Octopus": an energy supplier)."""
    return [c for c in found if not (c.predicate == "lives_in" and c.op == "assert" and (
        _BOUNDED_STAY.search(c.source_text or "") or set(kind_of(c.object)) - {"team"}))]
