"""Trace propagation against the real service, with OpenTelemetry in use in the test process:
publishes send their PRODUCER span's context, the service keeps it, workers run their handlers
in CONSUMER spans of the publisher's trace, their fetches and acks in spans of their own, and
HTTP deliveries carry the publisher's trace to the receiver.

The last tests also trace the service (`EmbeddedService.start(tracing=True)`), which exports its
spans over OTLP/HTTP to a collector in the test process, to check that one trace runs from the
publisher through the service and the consumer to an HTTP receiver, and that none of the
worker's requests starts a trace of its own in the service.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

import sdk
from sdk._embedded import EmbeddedService
from tests._tracing import (
    CollectedSpan,
    OtlpCollector,
    span_exporter,
    spans_named,
    traceparent_of,
)
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


def _span_id(span: ReadableSpan) -> int:
    assert span.context is not None
    return int(span.context.span_id)


def _parent_id(span: ReadableSpan) -> int | None:
    return None if span.parent is None else span.parent.span_id


def _links(span: ReadableSpan) -> list[int]:
    return [link.context.span_id for link in span.links]


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


async def test_a_consumer_span_is_a_child_of_the_producer_span(
    traced: AnyClient, spans: InMemorySpanExporter, name: Callable[[str], str]
) -> None:
    """run(): each handler runs in a CONSUMER span of the publisher's trace, a child of the span
    that published its item and linked to it and to the fetch that brought it; the fetch and the
    acknowledgement run in CLIENT spans of their own, linked to the item's trace.
    """
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
    receives = spans_named(spans, f"spool receive {orders.name}")
    [fetched] = [span for span in receives if _span_id(producer) in _links(span)]
    [ack] = spans_named(spans, f"spool ack {orders.name}")
    assert consumer.kind is SpanKind.CONSUMER
    assert _parent_id(consumer) == _span_id(producer)
    assert _links(consumer) == [_span_id(producer), _span_id(fetched)]
    assert consumer.context is not None and handled == [consumer.context.trace_id]
    assert consumer.attributes is not None
    assert consumer.attributes["messaging.consumer.group.name"] == "billing"
    for span in receives + [ack]:
        assert span.kind is SpanKind.CLIENT
        assert span.parent is None
    assert fetched.attributes is not None
    assert fetched.attributes["messaging.batch.message_count"] == 1
    assert fetched.attributes["messaging.operation.type"] == "receive"
    assert _links(ack) == [_span_id(producer)]
    assert ack.attributes is not None
    assert ack.attributes["messaging.operation.type"] == "settle"


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
    assert _parent_id(consumer) == _span_id(producer)
    assert _links(consumer)[0] == _span_id(producer)
    assert consumer.attributes is not None
    assert consumer.attributes["messaging.message.id"] == receipt.job_id
    assert not consumer.status.is_ok
    [nack] = spans_named(spans, f"spool nack {jobs}")
    assert nack.kind is SpanKind.CLIENT
    assert _parent_id(nack) == _span_id(producer)
    assert nack.status.is_ok
    assert nack.attributes is not None
    assert nack.attributes["messaging.message.id"] == receipt.job_id


async def test_the_jobs_a_stop_releases_go_in_one_span_linked_to_each(
    traced: AnyClient, spans: InMemorySpanExporter, name: Callable[[str], str]
) -> None:
    """The jobs fetched ahead of a stop are released in one request, in a release span linked
    to each job's producer span.
    """
    jobs = name("jobs")
    await resolve(traced.queues.create(jobs))
    queue: sdk.Queue | sdk.AsyncQueue = await resolve(traced.init_queue(jobs))
    queue.subscribe("email", count=3)(lambda job: traced.stop())
    for n in range(3):
        await resolve(queue.publish("email", {"n": n}))
    await resolve(traced.run(stop_after=RUN_LIMIT))
    producers = spans_named(spans, f"spool publish {jobs}")
    [release] = spans_named(spans, f"spool release {jobs}")
    assert release.kind is SpanKind.CLIENT
    assert release.attributes is not None
    assert release.attributes["messaging.batch.message_count"] == 2
    assert sorted(_links(release)) == sorted(_span_id(span) for span in producers[1:])


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


# The worker's own requests: each must join a span of the worker's.
_WORKER_ROUTES = frozenset(
    {
        "POST /v1/streams/{stream}/groups",
        "POST /v1/streams/{stream}/groups/{group}/claim",
        "POST /v1/streams/{stream}/groups/{group}/read",
        "POST /v1/streams/{stream}/groups/{group}/ack",
    }
)


@pytest.fixture(scope="module")
def collector() -> Iterator[OtlpCollector]:
    """Where the traced service exports its spans."""
    with OtlpCollector() as running:
        yield running


@pytest.fixture(scope="module")
def traced_service(collector: OtlpCollector) -> Iterator[EmbeddedService]:
    """A service that traces, exporting to ``collector`` at once rather than in 5 s batches; the
    caller's own service name is not the service's.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", collector.endpoint)
        patch.setenv("OTEL_BSP_SCHEDULE_DELAY", "20")
        patch.setenv("OTEL_SERVICE_NAME", "the-app")
        service = EmbeddedService.start(tracing=True)
    yield service
    service.stop()


