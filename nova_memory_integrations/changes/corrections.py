"""Corrections (pure): "I said Paris — I actually moved to Lyon, not Paris" retracts Paris as never true.

A correction needs three things in one window (the sentence of a correction cue and the next one):

1. a cue (:data:`~.lexicon.CORRECTION_CUES`: "actually", "I meant", "sorry, it's", "I misspoke",
   "wait no", "typo", "I said X before", ...); a bare "Y, not X" counts only in a copular statement
   ("it's Y, not X", "I'm in Y, not X");
2. the old value X: a current fact named in the window (after "not", after "I said", or by its
   words), else the one fact whose predicate the window names ("my allergy is ..." -> ``allergic_to``);
3. the new value Y: from "Y, not X", "not X, it's Y", "name's Y", "I meant Y" or "it's / I'm / she's
   (at|in) Y" after X.

The new object is X's object with the named part replaced by Y ("Anytime Fitness" -> "Snap Fitness",
"border collie named Ziggy" -> "kelpie named Ziggy"). Applying it (:func:`~..memory.temporal.plan_retraction`)
retracts X's versions and lets Y hold from X's start.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .cues import CorrectionHit
from .lexicon import SAME_NOUNS, STOPWORDS
from .segments import Sentence, words
from .targets import FactInfo, _stem, name_evidence

__all__ = ["Correction", "find_corrections", "new_value", "says_corrected", "substitute"]

_I = re.IGNORECASE
_NOT = re.compile(r"\s*[,—-]\s*not\s+(?:a |an |the |my )?(?P<x>[\w'&+.-]+(?: [\w'&+.-]+){0,2}?)(?=\s*(?:[.,;!?—:)-]|$|"
                  r"\s(?:but|and|because|as|lol|haha|either|it's|I|though)\b))", _I)
_NOT_FIRST = re.compile(r"\bnot\s+(?:a |an |the )?(?P<x>[\w'&+.-]+(?: [\w'&+.-]+){0,2}?)(?:\s+(?:btw|sorry|lol|though|"
                        r"tho|actually))?\s*[,;—-]+\s*(?:(?:it's|it is|but|I'm|we're|he's|she's)\s+(?:actually\s+)?"
                        r"(?:in |at |a |an |the )?(?P<y>[^.;!?]+)|(?P<z>(?-i:[A-Z])[\w'&+-]*(?: (?-i:[A-Z])[\w'&+-]*)?)"
                        r"\s*[.!]|(?P<w>(?-i:[A-Z])[\w'&+-]*(?: (?-i:[A-Z])[\w'&+-]*)?)\s*$)", _I)
"""The value denied first and the one told after it: "not Anytime Fitness btw, it's Snap Fitness", "Not Bath — Wells."
"""
_SAID = re.compile(r"\b(?:what )?(?:I|did I) (?:said|say|wrote|write|typed|type|put|told you|mentioned|"
                   r"called (?:it|him|her)|"
                   r"was (?:only |just )?"
                   r"(?:winding you up|kidding|joking|pulling your leg|having you on|lying|exaggerating))"
                   r"(?:\s+(?:about|re|with|over))?\s+(?:(?:it|that|he|she|they|I|we)(?:'s|'d| was| is| were| had)\s+|"
                   r"(?:I'm|we're)\s+)?(?:(?:a|an|the|that|my|our)\s+)?(?P<x>[\w'&+.-]+(?: [\w'&+.-]+){0,2}?)"
                   r"(?:\s+(?:thing|bit|stuff|one))?(?:\s+(?:for|about|as|re|with)\s+[^,.;—!?]{0,40}?)?"
                   r"(?=\s+(?:(?:before|earlier|last time|the other day|by mistake|but)\b|[—-])|\s*[^\w\s'&+.-]|\s*$)",
                   _I)
"""The speaker's own earlier saying and the value it named: "I said Paris", "I told you it was a Civic", "I told you
Tuesday for the class but", "I was winding you up with the Everton thing", "what I said about the Golf"."""
_NAMES = re.compile(r"\b(?P<y>[A-Za-z][\w'&+.-]+)[*!]{0,4} not (?P<x>[A-Za-z][\w'&+.-]+)\b")
"""Two names put against each other ("it's Jack not Jake", "called Ewan not ethan", "violin*** not viola": either
as typed; the denied one must name a held value)."""
_CAPITALS_BEFORE = re.compile(r"(?<![.!?]\s)(?<!^)\b(?:(?-i:[A-Z])[\w&'-]*\s+){1,2}$")
"""Capitalised words right before a name put against another: its first words ("*BAE* Systems not Rolls-Royce"),
never a sentence's first word."""
_ECHO = re.compile(r"^\W*(?:(?:sorry|no+|nope|oops|wait|ugh|argh|ok|okay|oh|doh|damn|my bad|i mean)\W+)*"
                   r"(?P<y>[A-Za-z][\w'&+.-]*(?: [A-Z][\w'&+.-]*){0,2})\W*$", _I)
