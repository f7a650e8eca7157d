"""Where someone lives, told in passing (pure): "my flat in Hackney", "near me in Clapham", "i live in ancoats".

A home is rarely asserted as "I live in X" with a capital; it shows in a dwelling put at a place ("our house in
Bracknell", "Marcus's flat in Peckham", "Mum's still in the house in Swansea"), in "here" / "near me" put at a
place ("brunch near me in Clapham", "here in Toronto"), in a commute from a place, or in "live in" typed in
lower case. Each frame names whose home it is (the speaker's, or the person whose dwelling it is) and the
place: the capitalised words after it, or, after "live(s) in", up to three lower-case words up to a boundary.
The same filters as :mod:`.named_states` hold: a hypothetical, a wish, a plan, a memory or a change cue in the
sentence leaves it to the change layer, and a place is never a word of every sentence.
"""

from __future__ import annotations

import re

from ..text.dates import CALENDAR_NAMES
from ..text.known_names import find_names
from ..text.lexicon import DWELLINGS, RELS
from .cues import cued_sentences
from .lexicon import STOPWORDS, negates
from .named_states import NOT_HOLDING
from .segments import Sentence, normalize_text, segment
from .states import OpenState

__all__ = ["LIVES_IN", "place_states"]

LIVES_IN = "lives_in"
"""The predicate of a home (single-valued: a new home ends the old one)."""

_DWELLING = r"(?:" + "|".join(sorted((d for d in DWELLINGS if "-" not in d), key=len, reverse=True)) + r")"
_PLACE = r"(?P<place>(?:[A-Z][\w'-]+)(?:[ -](?:[A-Z][\w'-]+|upon|on|under|le)(?=[ -][A-Z]|$|\W))*(?:, [A-Z][\w'-]+)?)"
"""A place's capitalised words ("Hackney", "Newcastle upon Tyne", "Portland, Oregon")."""
_LOWER_PLACE = (r"(?P<place>[a-z][\w'-]+(?: [a-z][\w'-]+){0,2}?)(?=\s*(?:[,.!?;:)]|$|\s(?:and|but|so|with|for|now|"
                r"since|at|near|where|which|because|cos|lol|tbh|though)\b))")
_OWNER = r"(?P<owner>(?i:my|our)|(?i:my|our)\s+(?P<rel>" + RELS + r")(?:\s+(?P<relname>[A-Z][a-z]+))?'s|" \
         r"(?P<name>[A-Z][a-z]+)'s)"
_FRAMES = (
    # "my flat in Hackney", "our house on Elm Road in Didsbury", "Marcus's flat in Peckham"
    re.compile(r"\b" + _OWNER + r"\s+(?:(?:little|new|old|rented|own|tiny|shared|current|family|[\w-]+-bed(?:room)?)"
               r"\s+)*" + _DWELLING + r"\b(?:\s+on\s+[A-Z][\w' ]+?)?\s+in\s+" + _PLACE),
    # "near me in Clapham", "here in Toronto", "round here in Leeds"
    re.compile(r"\b(?i:near me|near us|here|round here|around here|where I live|locally|local to me)\s+in\s+"
               + _PLACE),
    # "the commute from Croydon", "my commute in from Reading"
    re.compile(r"\b(?i:my|our|the) (?i:daily )?(?i:commute) (?:in )?from\s+" + _PLACE),
    # "i live in ancoats", "we live in portland" (typed in lower case: the rules read only capitals)
    re.compile(r"\b(?:i|we)\s+(?:(?:still|now|currently|both)\s+)?live\s+in\s+(?:the\s+)?" + _LOWER_PLACE),
)
_NOT_A_PLACE = STOPWORDS | frozenset("the a an my our town city centre center area village country countryside "
                                     "suburbs middle same".split())


def place_states(text: str) -> list[OpenState]:
    """The homes ``text`` tells in passing (see the module docstring), each as an :class:`OpenState` under
    :data:`LIVES_IN` whose subject is ``"user"`` or the person whose dwelling it is."""
    norm = normalize_text(text)
    if " in " not in norm and " from " not in norm:
        return []
    sentences = segment(norm)
    cued = cued_sentences(norm, sentences)
    out: list[OpenState] = []
    for i, sentence in enumerate(sentences):
        if i in cued or NOT_HOLDING.search(sentence.text):
            continue
        for frame in _FRAMES:
            for m in frame.finditer(sentence.text):
                place = m.group("place").strip(" ,")
                if place.lower() in _NOT_A_PLACE or place.split()[0].lower() in _NOT_A_PLACE:
                    continue
                if negates(sentence.text[: m.start()].lower().split()[-4:]):
                    continue
                groups = m.groupdict()
                whose = "user"
                if groups.get("name"):
                    whose = groups["name"].lower()
                elif groups.get("rel"):
                    whose = (groups.get("relname") or groups["rel"]).lower()
                if not any(o.subject == whose and o.value == place for o in out):
                    out.append(OpenState(whose, place, sentence.text.strip(), predicate=LIVES_IN))
    if not any(o.subject == "user" for o in out):
        out += _here(norm, sentences, cued)
    return out


_HERE = re.compile(r"\b(?:I|we)(?:'ve| have)\s+(?:(?:lived|been living|been)\s+here|lived\s+(?:round|around)\s+here)\b"
                   r"|\b(?:I|we)\s+(?:live|moved)\s+(?:here|round here|around here)\b", re.IGNORECASE)
"""A home told as "here" ("I've lived here 5 years"): the place the message names is the speaker's home."""
_NAMED_PLACE = re.compile(r"\b(?:in|from|around|near|of|to|or|and) " + _PLACE)
_NOT_PLACE_WORDS = CALENDAR_NAMES | {"i"}


def _here(norm: str, sentences: list[Sentence], cued: set[int]) -> list[OpenState]:
    """The speaker's home told as "here", at the one place the message names after "in" / "from" ("What's on in
    Norwich this weekend? I've lived here 5 years"); none when it names none or several."""
    said = [(i, m) for i, s in enumerate(sentences) if i not in cued and not NOT_HOLDING.search(s.text)
            for m in _HERE.finditer(s.text) if not negates(s.text[: m.start()].lower().split()[-4:])]
    if not said:
        return []
    places = {m.group("place").strip(" ,") for m in _NAMED_PLACE.finditer(norm)}
    places = {p for p in places if p.split()[0].lower() not in _NOT_PLACE_WORDS | _NOT_A_PLACE
              and all(set(h.kinds) <= {"team"} for h in find_names(p))}  # a town is often a team's name too
    if len(places) != 1:
        return []
    return [OpenState("user", places.pop(), sentences[said[0][0]].text.strip(), predicate=LIVES_IN)]
