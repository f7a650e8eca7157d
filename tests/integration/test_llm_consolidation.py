"""LLM consolidation on real SQLite / Chroma / MiniLM with fake chat models (the only fakes).

The fakes are real LangChain ``BaseChatModel`` subclasses answering with tool calls that
match the ``record_memory_operations`` schema — well-formed, malformed, partial — or
raising timeouts and rate limits. Counts of added / updated / invalidated / noop are
exact, no episode is ever lost, and dead letters can be retried.
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from fake_llms import FakeToolChatModel, Prompt, ops_message, scripted_responder
from langchain_core.messages import AIMessage
from pydantic import Field

from nova_memory_integrations import NovaConfig, NovaStore
from nova_memory_integrations.extraction.llm import LLMExtractor, repair_json
from nova_memory_integrations.extraction.llms import LangChainChatLLM, LlamaIndexLLM, as_structured_llm
from nova_memory_integrations.extraction.prompts import DEFAULT_PROMPT_VERSION, get_prompt, tool_name

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=timezone.utc)
CFG = {"consolidation": {"retry_backoff_seconds": 0.0, "max_retries": 2, "llm_batch_size": 10}}

SCRIPT: dict[str, list[dict[str, Any]]] = {
    "I live in Berlin.": [{"op": "ADD", "subject": "user", "predicate": "lives_in", "object": "Berlin",
                           "reason": "states where they live"}],
    "I work at Acme as an engineer.": [
        {"op": "ADD", "subject": "user", "predicate": "works_at", "object": "Acme", "reason": "employer"},
        {"op": "ADD", "subject": "user", "predicate": "job_title", "object": "engineer", "reason": "job"},
    ],
    "What's the weather like?": [],
    "Sounds great!": [],
    "I love jazz.": [{"op": "ADD", "subject": "user", "predicate": "likes", "object": "jazz", "reason": "taste"}],
    "I moved to Munich last week.": [
        {"op": "UPDATE", "subject": "user", "predicate": "lives_in", "object": "Munich",
         "target": "user lives_in Berlin", "valid_from": "2024-03-08", "reason": "moved"}],
    "I quit my job at Acme.": [
        {"op": "DELETE", "subject": "user", "predicate": "works_at", "object": "Acme",
         "target": "user works_at Acme", "reason": "quit"}],
    "As I said, I love jazz.": [
        {"op": "NOOP", "subject": "user", "predicate": "likes", "object": "jazz",
         "target": "user likes jazz", "reason": "restated"}],
}


def _turns(store: NovaStore, user: str, texts: list[str], start: datetime, role: str = "user") -> None:
    for i, text in enumerate(texts):
        store.add_turn(user, "assistant" if text == "Sounds great!" else role, text,
                       timestamp=start + timedelta(minutes=i))


def _store(make_store: Any, llm: Any = None, **cfg: Any) -> NovaStore:
    data = {k: dict(v) for k, v in CFG.items()}
    for section, values in cfg.items():
        data.setdefault(section, {}).update(values)
    return make_store(config=NovaConfig.from_dict(data), llm=llm)  # type: ignore[no-any-return]


def test_add_update_delete_noop_counts_are_exact(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    store = _store(make_store, fake)
    _turns(store, "al", ["I live in Berlin.", "I work at Acme as an engineer.", "What's the weather like?",
                         "Sounds great!", "I love jazz."], T0)
    first = store.consolidate("al")
    assert (first.added, first.updated, first.invalidated, first.noop) == (4, 0, 0, 0)
    assert first.episodes_processed == 5 and first.failed_episodes == 0 and len(fake.calls) == 1
    assert fake.bound_tools[0]["function"]["name"] == "record_memory_operations"

    _turns(store, "al", ["I moved to Munich last week.", "I quit my job at Acme.", "As I said, I love jazz."],
           T0 + timedelta(days=10))
    second = store.consolidate("al")
    assert (second.added, second.updated, second.invalidated, second.noop) == (0, 1, 1, 1)
    # the model saw the existing facts relevant to the batch, by reference
    assert {"user lives_in Berlin", "user works_at Acme", "user likes jazz"} <= set(fake.calls[1].facts.values())

    assert [f.object for f in store.facts("al", predicate="lives_in")] == ["Munich"]
    history = store.facts("al", predicate="lives_in", include_history=True)
    assert [(f.object, f.valid_to) for f in history] == [
        ("Berlin", datetime(2024, 3, 8, tzinfo=timezone.utc)), ("Munich", None)]
    assert store.facts("al", predicate="works_at") == []
    acme = store.facts("al", predicate="works_at", include_history=True)
    assert len(acme) == 1 and acme[0].valid_to is not None
    assert any(v.expired_at is not None for v in store.fact_history("al", acme[0].id))  # kept, not deleted
    (jazz,) = store.facts("al", predicate="likes")
    assert jazz.occurrence_count == 2 and len(jazz.provenance) == 2
    assert jazz.metadata["prompt_version"] == DEFAULT_PROMPT_VERSION
    reasons = {d.op: d.reason for d in store.decisions("al")}
    assert reasons["UPDATE"].startswith("llm UPDATE: moved") and reasons["DELETE"].startswith("llm DELETE: quit")
    assert store.conflicts("al")[0].kind == "explicit_update"
    assert all(e.processed for e in store.episodes("al")) and store.dead_letters("al") == []


def test_malformed_json_is_repaired_without_a_retry(make_store: Any) -> None:
    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        refs = [e[0] for e in prompt.episodes]
        args = ("```json\n{'episodes': [{'episode': '" + refs[0] + "', 'operations': [{'op': 'add', "
                "'subject': 'I', 'predicate': 'Lives In', 'object': 'Oslo', 'confidence': '0.9', "
                "'target_fact': None,}]}, {'episode': " + refs[1][1:] + ", 'operations': []},]}\n```")
        return AIMessage(content="", invalid_tool_calls=[
            {"type": "invalid_tool_call", "name": "record_memory_operations", "args": args, "id": "c1",
             "error": "bad json"}])

    fake = FakeToolChatModel(respond=respond)
    store = _store(make_store, fake)
    _turns(store, "bo", ["I live in Oslo.", "ok"], T0)
    res = store.consolidate("bo")
    assert (res.added, res.episodes_processed, len(fake.calls)) == (1, 2, 1)
    (fact,) = store.facts("bo", predicate="lives_in")
    assert (fact.subject, fact.object, fact.confidence) == ("user", "Oslo", 0.9)


def test_unusable_answer_is_retried_with_feedback(make_store: Any) -> None:
    answers = iter([AIMessage(content="Sorry, I cannot help with that."), None])

    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        return next(answers) or scripted_responder(SCRIPT)(prompt, tools)

    fake = FakeToolChatModel(respond=respond)
    store = _store(make_store, fake)
    _turns(store, "cy", ["I live in Berlin.", "I love jazz."], T0)
    res = store.consolidate("cy")
    assert (res.added, res.episodes_processed, res.failed_episodes, len(fake.calls)) == (2, 2, 0, 2)
    assert "could not be used" in fake.calls[1].text


def test_partial_batch_asks_again_for_the_missing_episodes_only(make_store: Any) -> None:
    scripted = scripted_responder(SCRIPT)

    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        full = scripted(prompt, tools)
        entries = full.tool_calls[0]["args"]["episodes"]
        return ops_message(entries[:2]) if len(fake.calls) == 1 else full

    fake = FakeToolChatModel(respond=respond)
    store = _store(make_store, fake)
    _turns(store, "di", ["I live in Berlin.", "I love jazz.", "I work at Acme as an engineer.",
                         "What's the weather like?"], T0)
    res = store.consolidate("di")
    assert (res.added, res.episodes_processed, res.failed_episodes) == (4, 4, 0)
    assert len(fake.calls) == 2 and [e[0] for e in fake.calls[1].episodes] == ["E3", "E4"]


def test_episode_never_answered_is_dead_lettered_alone_and_retried(make_store: Any) -> None:
    scripted = scripted_responder(SCRIPT)

    def skip_second(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        entries = scripted(prompt, tools).tool_calls[0]["args"]["episodes"]
        return ops_message([e for e in entries if e["episode"] != "E2"])

    fake = FakeToolChatModel(respond=skip_second)
    store = _store(make_store, fake, consolidation={"llm_fallback": "off"})  # the default falls back instead
    _turns(store, "ed", ["I live in Berlin.", "I love jazz.", "I work at Acme as an engineer."], T0)
    res = store.consolidate("ed")
    assert (res.added, res.episodes_processed, res.failed_episodes) == (3, 2, 1)
    assert len(fake.calls) == 3  # first call + max_retries=2 asking for E2 only
    (letter,) = store.dead_letters("ed")
    jazz_ep = next(e for e in store.episodes("ed") if e.content == "I love jazz.")
    assert letter["episode_ids"] == [jazz_ep.id] and "E2" in letter["error"]
    assert not store.get_episodes("ed", [jazz_ep.id])[0].processed
    assert store.consolidate("ed").episodes_processed == 0  # parked: not re-sent by ordinary runs
    good = FakeToolChatModel(respond=scripted)
    retried = store.retry_dead_letters("ed", llm=good)
    assert (retried.added, retried.episodes_processed, retried.failed_episodes) == (1, 1, 0)
    assert store.dead_letters("ed") == [] and all(e.processed for e in store.episodes("ed"))


class RateLimitError(Exception):
    """Shaped like a provider's rate-limit error."""

    retry_after = 0.03


