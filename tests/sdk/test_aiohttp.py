"""sdk.AioHttpClient (sdk/_aiohttp.py): the AsyncClient over httpx-aiohttp's transport, against a
real service; and the ConfigurationError that names the extra when it is not installed.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import uuid
from collections.abc import Iterator

import httpx
import pytest

import sdk
from sdk._embedded import EmbeddedService
from tests._proxy_server import ForwardingProxy

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def service() -> Iterator[EmbeddedService]:
    """One real service on loopback for the module."""
    started = EmbeddedService.start()
    yield started
    started.stop()


@pytest.fixture(autouse=True)
def no_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy the developer's environment names reaches these tests."""
    for name in ("http_proxy", "https_proxy", "all_proxy", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)


def _stream() -> str:
    return f"aiohttp-{uuid.uuid4().hex[:12]}"


async def test_it_is_an_httpx_async_client_on_aiohttp() -> None:
    """What AsyncClient(http_client=) takes, with httpx-aiohttp's transport under it."""
    from httpx_aiohttp import HttpxAiohttpClient

    async with sdk.AioHttpClient() as http:
        assert isinstance(http, httpx.AsyncClient)
        assert isinstance(http, HttpxAiohttpClient)


async def test_publishes_and_reads_through_aiohttp(service: EmbeddedService) -> None:
    """Publishes (single, many, concurrent) and reads go through aiohttp to the service."""
    stream = _stream()
    async with (
        sdk.AioHttpClient() as http,
        sdk.AsyncClient(service.base_url, service.token, http_client=http) as client,
    ):
        assert (await client.health()).status == "ok"
        first = await client.publish(stream, {"n": 0})
        rest = await client.publish_many(stream, [{"n": 1}, {"n": 2}])
        concurrent = await asyncio.gather(*(client.publish(stream, {"n": n}) for n in range(3, 35)))
        assert len({first, *rest, *concurrent}) == 35
        assert await client.streams.length(stream) == 35
        entries = await client.streams.range(stream, count=3)
        assert [entry.body for entry in entries] == [{"n": 0}, {"n": 1}, {"n": 2}]
        assert entries[0].id == first
    assert http.is_closed


async def test_the_services_refusals_are_typed_errors(service: EmbeddedService) -> None:
    """A missing stream is NotFoundError, a wrong key AuthenticationError, as on httpx."""
    async with sdk.AioHttpClient() as http:
        async with sdk.AsyncClient(service.base_url, service.token, http_client=http) as client:
            with pytest.raises(sdk.NotFoundError):
                await client.streams.info(_stream())
        async with sdk.AsyncClient(service.base_url, "wrong", http_client=http) as client:
            with pytest.raises(sdk.PublishError) as raised:
                await client.publish(_stream(), {"x": 1})
            assert isinstance(raised.value.__cause__, sdk.AuthenticationError)


async def test_an_unreachable_service_is_a_connection_error() -> None:
    """aiohttp's failure to connect comes back as APIConnectionError, raised from httpx's.

    httpx-aiohttp maps every aiohttp connection error, a refused one too, to
    httpx.ConnectTimeout, so the typed error is the APITimeoutError kind of APIConnectionError.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with (
        sdk.AioHttpClient() as http,
        sdk.AsyncClient(
            f"http://127.0.0.1:{port}", "key", max_retries=0, http_client=http
        ) as client,
    ):
        with pytest.raises(sdk.APIConnectionError) as raised:
            await client.health()
        assert isinstance(raised.value.__cause__, httpx.TransportError)


@pytest.mark.parametrize("how", ["environment", "explicit"])
async def test_it_goes_through_a_proxy(
    service: EmbeddedService, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """$HTTP_PROXY or AioHttpClient(proxy=) sends every request through the proxy."""
    with ForwardingProxy() as proxy:
        if how == "environment":
            monkeypatch.setenv("HTTP_PROXY", proxy.url)
            http = sdk.AioHttpClient()
        else:
            http = sdk.AioHttpClient(proxy=proxy.url)
        async with (
            http,
            sdk.AsyncClient(service.base_url, service.token, http_client=http) as client,
        ):
            assert (await client.health()).status == "ok"
        assert [seen.url for seen in proxy.requests] == [f"{service.base_url}/v1/health"]


async def test_options_are_httpx_async_clients_own(service: EmbeddedService) -> None:
    """Headers, event hooks and the rest go to httpx.AsyncClient as given."""
    seen: list[httpx.Request] = []

    async def hook(request: httpx.Request) -> None:
        seen.append(request)

    async with (
        sdk.AioHttpClient(headers={"X-App": "orders"}, event_hooks={"request": [hook]}) as http,
        sdk.AsyncClient(service.base_url, service.token, http_client=http) as client,
    ):
        await client.health()
    assert [request.headers["X-App"] for request in seen] == ["orders"]


def test_without_the_extra_it_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ConfigurationError that says what to install, raised from the ImportError."""
    monkeypatch.setitem(sys.modules, "httpx_aiohttp", None)
    with pytest.raises(sdk.ConfigurationError, match=r"pip install 'spool\[aiohttp\]'") as raised:
        sdk.AioHttpClient()
    assert isinstance(raised.value.__cause__, ImportError)
