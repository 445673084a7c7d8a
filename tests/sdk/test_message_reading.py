"""Reading message answers (sdk/_message_reading.py): messages with attempts, receipts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import MESSAGE, problem, resolve


async def test_get_and_cancel(client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter) -> None:
    """A message comes back with its attempts; cancelling a delivered one is a ConflictError."""
    api.get("/v1/messages/msg_1").mock(return_value=httpx.Response(200, json=MESSAGE))
    api.post("/v1/messages/msg_1/cancel").mock(return_value=problem(409, "invalid_state"))
    message = await resolve(client.messages.get("msg_1"))
    assert message.state == "delivered"
    assert message.headers == {"X-Tenant": "acme"}
    assert message.timeout == timedelta(seconds=30)
    assert message.callback is None
    assert message.attempts == [
        sdk.DeliveryAttempt(
            attempt=1,
            started_at=datetime(2026, 11, 29, 12, 0, 3, tzinfo=UTC),
            duration=timedelta(milliseconds=41),
            status_code=200,
            response_excerpt="ok",
            error=None,
        )
    ]
    with pytest.raises(sdk.ConflictError):
        await resolve(client.messages.cancel("msg_1"))


async def test_a_url_publish_without_exactly_one_receipt_is_unreadable(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """One URL means one receipt; anything else is a response the SDK cannot trust."""
    api.post("/v1/messages").mock(return_value=httpx.Response(202, json={"messages": []}))
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.messages.publish_json(url="https://my-api.test/hook", body={}))
    assert isinstance(raised.value.__cause__, sdk.APIResponseValidationError)
