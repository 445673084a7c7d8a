"""run()'s bounds and progress (sdk/_worker_run.py): options, the budget and the long poll."""

from __future__ import annotations

import pytest
import respx

import sdk
from sdk._worker_run import Pace
from tests.sdk._support import resolve, sent_json
from tests.sdk._worker_support import (
    GROUP,
    ORDERS,
    ClientFactory,
    claim_answer,
    entry,
    read_answer,
)


async def test_stop_after_zero_sends_nothing(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A deadline already passed ends the run before any request."""
    client.subscribe(ORDERS)(lambda body: None)
    await resolve(client.run(stop_after=0))
    assert api.calls.call_count == 0


async def test_each_subscription_long_polls_within_half_the_http_timeout(
    make_client: ClientFactory, api: respx.MockRouter, group: respx.Route, ack: respx.Route
) -> None:
    """Every subscription is fetched on its own and waits the whole poll_wait, which never
    exceeds half the HTTP timeout.
    """
    client = make_client(timeout=1.0)
    api.post(f"{GROUP}/claim").mock(return_value=claim_answer())
    read = api.post(f"{GROUP}/read").mock(
        side_effect=[read_answer(), read_answer(), *[read_answer(entry("1-0", "a"))] * 4]
    )
    client.subscribe(ORDERS)(lambda body: None)
    client.subscribe(sdk.Stream("orders", group="billing"))(lambda body: None)
    await resolve(client.run(max_messages=2, poll_wait="10s"))
    assert {sent_json(call)["wait_ms"] for call in read.calls} == {500}


async def test_configuration_mistakes_are_refused(
    client: sdk.Client | sdk.AsyncClient,
) -> None:
    """No subscriptions, a Stream without group, a bad consumer or budget: ConfigurationError."""
    with pytest.raises(sdk.ConfigurationError, match="nothing to run"):
        await resolve(client.run())
    with pytest.raises(sdk.ConfigurationError, match="consumer group"):
        client.subscribe(sdk.Stream("orders"))
    with pytest.raises(sdk.ConfigurationError, match="Stream"):
        client.subscribe("orders")  # type: ignore[arg-type]
    client.subscribe(ORDERS)(lambda body: None)
    with pytest.raises(sdk.InvalidNameError):
        await resolve(client.run(consumer="not valid"))
    with pytest.raises(sdk.ConfigurationError, match="max_messages"):
        await resolve(client.run(max_messages=0))
    for concurrency in (0, 1001, 2.0, True):
        with pytest.raises(sdk.ConfigurationError, match="concurrency"):
            await resolve(client.run(concurrency=concurrency))  # type: ignore[arg-type]


def test_the_pace_holds_what_the_handlers_get_through_in_a_quarter_of_the_lease() -> None:
    """Without a count, a subscription holds lease / 4 / (seconds a handler takes) messages,
    times the handlers at once, from 10 to 1,000; 10 until it has measured.
    """
    pace = Pace(budget_seconds=30)
    assert pace.capacity(1) == 10 and pace.capacity(16) == 16
    pace.record(0.5)
    assert pace.capacity(1) == 15 and pace.capacity(4) == 60
    for _ in range(100):
        pace.record(0.00001)
    assert pace.capacity(1) == 1000
    for _ in range(100):
        pace.record(60.0)
    assert pace.capacity(1) == 10
    assert Pace().capacity(1) == 10
