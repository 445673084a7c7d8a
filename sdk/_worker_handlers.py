"""Handler invocation for `run()`: a handler, then the publishers stacked on it.

A handler's non-None return value goes to every publisher stacked on it; a PublishError there
fails the message like any exception, so it is delivered again and every publisher runs again.

With OpenTelemetry in use (sdk/_tracing.py), each handler runs, with its publishers, in a
CONSUMER span ``spool process <stream or queue>`` in the trace the entry or job was published
under (sdk/_otel.py).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from ._exceptions import ConfigurationError
from ._publisher import AsyncPublisher, Publisher, publishers_of
from ._subscriptions import StreamSubscription, Subscription
from ._tracing import consume_tracing

if TYPE_CHECKING:
    from opentelemetry.trace import SpanContext

__all__ = ["AsyncHandlers", "SyncHandlers", "describe", "error_text", "log_failure"]

logger = logging.getLogger("spool")

PublisherT = TypeVar("PublisherT", Publisher, AsyncPublisher)


def error_text(error: BaseException) -> str:
    """What a nack says of the exception that failed a job."""
    return f"{type(error).__name__}: {error}"


def describe(subscription: Subscription) -> str:
    """The stream and group, or the queue and topics, a subscription consumes, for log lines."""
    if isinstance(subscription, StreamSubscription):
        return f"stream {subscription.stream.name!r} (group {subscription.group!r})"
    topics = ", ".join(subscription.topics) or "all topics"
    return f"queue {subscription.queue!r} ({topics})"


def _handler_name(handler: Callable[..., Any]) -> str:
    return str(getattr(handler, "__qualname__", repr(handler)))


def log_failure(subscription: Subscription, message_id: str, error: Exception) -> None:
    """Log a handler (or publisher) failure; the message is delivered again."""
    logger.error(
        "%s failed on %s of %s; it will be delivered again",
        _handler_name(subscription.handler),
        message_id,
        describe(subscription),
        exc_info=error,
    )


def _publishers(
    subscriptions: list[Subscription], kind: type[PublisherT], client: str
) -> dict[int, list[PublisherT]]:
    """Each subscription's publishers, refusing any this kind of client cannot call or await."""
    found: dict[int, list[PublisherT]] = {}
    for subscription in subscriptions:
        publishers = found[id(subscription)] = []
        for publisher in publishers_of(subscription.handler):
            if not isinstance(publisher, kind):
                raise ConfigurationError(
                    f"{_handler_name(subscription.handler)} has {publisher!r}, which {client} "
                    "cannot run: create its publishers with the same kind of client"
                )
            publishers.append(publisher)
    return found


class SyncHandlers:
    """Runs a `Client`'s handlers and their publishers; refuses what it cannot call up front."""

    def __init__(self, subscriptions: list[Subscription]) -> None:
        self._publishers = _publishers(subscriptions, Publisher, "Client.run()")
        self._tracing = consume_tracing()

    def handle(
        self,
        sub: Subscription,
        body: Any,
        *,
        message_id: str,
        trace: str | None,
        fetched_in: SpanContext | None = None,
    ) -> Exception | None:
        """``_call``, in its CONSUMER span when tracing is in use."""
        if self._tracing is None:
            return self._call(sub, body)
        with self._tracing.processing(
            sub, message_id=message_id, traceparent=trace, fetched_in=fetched_in
        ) as span:
            return span.outcome(self._call(sub, body))

    def _call(self, sub: Subscription, body: Any) -> Exception | None:
        """Run the handler and its publishers; the exception that failed the message, if any."""
        try:
            result = sub.handler(body)
        except Exception as error:
            return error
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise ConfigurationError(
                f"{_handler_name(sub.handler)} returned an awaitable: "
                "run async handlers on an AsyncClient"
            )
        if result is not None:
            try:
                for publisher in self._publishers[id(sub)]:
                    publisher.publish(result)
            except Exception as error:
                return error
        return None


class AsyncHandlers:
    """Runs an `AsyncClient`'s handlers, async or plain, and their publishers."""

    def __init__(self, subscriptions: list[Subscription]) -> None:
        self._publishers = _publishers(subscriptions, AsyncPublisher, "AsyncClient.run()")
        self._tracing = consume_tracing()

    async def handle(
        self,
        sub: Subscription,
        body: Any,
        *,
        message_id: str,
        trace: str | None,
        fetched_in: SpanContext | None = None,
    ) -> Exception | None:
        """``_call``, in its CONSUMER span when tracing is in use."""
        if self._tracing is None:
            return await self._call(sub, body)
        with self._tracing.processing(
            sub, message_id=message_id, traceparent=trace, fetched_in=fetched_in
        ) as span:
            return span.outcome(await self._call(sub, body))

    async def _call(self, sub: Subscription, body: Any) -> Exception | None:
        """Run the handler and its publishers; the exception that failed the message, if any."""
        try:
            result = sub.handler(body)
            if inspect.isawaitable(result):
                result = await result
        except Exception as error:
            return error
        if result is not None:
            try:
                for publisher in self._publishers[id(sub)]:
                    await publisher.publish(result)
            except Exception as error:
                return error
        return None
