"""App-declared schemas (issue #40): a health coach declares medications, allergies and goals.

What the app declares decides where a fact goes (a synonym the extractor uses -> the declared
name), how many values it holds (``many`` adds up; one value supersedes), how much it matters
(its importance, and a guaranteed slot at level 5 even when inferred), and what the extractor
reads ("my goal is ..."). A bad schema is refused with ``SchemaError``. Real SQLite (and Postgres),
Chroma and MiniLM.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.config import Predicate
from nova_memory_integrations.errors import ConfigError, InvalidInputError, SchemaError
from nova_memory_integrations.memory.importance import LEVELS

pytestmark = pytest.mark.both_backends

HEALTH_COACH = [
    Predicate(name="medication", many=True, importance=5, synonyms=("takes_medication", "meds"),
              description="what the client takes, each one"),
    Predicate(name="allergy", many=True, importance=5, synonyms=("allergic_to",)),
    Predicate(name="goal", many=True, importance=4, synonyms=("plans_to",)),
    Predicate(name="target_weight", importance=3),
]


@pytest.fixture
def coach(make_store: Any) -> NovaStore:
    store: NovaStore = make_store(schema=HEALTH_COACH)
    return store


def _values(store: NovaStore, user: str, predicate: str) -> list[str]:
    return sorted(f.object for f in store.facts(user, predicate=predicate))


def test_extracted_facts_land_on_the_declared_predicates_with_their_cardinality(coach: NovaStore) -> None:
    for text in ("I take metformin every morning.", "I am allergic to peanuts.",
                 "My goal is to run a marathon this year.", "I want to lose 10 pounds.",
                 "My target weight is 80 kg.", "I take lisinopril too.", "I have a severe allergy to shellfish.",
                 "Actually my target weight is 75 kg because my doctor said so."):
        coach.add_turn("kim", "user", text)
    coach.consolidate("kim")
    assert _values(coach, "kim", "medication") == ["lisinopril", "metformin"]  # many: both held
    assert _values(coach, "kim", "allergy") == ["peanuts", "shellfish"]
    assert _values(coach, "kim", "goal") == ["lose 10 pounds", "run a marathon this year"]
    assert _values(coach, "kim", "target_weight") == ["75 kg"]  # one value: the newer superseded the older
    assert coach.facts("kim", predicate="takes_medication") == []  # the synonym is stored under the name
    by_predicate = {f.predicate: f for f in coach.facts("kim")}
    assert by_predicate["medication"].importance == LEVELS[5]
    assert by_predicate["goal"].importance == LEVELS[4]
    assert by_predicate["target_weight"].importance == LEVELS[3]
    assert coach.facts("kim", predicate="medication")[0].source == "inferred"


def test_a_list_fills_a_many_predicate_and_add_fact_maps_synonyms(coach: NovaStore) -> None:
    coach.add_turn("kim", "user", "My allergies are latex and penicillin.")
    coach.consolidate("kim")
    assert _values(coach, "kim", "allergy") == ["latex", "penicillin"]
    coach.add_fact("kim", "user", "meds", "insulin")
    assert _values(coach, "kim", "medication") == ["insulin"]


def test_declared_level_five_facts_have_guaranteed_slots_even_inferred(coach: NovaStore) -> None:
    coach.add_turn("kim", "user", "I am allergic to peanuts.")
    for i in range(30):
        coach.add_turn("kim", "user", f"Weekend note {i}: the hiking trail by the river was muddy again.")
    coach.consolidate("kim")
    ctx = coach.context("which trail should I hike this weekend?", "kim", budget_tokens=300)
    assert "peanuts" in ctx.text
    slot = next(s for s in ctx.sources if "peanuts" in s.text)
    assert slot.reason.startswith("guaranteed slot") and slot.metadata["source"] == "inferred"


def test_without_a_schema_nothing_changes(make_store: Any, tmp_path: Path) -> None:
    plain: NovaStore = make_store(tmp_path / "plain")
    plain.add_turn("kim", "user", "I take metformin every morning.")
    plain.add_turn("kim", "user", "My goal is to run a marathon this year.")
    plain.consolidate("kim")
    assert [f.predicate for f in plain.facts("kim")] == ["takes_medication"]


@pytest.mark.parametrize("bad, says", [
    ([{"name": "Medication"}], "name"),
    ([{"name": "goal", "importance": 6}], "importance"),
    ([{"name": "goal", "cardinality": "many"}], "cardinality"),
    ([Predicate(name="allergy", synonyms=("allergic_to",)), Predicate(name="allergic_to")], "claimed by both"),
    ("medication", "list of Predicate"),
    ([42], "a Predicate or a mapping"),
])
def test_a_bad_schema_is_a_typed_error(make_store: Any, tmp_path: Path, bad: Any, says: str) -> None:
    with pytest.raises(SchemaError, match=says):
        make_store(tmp_path / "bad", schema=bad)


def test_the_schema_from_a_config_file(make_store: Any, tmp_path: Path) -> None:
    (tmp_path / "cfg.toml").write_text('[[facts.predicates]]\nname = "goal"\nmany = true\nimportance = 4\n',
                                       encoding="utf-8")
    store: NovaStore = make_store(tmp_path / "toml", config=NovaConfig.from_toml(tmp_path / "cfg.toml"))
    store.add_turn("kim", "user", "My goals are to sleep more and to cook at home.")
    store.consolidate("kim")
    assert _values(store, "kim", "goal") == ["cook at home", "sleep more"]
    (tmp_path / "bad.toml").write_text('[[facts.predicates]]\nname = "Goal Two"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="Goal Two"):
        NovaConfig.from_toml(tmp_path / "bad.toml")


def test_facts_filtered_by_the_declared_predicates(coach: NovaStore) -> None:
    for text in ("I take metformin every morning.", "I am allergic to peanuts.", "I live in Lisbon.",
                 "I work at Acme as a nurse."):
        coach.add_turn("kim", "user", text)
    coach.add_fact("bob", "user", "allergy", "latex")
    coach.consolidate("kim")
    declared = [p.name for p in HEALTH_COACH]
    everything = coach.facts("kim")
    kept = coach.facts("kim", predicates=declared)
    assert {f.predicate for f in everything} - set(declared)  # the extractor found incidental facts too ...
    assert sorted((f.predicate, f.object) for f in kept) == [("allergy", "peanuts"), ("medication", "metformin")]
    assert [f.object for f in coach.facts("kim", predicates=["Allergy"])] == ["peanuts"]  # normalized like predicate=
    assert coach.facts("kim", predicates=["allergy"], predicate="medication") == []  # both must hold
    assert coach.facts("kim", predicates=[]) == []
    with pytest.raises(InvalidInputError):
        coach.facts("kim", predicates="allergy")  # a bare string is not a list of names


def test_a_generator_of_predicate_names_is_read_once_not_used_up_by_the_check(tmp_path, minilm_onnx) -> None:
    from nova_memory_integrations import NovaStore

    store = NovaStore(tmp_path / "gen", embeddings=minilm_onnx)
    try:
        store.add_fact("alice", "user", "likes", "tea")
        store.add_fact("alice", "user", "lives_in", "Oslo")
        assert [f.object for f in store.facts("alice", predicates=(p for p in ["likes"]))] == ["tea"]
        assert [f.object for f in store.facts("alice", predicates=["likes"])] == ["tea"]
    finally:
        store.close()
