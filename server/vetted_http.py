"""A network backend for httpcore that connects only to addresses the destination policy vetted.

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

from sdk._network import NetworkBackend

from .destinations import DestinationNotAllowed, DestinationPolicy, DestinationUnresolved

__all__ = ["VettedNetworkBackend"]


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
