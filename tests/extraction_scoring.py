"""Score any fact extractor against the labelled cases in ``tests/data``.

The cases file holds one JSON object per line::

    {"id": "nf-01", "category": "new_fact",
     "turns": [{"role": "user", "content": "...", "timestamp": "2024-05-03T10:00:00+00:00"}],
     "expected": [{"subject": "user", "predicate": "lives_in", "object": "Paris",
                   "op": "assert", "valid_from": "2024-04-03"}]}

Every turn (including assistant turns, which should yield nothing) is passed to
``extractor.extract(content, role=..., timestamp=...)``; the predicted facts of all turns
of a case are compared with ``expected`` as multisets. A prediction matches an expected
fact when subject, predicate and op are equal and the objects are equal after
normalisation (case, whitespace, leading articles, trailing punctuation, number words).
``valid_from`` is optional in ``expected`` and scored separately (temporal accuracy).

Labelling conventions (what a careful human labeller was asked to produce):

* ``subject`` is ``"user"`` for first-person statements, else the relation or person
  as named (``"sister"``, ``"best friend"``, ``"bob"``).
* A named relative or friend gives ``user <relation>_name <Name>`` ("my sister Anna") and
  ``<name> <kind>_of user`` (``anna sibling_of user``; kinds: sibling, parent, child,
  spouse, partner, friend, coworker, boss, roommate, neighbor, cousin, grandparent,
  relative), and becomes the subject of what is said about them ("my brother Luis is a
  chef" -> ``luis job_title chef``), also when the turn later says "my brother" or "he".
* Pets are ``has_pet "<species> named <Name>"`` (or just ``"<species>"``).
* Counts are digits (``has_children "2"``, ``age "5"``).
* Changes: "no longer"/"not ... anymore"/"quit"/"used to" -> ``negate`` of the old
  value; a correction yields only the corrected assertion.
* Endings (categories ``ending``, and ``transition`` for an ending plus its replacement in
  the same turn) are ``negate`` of the value that stopped holding, dated at the event:
  sold / gave away / got rid of / traded in / "no longer own" -> ``owns``; a pet that
  died / was put down / rehomed -> ``has_pet``; quit / left / lost / laid off from / retired
  from -> ``works_at``; "no longer a nurse", "used to be a teacher" -> ``job_title``; moved
  out of / left <place> -> ``lives_in``; divorced / separated from -> ``married_to``; broke
  up / split up with -> ``dating``; finished / graduated / dropped out / stopped learning ->
  ``studies`` / ``studies_at``; recovered from / got over -> ``has_condition``; "no longer
  vegetarian" -> ``diet``; cancelled / "not planning to ... anymore" -> ``plans_to``.
  Activities: "playing X" / an instrument, sport or game -> ``plays X``; smoking, drinking,
  vaping, coffee, alcohol, sugar ... -> ``habit``; "doing X" and other hobbies -> ``hobby``;
  "took up X" follows the same rule (``hobby climbing``, ``plays golf``). Objects drop possessives and "old"/"former"
  ("my old car" -> ``car``). Endings without a nameable value: "I retired" ->
  ``employment_status retired``, "I got divorced" -> ``relationship_status divorced``, a
  person who died -> ``<person> life_status deceased``.
* Plain negations ("I don't live in Paris") yield nothing, except dislike-style
  statements ("I don't like X" -> ``dislikes X``).
* Questions, hypotheticals, wishes, reported speech and chit-chat yield nothing.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

__all__ = ["CASES_PATH", "CATEGORIES", "FRESH_PATH", "Case", "FactLike", "Score", "load_cases", "normalise_object", "per_category", "score"]

CASES_PATH = Path(__file__).parent / "data" / "consolidation_cases.jsonl"
FRESH_PATH = Path(__file__).parent / "data" / "consolidation_cases_fresh.jsonl"
"""Held-out cases written before the ending rules, never used to tune them."""

CATEGORIES = frozenset(
    {
        "new_fact",
        "preference_change",
        "correction",
        "repeat",
        "chitchat",
        "negation",
        "third_party",
        "temporal",
        "question",
        "ending",
        "transition",
    }
)

_NUMBERS = {
    "zero": "0", "one": "1", "two": "2", "three": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11",
    "twelve": "12",
}
_ARTICLE_RE = re.compile(r"^(?:a|an|the)\s+")
_EDGE_PUNCT = " \t\n.,;:!?\"'()[]"


class FactLike(Protocol):
    """The attributes the scorer reads from a predicted fact."""

    @property
    def subject(self) -> str: ...

    @property
    def predicate(self) -> str: ...

    @property
    def object(self) -> str: ...

    @property
    def op(self) -> str: ...

    @property
    def valid_from(self) -> datetime | None: ...


class ExtractorLike(Protocol):
    """Anything with the ``Extractor.extract`` signature."""

    def extract(
        self, text: str, *, role: str = "user", timestamp: datetime | None = None
    ) -> list[Any]: ...


@dataclass(frozen=True)
class Case:
    """One labelled conversation snippet."""

    id: str
    category: str
    turns: tuple[dict[str, str], ...]
    expected: tuple[dict[str, str], ...]


@dataclass
class Score:
    """Counts behind the precision/recall figures (returned as ``details``)."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    by_category: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    false_positives: list[tuple[str, tuple[str, str, str, str]]] = field(default_factory=list)
    false_negatives: list[tuple[str, tuple[str, str, str, str]]] = field(default_factory=list)
    temporal_total: int = 0
    temporal_correct: int = 0

    @property
    def temporal_accuracy(self) -> float:
        """Share of matched facts with a labelled ``valid_from`` dated within a day."""
        return self.temporal_correct / self.temporal_total if self.temporal_total else 1.0


