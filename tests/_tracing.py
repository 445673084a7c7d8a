"""An in-memory OpenTelemetry exporter for tests: this process's tracer provider, set once; and
an OTLP/HTTP collector that gathers the spans a traced service exports from its own process.

Calling :func:`span_exporter` also loads OpenTelemetry's trace API, which is what makes the SDK
and the service find tracing in use (sdk/_tracing.py, server/tracing.py): call it before making
the client, worker or app a test traces.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

from opentelemetry import trace
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

__all__ = [
    "TRACEPARENT",
    "CollectedSpan",
    "OtlpCollector",
    "span_exporter",
    "spans_named",
    "traceparent_of",
]

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


# OTLP numbers span kinds from 1 (SPAN_KIND_INTERNAL); the API's SpanKind from 0.
_OTLP_KINDS = {number + 1: kind for number, kind in enumerate(SpanKind)}
_COLLECT_TIMEOUT = 60.0


@dataclass(frozen=True)
class CollectedSpan:
    """A span as another process exported it: ids as the API numbers them, no parent for a root."""

    service: str
    name: str
    kind: SpanKind
    trace_id: int
    span_id: int
    parent_id: int | None
    attributes: dict[str, object]
    links: list[tuple[int, int]]


def _value(value: AnyValue) -> object:
    kind = value.WhichOneof("value")
    return None if kind is None else getattr(value, kind)


def _spans(request: ExportTraceServiceRequest) -> list[CollectedSpan]:
    found = []
    for resource_spans in request.resource_spans:
        resource = {item.key: _value(item.value) for item in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                found.append(
                    CollectedSpan(
                        service=str(resource.get("service.name")),
                        name=span.name,
                        kind=_OTLP_KINDS[span.kind],
                        trace_id=int.from_bytes(span.trace_id),
                        span_id=int.from_bytes(span.span_id),
                        parent_id=int.from_bytes(span.parent_span_id)
                        if span.parent_span_id
                        else None,
                        attributes={item.key: _value(item.value) for item in span.attributes},
                        links=[
                            (int.from_bytes(link.trace_id), int.from_bytes(link.span_id))
                            for link in span.links
                        ],
                    )
                )
    return found


class OtlpCollector:
    """An OTLP/HTTP trace receiver on 127.0.0.1: point ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` at
    ``endpoint`` and read what arrives from ``spans``.
    """

    def __init__(self) -> None:
        self._spans: list[CollectedSpan] = []
        self._arrived = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def endpoint(self) -> str:
        """The URL the exporter posts to."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1/traces"

    def clear(self) -> None:
        """Forget the spans collected so far."""
        with self._arrived:
            self._spans.clear()

    def spans(self) -> list[CollectedSpan]:
        """Every span collected so far, in the order they arrived."""
        with self._arrived:
            return list(self._spans)

    def wait_for(self, *names: str, timeout: float = _COLLECT_TIMEOUT) -> list[CollectedSpan]:
        """Every span collected, once one of each of ``names`` is among them; AssertionError
        after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        with self._arrived:
            while missing := set(names) - {span.name for span in self._spans}:
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"no span {sorted(missing)} among {self._spans!r}"
                self._arrived.wait(remaining)
            return list(self._spans)

    def _collect(self, body: bytes) -> None:
        spans = _spans(ExportTraceServiceRequest.FromString(body))
        with self._arrived:
            self._spans.extend(spans)
            self._arrived.notify_all()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        collector = self

        class Handler(BaseHTTPRequestHandler):
            """Takes one export request; an empty 200 is a full success to the exporter."""

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                collector._collect(self.rfile.read(length))
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                """Keep the test output quiet."""

        return Handler
