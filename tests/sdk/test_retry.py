"""Retries: what is retried, how long the SDK waits, and one Idempotency-Key per publish."""

from __future__ import annotations

import logging
from collections.abc import Callable

import httpx
import pytest
import respx

import sdk
from sdk._retry import MAX_DELAY, RetryPolicy
from tests.sdk._support import API_KEY, appended, problem, resolve

ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]

RETRIED = [
    pytest.param(lambda: httpx.ConnectError("refused"), id="connection-error"),
    pytest.param(lambda: httpx.ReadTimeout("slow"), id="timeout"),
    pytest.param(lambda: problem(408, "request_timeout"), id="408"),
    pytest.param(lambda: problem(429, "rate_limited"), id="429-rate-limited"),
    pytest.param(lambda: problem(500, "internal_error"), id="500"),
    pytest.param(lambda: problem(503, "unavailable"), id="503"),
]

NOT_RETRIED = [
    pytest.param(lambda: problem(429, "quota_exceeded"), sdk.QuotaExceededError, id="quota"),
    pytest.param(lambda: problem(400, "reserved_topic"), sdk.BadRequestError, id="400"),
    pytest.param(lambda: problem(401, "unauthenticated"), sdk.AuthenticationError, id="401"),
    pytest.param(lambda: problem(404, "queue_not_found"), sdk.NotFoundError, id="404"),
    pytest.param(lambda: problem(409, "conflict"), sdk.ConflictError, id="409"),
    pytest.param(lambda: problem(422, "validation_failed"), sdk.UnprocessableEntityError, id="422"),
]


def failure(make: Callable[[], httpx.Response | Exception]) -> httpx.Response | Exception:
    """A fresh failing answer (responses and exceptions are single-use)."""
    return make()


@pytest.mark.parametrize("make_failure", RETRIED)
async def test_retryable_failures_are_retried_with_the_same_idempotency_key(
    make_client: ClientFactory,
    api: respx.MockRouter,
    sleeps: list[float],
    make_failure: Callable[[], httpx.Response | Exception],
) -> None:
    """Two failures then success: three requests, one key, two waits."""
    client = make_client(max_retries=3)
    route = api.post("/v1/streams/events/entries").mock(
        side_effect=[failure(make_failure), failure(make_failure), appended("9-0")]
    )
    assert await resolve(client.publish("events", {"n": 1})) == "9-0"
    keys = [call.request.headers["Idempotency-Key"] for call in route.calls]
    assert len(keys) == 3
    assert len(set(keys)) == 1
    assert len(sleeps) == 2


@pytest.mark.parametrize(("make_failure", "cls"), NOT_RETRIED)
async def test_other_failures_are_not_retried(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    sleeps: list[float],
    make_failure: Callable[[], httpx.Response],
    cls: type[sdk.APIStatusError],
) -> None:
    """Quota and every other 4xx fail at once: one request, no wait."""
    route = api.post("/v1/streams/events/entries").mock(return_value=make_failure())
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.publish("events", {"n": 1}))
    assert type(raised.value.__cause__) is cls
    assert route.call_count == 1
    assert sleeps == []


async def test_no_wait_after_the_last_attempt(
    make_client: ClientFactory, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """max_retries=2 means three attempts and exactly two waits before the error."""
    client = make_client(max_retries=2)
    route = api.post("/v1/streams/events/entries").mock(
        side_effect=[problem(503, "unavailable") for _ in range(3)]
    )
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.publish("events", {}))
    assert isinstance(raised.value.__cause__, sdk.InternalServerError)
    assert route.call_count == 3
    assert len(sleeps) == 2
    assert len({call.request.headers["Idempotency-Key"] for call in route.calls}) == 1


