"""Corrections by contrast (pure): a held value put against another of its kind in a message that owns a mistake.

The correction cues of :mod:`.corrections` read how people *say* they were wrong ("actually", "I meant", "not
X"); people own a mistake in more ways than any list ("I always mix the two up", "scratch what I said about
Lebara", "just dug out the bill and it turns out", "*John"). What stays the same is the structure: the message
names a value the store holds (X) and another value of the same kind (Y), and says somewhere that something
was wrong. Read by class:

* **two known names of one kind** (:mod:`~nova_memory_integrations.text.known_names`): X's kind is read from the
  held value ("Disney+": streaming), Y is the one other name of that kind in the message ("Paramount+");
* **a typo marked with an asterisk** ("*John", the texting convention): Y differs from a word of X by one or two
  letters and starts with the same one;

and the message owns a mistake (:data:`MISTAKE`): "wrong", "mixed up", "muddle", "misread", "did I say", "I
said", "I meant", "scratch that", "turns out", "not actually", "brain fart", "typo", "my bad", a "*" before a
word, or it denies X by name ("it was Paramount+ I subscribed to, *not Disney*"). Never when the message also
tells a change of that value ("switched from EDF to Octopus"): the change layer reads that. Precision first:
one Y, or nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..text.known_names import NameHit, find_names, value_names
from .corrections import Correction, substitute
from .segments import words
from .targets import FactInfo, _stem, name_evidence

__all__ = ["MISTAKE", "contrasted", "may_contrast", "owns_a_mistake"]

_I = re.IGNORECASE
MISTAKE = re.compile(
    r"\b(?:(?:got|had) (?:that|it|this) (?:wrong|mixed up)|wrong(?:ly)?|mix(?:ed|ing)? (?:(?:them|those|the two|it|"
    r"these|that|the names?) )?up|muddle[ds]?(?: up)?|confus(?:ed|ing)|misread|mis(?:spoke|typed|remembered|"
    r"heard)|typo|brain ?fart|I meant|meant to (?:say|write|type)|(?:did|have) I (?:say|said|write|wrote|put|call)|"
    r"I (?:said|wrote|typed|put|told you|called it)|scratch (?:that|what)|turns out|not actually|to be accurate|"
    r"correct(?:ion| myself| something| that)|my bad|oops|autocorrect(?:ed)?|on autopilot)\b"
    r"|(?:^|\s)\*(?=[A-Za-z])|\bnot (?:a |an |the )?(?-i:[A-Z])", _I)
"""A message that may own a mistake, in any of the ways above, or deny a name ("..., not Disney"): a denied name
counts only when it is the held value's (:func:`_by_kind`)."""
_DENIED = r"\bnot (?:a |an |the )?{x}\b"
_STAR = re.compile(r"(?:^|\s)\*(?P<y>[A-Za-z][\w'-]*)")
_CHANGE = re.compile(r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|chang(?:ed|ing)|swapp?(?:ed|ing)?|ported|left|"
                     r"joined|replaced|upgraded|traded)\b", _I)


def owns_a_mistake(text: str) -> bool:
    """Whether ``text`` says something was wrong (the cheap test run before any fact is read)."""
    return MISTAKE.search(text) is not None


def may_contrast(text: str) -> bool:
    """Whether ``text`` may correct by contrast at all (the test run before any fact is read): it owns a mistake
    and has something to put against a held value, a known name or a "*" respelling (:func:`contrasted` finds
    nothing without one)."""
    return owns_a_mistake(text) and (_STAR.search(text) is not None or bool(find_names(text)))


def contrasted(text: str, infos: Sequence[FactInfo]) -> list[Correction]:
    """The corrections ``text`` makes by contrast among the held facts ``infos`` (see the module): each held fact
    named by X, retracted for Y in X's place."""
    if not owns_a_mistake(text):
        return []
    out: list[Correction] = []
    names = find_names(text)
    for info in infos:
        found = _by_kind(info, text, names) or _by_typo(info, text)
        if found is not None:
            x, y = found
            named = {_stem(w.text) for w in words(x)}
            obj = substitute(info.fact.object, named & info.names or named, y)
            if obj.strip() and obj.lower() != info.fact.object.lower():
                out.append(Correction(info, obj, "contrast"))
    return out


def _by_kind(info: FactInfo, text: str, names: Sequence[NameHit]) -> tuple[str, str] | None:
    """``(X, Y)``: the held value's known name named in ``text`` and the one other name of its kind there."""
    kinds = {k for h in value_names(info.fact.object) for k in h.kinds}
    if not kinds:
        return None
    xs = [h for h in names if name_evidence(info, words(h.text)) >= 0.8]
    ys = {h.text.lower(): h for h in names if set(h.kinds) & kinds and not name_evidence(info, words(h.text)) > 0}
    if not xs or len(ys) != 1:
        return None
    y = next(iter(ys.values()))
    if _CHANGE.search(text):  # "switched from EDF to Octopus, I always mix them up": a change, told as one
        return None
    denied = re.search(_DENIED.format(x=re.escape(xs[0].text)), text, _I)
    if not denied and not MISTAKE.search(re.sub(r"\bnot (?:a |an |the )?[A-Z][\w'&+.-]*", "", text)):
        return None  # only another name denied: "it's Gousto, not Tesco" of a held HelloFresh says nothing of it
    return xs[0].text, y.text


def _by_typo(info: FactInfo, text: str) -> tuple[str, str] | None:
    """``(X, Y)``: a word of the held value that ``*Y`` respells (one or two letters off, the same first one)."""
    for m in _STAR.finditer(text):
        y = m.group("y")
        for w in words(info.fact.object):
            if w.low != y.lower() and w.low[:1] == y[:1].lower() and len(w.low) >= 3 and _edits(w.low, y.lower()) <= 2:
                return w.text, y
    return None


def _edits(a: str, b: str) -> int:
    """The Levenshtein distance of two short words."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]