def test_timeouts_and_rate_limits_back_off_then_succeed(make_store: Any) -> None:
    failures: list[BaseException] = [TimeoutError("read timed out"), RateLimitError("429 slow down")]

    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        if failures:
            raise failures.pop(0)
        return scripted_responder(SCRIPT)(prompt, tools)

    waits: list[float] = []
    fake = FakeToolChatModel(respond=respond)
    extractor = LLMExtractor(fake, max_retries=3, backoff=0.01, max_backoff=0.05, sleep=waits.append)
    store = _store(make_store)
    _turns(store, "fi", ["I live in Berlin.", "I love jazz."], T0)
    res = store.consolidate("fi", llm=extractor)
    assert (res.added, res.episodes_processed, res.failed_episodes) == (2, 2, 0)
    assert waits == [0.01, 0.03]  # doubling backoff; the rate limit's retry_after honoured (capped)
    assert extractor.calls == 3


def test_timeout_on_one_batch_never_half_applies_nor_loses_episodes(make_store: Any) -> None:
    scripted = scripted_responder(SCRIPT)

    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        if any(e[3] == "I love jazz." for e in prompt.episodes):
            raise TimeoutError("request timed out")
        return scripted(prompt, tools)

    fake = FakeToolChatModel(respond=respond)
    store = _store(make_store, fake, consolidation={"llm_batch_size": 2})
    texts = ["I live in Berlin.", "What's the weather like?", "I love jazz.", "I work at Acme as an engineer."]
    _turns(store, "gu", texts, T0)
    res = store.consolidate("gu")
    assert (res.added, res.episodes_processed, res.failed_episodes) == (1, 2, 2)
    assert len(fake.calls) == 1 + 3  # batch 1 once; batch 2: first call + 2 retries
    assert store.facts("gu", predicate="works_at") == []  # nothing of the failed batch applied
    (letter,) = store.dead_letters("gu")
    assert "TimeoutError" in letter["error"] and len(letter["episode_ids"]) == 2
    assert sorted(e.content for e in store.episodes("gu") if not e.processed) == sorted(texts[2:])
    again = store.retry_dead_letters("gu", llm=FakeToolChatModel(respond=scripted))
    assert (again.added, again.episodes_processed) == (3, 2)
    assert store.dead_letters() == [] and all(e.processed for e in store.episodes("gu"))


