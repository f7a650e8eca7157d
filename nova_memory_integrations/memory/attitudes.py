"""Attitudes that clash across predicates: "I love email newsletters" against "I hate electronic
communication".

The conflict rules of :mod:`.conflicts` compare one predicate's values, or a configured pair of
opposite predicates on the *same* object; they cannot see that hating a whole category contradicts
loving one of its kinds. Here a preference fact is read as an :class:`Attitude`: a polarity (``likes``,
``loves``, ``favorite_<thing>``... are +1; ``dislikes``, ``hates``, ``avoids``... and a ``not_`` form
of a positive one are -1) and a topic (the object). A new attitude is compared with each held one of
the opposite polarity by topic, never by sentence (MiniLM puts the two sentences above at 0.27):

1. **the same topic** once spelt alike (:func:`~..text.categories.key`: "E-mails" = "email");
2. **inclusion**: one topic is a kind of the other in the shipped category table
   (:func:`~..text.categories.chain`: newsletter is a kind of email, of electronic communication);
3. **meaning**: otherwise the topics' cosine (MiniLM) at or above a calibrated threshold
   (``facts.topic_similarity``): synonyms such as "soccer" / "football". Siblings of one category
   ("dogs" / "cats", "tea" / "coffee") relate by neither and never clash, nor does a topic and the
   same words with a modifier that is not their head ("chocolate" / "chocolate cake").

A clash is a :class:`~.conflicts.Verdict` of kind ``related_topic`` that keeps both facts and flags
the conflict for review (its reason names the relation and the scores): the newer attitude does not
end the older one, since "I love fruit" and "I hate bananas" can both be true. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..text.categories import chain, key
from .conflicts import Held, Verdict

__all__ = ["NEGATIVE", "POSITIVE", "Attitude", "Clash", "attitude", "clashes", "polarity", "related", "verdict"]

POSITIVE = frozenset({
    "likes", "loves", "enjoys", "prefers", "adores", "fan_of", "is_fan_of", "into", "interested_in",
    "is_into", "likes_to", "loves_to", "enjoys_doing",
})
"""Predicates of a positive attitude (``favorite_<thing>`` too)."""
NEGATIVE = frozenset({
    "dislikes", "hates", "avoids", "detests", "loathes", "despises", "cant_stand", "cannot_stand",
    "can_not_stand", "is_not_fan_of", "not_fan_of", "hates_to", "dislikes_doing",
})
"""Predicates of a negative attitude (and ``not_`` / ``does_not_`` forms of positive ones)."""
_NOT = ("not_", "does_not_", "doesnt_", "dont_", "do_not_")
_FAVORITE = ("favorite_", "favourite_")


@dataclass(frozen=True)
class Attitude:
    """A preference fact as polarity and topic."""

    fact_id: str
    predicate: str
    polarity: int
    topic: str


@dataclass(frozen=True)
class Clash:
    """A held attitude the new one contradicts, and why."""

    held: Attitude
    relation: str
    cosine: float | None
    reason: str


def polarity(predicate: str) -> int:
    """+1, -1, or 0 for a predicate that states no attitude."""
    name = predicate.strip().lower()
    if name in POSITIVE or name.startswith(_FAVORITE):
        return 1
    if name in NEGATIVE:
        return -1
    for prefix in _NOT:
        if name.startswith(prefix) and polarity(name[len(prefix):]) == 1:
            return -1
    return 0


def attitude(fact_id: str, predicate: str, obj: str) -> Attitude | None:
    """The fact read as an attitude, or None (no attitude predicate, or no topic)."""
    sign = polarity(predicate)
    topic = obj.strip()
    return Attitude(fact_id, predicate, sign, topic) if sign and key(topic) else None


def related(new: str, held: str) -> tuple[str, str] | None:
    """How two topics relate without a model: ``("same", ...)`` or ``("includes", chain text)``; None."""
    if key(new) == key(held):
        return "same", f"'{new}' and '{held}' name the same thing"
    for narrow, broad in ((new, held), (held, new)):
        path = chain(narrow, broad)
        if path is not None:
            return "includes", f"'{broad}' includes '{narrow}' ({' is a kind of '.join(path)})"
    return None


def clashes(
    new: Attitude,
    held: Sequence[Attitude],
    *,
    cosine: Callable[[str, Sequence[str]], Sequence[float]] | None,
    threshold: float,
    skip: Callable[[Attitude], bool] = lambda _held: False,
) -> list[Clash]:
    """The held attitudes of opposite polarity whose topic is ``new``'s, includes it or is included,
    or, when ``cosine`` is given (the topics' MiniLM cosines, one call for all; shown in every
    reason), means the same at ``threshold`` or above. ``skip``: held facts another rule already
    judged (the same object under the configured opposite predicate)."""
    opposed = [h for h in held if h.polarity == -new.polarity and h.fact_id != new.fact_id and not skip(h)]
    scores = list(cosine(new.topic, [h.topic for h in opposed])) if opposed and cosine is not None else []
    found: list[Clash] = []
    for n, h in enumerate(opposed):
        score = float(scores[n]) if scores else None
        shown = "" if score is None else f"; topic cosine {score:.2f}"
        rel = related(new.topic, h.topic)
        if rel is not None:
            found.append(Clash(h, rel[0], score, _reason(new, h, rel[1] + shown)))
        elif score is not None and score >= threshold and not _modified(new.topic, h.topic):
            why = f"the topics '{new.topic}' and '{h.topic}' mean the same (cosine {score:.2f} >= {threshold:.2f})"
            found.append(Clash(h, "similar", score, _reason(new, h, why)))
    return found


def _modified(a: str, b: str) -> bool:
    """One topic is the other with words added that do not make it a kind of it ("chocolate cake" is
    cake, not chocolate: :func:`related` would have found a head): near in MiniLM, not one topic."""
    words_a, words_b = set(key(a).split()), set(key(b).split())
    return words_a < words_b or words_b < words_a


def _reason(new: Attitude, held: Attitude, why: str) -> str:
    return (f"opposite attitudes ({new.predicate} '{new.topic}' vs {held.predicate} '{held.topic}'): {why}; "
            "both kept, flagged for review")


def verdict(clash: Clash, held: Held) -> Verdict:
    """The clash as the conflict log records it: both facts kept, the conflict flagged."""
    return Verdict("related_topic", held, "keep_both", "both", clash.reason)
