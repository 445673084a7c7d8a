"""A scripted HTTP/1.1 receiver on loopback, for the tests of HTTP clients: the delivery
transport's (server/delivery/transport.py) and the SDK's.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import Awaitable, Callable

__all__ = ["OK", "LoopbackReceiver", "ReceiverFactory"]

OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


class LoopbackReceiver:
    """Answers the n-th request it reads with ``answers[n]`` (the last one repeats) and keeps the
    connection, unless ``n`` is in ``closing`` or the connection has answered ``close_after``
    requests; counts connections accepted and closed, and keeps each request's head and body.
    """

    def __init__(
        self,
        answers: list[bytes] | None = None,
        *,
        closing: frozenset[int] = frozenset(),
        close_after: int | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.answers = answers or [OK]
        self.closing = closing
        self.close_after = close_after
        self.ssl_context = ssl_context
        self.heads: list[bytes] = []
        self.bodies: list[bytes] = []
        self.connections = 0
        self.closed = 0
        self.url = ""
        self._server: asyncio.Server | None = None

    @property
    def requests(self) -> int:
        """How many requests were answered."""
        return len(self.heads)

    async def start(self) -> None:
        """Listen on a free loopback port (``https://localhost`` with an SSL context)."""
        self._server = await asyncio.start_server(
            self._handle, "127.0.0.1", 0, ssl=self.ssl_context
        )
        port = self._server.sockets[0].getsockname()[1]
        origin = "http://127.0.0.1" if self.ssl_context is None else "https://localhost"
        self.url = f"{origin}:{port}/hook"

    async def close(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        answered = 0
        try:
            while self.close_after is None or answered < self.close_after:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.lower().split(b"\r\n"):
                    if line.startswith(b"content-length:"):
                        length = int(line.partition(b":")[2])
                self.bodies.append(await reader.readexactly(length))
                index = len(self.heads)
                self.heads.append(head)
                writer.write(self.answers[min(index, len(self.answers) - 1)])
                await writer.drain()
                answered += 1
                if index in self.closing:
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ssl.SSLError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, ssl.SSLError):
                await writer.wait_closed()
            self.closed += 1


ReceiverFactory = Callable[..., Awaitable[LoopbackReceiver]]