def test_model_that_always_fails_loses_nothing(make_store: Any) -> None:
    def respond(prompt: Prompt, tools: list[dict[str, Any]]) -> AIMessage:
        raise RuntimeError("model server exploded")

    fake = FakeToolChatModel(respond=respond)
    store = _store(make_store, fake, consolidation={"llm_batch_size": 3})
    _turns(store, "ha", [f"I love topic number {i}." for i in range(5)], T0)
    res = store.consolidate("ha")
    assert (res.added, res.episodes_processed, res.failed_episodes) == (0, 0, 5)
    assert len(fake.calls) == 2 * 3 and store.facts("ha") == []
    letters = store.dead_letters("ha")
    assert sorted(len(dl["episode_ids"]) for dl in letters) == [2, 3] and all(dl["attempts"] == 1 for dl in letters)
    assert store.consolidate("ha").failed_episodes == 0 and len(fake.calls) == 6  # parked episodes are not re-sent
    assert store.retry_dead_letters("ha").failed_episodes == 5
    assert sorted(dl["attempts"] for dl in store.dead_letters("ha")) == [2, 2]
    assert len(store.episodes("ha")) == 5 and not any(e.processed for e in store.episodes("ha"))
    res = store.retry_dead_letters("ha", llm=False)  # the deterministic extractor as a fallback
    assert res.episodes_processed == 5 and res.added == 5 and store.dead_letters("ha") == []


