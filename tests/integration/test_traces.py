"""OpenTelemetry spans and metrics, checked with the SDK's in-memory exporter and metric reader over a real
store (SQLite, Chroma, MiniLM): the span tree of one ``context()`` call, of one agent step through
``NovaMemory``, of one proxied chat; no memory text on any span unless ``[tracing] content`` is on.

Each test hands its own providers to ``_tracing.use`` (the API's global providers can be set once per
process), and the fixture puts the global ones back afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind
from server_harness import wait_for

from nova_memory_integrations import NovaStore, _tracing
from nova_memory_integrations.config import NovaConfig, TracingConfig
from nova_memory_integrations.langchain import NovaMemory
from nova_memory_integrations.langchain.testing import EchoMemoryChatModel
from nova_memory_integrations.retrieval.search_config import SearchConfig

USER = "alice"
TURN = "My zebrafish Quillon eats saffron pellets every morning."
QUESTION = "What does Quillon eat?"
SECRET_WORDS = ("zebrafish", "quillon", "saffron", "pellets")
"""The test's distinctive words: none may reach a span unless content tracing is on."""
STAGES = ["nova_memory.recall.signals", "nova_memory.recall.fusion", "nova_memory.recall.rerank",
          "nova_memory.recall.compress", "nova_memory.recall.assemble"]
RERANKED = SearchConfig(rerank=True)
"""Reranks with whichever reranker the store has (the model-free fallback offline), so the stage runs."""


@dataclass
class Traced:
    provider: TracerProvider
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader

    def finished(self) -> list[ReadableSpan]:
        self.provider.force_flush()
        return sorted(self.spans.get_finished_spans(), key=lambda s: s.start_time or 0)

    def named(self, name: str) -> list[ReadableSpan]:
        return [s for s in self.finished() if s.name == name]

    def children(self, parent: ReadableSpan) -> list[ReadableSpan]:
        pid = parent.context.span_id
        return [s for s in self.finished() if s.parent is not None and s.parent.span_id == pid]

    def metric(self, name: str) -> list[Any]:
        data = self.metrics.get_metrics_data()
        return [point for rm in (data.resource_metrics if data else []) for sm in rm.scope_metrics
                for m in sm.metrics if m.name == name for point in m.data.data_points]


@pytest.fixture
def traced() -> Iterator[Traced]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    reader = InMemoryMetricReader()
    meters = MeterProvider(metric_readers=[reader])
    _tracing.use(provider, meters)
    yield Traced(provider, exporter, reader)
    _tracing.use()
    provider.shutdown()
    meters.shutdown()


def _texts(spans: list[ReadableSpan]) -> str:
    """Every attribute value of every span and of its events, lower-cased, in one string."""
    values: list[str] = []
    for s in spans:
        values += [str(v) for v in (s.attributes or {}).values()]
        values += [str(v) for e in s.events for v in (e.attributes or {}).values()]
    return "\n".join(values).lower()


def _ancestors(span: ReadableSpan, spans: list[ReadableSpan]) -> list[str]:
    by_id = {s.context.span_id: s for s in spans}
    names, parent = [], span.parent
    while parent is not None and parent.span_id in by_id:
        names.append(by_id[parent.span_id].name)
        parent = by_id[parent.span_id].parent
    return names


def test_one_context_call_is_a_span_with_its_five_stages_in_order_under_the_callers_span(
        store: NovaStore, traced: Traced) -> None:
    store.add_turn(USER, "user", TURN)
    store.components.indexer.wait(USER, timeout=60)
    app = traced.provider.get_tracer("the app")
    with app.start_as_current_span("agent step") as step:
        result = store.context(QUESTION, USER, preset=RERANKED)
    assert "Quillon" in result.text  # the recall worked, so the spans describe a real one

    (context,) = traced.named("nova_memory.context")
    assert context.parent is not None and context.parent.span_id == step.get_span_context().span_id
    assert [s.name for s in traced.children(context)] == STAGES
    attrs = context.attributes or {}
    assert attrs["gen_ai.operation.name"] == "retrieval"
    assert attrs[_tracing.USER_ID] == USER
    assert attrs["nova_memory.context.tokens"] == result.tokens
    assert attrs["nova_memory.context.sources"] == len(result.sources)
    (signals,) = traced.named("nova_memory.recall.signals")
    assert (signals.attributes or {})["nova_memory.candidates"] >= 1

    (latency,) = traced.metric("nova_memory.context.duration")
    assert latency.count == 1 and latency.sum > 0
    (tokens,) = traced.metric("nova_memory.context.tokens")
    assert tokens.count == 1 and tokens.sum == result.tokens

    spans = traced.finished()
    assert {"nova_memory.capture", "nova_memory.index.batch"} <= {s.name for s in spans}
    leaked = [w for w in SECRET_WORDS if w in _texts(spans)]
    assert leaked == []


