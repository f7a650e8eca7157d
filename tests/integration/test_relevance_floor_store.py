"""The relevance floor on a real store (SQLite, Chroma, MiniLM): an unrelated question gets no
relevance items, only the guaranteed slots; a related one gets its memories; the floors can be
turned off per call."""

from __future__ import annotations

from nova_memory_integrations import NovaStore
from nova_memory_integrations.retrieval.search_config import SearchConfig

TURNS = ["I adopted a beagle called Biscuit last spring.", "Biscuit loves chasing squirrels in the park.",
         "My sister Ana is visiting from Lisbon next week.", "We are planning a picnic by the river on Saturday.",
         "I started a pottery class on Tuesday evenings."]


def _fill(store: NovaStore) -> None:
    for text in TURNS:
        store.add_turn("jo", "user", text)
    store.add_turn("jo", "user", "I have a severe allergy to shellfish, never forget this")
    store.consolidate("jo")
    store.set_block("jo", "human", "Jo, a nurse who likes short answers.")
    store.flush()


def test_an_unrelated_question_gets_only_the_guaranteed_slots(store: NovaStore) -> None:
    _fill(store)
    ctx = store.context("Which SQL isolation level prevents phantom reads?", "jo", budget_tokens=400)
    assert ctx.best_match is not None and ctx.best_match < 0.25 and ctx.keyword_match is False
    assert {s.reason.split(":")[0] for s in ctx.sources} == {"guaranteed slot"}
    assert "shellfish" in ctx.text and "nurse" in ctx.text and "beagle" not in ctx.text
    assert ctx.dropped and all(d.reason.startswith("below the relevance floor") for d in ctx.dropped)
    assert "below the relevance floor" in ctx.explain()
    off = SearchConfig(relevance_floor=0.0, unmatched_floor=0.0)
    bare = store.context("Which SQL isolation level prevents phantom reads?", "jo", budget_tokens=400, preset=off)
    assert bare.tokens > ctx.tokens and any(s.kind == "episode" for s in bare.sources)


def test_a_related_question_passes_the_floor(store: NovaStore) -> None:
    _fill(store)
    ctx = store.context("What is my dog's name?", "jo", budget_tokens=400)
    assert ctx.best_match is not None and ctx.best_match >= 0.25
    assert "Biscuit" in ctx.text
    assert not any(d.reason.startswith("below the relevance floor") for d in ctx.dropped)