"""A sentence that is only a name, maybe after an interjection ("Hastings!", "sorry, Santander."): the Y a bare
"Not X." that follows it puts against X."""
_DOUBT = re.compile(r"\W*(?:(?:wait|hang on|hold on|sorry|oh|um|erm)\W+)*did I (?:just )?(?:say|write|type|put)\b", _I)
"""A question of the speaker's own words ("Did I say I grew up in Swansea?"): the X a correction after it puts right."""
_NAME_IS = re.compile(r"\bname(?:'s| is)\s+(?P<y>[^.;!?]+)", _I)
_MEANT = re.compile(r"\bI meant\s+(?P<y>[^.;!?]+)|\bmy (?P<n>[\w-]+(?: [\w-]+)?)(?:'s| is| are| was) "
                    r"(?:actually |really )?"
                    r"(?:to |in |at |with |for |a |an |the )?(?P<z>[^.;!?—]+)", _I)
_LEAD = re.compile(r"\b(?:it's|it is|i'm|i am|we're|we are|he's|she's|they're|he is|she is|is|are|was|have|has|got|"
                   r"at|in|for|"
                   r"to|with|a|an|the|meant|mean|said|called|named)\b|'s\b|[:—,-]", _I)
_AFTER = re.compile(r"\b(?:it's|it is|I'm|I am|we're|we are|he's|she's|they're|he is|she is|is|(?:live|lives|living|"
                    r"work|works|working|study|studies|moved|drive|drives))\s+(?:actually\s+)?"
                    r"(?:in |at |with |for |to |a |an |the )?(?P<y>[^.;!?—]+)", _I)
_COPULAR = re.compile(r"\b(?:it's|it is|i'm|i am|we're|he's|she's|they're|is|are|'s)\b[^.;!?]{0,40},?\s+not\s", _I)
_CUT = re.compile(r"\s*(?:[.,;!?()—:\"]|\s-\s|\bnot\b|\bbut\b|\band\b|\bbecause\b|\bso\b|\bwhich\b|\bwho\b|\bthat\b|"
                  r"\bactually\b|\bearlier\b|\bbefore\b|\blast time\b|\bthe other day\b|\blol\b|\bhaha\b|\bbtw\b|"
                  r"\bthough\b|\bnow\b|\bthen\b|\bhere\b|\bthere\b|\bthe same\b|\bagain\b)", _I)
_STRIP = re.compile(r"^(?:actually|really|just|a|an|the|to|in|at|for|with|on|my|our|fully|totally|completely|"
                    r"strictly|properly|definitely|called|named)\s+", _I)
_FILLER_TAIL = re.compile(r"(?:[\s,]+(?:by the way|btw|fyi|though|anyway|lol|haha|then|too|again|obviously|honestly|"
                          r"really|actually))+\s*$", _I)
"""Discourse words at the end of "Y by the way, not X": not the value."""
_OPENING = re.compile(r"\W*(?:(?:wait|sorry|oh|no+|nope|ugh|oops|ok|okay|so|and)\W+)*", _I)
"""Interjections a sentence may open with before what it says ("wait, no, not Bath - Wells")."""
_OVER = re.compile(r"\b(?:anymore|any more|no more|no longer)\b|^\W*not\s+\w+ing\b", _I)
"""A denial that tells an ending, not a mistake ("Not doing French anymore")."""
_NOT_ALONE = re.compile(r"^\W*not (?:a |an |the |my )?(?P<x>[\w'&+.-]+(?: [\w'&+.-]+){0,2}?)\s*[.!,;]", _I)
"""A sentence that is only a contrastive negation ("I play clarinet! *Not oboe.*"): X denied, Y in the sentence
before."""
_STATE_CLAUSE = re.compile(r"\b(?:I|we)(?:'m|'re| am| are| play| drive| work| live| study| have| own| ride| support| "
                           r"use| take| do| keep)\s+(?:(?:in|at|for|with|a|an|the|on)\s+)?(?P<y>[^.;!?]+)", _I)
