"""The HTTP transport deliveries go through, and its network backend, which connects only to
addresses the destination policy vetted.

Checking a URL and then letting the HTTP client resolve its host again leaves a gap: a name with a
short TTL can answer a public address to the check and a private one to the connection (DNS
rebinding). Here the check *is* the resolution: each new connection resolves the host once through
the policy, which refuses it if any address is refused, and the socket connects to one of those
very addresses. The URL is unchanged, so the ``Host`` header, TLS server name (SNI) and
certificate check still use the host name.

The HTTP/1.1 client is httpcore's connection pool, through its public ``network_backend``
extension point: :class:`VettedNetworkBackend` vets, then hands the connect to httpcore's own
backend. httpx's ``AsyncHTTPTransport`` takes no network backend, so :class:`DeliveryTransport`
puts the pool behind httpx's transport interface, which the engine and its tests speak.
"""

from __future__ import annotations

import contextlib
import functools
import ssl
import typing
from collections.abc import AsyncIterator, Iterator

import httpcore
import httpx

from ..destinations import DestinationNotAllowed, DestinationPolicy, DestinationUnresolved

__all__ = [
    "HTTP_KEEPALIVE_SECONDS",
    "HTTP_MAX_CONNECTIONS",
    "HTTP_MAX_KEEPALIVE_CONNECTIONS",
    "DeliveryTransport",
    "VettedNetworkBackend",
    "default_transport",
    "tls_context",
]

# Connections the HTTP transport opens at most, and keeps open between attempts; above the default
# concurrency, so a connection is free for each attempt in flight.
HTTP_MAX_CONNECTIONS = 200
HTTP_MAX_KEEPALIVE_CONNECTIONS = 100
HTTP_KEEPALIVE_SECONDS = 30.0

# httpcore's errors as httpx's, which the engine catches: the most specific one that applies.
_ERRORS: dict[type[Exception], type[httpx.TransportError]] = {
    httpcore.ConnectTimeout: httpx.ConnectTimeout,
    httpcore.ReadTimeout: httpx.ReadTimeout,
    httpcore.WriteTimeout: httpx.WriteTimeout,
    httpcore.PoolTimeout: httpx.PoolTimeout,
    httpcore.TimeoutException: httpx.TimeoutException,
    httpcore.ConnectError: httpx.ConnectError,
    httpcore.ReadError: httpx.ReadError,
    httpcore.WriteError: httpx.WriteError,
    httpcore.NetworkError: httpx.NetworkError,
    httpcore.UnsupportedProtocol: httpx.UnsupportedProtocol,
    httpcore.LocalProtocolError: httpx.LocalProtocolError,
    httpcore.RemoteProtocolError: httpx.RemoteProtocolError,
    httpcore.ProtocolError: httpx.ProtocolError,
    httpcore.ProxyError: httpx.ProxyError,
}


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The TLS context of every delivery: httpx's default (certifi's CA bundle, verification on),
    deaf to ``$SSL_CERT_FILE`` and ``$SSL_CERT_DIR``, whose trust is the operator's shell's and not
    the service's. Made once per process, at its first delivery: loading the bundle costs 15 ms of
    CPU and 800 KiB, and each app lifespan makes a transport though most never deliver.
    """
    return httpx.create_ssl_context(trust_env=False)


def default_transport(policy: DestinationPolicy) -> httpx.AsyncBaseTransport:
    """The transport deliveries go through: connections only to addresses ``policy`` vetted
    (resolved once per connection, by :class:`VettedNetworkBackend`), kept alive between attempts.

    The engine sends each request to the transport itself, with no ``httpx.AsyncClient`` around
    it, and the client's features are exactly what a delivery must not have: following a redirect
    would let a receiver send the service to an address the policy refused (so a 3xx is a failed
    attempt), environment proxies would connect somewhere other than what the policy checked,
    and a cookie jar would let one receiver's cookie ride along on another publisher's message.
    """
    return DeliveryTransport(VettedNetworkBackend(policy))


@contextlib.contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    try:
        yield
    except tuple(_ERRORS) as error:
        mapped = next(_ERRORS[cls] for cls in type(error).__mro__ if cls in _ERRORS)
        raise mapped(str(error), request=request) from error


class _Body(httpx.AsyncByteStream):
    """An answer's body as httpcore streams it, its errors as httpx's."""

    def __init__(self, stream: typing.AsyncIterable[bytes], request: httpx.Request) -> None:
        self._stream = stream
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _as_httpx_errors(self._request):
            async for chunk in self._stream:
                yield chunk

    async def aclose(self) -> None:
        closing = getattr(self._stream, "aclose", None)
        if closing is not None:
            with _as_httpx_errors(self._request):
                await closing()


class DeliveryTransport(httpx.AsyncBaseTransport):
    """httpcore's HTTP/1.1 connection pool on ``network_backend``, as an httpx transport: at most
    ``HTTP_MAX_CONNECTIONS`` connections, ``HTTP_MAX_KEEPALIVE_CONNECTIONS`` of them kept idle for
    ``HTTP_KEEPALIVE_SECONDS``, https with ``ssl_context`` (by default :func:`tls_context`).

    The pool is made at the first request, so a transport that never sends loads no CA bundle. No
    proxy, no redirects, no cookies: those are a client's, and there is none.
    """

    def __init__(
        self,
        network_backend: httpcore.AsyncNetworkBackend,
        *,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self._backend = network_backend
        self._ssl_context = ssl_context
        self._pool: httpcore.AsyncConnectionPool | None = None

    def _connection_pool(self) -> httpcore.AsyncConnectionPool:
        if self._pool is None:
            self._pool = httpcore.AsyncConnectionPool(
                ssl_context=self._ssl_context or tls_context(),
                max_connections=HTTP_MAX_CONNECTIONS,
                max_keepalive_connections=HTTP_MAX_KEEPALIVE_CONNECTIONS,
                keepalive_expiry=HTTP_KEEPALIVE_SECONDS,
                network_backend=self._backend,
            )
        return self._pool

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert isinstance(request.stream, httpx.AsyncByteStream)
        url = request.url
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=url.raw_scheme, host=url.raw_host, port=url.port, target=url.raw_path
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _as_httpx_errors(request):
            answer = await self._connection_pool().handle_async_request(core_request)
        assert isinstance(answer.stream, typing.AsyncIterable)
        return httpx.Response(
            status_code=answer.status,
            headers=answer.headers,
            stream=_Body(answer.stream, request),
            extensions=answer.extensions,
        )

    async def aclose(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()


class VettedNetworkBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections to the policy's vetted addresses only, through ``inner`` (by
    default httpcore's anyio backend).
    """

    def __init__(
        self, policy: DestinationPolicy, *, inner: httpcore.AsyncNetworkBackend | None = None
    ) -> None:
        self._policy = policy
        self._inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await self._policy.vetted_addresses(host, port)
        except DestinationUnresolved as error:
            raise httpcore.ConnectError(str(error)) from error
        except DestinationNotAllowed as error:
            # An httpcore error, so httpx reports it as a ConnectError like any failed connect.
            raise httpcore.ConnectError(f"destination not allowed: {error}") from error
        failure: httpcore.ConnectError | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    str(address),
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectError as error:
                failure = error
        assert failure is not None
        raise failure

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
