"""A fast HTTP receiver in a process of its own, for measuring how many deliveries a server sends.

It is a bare asyncio protocol speaking just enough HTTP/1.1 (keep-alive, ``Content-Length`` bodies)
to answer every request ``200 ok`` at a rate far above what a delivery engine sends, so that the
engine, not the receiver, is what a deliveries-per-second figure measures. The benchmark shows the
receiver's own capacity beside that figure (:func:`receiver_capacity`), measured in the same run.

Requests that carry ``Spool-Message-Id`` are counted as deliveries, with the times of the first and
the last; ``GET /stats`` answers them as JSON (``count``, ``first``, ``last``, epoch seconds) and
``POST /reset`` starts the count again. Everything else (the load generator's requests) is answered
and not counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

__all__ = ["ROOT", "FastReceiver", "client_rate", "fast_receiver", "receiver_capacity"]

ROOT = Path(__file__).resolve().parent.parent
_START_TIMEOUT_SECONDS = 30.0
_OK = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"
_MESSAGE_ID = b"spool-message-id:"


class _Deliveries:
    def __init__(self) -> None:
        self.count = 0
        self.first = 0.0
        self.last = 0.0

    def note(self) -> None:
        now = time.time()
        if not self.count:
            self.first = now
        self.count += 1
        self.last = now

    def reset(self) -> None:
        self.count, self.first, self.last = 0, 0.0, 0.0

    def as_json(self) -> bytes:
        body = json.dumps({"count": self.count, "first": self.first, "last": self.last}).encode()
        head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n"
        return head.encode() + b"Content-Type: application/json\r\n\r\n" + body


class _Protocol(asyncio.Protocol):
    def __init__(self, deliveries: _Deliveries) -> None:
        self._deliveries = deliveries
        self._buffer = bytearray()
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        replies: list[bytes] = []
        while True:
            end = self._buffer.find(b"\r\n\r\n")
            if end < 0:
                break
            head = bytes(self._buffer[:end]).lower()
            length = 0
            for line in head.split(b"\r\n")[1:]:
                if line.startswith(b"content-length:"):
                    length = int(line[15:])
            if len(self._buffer) < end + 4 + length:
                break
            del self._buffer[: end + 4 + length]
            if head.startswith(b"get /stats"):
                replies.append(self._deliveries.as_json())
                continue
            if head.startswith(b"post /reset"):
                self._deliveries.reset()
            elif _MESSAGE_ID in head:
                self._deliveries.note()
            replies.append(_OK)
        if replies and self._transport is not None:
            self._transport.write(b"".join(replies))


async def _serve() -> None:
    deliveries = _Deliveries()
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Protocol(deliveries), "127.0.0.1", 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    # The parent holds our stdin open for as long as it wants us; end of file means stop.
    await loop.run_in_executor(None, sys.stdin.buffer.read)
    server.close()


class FastReceiver:
    """Where the receiver listens, and its delivery counts."""

    def __init__(self, port: int, client: httpx.Client) -> None:
        self.port = port
        self.base_url = f"http://127.0.0.1:{port}"
        # One client for every look at the counts: a fresh one per look loads the system's
        # certificates each time, which costs more than the look.
        self._client = client

    def url(self, path: str = "/hook") -> str:
        """A delivery URL on the receiver."""
        return f"{self.base_url}{path}"

    def reset(self) -> None:
        """Start counting deliveries again."""
        self._client.post(f"{self.base_url}/reset").raise_for_status()

    def stats(self) -> tuple[int, float, float]:
        """Deliveries since the last reset, and when the first and the last arrived."""
        answer = self._client.get(f"{self.base_url}/stats")
        answer.raise_for_status()
        document = answer.json()
        return int(document["count"]), float(document["first"]), float(document["last"])


@contextlib.contextmanager
def fast_receiver() -> Iterator[FastReceiver]:
    """Run the receiver in a child process (``python -m bench._receiver``) for the block."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench._receiver"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        ready, _, _ = select.select([process.stdout], [], [], _START_TIMEOUT_SECONDS)
        line = process.stdout.readline().decode().strip() if ready else ""
        if not line.isdigit():
            raise RuntimeError(f"the fast receiver did not start (got {line!r})")
        with httpx.Client(timeout=10) as client:
            yield FastReceiver(int(line), client)
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


async def _client(host: str, port: int, request: bytes, count: list[int], stop: float) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < stop:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.lower().split(b"\r\n"):
                if line.startswith(b"content-length:"):
                    length = int(line[15:])
            await reader.readexactly(length)
            count[0] += 1
    finally:
        writer.close()


async def _load(receiver: FastReceiver, *, seconds: float, connections: int) -> float:
    request = (
        f"POST /load HTTP/1.1\r\nHost: 127.0.0.1:{receiver.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 10\r\n\r\n"
        '{"load":1}'
    ).encode()
    count = [0]
    started = time.perf_counter()
    await asyncio.gather(
        *(
            _client("127.0.0.1", receiver.port, request, count, started + seconds)
            for _ in range(connections)
        )
    )
    return count[0] / (time.perf_counter() - started)


def receiver_capacity(receiver: FastReceiver, *, seconds: float, connections: int = 32) -> float:
    """Requests per second the receiver answers to a bare asyncio load generator in this process
    (``connections`` kept-alive connections, one request in flight on each, for ``seconds``): the
    ceiling a delivery figure is measured under. The generator is as lean as the receiver, so the
    figure is a lower bound of the receiver's capacity.
    """
    return asyncio.run(_load(receiver, seconds=seconds, connections=connections))


async def _posting(receiver: FastReceiver, *, seconds: float, concurrency: int) -> float:
    import aiohttp

    url = f"http://127.0.0.1:{receiver.port}/load"
    count = 0
    deadline = time.perf_counter() + seconds
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def post() -> None:
            nonlocal count
            while time.perf_counter() < deadline:
                async with session.post(url, json={"load": 1}) as response:
                    await response.read()
                count += 1

        started = time.perf_counter()
        await asyncio.gather(*(post() for _ in range(concurrency)))
        return count / (time.perf_counter() - started)


def client_rate(receiver: FastReceiver, *, seconds: float, concurrency: int) -> float:
    """Requests per second a plain aiohttp client (the HTTP client the delivery engine uses), in
    this process, posts to the receiver with `concurrency` requests in flight: what the engine's
    deliveries are measured against.
    """
    return asyncio.run(_posting(receiver, seconds=seconds, concurrency=concurrency))


if __name__ == "__main__":
    asyncio.run(_serve())
