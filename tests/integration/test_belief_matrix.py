"""Belief-change matrix on the real store: endings and replacements said in conversation.

For each phrasing, a first turn states a value and a later turn ends it (with the deterministic
extractor, consolidated after each turn). The ended value must be current at ``as_of`` before the
change, not after it, and still believed after it when asked ``known_at`` a moment before the
change turn was consolidated (bi-temporal: nothing is destroyed).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from nova_memory_integrations import NovaStore
from nova_memory_integrations.embeddings.onnx import OnnxMiniLMEmbeddings
from nova_memory_integrations.memory.temporal import normalize_value
from nova_memory_integrations.types import Fact

T_STATED = datetime(2024, 1, 10, 10, 0, tzinfo=timezone.utc)
T_CHANGED = datetime(2024, 3, 10, 10, 0, tzinfo=timezone.utc)
BEFORE = datetime(2024, 1, 20, tzinfo=timezone.utc)  # after the statement, before any ending ("last month" = 10 Feb)
AFTER = datetime(2024, 4, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Change:
    id: str
    stated: str
    changed: str
    subject: str
    predicate: str
    ended: str


CHANGES = [
    Change("sold-car-new-car", "I own a Honda Civic.", "I sold my Honda Civic last week and bought a Tesla.",
           "user", "owns", "Honda Civic"),
    Change("pet-died", "I have a dog named Rex.", "My dog Rex died last week.", "user", "has_pet", "dog named Rex"),
    Change("quit-job", "I work at Oracle.", "I quit my job at Oracle.", "user", "works_at", "Oracle"),
    Change("retired", "I work at Boeing.", "I retired from Boeing last month.", "user", "works_at", "Boeing"),
    Change("divorced", "I'm married to Sofia.", "I divorced Sofia last month.", "user", "married_to", "Sofia"),
    Change("broke-up", "I'm dating Leo.", "I broke up with Leo.", "user", "dating", "Leo"),
    Change("moved-out", "I live in Leeds.", "I moved out of Leeds last month.", "user", "lives_in", "Leeds"),
    Change("hobby-for-another", "My hobby is painting.", "I gave up painting for pottery.", "user", "hobby",
           "painting"),
    Change("stopped-speaking", "I speak German.", "I don't speak German anymore.", "user", "speaks", "German"),
    Change("finished-studies", "I study law.", "I finished studying law last month.", "user", "studies", "law"),
    Change("recovered", "I have the flu.", "I got over the flu.", "user", "has_condition", "flu"),
    Change("sister-sold-flat", "My sister owns a flat.", "My sister sold her flat.", "sister", "owns", "flat"),
    Change("no-longer-vegetarian", "I'm vegetarian.", "I'm no longer vegetarian.", "user", "diet", "vegetarian"),
    Change("used-to-play-piano", "I play the piano.", "I used to play the piano.", "user", "plays", "piano"),
    # the ending names a kind or a status, not the value held (memory/entailments.py)
    Change("sold-my-car", "I drive a Honda Civic.", "I sold my car last week.", "user", "owns", "Honda Civic"),
    Change("my-dog-died", "I have a dog named Rex.", "My dog died last week.", "user", "has_pet", "dog named Rex"),
    Change("named-pet-died", "I have a dog named Rex.", "Rex died last week.", "user", "has_pet", "dog named Rex"),
    Change("retired-from-work", "I work at Acme as an engineer.", "I retired last month.", "user", "works_at", "Acme"),
    Change("retired-title", "I work at Acme as an engineer.", "I retired last month.", "user", "job_title",
           "engineer"),
    Change("lost-my-job", "I work at Acme.", "I lost my job last week.", "user", "works_at", "Acme"),
    Change("laid-off", "I work at Acme.", "I was laid off last month.", "user", "works_at", "Acme"),
    Change("cancelled-plan", "I'm planning to visit Japan.", "I'm not planning to visit Japan anymore.", "user",
           "plans_to", "visit Japan"),
]


@dataclass(frozen=True)
class Matrix:
    store: NovaStore
    known_before_change: dict[str, datetime]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory, minilm_onnx: OnnxMiniLMEmbeddings) -> Iterator[Matrix]:
    """One store, one user per phrasing: statement consolidated, a belief-time mark, then the change."""
    store = NovaStore(Path(tmp_path_factory.mktemp("belief")) / "mem", embeddings=minilm_onnx)
    marks: dict[str, datetime] = {}
    try:
        for change in CHANGES:
            store.add_turn(change.id, "user", change.stated, timestamp=T_STATED)
            store.consolidate(change.id)
            time.sleep(0.01)
            marks[change.id] = datetime.now(timezone.utc)
            time.sleep(0.01)
            store.add_turn(change.id, "user", change.changed, timestamp=T_CHANGED)
            store.consolidate(change.id)
        yield Matrix(store, marks)
    finally:
        store.close()


def _holds(facts: list[Fact], change: Change) -> bool:
    want = (normalize_value(change.subject), change.predicate, normalize_value(change.ended))
    return any((normalize_value(f.subject), f.predicate, normalize_value(f.object)) == want for f in facts)


@pytest.mark.parametrize("change", CHANGES, ids=[c.id for c in CHANGES])
def test_the_value_is_current_before_the_change(matrix: Matrix, change: Change) -> None:
    assert _holds(matrix.store.facts(change.id, as_of=BEFORE), change)


@pytest.mark.parametrize("change", CHANGES, ids=[c.id for c in CHANGES])
def test_the_value_is_not_current_after_the_change(matrix: Matrix, change: Change) -> None:
    assert not _holds(matrix.store.facts(change.id, as_of=AFTER), change)


@pytest.mark.parametrize("change", CHANGES, ids=[c.id for c in CHANGES])
def test_before_the_change_was_heard_the_value_is_still_believed(matrix: Matrix, change: Change) -> None:
    known = matrix.known_before_change[change.id]
    assert _holds(matrix.store.facts(change.id, as_of=AFTER, known_at=known), change)


REPLACEMENTS = [
    ("sold-car-new-car", "owns", "Tesla"),
    ("hobby-for-another", "hobby", "pottery"),
]


@pytest.mark.parametrize(("user", "predicate", "new"), REPLACEMENTS, ids=[r[0] for r in REPLACEMENTS])
def test_the_replacement_is_current_after_the_change(matrix: Matrix, user: str, predicate: str, new: str) -> None:
    objects = {normalize_value(f.object) for f in matrix.store.facts(user, "user", predicate, as_of=AFTER)}
    assert normalize_value(new) in objects