def test_failing_transaction_rolls_back_the_whole_batch(make_store: Any, monkeypatch: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    store = _store(make_store, fake)
    _turns(store, "io", ["I live in Berlin.", "I work at Acme as an engineer."], T0)
    real_apply = store.components.facts.apply
    seen: list[str] = []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[2])
        if len(seen) == 2:
            raise OSError("disk full")
        return real_apply(*args, **kwargs)

    monkeypatch.setattr(store.components.facts, "apply", flaky)
    res = store.consolidate("io")
    assert (res.added, res.episodes_processed, res.failed_episodes) == (0, 0, 2)
    assert store.facts("io", include_history=True) == [] and store.decisions("io") == []
    assert store.components.entities.list_entities("io") == []  # entity rows rolled back too
    assert "OSError: disk full" in store.dead_letters("io")[0]["error"]
    monkeypatch.setattr(store.components.facts, "apply", real_apply)
    assert store.retry_dead_letters("io").added == 3


def test_immediate_mode_and_per_call_overrides(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    store = _store(make_store, fake, consolidation={"mode": "immediate"})
    store.add_turn("ju", "user", "I live in Berlin.", timestamp=T0)
    assert [f.object for f in store.facts("ju", predicate="lives_in")] == ["Berlin"] and len(fake.calls) == 1
    store.add_turn("ju", "user", "I love jazz.", timestamp=T0, consolidation="manual")
    assert store.facts("ju", predicate="likes") == []
    det = store.consolidate("ju", llm=False)  # per call: the deterministic extractor
    assert det.added == 1 and len(fake.calls) == 1


def test_background_mode_with_an_llm(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder(SCRIPT))
    store = _store(make_store, fake, consolidation={"mode": "background", "interval_seconds": 60,
                                                    "debounce_seconds": 0.05})
    store.add_turn("ka", "user", "I live in Berlin.", timestamp=T0)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not store.facts("ka", predicate="lives_in"):
        time.sleep(0.05)
    assert [f.object for f in store.facts("ka", predicate="lives_in")] == ["Berlin"]
    store.add_turn("ka", "user", "I love jazz.", timestamp=T0 + timedelta(minutes=1))
    store.close()  # clean shutdown: the final pass consolidates with the LLM
    assert not store._worker.running
    with NovaStore(store.path, embeddings=store.components.embedder) as reopened:
        assert [f.object for f in reopened.facts("ka", predicate="likes")] == ["jazz"]
        assert all(e.processed for e in reopened.episodes("ka"))


def test_llamaindex_llms_through_the_thin_adapter(make_store: Any) -> None:
    from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata

    class JsonLLM(CustomLLM):
        prompts: list[str] = Field(default_factory=list)

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name="fake-json")

        def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
            self.prompts.append(prompt)
            ref = "E1" if "[E1]" in prompt else "E2"
            body = ('{"episodes": [{"episode": "' + ref + '", "operations": [{"op": "ADD", "subject": "user", '
                    '"predicate": "speaks", "object": "Basque", "reason": "says so"}]}]}')
            return CompletionResponse(text="Here you go:\n" + body)

        def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
            raise NotImplementedError

    llm = JsonLLM()
    assert isinstance(as_structured_llm(llm), LlamaIndexLLM)
    store = _store(make_store)
    store.add_turn("li", "user", "I speak Basque.", timestamp=T0)
    res = store.consolidate("li", llm=llm)
    assert (res.added, res.episodes_processed, len(llm.prompts)) == (1, 1, 1)
    assert "JSON schema" in llm.prompts[0]
    assert [f.object for f in store.facts("li", predicate="speaks")] == ["Basque"]


