"""The HTTP transport deliveries go through, and its resolver, which lets connections go only to
addresses the destination policy vetted.

Checking a URL and then letting the HTTP client resolve its host again leaves a gap: a name with a
short TTL can answer a public address to the check and a private one to the connection (DNS
rebinding). Here the check *is* the resolution: each new connection resolves the host once through
the policy, which refuses it if any address is refused, and the socket connects to one of those
very addresses. The URL is unchanged, so the ``Host`` header, TLS server name (SNI) and
certificate check still use the host name.

The HTTP/1.1 client is aiohttp's, through its public extension points: :class:`VettedResolver` is
the ``TCPConnector``'s resolver, with its DNS cache off so that every new connection asks it, and
:class:`DeliveryTransport` puts the session behind httpx's transport interface, which the engine
and its tests speak. aiohttp connects to an IP literal without asking its resolver, so the
transport vets such a host itself before each request.
"""

from __future__ import annotations

import functools
import re
import socket
import ssl
import types
from collections.abc import AsyncIterator

import aiohttp
import httpx
import yarl
from aiohttp.abc import AbstractResolver, ResolveResult

from ..destinations import (
    DestinationNotAllowed,
    DestinationPolicy,
    DestinationUnresolved,
    IPAddress,
)

__all__ = [
    "HTTP_KEEPALIVE_SECONDS",
    "HTTP_MAX_CONNECTIONS",
    "MAX_HEADER_FIELD_BYTES",
    "DeliveryTransport",
    "VettedResolver",
    "default_transport",
    "tls_context",
]

# Connections the HTTP transport opens at most, and keeps open between attempts; above the default
# concurrency, so a connection is free for each attempt in flight.
HTTP_MAX_CONNECTIONS = 200
HTTP_KEEPALIVE_SECONDS = 30.0
_READ_CHUNK_BYTES = 64 * 1024
# The longest status line or header field an answer may have (aiohttp's default is 8 KiB): a
# receiver's long Set-Cookie or Content-Security-Policy must not turn its 2xx into a failure.
MAX_HEADER_FIELD_BYTES = 64 * 1024
# Headers aiohttp would add of its own: a delivery sends the ones the engine chose, and no
# ``Accept-Encoding`` the receiver did not get before.
_NO_AUTO_HEADERS = frozenset({"Accept", "Accept-Encoding", "Content-Type", "User-Agent"})
_NUMERIC = socket.AI_NUMERICHOST | socket.AI_NUMERICSERV
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_NOT_IN_A_FIELD = re.compile(rb"[\r\n\x00]")


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
    (resolved once per connection, by :class:`VettedResolver`), kept alive between attempts.

    The engine sends each request to the transport itself, with no ``httpx.AsyncClient`` around
    it, and the transport has none of a client's features that a delivery must not have: following
    a redirect would let a receiver send the service to an address the policy refused (so a 3xx is
    a failed attempt), environment proxies would connect somewhere other than what the policy
    checked, and a cookie jar would let one receiver's cookie ride along on another publisher's
    message.
    """
    return DeliveryTransport(policy)


class _Refused(OSError):
    """The policy refused a host: aiohttp reports a resolver's OSError as a failed connect."""


class VettedResolver(AbstractResolver):
    """Resolves a host through the policy: its addresses if it allows every one, else
    :class:`_Refused` with the policy's reason.
    """

    def __init__(self, policy: DestinationPolicy) -> None:
        self._policy = policy

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        addresses = await _vetted(self._policy, host, port)
        results = [
            ResolveResult(
                hostname=host,
                host=str(address),
                port=port,
                family=socket.AF_INET6 if address.version == 6 else socket.AF_INET,
                proto=0,
                flags=_NUMERIC,
            )
            for address in addresses
        ]
        if family != socket.AF_UNSPEC:
            results = [result for result in results if result["family"] == family]
            if not results:
                raise _Refused(f"{host} has no address of the family {family.name}")
        return results

    async def close(self) -> None:
        pass


