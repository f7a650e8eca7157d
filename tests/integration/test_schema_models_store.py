"""App-declared schemas as pydantic models (issue #40) on real stores: SQLite and Postgres, Chroma /
pgvector, MiniLM. A health coach declares allergies, medications and goals as models; a field is
extracted, validated and filterable; a value the model refuses is recorded as refused and never
stored; a scripted model (the only fake) answers through the models; ``add_fact`` with a bad value
raises the typed error and leaves the store as it was.
"""

from __future__ import annotations

from typing import Any

import pytest
from fake_llms import FakeToolChatModel, Prompt, ops_message
from health_schemas import Allergy, Goal, Medication
from langchain_core.messages import AIMessage

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.config import Predicate
from nova_memory_integrations.errors import FactSchemaError, InvalidInputError
from nova_memory_integrations.extraction.prompts import SCHEMAS_PROMPT_VERSION
from nova_memory_integrations.memory.importance import LEVELS

pytestmark = pytest.mark.both_backends


SCHEMAS = [Allergy, Medication, Goal]


@pytest.fixture
def coach(make_store: Any) -> NovaStore:
    store: NovaStore = make_store(schemas=SCHEMAS)
    return store


def _facts(store: NovaStore, user: str, **kw: Any) -> set[tuple[str, str]]:
    return {(f.predicate, f.object) for f in store.facts(user, **kw)}


def test_a_declared_field_is_extracted_validated_and_filterable(coach: NovaStore) -> None:
    for text in ("I'm allergic to peanuts.", "I take metformin every morning.",
                 "My activity level is high. My goal is to run a marathon.", "My target weight kg is 72.5.",
                 "I live in Lisbon."):
        coach.add_turn("kim", "user", text)
    coach.consolidate("kim")
    assert _facts(coach, "kim", schema=Allergy) == {("allergy", "peanuts")}
    assert _facts(coach, "kim", schema="medication") == {("medication", "metformin")}
    assert _facts(coach, "kim", schema=Goal) == {("activity_level", "high"), ("goal", "run a marathon"),
                                                 ("target_weight_kg", "72.5")}
    assert _facts(coach, "kim", schema=[Allergy, "Medication"]) == {("allergy", "peanuts"), ("medication", "metformin")}
    assert ("lives_in", "lisbon") in {(p, o.casefold()) for p, o in _facts(coach, "kim")}  # the rest is still kept
    assert _facts(coach, "kim", schema=Goal, predicates=["goal"]) == {("goal", "run a marathon")}  # both filters
    by_predicate = {f.predicate: f for f in coach.facts("kim", schema=SCHEMAS)}
    assert by_predicate["allergy"].importance == LEVELS[5] and by_predicate["goal"].importance == LEVELS[4]
    assert coach.refused_facts("kim") == []
    with pytest.raises(InvalidInputError, match="not declared"):
        coach.facts("kim", schema="hobby")


def test_a_value_that_does_not_fit_is_refused_recorded_and_not_stored(coach: NovaStore) -> None:
    coach.add_turn("kim", "user", "My activity level is extreme. My goal is to run a marathon.")
    bad = coach.add_turn("kim", "user", "My target weight kg is twelve stone.")
    result = coach.consolidate("kim")
    assert result.failed_episodes == 0 and result.episodes_processed == 2  # the episodes are processed
    assert _facts(coach, "kim", schema=Goal) == {("goal", "run a marathon")}  # the fitting value of the same turn
    refused = {r.predicate: r for r in coach.refused_facts("kim")}
    assert set(refused) == {"activity_level", "target_weight_kg"}
    assert (refused["activity_level"].object, refused["activity_level"].kind) == ("extreme", "goal")
    assert "'low', 'medium' or 'high'" in refused["activity_level"].rule
    assert refused["target_weight_kg"].episode_id == bad.id and refused["target_weight_kg"].origin == "rules"
    assert "valid number" in refused["target_weight_kg"].rule
    assert [r.predicate for r in coach.refused_facts("kim", kind="Goal", limit=1)] == ["target_weight_kg"]  # newest
    assert any(d.op == "NOOP" and "refused by the declared schema" in d.reason for d in coach.decisions("kim"))
    assert coach.refused_facts("someone else") == []  # scoped by user
    coach.delete("kim", [bad.id])  # erasing the turn erases what was refused from it
    assert [r.predicate for r in coach.refused_facts("kim")] == ["activity_level"]
    coach.forget("kim")
    assert coach.refused_facts("kim") == []


def test_add_fact_with_a_bad_value_raises_and_leaves_the_store_unchanged(coach: NovaStore) -> None:
    coach.add_fact("kim", "user", "allergy_severity", "Moderate")
    before = (coach.facts("kim", include_history=True), coach.decisions("kim"), coach.refused_facts("kim"))
    with pytest.raises(FactSchemaError) as err:
        coach.add_fact("kim", "user", "allergy_severity", "deadly")
    assert (err.value.kind, err.value.predicate, err.value.value) == ("allergy", "allergy_severity", "deadly")
    assert (coach.facts("kim", include_history=True), coach.decisions("kim"), coach.refused_facts("kim")) == before
    assert _facts(coach, "kim", schema=Allergy) == {("allergy_severity", "moderate")}  # stored as the model spells it
    coach.add_fact("kim", "user", "allergic_to", "Shellfish")  # a synonym, checked against its field
    assert ("allergy", "Shellfish") in _facts(coach, "kim", schema=Allergy)


