"""``_tracing`` without a configured provider: a no-op that builds no attribute; with one, spans record."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from nova_memory_integrations import _tracing


@pytest.fixture
def exporter() -> Iterator[InMemorySpanExporter]:
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    _tracing.use(provider)
    yield spans
    _tracing.use()
    provider.shutdown()


def test_without_a_provider_no_span_records_and_no_attribute_is_built() -> None:
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)  # no test sets the global one

    def attributes() -> dict[str, str]:
        raise AssertionError("attributes built for a span that does not record")

    with _tracing.span("nova_memory.test", attributes) as current:
        assert not current.is_recording()
        assert trace.get_current_span() is trace.INVALID_SPAN  # no context switch for a span nothing records
        _tracing.text(current, True, "nova_memory.content", "secret")
        assert _tracing.current_link() is None


def test_with_a_provider_spans_nest_and_text_needs_the_setting(exporter: InMemorySpanExporter) -> None:
    with _tracing.span("outer", lambda: {_tracing.USER_ID: "u1"}) as outer:
        assert outer.is_recording()
        link = _tracing.current_link()
        with _tracing.span("inner") as inner:
            _tracing.text(inner, False, "nova_memory.content", "hidden words")
            _tracing.text(inner, True, "nova_memory.query", "shown words")
    inner_span, outer_span = exporter.get_finished_spans()
    assert inner_span.parent is not None and inner_span.parent.span_id == outer_span.context.span_id
    assert dict(outer_span.attributes or {}) == {_tracing.USER_ID: "u1"}
    assert dict(inner_span.attributes or {}) == {"nova_memory.query": "shown words"}
    assert link is not None and link.span_id == outer_span.context.span_id


def test_links_are_one_per_span_whatever_the_number_of_rows(exporter: InMemorySpanExporter) -> None:
    with _tracing.span("a"):
        a = _tracing.current_link()
    with _tracing.span("b"):
        b = _tracing.current_link()
    assert [link.context.span_id for link in _tracing.links([a, None, b, a, b])] == [
        c.span_id for c in (a, b) if c is not None]


def test_an_exception_is_recorded_on_the_span_and_raised(exporter: InMemorySpanExporter) -> None:
    with pytest.raises(ValueError, match="boom"), _tracing.span("failing"):
        raise ValueError("boom")
    (failed,) = exporter.get_finished_spans()
    assert failed.status.status_code is trace.StatusCode.ERROR
    assert [e.name for e in failed.events] == ["exception"]


def test_a_span_a_sampler_dropped_is_current_so_its_children_are_dropped_too() -> None:
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    spans = InMemorySpanExporter()
    provider = TracerProvider(sampler=ALWAYS_OFF)
    provider.add_span_processor(SimpleSpanProcessor(spans))
    _tracing.use(provider)
    try:
        with _tracing.span("dropped") as outer:
            assert not outer.is_recording() and outer.get_span_context().is_valid
            assert trace.get_current_span() is outer
            with _tracing.span("child") as child:
                assert child.get_span_context().trace_id == outer.get_span_context().trace_id
    finally:
        _tracing.use()
        provider.shutdown()
    assert spans.get_finished_spans() == ()
