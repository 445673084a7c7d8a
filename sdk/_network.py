"""Connections for sdk/_http11.py: asyncio protocol streams that cost little per request.

Profiles of the delivery engine (50 attempts in flight to a fast local receiver) and of the async
client (64 publishes in flight) found, below the HTTP exchange itself:

- httpcore's anyio streams answer ``is_readable`` (has the peer closed an idle connection?) with a
  ``poll`` system call after building anyio's whole table of socket attributes, and stop and
  restart reading the socket around every read. :class:`_Stream` sits on an asyncio protocol that
  keeps reading: the peer's data or its close is already in hand, so ``is_readable`` is a look at
  a buffer and a flag.
- A request's head and body written separately cost, on loopback, a send each, about as much as
  the rest of the request's handling; :class:`_Stream` holds the writes until the answer is read
  and sends them together.

TLS verifies as the caller's context says. Which address a connection goes to is the network
backend's: the delivery engine wraps :class:`NetworkBackend` in the one of
server/delivery/transport.py, which connects only to addresses the destination policy vetted.
Streams raise httpcore's exceptions, which sdk/_http11.py turns into httpx's.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Iterable
from typing import Any

import httpcore

__all__ = ["NetworkBackend"]

# Reading stops while this much of an answer waits unread, and starts again below a quarter of it.
_READ_BUFFER_LIMIT = 256 * 1024
# A request's writes are held and sent together up to this size.
_MAX_HELD_BYTES = 64 * 1024
# Like anyio's: a second address of the host is tried this long after the first one's connect
# began, when that one has not succeeded yet.
_HAPPY_EYEBALLS_DELAY_SECONDS = 0.25


class _Protocol(asyncio.Protocol):
    """Buffers what the connection receives and notes its end, for :class:`_Stream`."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.ended = False
        self.error: Exception | None = None
        self.paused = False
        self._reader: asyncio.Future[None] | None = None
        self.writable = True
        self._drained: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _READ_BUFFER_LIMIT and not self.paused and self.transport:
            self.transport.pause_reading()
            self.paused = True
        self._wake_reader()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake_reader()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.error = exc
        self._wake_reader()
        self._wake_writer()

    def pause_writing(self) -> None:
        self.writable = False

    def resume_writing(self) -> None:
        self.writable = True
        self._wake_writer()

    def _wake_reader(self) -> None:
        if self._reader is not None and not self._reader.done():
            self._reader.set_result(None)

    def _wake_writer(self) -> None:
        if self._drained is not None and not self._drained.done():
            self._drained.set_result(None)

    async def wait_readable(self) -> None:
        """Return once data or the connection's end is here."""
        self._reader = asyncio.get_running_loop().create_future()
        try:
            await self._reader
        finally:
            self._reader = None

    async def wait_writable(self) -> None:
        """Return once the transport's write buffer has drained (or the connection ended)."""
        if self.writable or self.ended:
            return
        self._drained = asyncio.get_running_loop().create_future()
        try:
            await self._drained
        finally:
            self._drained = None


class _Stream(httpcore.AsyncNetworkStream):
    """One connection for httpcore, on :class:`_Protocol`."""

    def __init__(self, transport: asyncio.Transport, protocol: _Protocol) -> None:
        self._transport = transport
        self._protocol = protocol
        self._held: list[bytes] = []
        self._held_size = 0
        self._write_timeout: float | None = None

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._held:
            # As httpcore does with a failed write: read the answer all the same, since a
            # receiver may answer (and close) before it has read the whole request.
            with contextlib.suppress(httpcore.WriteError):
                await self._send_held()
        protocol = self._protocol
        if not protocol.buffer and not protocol.ended:
            try:
                async with asyncio.timeout(timeout):
                    await protocol.wait_readable()
            except TimeoutError:
                raise httpcore.ReadTimeout(f"no data within {timeout} s") from None
        if protocol.buffer:
            data = bytes(protocol.buffer[:max_bytes])
            del protocol.buffer[:max_bytes]
            if protocol.paused and len(protocol.buffer) < _READ_BUFFER_LIMIT // 4:
                protocol.paused = False
                self._transport.resume_reading()
            return data
        if protocol.error is not None:
            raise httpcore.ReadError(str(protocol.error)) from protocol.error
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._held.append(buffer)
        self._held_size += len(buffer)
        self._write_timeout = timeout
        if self._held_size >= _MAX_HELD_BYTES:
            await self._send_held()

    async def _send_held(self) -> None:
        data = b"".join(self._held)
        self._held.clear()
        self._held_size = 0
        protocol = self._protocol
        if protocol.ended or self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(data)
        # A write the kernel took at once leaves nothing to wait for, and no timer to set.
        if not (protocol.writable or protocol.ended):
            try:
                async with asyncio.timeout(self._write_timeout):
                    await protocol.wait_writable()
            except TimeoutError:
                raise httpcore.WriteTimeout(
                    f"could not send within {self._write_timeout} s"
                ) from None
        if protocol.ended and protocol.error is not None:
            raise httpcore.WriteError(str(protocol.error)) from protocol.error

    async def aclose(self) -> None:
        self._held.clear()
        self._held_size = 0
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if self._held:
            await self._send_held()
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.abort()
            raise httpcore.ConnectTimeout(f"no TLS handshake within {timeout} s") from None
        except (OSError, ssl.SSLError) as error:
            self._transport.abort()
            raise httpcore.ConnectError(str(error)) from error
        if transport is None:
            raise httpcore.ConnectError("the connection closed during the TLS handshake")
        self._protocol.transport = transport
        return _Stream(transport, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":
            # The protocol reads all the time, so a receiver's close (or stray data) is here
            # already; a connection in either state must not carry another request.
            return bool(self._protocol.buffer) or self._protocol.ended
        name = {
            "ssl_object": "ssl_object",
            "client_addr": "sockname",
            "server_addr": "peername",
            "socket": "socket",
        }.get(info)
        return None if name is None else self._transport.get_extra_info(name)


class NetworkBackend(httpcore.AsyncNetworkBackend):
    """Opens :class:`_Stream` connections with the event loop's own ``create_connection``."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_connection(
                    _Protocol,
                    host,
                    port,
                    local_addr=None if local_address is None else (local_address, 0),
                    happy_eyeballs_delay=_HAPPY_EYEBALLS_DELAY_SECONDS,
                )
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"no connection within {timeout} s") from None
        except OSError as error:
            raise httpcore.ConnectError(str(error)) from error
        return _connected(transport, protocol, socket_options)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_unix_connection(_Protocol, path)
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"no connection within {timeout} s") from None
        except OSError as error:
            raise httpcore.ConnectError(str(error)) from error
        return _connected(transport, protocol, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def _connected(
    transport: asyncio.BaseTransport,
    protocol: _Protocol,
    socket_options: Iterable[httpcore.SOCKET_OPTION] | None,
) -> _Stream:
    assert isinstance(transport, asyncio.Transport)
    sock = transport.get_extra_info("socket")
    for option in socket_options or ():
        sock.setsockopt(*option)
    return _Stream(transport, protocol)
