"""Who a clause is about, for the rule-based extractor (:mod:`.deterministic`): the subjects that are not the
speaker.

``my <relation> [Name]`` (:data:`THIRD_MY`, with a child told by age, "my 16 year old (Ethan)"), two of them
coordinated (:data:`AND_MY`: "my friend Ana and my cousin Rosa both ..."; :data:`AND_THEIRS`: "my brother and
his wife ..."), ``Name, my <relation>,`` (:data:`THIRD_APPOS`), a capitalised name before a verb, told apart
by where one knows them from (:data:`THIRD_NAME`: "Sam from work"), a titled relative (:data:`THIRD_TITLE`:
"Uncle Ray"), a bare relation (:data:`THIRD_BARE`), a pronoun (:data:`PRONOUN`), and two relatives named
alike (:data:`SHARED_NAME`: "my boyfriend and my brother are both called James").
"""

from __future__ import annotations

import re

from ..text.lexicon import AGE_NOUN, BRITISH, PET_RE, REL_ALIASES, REL_MODIFIERS, RELS

__all__ = [
    "AND_MY",
    "AND_THEIRS",
    "KNOWN_FROM",
    "KNOWN_LOWER",
    "PRONOUN",
    "SHARED_NAME",
    "THIRD_APPOS",
    "THIRD_BARE",
    "THIRD_MY",
    "THIRD_NAME",
    "THIRD_TITLE",
    "rel_word",
]

_I = re.IGNORECASE

THIRD_MY = re.compile(r"(?:(?:[Mm]e|[Mm]yself) and )?(?:[Mm]y|[Oo]ur) (?:" + REL_MODIFIERS + r")(?P<rel>" + RELS + r"|"
                      r"(?:[a-z][a-z-]+ )?" + PET_RE + "|" + AGE_NOUN + r")"
                      r"(?:,? (?P<paren>\()?(?P<name>[A-ZÀ-Þ][\w-]*(?:'(?!s\b)[\w-]+)*"
                      r"(?: [A-Z][a-z]+(?=\s+(?:is|was|has|moved|lives|works)\b))?)(?:'s(?=\s))?(?(paren)\))"
                      r",?)?(?:\s+(?:\(\d+\)\s+)?|$)")
AND_MY = re.compile(r"and (?:[Mm]y|[Oo]ur) (?:" + REL_MODIFIERS + r")(?P<rel>" + RELS + r")(?:,? (?P<name>[A-ZÀ-Þ]"
                    r"[\w'-]+),?)? (?:both |also |too )?")
AND_THEIRS = re.compile(r"and (?:his|her|their) (?:[\w-]+ )?(?:" + RELS + r"|family)(?:,? [A-ZÀ-Þ][\w'-]+,?)? "
                        r"(?:both |also |too )?")
THIRD_APPOS = re.compile(r"(?P<name>[A-ZÀ-Þ][\w'-]+), [Mm]y (?:" + REL_MODIFIERS + r")(?P<rel>" + RELS + r"),\s+")
KNOWN_FROM = (r"(?:work|the office|the gym|school|uni|college|church|next door|down the road|yoga|football|"
              r"(?:the|my|our) (?:[\w-]+ )?(?:club|team|choir|class|group|course|office|gym|church))")
"""Where one knows a person from ("from work", "on my team"): a name told with it is a person's."""
_THIRD_VERB = (r"\s+(?=(?:just|also|really|still|now|recently|finally|is|has|was|got|moved|used|"
               r"no longer|does|sold|quit|left|gave|lost|broke|took|became|split|went|had|did|began|came|bought|made|"
               r"won|met|ran|found|fell|kept|[a-z]+s|[a-z]{2,}ed)\b)")
THIRD_NAME = re.compile(  # "Bob works ...": a capitalised word followed by a third-person verb
    r"(?P<name>[A-ZÀ-Þ][a-zà-ÿ'-]+)(?P<from> from " + KNOWN_FROM + r")?"
    r"(?:\s*\([A-ZÀ-Þ][\w'-]+\))?" + _THIRD_VERB
)
KNOWN_LOWER = re.compile(r"(?P<name>[a-zà-ÿ][a-zà-ÿ'-]+)" + _THIRD_VERB)
"""A name written lower case before a third-person verb ("alex has gone vegan"): a person's only when the name is
already known as one."""
PRONOUN = re.compile(r"(?:she|he|they)\s+", _I)
THIRD_TITLE = re.compile(r"(?P<title>Uncle|Aunt|Auntie|Cousin|Grandma|Grandpa|Granny|Grandad|Nan|Brother|Sister|"
                         r"Boyfriend|Girlfriend|Husband|Wife|Partner) (?P<name>[A-ZÀ-Þ][a-zà-ÿ'-]+)\s+")
SHARED_NAME = re.compile(r"(?:[Mm]y|[Oo]ur) (?P<a>" + RELS + r") and (?:[Mm]y|[Oo]ur) (?P<b>" + RELS + r") are "
                         r"(?:both |each )?(?:called|named) (?P<name>[A-ZÀ-Þ][\w'-]+)")
THIRD_BARE = re.compile(r"(?P<rel>" + RELS + r")\s+(?=(?:is|has|was|just|also|still)\b)", _I)


def rel_word(rel: str) -> str:
    """A relation as the extractor names it: "gf" -> "girlfriend", "mum" -> "mom", "best mate" -> "best friend",
    "16 year old" -> "child". One spelling per relation, so a store that holds "mom" facts does not split
    the same person in two when the user writes "mum"."""
    rel = " ".join(rel.lower().split())
    if rel[:1].isdigit():  # "my 16 year old (Ethan)": a child told by their age
        return "child"
    rel = REL_ALIASES.get(rel, rel)
    head = rel.rsplit(" ", 1)[-1]
    if head in REL_ALIASES:
        rel = rel[: -len(head)] + REL_ALIASES[head]
    return BRITISH.get(rel, rel)
