"""A model rates each memory's importance (prompt ``consolidation-v3``), on the real store with a
scripted fake chat model (the only fake): the rating is stored where nothing outranks it; an explicit
request, the app's declared importance and a caller's value still win; without a rating, or with an
unreadable one, the deterministic rating stays.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from fake_llms import FakeToolChatModel, scripted_responder

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.config import Predicate
from nova_memory_integrations.memory.importance import LEVELS, assess

T0 = datetime(2025, 2, 1, 9, 0, tzinfo=timezone.utc)
CFG = {"consolidation": {"retry_backoff_seconds": 0.0, "max_retries": 0, "llm_batch_size": 10}}


def _op(predicate: str, obj: str, importance: Any = None) -> dict[str, Any]:
    op: dict[str, Any] = {"op": "ADD", "subject": "user", "predicate": predicate, "object": obj, "reason": "said"}
    if importance is not None:
        op["importance"] = importance
    return op


SCRIPT = {
    "I'm running the Boston marathon on April 21.": [_op("training_for", "Boston marathon", 4)],
    "I had pasta for lunch.": [_op("ate", "pasta", 2)],
    "Remember that I prefer replies in Portuguese.": [_op("prefers", "replies in Portuguese", 2)],
    "I take metformin.": [_op("medication", "metformin", 2)],
    "I play the cello.": [_op("plays", "cello")],
    "I collect stamps.": [_op("collects", "stamps", "urgent!!")],
}


def _store(make_store: Any, fake: FakeToolChatModel, version: str | None = None, **kw: Any) -> NovaStore:
    cfg = {k: dict(v) for k, v in CFG.items()}
    if version:
        cfg["consolidation"]["prompt_version"] = version
    return make_store(config=NovaConfig.from_dict(cfg), llm=fake, **kw)  # type: ignore[no-any-return]


def _say(store: NovaStore, user: str, *texts: str) -> None:
    for n, text in enumerate(texts):
        store.add_turn(user, "user", text, timestamp=T0 + timedelta(minutes=n))
    store.consolidate(user)


def _fact(store: NovaStore, user: str, predicate: str) -> Any:
    (fact,) = store.facts(user, predicate=predicate)
    return fact


def test_the_model_rates_what_it_extracts(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    store = _store(make_store, fake)
    _say(store, "ana", "I'm running the Boston marathon on April 21.", "I had pasta for lunch.")
    assert "Importance: rate every ADD and UPDATE from 1 to 5" in fake.calls[0].text
    schema = fake.bound_tools[0]["function"]["parameters"]
    assert "importance" in str(schema)  # v3 asks for it in the answer's schema too
    marathon, pasta = _fact(store, "ana", "training_for"), _fact(store, "ana", "ate")
    assert (marathon.importance, pasta.importance) == (LEVELS[4], LEVELS[2])
    assert marathon.metadata["prompt_version"] == "consolidation-v3" and marathon.metadata["model_importance"] == 4
    # not what the rules alone would have said
    assert assess("user ate pasta", predicate="ate").value == LEVELS[3] != pasta.importance


def test_explicit_requests_and_declared_importance_outrank_the_rating(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    store = _store(make_store, fake, schema=[Predicate(name="medication", many=True, importance=4)])
    _say(store, "bea", "Remember that I prefer replies in Portuguese.", "I take metformin.")
    asked = _fact(store, "bea", "prefers")
    assert (asked.source, asked.importance, asked.metadata["model_importance"]) == ("explicit", LEVELS[5], 2)
    assert _fact(store, "bea", "medication").importance == LEVELS[4]  # declared 4, the model said 2
    decision = store.add_fact("bea", "user", "plays", "oboe", importance=LEVELS[1])  # a caller's value wins
    assert _fact(store, "bea", "plays").importance == LEVELS[1] and decision.op == "ADD"


def test_no_rating_or_an_unreadable_one_keeps_the_deterministic_rating(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    store = _store(make_store, fake)
    _say(store, "cy", "I play the cello.", "I collect stamps.")
    cello, stamps = _fact(store, "cy", "plays"), _fact(store, "cy", "collects")
    assert cello.importance == assess("user plays cello", predicate="plays").value
    assert stamps.importance == assess("user collects stamps", predicate="collects").value
    assert "model_importance" not in cello.metadata and "model_importance" not in stamps.metadata


def test_an_earlier_prompt_does_not_ask_but_accepts_a_rating(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    store = _store(make_store, fake, version="consolidation-v2")
    _say(store, "dan", "I had pasta for lunch.")
    assert "Importance:" not in fake.calls[0].text and "importance" not in str(fake.bound_tools[0])
    pasta = _fact(store, "dan", "ate")
    assert pasta.importance == LEVELS[2] and pasta.metadata["prompt_version"] == "consolidation-v2"
