"""An in-memory OpenTelemetry exporter for tests: this process's tracer provider, set once.

Calling :func:`span_exporter` also loads OpenTelemetry's trace API, which is what makes the SDK
and the service find tracing in use (sdk/_tracing.py, server/tracing.py): call it before making
the client, worker or app a test traces.
"""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

__all__ = ["TRACEPARENT", "span_exporter", "spans_named", "traceparent_of"]

# A W3C traceparent as a publisher sends it (trace 4bf9…4736, parent span 00f0…02b7, sampled).
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

_exporter: list[InMemorySpanExporter] = []


def span_exporter() -> InMemorySpanExporter:
    """The process's in-memory exporter (made and installed on first use), emptied."""
    if not _exporter:
        provider = TracerProvider()
        exporter = InMemorySpanExporter()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        _exporter.append(exporter)
    _exporter[0].clear()
    return _exporter[0]


def spans_named(exporter: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    """The finished spans called ``name``, oldest first."""
    return [span for span in exporter.get_finished_spans() if span.name == name]


def traceparent_of(span: ReadableSpan) -> str:
    """The traceparent that names ``span`` as the parent."""
    context = span.get_span_context()
    assert context is not None
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"
