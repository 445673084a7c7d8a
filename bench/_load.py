"""A raw HTTP/1.1 load generator: keep-alive connections, each sending prepared requests back to
back, on asyncio streams (no HTTP client library, so what is measured is the server).

Each of ``connections`` connections sends a request, reads the whole response (status line,
headers, a ``Content-Length`` body) and sends the next, until the duration is over or the shared
count of requests is used up. A response that is not 2xx counts as an error.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import socket
import time
from collections.abc import Callable, Iterator

__all__ = ["LoadResult", "post_request", "run_load"]

RequestFactory = Callable[[], bytes]


@dataclasses.dataclass(slots=True)
class LoadResult:
    """What a run did: completed requests, the non-2xx among them, and how long it took."""

    requests: int = 0
    errors: int = 0
    seconds: float = 0.0
    first_error: bytes | None = None

    @property
    def per_second(self) -> float:
        """Completed requests per second (errors included)."""
        return self.requests / self.seconds if self.seconds else 0.0


def post_request(
    host: str, port: int, path: str, body: bytes, headers: dict[str, str] | None = None
) -> bytes:
    """The bytes of one keep-alive ``POST`` of a JSON ``body``."""
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        *(f"{name}: {value}" for name, value in (headers or {}).items()),
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


async def run_load(
    host: str,
    port: int,
    request: bytes | RequestFactory,
    *,
    connections: int,
    duration: float | None = None,
    count: int | None = None,
) -> LoadResult:
    """Send ``request`` (the same bytes, or a fresh one from a factory each time) over
    ``connections`` connections for ``duration`` seconds or ``count`` requests in all, whichever
    ends first (at least one must be given).
    """
    if duration is None and count is None:
        raise ValueError("give a duration, a count or both")
    make = request if callable(request) else (lambda: request)
    result = LoadResult()
    tickets: Iterator[int] = itertools.count() if count is None else iter(range(count))
    opened = [await _connect(host, port) for _ in range(connections)]
    started = time.perf_counter()
    deadline = None if duration is None else started + duration
    try:
        await asyncio.gather(
            *(_drive(reader, writer, make, tickets, deadline, result) for reader, writer in opened)
        )
    finally:
        result.seconds = time.perf_counter() - started
        for _, writer in opened:
            writer.close()
        for _, writer in opened:
            try:
                await writer.wait_closed()
            except OSError:
                pass
    return result


async def _connect(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection(host, port)
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return reader, writer


async def _drive(
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    make: RequestFactory,
    tickets: Iterator[int],
    deadline: float | None,
    result: LoadResult,
) -> None:
    # The connections share one iterator of tickets, so a count is spread over all of them.
    for _ in tickets:
        if deadline is not None and time.perf_counter() >= deadline:
            return
        writer.write(make())
        status, body = await _response(reader)
        result.requests += 1
        if not 200 <= status < 300:
            result.errors += 1
            if result.first_error is None:
                result.first_error = body


async def _response(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = None
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
            break
    if length is None:
        raise RuntimeError(f"a response without Content-Length: {head!r}")
    return status, await reader.readexactly(length)
