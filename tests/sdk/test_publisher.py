"""Publishers: direct publishing, and decorators that stack destinations on a handler."""

from __future__ import annotations

from typing import Any

import pytest
import respx

import sdk
from sdk._publisher import publishers_of
from tests.sdk._support import appended, resolve, sent_json


async def test_a_publisher_publishes_to_its_stream(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """publisher(stream).publish(body) appends and returns the entry id."""
    route = api.post("/v1/streams/audit/entries").mock(return_value=appended("3-0", "audit"))
    audit = client.publisher("audit")
    assert await resolve(audit.publish({"type": "audit"})) == "3-0"
    assert sent_json(route.calls.last) == {"body": {"type": "audit"}}


async def test_a_publishers_maxlen_applies_and_the_call_still_wins(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """publisher(..., maxlen=N) caps every publish unless the call gives its own."""
    route = api.post("/v1/streams/invoices/entries").mock(return_value=appended())
    invoices = client.publisher("invoices", maxlen=10_000)
    await resolve(invoices.publish({}))
    assert sent_json(route.calls.last) == {"body": {}, "maxlen": 10_000, "approximate": True}
    await resolve(invoices.publish({}, maxlen=5, approximate=False))
    assert sent_json(route.calls.last) == {"body": {}, "maxlen": 5, "approximate": False}


async def test_a_publisher_of_a_stream_keeps_its_definition(
    client: sdk.Client | sdk.AsyncClient,
) -> None:
    """A Stream's own settings carry over; a maxlen given to publisher() replaces its cap."""
    orders = sdk.Stream("orders", group="billing", maxlen=100)
    assert client.publisher(orders).stream is orders
    assert client.publisher(orders, maxlen=5).stream == sdk.Stream(
        "orders", group="billing", maxlen=5
    )


def test_publisher_kind_matches_the_client() -> None:
    """A Client makes Publishers, an AsyncClient AsyncPublishers."""
    assert type(sdk.Client("http://spool.test").publisher("a")) is sdk.Publisher
    assert type(sdk.AsyncClient("http://spool.test").publisher("a")) is sdk.AsyncPublisher


async def test_decorators_stack_in_the_order_they_apply(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """The innermost decorator applies first, so it comes first in publishers_of(handle)."""

    @client.subscribe(sdk.Stream("orders", group="billing"))
    # client.publisher(...) is Publisher | AsyncPublisher, and mypy takes a union of typed
    # decorators for an untyped one (python/mypy#16384).
    @client.publisher("events")  # type: ignore[untyped-decorator]
    @client.publisher("notifications")  # type: ignore[untyped-decorator]
    def handle(order: dict[str, Any]) -> dict[str, Any]:
        return {"order": order["id"], "status": "billed"}

    publishers = publishers_of(handle)
    assert [publisher.stream.name for publisher in publishers] == ["notifications", "events"]
    kind = type(publishers[0]).__name__
    assert [repr(p) for p in publishers] == [f"{kind}('notifications')", f"{kind}('events')"]
    assert api.calls.call_count == 0


async def test_calling_the_handler_yourself_publishes_nothing(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Decorators return the function unchanged: a direct call is just a call."""

    @client.publisher("events")  # type: ignore[untyped-decorator]
    def handle(order: dict[str, Any]) -> dict[str, Any]:
        return {"order": order["id"]}

    assert handle({"id": 7}) == {"order": 7}
    assert handle.__name__ == "handle"
    assert api.calls.call_count == 0


def test_a_publisher_repr_shows_its_cap() -> None:
    """repr names the stream and, when set, the cap."""
    client = sdk.Client("http://spool.test")
    assert repr(client.publisher("invoices", maxlen=10)) == "Publisher('invoices', maxlen=10)"


def test_a_publisher_cannot_decorate_something_without_attributes() -> None:
    """A bound method cannot carry publishers: a clear ConfigurationError."""

    class Handlers:
        def handle(self, body: Any) -> Any:
            return body

    client = sdk.Client("http://spool.test")
    with pytest.raises(sdk.ConfigurationError, match="decorate the function itself"):
        client.publisher("events")(Handlers().handle)


def test_an_invalid_publisher_stream_fails_at_once() -> None:
    """The stream name is checked when the publisher is made, at import time."""
    client = sdk.Client("http://spool.test")
    with pytest.raises(sdk.InvalidNameError):
        client.publisher("not valid")
    with pytest.raises(sdk.InvalidArgumentError):
        client.publisher("events", maxlen=-5)
