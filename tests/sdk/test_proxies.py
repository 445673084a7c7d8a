"""Proxies: both clients honour $HTTP_PROXY, $ALL_PROXY and $NO_PROXY, and take `proxy=`; an
embedded service is reached directly. Every request goes to a real service through a real
forwarding proxy on loopback (tests/_proxy_server.py), which records what it forwarded.
"""

from __future__ import annotations

import socket
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

import sdk
from sdk._embedded import EmbeddedService
from tests._proxy_server import ForwardingProxy
from tests.sdk._support import resolve

pytestmark = pytest.mark.slow

# What urllib.request.getproxies(), and so httpx, reads: either case, and CGI's REQUEST_METHOD,
# which makes it ignore HTTP_PROXY.
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "no_proxy")


@pytest.fixture(autouse=True)
def no_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start every test with no proxy named in the environment."""
    for name in _PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    monkeypatch.delenv("REQUEST_METHOD", raising=False)


@pytest.fixture(scope="module")
def service() -> Iterator[EmbeddedService]:
    """One real service on loopback for the module."""
    started = EmbeddedService.start()
    yield started
    started.stop()


@pytest.fixture
def proxy() -> Iterator[ForwardingProxy]:
    """A forwarding proxy of the test's own."""
    with ForwardingProxy() as running:
        yield running


@pytest.fixture
def dead_proxy() -> str:
    """The URL of a proxy that refuses connections: a loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(params=["sync", "async"])
def flavour(request: pytest.FixtureRequest) -> str:
    """Each client kind in turn."""
    return str(request.param)


def _client(flavour: str, service: EmbeddedService, **options: Any) -> sdk.Client | sdk.AsyncClient:
    kind = sdk.Client if flavour == "sync" else sdk.AsyncClient
    return kind(service.base_url, service.token, max_retries=0, **options)


async def _publish_and_read(client: sdk.Client | sdk.AsyncClient, stream: str) -> None:
    """A GET, a POST with a body and a GET with a path, all answered by the service."""
    try:
        assert (await resolve(client.health())).status == "ok"
        entry_id = await resolve(client.publish(stream, {"via": "proxy"}))
        assert await resolve(client.streams.length(stream)) == 1
        assert entry_id
    finally:
        await resolve(client.close())


def _fresh(prefix: str) -> str:
    """A stream name no other test uses: the service is the module's."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def _expected(service: EmbeddedService, stream: str) -> list[tuple[str, str]]:
    return [
        ("GET", f"{service.base_url}/v1/health"),
        ("POST", f"{service.base_url}/v1/streams/{stream}/entries"),
        ("GET", f"{service.base_url}/v1/streams/{stream}"),
    ]


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
async def test_both_clients_send_through_the_proxy_the_environment_names(
    flavour: str,
    service: EmbeddedService,
    proxy: ForwardingProxy,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
) -> None:
    """Every request goes to the proxy in absolute form, with the Bearer key for the service."""
    monkeypatch.setenv(variable, proxy.url)
    stream = _fresh("proxied-env")
    await _publish_and_read(_client(flavour, service), stream)
    assert [(seen.method, seen.url) for seen in proxy.requests] == _expected(service, stream)
    assert {seen.headers["authorization"] for seen in proxy.requests} == {f"Bearer {service.token}"}