async def _vetted(policy: DestinationPolicy, host: str, port: int) -> list[IPAddress]:
    try:
        return list(await policy.vetted_addresses(host, port))
    except DestinationUnresolved as error:
        raise _Refused(str(error)) from error
    except DestinationNotAllowed as error:
        raise _Refused(f"destination not allowed: {error}") from error


@functools.lru_cache(maxsize=4096)
def _skips_the_resolver(host: str) -> bool:
    """Whether aiohttp may connect to ``host`` without asking its resolver: it takes a host with a
    colon for an IPv6 address and one of digits and dots for an IPv4 address. Any host with a
    colon or without a letter answers yes, which covers both, whatever aiohttp's own test: such
    a host is an address, in some spelling, or resolves to nothing.
    """
    return ":" in host or not any(character.isalpha() for character in host)


def _httpx_error(error: aiohttp.ClientError, request: httpx.Request) -> httpx.TransportError:
    """``error`` as the httpx error the engine reports, with the same texts as httpx's own."""
    if isinstance(error, aiohttp.ClientConnectorError) and isinstance(error.os_error, _Refused):
        return httpx.ConnectError(str(error.os_error), request=request)
    mapped: type[httpx.TransportError]
    if isinstance(error, aiohttp.ConnectionTimeoutError):
        mapped = httpx.ConnectTimeout
    elif isinstance(error, aiohttp.SocketTimeoutError):
        mapped = httpx.ReadTimeout
    elif isinstance(error, aiohttp.ServerTimeoutError):
        mapped = httpx.TimeoutException
    elif isinstance(error, aiohttp.ClientConnectorError):
        mapped = httpx.ConnectError
    elif isinstance(error, aiohttp.ServerDisconnectedError | aiohttp.ClientResponseError):
        mapped = httpx.RemoteProtocolError
    elif isinstance(error, aiohttp.ClientPayloadError):
        mapped = httpx.ReadError
    elif isinstance(error, aiohttp.InvalidURL):
        mapped = httpx.UnsupportedProtocol
    elif isinstance(error, aiohttp.ClientConnectionError):
        mapped = httpx.NetworkError
    else:
        mapped = httpx.TransportError
    return mapped(str(error) or type(error).__name__, request=request)


def _header_fields(request: httpx.Request) -> list[tuple[str, str]]:
    """The request's header fields, their names as given (multi_items() lowercases them); a name
    that is not a token, or a name or value with CR, LF or NUL, is refused before anything is
    sent, or even connected (aiohttp would send a bad name, and refuse the rest only once
    connected).
    """
    encoding = request.headers.encoding
    fields: list[tuple[str, str]] = []
    for name, value in request.headers.raw:
        if _TOKEN.fullmatch(name) is None or _NOT_IN_A_FIELD.search(value) is not None:
            raise httpx.LocalProtocolError(f"invalid header field {name!r}", request=request)
        fields.append((name.decode(encoding), value.decode(encoding)))
    return fields


@functools.lru_cache(maxsize=256)
def _client_timeout(
    pool: float | None, connect: float | None, read: float | None
) -> aiohttp.ClientTimeout:
    return aiohttp.ClientTimeout(total=None, connect=pool, sock_connect=connect, sock_read=read)


class _Reuse:
    """Whether a request went out on a kept-alive connection (aiohttp's tracing tells)."""

    __slots__ = ("reused",)

    def __init__(self) -> None:
        self.reused = False


async def _note_reuse(
    _session: aiohttp.ClientSession,
    context: types.SimpleNamespace,
    _params: aiohttp.TraceConnectionReuseconnParams,
) -> None:
    reuse = context.trace_request_ctx
    if isinstance(reuse, _Reuse):
        reuse.reused = True


_REUSE_TRACE = aiohttp.TraceConfig()
_REUSE_TRACE.on_connection_reuseconn.append(_note_reuse)
_REUSE_TRACE.freeze()


