"""OpenTelemetry spans and metrics of the engine: opt-in, a no-op until a provider is configured.

Only ``opentelemetry-api`` is imported. With no tracer provider set (neither the global one,
``opentelemetry.trace.set_tracer_provider``, nor :func:`use`), every span is the API's
non-recording span: :func:`span` builds no attribute (it asks ``span.is_recording()`` first),
so tracing off costs a context switch per stage and nothing else.

Spans nest under the caller's current span (the OpenTelemetry context), so a LangChain or
LlamaIndex run traced by OpenInference, LangSmith or Langfuse shows the memory inside the agent
step. Background work (the indexer's batches) is linked to the spans that queued its rows.

What goes on a span: counts, ids, sizes, timings and the user id (an identifier applications
already put on their spans; ``nova_memory.user_id``). Never the memory or query text, unless
``[tracing] content = true`` (:func:`text`). Names follow the GenAI semantic conventions where
they exist (``gen_ai.operation.name``, ``gen_ai.request.model`` on the proxy's upstream call);
the rest are ``nova_memory.*``.

A leaf: standard library and ``opentelemetry-api`` only, importable from every layer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.trace import Link, Span, SpanContext, SpanKind

__all__ = [
    "SCOPE", "USER_ID", "Instruments", "context_call", "current_link", "instruments", "links", "resumed", "snapshot",
    "span", "text", "tracer", "use",
]

SCOPE = "nova_memory_integrations"
"""The instrumentation scope name of every span and instrument."""
USER_ID = "nova_memory.user_id"
"""The attribute holding the user a span's work is for (the id as given; no memory text)."""
AttributeValue = str | bool | int | float

_lock = threading.Lock()
_tracer_provider: trace.TracerProvider | None = None
_meter_provider: metrics.MeterProvider | None = None
_tracer: trace.Tracer | None = None
_instruments: Instruments | None = None


def use(tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None) -> None:
    """Send this package's spans and metrics to these providers instead of the global ones.

    The API lets the global providers be set once per process; tests (and applications that keep
    several pipelines apart) hand theirs here. ``use()`` with no argument goes back to the global
    providers.
    """
    global _tracer_provider, _meter_provider, _tracer, _instruments
    with _lock:
        _tracer_provider, _meter_provider = tracer_provider, meter_provider
        _tracer, _instruments = None, None


def tracer() -> trace.Tracer:
    """The package's tracer (the global provider's, a proxy until one is set, or :func:`use`'s)."""
    global _tracer
    found = _tracer
    if found is None:
        with _lock:
            found = _tracer = trace.get_tracer(SCOPE, tracer_provider=_tracer_provider)
    return found


@contextmanager
def span(
    name: str,
    attributes: Callable[[], Mapping[str, AttributeValue]] | None = None,
    *,
    kind: SpanKind = SpanKind.INTERNAL,
    links: list[Link] | None = None,
) -> Iterator[Span]:
    """A span under the current one; ``attributes`` is called only when the span records.

    An exception leaving the block is recorded on the span (status ERROR) and re-raised. With no
    provider the API's no-op tracer hands back the parent's context as a non-recording span: that is
    yielded as it is, without making it current (a context switch costs ten times the span), so
    tracing off adds about a microsecond per span. A span a real sampler dropped has an id of its
    own and is made current, so that its children are dropped with it.
    """
    current = tracer().start_span(name, kind=kind, links=links)
    if not current.is_recording():
        own = current.get_span_context()
        if not own.is_valid or own == trace.get_current_span().get_span_context():
            yield current
            return
    elif attributes is not None:
        current.set_attributes(attributes())
    with trace.use_span(current, end_on_exit=True):
        yield current


def text(current: Span, enabled: bool, key: str, value: str) -> None:
    """Put memory or query text on ``current`` only when the user turned it on
    (``[tracing] content = true``) and the span records."""
    if enabled and current.is_recording():
        current.set_attribute(key, value)


def snapshot() -> otel_context.Context:
    """The current OpenTelemetry context, to carry work handed to another thread (:func:`resumed`)."""
    return otel_context.get_current()


@contextmanager
def resumed(carried: otel_context.Context | None) -> Iterator[None]:
    """Run the block in a context :func:`snapshot` took on another thread (spans nest under its span)."""
    if carried is None:
        yield
        return
    token = otel_context.attach(carried)
    try:
        yield
    finally:
        otel_context.detach(token)


def current_link() -> SpanContext | None:
    """The current span's context, to link background work to (``None`` outside any recorded span)."""
    context = trace.get_current_span().get_span_context()
    return context if context.is_valid and context.trace_flags.sampled else None


class Instruments:
    """The package's metrics, created once per meter provider."""

    def __init__(self, meter: metrics.Meter) -> None:
        self.context_duration = meter.create_histogram(
            "nova_memory.context.duration", unit="s", description="Time of one context() call")
        self.context_tokens = meter.create_histogram(
            "nova_memory.context.tokens", unit="{token}", description="Tokens of memory one context() call injects")
        self.decisions = meter.create_counter(
            "nova_memory.consolidation.decisions", unit="{decision}",
            description="Consolidation decisions, by nova_memory.decision.op (ADD, UPDATE, DELETE, NOOP)")
        self.dead_letters = meter.create_counter(
            "nova_memory.consolidation.dead_letters", unit="{episode}",
            description="Episodes a failed consolidation batch parked in a dead letter")
        self.queue_depth = meter.create_gauge(
            "nova_memory.index.queue_depth", unit="{row}", description="Rows waiting for the background indexer")
        self.index_lag = meter.create_gauge(
            "nova_memory.index.lag", unit="s",
            description="How long rows have waited for the indexer without a break (0 when it is caught up)")


def instruments() -> Instruments:
    """The package's instruments on the global meter provider (or :func:`use`'s)."""
    global _instruments
    found = _instruments
    if found is None:
        with _lock:
            found = _instruments = Instruments(metrics.get_meter(SCOPE, meter_provider=_meter_provider))
    return found


@contextmanager
def context_call(user_id: str, query: str, budget_tokens: int, *, content: bool) -> Iterator[Callable[[Any], None]]:
    """The span and metrics of one ``context()`` call; the block calls what it yields with the result.

    The span is a GenAI ``retrieval`` (``gen_ai.data_source.id`` ``nova_memory``); the query text
    (``gen_ai.retrieval.query.text``) and the injected text (``nova_memory.context.text``) only
    with ``content``.
    """
    start = time.perf_counter()
    with span("nova_memory.context", lambda: {
        "gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": "nova_memory", USER_ID: user_id,
        "nova_memory.budget_tokens": budget_tokens,
    }) as current:
        text(current, content, "gen_ai.retrieval.query.text", query)

        def done(result: Any) -> None:
            if current.is_recording():
                current.set_attributes({"nova_memory.context.tokens": result.tokens,
                                        "nova_memory.context.sources": len(result.sources),
                                        "nova_memory.context.dropped": len(result.dropped)})
                text(current, content, "nova_memory.context.text", result.text)
            measure = instruments()
            measure.context_duration.record(time.perf_counter() - start)
            measure.context_tokens.record(result.tokens)

        yield done


def links(contexts: Any) -> list[Link]:
    """Links to the distinct span contexts of ``contexts`` (``None`` entries skipped)."""
    distinct = {(c.trace_id, c.span_id): c for c in contexts if c is not None}  # SpanContext is unhashable
    return [Link(c) for c in distinct.values()]