def test_the_index_batch_links_to_the_capture_that_queued_its_rows(store: NovaStore, traced: Traced) -> None:
    store.add_turn(USER, "user", TURN)
    store.components.indexer.wait(USER, timeout=60)
    (capture,) = traced.named("nova_memory.capture")
    batches = traced.named("nova_memory.index.batch")
    assert [link.context.span_id for b in batches for link in b.links] == [capture.context.span_id]
    assert [p.value for p in traced.metric("nova_memory.index.queue_depth")] == [0]


def test_memory_text_is_on_the_spans_only_when_turned_on(make_store: Any, traced: Traced) -> None:
    store = make_store(config=NovaConfig(tracing=TracingConfig(content=True)))
    store.add_turn(USER, "user", TURN)
    store.consolidate(USER)
    store.context(QUESTION, USER)
    (context,) = traced.named("nova_memory.context")
    assert (context.attributes or {})["gen_ai.retrieval.query.text"] == QUESTION
    assert "saffron" in str((context.attributes or {})["nova_memory.context.text"])
    (capture,) = traced.named("nova_memory.capture")
    assert (capture.attributes or {})["nova_memory.content"] == TURN
    assert (capture.attributes or {})[_tracing.USER_ID] == USER
    assert all(w in _texts(traced.finished()) for w in SECRET_WORDS)


def test_a_consolidation_run_has_its_batches_and_decisions_without_their_words(
        store: NovaStore, traced: Traced) -> None:
    store.add_turn(USER, "user", "I live in Quillon Harbour.")
    result = store.consolidate(USER)
    assert result.added >= 1
    (run,) = traced.named("nova_memory.consolidation.run")
    (batch,) = traced.children(run)
    assert batch.name == "nova_memory.consolidation.batch"
    ops = [e.attributes["nova_memory.decision.op"] for e in batch.events if e.name == "nova_memory.decision"]
    assert ops.count("ADD") == result.added
    counted = {p.attributes["nova_memory.decision.op"]: p.value for p in traced.metric(
        "nova_memory.consolidation.decisions")}
    assert counted["ADD"] == result.added
    assert "quillon" not in _texts(traced.finished())


def test_one_agent_step_through_novamemory_shows_the_memory_inside_it(store: NovaStore, traced: Traced) -> None:
    store.add_turn(USER, "user", TURN)
    store.components.indexer.wait(USER, timeout=60)
    agent = create_agent(EchoMemoryChatModel(), [], system_prompt="You are helpful.",
                         middleware=[NovaMemory(store, user_id=USER, consolidation="manual")],
                         checkpointer=InMemorySaver())
    with traced.provider.get_tracer("the app").start_as_current_span("agent step") as step:
        out = agent.invoke({"messages": [{"role": "user", "content": QUESTION}]},
                           {"configurable": {"thread_id": "t1"}})
    assert "saffron" in str(out["messages"][-1].content)  # the echo model quoted the recalled turn

    spans = traced.finished()
    trace_id = step.get_span_context().trace_id
    (context,) = traced.named("nova_memory.context")
    captures = [s for s in traced.named("nova_memory.capture") if s.context.trace_id == trace_id]
    assert context.context.trace_id == trace_id and "agent step" in _ancestors(context, spans)
    assert captures and all("agent step" in _ancestors(c, spans) for c in captures)
    assert [s.name for s in traced.children(context)][:2] == STAGES[:2]
    assert [w for w in SECRET_WORDS if w in _texts(spans)] == []