def test_langchain_model_without_tool_support_falls_back_to_json(make_store: Any) -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    body = ('{"episodes": [{"episode": "E1", "operations": [{"op": "ADD", "subject": "user", '
            '"predicate": "diet", "object": "vegan", "reason": "says so"}]}]}')
    model = GenericFakeChatModel(messages=iter([AIMessage(content=body)]))
    assert isinstance(as_structured_llm(model), LangChainChatLLM)
    store = _store(make_store)
    store.add_turn("mo", "user", "I'm vegan.", timestamp=T0)
    assert store.consolidate("mo", llm=model).added == 1


def test_prompts_are_versioned_with_their_schema() -> None:
    spec = get_prompt()
    assert spec.version == DEFAULT_PROMPT_VERSION and get_prompt(DEFAULT_PROMPT_VERSION) is spec
    assert tool_name(spec.schema) == "record_memory_operations"
    with pytest.raises(KeyError):
        get_prompt("consolidation-v0")
    parsed = spec.schema.model_validate({"episodes": [{"episode": 1, "operations": [
        {"op": "remove", "subject": "user", "predicate": "x", "object": 3, "confidence": "85%"}]}]})
    op = parsed.episodes[0].operations[0]
    assert (parsed.episodes[0].episode, op.op, op.object, op.confidence) == ("E1", "DELETE", "3", 0.85)


@pytest.mark.parametrize(
    ("text", "value", "truncated"),
    [
        ('{"a": [1, 2,],}', {"a": [1, 2]}, False),
        ("```json\n{'a': True, 'b': None}\n```", {"a": True, "b": None}, False),
        ('noise {"episodes": [{"episode": "E1", "operations": []}, {"episode": "E2", "operations": [{"op": "AD',
         {"episodes": [{"episode": "E1", "operations": []}, {"episode": "E2", "operations": [{"op": "AD"}]}]}, True),
        ('{"episodes": [{"episode": "E1", "operations": [{"op": "ADD", "subj', {"episodes": [{"episode": "E1",
                                                                                    "operations": [{"op": "ADD"}]}]},
         True),
    ],
)
def test_repair_json(text: str, value: Any, truncated: bool) -> None:
    assert repair_json(text) == (value, truncated)
    with pytest.raises(ValueError):
        repair_json("no json at all")


