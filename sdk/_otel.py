"""OpenTelemetry spans and W3C trace context for the SDK's requests, after the messaging semantic
conventions. Loaded only when sdk/_tracing.py finds tracing in use.

- Each publish request runs in a PRODUCER span ``spool publish <destination>``, whose context its
  ``traceparent`` (and ``tracestate``) headers carry: the creation context of what it published,
  which the service keeps with each entry, job and message.
- Every other request made while a span is current sends that span's context, so the service's
  SERVER span for it joins the caller's trace.
- What `run()` sends runs in spans of its own, so that none of its requests starts a trace of its
  own in the service. A request about one message joins that message's trace; one about several
  starts a trace and links to each message's:

  - a fetch (a queue's lease; a stream's claim and read, and the group's creation before the
    first) runs in a CLIENT span ``spool receive <destination>``, linked to the creation context
    of each message it brought;
  - each handler runs in a CONSUMER span ``spool process <destination>``, a child of its
    message's creation context (so publisher, service and handler make one trace), linked to
    that context and to the fetch that brought the message;
  - a job given back after its handler failed in a CLIENT span ``spool nack <queue>``, a child of
    the job's creation context too;
  - the jobs a stopping run releases unhandled, in requests of up to 1,000, each in a CLIENT span
    ``spool release <queue>`` linked to the creation context of each job it gives back;
  - a batch of acknowledgements in a CLIENT span ``spool ack <destination>``, linked to the
    creation context of each message it settles.

  No span lasts as long as a run: a span is exported only once it ends, and one trace would
  gather every request of the worker's life. A message published untraced has no creation
  context: its process and nack spans start traces of their own.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Link, SpanContext, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from ._exceptions import describe_target

if TYPE_CHECKING:
    from opentelemetry.trace import Span
    from opentelemetry.util.types import AttributeValue

    from ._http import Call
    from ._subscriptions import Subscription
    from ._worker_sources import Delivery

__all__ = ["ConsumeTracing", "Processing", "PublishTracing", "Receiving", "destination_of"]

T = TypeVar("T")

SYSTEM = "spool"
_NAMED_IN_PATH = frozenset({"streams", "queues"})
# What the service keeps of a publish is a W3C traceparent, whatever propagator the application
# sends its headers with.
_W3C = TraceContextTextMapPropagator()


def destination_of(call: Call[Any]) -> str:
    """The stream or queue a publish goes to (from its path), or a message's URL or URL group."""
    parts = call.path.split("/")
    if len(parts) > 3 and parts[2] in _NAMED_IN_PATH:
        return unquote(parts[3])
    assert call.publish_target is not None
    return describe_target(call.publish_target)


class PublishTracing:
    """Wraps each publish request in a PRODUCER span and sends that span's context; sends the
    current span's context with every other request.
    """

    __slots__ = ("_tracer",)

    def __init__(self) -> None:
        # A proxy until the application sets its tracer provider, then that provider's tracer.
        self._tracer = trace.get_tracer("spool.sdk")

    @contextlib.contextmanager
    def sending(self, call: Call[T]) -> Iterator[Call[T]]:
        """``call`` with the trace context headers it is sent with."""
        if call.publish_target is not None:
            with self.publishing(call) as traced:
                yield traced
        elif trace.get_current_span().get_span_context().is_valid:
            yield _with_context(call)
        else:
            yield call

    @contextlib.contextmanager
    def publishing(self, call: Call[T]) -> Iterator[Call[T]]:
        """``call`` with the trace context headers of its PRODUCER span, current meanwhile."""
        destination = destination_of(call)
        with self._tracer.start_as_current_span(
            f"spool publish {destination}",
            kind=SpanKind.PRODUCER,
            attributes={
                "messaging.system": SYSTEM,
                "messaging.destination.name": destination,
                "messaging.operation.type": "publish",
            },
        ):
            yield _with_context(call)


def _with_context(call: Call[T]) -> Call[T]:
    headers = dict(call.headers or {})
    propagate.inject(headers)
    return call._replace(headers=headers)


def _creation_context(traceparent: str | None) -> SpanContext | None:
    """The span a message was published under, from the traceparent the service kept."""
    if traceparent is None:
        return None
    published = trace.get_current_span(
        _W3C.extract({"traceparent": traceparent})
    ).get_span_context()
    return published if published.is_valid else None


def _child_of(parent: SpanContext | None) -> Context:
    """A context whose spans are children of ``parent``, or roots without one: never of the
    span that happens to be current in the loop's thread or task.
    """
    if parent is None:
        return Context()
    return trace.set_span_in_context(trace.NonRecordingSpan(parent), Context())


def _failed(span: Span, error: BaseException) -> None:
    span.record_exception(error)
    span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))


