"""Whether the SDK traces: only when OpenTelemetry is installed and the application uses it.

Nothing here imports OpenTelemetry. A client (for its requests) and a worker (for its fetches,
handlers and acknowledgements) ask once, when made; only when tracing is in use do they load
sdk/_otel.py, which imports it. So without OpenTelemetry, or with it installed but unused, a
request costs one ``None`` check.
"""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from ._otel import ConsumeTracing, PublishTracing
    from ._subscriptions import Subscription
    from ._worker_sources import Delivery

__all__ = [
    "acking",
    "consume_tracing",
    "nacking",
    "publish_tracing",
    "releasing",
    "tracing_in_use",
]


def tracing_in_use() -> bool:
    """OpenTelemetry's trace API is loaded and the application has set a tracer provider: there
    is a trace to carry on.
    """
    trace = sys.modules.get("opentelemetry.trace")
    if trace is None:
        return False
    # Libraries load the trace API on their own (redis-py 8 does, for its observability hooks),
    # so being loaded is not being used: until a provider is set, every span would be a no-op
    # that still cost a publish 30 Python calls (cProfile of appendEntry in the service).
    provider = trace.get_tracer_provider()
    return not isinstance(provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider))


def publish_tracing() -> PublishTracing | None:
    """What a client's publishes are traced with, or None when tracing is not in use."""
    if not tracing_in_use():
        return None
    from ._otel import PublishTracing

    return PublishTracing()


def consume_tracing() -> ConsumeTracing | None:
    """What a worker's handlers are traced with, or None when tracing is not in use."""
    if not tracing_in_use():
        return None
    from ._otel import ConsumeTracing

    return ConsumeTracing()


def nacking(
    tracing: ConsumeTracing | None, subscription: Subscription, delivery: Delivery
) -> AbstractContextManager[None]:
    """Where a failed job is nacked: its span when tracing is in use, else nothing."""
    if tracing is None:
        return contextlib.nullcontext()
    return tracing.nacking(subscription, delivery)


def releasing(
    tracing: ConsumeTracing | None, subscription: Subscription, deliveries: list[Delivery]
) -> AbstractContextManager[None]:
    """Where a batch of jobs never handled is released: its span when tracing is in use, else
    nothing.
    """
    if tracing is None:
        return contextlib.nullcontext()
    return tracing.releasing(subscription, deliveries)


def acking(
    tracing: ConsumeTracing | None, subscription: Subscription, deliveries: list[Delivery]
) -> AbstractContextManager[None]:
    """Where a batch of acknowledgements is sent: its span when tracing is in use, else nothing."""
    if tracing is None:
        return contextlib.nullcontext()
    return tracing.acking(subscription, deliveries)
