"""Whether the SDK traces: only when OpenTelemetry is installed and the application uses it.

Nothing here imports OpenTelemetry. A client (for its publishes) and a worker (for its handlers)
ask once, when made; only when tracing is in use do they load sdk/_otel.py, which imports it. So
without OpenTelemetry, or with it installed but unused, a publish costs one ``None`` check.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ._otel import ConsumeTracing, PublishTracing

__all__ = ["consume_tracing", "publish_tracing", "tracing_in_use"]


def tracing_in_use() -> bool:
    """OpenTelemetry is installed and the application has loaded its trace API (to configure a
    tracer provider or to make spans): before that there is no trace to carry on.
    """
    # Loaded means installed, so the package needs no lookup of its own.
    return sys.modules.get("opentelemetry.trace") is not None


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
