"""What matters is never dropped (issue #40): the scenario suite, on real SQLite, Chroma and MiniLM.

Source and importance at capture; explicit memories outlive a capacity eviction; guaranteed slots
in ``context()``; pinned blocks edited through the memory tools.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.langchain import NovaMemory, create_memory_tools
from nova_memory_integrations.memory.importance import LEVELS

pytestmark = pytest.mark.both_backends

NOW = datetime(2025, 6, 1, 12, 0, tzinfo=timezone.utc)
ALLERGY = "I have a severe allergy to shellfish, never forget this"


def test_a_safety_request_becomes_an_explicit_important_fact_about_shellfish(store: NovaStore) -> None:
    told = store.add_turn("ana", "user", ALLERGY)
    chat = store.add_turn("ana", "user", "Today I worked on chapter 3 of my novel")
    assert (told.source, told.importance) == ("explicit", LEVELS[5])
    assert (chat.source, chat.importance) == ("inferred", LEVELS[3])
    store.consolidate("ana")
    facts = store.facts("ana")
    assert not [f for f in facts if "forget" in f.object.lower()]  # the request is no fact of its own
    (allergy,) = [f for f in facts if told.id in f.provenance]
    assert (allergy.predicate, allergy.object) == ("allergic_to", "shellfish")
    assert (allergy.source, allergy.importance) == ("explicit", LEVELS[5])
    # the chat's own reading (the novel the user works on, read in passing) stays inferred and ordinary
    assert all((f.source, f.importance) == ("inferred", LEVELS[3]) for f in facts if chat.id in f.provenance)
    assert store.get_episodes("ana", [told.id])[0].source == "explicit"  # stored, not only returned


def test_an_inferred_fact_repeated_explicitly_becomes_explicit(store: NovaStore) -> None:
    store.add_turn("ana", "user", "I prefer replies in Portuguese.")
    store.consolidate("ana")
    (inferred,) = store.facts("ana", predicate="prefers")
    assert (inferred.source, inferred.importance) == ("inferred", LEVELS[3])
    store.add_turn("ana", "user", "Remember that I prefer replies in Portuguese")
    store.consolidate("ana")
    (kept,) = store.facts("ana", predicate="prefers")
    assert (kept.id, kept.source, kept.importance) == (inferred.id, "explicit", LEVELS[5])


def test_add_fact_is_explicit_and_its_importance_assessed_or_given(store: NovaStore) -> None:
    made = store.add_fact("ana", "user", "takes_medication", "metformin")
    plain = store.add_fact("ana", "user", "likes", "jazz", importance=0.3, source="inferred")
    by_id = {f.id: f for f in store.facts("ana")}
    assert (by_id[made.fact_id].source, by_id[made.fact_id].importance) == ("explicit", LEVELS[5])
    assert (by_id[plain.fact_id].source, by_id[plain.fact_id].importance) == ("inferred", 0.3)


def test_an_explicit_fact_does_not_fade_and_an_inferred_one_does(store: NovaStore) -> None:
    old = NOW - timedelta(days=720)
    asked = store.add_fact("ana", "user", "likes", "tea", valid_from=old)
    guessed = store.add_fact("ana", "user", "likes", "coffee", valid_from=old, source="inferred")
    facts = {f.id: f for f in store.facts("ana")}
    later = datetime.now(timezone.utc) + timedelta(days=720)
    memory = store.components.facts
    assert memory.effective_confidence(facts[asked.fact_id], now=later) == facts[asked.fact_id].confidence
    assert memory.effective_confidence(facts[guessed.fact_id], now=later) < facts[guessed.fact_id].confidence / 4


def test_an_explicit_request_survives_a_capacity_eviction_that_removes_inferred_memories(make_store: Any) -> None:
    store: NovaStore = make_store(config=NovaConfig.from_dict({"lifecycle": {
        "max_episodes_per_user": 10, "protect_recent_days": 1, "tombstones": False}}))
    old = NOW - timedelta(days=400)
    inferred = [store.add_turn("ana", "user", f"We chatted about the weather on day {i}, it was grey.",
                               timestamp=old + timedelta(hours=i)).id for i in range(12)]
    asked = store.add_turn("ana", "user", "Remember that my locker code is 4512.", timestamp=old - timedelta(days=1))
    assert asked.source == "explicit"
    store.consolidate("ana")
    report = store.apply_lifecycle("ana", now=NOW)
    assert report.evicted and set(report.evicted) <= set(inferred)  # inferred memories went
    assert asked.id in {e.id for e in store.episodes("ana")}  # the oldest turn of all, kept


_TOPICS = ["my garden", "the football match", "a new recipe for bread", "the train strike", "my bike ride",
           "a podcast about space", "the office party", "learning the guitar", "a trip to the lake",
           "the rainy weekend", "a board game night", "painting the fence", "a documentary on whales",
           "the new phone", "a hiking trail", "the chess club", "my sourdough starter", "a jazz concert",
           "the book club", "a camping weekend"]
_QUERIES = ["What should I plant in spring?", "Any tips for my chess opening?", "Which guitar strings are best?",
            "How do I fix a flat bike tyre?", "Recommend a podcast for my commute", "What board game suits six?",
            "How long should bread proof?", "Where can I hike near the lake?", "Which phone camera is better?",
            "What colour should the fence be?", "Suggest a jazz album", "How do whales sleep?",
            "What book should the club read next?", "Is it going to rain this weekend?", "How do I wax skis?",
            "What tent should I buy?", "How do I keep a sourdough starter alive?", "Best way to learn chords?",
            "Plan my Saturday", "What is a good warm-up before football?"]


def test_a_safety_fact_stated_once_among_200_turns_is_in_every_context_at_300_tokens(store: NovaStore) -> None:
    start = NOW - timedelta(days=300)
    turns = [{"user_id": "ana", "role": "user", "content": f"Day {i}: I spent the afternoon on {_TOPICS[i % 20]}, "
              f"it was {'fun' if i % 3 else 'tiring'} and I want to do it again.",
              "timestamp": start + timedelta(hours=i)} for i in range(200)]
    turns.insert(137, {"user_id": "ana", "role": "user", "content": ALLERGY,
                       "timestamp": start + timedelta(hours=136, minutes=30)})
    store.add_turns(turns)
    store.consolidate("ana")
    store.flush()
    with_relevance = 0
    for query in _QUERIES:
        ctx = store.context(query, "ana", budget_tokens=300)
        assert ctx.tokens <= 300
        assert "shellfish" in ctx.text, query
        (held,) = [i for i in ctx.sources if i.kind == "fact" and "shellfish" in i.text]
        assert held.reason.startswith("guaranteed slot: importance 5")
        relevant = "relevance: found by" in ctx.explain()
        floored = any(d.reason.startswith("below the relevance floor") for d in ctx.dropped)
        assert "guaranteed slot" in ctx.explain() and relevant != floored, query  # the slot, whether or not
        with_relevance += relevant  # the query was close enough to anything else to pass the relevance floor
    assert with_relevance >= len(_QUERIES) // 2  # the slot shares the budget with relevant turns
    off = store.context(_QUERIES[0], "ana", budget_tokens=300,
                        preset=store._search_config(None).model_copy(update={"reserved_share": 0.0}))
    assert "shellfish" not in off.text  # without the guaranteed slot the query never reaches it


class _Agent(BaseChatModel):
    """A fake chat model (the only fake): calls the tool a user message names (``tool {json}``), else
    answers "ok"; records the system prompt of every call."""

    prompts: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "pinned-block-agent"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        self.prompts.append("\n".join(str(m.content) for m in messages if isinstance(m, SystemMessage)))
        last = max(i for i, m in enumerate(messages) if isinstance(m, HumanMessage))
        name, _, args = str(messages[last].content).partition(" ")
        if name == "edit_pinned_block" and not any(isinstance(m, ToolMessage) for m in messages[last:]):
            message = AIMessage(content="", tool_calls=[{"name": name, "args": json.loads(args), "id": "c1"}])
        else:
            message = AIMessage(content="ok")
        return ChatResult(generations=[ChatGeneration(message=message)])


def test_the_agent_edits_its_pinned_block_through_a_tool_and_the_next_turn_sees_it(store: NovaStore) -> None:
    store.set_block("ana", "human", "Ana, a nurse.", limit=120)
    model = _Agent()
    agent = create_agent(model, tools=create_memory_tools(store, user_id="ana"),
                         middleware=[NovaMemory(store, user_id="ana", consolidation="manual")])
    edit = {"name": "human", "append": "Prefers replies in Portuguese."}
    agent.invoke({"messages": [{"role": "user", "content": f"edit_pinned_block {json.dumps(edit)}"}]})
    assert "Prefers replies in Portuguese" not in model.prompts[0]
    model.prompts.clear()
    agent.invoke({"messages": [{"role": "user", "content": "What is the capital of Peru?"}]})
    assert "Ana, a nurse." in model.prompts[0] and "Prefers replies in Portuguese." in model.prompts[0]
    history = store.block_history("ana", "human")
    assert [(b.content, b.author, b.valid_to is None) for b in history] == [
        ("Ana, a nurse.", "app", False), ("Ana, a nurse.\nPrefers replies in Portuguese.", "agent", True)]
    too_long = {"name": "human", "content": "x" * 200}
    agent.invoke({"messages": [{"role": "user", "content": f"edit_pinned_block {json.dumps(too_long)}"}]})
    assert len(store.block_history("ana", "human")) == 2  # refused (over the limit), told to the model
    assert store.blocks("bob") == [] and store.block("ana", "persona") is None  # scoped by user and name


def test_an_inferred_safety_fact_gets_a_slot_only_when_configured(store: NovaStore) -> None:
    store.add_turns([{"user_id": "ana", "role": "user", "content": f"Day {i}: I spent the afternoon on {t}."}
                     for i, t in enumerate(_TOPICS)] + [{"user_id": "ana", "role": "user",
                                                         "content": "I'm allergic to penicillin."}])
    store.consolidate("ana")
    (fact,) = store.facts("ana", predicate="allergic_to")
    assert (fact.source, fact.importance) == ("inferred", LEVELS[5])
    def why(**update: Any) -> list[str]:
        preset = store._search_config(None).model_copy(update=update)
        ctx = store.context("Suggest a jazz album", "ana", budget_tokens=120, preset=preset)
        return [i.reason for i in ctx.sources if i.kind == "fact" and "penicillin" in i.text]

    assert not any(r.startswith("guaranteed slot") for r in why())  # by relevance at most
    assert why(reserved_inferred=True) == ["guaranteed slot: importance 5 of 5"]