async def test_an_explicit_proxy_is_used_instead_of_the_environments(
    flavour: str,
    service: EmbeddedService,
    proxy: ForwardingProxy,
    dead_proxy: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`proxy=` carries every request, whatever proxy (or exemption) the environment names."""
    monkeypatch.setenv("HTTP_PROXY", dead_proxy)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    stream = _fresh("proxied-explicit")
    await _publish_and_read(_client(flavour, service, proxy=proxy.url), stream)
    assert [(seen.method, seen.url) for seen in proxy.requests] == _expected(service, stream)


@pytest.mark.parametrize("proxy_option", ["url", "httpx.URL", "httpx.Proxy"])
async def test_proxy_takes_what_httpx_takes(
    flavour: str, service: EmbeddedService, proxy: ForwardingProxy, proxy_option: str
) -> None:
    """A URL string, an httpx.URL or an httpx.Proxy."""
    given: dict[str, str | httpx.URL | httpx.Proxy] = {
        "url": proxy.url,
        "httpx.URL": httpx.URL(proxy.url),
        "httpx.Proxy": httpx.Proxy(proxy.url),
    }
    client = _client(flavour, service, proxy=given[proxy_option])
    try:
        assert (await resolve(client.health())).status == "ok"
    finally:
        await resolve(client.close())
    assert [seen.url for seen in proxy.requests] == [f"{service.base_url}/v1/health"]


@pytest.mark.parametrize("no_proxy", ["127.0.0.1", "localhost,127.0.0.1", "*"])
async def test_no_proxy_sends_past_the_proxy(
    flavour: str,
    service: EmbeddedService,
    proxy: ForwardingProxy,
    monkeypatch: pytest.MonkeyPatch,
    no_proxy: str,
) -> None:
    """A host $NO_PROXY names is reached directly: the proxy sees nothing."""
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    monkeypatch.setenv("NO_PROXY", no_proxy)
    await _publish_and_read(_client(flavour, service), _fresh("unproxied"))
    assert proxy.requests == []


async def test_a_proxy_that_refuses_is_a_connection_error(
    flavour: str, service: EmbeddedService, dead_proxy: str
) -> None:
    """Nothing reaches the service, and the typed error says so."""
    client = _client(flavour, service, proxy=dead_proxy)
    try:
        with pytest.raises(sdk.APIConnectionError, match="could not connect"):
            await resolve(client.health())
    finally:
        await resolve(client.close())


def test_proxy_with_an_http_client_is_a_configuration_error() -> None:
    """The caller's own client keeps its own proxies: both at once is a mistake."""
    with (
        httpx.Client() as http,
        pytest.raises(sdk.ConfigurationError, match="proxy= or http_client="),
    ):
        sdk.Client("http://spool.test", proxy="http://proxy.test:3128", http_client=http)


async def test_proxy_with_an_async_http_client_is_a_configuration_error() -> None:
    """The same for the AsyncClient."""
    async with httpx.AsyncClient() as http:
        with pytest.raises(sdk.ConfigurationError, match="proxy= or http_client="):
            sdk.AsyncClient("http://spool.test", proxy="http://proxy.test:3128", http_client=http)


@pytest.mark.parametrize(
    ("proxy", "message"),
    [
        ("ftp://user:secret@proxy.test", "must be an http://, https:// or socks5:// URL"),
        ("proxy.test:3128", "must be an http://, https:// or socks5:// URL"),
        ("http://user:secret@proxy.test:x1", "is not a valid URL"),
        (3128, "must be a URL"),
    ],
)
def test_a_bad_proxy_is_a_configuration_error_that_hides_its_credentials(
    flavour: str, proxy: object, message: str
) -> None:
    """Refused when the client is made, without echoing a password."""
    kind = sdk.Client if flavour == "sync" else sdk.AsyncClient
    with pytest.raises(sdk.ConfigurationError, match=message) as raised:
        kind("http://spool.test", proxy=proxy)  # type: ignore[arg-type]
    assert "secret" not in str(raised.value)


@pytest.mark.parametrize("how", ["explicit", "environment"])
def test_a_socks_proxy_without_its_package_is_a_configuration_error(
    flavour: str, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """httpx speaks SOCKS only with socksio installed (httpx[socks]); the error says so."""
    monkeypatch.setitem(sys.modules, "socksio", None)
    proxy = "socks5://127.0.0.1:1080" if how == "explicit" else None
    if how == "environment":
        monkeypatch.setenv("ALL_PROXY", "socks5://127.0.0.1:1080")
    kind = sdk.Client if flavour == "sync" else sdk.AsyncClient
    with pytest.raises(sdk.ConfigurationError, match=r"pip install 'httpx\[socks\]'") as raised:
        kind("http://spool.test", proxy=proxy)
    assert isinstance(raised.value.__cause__, ImportError)


async def test_an_embedded_client_never_goes_through_a_proxy(
    flavour: str, dead_proxy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The embedded service is on loopback: a proxy the environment names is not asked."""
    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.setenv(variable, dead_proxy)
    if flavour == "sync":
        client: sdk.Client | sdk.AsyncClient = sdk.Client.embedded(max_retries=0)
    else:
        client = await sdk.AsyncClient.embedded(max_retries=0)
    try:
        assert (await resolve(client.health())).status == "ok"
    finally:
        await resolve(client.close())
