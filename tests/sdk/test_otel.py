"""The trace context the SDK's requests send with OpenTelemetry in use (sdk/_otel.py): a request
other than a publish sends the span current when it is made, and no trace headers outside one.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx
import respx
from opentelemetry import trace

import sdk
from tests._tracing import span_exporter
from tests.sdk._support import resolve

HEALTH = {"status": "ok", "store": "sqlite", "version": "1"}


async def test_a_request_in_a_span_sends_its_context_and_one_outside_sends_none(
    api: respx.MockRouter, make_client: Callable[..., sdk.Client | sdk.AsyncClient]
) -> None:
    """The service's span of the request joins the caller's trace, as its child."""
    span_exporter()
    route = api.get("/v1/health").mock(return_value=httpx.Response(200, json=HEALTH))
    client = make_client()
    with trace.get_tracer("test").start_as_current_span("check") as caller:
        await resolve(client.health())
    await resolve(client.health())
    inside, outside = (call.request for call in route.calls)
    context = caller.get_span_context()
    assert inside.headers["traceparent"].split("-")[1:3] == [
        f"{context.trace_id:032x}",
        f"{context.span_id:016x}",
    ]
    assert "traceparent" not in outside.headers