@pytest.fixture(params=["sync", "async"])
async def service_client(
    request: pytest.FixtureRequest,
    spans: InMemorySpanExporter,
    collector: OtlpCollector,
    traced_service: EmbeddedService,
) -> AsyncIterator[AnyClient]:
    """A Client and an AsyncClient of the traced service, with nothing collected yet."""
    collector.clear()
    if request.param == "sync":
        with sdk.Client(traced_service.base_url, traced_service.token) as sync_client:
            yield sync_client
    else:
        async with sdk.AsyncClient(traced_service.base_url, traced_service.token) as async_client:
            yield async_client
    print(f"the service's log ends with:\n{traced_service.log_tail()}")  # noqa: T201


def _one(spans: list[CollectedSpan], name: str, *, trace_id: int) -> CollectedSpan:
    [found] = [span for span in spans if span.name == name and span.trace_id == trace_id]
    return found


async def test_one_trace_runs_from_the_publisher_through_the_consumer_to_a_receiver(
    service_client: AnyClient,
    spans: InMemorySpanExporter,
    collector: OtlpCollector,
    name: Callable[[str], str],
) -> None:
    """checkout -> spool publish -> the service's append; -> spool process -> spool publish (the
    handler's HTTP message) -> the service's publish and its delivery attempt -> the receiver:
    one trace, each span the child of the one before. The worker's fetches and ack run in spans
    of their own, and the service's spans for them are their children.
    """
    orders = sdk.Stream(name("orders"), group="billing")
    with ScriptedReceiver() as receiver:
        url = receiver.url()

        def forward(order: Any) -> None:
            assert isinstance(service_client, sdk.Client)
            service_client.messages.publish_json(url=url, body=order)

        async def forward_async(order: Any) -> None:
            assert isinstance(service_client, sdk.AsyncClient)
            await service_client.messages.publish_json(url=url, body=order)

        handler = forward if isinstance(service_client, sdk.Client) else forward_async
        service_client.subscribe(orders, start_id="0")(handler)
        with trace.get_tracer("test").start_as_current_span("checkout") as caller:
            await resolve(service_client.publish(orders, {"id": 1}))
        await resolve(service_client.run(max_messages=1, stop_after=RUN_LIMIT))
        [request] = receiver.wait_for(1)
    served = collector.wait_for(
        "POST /v1/streams/{stream}/entries",
        "POST /v1/messages",
        "POST",
        "POST /v1/streams/{stream}/groups/{group}/ack",
    )
    trace_id = caller.get_span_context().trace_id
    [producer] = spans_named(spans, f"spool publish {orders.name}")
    [consumer] = spans_named(spans, f"spool process {orders.name}")
    [forwarded] = [span for span in spans.get_finished_spans() if span.name.endswith(url)]
    append = _one(served, "POST /v1/streams/{stream}/entries", trace_id=trace_id)
    publish = _one(served, "POST /v1/messages", trace_id=trace_id)
    attempt = _one(served, "POST", trace_id=trace_id)
    assert _parent_id(producer) == caller.get_span_context().span_id
    assert append.parent_id == _span_id(producer)
    assert _parent_id(consumer) == _span_id(producer)
    assert _parent_id(forwarded) == _span_id(consumer)
    assert publish.parent_id == _span_id(forwarded)
    assert attempt.parent_id == _span_id(forwarded)
    assert attempt.kind is SpanKind.CLIENT
    assert request.headers["traceparent"].split("-")[1:3] == [
        f"{trace_id:032x}",
        f"{attempt.span_id:016x}",
    ]
    assert {span.service for span in served} == {"spool-server"}

    worker_spans = {
        _span_id(span): span
        for span in spans.get_finished_spans()
        if span.name in (f"spool receive {orders.name}", f"spool ack {orders.name}")
    }
    requests = [span for span in served if span.name in _WORKER_ROUTES]
    assert {span.name for span in requests} == _WORKER_ROUTES
    for served_request in requests:
        assert served_request.parent_id in worker_spans, served_request
        parent = worker_spans[served_request.parent_id]
        assert parent.context is not None and served_request.trace_id == parent.context.trace_id
    [ack] = [span for span in worker_spans.values() if span.name.startswith("spool ack")]
    assert _links(ack) == [_span_id(producer)]


