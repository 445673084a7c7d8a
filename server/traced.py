"""``python -m server.traced``: ``python -m server`` with OpenTelemetry configured first, from the
``OTEL_*`` environment variables, as ``opentelemetry-instrument spool-server`` configures it (the
distro's exporters and any instrumentation installed), so that the service traces (see
server/tracing.py). It is what ``Client.embedded(tracing=True)`` runs.

Two defaults differ from the distro's, and only where the environment names none: spans go over
OTLP/HTTP (``spool[otel]`` ships that exporter, not gRPC's), and no metrics or logs are exported
(the service's metrics are its Prometheus endpoint). A configuration that fails, such as an
exporter that is not installed, stops the service before it listens instead of serving untraced.

Unlike ``opentelemetry-instrument``, it leaves ``sys.path`` alone: a module named ``server`` in the
working directory cannot shadow the service.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["DEFAULTS", "main"]

DEFAULTS = {
    "OTEL_TRACES_EXPORTER": "otlp",
    "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
    "OTEL_METRICS_EXPORTER": "none",
    "OTEL_LOGS_EXPORTER": "none",
}


def main(argv: Sequence[str] | None = None) -> None:
    """Configure OpenTelemetry, then serve as ``python -m server`` does with ``argv``."""
    for name, value in DEFAULTS.items():
        os.environ.setdefault(name, value)
    from opentelemetry.instrumentation.auto_instrumentation import initialize

    initialize(swallow_exceptions=False)

    from .__main__ import main as serve

    serve(argv)


if __name__ == "__main__":
    main()