def _capable(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
    """A capable model: it answers from the declared kinds the prompt shows, as the user put it."""
    assert "Declared kinds (JSON schemas by kind):" in prompt.text and '"allergy_severity"' in prompt.text
    script = {
        "I have a severe shellfish allergy and I take lisinopril.": [
            {"kind": "allergy", "values": {"allergy": ["shellfish"], "allergy_severity": "severe"}},
            {"kind": "medication", "values": {"medication": ["lisinopril"]}}],
        "My allergy to nuts is deadly, and I want to weigh 700 kg.": [
            {"kind": "allergy", "values": {"allergy": ["nuts"], "allergy_severity": "deadly"}},
            {"kind": "goal", "values": {"target_weight_kg": 700}}],
    }
    return ops_message([{"episode": ref, "operations": [], "records": script.get(content, [])}
                        for ref, _, _, content in prompt.episodes])


def test_an_llm_answer_is_parsed_through_the_models(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=_capable)
    cfg = NovaConfig.from_dict({"consolidation": {"retry_backoff_seconds": 0.0, "max_retries": 0}})
    store: NovaStore = make_store(config=cfg, llm=fake, schemas=SCHEMAS)
    store.add_turn("kim", "user", "I have a severe shellfish allergy and I take lisinopril.")
    store.add_turn("kim", "user", "My allergy to nuts is deadly, and I want to weigh 700 kg.")
    result = store.consolidate("kim")
    assert result.failed_episodes == 0 and result.fallback_episodes == 0 and len(fake.calls) == 1
    tool = fake.bound_tools[0]["function"]
    assert "records" in tool["parameters"]["properties"]["episodes"]["items"]["properties"]  # the answer's shape
    assert _facts(store, "kim", schema=[Allergy, Medication, Goal]) == {
        ("allergy", "shellfish"), ("allergy_severity", "severe"), ("medication", "lisinopril"), ("allergy", "nuts")}
    refused = sorted((r.predicate, r.object, r.origin) for r in store.refused_facts("kim"))
    assert refused == [("allergy_severity", "deadly", "llm"), ("target_weight_kg", "700", "llm")]
    fact = store.facts("kim", predicate="medication")[0]
    assert (fact.metadata["prompt_version"], fact.metadata["schema"]) == (SCHEMAS_PROMPT_VERSION, "medication")


def test_schemas_declared_on_an_open_store_and_beside_predicates(make_store: Any) -> None:
    store: NovaStore = make_store(schema=[Predicate(name="sleep_hours", kind="habit")])
    store.add_fact("kim", "user", "activity_level", "extreme")  # nothing declared it yet: not checked
    store.declare_schemas([Goal])
    with pytest.raises(FactSchemaError):
        store.add_fact("kim", "user", "activity_level", "extreme")
    store.add_fact("kim", "user", "sleep_hours", "7")
    assert _facts(store, "kim", schema="habit") == {("sleep_hours", "7")}  # a kind a Predicate names
    assert _facts(store, "kim", schema=Goal) == {("activity_level", "extreme")}  # nothing stored is lost
    assert [p.name for p in store.config.facts.predicates] == ["sleep_hours", "goal", "target_weight_kg",
                                                               "activity_level"]


def test_refused_facts_travel_with_an_export_and_follow_their_episode(coach: NovaStore, make_store: Any,
                                                                      tmp_path: Any) -> None:
    turn = coach.add_turn("kim", "user", "My activity level is extreme.")
    coach.consolidate("kim")
    coach.export(tmp_path / "kim.jsonl", user_id="kim")
    other: NovaStore = make_store(path=tmp_path / "other", schemas=SCHEMAS, database_url=None)
    other.import_(tmp_path / "kim.jsonl", user_id="kim", as_user="lee")
    copied = other.refused_facts("lee")
    assert [(r.predicate, r.object) for r in copied] == [("activity_level", "extreme")]
    moved = other.episodes("lee")[0]
    assert copied[0].episode_id == moved.id != turn.id  # the copy names the copied turn
    other.delete("lee", [moved.id])
    assert other.refused_facts("lee") == []


def test_a_models_correction_or_update_to_a_value_that_does_not_fit_is_refused(make_store: Any) -> None:
    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        ref = prompt.fact_ref("user activity_level high")
        ops = {"Sorry, I meant my activity level is extreme.": [
                   {"op": "UPDATE", "subject": "user", "predicate": "activity_level", "object": "extreme",
                    "target_fact": ref, "reason": "the user corrected the value"}],
               "Now my activity level is insane.": [
                   {"op": "UPDATE", "subject": "user", "predicate": "activity_level", "object": "insane",
                    "target_fact": ref, "reason": "a new level"}]}
        return ops_message([{"episode": r, "operations": ops.get(content, [])} for r, _, _, content in prompt.episodes])

    fake = FakeToolChatModel(respond=respond)
    cfg = NovaConfig.from_dict({"consolidation": {"retry_backoff_seconds": 0.0, "max_retries": 0}})
    store: NovaStore = make_store(config=cfg, llm=fake, schemas=SCHEMAS)
    store.add_fact("kim", "user", "activity_level", "high")
    for text in ("Sorry, I meant my activity level is extreme.", "Now my activity level is insane."):
        store.add_turn("kim", "user", text)
        store.consolidate("kim")
    assert [f.object for f in store.facts("kim", predicate="activity_level", include_history=True)] == ["high"]
    assert sorted(r.object for r in store.refused_facts("kim")) == ["extreme", "insane"]