class _Body(httpx.AsyncByteStream):
    """An answer's body as aiohttp reads it; closing releases the connection to the pool when the
    body was read to its end, and closes it otherwise.
    """

    def __init__(self, answer: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._answer = answer
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._answer.content.iter_chunked(_READ_CHUNK_BYTES):
                yield chunk
        except aiohttp.ClientError as error:
            raise _httpx_error(error, self._request) from error

    async def aclose(self) -> None:
        self._answer.release()


class DeliveryTransport(httpx.AsyncBaseTransport):
    """aiohttp's HTTP/1.1 client as an httpx transport, connecting only where ``policy`` allows,
    https with ``ssl_context`` (by default :func:`tls_context`).

    At most ``HTTP_MAX_CONNECTIONS`` connections are in use; an idle one closes after
    ``HTTP_KEEPALIVE_SECONDS`` (aiohttp has no cap of its own on idle connections). A request's
    httpx timeouts map onto aiohttp's: ``pool`` bounds getting a connection, ``connect`` opening
    one, ``read`` each wait for the answer; aiohttp has no write timeout, which the attempt's own
    deadline covers. The session is made at the first request, inside the running loop as
    aiohttp requires, so a transport that never sends loads no CA bundle. No environment
    proxies, no redirects, no cookies, no decompression (httpx's response decodes the body as it
    would its own).
    """

    def __init__(
        self, policy: DestinationPolicy, *, ssl_context: ssl.SSLContext | None = None
    ) -> None:
        self._policy = policy
        self._ssl_context = ssl_context
        self._session: aiohttp.ClientSession | None = None

    def _client_session(self) -> aiohttp.ClientSession:
        if self._session is None:
            connector = aiohttp.TCPConnector(
                limit=HTTP_MAX_CONNECTIONS,
                limit_per_host=0,
                keepalive_timeout=HTTP_KEEPALIVE_SECONDS,
                resolver=VettedResolver(self._policy),
                use_dns_cache=False,
                ssl=self._ssl_context or tls_context(),
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                cookie_jar=aiohttp.DummyCookieJar(),
                trust_env=False,
                auto_decompress=False,
                skip_auto_headers=_NO_AUTO_HEADERS,
                timeout=aiohttp.ClientTimeout(total=None),
                trace_configs=[_REUSE_TRACE],
                max_line_size=MAX_HEADER_FIELD_BYTES,
                max_field_size=MAX_HEADER_FIELD_BYTES,
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        if _skips_the_resolver(url.host):
            try:
                await _vetted(self._policy, url.host, url.port or _default_port(url))
            except _Refused as error:
                raise httpx.ConnectError(str(error), request=request) from error
        timeouts = request.extensions.get("timeout", {})
        send = functools.partial(
            self._client_session().request,
            request.method,
            _aiohttp_url(url),
            headers=_header_fields(request),
            data=await request.aread(),
            allow_redirects=False,
            timeout=_client_timeout(
                timeouts.get("pool"), timeouts.get("connect"), timeouts.get("read")
            ),
        )
        reuse = _Reuse()
        try:
            try:
                answer = await send(trace_request_ctx=reuse)
            except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError):
                # A kept-alive connection the receiver closed just as the request went out: it
                # closed without answering, so sending once more is at least once, as ever.
                if not reuse.reused:
                    raise
                answer = await send(trace_request_ctx=_Reuse())
        except aiohttp.ClientError as error:
            raise _httpx_error(error, request) from error
        version = answer.version or aiohttp.HttpVersion11
        return httpx.Response(
            answer.status,
            headers=answer.raw_headers,
            stream=_Body(answer, request),
            extensions={
                "http_version": b"HTTP/%d.%d" % (version.major, version.minor),
                "reason_phrase": (answer.reason or "").encode("latin-1", "replace"),
            },
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


def _default_port(url: httpx.URL) -> int:
    return 443 if url.scheme == "https" else 80


@functools.lru_cache(maxsize=4096)
def _aiohttp_url(url: httpx.URL) -> yarl.URL:
    # As httpx encoded it, byte for byte: the signature covers the URL, and aiohttp would quote a
    # text URL again. Parsed once per URL, like attempt.py's httpx URLs.
    return yarl.URL(str(url), encoded=True)
