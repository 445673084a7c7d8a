"""OpenTelemetry spans and W3C trace context for publishes and handlers, after the messaging
semantic conventions: a PRODUCER span per publish request, whose context its ``traceparent`` (and
``tracestate``) headers carry, and a CONSUMER span per handled entry or job, linked to the
context it was published under. Loaded only when sdk/_tracing.py finds tracing in use.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

from opentelemetry import propagate, trace
from opentelemetry.trace import Link, SpanKind, Status, StatusCode

from ._exceptions import describe_target

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ._http import Call
    from ._subscriptions import Subscription

__all__ = ["ConsumeTracing", "Processing", "PublishTracing", "destination_of"]

T = TypeVar("T")

SYSTEM = "spool"
_NAMED_IN_PATH = frozenset({"streams", "queues"})


def destination_of(call: Call[Any]) -> str:
    """The stream or queue a publish goes to (from its path), or a message's URL or URL group."""
    parts = call.path.split("/")
    if len(parts) > 3 and parts[2] in _NAMED_IN_PATH:
        return unquote(parts[3])
    assert call.publish_target is not None
    return describe_target(call.publish_target)


class PublishTracing:
    """Wraps each publish request in a PRODUCER span and sends that span's context."""

    __slots__ = ("_tracer",)

    def __init__(self) -> None:
        # A proxy until the application sets its tracer provider, then that provider's tracer.
        self._tracer = trace.get_tracer("spool.sdk")

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
            headers = dict(call.headers or {})
            propagate.inject(headers)
            yield call._replace(headers=headers)


class ConsumeTracing:
    """Runs each handler in a CONSUMER span linked to the context its item was published under."""

    __slots__ = ("_tracer",)

    def __init__(self) -> None:
        self._tracer = trace.get_tracer("spool.sdk")

    @contextlib.contextmanager
    def processing(
        self, subscription: Subscription, *, message_id: str, traceparent: str | None
    ) -> Iterator[Processing]:
        """The handler's span, current meanwhile."""
        from ._subscriptions import StreamSubscription

        destination = (
            subscription.stream.name
            if isinstance(subscription, StreamSubscription)
            else subscription.queue
        )
        links = []
        if traceparent is not None:
            published = trace.get_current_span(
                propagate.extract({"traceparent": traceparent})
            ).get_span_context()
            if published.is_valid:
                links.append(Link(published))
        with self._tracer.start_as_current_span(
            f"spool process {destination}",
            kind=SpanKind.CONSUMER,
            links=links,
            attributes={
                "messaging.system": SYSTEM,
                "messaging.destination.name": destination,
                "messaging.operation.type": "process",
                "messaging.message.id": message_id,
            },
        ) as span:
            yield Processing(span)


class Processing:
    """A handler's span, told the handler's outcome."""

    __slots__ = ("_span",)

    def __init__(self, span: Span) -> None:
        self._span = span

    def outcome(self, error: Exception | None) -> Exception | None:
        """Record ``error`` (what failed the handler, if anything) on the span; answer it."""
        if error is not None:
            self._span.record_exception(error)
            self._span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
        return error
