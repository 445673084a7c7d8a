"""`with_options`: a client with another timeout, retries or extra headers, on the same pool."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

import httpx
import pytest
import respx

import sdk
from tests.sdk._support import API_KEY, appended, problem, record_http_clients, resolve

ClientFactory = Callable[..., "sdk.Client | sdk.AsyncClient"]
STREAM = {"stream": "events", "length": 2, "groups": []}


async def close(client: sdk.Client | sdk.AsyncClient) -> None:
    """Close either client."""
    await resolve(client.close())


async def test_the_timeout_applies_to_the_derived_clients_requests_only(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """A per-call timeout is a derived client's; the original keeps its own."""
    route = api.get("/v1/streams/events").mock(return_value=httpx.Response(200, json=STREAM))
    await resolve(client.with_options(timeout=1.5).streams.length("events"))
    await resolve(client.streams.length("events"))
    first, second = (call.request.extensions["timeout"] for call in route.calls)
    assert first == httpx.Timeout(1.5).as_dict()
    assert second == httpx.Timeout(10.0).as_dict()


async def test_an_httpx_timeout_is_taken_as_it_is(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """An httpx.Timeout sets each phase, as the constructor's does."""
    route = api.get("/v1/streams/events").mock(return_value=httpx.Response(200, json=STREAM))
    timeout = httpx.Timeout(5.0, connect=1.0)
    await resolve(client.with_options(timeout=timeout).streams.length("events"))
    assert route.calls.last.request.extensions["timeout"] == timeout.as_dict()


async def test_max_retries_is_the_derived_clients(
    make_client: ClientFactory, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """max_retries=0 on a derived client: one attempt there, the usual retries here."""
    client = make_client(max_retries=3)
    route = api.get("/v1/streams/events").mock(
        side_effect=[
            problem(503, "unavailable"),
            problem(503, "unavailable"),
            httpx.Response(200, json=STREAM),
        ]
    )
    with pytest.raises(sdk.InternalServerError):
        await resolve(client.with_options(max_retries=0).streams.length("events"))
    assert route.call_count == 1
    assert await resolve(client.streams.length("events")) == 2
    assert route.call_count == 3 and len(sleeps) == 1


async def test_a_retry_timeout_can_be_given_and_taken_away(
    make_client: ClientFactory, api: respx.MockRouter, sleeps: list[float]
) -> None:
    """retry_timeout=None on a derived client counts retries only again."""
    client = make_client(max_retries=0, retry_timeout="30s")
    route = api.get("/v1/streams/events").mock(return_value=problem(503, "unavailable"))
    with pytest.raises(sdk.InternalServerError):
        await resolve(client.with_options(retry_timeout=None).streams.length("events"))
    assert (route.call_count, sleeps) == (1, [])
    with pytest.raises(sdk.InternalServerError):
        await resolve(client.with_options(retry_timeout=2).streams.length("events"))
    assert route.call_count > 2 and sum(sleeps) <= 2


async def test_headers_are_sent_with_every_request_and_accumulate(
    client: sdk.Client | sdk.AsyncClient, api: respx.MockRouter
) -> None:
    """Headers add up across with_options calls; a name given again takes the new value."""
    route = api.post("/v1/streams/events/entries").mock(return_value=appended())
    acme = client.with_options(headers={"X-Tenant": "acme", "X-Trace": "1"})
    again = acme.with_options(headers={"x-trace": "2"}, timeout=3)
    await resolve(again.publish("events", {}))
    await resolve(acme.publish("events", {}))
    await resolve(client.publish("events", {}))
    sent = [call.request.headers for call in route.calls]
    assert (sent[0]["x-tenant"], sent[0]["x-trace"]) == ("acme", "2")
    assert (sent[1]["x-tenant"], sent[1]["x-trace"]) == ("acme", "1")
    assert "x-tenant" not in sent[2]
    assert all(headers["authorization"] == f"Bearer {API_KEY}" for headers in sent)
    assert len({headers["idempotency-key"] for headers in sent}) == 3


@pytest.mark.parametrize(
    ("name", "instead"),
    [
        ("Authorization", "api_key="),
        ("idempotency-key", "idempotency_key="),
        ("Content-Type", "encodes the body"),
        ("Content-Length", "encodes the body"),
        ("Host", "base_url="),
    ],
)
def test_the_sdks_own_headers_are_refused(name: str, instead: str) -> None:
    """A header the SDK writes itself cannot be replaced; the error says what to use."""
    with sdk.Client("http://spool.test") as client:
        with pytest.raises(sdk.ConfigurationError, match=instead) as raised:
            client.with_options(headers={name: "Bearer stolen"})
    assert "stolen" not in str(raised.value)


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"timeout": 0}, "timeout must be a positive number"),
        ({"timeout": "fast"}, "timeout must be seconds"),
        ({"max_retries": -1}, "max_retries must be an int >= 0"),
        ({"retry_timeout": "soon"}, "retry_timeout"),
        ({"headers": [("X-A", "b")]}, "headers must be a mapping"),
        ({"headers": {"X A": "b"}}, "not a valid HTTP header name"),
        ({"headers": {"X-Key": "line\r\nbreak-secret"}}, "a value HTTP cannot send"),
        ({"headers": {"X-Key": 42}}, "must have a str value"),
        ({"timout": 3}, "with_options takes headers, max_retries, retry_timeout, timeout"),
        ({"api_key": "other"}, "got 'api_key'"),
    ],
)
async def test_bad_options_are_configuration_errors(
    client: sdk.Client | sdk.AsyncClient, options: dict[str, Any], match: str
) -> None:
    """Each option is checked as the constructor checks it, and a header's value never shown."""
    with pytest.raises(sdk.ConfigurationError, match=match) as raised:
        client.with_options(**options)
    assert "secret" not in str(raised.value)


async def test_a_derived_client_shares_the_pool_and_leaves_it_open(
    monkeypatch: pytest.MonkeyPatch, make_client: ClientFactory, api: respx.MockRouter
) -> None:
    """No HTTP client is made for a derived one, and closing it closes nothing of the original."""
    route = api.get("/v1/streams/events").mock(return_value=httpx.Response(200, json=STREAM))
    client = make_client()
    made = record_http_clients(monkeypatch)
    derived = client.with_options(timeout=2, headers={"X-Tenant": "acme"})
    await resolve(derived.streams.length("events"))
    await close(derived)
    assert made == []
    assert await resolve(client.streams.length("events")) == 2
    assert route.call_count == 2


async def test_a_derived_client_keeps_the_originals_type_and_repr(
    client: sdk.Client | sdk.AsyncClient,
) -> None:
    """Same class (so every method is there), same base URL; the headers stay out of the repr."""
    derived = client.with_options(headers={"X-Api-Key": "hidden-value"})
    assert type(derived) is type(client)
    assert repr(derived) == repr(client)
    assert "hidden-value" not in repr(derived)


async def test_a_derived_clients_publish_nowait_is_flushed_by_its_close(
    make_client: ClientFactory, api: respx.MockRouter
) -> None:
    """Its background publishes are its own: close() sends them before returning."""
    route = api.post("/v1/streams/events/batch").mock(
        return_value=httpx.Response(
            201, json={"ids": ["1-0"], "stream": "events", "length": 1, "trimmed": 0}
        )
    )
    client = make_client()
    derived = client.with_options(headers={"X-Tenant": "acme"})
    future = derived.publish_nowait("events", {"n": 1})
    await close(derived)
    assert (future.result() if isinstance(future, Future) else await future) == "1-0"
    assert route.calls.last.request.headers["x-tenant"] == "acme"
