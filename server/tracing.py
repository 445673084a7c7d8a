"""Whether the service traces: only when OpenTelemetry is installed and in use in its process.

Nothing here imports OpenTelemetry; server/otel.py does, once the app or the delivery engine
finds tracing in use. It is in use once a tracer provider was set before the app was made:
``opentelemetry-instrument spool-server`` sets one, as does ``python -m server.traced`` (what
``Client.embedded(tracing=True)`` runs) and any code that configures tracing. Otherwise a
request costs nothing more than it did.
"""

from __future__ import annotations

import sys

__all__ = ["tracing_in_use"]


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
