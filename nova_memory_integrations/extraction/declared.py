"""What the application declared it cares about, read where the extractor's rules do not reach.

An application declares predicates (``NovaStore(schema=[Predicate("goal", many=True)])``,
``facts.predicates``). The rules of :mod:`.deterministic` know a fixed set of relations; a
declared one they do not know ("My goal is to run a marathon") would never be read. This reader
adds the one shape any declared name or synonym takes in first-person speech, "my <name> is
<value>" / "my <name>s are <a>, <b> and <c>", as a candidate fact of that predicate (a ``many``
predicate gets one per listed value). Mapping what the rules read onto the declared names
(``takes_medication`` -> ``medication``) is not done here: the fact layer does it for every
source (``FactConfig.canonical``), the model's too.

:class:`DeclaredReader` wraps an extractor and keeps its interface, so consolidation uses it
where it used the extractor. Pure: regular expressions built once per schema.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..config import Predicate, predicate_key
from ..text.roles import MACHINE_ROLES, is_named_speaker
from ..types import Episode
from .base import CandidateFact

__all__ = ["DeclaredReader", "declared_facts"]

_VALUE_END = re.compile(r"\s*(?:[.;!?](?=\s|$)|\n|\b(?:because|but|since|so that|although)\b)", re.IGNORECASE)
"""Where a value ends: a sentence's end (not the point of "72.5"), a line's, or a clause giving a reason."""
_LIST = re.compile(r"\s*(?:,\s*(?:and\s+)?|\band\b)\s*", re.IGNORECASE)
_CONFIDENCE = 0.7
"""A declared shape is generic: a little below the rules' default (0.8)."""


def _pattern(predicates: Sequence[Predicate]) -> tuple[re.Pattern[str], dict[str, Predicate]] | None:
    """One pattern for every declared spelling and its plurals, and which predicate each spelling is."""
    owner: dict[str, Predicate] = {}
    for p in predicates:
        for key in p.keys:
            word = key.replace("_", " ")
            for form in (word, word + "s", word + "es", word[:-1] + "ies" if word.endswith("y") else word):
                owner.setdefault(form, p)
    if not owner:
        return None
    words = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(owner, key=len, reverse=True))
    return re.compile(rf"\bmy\s+(?:(?:current|main|new|daily|only)\s+)?(?P<word>{words})\s*(?::|\bis\b|\bare\b)"
                      r"\s*(?P<value>[^\n]+?)(?=[.;!?](?:\s|$)|\n|$)", re.IGNORECASE), owner


def declared_facts(text: str, predicates: Sequence[Predicate], *, role: str = "user") -> list[CandidateFact]:
    """Candidate facts of the declared ``predicates`` that ``text`` states in the shape "my <name> is
    <value>" (a person's turn only; ``many`` predicates: one per value of a list)."""
    built = _pattern(predicates)
    if built is None or role in MACHINE_ROLES:
        return []
    pattern, owner = built
    out: list[CandidateFact] = []
    for m in pattern.finditer(text):
        pred = owner[" ".join(m.group("word").casefold().split())]
        raw = _VALUE_END.split(m.group("value"), maxsplit=1)[0].strip(" ,:")
        values = [v for v in (_LIST.split(raw) if pred.many else [raw]) if v.strip()]
        for value in values:
            value = re.sub(r"^(?:to|a|an|the)\s+", "", value.strip(), flags=re.IGNORECASE)
            if value:
                out.append(CandidateFact("user", predicate_key(pred.name), value, confidence=_CONFIDENCE,
                                         source_text=m.group(0).strip()))
    return out


class DeclaredReader:
    """An extractor plus :func:`declared_facts`: the same ``extract`` / ``extract_batch``, with the
    declared facts the inner one did not already propose appended to each turn's."""

    def __init__(self, inner: Any, predicates: Sequence[Predicate]) -> None:
        self.inner = inner
        self.predicates = tuple(predicates)

    def _merge(self, found: list[CandidateFact], text: str, role: str) -> list[CandidateFact]:
        seen = {(c.subject, c.predicate, c.object.casefold()) for c in found}
        extra = [c for c in declared_facts(text, self.predicates, role=role)
                 if (c.subject, c.predicate, c.object.casefold()) not in seen]
        if is_named_speaker(role):
            extra = [replace(c, subject=role) for c in extra]
        return found + extra

    def extract(self, text: str, *, role: str = "user", timestamp: datetime | None = None) -> list[CandidateFact]:
        """The inner extractor's candidates, then the declared ones it missed."""
        return self._merge(list(self.inner.extract(text, role=role, timestamp=timestamp)), text, role)

    def extract_batch(self, episodes: Sequence[Episode]) -> list[list[CandidateFact]]:
        """Per episode, as the inner extractor's ``extract_batch``, with the declared ones it missed."""
        return [self._merge(list(found), e.content, e.role)
                for e, found in zip(episodes, self.inner.extract_batch(episodes))]
