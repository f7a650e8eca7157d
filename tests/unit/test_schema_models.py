"""App-declared schemas as pydantic models (#40), without a store: how a model maps onto declared
predicates, how a value is checked against its field, and how a model's structured answer is
parsed through the models (a scripted ``StructuredLLM``: the only fake, the model)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Annotated, Any

import pytest
from health_schemas import Allergy, Goal
from pydantic import BaseModel, ConfigDict, Field, model_validator

from nova_memory_integrations.config import NovaConfig, Predicate
from nova_memory_integrations.errors import FactSchemaError, InvalidInputError, SchemaError
from nova_memory_integrations.extraction.llm import LLMExtractor
from nova_memory_integrations.extraction.llms import LLMReply
from nova_memory_integrations.extraction.prompts import DEFAULT_PROMPT_VERSION, SCHEMAS_PROMPT_VERSION, get_prompt
from nova_memory_integrations.memory.schemas import kind_of, schema_set, with_schemas
from nova_memory_integrations.types import Episode


class FoodAllergy(BaseModel):
    """Class-level cardinality: every field holds many values."""

    model_config = ConfigDict(frozen=True, json_schema_extra={"many": True})
    trigger_food: str = ""


def test_each_field_is_a_declared_predicate_with_its_cardinality_importance_and_synonyms() -> None:
    found = {p.name: p for p in schema_set((Allergy, Goal, FoodAllergy)).predicates}
    assert found["allergy"] == Predicate(name="allergy", many=True, importance=5, synonyms=("allergic_to",),
                                         kind="allergy", description="What the user must never be given.")
    assert (found["allergy_severity"].many, found["allergy_severity"].importance) == (False, 5)  # class importance
    assert (found["goal"].many, found["goal"].importance, found["goal"].kind) == (True, 4, "goal")
    assert (found["target_weight_kg"].many, found["target_weight_kg"].importance) == (False, None)
    assert found["trigger_food"].many and found["trigger_food"].kind == "food_allergy"  # class-level many
    assert kind_of(FoodAllergy) == "food_allergy"


def test_the_models_join_the_config_and_keep_what_was_declared_otherwise() -> None:
    base = NovaConfig.from_dict({"facts": {"predicates": [{"name": "medication", "many": True}]}})
    cfg = with_schemas(base, [Allergy])
    assert [p.name for p in cfg.facts.predicates] == ["medication", "allergy", "allergy_severity"]
    assert cfg.facts.schemas == (Allergy,) and base.facts.schemas == ()  # a copy: the caller's config unchanged
    assert cfg.facts.canonical("allergic_to") == "allergy" and not cfg.facts.is_single_valued("allergy")
    assert with_schemas(cfg, [Allergy]).facts.predicates == cfg.facts.predicates  # declared twice: the same


@pytest.mark.parametrize("bad", [Allergy, "Allergy", [dict], [Allergy, 3]])
def test_a_bad_schemas_argument_is_a_schema_error(bad: Any) -> None:
    with pytest.raises(SchemaError):
        with_schemas(NovaConfig(), bad)


def test_a_predicate_two_declarations_claim_is_refused() -> None:
    class Other(BaseModel):
        allergic_to: str = ""

    with pytest.raises(SchemaError, match="claimed by both"):
        with_schemas(NovaConfig(), [Allergy, Other])


@pytest.mark.parametrize(("predicate", "value", "stored"), [
    ("allergy_severity", "severe", "severe"),
    ("allergy_severity", "Severe", "severe"),  # the allowed spelling, not the stated case
    ("target_weight_kg", "72.50", "72.5"),  # the model's canonical number
    ("activity_level", "HIGH", "high"),
    ("allergy", "shellfish", "shellfish"),
    ("trigger_food", "peanuts", "peanuts"),  # a frozen model validates too
    ("lives_in", "anything at all", "anything at all"),  # no model holds it: not checked
])
def test_a_value_that_fits_is_kept_in_the_models_spelling(predicate: str, value: str, stored: str) -> None:
    assert schema_set((Allergy, Goal, FoodAllergy)).check(predicate, value) == stored


@pytest.mark.parametrize(("predicate", "value", "rule"), [
    ("allergy_severity", "deadly", "'mild', 'moderate' or 'severe'"),
    ("target_weight_kg", "seven", "valid number"),
    ("target_weight_kg", "12", "greater than 30"),
    ("activity_level", "extreme", "'low', 'medium' or 'high'"),
    ("goal", "try diet pills", "no goals about diet pills"),  # the model's own field validator
])
def test_a_value_that_does_not_fit_raises_the_typed_error(predicate: str, value: str, rule: str) -> None:
    with pytest.raises(FactSchemaError) as err:
        schema_set((Allergy, Goal)).check(predicate, value)
    assert rule in err.value.rule and err.value.predicate == predicate and err.value.value == value
    assert isinstance(err.value, InvalidInputError) and err.value.field == "object"


# -- structured extraction through the models ---------------------------------------------------------------------
T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
EPISODES = [
    Episode(id="e1", user_id="u", role="user", content="I'm severely allergic to shellfish.", timestamp=T0,
            ingested_at=T0),
    Episode(id="e2", user_id="u", role="user", content="I want to weigh 72 kg; my allergy is deadly.",
            timestamp=T0, ingested_at=T0),
]


class Capable:
    """Answers as a capable model would: it reads the declared kinds' JSON schemas from the prompt and
    records what each episode states, by field name as the schema has it, values as the user said them."""

    name = "capable"

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def invoke_structured(self, messages: Sequence[tuple[str, str]], schema: type[BaseModel]) -> LLMReply:
        text = messages[-1][1]
        self.prompts.append(text)
        shown = json.loads(text.split("Declared kinds (JSON schemas by kind):\n", 1)[1].split("\n", 1)[0])
        allergy = shown["allergy"]["properties"]
        assert {"allergy", "allergy_severity"} <= set(allergy)  # the fields it answers with are the schema's
        return LLMReply(data={"episodes": [
            {"episode": "E1", "operations": [], "records": [
                {"kind": "allergy", "values": {"allergy": ["shellfish"], "allergy_severity": "severe"},
                 "reason": "states an allergy"}]},
            {"episode": "E2", "operations": [
                {"op": "ADD", "subject": "user", "predicate": "likes", "object": "swimming"}], "records": [
                {"kind": "goal", "values": {"target_weight_kg": 72}},
                {"kind": "allergy", "values": {"allergy_severity": "deadly"}},  # as said: breaks the schema
                {"kind": "goal", "values": {"mood": "good"}},  # no such field
                {"kind": "hobby", "values": {"hobby": "chess"}}]}]})  # no such kind


def test_the_answer_for_declared_kinds_is_parsed_through_the_models() -> None:
    llm = Capable()
    extractor = LLMExtractor(llm, max_retries=0, backoff=0, schemas=[Allergy, Goal])
    assert extractor.prompt.version == SCHEMAS_PROMPT_VERSION  # the default once schemas are declared
    plan = extractor.plan("u", EPISODES, ())
    assert plan.failed == {}
    first = [(p.predicate, p.object, p.refused) for p in plan.proposals["e1"]]
    assert first == [("allergy", "shellfish", ""), ("allergy_severity", "severe", "")]
    second = {(p.predicate, p.object): p for p in plan.proposals["e2"]}
    assert second[("likes", "swimming")].refused == ""  # what fits no kind stays an operation
    assert second[("target_weight_kg", "72.0")].refused == ""  # the model's number, in its spelling
    assert "'mild', 'moderate' or 'severe'" in second[("allergy_severity", "deadly")].refused
    assert "has no field 'mood'" in second[("mood", "good")].refused
    assert "no declared schema 'hobby'" in second[("hobby", "chess")].refused
    meta = plan.proposals["e1"][0].metadata
    assert (meta["schema"], meta["prompt_version"], meta["extractor"]) == ("allergy", SCHEMAS_PROMPT_VERSION, "llm")


def test_without_schemas_the_prompt_is_the_default_and_shows_no_kinds() -> None:
    extractor = LLMExtractor(Capable(), max_retries=0, backoff=0)
    assert extractor.prompt.version == DEFAULT_PROMPT_VERSION != SCHEMAS_PROMPT_VERSION
    assert "Declared kinds" not in extractor.prompt.render([("E1", EPISODES[0])])[-1][1]
    shown = get_prompt(SCHEMAS_PROMPT_VERSION).render([("E1", EPISODES[0])], schemas={"allergy": {"type": "object"}})
    assert '"allergy":{"type":"object"}' in shown[-1][1] and "record" in shown[0][1]
    assert "Importance: rate every ADD" in shown[0][1]  # built on the default's rating of each operation


def test_a_model_validator_that_needs_the_whole_record_leaves_the_field_to_decide() -> None:
    class Dose(BaseModel):
        drug: Annotated[str, Field(max_length=12)] = ""
        mg: int

        @model_validator(mode="after")
        def _no_overdose(self) -> Dose:
            if self.drug == "paracetamol" and self.mg > 4000:  # reads both fields: one fact sets only one
                raise ValueError("too much")
            return self

    rules = schema_set((Dose,))
    assert (rules.check("drug", "paracetamol"), rules.check("mg", "500")) == ("paracetamol", "500")
    with pytest.raises(FactSchemaError, match="at most 12 characters"):
        rules.check("drug", "acetylsalicylic acid")  # the field's own constraint still holds


def test_a_config_with_models_dumps_to_json_with_their_names() -> None:
    cfg = with_schemas(NovaConfig(), [Allergy])
    assert cfg.model_dump(mode="json")["facts"]["schemas"] == ["health_schemas.Allergy"]  # `config show` prints it
    assert NovaConfig.model_validate(cfg.model_dump()).facts.schemas == (Allergy,)  # in Python, the classes
