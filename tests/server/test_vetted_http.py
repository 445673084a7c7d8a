"""The delivery client connects only to vetted addresses (server/vetted_http.py): DNS rebinding
gets nowhere, and the Host header keeps the name.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections.abc import AsyncIterator

import httpx
import pytest

from server.delivery import default_transport
from server.destinations import DestinationPolicy, IPAddress, Resolver


def delivery_client(policy: DestinationPolicy) -> httpx.AsyncClient:
    """A client on the engine's own transport, for sending requests through it by hand."""
    return httpx.AsyncClient(transport=default_transport(policy))


class _Receiver:
    """A loopback HTTP/1.1 endpoint that counts connections and keeps each request's head."""

    def __init__(self) -> None:
        self.connections = 0
        self.heads: list[bytes] = []

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            self.heads.append(head)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
            await writer.drain()
        except asyncio.IncompleteReadError:
            pass
        finally:
            writer.close()


@contextlib.asynccontextmanager
async def _receiver() -> AsyncIterator[tuple[_Receiver, int]]:
    receiver = _Receiver()
    server = await asyncio.start_server(receiver.handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        yield receiver, port


def _resolver(*answers: list[str]) -> tuple[list[str], Resolver]:
    """A resolver giving each answer in turn (the last one from then on), and the names asked."""
    asked: list[str] = []
    remaining = list(answers)

    async def resolve(hostname: str, port: int) -> list[IPAddress]:
        asked.append(hostname)
        answer = remaining.pop(0) if len(remaining) > 1 else remaining[0]
        return [ipaddress.ip_address(address) for address in answer]

    return asked, resolve


async def test_a_name_that_rebinds_to_loopback_after_the_check_gets_no_connection() -> None:
    """The publish-time check sees a public address, the connection's own resolution sees
    loopback: the connection is refused and not one byte reaches the loopback listener.
    """
    asked, resolve = _resolver(["8.8.8.8"], ["127.0.0.1"])
    policy = DestinationPolicy(resolver=resolve)
    async with _receiver() as (receiver, port):
        url = f"http://rebind.test:{port}/hook"
        await policy.check(url)
        async with delivery_client(policy) as client:
            with pytest.raises(httpx.ConnectError, match="destination not allowed.*loopback"):
                await client.post(url, content=b"secret")
        await asyncio.sleep(0.05)
        assert receiver.connections == 0
    assert asked == ["rebind.test", "rebind.test"]


async def test_a_vetted_connection_keeps_the_host_name_in_the_request() -> None:
    """An allowed address is connected to directly, and the Host header still names the host."""
    _, resolve = _resolver(["127.0.0.1"])
    policy = DestinationPolicy(["127.0.0.0/8"], resolver=resolve)
    async with _receiver() as (receiver, port):
        async with delivery_client(policy) as client:
            response = await client.post(f"http://receiver.test:{port}/hook", content=b"x")
    assert response.status_code == 200
    assert f"host: receiver.test:{port}".encode() in receiver.heads[0].lower()


async def test_every_address_is_checked_before_any_is_used() -> None:
    """A public first address does not excuse a private second one."""
    _, resolve = _resolver(["8.8.8.8", "10.0.0.1"])
    policy = DestinationPolicy(resolver=resolve)
    async with delivery_client(policy) as client:
        with pytest.raises(httpx.ConnectError, match="10.0.0.1, a private address"):
            await client.get("http://mixed.test/")


async def test_the_next_vetted_address_is_tried_when_one_refuses() -> None:
    """Like an ordinary client, a refused connection moves on to the name's next address."""
    _, resolve = _resolver(["127.0.0.3", "127.0.0.1"])
    policy = DestinationPolicy(["127.0.0.0/8"], resolver=resolve)
    async with _receiver() as (receiver, port):
        async with delivery_client(policy) as client:
            response = await client.get(f"http://two.test:{port}/")
    assert response.status_code == 200
    assert receiver.connections == 1


async def test_an_ip_literal_is_checked_without_resolving() -> None:
    """A literal address is vetted as it is; the resolver is never asked."""
    asked, resolve = _resolver(["8.8.8.8"])
    policy = DestinationPolicy(resolver=resolve)
    async with delivery_client(policy) as client:
        with pytest.raises(httpx.ConnectError, match="loopback"):
            await client.get("http://127.0.0.1:9/")
    assert asked == []