"""A present state of the speaker's ("I'm in Leeds", "I play clarinet"): the value a bare "Not X." corrects."""
_NUMBER = re.compile(r"^(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)$", _I)


_NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
            "sixteen seventeen eighteen nineteen twenty").split()
_NUM = r"(?:\d+|" + "|".join(_NUMBERS) + ")"
_BARE_NOT = re.compile(r"\b(?P<y>" + _NUM + r"(?: [\w-]+)?)\s+not\s+(?P<x>" + _NUM + r"(?: [\w-]+)?)\b"
                       r"|\b(?:a|an)\s+(?P<ky>[\w-]+(?: [\w-]+)?)\s+not\s+(?:a|an)\s+(?P<kx>[\w-]+)\b", _I)
"""Without a comma: "two kids not three", "a cocker spaniel not a labrador" (both sides of one form)."""


_PERSON_IS = r"\b(?:I'm|I am|he's|she's|he is|she is|we're|they're|turned|turning|aged?)\s+(?:actually\s+|only\s+)?"


def _number(word: str) -> int | None:
    """``"3"`` or ``"three"`` -> 3; else ``None``."""
    low = word.lower()
    if low.isdigit():
        return int(low)
    return _NUMBERS.index(low) if low in _NUMBERS else None


_SAYS_CORRECTED = re.compile(r"\b(?:correct(?:ed|s|ion|ing)?|mistak(?:e|en)|misspo(?:ke|ken)|typo|misremembered|"
                             r"meant|wrong(?:ly)?|mixed up|never true)\b", _I)


def says_corrected(reason: str | None) -> bool:
    """Whether a model's UPDATE reason says the old value was a mistake, not a change ("user corrected
    the city"): such an UPDATE retracts the old value instead of closing it."""
    return bool(reason) and _SAYS_CORRECTED.search(reason or "") is not None


@dataclass(frozen=True)
class Correction:
    """Retract ``fact`` (never true) and let ``new_object`` hold from its start instead."""

    fact: FactInfo
    new_object: str
    cue: str

    @property
    def reason(self) -> str:
        """The decision's reason."""
        return f"corrected (cue {self.cue!r}): {self.fact.fact.object!r} was never true, {self.new_object!r} instead"


def new_value(raw: str) -> str | None:
    """The value at the start of ``raw`` ("Kia Ceed, not ...", "Bolt I drive for", "tree nuts — cashews")."""
    raw = raw.strip()
    while (stripped := _STRIP.sub("", raw)) != raw:  # "actually 88": the value, not a cut before it
        raw = stripped
    raw = _CUT.split(raw, maxsplit=1)[0].strip()
    while (stripped := _STRIP.sub("", raw)) != raw:
        raw = stripped
    found = words(raw)
    if not found:
        return None
    if found[0].text[0].isupper() and found[0].text != "I":
        run = [found[0]]
        for w in found[1:4]:
            if not (w.text[0].isupper() or w.text[0].isdigit()) or w.text == "I" or w.text.startswith("I'"):
                break
            run.append(w)
        value = raw[run[0].start:run[-1].end]
    else:
        value = raw[found[0].start:found[min(len(found), 3) - 1].end]
    value = value.strip(" '\"")
    if not value or (_number(found[0].low) is None and (value.lower() in STOPWORDS or
                                                         all(w.low in STOPWORDS for w in words(value)))):
        return None  # a count ("two", "2 kids") is a value though its words are common
    return value


def substitute(obj: str, named: set[str], new: str) -> str:
    """``obj`` with the words ``named`` (stems) replaced by ``new``; extends over neighbours ``new`` repeats
    and numbers ("Anytime Fitness" - "Anytime" + "Snap Fitness" -> "Snap Fitness")."""
    found = words(obj)
    hit = [i for i, w in enumerate(found) if _stem(w.text) in named]
    if not hit:
        return new
    new_stems = {_stem(w.text) for w in words(new)}
    lo, hi = min(hit), max(hit)
    while hi + 1 < len(found) and (_stem(found[hi + 1].text) in new_stems or _NUMBER.match(found[hi + 1].text)):
        hi += 1
    while lo > 0 and (_stem(found[lo - 1].text) in new_stems or _NUMBER.match(found[lo - 1].text)):
        lo -= 1
    if lo == 0 and hi == len(found) - 1:
        return new
    return f"{obj[:found[lo].start]}{new}{obj[found[hi].end:]}".strip()


