"""The service's spans (server/otel.py) with OpenTelemetry in use: a SERVER span per request that
continues the caller's trace, and a CLIENT span per delivery attempt whose context the attempt
forwards as ``traceparent``. Without tracing, an attempt forwards the publisher's traceparent.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import httpx
import pytest
from opentelemetry.trace import SpanKind

from server.delivery.attempt import Sender
from tests._tracing import TRACEPARENT, span_exporter, spans_named, traceparent_of
from tests.conftest import RunningApp
from tests.server.delivery._support import KEYS, LOOPBACK
from tests.server.delivery.test_attempt import answering, claimed_message

TRACE_ID = int(TRACEPARENT.split("-")[1], 16)
PARENT_ID = int(TRACEPARENT.split("-")[2], 16)


async def test_each_request_runs_in_a_server_span_continuing_the_callers_trace(
    app_factory: Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]],
) -> None:
    """The span is named by the route's template and is a child of the incoming traceparent."""
    exporter = span_exporter()
    async with app_factory() as api:
        response = await api.client.post(
            "/v1/streams/events/entries", json={"body": 1}, headers={"traceparent": TRACEPARENT}
        )
    assert response.status_code == 201
    [span] = spans_named(exporter, "POST /v1/streams/{stream}/entries")
    assert span.kind is SpanKind.SERVER
    assert span.context is not None and span.context.trace_id == TRACE_ID
    assert span.parent is not None and span.parent.span_id == PARENT_ID
    assert span.attributes is not None
    assert span.attributes["http.response.status_code"] == 201
    assert span.attributes["http.route"] == "/v1/streams/{stream}/entries"


def _sender() -> Sender:
    return Sender(signing_keys=KEYS, signature_ttl=60.0, policy=LOOPBACK, vetting_transport=False)


async def test_an_attempt_runs_in_a_client_span_of_the_publishers_trace_and_forwards_it() -> None:
    """The receiver gets the CLIENT span's context: the publisher's trace, the span as parent."""
    exporter = span_exporter()
    seen: list[httpx.Request] = []
    result = await _sender().send(
        claimed_message(traceparent=TRACEPARENT),
        retried=0,
        transport=answering(httpx.Response(204), seen),
    )
    assert result.succeeded
    [span] = spans_named(exporter, "POST")
    assert span.kind is SpanKind.CLIENT
    assert span.parent is not None and span.parent.span_id == PARENT_ID
    assert span.attributes is not None
    assert span.attributes["messaging.message.id"] == "msg_1"
    assert span.attributes["http.response.status_code"] == 204
    [request] = seen
    assert request.headers["traceparent"] == traceparent_of(span)


async def test_an_untraced_message_is_delivered_in_a_trace_of_its_own() -> None:
    """Without a published traceparent, the attempt's span starts a new trace."""
    exporter = span_exporter()
    seen: list[httpx.Request] = []
    await _sender().send(
        claimed_message(), retried=0, transport=answering(httpx.Response(500), seen)
    )
    [span] = spans_named(exporter, "POST")
    assert span.parent is None
    assert not span.status.is_ok
    assert seen[0].headers["traceparent"] == traceparent_of(span)


async def test_without_tracing_an_attempt_forwards_the_published_traceparent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The stored traceparent goes to the receiver as it was published; none when there is none."""
    monkeypatch.setattr("server.delivery.attempt.tracing_in_use", lambda: False)
    seen: list[httpx.Request] = []
    sender = _sender()
    transport = answering(httpx.Response(204), seen)
    await sender.send(claimed_message(traceparent=TRACEPARENT), retried=0, transport=transport)
    await sender.send(claimed_message(), retried=0, transport=transport)
    assert seen[0].headers["traceparent"] == TRACEPARENT
    assert "traceparent" not in seen[1].headers