async def test_a_queue_workers_requests_join_its_spans(
    service_client: AnyClient,
    spans: InMemorySpanExporter,
    collector: OtlpCollector,
    name: Callable[[str], str],
) -> None:
    """A lease runs in the receive span; the nack of a failed job in the job's trace, and the
    ack of its retry in an ack span linked to it: the service's spans are their children.
    """
    jobs = name("jobs")
    await resolve(service_client.queues.create(jobs))
    queue: sdk.Queue | sdk.AsyncQueue = await resolve(service_client.init_queue(jobs))
    attempts: list[Any] = []

    @queue.subscribe("email")
    def send(job: Any) -> None:
        attempts.append(job)
        if len(attempts) == 1:
            raise RuntimeError("the mail server is down")

    with trace.get_tracer("test").start_as_current_span("signup") as caller:
        await resolve(queue.publish("email", {"n": 1}))
    await resolve(service_client.run(max_messages=2, stop_after=RUN_LIMIT))
    assert len(attempts) == 2
    served = collector.wait_for(
        "POST /v1/queues/{queue}/leases",
        "POST /v1/queues/{queue}/jobs/{job_id}/nack",
        "POST /v1/queues/{queue}/acks",
    )
    trace_id = caller.get_span_context().trace_id
    [producer] = spans_named(spans, f"spool publish {jobs}")
    [nack] = spans_named(spans, f"spool nack {jobs}")
    [ack] = spans_named(spans, f"spool ack {jobs}")
    receives = {_span_id(span) for span in spans_named(spans, f"spool receive {jobs}")}
    assert _parent_id(nack) == _span_id(producer)
    assert nack.context is not None and nack.context.trace_id == trace_id
    nacked = _one(served, "POST /v1/queues/{queue}/jobs/{job_id}/nack", trace_id=trace_id)
    assert nacked.parent_id == _span_id(nack)
    [acked] = [span for span in served if span.name == "POST /v1/queues/{queue}/acks"]
    assert acked.parent_id == _span_id(ack)
    assert _links(ack) == [_span_id(producer)]
    leases = [span for span in served if span.name == "POST /v1/queues/{queue}/leases"]
    assert leases and all(span.parent_id in receives for span in leases)
    processed = spans_named(spans, f"spool process {jobs}")
    assert [_parent_id(span) for span in processed] == [_span_id(producer)] * 2