def test_llamaindex_function_calling_llm_uses_tool_calls(make_store: Any) -> None:
    import json

    from llama_index.core.base.llms.types import ChatMessage, ChatResponse, LLMMetadata
    from llama_index.core.llms.function_calling import FunctionCallingLLM
    from llama_index.core.llms.llm import ToolSelection

    class ToolLLM(FunctionCallingLLM):
        seen_tools: list[str] = Field(default_factory=list)

        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(model_name="fake-tools", is_function_calling_model=True)

        def _prepare_chat_with_tools(self, tools: Any, user_msg: Any = None, chat_history: Any = None,
                                     **kwargs: Any) -> dict[str, Any]:
            self.seen_tools.extend(t.metadata.name for t in tools)
            return {"messages": list(chat_history or [])}

        def chat(self, messages: Any, **kwargs: Any) -> ChatResponse:
            ref = "E1"
            args = json.dumps({"episodes": [{"episode": ref, "operations": [
                {"op": "ADD", "subject": "user", "predicate": "studies", "object": "Korean", "reason": "says so"}]}]})
            args = args[:-1] + ",}"  # malformed (trailing comma): the adapter falls back to the raw arguments
            call = {"id": "c1", "type": "function", "function": {"name": "record_memory_operations", "arguments": args}}
            return ChatResponse(message=ChatMessage(role="assistant", content="", additional_kwargs={
                "tool_calls": [call]}))

        def get_tool_calls_from_response(self, response: ChatResponse, error_on_no_tool_call: bool = True,
                                         **kwargs: Any) -> list[ToolSelection]:
            calls = response.message.additional_kwargs.get("tool_calls", [])
            return [ToolSelection(tool_id=c["id"], tool_name=c["function"]["name"],
                                  tool_kwargs=json.loads(c["function"]["arguments"])) for c in calls]

        def complete(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError

        stream_chat = stream_complete = achat = acomplete = astream_chat = astream_complete = complete

    llm = ToolLLM()
    store = _store(make_store)
    store.add_turn("ni", "user", "I started learning Korean.", timestamp=T0)
    res = store.consolidate("ni", llm=llm)
    assert (res.added, res.failed_episodes) == (1, 0) and llm.seen_tools == ["record_memory_operations"]
    assert [f.object for f in store.facts("ni", predicate="studies")] == ["Korean"]


def test_related_facts_prefer_mentioned_entities_and_similar_facts(make_store: Any) -> None:
    fake = FakeToolChatModel(respond=scripted_responder({}))
    store = _store(make_store, fake, consolidation={"llm_context_facts": 4})
    for i in range(30):
        store.add_fact("ol", "user", "likes", f"board game number {i}", valid_from=T0)
    store.add_fact("ol", "user", "sister_name", "Anna", valid_from=T0)
    store.add_fact("ol", "Anna", "lives_in", "Vienna", valid_from=T0)
    store.add_fact("ol", "Anna", "works_at", "Erste Bank", valid_from=T0)
    store.add_fact("ol", "user", "lives_in", "Graz", valid_from=T0)
    store.flush()
    store.add_turn("ol", "user", "Anna told me she is leaving Erste Bank.", timestamp=T0 + timedelta(days=1))
    store.consolidate("ol")
    shown = list(fake.calls[0].facts.values())
    assert len(shown) == 4
    assert {"anna works_at Erste Bank", "anna lives_in Vienna", "user sister_name Anna"} <= set(shown)


def test_delete_without_object_negates_every_held_value(make_store: Any) -> None:
    script = {
        "I work at Acme and at Globex.": [
            {"op": "ADD", "subject": "user", "predicate": "plays", "object": "chess"},
            {"op": "ADD", "subject": "user", "predicate": "plays", "object": "go"}],
        "I don't play any games anymore.": [{"op": "DELETE", "subject": "I", "predicate": "plays", "object": "",
                                             "reason": "stopped all games"}],
        "Nothing to forget here.": [{"op": "DELETE", "subject": "user", "predicate": "owns", "object": ""}],
    }
    store = _store(make_store, FakeToolChatModel(respond=scripted_responder(script)))
    store.add_turn("pa", "user", "I work at Acme and at Globex.", timestamp=T0)
    store.consolidate("pa")
    store.add_turn("pa", "user", "I don't play any games anymore.", timestamp=T0 + timedelta(days=2))
    store.add_turn("pa", "user", "Nothing to forget here.", timestamp=T0 + timedelta(days=2))
    res = store.consolidate("pa")
    assert (res.invalidated, res.noop, res.failed_episodes) == (2, 1, 0)
    assert store.facts("pa", predicate="plays") == []
    assert {f.object for f in store.facts("pa", predicate="plays", as_of=T0 + timedelta(days=1))} == {"chess", "go"}


def test_unknown_prompt_version_is_a_config_error() -> None:
    from nova_memory_integrations import ConfigError

    with pytest.raises(ConfigError, match="consolidation-v9"):
        LLMExtractor(FakeToolChatModel(respond=scripted_responder({})), prompt_version="consolidation-v9")


def test_named_speakers_are_the_subject_of_their_first_person_facts(make_store: Any) -> None:
    script = {text: [{"op": "ADD", "subject": "I", "predicate": "lives_in", "object": city}]
              for text, city in (("I live in Boston.", "Boston"), ("I live in Denver.", "Denver"))}
    store = _store(make_store, FakeToolChatModel(respond=scripted_responder(script)))
    store.add_turn("chat", "Caroline", "I live in Boston.", timestamp=T0)
    store.add_turn("chat", "Melanie", "I live in Denver.", timestamp=T0)
    store.consolidate("chat")
    lives = {(f.subject, f.object) for f in store.facts("chat", predicate="lives_in")}
    assert lives == {("caroline", "Boston"), ("melanie", "Denver")}
