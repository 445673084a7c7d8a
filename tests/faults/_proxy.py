"""A fault-injecting TCP proxy on loopback, in a thread of its own, for the fault suite.

Each accepted connection is relayed to the target, with a fault chosen by a callable from the
connection's number:

- ``"pass"``: relayed both ways, untouched;
- ``"reset_after_request"``: the client's bytes reach the service, which answers, but the answer
  never reaches the client: its connection is reset as soon as the first byte of the answer
  arrives, so the client cannot tell whether the request was applied;
- ``"delay"``: every chunk is relayed after ``delay`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from typing import Literal

__all__ = ["Fault", "FaultProxy", "fault_proxy"]

Fault = Literal["pass", "reset_after_request", "delay"]


class FaultProxy:
    """Relays loopback connections to ``target`` with the faults ``choose`` picks for each."""

    def __init__(
        self, target: tuple[str, int], choose: Callable[[int], Fault], *, delay: float = 0.05
    ) -> None:
        self.target = target
        self.choose = choose
        self.delay = delay
        self.connections = 0
        self.resets = 0
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fault-proxy", daemon=True)
        self._stopping: asyncio.Event | None = None
        self._relays: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

    def start(self) -> None:
        """Listen on a free loopback port (``self.port``)."""
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the fault proxy did not start")

    def stop(self) -> None:
        """Stop listening, drop every relayed connection and end the proxy's thread."""
        stopping = self._stopping
        if stopping is not None:
            self._loop.call_soon_threadsafe(stopping.set)
        self._thread.join(10)

    def _run(self) -> None:
        self._loop.run_until_complete(self._serve())
        self._loop.close()

    async def _serve(self) -> None:
        self._stopping = asyncio.Event()
        server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self._ready.set()
        async with server:
            await self._stopping.wait()
        # A connection the listener accepted just before it closed still gets its relay, from a
        # task of asyncio's own: wait for every task the loop has, stopping relays as they come,
        # so that none is left pending when the loop closes.
        this = asyncio.current_task()
        while others := asyncio.all_tasks() - {this}:
            for relay in others & self._relays:
                relay.cancel()
            await asyncio.gather(*others, return_exceptions=True)
        # A relay cancelled before its first step never ran its cleanup: close what it held.
        writers = list(self._writers)
        for writer in writers:
            writer.close()
        await asyncio.gather(*(writer.wait_closed() for writer in writers), return_exceptions=True)

    def _accept(self, client_reader: asyncio.StreamReader, client: asyncio.StreamWriter) -> None:
        # The relay is known from the moment its connection is, not from its first step, so that
        # stopping finds it either way.
        self._writers.add(client)
        relay = asyncio.ensure_future(self._relay(client_reader, client))
        self._relays.add(relay)
        relay.add_done_callback(self._relays.discard)

    async def _relay(
        self, client_reader: asyncio.StreamReader, client: asyncio.StreamWriter
    ) -> None:
        number = self.connections
        self.connections += 1
        fault = self.choose(number)
        writers = [client]
        pipes: list[asyncio.Task[None]] = []
        try:
            service_reader, service = await asyncio.open_connection(*self.target)
            writers.append(service)
            self._writers.add(service)
            pipes = [
                asyncio.ensure_future(self._pipe(client_reader, service, fault, "up")),
                asyncio.ensure_future(
                    self._pipe(service_reader, client, fault, "down", reset=client)
                ),
            ]
            await asyncio.wait(pipes, return_when=asyncio.FIRST_COMPLETED)
        except OSError:
            pass
        finally:
            for pipe in pipes:
                pipe.cancel()
            await asyncio.gather(*pipes, return_exceptions=True)
            for writer in writers:
                writer.close()
                with contextlib.suppress(Exception):
                    await writer.wait_closed()
                self._writers.discard(writer)

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        fault: Fault,
        direction: str,
        *,
        reset: asyncio.StreamWriter | None = None,
    ) -> None:
        while chunk := await reader.read(65536):
            if fault == "reset_after_request" and direction == "down" and reset is not None:
                self.resets += 1
                _reset(reset)
                return
            if fault == "delay":
                await asyncio.sleep(self.delay)
            writer.write(chunk)
            await writer.drain()


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with an RST instead of a FIN, as a crashed peer or a middlebox would."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


@contextlib.contextmanager
def fault_proxy(
    target: tuple[str, int], choose: Callable[[int], Fault], *, delay: float = 0.05
) -> Iterator[FaultProxy]:
    """A running :class:`FaultProxy`, stopped on exit."""
    proxy = FaultProxy(target, choose, delay=delay)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()