async def test_max_retries_zero_sends_once(
    make_client: ClientFactory, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """With retries off, a retryable failure is raised after one request."""
    client = make_client(max_retries=0)
    route = api.post("/v1/streams/events/entries").mock(return_value=problem(503, "unavailable"))
    with pytest.raises(sdk.PublishError):
        await resolve(client.publish("events", {}))
    assert (route.call_count, sleeps) == (1, [])


async def test_retry_after_is_honoured(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """The wait after a rate limit is the service's Retry-After."""
    api.post("/v1/streams/events/entries").mock(
        side_effect=[problem(429, "rate_limited", headers={"Retry-After": "7"}), appended()]
    )
    await resolve(client.publish("events", {}))
    assert sleeps == [7.0]


async def test_an_unreasonable_retry_after_falls_back_to_backoff(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """A Retry-After over a minute is not obeyed blindly; the SDK's backoff applies."""
    api.post("/v1/streams/events/entries").mock(
        side_effect=[problem(503, "unavailable", headers={"Retry-After": "3600"}), appended()]
    )
    await resolve(client.publish("events", {}))
    assert len(sleeps) == 1 and sleeps[0] <= 0.5


async def test_each_publish_call_gets_its_own_key(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Two separate publishes are two operations: different keys."""
    route = api.post("/v1/streams/events/entries").mock(return_value=appended())
    await resolve(client.publish("events", {}))
    await resolve(client.publish("events", {}))
    assert len({call.request.headers["Idempotency-Key"] for call in route.calls}) == 2


async def test_a_callers_idempotency_key_is_sent(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A key the caller chose (to survive a process restart) is used as is."""
    route = api.post("/v1/streams/events/entries").mock(return_value=appended())
    await resolve(client.publish("events", {}, idempotency_key="order-42"))
    assert route.calls.last.request.headers["Idempotency-Key"] == "order-42"


async def test_reads_are_retried_too(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """Non-publish calls retry the same way, without an Idempotency-Key."""
    route = api.get("/v1/streams/events").mock(
        side_effect=[
            httpx.ConnectError("refused"),
            httpx.Response(200, json={"stream": "events", "length": 2, "groups": []}),
        ]
    )
    assert await resolve(client.streams.length("events")) == 2
    assert "Idempotency-Key" not in route.calls.last.request.headers
    assert len(sleeps) == 1


async def test_retries_are_logged_without_secrets(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, caplog: pytest.LogCaptureFixture
) -> None:
    """Each retry is logged at INFO with its reason, never with the API key."""
    caplog.set_level(logging.DEBUG)
    api.post("/v1/streams/events/entries").mock(
        side_effect=[problem(503, "unavailable", "store does not answer"), appended()]
    )
    await resolve(client.publish("events", {}))
    assert "retrying append_entry" in caplog.text
    assert "503 unavailable" in caplog.text
    assert API_KEY not in caplog.text


def test_backoff_grows_exponentially_with_jitter_and_a_cap() -> None:
    """Waits are 0.5 s, 1 s, 2 s, ... less up to a quarter, never above the cap."""
    policy = RetryPolicy(max_retries=10)
    error = sdk.APIConnectionError("refused")
    for retry_number in range(10):
        base = min(0.5 * 2**retry_number, MAX_DELAY)
        for _ in range(20):
            assert 0.75 * base <= policy.delay(retry_number, error) <= base


async def test_a_retry_budget_keeps_retrying_past_max_retries(
    make_client: ClientFactory, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """With retry_timeout, a service down for a while (503, Retry-After: 1) is waited out beyond
    max_retries, and the publish lands with its one Idempotency-Key.
    """
    client = make_client(max_retries=2, retry_timeout="30s")
    down = [problem(503, "unavailable", headers={"Retry-After": "1"}) for _ in range(12)]
    route = api.post("/v1/streams/events/entries").mock(side_effect=[*down, appended()])
    await resolve(client.publish("events", {}))
    assert sleeps == [1.0] * 12
    keys = {call.request.headers["idempotency-key"] for call in route.calls}
    assert len(keys) == 1


async def test_a_spent_retry_budget_raises_the_last_error(
    make_client: ClientFactory, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """No retry starts later than retry_timeout after the first attempt."""
    client = make_client(max_retries=0, retry_timeout=10)
    api.post("/v1/streams/events/entries").mock(
        side_effect=lambda request: problem(503, "unavailable", headers={"Retry-After": "3"})
    )
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.publish("events", {}))
    assert isinstance(raised.value.__cause__, sdk.InternalServerError)
    assert sleeps == [3.0, 3.0, 3.0]


@pytest.mark.parametrize(
    ("retry_timeout", "message"),
    [("soon", "retry_timeout must look like"), (-1, "must not be negative"), (True, "seconds")],
)
def test_a_bad_retry_timeout_is_a_configuration_error(retry_timeout: object, message: str) -> None:
    """The budget is checked when the client is made."""
    with pytest.raises(sdk.ConfigurationError, match=message):
        sdk.Client("http://spool.test", retry_timeout=retry_timeout)  # type: ignore[arg-type]


def test_retry_policy_budget() -> None:
    """Retries within max_retries always; beyond, only while they start within the timeout."""
    policy = RetryPolicy(max_retries=1, timeout=5.0)
    assert policy.allows(0, started=0.0, delay=100.0)
    assert RetryPolicy(max_retries=0).allows(0, started=0.0, delay=0.0) is False
