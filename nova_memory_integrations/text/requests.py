"""Explicit requests to remember: "remember that ...", "never forget this", "please note: ...".

A user who asks the assistant to keep something is telling it what matters; the turn is recorded
as an *explicit* memory (:mod:`..memory.importance`) and the request itself is not part of what
is to be remembered: the extractor reads the statement without it (:func:`without_requests`), so
"I have a severe allergy to shellfish, never forget this" is a fact about shellfish, not one whose
object is "never forget this". Pure: no state, English only.
"""

from __future__ import annotations

import re

__all__ = ["REQUEST", "asks_to_remember", "without_requests"]

_POLITE = r"(?:(?:please|pls|and|so|but|also|just|oh|ok|okay)[,]?\s+)*"
_FORGET = r"(?:never|don'?t|do\s+not|dont|please\s+don'?t)\s+forget"
_KEEP = (r"(?:remember|memori[sz]e|keep\s+in\s+mind|make\s+a\s+note(?:\s+of)?|take\s+note(?:\s+of)?|note\s+down"
         r"|bear\s+in\s+mind)")
_ABOUT = r"(?:\s+(?:this|that|it|these|those))?(?:\s+(?:about\s+me|for\s+me|for\s+later|for\s+the\s+future))?"
_TAIL = re.compile(
    rf"(?:\s*[,;:\u2013\u2014-]\s*|\s+(?=(?:please|so|and)\s))\b{_POLITE}(?:{_FORGET}|(?:you\s+)?(?:should|must|need\s+to|have\s+to)\s+{_KEEP}|{_KEEP}){_ABOUT}"
    r"(?:\s+(?:forever|always|please|okay|ok))?\s*[.!]*\s*$",
    re.IGNORECASE,
)
"""A request closing a sentence after a comma, a dash or "please" / "so" / "and": "..., never forget
this", "... - please remember that!" ("I'll always remember that" is a statement, not a request)."""
_HEAD = re.compile(
    rf"^\s*{_POLITE}(?:(?:can|could|will|would)\s+you\s+)?(?:{_FORGET}|{_KEEP}|note|fyi|for\s+the\s+record)"
    r"(?:\s+(?:this|that|it))?(?:\s+about\s+me)?(?:\s+(?:for\s+me|forever|always))?\s*(?:[:,-]\s*|\s+that\s+|\s+(?=i\b|my\b))",
    re.IGNORECASE,
)
"""A request opening a sentence: "Remember that ...", "Please never forget: ...", "Note: ...".

``note`` / ``fyi`` alone count only with a colon or comma after them ("Note: my ..."), handled
by the punctuation alternative; "Remember I ..." counts too."""
REQUEST = re.compile(rf"{_HEAD.pattern}|{_TAIL.pattern}", re.IGNORECASE | re.MULTILINE)
"""Either form, anywhere a sentence starts or ends."""
_BARE = re.compile(rf"^\s*{_POLITE}(?:{_FORGET}|{_KEEP}){_ABOUT}\s*[.!]*\s*$", re.IGNORECASE)
"""A turn that is only the request ("Remember that!")."""
_QUESTION = re.compile(r"\b(?:do|did|can|could|will|would)\s+you\s+(?:still\s+)?(?:remember|recall)\b.*\?\s*$",
                       re.IGNORECASE | re.DOTALL)
""""Do you remember what I said?" asks about memory; it asks nothing to be kept."""


def asks_to_remember(text: str) -> bool:
    """Whether ``text`` asks the listener to remember something it states (or just stated)."""
    if not text or _QUESTION.search(text):
        return False
    return bool(_BARE.match(text)) or any(_TAIL.search(s) or (_HEAD.search(s) and not _asks(s))
                                          for s in _sentences(text))


def without_requests(text: str) -> str:
    """``text`` without its requests to remember, what it states kept as written.

    "I have a severe allergy to shellfish, never forget this" -> "I have a severe allergy to
    shellfish"; "Remember that I prefer Portuguese." -> "I prefer Portuguese."; a turn that is
    only a request -> "".
    """
    if not text or _QUESTION.search(text):
        return text
    if _BARE.match(text):
        return ""
    out = []
    for sentence in _sentences(text):
        cut = _TAIL.sub("", sentence if _asks(sentence) else _HEAD.sub("", sentence, count=1), count=1)
        if cut != sentence and cut and cut[0].islower() and sentence[:1].isupper():
            cut = cut[0].upper() + cut[1:]
        if cut.strip():
            end = sentence[len(sentence.rstrip()):]
            out.append(cut.rstrip() + ("" if cut.rstrip()[-1:] in ".!?" or cut == sentence else ".") + end)
    return "".join(out).strip() if out else ""


_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)\s*")


def _asks(sentence: str) -> bool:
    """A question ("Remember that trip to Rome?") recalls; it asks nothing to be kept."""
    return sentence.rstrip().endswith("?")


def _sentences(text: str) -> list[str]:
    """``text`` cut after each ``.``, ``!``, ``?`` or newline, the spacing kept with each piece."""
    return [m.group(0) for m in _SENTENCE.finditer(text) if m.group(0).strip()]