def test_one_llamaindex_step_shows_the_recall_and_the_capture_inside_it(store: NovaStore, traced: Traced) -> None:
    """A LlamaIndex query engine over ``NovaRetriever`` and a ``nova_memory`` Memory, run inside the app's
    span (as OpenInference makes one per step): the recall stages and the capture nest under it,
    through LlamaIndex's own async and thread hops."""
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.query_engine import RetrieverQueryEngine

    from nova_memory_integrations.llama_index import NovaRetriever, nova_memory
    from nova_memory_integrations.llama_index.testing import ExtractiveMemoryLLM

    store.add_turn(USER, "user", TURN)
    store.components.indexer.wait(USER, timeout=60)
    engine = RetrieverQueryEngine.from_args(retriever=NovaRetriever(store, USER), llm=ExtractiveMemoryLLM())
    memory = nova_memory(store, USER)
    with traced.provider.get_tracer("the app").start_as_current_span("llama step") as step:
        answer = engine.query(QUESTION)
        memory.put(ChatMessage(role="user", content="Quillon also likes saffron flakes."))
    assert "saffron" in str(answer).lower()  # the extractive LLM answered from the recalled turn

    spans = traced.finished()
    trace_id = step.get_span_context().trace_id
    inside = [s for s in spans if s.context.trace_id == trace_id]
    signals = [s for s in inside if s.name == "nova_memory.recall.signals"]
    captures = [s for s in inside if s.name == "nova_memory.capture"]
    assert signals and all("llama step" in _ancestors(s, spans) for s in signals)
    assert captures and all("llama step" in _ancestors(c, spans) for c in captures)
    assert [w for w in SECRET_WORDS if w in _texts(spans)] == []


def test_one_proxied_chat_is_a_server_span_with_the_recall_and_the_upstream_call(
        store: NovaStore, serve: Any, traced: Traced) -> None:
    store.add_turn(USER, "user", TURN)
    store.components.indexer.wait(USER, timeout=60)
    srv = serve()
    resp = httpx.post(f"{srv.url}/v1/chat/completions", timeout=60, headers={"Authorization": "Bearer sk-x"},
                      json={"model": "echo", "user": USER, "messages": [{"role": "user", "content": QUESTION}]})
    assert resp.status_code == 200

    (chat,) = traced.named("nova_memory.proxy.chat")
    assert chat.kind is SpanKind.SERVER
    children = [s for s in traced.children(chat) if s.name != "nova_memory.capture"]  # the capture: below
    assert [s.name for s in children] == ["nova_memory.context", "chat echo"]
    call = children[1]
    assert call.kind is SpanKind.CLIENT
    attrs = call.attributes or {}
    assert attrs["gen_ai.operation.name"] == "chat" and attrs["gen_ai.request.model"] == "echo"
    assert attrs["server.address"] == "127.0.0.1" and attrs["http.response.status_code"] == 200
    assert [s.name for s in traced.children(children[0])][:2] == STAGES[:2]
    wait_for(lambda: len(store.episodes(USER)) == 3)  # the exchange, captured on the proxy's capture thread
    wait_for(lambda: traced.named("nova_memory.capture")[1:])
    capture = traced.named("nova_memory.capture")[-1]
    assert capture.parent is not None and capture.parent.span_id == chat.context.span_id
    assert [w for w in SECRET_WORDS if w in _texts(traced.finished())] == []


class _FailingSource:
    """A consolidation source that fails every batch (an LLM that is down)."""

    def plan(self, user_id: str, batch: Any, related: Any) -> Any:
        raise RuntimeError("the model is down")


def test_a_failed_batch_counts_its_dead_lettered_episodes(
        store: NovaStore, traced: Traced) -> None:
    store.add_turns([{"user_id": USER, "role": "user", "content": "I live in Oslo."},
                     {"user_id": USER, "role": "user", "content": "I work at Acme."}])
    result = store._consolidation.consolidator.run(USER, _FailingSource())  # type: ignore[arg-type]
    assert result.failed_episodes == 2 and len(store.dead_letters(USER)) == 1
    (batch,) = traced.named("nova_memory.consolidation.batch")
    assert (batch.attributes or {})["nova_memory.dead_lettered"] == 2
    assert [p.value for p in traced.metric("nova_memory.consolidation.dead_letters")] == [2]
