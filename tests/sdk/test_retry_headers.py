"""Retries as the service asks: Retry-After-Ms, then Retry-After, and x-should-retry."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest
import respx

import sdk
from sdk._exceptions import make_status_error, retry_after_of, should_retry_of
from tests.sdk._support import appended, problem, resolve

ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]
ENTRIES = "/v1/streams/events/entries"


async def test_retry_after_ms_is_preferred_to_retry_after(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """Retry-After-Ms, the finer of the two, wins when both are sent."""
    asked = problem(429, "rate_limited", headers={"Retry-After-Ms": "250", "Retry-After": "7"})
    api.post(ENTRIES).mock(side_effect=[asked, appended()])
    await resolve(client.publish("events", {}))
    assert sleeps == [0.25]


async def test_an_unreadable_retry_after_ms_falls_back_to_retry_after(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """A Retry-After-Ms that is no number of milliseconds is ignored, not obeyed."""
    asked = problem(503, "unavailable", headers={"Retry-After-Ms": "soon", "Retry-After": "2"})
    api.post(ENTRIES).mock(side_effect=[asked, appended()])
    await resolve(client.publish("events", {}))
    assert sleeps == [2.0]


async def test_a_retry_after_date_is_waited_until(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """Retry-After as an HTTP date means waiting until then."""
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    api.post(ENTRIES).mock(
        side_effect=[problem(503, "unavailable", headers={"Retry-After": when}), appended()]
    )
    await resolve(client.publish("events", {}))
    assert len(sleeps) == 1 and 28 <= sleeps[0] <= 30


async def test_a_long_retry_after_ms_is_capped_by_backoff(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """Over a minute is not obeyed, in milliseconds as in seconds: the SDK's backoff applies."""
    asked = problem(503, "unavailable", headers={"Retry-After-Ms": "3600000"})
    api.post(ENTRIES).mock(side_effect=[asked, appended()])
    await resolve(client.publish("events", {}))
    assert len(sleeps) == 1 and sleeps[0] <= 0.5


@pytest.mark.parametrize(
    "refusal",
    [
        pytest.param(lambda: problem(400, "malformed_request"), id="400"),
        pytest.param(lambda: problem(429, "quota_exceeded"), id="quota"),
        pytest.param(lambda: problem(409, "conflict"), id="409"),
    ],
)
async def test_should_retry_true_retries_a_status_never_retried(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    sleeps: list[float],
    refusal: Callable[[], httpx.Response],
) -> None:
    """`x-should-retry: true` is the service saying this one is worth another try."""
    answer = refusal()
    answer.headers["x-should-retry"] = "true"
    route = api.post(ENTRIES).mock(side_effect=[answer, appended("2-0")])
    assert await resolve(client.publish("events", {})) == "2-0"
    assert route.call_count == 2 and len(sleeps) == 1


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(lambda: problem(503, "unavailable"), id="503"),
        pytest.param(lambda: problem(429, "rate_limited"), id="429"),
        pytest.param(lambda: problem(500, "internal_error"), id="500"),
    ],
)
async def test_should_retry_false_stops_a_status_always_retried(
    client: sdk.Client | sdk.AsyncClient,
    api: respx.MockRouter,
    sleeps: list[float],
    failure: Callable[[], httpx.Response],
) -> None:
    """`x-should-retry: false` is final, whatever the status: one request, no wait."""
    answer = failure()
    answer.headers["X-Should-Retry"] = "False"
    route = api.post(ENTRIES).mock(return_value=answer)
    with pytest.raises(sdk.PublishError) as raised:
        await resolve(client.publish("events", {}))
    assert isinstance(raised.value.__cause__, sdk.APIStatusError)
    assert raised.value.__cause__.should_retry is False
    assert (route.call_count, sleeps) == (1, [])


async def test_should_retry_true_still_counts_against_max_retries(
    make_client: ClientFactory, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """The header changes what is retried, not how often."""
    client = make_client(max_retries=1)
    answers = [problem(400, "malformed_request", headers={"x-should-retry": "true"}) for _ in "abc"]
    route = api.get("/v1/streams/events").mock(side_effect=answers)
    with pytest.raises(sdk.BadRequestError):
        await resolve(client.streams.length("events"))
    assert route.call_count == 2 and len(sleeps) == 1


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({}, None),
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "0"}, 0.0),
        ({"retry-after-ms": "-5", "retry-after": "3"}, 3.0),
        ({"retry-after-ms": "nan", "retry-after": "4"}, 4.0),
        ({"retry-after-ms": "inf"}, None),
        ({"retry-after": "9"}, 9.0),
        ({"retry-after": "soon"}, None),
    ],
)
def test_retry_after_of_reads_milliseconds_then_seconds(
    headers: dict[str, str], seconds: float | None
) -> None:
    """Each header form, and each unreadable one, as seconds or None."""
    assert retry_after_of(httpx.Headers(headers)) == seconds


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("TRUE", True), (" false ", False), ("yes", None), ("", None)],
)
def test_should_retry_of_reads_true_and_false_only(value: str, expected: bool | None) -> None:
    """Anything but true or false is no instruction at all."""
    assert should_retry_of(httpx.Headers({"x-should-retry": value})) is expected
    assert should_retry_of(httpx.Headers()) is None


def test_a_status_error_keeps_the_answers_headers() -> None:
    """`headers` is the answer's, case-insensitive, for whatever else the service said."""
    error = make_status_error(503, {"X-Request-Id": "r-1", "Retry-After-Ms": "20"}, b"")
    assert error.headers["x-request-id"] == "r-1"
    assert error.retry_after == 0.02