class ConsumeTracing:
    """The spans of a run: fetches, handlers and the settling of what they handled."""

    __slots__ = ("_tracer",)

    def __init__(self) -> None:
        self._tracer = trace.get_tracer("spool.sdk")

    @contextlib.contextmanager
    def receiving(self, subscription: Subscription) -> Iterator[Receiving]:
        """A fetch's span, current meanwhile; tell it what came back."""
        with self._client_span(subscription, "receive", "receive", parent=None) as span:
            yield Receiving(span)

    @contextlib.contextmanager
    def processing(
        self,
        subscription: Subscription,
        *,
        message_id: str,
        traceparent: str | None,
        fetched_in: SpanContext | None = None,
    ) -> Iterator[Processing]:
        """The handler's span, current meanwhile."""
        published = _creation_context(traceparent)
        links = [Link(linked) for linked in (published, fetched_in) if linked is not None]
        attributes = _attributes(subscription, "process", "process")
        attributes["messaging.message.id"] = message_id
        with self._tracer.start_as_current_span(
            f"spool process {_destination(subscription)}",
            context=_child_of(published),
            kind=SpanKind.CONSUMER,
            links=links,
            attributes=attributes,
        ) as span:
            yield Processing(span)

    @contextlib.contextmanager
    def nacking(self, subscription: Subscription, delivery: Delivery) -> Iterator[None]:
        """The span of a job's nack, in the job's trace, current meanwhile."""
        published = _creation_context(delivery.traceparent)
        with self._client_span(subscription, "settle", "nack", parent=published) as span:
            span.set_attribute("messaging.message.id", delivery.message_id)
            if published is not None:
                span.add_link(published)
            yield

    @contextlib.contextmanager
    def releasing(self, subscription: Subscription, deliveries: list[Delivery]) -> Iterator[None]:
        """The span of a batch of releases, current meanwhile."""
        with self._client_span(subscription, "settle", "release", parent=None) as span:
            span.set_attribute("messaging.batch.message_count", len(deliveries))
            _link_messages(span, deliveries)
            yield

    @contextlib.contextmanager
    def acking(self, subscription: Subscription, deliveries: list[Delivery]) -> Iterator[None]:
        """The span of a batch of acknowledgements, current meanwhile."""
        with self._client_span(subscription, "settle", "ack", parent=None) as span:
            span.set_attribute("messaging.batch.message_count", len(deliveries))
            _link_messages(span, deliveries)
            yield

    @contextlib.contextmanager
    def _client_span(
        self,
        subscription: Subscription,
        operation_type: str,
        operation: str,
        *,
        parent: SpanContext | None,
    ) -> Iterator[Span]:
        # Only an Exception fails the span: a cancelled fetch or a Ctrl+C is the run ending.
        with self._tracer.start_as_current_span(
            f"spool {operation} {_destination(subscription)}",
            context=_child_of(parent),
            kind=SpanKind.CLIENT,
            attributes=_attributes(subscription, operation_type, operation),
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                yield span
            except Exception as error:
                _failed(span, error)
                raise


def _destination(subscription: Subscription) -> str:
    from ._subscriptions import StreamSubscription

    if isinstance(subscription, StreamSubscription):
        return subscription.stream.name
    return subscription.queue


def _attributes(
    subscription: Subscription, operation_type: str, operation: str
) -> dict[str, AttributeValue]:
    from ._subscriptions import StreamSubscription

    attributes: dict[str, AttributeValue] = {
        "messaging.system": SYSTEM,
        "messaging.destination.name": _destination(subscription),
        "messaging.operation.type": operation_type,
        "messaging.operation.name": operation,
    }
    if isinstance(subscription, StreamSubscription):
        attributes["messaging.consumer.group.name"] = subscription.group
    return attributes


def _link_messages(span: Span, deliveries: list[Delivery]) -> None:
    """Link ``span`` to each message's creation context (the SDK's limit on links applies)."""
    for delivery in deliveries:
        published = _creation_context(delivery.traceparent)
        if published is not None:
            span.add_link(published)


class Receiving:
    """A fetch's span, told what the fetch brought."""

    __slots__ = ("_span",)

    def __init__(self, span: Span) -> None:
        self._span = span

    def received(self, deliveries: list[Delivery]) -> list[Delivery]:
        """``deliveries``, each marked as fetched in this span, which links to each one's trace."""
        self._span.set_attribute("messaging.batch.message_count", len(deliveries))
        _link_messages(self._span, deliveries)
        fetched_in = self._span.get_span_context()
        return [dataclasses.replace(delivery, fetched_in=fetched_in) for delivery in deliveries]


class Processing:
    """A handler's span, told the handler's outcome."""

    __slots__ = ("_span",)

    def __init__(self, span: Span) -> None:
        self._span = span

    def outcome(self, error: Exception | None) -> Exception | None:
        """Record ``error`` (what failed the handler, if anything) on the span; answer it."""
        if error is not None:
            _failed(self._span, error)
        return error