def _best(infos: Sequence[FactInfo], span_text: str, floor: float = 0.8) -> tuple[FactInfo, float] | None:
    """The one fact ``span_text`` names best (its whole object first: "Leeds" is "Leeds", not "Leeds Uni");
    ``floor``: the least evidence that counts (a value the speaker says they said may be a common word: "Tuesday")."""
    span = words(span_text)
    whole = " ".join(w.low for w in span)
    scored = [(i, 1.1 if i.phrase == whole else name_evidence(i, span)) for i in infos]
    scored = [s for s in scored if s[1] >= floor]
    if not scored and floor < 0.8:  # a common word names a value only when the speaker says they said it
        said = {_stem(w.text) for w in span}
        scored = [(i, floor) for i in infos if said & i.names]
    if not scored:  # a clipped word names the one fact with a word it begins ("lab" for "labrador", "uni")
        clipped = {_stem(w.text) for w in span if len(w.low) >= 3 and w.low not in STOPWORDS}
        scored = [(i, 0.8) for i in infos if any(len(n) > len(c) + 1 and n.startswith(c) for n in i.names
                                                 for c in clipped)]
        if len({i.fact.lineage_id for i, _ in scored}) != 1:
            return None
    top = max(s[1] for s in scored)
    best = {s[0].fact.lineage_id: s for s in scored if s[1] == top}
    if len(best) > 1:  # "Jake" names "user boyfriend_name Jake" and "jake partner_of user": the value wins
        best = {k: v for k, v in best.items() if v[0].fact.object.strip().lower() != "user"}
    return next(iter(best.values())) if len(best) == 1 else None


def _count_of(text: str) -> tuple[int, list[str]] | None:
    """``"2 kids"`` -> ``(2, ["kid"])``: the number a value starts with and the stems of the words after it."""
    found = words(text)
    if not found or (n := _number(found[0].low)) is None:
        return None
    return n, [_stem(w.text) for w in found[1:] if w.low not in STOPWORDS]


def _same_noun(stems: Sequence[str], info: FactInfo) -> bool:
    """Whether a counted noun ("kids") is what the fact counts: a word of its object or predicate, or the
    same noun (:data:`~.lexicon.SAME_NOUNS`: "kids" / "children")."""
    own = {_stem(w) for w in re.split(r"[_\s]+", f"{info.fact.predicate} {info.fact.object}".lower()) if w}
    for stem in stems:
        group = next((g for g in SAME_NOUNS if stem in g), frozenset({stem}))
        if own & group:
            return True
    return False


def _recount(infos: Sequence[FactInfo], x: str | None, y: str, window: str) -> tuple[FactInfo, str] | None:
    """A correction of a count ("two kids, not three", "I meant 2 kids"): the one fact whose object holds the
    old number (or, when the old number is not said, the one counting the same noun), with the new number
    written as the old one was (digits or words). A bare number needs a person as its subject ("I'm 43, not
    34"): "the meeting is at two, not three" corrects no count."""
    new = _count_of(y)
    old = _count_of(x) if x is not None else None
    if new is None or (x is not None and old is None):
        return None
    nouns = [*new[1], *(old[1] if old else [])]
    if not nouns and not re.search(_PERSON_IS + re.escape(y), window, _I):
        return None
    found: dict[str, tuple[FactInfo, int]] = {}
    for info in infos:
        counted = [(i, w) for i, w in enumerate(words(info.fact.object)) if _number(w.low) is not None]
        if not counted or (old is not None and _number(counted[0][1].low) != old[0]):
            continue
        if (nouns or old is None) and not _same_noun(nouns, info):
            continue
        found[info.fact.lineage_id] = (info, counted[0][0])
    if len(found) != 1:
        return None
    info, at = next(iter(found.values()))
    token = words(info.fact.object)[at]
    number = str(new[0]) if token.low.isdigit() or new[0] >= len(_NUMBERS) else _NUMBERS[new[0]]
    obj = info.fact.object
    return info, f"{obj[:token.start]}{number}{obj[token.end:]}"


