"""Trace propagation against the real service, with OpenTelemetry in use in the test process:
publishes send their PRODUCER span's context, the service keeps it, workers link their CONSUMER
spans to it, and HTTP deliveries carry the publisher's trace to the receiver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

import sdk
from sdk._embedded import EmbeddedService
from tests._tracing import span_exporter, spans_named, traceparent_of
from tests.e2e._receivers import ScriptedReceiver
from tests.e2e.conftest import AnyClient
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow

RUN_LIMIT = 60


@pytest.fixture
def spans() -> InMemorySpanExporter:
    """The in-memory exporter, installed before any client of the test is made."""
    return span_exporter()


@pytest.fixture(params=["sync", "async", "batching"])
async def traced(
    request: pytest.FixtureRequest, spans: InMemorySpanExporter, service: EmbeddedService
) -> AsyncIterator[AnyClient]:
    """A Client, an AsyncClient and a batching AsyncClient made with tracing in use."""
    if request.param == "sync":
        with sdk.Client(service.base_url, service.token) as sync_client:
            yield sync_client
    else:
        async with sdk.AsyncClient(
            service.base_url, service.token, batching=request.param == "batching"
        ) as async_client:
            yield async_client


def _trace_id(traceparent: str | None) -> int:
    assert traceparent is not None
    return int(traceparent.split("-")[1], 16)


async def test_a_stream_publish_keeps_its_producer_spans_context(
    traced: AnyClient, spans: InMemorySpanExporter, name: Callable[[str], str]
) -> None:
    """The entry's traceparent names the PRODUCER span, a child of the caller's span."""
    stream = name("orders")
    with trace.get_tracer("test").start_as_current_span("checkout") as caller:
        await resolve(traced.publish(stream, {"id": 1}))
    [producer] = spans_named(spans, f"spool publish {stream}")
    assert producer.kind is SpanKind.PRODUCER
    assert producer.parent is not None
    assert producer.parent.span_id == caller.get_span_context().span_id
    assert producer.attributes == {
        "messaging.system": "spool",
        "messaging.destination.name": stream,
        "messaging.operation.type": "publish",
    }
    [entry] = await resolve(traced.streams.range(stream))
    assert entry.traceparent == traceparent_of(producer)


async def test_a_consumer_span_links_to_the_producer_span(
    traced: AnyClient, spans: InMemorySpanExporter, name: Callable[[str], str]
) -> None:
    """run(): each handler runs in a CONSUMER span linked to the span that published its item."""
    orders = sdk.Stream(name("orders"), group="billing")
    handled: list[Any] = []

    @traced.subscribe(orders, start_id="0")
    def handle(order: Any) -> None:
        handled.append(trace.get_current_span().get_span_context().trace_id)

    with trace.get_tracer("test").start_as_current_span("checkout"):
        await resolve(traced.publish(orders, {"id": 1}))
    await resolve(traced.run(max_messages=1, stop_after=RUN_LIMIT))
    [producer] = spans_named(spans, f"spool publish {orders.name}")
    [consumer] = spans_named(spans, f"spool process {orders.name}")
    assert consumer.kind is SpanKind.CONSUMER
    assert [link.context.span_id for link in consumer.links] == [producer.context.span_id]
    assert consumer.context is not None and handled == [consumer.context.trace_id]


async def test_a_job_keeps_its_trace_and_its_worker_links_to_it(
    traced: AnyClient, spans: InMemorySpanExporter, name: Callable[[str], str]
) -> None:
    """A job's traceparent reads back from getJob, and the queue worker's span links to it."""
    jobs = name("jobs")
    await resolve(traced.queues.create(jobs))
    queue: sdk.Queue | sdk.AsyncQueue = await resolve(traced.init_queue(jobs))

    @queue.subscribe("email")
    def send(job: Any) -> None:
        raise RuntimeError("the mail server is down")

    receipt = await resolve(queue.publish("email", {"n": 1}))
    await resolve(traced.run(max_messages=1, stop_after=RUN_LIMIT))
    [producer] = spans_named(spans, f"spool publish {jobs}")
    assert (await resolve(queue.job(receipt.job_id))).traceparent == traceparent_of(producer)
    [consumer] = spans_named(spans, f"spool process {jobs}")
    assert [link.context.span_id for link in consumer.links] == [producer.context.span_id]
    assert consumer.attributes is not None
    assert consumer.attributes["messaging.message.id"] == receipt.job_id
    assert not consumer.status.is_ok


async def test_an_http_delivery_carries_the_publishers_trace(
    traced: AnyClient, spans: InMemorySpanExporter
) -> None:
    """The receiver's request has a traceparent of the publisher's trace."""
    with ScriptedReceiver() as receiver:
        with trace.get_tracer("test").start_as_current_span("signup") as caller:
            receipt = await resolve(traced.messages.publish_json(url=receiver.url(), body={"n": 1}))
        [request] = receiver.wait_for(1)
    assert _trace_id(request.headers["traceparent"]) == caller.get_span_context().trace_id
    message = await resolve(traced.messages.get(receipt.message_id))
    assert _trace_id(message.traceparent) == caller.get_span_context().trace_id
