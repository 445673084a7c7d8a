"""The HTTP transport deliveries go through, and its network backend, which connects only to
addresses the destination policy vetted.

Checking a URL and then letting the HTTP client resolve its host again leaves a gap: a name with a
short TTL can answer a public address to the check and a private one to the connection (DNS
rebinding). Here the check *is* the resolution: each new connection resolves the host once through
the policy, which refuses it if any address is refused, and the socket connects to one of those
very addresses. The URL is unchanged, so the ``Host`` header, TLS server name (SNI) and
certificate check still use the host name.
"""

from __future__ import annotations

import typing

import httpcore
import httpx

from sdk._http11 import Http11Transport
from sdk._network import NetworkBackend

from ..destinations import DestinationNotAllowed, DestinationPolicy, DestinationUnresolved

__all__ = [
    "HTTP_KEEPALIVE_SECONDS",
    "HTTP_MAX_CONNECTIONS",
    "HTTP_MAX_KEEPALIVE_CONNECTIONS",
    "VettedNetworkBackend",
    "default_transport",
]

# Connections the HTTP transport opens at most, and keeps open between attempts; above the default
# concurrency, so a connection is free for each attempt in flight.
HTTP_MAX_CONNECTIONS = 200
HTTP_MAX_KEEPALIVE_CONNECTIONS = 100
HTTP_KEEPALIVE_SECONDS = 30.0


def default_transport(policy: DestinationPolicy) -> httpx.AsyncBaseTransport:
    """The transport deliveries go through: connections only to addresses ``policy`` vetted
    (resolved once per connection, by :class:`VettedNetworkBackend`), kept alive between attempts.

    The engine sends each request to the transport itself, with no ``httpx.AsyncClient`` around
    it, and the client's features are exactly what a delivery must not have: following a redirect
    would let a receiver send the service to an address the policy refused (so a 3xx is a failed
    attempt), environment proxies would connect somewhere other than what the policy checked,
    and a cookie jar would let one receiver's cookie ride along on another publisher's message.
    """
    limits = httpx.Limits(
        max_connections=HTTP_MAX_CONNECTIONS,
        max_keepalive_connections=HTTP_MAX_KEEPALIVE_CONNECTIONS,
        keepalive_expiry=HTTP_KEEPALIVE_SECONDS,
    )
    return Http11Transport(limits, network_backend=VettedNetworkBackend(policy))


class VettedNetworkBackend(httpcore.AsyncNetworkBackend):
    """Opens TCP connections to the policy's vetted addresses only."""

    def __init__(
        self, policy: DestinationPolicy, *, inner: httpcore.AsyncNetworkBackend | None = None
    ) -> None:
        self._policy = policy
        self._inner = inner or NetworkBackend()

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
