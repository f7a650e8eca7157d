"""Ending and changing verbs as a class of lemmas (pure): "deleted", "shuts", "came off", "folding".

The phrase cues of :data:`~.lexicon.CUES` list word forms; a writer the list was not fitted to uses other
verbs ("deleted my Instagram", "shut the Etsy shop", "came off the sertraline", "the startup folded"). This
module keeps such verbs as *lemmas* (:data:`VERB_CUES`, data) and reads any inflection of them with a small
lemmatiser (:func:`lemma`: irregular pasts from a table, regular suffixes stripped), so "delete", "deletes",
"deleted" and "deleting" are one entry and no form is listed by hand.

A verb cue fires only where no phrase cue of the lexicon already matched (the table's specific readings win),
and it goes through the same guards and target scoring as every cue. Ambiguous transitive verbs ("cut",
"close") are ``needs_name``: they end only a fact their own clause names ("cut Disney+", never "cut my hair"
for a haircut held as a habit).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .lexicon import Cue

__all__ = ["VERB_CUES", "VerbCue", "lemma", "verb_cue_at", "verb_lemmas"]

_POS, _JOB, _REL, _MEM, _HAB, _PET, _HOME, _STUDY = (
    "possession", "job", "relationship", "membership", "habit", "pet", "home", "study")


_OBJECT_PARTICLES = frozenset({"with", "from", "of"})
"""A particle that introduces what ended ("parted *with* the bike"), never the new state."""


@dataclass(frozen=True)
class VerbCue:
    """One ending or changing verb: its lemma, an optional particle ("come *off*"), and the cue it makes."""

    lemma: str
    particle: str
    cue: Cue


def _verb(lemma: str, categories: Sequence[str], *, particle: str = "", strength: float = 0.9,
          kind: str = "end", needs_name: bool = False) -> VerbCue:
    name = f"{lemma} {particle}".strip()
    return VerbCue(lemma, particle, Cue(name, "", frozenset(categories), strength=strength, kind=kind,  # type: ignore[arg-type]
                                        needs_name=needs_name, object_after=particle in _OBJECT_PARTICLES))


VERB_CUES: tuple[VerbCue, ...] = (
    # removing an account, an app, a profile, a listing
    _verb("delete", (_POS, _MEM, _HAB)),
    _verb("uninstall", (_POS, _MEM, _HAB)),
    _verb("deactivate", (_POS, _MEM, _HAB)),
    _verb("unfollow", (_MEM, _HAB), needs_name=True),
    _verb("unsubscribe", (_MEM, _POS)),
    # closing a business, an account, a shop; a company ceasing
    _verb("shut", (_POS, _JOB, _MEM, _HAB), needs_name=True),
    _verb("close", (_POS, _JOB, _MEM), needs_name=True),
    _verb("shutter", (_POS, _JOB, _MEM), needs_name=True),
    _verb("fold", (_JOB, _MEM, _POS), strength=0.8),
    _verb("collapse", (_JOB, _MEM), strength=0.7, needs_name=True),
    _verb("disband", (_MEM, _JOB)),
    _verb("dissolve", (_MEM, _JOB, _REL), needs_name=True),
    _verb("liquidate", (_JOB, _POS), needs_name=True),
    _verb("terminate", (_MEM, _JOB, _POS), needs_name=True),
    _verb("discontinue", (_MEM, _HAB, _POS), needs_name=True),
    _verb("axe", (_MEM, _HAB, _JOB), needs_name=True),
    # stopping a subscription, a habit, a medication
    _verb("cut", (_MEM, _HAB, _POS), needs_name=True),
    _verb("abandon", (_POS, _MEM, _HAB, _STUDY), needs_name=True),
    _verb("come", (_HAB, _MEM), particle="off", needs_name=True),
    _verb("get", (_HAB, _MEM), particle="off", needs_name=True),
    _verb("wean", (_HAB,), particle="off"),
    _verb("taper", (_HAB,), particle="off"),
    _verb("take", (_HAB,), particle="off", needs_name=True),  # "the nurse took me off the Clenil"
    _verb("pack", (_HAB, _MEM, _JOB), particle="in", strength=0.8),
    _verb("opt", (_MEM,), particle="out", strength=0.8),
    _verb("pull", (_MEM, _STUDY, _JOB), particle="out", strength=0.7, needs_name=True),
    _verb("withdraw", (_MEM, _STUDY), strength=0.7, needs_name=True),
    # parting with a possession
    _verb("part", (_POS, _PET), particle="with"),
    _verb("offload", (_POS,)),
    _verb("return", (_POS, _HOME), strength=0.7, needs_name=True),
    # handing in or over what one held
    _verb("hand", (_POS, _HOME, _MEM), particle="in", strength=0.8, needs_name=True),
    _verb("surrender", (_POS, _HOME, _MEM), needs_name=True),
    # changing to something else (the new value follows: "ported my number *to giffgaff*")
    _verb("port", (_MEM, _POS), kind="change", strength=0.8),
    _verb("move", (_HOME, _MEM, _POS, _JOB, _STUDY, _HAB), kind="change", strength=0.7, needs_name=True),
    _verb("relocate", (_HOME, _JOB), kind="change", strength=0.8, needs_name=True),
    _verb("emigrate", (_HOME,), kind="change", strength=0.9),
    _verb("switch", (_POS, _MEM, _JOB, _HAB, _HOME, _STUDY), kind="change", strength=0.7, needs_name=True),
    _verb("swap", (_POS, _MEM, _JOB, _HAB, _HOME, _STUDY), kind="change", strength=0.7, needs_name=True),
    _verb("upgrade", (_POS, _MEM), kind="change", strength=0.7, needs_name=True),
    _verb("promote", (_JOB,), kind="change", strength=0.8, needs_name=True),
)
"""Ending and changing verbs, by lemma (verbs the phrase cues already read in all their forms, "sold",
"cancelled", "switched", are not repeated here); the categories are those of :data:`~.lexicon.CATEGORIES`."""

_BY_LEMMA: dict[str, tuple[VerbCue, ...]] = {}
for _v in VERB_CUES:
    _BY_LEMMA[_v.lemma] = (*_BY_LEMMA.get(_v.lemma, ()), _v)

_IRREGULAR = {"came": "come", "got": "get", "gotten": "get", "took": "take", "taken": "take"}
"""Past forms no suffix rule reaches (``shut``, ``cut``: the same form)."""
_VOWELS = frozenset("aeiou")


def verb_lemmas() -> frozenset[str]:
    """The lemmas of :data:`VERB_CUES`."""
    return frozenset(_BY_LEMMA)


@lru_cache(maxsize=8192)
def lemma(word: str) -> str:
    """The lemma of a lower-case verb form among :data:`VERB_CUES` ("deleted" -> "delete", "shutting" ->
    "shut", "folds" -> "fold"), else the word itself. Only lemmas of the table are recognised, so a suffix
    rule never invents a verb ("needed" is not "ne")."""
    if word in _BY_LEMMA:
        return word
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    for suffix in ("ied", "ies"):
        if word.endswith(suffix) and word[: -len(suffix)] + "y" in _BY_LEMMA:
            return word[: -len(suffix)] + "y"
    for suffix in ("ing", "ed", "es", "s"):
        if not word.endswith(suffix) or len(word) - len(suffix) < 2:
            continue
        stem = word[: -len(suffix)]
        candidates = [stem, stem + "e"]
        if len(stem) >= 3 and stem[-1] == stem[-2] and stem[-1] not in _VOWELS:  # "stopped", "shutting"
            candidates.append(stem[:-1])
        for c in candidates:
            if c in _BY_LEMMA:
                return c
    return word


_PRONOUN_OBJECTS = frozenset({"it", "them", "him", "her", "that", "this", "me", "us"})


def verb_cue_at(tokens: Sequence[str], i: int) -> tuple[VerbCue, int] | None:
    """The verb cue whose verb is ``tokens[i]`` (lower-case words), and the index of its last word (its
    particle, right after the verb or after a pronoun object: "came off", "packed it in"); ``None`` when
    the word is no verb of the table or its particle is missing."""
    entries = _BY_LEMMA.get(lemma(tokens[i]))
    if not entries:
        return None
    plain: VerbCue | None = None
    for entry in entries:
        if not entry.particle:
            plain = entry
            continue
        for j in (i + 1, i + 2):
            if j < len(tokens) and tokens[j] == entry.particle and (j == i + 1 or tokens[i + 1] in _PRONOUN_OBJECTS):
                return entry, j
    return (plain, i) if plain is not None else None
