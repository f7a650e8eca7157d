"""The labelled consolidation set consolidated through a real store (real MiniLM, real Chroma), with the
deterministic extractor and with a fake LLM answering the gold labels.

The scoring of the set without a store is in ``tests/unit/test_consolidation_set.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from extraction_scoring import load_cases
from fake_llms import FakeToolChatModel, gold_responder

from nova_memory_integrations import NovaConfig, NovaStore

CASES = load_cases()


@pytest.mark.parametrize("use_llm", [False, True], ids=["deterministic", "gold-llm"])
def test_the_set_consolidates_through_the_store_without_losses(make_store: Any, use_llm: bool) -> None:
    fake = FakeToolChatModel(respond=gold_responder(CASES))
    cfg = NovaConfig.from_dict({"consolidation": {"retry_backoff_seconds": 0.0}})
    store: NovaStore = make_store(config=cfg, llm=fake if use_llm else None)
    store.add_turns([
        {"user_id": f"case-{c.id}", "role": t.get("role", "user"), "content": t["content"],
         "timestamp": t.get("timestamp")}
        for c in CASES for t in c.turns
    ])
    result = store.consolidate()
    turns = sum(len(c.turns) for c in CASES)
    assert (result.episodes_processed, result.failed_episodes) == (turns, 0) and store.dead_letters() == []
    if use_llm:
        assert len(fake.calls) == len(CASES)  # one batch per user
    assert result.added > 0 and result.updated > 0 and result.invalidated > 0 and result.noop > 0