def load_cases(path: str | Path = CASES_PATH) -> list[Case]:
    """Read and validate the JSONL cases file."""
    cases: list[Case] = []
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        raw = json.loads(line)
        if raw["category"] not in CATEGORIES:
            raise ValueError(f"line {lineno}: unknown category {raw['category']!r}")
        for fact in raw["expected"]:
            if fact.get("op", "assert") not in ("assert", "negate"):
                raise ValueError(f"line {lineno}: bad op {fact['op']!r}")
        cases.append(
            Case(raw["id"], raw["category"], tuple(raw["turns"]), tuple(raw["expected"]))
        )
    return cases


def normalise_object(value: str) -> str:
    """Lowercase, collapse whitespace, drop edge punctuation, articles, number words."""
    text = " ".join(value.lower().replace("\u2019", "'").split()).strip(_EDGE_PUNCT)
    text = _ARTICLE_RE.sub("", text)
    return " ".join(_NUMBERS.get(word, word) for word in text.split())


def _key(subject: str, predicate: str, obj: str, op: str) -> tuple[str, str, str, str]:
    subj = " ".join(subject.lower().replace("_", " ").split())
    subj = subj[3:] if subj.startswith("my ") else subj
    pred = "_".join(predicate.lower().replace("-", " ").split())
    return subj, pred, normalise_object(obj), op


def _score_case(extractor: ExtractorLike, case: Case, result: Score) -> None:
    predicted: list[FactLike] = []
    for turn in case.turns:
        stamp = datetime.fromisoformat(turn["timestamp"]) if turn.get("timestamp") else None
        predicted.extend(
            extractor.extract(turn["content"], role=turn.get("role", "user"), timestamp=stamp)
        )
    unmatched: dict[tuple[str, str, str, str], list[FactLike]] = defaultdict(list)
    for fact in predicted:
        unmatched[_key(fact.subject, fact.predicate, fact.object, fact.op)].append(fact)
    counts = result.by_category[case.category]
    for exp in case.expected:
        key = _key(exp["subject"], exp["predicate"], exp["object"], exp.get("op", "assert"))
        if unmatched.get(key):
            got = unmatched[key].pop(0)
            result.tp += 1
            counts["tp"] += 1
            if exp.get("valid_from"):
                result.temporal_total += 1
                want = datetime.fromisoformat(exp["valid_from"]).date()
                if got.valid_from is not None and abs((got.valid_from.date() - want).days) <= 1:
                    result.temporal_correct += 1
        else:
            result.fn += 1
            counts["fn"] += 1
            result.false_negatives.append((case.id, key))
    for key, rest in unmatched.items():
        for _ in rest:
            result.fp += 1
            counts["fp"] += 1
            result.false_positives.append((case.id, key))


def score(extractor: ExtractorLike, cases: list[Case]) -> tuple[float, float, Score]:
    """Micro precision and recall of ``extractor`` over ``cases``.

    Args:
        extractor: Any object with ``extract(text, *, role, timestamp)`` returning
            fact-like objects (``subject``, ``predicate``, ``object``, ``op``,
            ``valid_from``).
        cases: Cases from :func:`load_cases`.

    Returns:
        ``(precision, recall, details)``. Precision is 1.0 when nothing was predicted
        and recall is 1.0 when nothing was expected.
    """
    result = Score()
    for case in cases:
        _score_case(extractor, case, result)
    predicted = result.tp + result.fp
    expected = result.tp + result.fn
    precision = result.tp / predicted if predicted else 1.0
    recall = result.tp / expected if expected else 1.0
    return precision, recall, result


def per_category(details: Score) -> dict[str, tuple[float, float, int]]:
    """``category -> (precision, recall, expected facts)`` from the details of :func:`score`."""
    out: dict[str, tuple[float, float, int]] = {}
    for category, counts in sorted(details.by_category.items()):
        tp, fp, fn = counts["tp"], counts["fp"], counts["fn"]
        out[category] = (tp / (tp + fp) if tp + fp else 1.0, tp / (tp + fn) if tp + fn else 1.0, tp + fn)
    return out
