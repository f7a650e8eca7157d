"""A consolidation model whose answers cannot be used falls back to the deterministic extractor.

Real SQLite / Chroma / MiniLM; the only fakes are the chat models (``fake_llms``), scripted
to answer the way weak local models do: prose instead of JSON, JSON of another shape, an
empty message, an entry for one episode and junk for the other. The recorded answers of a
real SmolLM2 take the same path in ``test_llm_http.py``.

What is pinned: those episodes end up processed, with the facts the deterministic extractor
finds in them (never "2 of 2 episodes failed" and no fact); one warning line per store, naming
``llm_fallback``; ``quiet`` and ``off``; calls that fail outright still wait as dead letters;
a model that answers properly is untouched by any of it.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from fake_llms import FakeToolChatModel, Prompt, ops_message, scripted_responder
from langchain_core.messages import AIMessage

from nova_memory_integrations import NovaConfig, NovaStore

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
TEXTS = ["I live in Berlin.", "I love jazz."]
FOUND = {("user", "lives_in", "Berlin"), ("user", "likes", "jazz")}
"""What the deterministic extractor finds in ``TEXTS``."""
LOGGER = "nova_memory_integrations.consolidation.consolidator"


def _prose(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
    return AIMessage(content="Sure! The user lives in Berlin and loves jazz. Let me know if you need more.")


def _other_schema(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
    return AIMessage(content='{"facts": [{"who": "user", "fact": "lives in Berlin"}]}')


def _empty(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
    return AIMessage(content="")


UNUSABLE = {"prose": _prose, "other schema": _other_schema, "empty": _empty}


def _store(make_store: Any, model: Any, fallback: str | None = None) -> NovaStore:
    section: dict[str, Any] = {"retry_backoff_seconds": 0.0, "max_retries": 1}
    if fallback is not None:
        section["llm_fallback"] = fallback
    return make_store(config=NovaConfig.from_dict({"consolidation": section}), llm=model)  # type: ignore[no-any-return]


def _add(store: NovaStore, user: str, texts: list[str], start: datetime = T0) -> None:
    for i, text in enumerate(texts):
        store.add_turn(user, "user", text, timestamp=start + timedelta(minutes=i))


def _facts(store: NovaStore, user: str) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in store.facts(user)}


def _fallback_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == LOGGER and "llm_fallback" in r.getMessage()]


@pytest.mark.parametrize("answer", sorted(UNUSABLE))
def test_unusable_answers_fall_back_to_the_deterministic_extractor(
    make_store: Any, caplog: pytest.LogCaptureFixture, answer: str
) -> None:
    model = FakeToolChatModel(respond=UNUSABLE[answer])
    store = _store(make_store, model)
    _add(store, "al", TEXTS)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = store.consolidate("al")
    assert len(model.calls) == 2  # the first call and the one retry were made before falling back
    assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (2, 0, 2)
    assert result.added == 2 and _facts(store, "al") == FOUND
    assert store.dead_letters("al") == [] and all(e.processed for e in store.episodes("al"))
    (line,) = _fallback_lines(caplog)
    assert "2 of 2 episodes could not be used" in line and 'llm_fallback = "quiet"' in line
    assert not [r for r in caplog.records if "episodes failed" in r.getMessage()]


def test_the_warning_is_said_once_per_store(make_store: Any, tmp_path: Any, caplog: pytest.LogCaptureFixture) -> None:
    first = _store(make_store, FakeToolChatModel(respond=_prose))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for user in ("al", "bo"):  # two users, two runs: one line
            _add(first, user, TEXTS)
            first.consolidate(user)
        assert len(_fallback_lines(caplog)) == 1 and _facts(first, "bo") == FOUND
        first.close()
        second = make_store(path=tmp_path / "other", config=first.config, llm=FakeToolChatModel(respond=_prose))
        _add(second, "al", TEXTS)
        second.consolidate("al")
    assert len(_fallback_lines(caplog)) == 2  # another store says it again


def test_quiet_falls_back_without_a_word(make_store: Any, caplog: pytest.LogCaptureFixture) -> None:
    store = _store(make_store, FakeToolChatModel(respond=_prose), fallback="quiet")
    _add(store, "al", TEXTS)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = store.consolidate("al")
    assert result.fallback_episodes == 2 and _facts(store, "al") == FOUND
    assert [r for r in caplog.records if r.name == LOGGER] == []


def test_off_dead_letters_unusable_answers_as_before(make_store: Any) -> None:
    store = _store(make_store, FakeToolChatModel(respond=_prose), fallback="off")
    _add(store, "al", TEXTS)
    result = store.consolidate("al")
    assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (0, 2, 0)
    assert _facts(store, "al") == set()
    (letter,) = store.dead_letters("al")
    assert "unusable answer" in letter["error"] and len(letter["episode_ids"]) == 2


def test_failed_calls_are_not_answers_and_wait_as_dead_letters(make_store: Any) -> None:
    def down(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        raise TimeoutError("read timed out")

    store = _store(make_store, FakeToolChatModel(respond=down))
    _add(store, "al", TEXTS)
    result = store.consolidate("al")
    assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (0, 2, 0)
    assert "TimeoutError" in store.dead_letters("al")[0]["error"] and _facts(store, "al") == set()


def test_only_the_episodes_without_a_usable_answer_fall_back(make_store: Any) -> None:
    def half(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        entries = []
        for ref, _, _, content in prompt.episodes:
            if content == "I live in Berlin.":
                entries.append({"episode": ref, "operations": [
                    {"op": "ADD", "subject": "user", "predicate": "home_city", "object": "Berlin", "reason": "lives"}]})
            else:  # a copied sentence as the predicate: implausible, asked again, never usable
                entries.append({"episode": ref, "operations": [
                    {"op": "ADD", "subject": "user", "predicate": "{I love jazz.}", "object": "jazz"}]})
        return ops_message(entries)

    model = FakeToolChatModel(respond=half)
    store = _store(make_store, model)
    _add(store, "al", TEXTS)
    result = store.consolidate("al")
    assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (2, 0, 1)
    by_source = {(f.predicate, f.object): f.metadata.get("extractor") for f in store.facts("al")}
    assert by_source == {("home_city", "Berlin"): "llm", ("likes", "jazz"): None}
    assert [e[3] for e in model.calls[1].episodes] == ["I love jazz."]  # only the bad one was asked again


def test_a_model_that_answers_properly_is_untouched(make_store: Any, caplog: pytest.LogCaptureFixture) -> None:
    script = {"I live in Berlin.": [{"op": "ADD", "subject": "user", "predicate": "home_city", "object": "Berlin"}],
              "I love jazz.": []}
    model = FakeToolChatModel(respond=scripted_responder(script))
    store = _store(make_store, model)
    _add(store, "al", TEXTS)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        result = store.consolidate("al")
    assert (result.episodes_processed, result.failed_episodes, result.fallback_episodes) == (2, 0, 0)
    assert _facts(store, "al") == {("user", "home_city", "Berlin")}  # the model's answer, and only it
    assert len(model.calls) == 1 and _fallback_lines(caplog) == []


def test_background_model_consolidation_falls_back_too(make_store: Any) -> None:
    """``NovaMemory(consolidation_model=...)`` runs the same consolidator on its worker thread."""
    from nova_memory_integrations.consolidation.by_model import ModelConsolidation

    store = _store(make_store, None)
    runs = ModelConsolidation.build(FakeToolChatModel(respond=_other_schema), store.config.consolidation,
                                    lambda user, extractor: store.consolidate(user, llm=extractor), idle_seconds=0)
    _add(store, "al", TEXTS)
    runs.captured("al", len(TEXTS))
    runs.flush(timeout=60)
    runs.close()
    assert _facts(store, "al") == FOUND and store.dead_letters("al") == []
