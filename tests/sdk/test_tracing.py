"""When the SDK and the service trace (sdk/_tracing.py, server/tracing.py): without OpenTelemetry,
or with it installed but unused, importing them and publishing loads none of it and sends no
trace headers.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT

_PUBLISH = """
    import httpx

    import sdk

    sent = []

    def answer(request):
        sent.append(request)
        return httpx.Response(
            201, json={"id": "1-0", "stream": "orders", "length": 1, "trimmed": 0}
        )

    http = httpx.Client(transport=httpx.MockTransport(answer))
    with sdk.Client("http://spool.test", "token", http_client=http) as client:
        client.publish("orders", {"id": 1})
    import server.app
    import server.delivery

    assert "traceparent" not in sent[0].headers, sent[0].headers
    loaded = sorted(
        name
        for name, module in sys.modules.items()
        if module is not None and (name.startswith("opentelemetry") or name.endswith("otel"))
    )
    assert not loaded, loaded
"""


@pytest.mark.parametrize(
    "setup",
    [
        pytest.param("sys.modules['opentelemetry'] = None", id="not-installed"),
        pytest.param("", id="installed-unused"),
    ],
)
def test_publishing_without_tracing_in_use_loads_no_opentelemetry(setup: str) -> None:
    """A publish and the service's modules load no OpenTelemetry module, nor the SDK's or the
    service's own tracing modules.
    """
    script = "import sys\n" + setup + "\n" + textwrap.dedent(_PUBLISH)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("provider_set", [False, True])
def test_tracing_is_in_use_only_once_a_tracer_provider_is_set(provider_set: bool) -> None:
    """A library that loads the trace API (redis-py does) does not turn tracing on: only a tracer
    provider that the application set does, for the SDK and the service alike.
    """
    code = [
        "import opentelemetry.trace",
        "import redis.asyncio",
        "import sdk._tracing, server.tracing",
    ]
    if provider_set:
        code.append("from opentelemetry.sdk.trace import TracerProvider")
        code.append("opentelemetry.trace.set_tracer_provider(TracerProvider())")
    code.append("print(sdk._tracing.tracing_in_use(), server.tracing.tracing_in_use())")
    answer = subprocess.run(
        [sys.executable, "-c", "\n".join(code)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert answer.stdout.split() == [str(provider_set)] * 2
