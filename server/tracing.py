"""Whether the service traces: only when OpenTelemetry is installed and in use in its process.

Nothing here imports OpenTelemetry; server/otel.py does, once the app or the delivery engine
finds tracing in use. It is in use once something loaded OpenTelemetry's trace API before the app
was made: ``opentelemetry-instrument spool-server`` does, as does any code that configures a
tracer provider. Otherwise a request costs nothing more than it did.
"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["tracing_in_use"]

# Looked up once, without importing the package.
_INSTALLED = importlib.util.find_spec("opentelemetry") is not None


def tracing_in_use() -> bool:
    """OpenTelemetry is installed and its trace API loaded: there is a tracer provider to use."""
    return _INSTALLED and "opentelemetry.trace" in sys.modules
