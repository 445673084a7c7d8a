"""Whether the service traces: only when OpenTelemetry is installed and in use in its process.

Nothing here imports OpenTelemetry; server/otel.py does, once the app or the delivery engine
finds tracing in use. It is in use once something loaded OpenTelemetry's trace API before the app
was made: ``opentelemetry-instrument spool-server`` does, as does any code that configures a
tracer provider. Otherwise a request costs nothing more than it did.
"""

from __future__ import annotations

import sys

__all__ = ["tracing_in_use"]


def tracing_in_use() -> bool:
    """OpenTelemetry is installed and its trace API loaded: there is a tracer provider to use."""
    # Loaded means installed, so the package needs no lookup of its own.
    return sys.modules.get("opentelemetry.trace") is not None
