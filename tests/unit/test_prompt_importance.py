"""The importance a model writes in its answer (prompt ``consolidation-v3``), read leniently: a
rating it cannot read is no rating, never an unusable answer."""

from __future__ import annotations

from typing import Any

import pytest

from nova_memory_integrations.extraction.prompts import (
    IMPORTANCE_RULES,
    EpisodeOperationsV1,
    MemoryOperationV1,
    RecordMemoryOperationsV1,
    RecordMemoryOperationsV3,
    get_prompt,
)


@pytest.mark.parametrize(("said", "level"), [
    (4, 4), ("4", 4), (" 5/5 ", 5), ("high", 4), ("Critical", 5), (2.4, 2), (0.9, 5), (0.5, 3), (0.1, 1),
    (0, None), (6, None), (-1, None), ("urgent!!", None), (None, None), (True, None), ([3], None),
])
def test_a_rating_is_read_or_dropped(said: Any, level: int | None) -> None:
    op = MemoryOperationV1.model_validate({"op": "add", "subject": "user", "predicate": "likes", "object": "tea",
                                           "importance": said})
    assert op.importance == level


def test_only_v3_asks_for_it_every_version_reads_it() -> None:
    assert "importance" not in str(RecordMemoryOperationsV1.model_json_schema())
    assert "importance" in str(RecordMemoryOperationsV3.model_json_schema())
    entry = EpisodeOperationsV1.model_validate({"episode": "E1", "operations": [
        {"op": "ADD", "subject": "user", "predicate": "likes", "object": "tea", "importance": "3"}]})
    assert entry.operations[0].importance == 3
    v2, v3 = get_prompt("consolidation-v2"), get_prompt("consolidation-v3")
    assert IMPORTANCE_RULES not in v2.system and IMPORTANCE_RULES in v3.system
    assert v3.system.replace(IMPORTANCE_RULES + "\n", "").replace(', "importance": 3', "") == v2.system
    assert get_prompt() is v3
