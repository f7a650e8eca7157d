"""A fact said again is the same fact, surer: one version, counted, its start kept (issue #38, repeats)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest

from nova_memory_integrations.config import FactConfig
from nova_memory_integrations.memory.facts import FactMemory
from nova_memory_integrations.storage.sqlite import SQLiteStore

FIRST = datetime(2024, 2, 3, tzinfo=timezone.utc)
AGAIN = datetime(2024, 6, 9, tzinfo=timezone.utc)


@pytest.fixture
def memory(tmp_path: Path) -> Iterator[FactMemory]:
    db = SQLiteStore(tmp_path / "facts.sqlite3")
    yield FactMemory(db, FactConfig())
    db.close()


@pytest.mark.parametrize("again", ["Kawasaki Z650", "kawasaki z650", "  Kawasaki  Z650 "])
def test_a_repeat_reinforces_the_one_version_and_keeps_its_start(memory: FactMemory, again: str) -> None:
    memory.apply("u", "user", "rides", "Kawasaki Z650", at=FIRST, episode_ids=["e1"])
    first = memory.query("u", predicate="rides")[0]
    decision, _ = memory.apply("u", "user", "rides", again, at=AGAIN, episode_ids=["e2"])
    versions = memory.query("u", predicate="rides", include_history=True)
    assert decision.op == "NOOP"
    assert [(v.valid_from, v.valid_to, v.occurrence_count) for v in versions] == [(FIRST, None, 2)]
    assert versions[0].confidence > first.confidence
    assert versions[0].provenance == ("e1", "e2")


def test_another_value_of_a_single_valued_predicate_is_not_a_repeat(memory: FactMemory) -> None:
    memory.apply("u", "user", "lives_in", "Bristol", at=FIRST)
    memory.apply("u", "user", "lives_in", "Bath", at=AGAIN)
    held = memory.query("u", predicate="lives_in", as_of=AGAIN)
    assert [(f.object, f.valid_from, f.occurrence_count) for f in held] == [("Bath", AGAIN, 1)]