def _by_predicate(infos: Sequence[FactInfo], window: str) -> FactInfo | None:
    stems = {w.low[:5] for w in words(window) if len(w.low) >= 5}
    found = {i.fact.lineage_id: i for i in infos if i.fact.predicate[:5] in stems}
    return next(iter(found.values())) if len(found) == 1 else None


def _related(infos: Sequence[FactInfo], noun: str | None) -> bool:
    """Whether "my <noun> is Y" is about a held fact ("my *allergy* is ..." -> ``allergic_to``), not an aside ("my
    *brain* was fried")."""
    return noun is None or _by_predicate(infos, noun) is not None or _best(infos, noun) is not None


def _pairs(window: str, infos: Sequence[FactInfo] = ()) -> list[tuple[str | None, str]]:
    """``(x, y)`` pairs of a window: the old value's words (``None`` when not said) and the new value."""
    out: list[tuple[str | None, str]] = []
    for m in _NOT.finditer(window):
        before = _FILLER_TAIL.sub("", window[: m.start()])
        for lead in reversed([None, *_LEAD.finditer(before)]):  # the last lead that leaves a value
            if (y := new_value(before[lead.end():] if lead else before)) is not None:
                out.append((m.group("x"), y))
                break
    for m in _NOT_FIRST.finditer(window):
        if (y := new_value(m.group("y") or m.group("z") or m.group("w") or "")) is not None:
            out.append((m.group("x"), y))
    for m in _BARE_NOT.finditer(window):
        out.append((m.group("x") or m.group("kx"), m.group("y") or m.group("ky")))
    for m in _NAMES.finditer(window):  # "it's Jack not Jake"; never "I meant PwC *earlier* not KPMG"
        if m.group("y").lower() not in STOPWORDS and not _CUT.fullmatch(m.group("y")):
            lead = _CAPITALS_BEFORE.search(window, 0, m.start("y")) if m.group("y")[:1].isupper() else None
            out.append((m.group("x"), window[lead.start():m.end("y")] if lead else m.group("y")))  # "BAE Systems"
    said = _SAID.search(window)
    if said is not None:
        tail = window[said.end():]
        found = sorted([*_NAME_IS.finditer(tail), *_MEANT.finditer(tail), *_AFTER.finditer(tail)],
                       key=lambda m: m.start())
        for m in found:
            if not _related(infos, m.groupdict().get("n")) and infos:
                continue
            y = new_value(m.group("y") or m.groupdict().get("z") or "")
            if y is not None and y.lower() != said.group("x").lower():
                out.append((said.group("x"), y))
                break
    for m in list(_NAME_IS.finditer(window)) + list(_MEANT.finditer(window)):
        if infos and not _related(infos, m.groupdict().get("n")):
            continue
        if (y := new_value(m.group("y") or m.group("z") or "")) is not None:
            out.append((None, y))
    return out


def _ellipsis(infos: Sequence[FactInfo], x: str, y: str) -> tuple[tuple[FactInfo, float], str] | None:
    """"a Mazda 6, not a 3": X is Y with its last words replaced; the held fact that fuller X names."""
    xs, ys = words(x), words(y)
    if len(ys) <= len(xs):
        return None
    fuller = f"{y[:ys[len(ys) - len(xs) - 1].end]} {x}"
    found = _best(infos, fuller)
    return (found, fuller) if found is not None else None


def _unsaid(info: FactInfo, window: str) -> set[str]:
    """The words of a held value the window does not repeat ("whippet" of "whippet named Mabel" when the window
    names Mabel): what a correction that names no X replaces."""
    said = {_stem(w.text) for w in words(window)}
    return {_stem(w.text) for w in words(info.fact.object)
            if w.low not in STOPWORDS and w.low not in ("named", "called") and _stem(w.text) not in said}


def _window(sentences: Sequence[Sentence], si: int, alone: bool, doubt: bool = False) -> list[int]:
    """The sentences a correction cue reads: its own and the next; the one before for a bare "Not X." (Y is
    there) or a short echo question ("Gold's?? I meant Equinox") or the speaker doubting their own words ("Did I
    say I grew up in Swansea? I meant Newport"); for that doubt itself (``doubt``), it and the next two ("Did I
    say Spanish?? Brain fog. It's Portuguese I'm learning")."""
    if alone:
        return [si - 1, si]
    if doubt:
        return [j for j in (si, si + 1, si + 2) if j < len(sentences) and (j == si or not sentences[j].question)]
    span = [j for j in (si, si + 1) if j < len(sentences) and not sentences[j].question]
    if span and si > 0 and sentences[si - 1].question and (len(words(sentences[si - 1].text)) <= 6
                                                           or _DOUBT.match(sentences[si - 1].text)):
        span.insert(0, si - 1)
    return span


