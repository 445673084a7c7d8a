"""``python -m server.traced``: OpenTelemetry configured from the environment before serving,
with Spool's defaults only where the environment names none (its spans reach a collector in
tests/e2e/test_tracing.py).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from server.traced import DEFAULTS
from tests.conftest import ROOT

pytestmark = pytest.mark.slow


def _serve(**variables: str) -> subprocess.CompletedProcess[str]:
    environment = {
        **{name: value for name, value in os.environ.items() if not name.startswith("OTEL_")},
        **variables,
    }
    return subprocess.run(
        [sys.executable, "-m", "server.traced", "--port", "0", "--exit-on-stdin-eof"],
        cwd=ROOT,
        env=environment,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_environment_wins_over_the_defaults() -> None:
    """OTLP over gRPC, when asked for, is not replaced by the HTTP default: its exporter is not
    installed, so the service stops before it listens, naming it.
    """
    assert DEFAULTS["OTEL_EXPORTER_OTLP_PROTOCOL"] == "http/protobuf"
    done = _serve(OTEL_EXPORTER_OTLP_PROTOCOL="grpc")
    assert done.returncode != 0
    assert "listening" not in done.stdout
    assert "otlp_proto_grpc" in done.stderr


def test_with_the_defaults_it_serves_until_stdin_ends() -> None:
    """The defaults make an exporter that is installed: the service starts, then ends with its
    stdin.
    """
    done = _serve()
    assert done.returncode == 0, done.stderr
    assert "spool-server listening on http://127.0.0.1:" in done.stdout
