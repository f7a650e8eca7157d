"""A birth told in everyday words (pure): "Laura had the baby!! A little girl, Isla", "JESS HAD THE BABY".

A birth ends the mother's pregnancy (her held facts naming :data:`PREGNANCY_WORDS`) and, when the message
names the baby ("a little girl called Ava", "a little girl, Isla,", "two girls, Zara and Inaya"), tells her
child of that name from the birth (``daughter_name`` / ``son_name`` / ``child_name``, as the extractor names
a relative).

Whose birth (:func:`births`): the person whose name, or whose relation to the user ("my sister"), is said
right before the verb; a pronoun or no subject means the one person the store holds a pregnancy of. "I" /
"we" mean the user, or the user's partner when only she is held pregnant. Nothing is ended without a held
pregnancy (a story of an earlier birth), and nothing is read in a question, a plan or a possibility ("when
she has the baby", "she could have the baby any day").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..types import Fact
from .guards import POSSIBLE
from .planner import Ending
from .replacements import NewValue
from .segments import segment

__all__ = ["BIRTH", "PREGNANCY_WORDS", "Birth", "births", "may_tell_a_birth"]

_I = re.IGNORECASE
BIRTH = re.compile(
    r"\b(?:had|has had|'s had|gave birth to|delivered|welcomed)\s+(?:(?:the|her|a|their|our|my|his)\s+)?"
    r"(?:(?:new|little|beautiful|healthy|baby|twin)\s+)*(?:baby|twins|boy|girl|son|daughter)\b(?!\s+shower)"
    r"|\bgave birth\b|\bbaby (?:is|was|has) (?:here|born|arrived)\b|\bbaby arrived\b", _I)
"""A birth told as done ("had the baby", "gave birth to a little boy", "the baby arrived")."""
PREGNANCY_WORDS = ("pregnan", "expecting")
"""What a held fact of a pregnancy names (a stem: "pregnant", "pregnancy")."""
_NOT_YET = re.compile(r"\bwhen\b|\bonce\b|\bif\b|\bany day\b", _I)
"""Words that put a birth ahead besides a modal or a future marker (:data:`.guards.POSSIBLE`): "once she's here"."""
_BABY_NAME = re.compile(
    r"\b(?:a|the|two|twin|little|baby|gorgeous|beautiful|healthy|tiny|\s)+(?P<kind>girls?|boys?|daughters?|sons?)\b"
    r"(?:,|\s+called|\s+named|\s*\(|\s*[-—–:])\s*(?P<names>(?-i:[A-Z])[a-z]+(?:\s+and\s+(?-i:[A-Z])[a-z]+)?)", _I)
_PRONOUN_OR_NONE = re.compile(r"(?:^|\b(?:she|they|she's|they've|he|he's))\s*$", _I)
_PARTNERS = ("wife", "girlfriend", "partner", "fiancee", "fiancée")


@dataclass(frozen=True)
class Birth:
    """What one birth changes: the pregnancy facts it ends and the children it tells."""

    endings: tuple[Ending, ...]
    children: tuple[NewValue, ...]


def may_tell_a_birth(text: str) -> bool:
    """Cheap test: whether ``text`` may tell a birth (only then are facts read)."""
    return BIRTH.search(text) is not None


def _pregnant(facts: Sequence[Fact]) -> dict[str, list[Fact]]:
    out: dict[str, list[Fact]] = {}
    for f in facts:
        if f.valid_to is None and any(w in f.object.lower() for w in PREGNANCY_WORDS):
            out.setdefault(f.subject, []).append(f)
    return out


def _mother(before: str, pregnant: dict[str, list[Fact]], facts: Sequence[Fact]) -> str | None:
    """Who the words ``before`` the birth verb (in its sentence) name, among the people held pregnant."""
    low = before.lower()
    for subject in pregnant:
        if re.search(rf"\b{re.escape(subject)}\b", low):
            return subject
        for f in facts:  # "my sister had the baby": the relation the user named her by
            if f.subject == "user" and f.predicate.endswith("_name") and f.object.lower() == subject:
                rel = f.predicate.removesuffix("_name").replace("_", " ")
                if re.search(rf"\b{re.escape(rel)}\b", low):
                    return subject
    if re.search(r"\b(?:i|we|i've|we've)\s*$", low):
        if "user" in pregnant:
            return "user"
        partners = {f.object.lower() for f in facts if f.subject == "user" and f.predicate.removesuffix("_name")
                    in _PARTNERS}
        held = [s for s in pregnant if s in partners]
        return held[0] if len(held) == 1 else None
    if _PRONOUN_OR_NONE.search(low) and len(pregnant) == 1:
        return next(iter(pregnant))
    return None


def births(text: str, facts: Sequence[Fact], at: datetime) -> Birth | None:
    """The birth ``text`` tells, if any, given the ``facts`` held at ``at`` (see the module docstring)."""
    pregnant = _pregnant(facts)
    if not pregnant:
        return None
    for sentence, m in [(s, m) for s in segment(text) for m in BIRTH.finditer(text, s.start, s.end)]:
        if "?" in text[m.end():sentence.end] or POSSIBLE.search(text, sentence.start, m.start()) \
                or _NOT_YET.search(text, sentence.start, m.start()):
            continue
        mother = _mother(text[sentence.start:m.start()], pregnant, facts)
        if mother is None:
            continue
        endings = tuple(Ending(f, at, "birth", f"{mother} gave birth") for f in pregnant[mother])
        children: list[NewValue] = []
        named = _BABY_NAME.search(text, m.start(), min(len(text), m.end() + 120))
        if named is not None:
            kind = named.group("kind").lower().rstrip("s")
            relation = {"girl": "daughter", "daughter": "daughter", "boy": "son", "son": "son"}.get(kind, "child")
            for name in re.split(r"\s+and\s+", named.group("names")):
                children.append(NewValue(None, name, at, "birth", subject=mother, predicate=f"{relation}_name"))
        return Birth(endings, tuple(children))
    return None