def find_corrections(
    text: str, sentences: Sequence[Sentence], hits: Sequence[CorrectionHit], infos: Sequence[FactInfo]
) -> tuple[list[Correction], set[int]]:
    """The corrections of a message and the sentences they use (no ending is read there).

    Args:
        text: the normalised message; ``sentences`` its sentences; ``hits`` its correction cues.
        infos: the facts that may be corrected (believed, valid up to the message's time).
    """
    strong = {h.sentence: h for h in hits if h.cue.name != "not X"}
    alone: set[int] = set()
    for h in hits:
        if h.cue.name != "not X" or h.sentence in strong:
            continue
        said = sentences[h.sentence].text
        opening = _OPENING.match(said)  # always matches (every part is optional); "Not doing French anymore": over
        denial = _NOT_FIRST.match(said, opening.end() if opening else 0) and not _OVER.search(said)
        if _COPULAR.search(said) or (strong and _NAMES.search(said)) or denial:
            strong[h.sentence] = h  # "it's X, not Y"; "violin*** not viola ... autocorrect" (a sure cue elsewhere);
            # a sentence opening with the denial and the right value: "Not Bath — Wells.", "not X btw, it's Y"
        elif h.sentence > 0 and _NOT_ALONE.match(sentences[h.sentence].text):  # "I play clarinet! Not oboe."
            strong[h.sentence] = h
            alone.add(h.sentence)
    out: list[Correction] = []
    used: set[int] = set()
    done: set[str] = set()
    for si, hit in sorted(strong.items()):
        span = _window(sentences, si, si in alone, hit.cue.name == "did I say")
        if not span:
            continue
        window = text[sentences[span[0]].start:sentences[span[-1]].end]
        pairs = _pairs(window, infos)
        if si in alone:
            denied = _NOT_ALONE.match(sentences[si].text)
            state = _STATE_CLAUSE.search(sentences[si - 1].text) or _ECHO.match(sentences[si - 1].text)
            y = new_value(state.group("y")) if state else None
            pairs = [(denied.group("x"), y)] if denied and y else []
        elif not pairs and hit.cue.name not in ("actually", "not X"):  # "I misspoke - I'm vegetarian"
            tail = text[hit.end:sentences[span[-1]].end]
            told: list[tuple[str | None, str]] = [(None, y) for m in _AFTER.finditer(tail)
                                                  if (y := new_value(m.group("y"))) is not None]
            pairs = told[:1]
        for x, y in pairs:
            if _count_of(y) is not None and (x is None or _count_of(x) is not None):  # a count: only a count
                recount = _recount(infos, x, y, window)
                if recount is not None and recount[0].fact.lineage_id not in done:
                    out.append(Correction(recount[0], recount[1], hit.cue.name))
                    done.add(recount[0].fact.lineage_id)
                    used.update(span)
                continue
            if x is not None:
                old = _best(infos, x) or _best(infos, x, floor=0.5)
                if old is None and (elided := _ellipsis(infos, x, y)) is not None:  # "a Mazda 6, not a 3"
                    old, x = elided
                named = {_stem(w.text) for w in words(x)}
            else:  # the one fact the window names, else one of Y's kind ("2 kids" for "three kids"), else by predicate
                old = _best(infos, re.sub(re.escape(y), " ", window, flags=_I)) or _best(infos, y)
                old = old or ((i, 0.8) if (i := _by_predicate(infos, window)) else None)
                named = {_stem(w.text) for w in words(y)} if old else set()
            if old is None or old[0].fact.lineage_id in done:
                continue
            info = old[0]
            if not named & info.names:  # a clipped word: the fact's word it begins
                named = {n for n in info.names if any(n.startswith(c) for c in named)} or named
            if x is None and not named & info.names:  # "Mabel's a lurcher": what the window does not repeat
                named = _unsaid(info, re.sub(re.escape(y), " ", window, flags=_I)) or named
            obj = substitute(info.fact.object, named & info.names or named, y)
            if obj.strip().lower() == info.fact.object.strip().lower() or not obj.strip():
                continue
            out.append(Correction(info, obj, hit.cue.name))
            done.add(info.fact.lineage_id)
            used.update(span)
    return out, used
