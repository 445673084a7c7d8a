"""run() calling handlers and their publishers (sdk/_worker_handlers.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import appended, problem, resolve, sent_json
from tests.sdk._worker_support import (
    GROUP,
    ORDERS,
    acked_ids,
    claim_answer,
    entry,
    read_answer,
)


async def test_return_values_go_to_every_stacked_publisher(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
) -> None:
    """A non-None return is published to each publisher in order; None publishes nothing."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(
        return_value=read_answer(entry("1-0", {"id": 7}), entry("1-1", {"id": 0}))
    )
    events = api.post("/v1/streams/events/entries").mock(return_value=appended())
    notifications = api.post("/v1/streams/notifications/entries").mock(return_value=appended())
    order: list[str] = []

    def appending(stream: str) -> Callable[[httpx.Request], httpx.Response]:
        def answer(request: httpx.Request) -> httpx.Response:
            order.append(stream)
            return appended()

        return answer

    events.side_effect = appending("events")
    notifications.side_effect = appending("notifications")

    @client.subscribe(ORDERS)
    # client.publisher(...) is Publisher | AsyncPublisher, and mypy takes a union of typed
    # decorators for an untyped one (python/mypy#16384).
    @client.publisher("events")  # type: ignore[untyped-decorator]
    @client.publisher("notifications")  # type: ignore[untyped-decorator]
    def bill(body: dict[str, Any]) -> dict[str, Any] | None:
        return {"order": body["id"], "status": "billed"} if body["id"] else None

    await resolve(client.run(max_messages=2))
    assert order == ["notifications", "events"]
    assert sent_json(events.calls.last) == {"body": {"order": 7, "status": "billed"}}
    assert acked_ids(ack) == ["1-0", "1-1"]


async def test_a_publish_error_fails_the_message_and_publishers_run_again(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    group: respx.Route,
    ack: respx.Route,
) -> None:
    """The second publisher fails: no ack; on the retry the first publishes again."""
    api.post(f"{GROUP}/claim").mock(
        side_effect=[claim_answer(), claim_answer(entry("1-0", {"id": 7}, 2))]
    )
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", {"id": 7})))
    first = api.post("/v1/streams/first/entries").mock(return_value=appended())
    second = api.post("/v1/streams/second/entries").mock(
        side_effect=[problem(403, "permission_denied"), appended()]
    )

    @client.subscribe(ORDERS, redeliver_after=0)
    @client.publisher("second")  # type: ignore[untyped-decorator]
    @client.publisher("first")  # type: ignore[untyped-decorator]
    def bill(body: dict[str, Any]) -> dict[str, Any]:
        return body

    await resolve(client.run(max_messages=2))
    assert first.call_count == 2
    assert second.call_count == 2
    assert ack.call_count == 1


def test_a_sync_client_refuses_async_handlers_and_publishers() -> None:
    """Client.run cannot await: async handlers and AsyncPublishers are refused up front."""

    async def handler(body: Any) -> None:
        return None

    with sdk.Client("http://spool.test") as client:
        with pytest.raises(sdk.ConfigurationError, match="AsyncClient"):
            client.subscribe(ORDERS)(handler)
        async_publisher = sdk.AsyncClient("http://spool.test").publisher("events")
        client.subscribe(ORDERS)(async_publisher(lambda body: body))
        with pytest.raises(sdk.ConfigurationError, match="same kind of client"):
            client.run()


async def test_an_async_client_runs_async_and_plain_handlers(
    api: respx.MockRouter, group: respx.Route, ack: respx.Route
) -> None:
    """AsyncClient awaits coroutine handlers and calls plain ones."""
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    api.post(f"{GROUP}/read").mock(return_value=read_answer(entry("1-0", "a")))
    seen: list[str] = []
    async with sdk.AsyncClient("http://spool.test") as client:

        @client.subscribe(ORDERS)
        async def handle(body: str) -> None:
            seen.append(f"async {body}")

        def plain(body: str) -> None:
            seen.append(f"plain {body}")
            client.stop()

        client.subscribe(ORDERS)(plain)
        await client.run()
    assert "async a" in seen and "plain a" in seen
