"""HTTP/1.1 for the async client and the delivery engine: one request and its answer over a
kept-alive connection.

httpcore and h11 are general: a request passes through a pool that, each time a request starts or
ends, checks every connection (and, for each idle one, counts the idle connections again: work
that grows with the square of the pool's size), a state machine that validates every event, and
layers of wrappers. On a fast peer that cost about half of a server's CPU per delivery, roughly
ten times what the exchange itself needs (``tests/sdk/test_http11.py`` shows what is supported),
and more than half of the async client's CPU per publish. Both need one narrow thing: send a
request whose head and body are already known, read the status, headers and body of the answer,
and keep the connection for the next request to the same origin when the answer allows it.
:class:`Http11Transport` is that, as an httpx transport.

What is sent: the request line, the request's headers as given (``httpx.Request`` supplies ``Host``
and ``Content-Length``), and its body. A header name that is not a token, or a name or value with
CR, LF or NUL in it, is refused before anything is sent (``httpx.LocalProtocolError``).

How an answer is read (RFC 9112): interim 1xx answers are skipped; ``HEAD`` and the statuses 204
and 304 have no body; ``Transfer-Encoding: chunked`` is decoded; otherwise ``Content-Length``
frames the body, and without either the body runs until the peer closes. A connection goes
back to its pool only when the answer was HTTP/1.1, did not say ``Connection: close``, was framed,
and was read to its end with nothing after it; any other connection is closed.

A peer may close an idle kept-alive connection just as a request goes out on it. A request sent on
a reused connection that the peer closed before a byte of its answer came back is sent once more on
a new connection, as browsers and Go's net/http do: that peer closed without answering. (A
delivery is at least once anyway, and receivers treat ``Spool-Message-Id`` as an idempotency key;
the SDK sends every publish with an ``Idempotency-Key``.) On a new connection the same failure is
an error.

Connections come from a ``httpcore.AsyncNetworkBackend`` (sdk/_network.py's by default; the
delivery engine's vets every address it connects to, see server/delivery/transport.py). Failures
raise httpx's own exceptions.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import re
import ssl
import time
from collections.abc import AsyncIterator, Iterator

import httpcore
import httpx

from ._network import NetworkBackend

__all__ = ["MAX_HEAD_BYTES", "ConnectionPool", "Http11Transport"]

# The most bytes an answer's status line and headers may take; beyond, it is a protocol error.
MAX_HEAD_BYTES = 64 * 1024
_READ_SIZE = 64 * 1024
# How often, at most, idle connections of every origin are looked at for their expiry.
_SWEEP_INTERVAL_SECONDS = 1.0

_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_NOT_IN_A_FIELD = re.compile(rb"[\r\n\x00]")
_END_OF_HEAD = re.compile(rb"\r?\n\r?\n")
_LINE_BREAK = re.compile(rb"\r?\n")
_STATUS_LINE = re.compile(rb"HTTP/(\d)\.(\d) (\d{3})(?: (.*))?")
_CHUNK_SIZE = re.compile(rb"([0-9A-Fa-f]+)[ \t]*(?:;.*)?")
_NO_BODY_STATUSES = frozenset({204, 304})

_ERRORS: dict[type[Exception], type[httpx.TransportError]] = {
    httpcore.ConnectTimeout: httpx.ConnectTimeout,
    httpcore.ReadTimeout: httpx.ReadTimeout,
    httpcore.WriteTimeout: httpx.WriteTimeout,
    httpcore.PoolTimeout: httpx.PoolTimeout,
    httpcore.ConnectError: httpx.ConnectError,
    httpcore.ReadError: httpx.ReadError,
    httpcore.WriteError: httpx.WriteError,
}

_Origin = tuple[str, str, int]


class _ClosedUnanswered(Exception):
    """The receiver closed the connection before a byte of its answer arrived."""


def _origin(url: httpx.URL) -> _Origin:
    return (url.scheme, url.host, url.port or (443 if url.scheme == "https" else 80))


@contextlib.contextmanager
def _as_httpx_errors(request: httpx.Request) -> Iterator[None]:
    try:
        yield
    except tuple(_ERRORS) as error:
        mapped = next(_ERRORS[cls] for cls in type(error).__mro__ if cls in _ERRORS)
        raise mapped(str(error), request=request) from error


class _Connection:
    """A connection to one origin, with what was read from it and not yet used."""

    def __init__(self, origin: _Origin, stream: httpcore.AsyncNetworkStream) -> None:
        self.origin = origin
        self.stream = stream
        self.buffer = bytearray()
        self.idle_since = 0.0

    def unusable(self) -> bool:
        # A receiver's close, or bytes nobody asked for, are already here: the connection's
        # protocol keeps reading while it is idle.
        return bool(self.buffer) or bool(self.stream.get_extra_info("is_readable"))

    async def fill(self, timeout: float | None) -> bool:
        """Read more into ``buffer``; False at the end of the stream."""
        data = await self.stream.read(_READ_SIZE, timeout)
        self.buffer += data
        return bool(data)


@functools.cache
def _default_tls() -> ssl.SSLContext:
    # Loading the CA bundle is 15 ms of CPU and 800 KiB: made once per process, when its first
    # https connection opens, not whenever a transport is made (each app lifespan makes its
    # delivery engine's). A context is safe to share, as nothing changes it once made.
    return httpx.create_ssl_context(trust_env=False)


class ConnectionPool:
    """Kept-alive connections by origin, at most ``limits.max_connections`` requests in flight
    and ``limits.max_keepalive_connections`` connections idle, each for
    ``limits.keepalive_expiry`` seconds at most; https connections speak TLS with
    ``ssl_context``, or with httpx's default context when it is None.
    """

    def __init__(
        self,
        limits: httpx.Limits,
        *,
        ssl_context: ssl.SSLContext | None,
        network_backend: httpcore.AsyncNetworkBackend,
    ) -> None:
        self._ssl_context = ssl_context
        self._backend = network_backend
        self._max_idle = limits.max_keepalive_connections
        self._keepalive = math.inf if limits.keepalive_expiry is None else limits.keepalive_expiry
        self._slots = (
            None if limits.max_connections is None else asyncio.Semaphore(limits.max_connections)
        )
        self._idle: dict[_Origin, list[_Connection]] = {}
        self._idle_count = 0
        self._swept_at = time.monotonic()

    async def send(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` and return its answer, whose body streams from the connection."""
        timeouts = request.extensions.get("timeout", {})
        message = _request_head(request) + await request.aread()
        with _as_httpx_errors(request):
            await self._take_slot(timeouts.get("pool"))
            try:
                connection = await self._idle_connection(request.url)
                if connection is not None:
                    try:
                        return await self._exchange(connection, message, request, timeouts)
                    except _ClosedUnanswered:
                        pass
                connection = await self._new_connection(request.url, timeouts.get("connect"))
                try:
                    return await self._exchange(connection, message, request, timeouts)
                except _ClosedUnanswered:
                    raise httpx.RemoteProtocolError(
                        "Server disconnected without sending a response.", request=request
                    ) from None
            except BaseException:
                self._give_slot()
                raise

    async def _exchange(
        self,
        connection: _Connection,
        message: bytes,
        request: httpx.Request,
        timeouts: dict[str, float | None],
    ) -> httpx.Response:
        try:
            await connection.stream.write(message, timeouts.get("write"))
            status, reason, headers, version = await _read_head(
                connection, timeouts.get("read"), request
            )
            framing = _framing(request, status, headers)
        except BaseException:
            await connection.stream.aclose()
            raise
        reusable = version == (1, 1) and framing[0] != "close" and not _says_close(headers)
        stream = _Body(self, connection, request, framing, reusable, timeouts.get("read"))
        return httpx.Response(
            status,
            headers=headers,
            stream=stream,
            extensions={"http_version": b"HTTP/%d.%d" % version, "reason_phrase": reason},
        )

    async def aclose(self) -> None:
        """Close every idle connection (those in use close when their answers do)."""
        idle, self._idle, self._idle_count = self._idle, {}, 0
        for connections in idle.values():
            for connection in connections:
                await connection.stream.aclose()

    async def _take_slot(self, timeout: float | None) -> None:
        if self._slots is None:
            return
        try:
            async with asyncio.timeout(timeout):
                await self._slots.acquire()
        except TimeoutError:
            raise httpcore.PoolTimeout(f"no connection was free within {timeout} s") from None

    def _give_slot(self) -> None:
        if self._slots is not None:
            self._slots.release()

    async def _idle_connection(self, url: httpx.URL) -> _Connection | None:
        """A kept-alive connection to the URL's origin, if one is idle and still usable."""
        idle = self._idle.get(_origin(url))
        now = time.monotonic()
        while idle:
            connection = idle.pop()
            self._idle_count -= 1
            if now - connection.idle_since <= self._keepalive and not connection.unusable():
                return connection
            await connection.stream.aclose()
        return None

    async def _new_connection(self, url: httpx.URL, timeout: float | None) -> _Connection:
        origin = _origin(url)
        scheme, host, port = origin
        if scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(f"{scheme!r} URLs cannot be delivered to")
        stream = await self._backend.connect_tcp(host, port, timeout=timeout)
        if scheme == "https":
            try:
                context = self._ssl_context or _default_tls()
                stream = await stream.start_tls(context, host, timeout)
            except BaseException:
                await stream.aclose()
                raise
        return _Connection(origin, stream)

    async def release(self, connection: _Connection, *, reusable: bool) -> None:
        """End a request's use of ``connection``: keep it for its origin or close it."""
        self._give_slot()
        now = time.monotonic()
        if reusable and not connection.unusable() and self._max_idle != 0:
            connection.idle_since = now
            self._idle.setdefault(connection.origin, []).append(connection)
            self._idle_count += 1
        else:
            await connection.stream.aclose()
        if now - self._swept_at >= _SWEEP_INTERVAL_SECONDS or (
            self._max_idle is not None and self._idle_count > self._max_idle
        ):
            await self._sweep(now)

    async def _sweep(self, now: float) -> None:
        # Oldest first: the expired connections are a prefix, and past the cap on idle ones the
        # longest idle go next.
        self._swept_at = now
        idle = sorted(
            (connection for connections in self._idle.values() for connection in connections),
            key=lambda connection: connection.idle_since,
        )
        first_kept = next(
            (
                index
                for index, connection in enumerate(idle)
                if now - connection.idle_since <= self._keepalive
            ),
            len(idle),
        )
        if self._max_idle is not None:
            first_kept = max(first_kept, len(idle) - self._max_idle)
        self._idle = {}
        for connection in idle[first_kept:]:
            self._idle.setdefault(connection.origin, []).append(connection)
        self._idle_count = len(idle) - first_kept
        for connection in idle[:first_kept]:
            await connection.stream.aclose()


class _Body(httpx.AsyncByteStream):
    """An answer's body, read from its connection as it is iterated; closing it hands the
    connection back to the pool (when the body was read whole and the answer allows reuse).
    """

    def __init__(
        self,
        pool: ConnectionPool,
        connection: _Connection,
        request: httpx.Request,
        framing: tuple[str, int],
        reusable: bool,
        timeout: float | None,
    ) -> None:
        self._pool = pool
        self._connection: _Connection | None = connection
        self._request = request
        self._framing = framing
        self._reusable = reusable
        self._timeout = timeout
        self._complete = framing == ("length", 0)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        connection = self._connection
        if connection is None or self._complete:
            return
        kind, length = self._framing
        with _as_httpx_errors(self._request):
            if kind == "length":
                chunks = _fixed_length(connection, length, self._timeout, self._request)
            elif kind == "chunked":
                chunks = _chunked(connection, self._timeout, self._request)
            else:
                chunks = _until_close(connection, self._timeout)
            async for chunk in chunks:
                yield chunk
        self._complete = True

    async def aclose(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            await self._pool.release(connection, reusable=self._reusable and self._complete)


def _request_head(request: httpx.Request) -> bytes:
    method = request.method.encode("ascii")
    if not _TOKEN.fullmatch(method):
        raise httpx.LocalProtocolError(f"invalid method {request.method!r}", request=request)
    lines = [method + b" " + request.url.raw_path + b" HTTP/1.1"]
    for name, value in request.headers.raw:
        if not _TOKEN.fullmatch(name) or _NOT_IN_A_FIELD.search(value):
            raise httpx.LocalProtocolError(
                f"invalid header {name.decode('latin-1')!r}", request=request
            )
        lines.append(name + b": " + value)
    lines.append(b"\r\n")
    return b"\r\n".join(lines)


async def _read_head(
    connection: _Connection, timeout: float | None, request: httpx.Request
) -> tuple[int, bytes, list[tuple[bytes, bytes]], tuple[int, int]]:
    """The status, reason, headers and version of the answer, skipping interim (1xx) ones.

    Raises ``_ClosedUnanswered`` when the receiver closed the connection before any of it.
    """
    interim_seen = False
    while True:
        searched = 0
        while (end := _END_OF_HEAD.search(connection.buffer, searched)) is None:
            if len(connection.buffer) > MAX_HEAD_BYTES:
                raise httpx.RemoteProtocolError(
                    f"the answer's head is over {MAX_HEAD_BYTES} bytes", request=request
                )
            searched = max(0, len(connection.buffer) - 3)
            answered = bool(connection.buffer) or interim_seen
            try:
                filled = await connection.fill(timeout)
            except httpcore.ReadError:
                if answered:
                    raise
                raise _ClosedUnanswered from None
            if not filled:
                if answered:
                    raise httpx.RemoteProtocolError(
                        "Server disconnected in the middle of its answer's head.", request=request
                    )
                raise _ClosedUnanswered
        head = bytes(connection.buffer[: end.start()])
        del connection.buffer[: end.end()]
        lines = _LINE_BREAK.split(head)
        status_line = _STATUS_LINE.fullmatch(lines[0])
        if status_line is None:
            raise httpx.RemoteProtocolError(
                f"malformed status line {lines[0][:100]!r}", request=request
            )
        status = int(status_line[3])
        version = (int(status_line[1]), int(status_line[2]))
        if status == 101 or status < 100:
            raise httpx.RemoteProtocolError(f"unexpected status {status}", request=request)
        if status >= 200:
            return status, status_line[4] or b"", _headers(lines[1:], request), version
        interim_seen = True


def _headers(lines: list[bytes], request: httpx.Request) -> list[tuple[bytes, bytes]]:
    headers: list[tuple[bytes, bytes]] = []
    for line in lines:
        if line[:1] in (b" ", b"\t") and headers:
            # An obsolete line folding continues the previous value.
            name, value = headers[-1]
            headers[-1] = (name, value + b" " + line.strip())
            continue
        name, colon, value = line.partition(b":")
        if not colon or not _TOKEN.fullmatch(name):
            raise httpx.RemoteProtocolError(f"malformed header {line[:100]!r}", request=request)
        headers.append((name, value.strip(b" \t")))
    return headers


def _framing(
    request: httpx.Request, status: int, headers: list[tuple[bytes, bytes]]
) -> tuple[str, int]:
    """How the body ends: ``("length", n)``, ``("chunked", 0)`` or ``("close", 0)``."""
    if request.method == "HEAD" or status in _NO_BODY_STATUSES:
        return ("length", 0)
    codings = [
        coding.strip().lower()
        for name, value in headers
        if name.lower() == b"transfer-encoding"
        for coding in value.split(b",")
    ]
    if codings:
        return ("chunked", 0) if codings[-1] == b"chunked" else ("close", 0)
    lengths = {
        part.strip()
        for name, value in headers
        if name.lower() == b"content-length"
        for part in value.split(b",")
    }
    if not lengths:
        return ("close", 0)
    if len(lengths) > 1 or not all(length.isdigit() for length in lengths):
        raise httpx.RemoteProtocolError(
            f"invalid Content-Length {sorted(lengths)!r}", request=request
        )
    return ("length", int(lengths.pop()))


def _says_close(headers: list[tuple[bytes, bytes]]) -> bool:
    return any(
        token.strip().lower() == b"close"
        for name, value in headers
        if name.lower() == b"connection"
        for token in value.split(b",")
    )


async def _fixed_length(
    connection: _Connection, length: int, timeout: float | None, request: httpx.Request
) -> AsyncIterator[bytes]:
    remaining = length
    while remaining:
        if not connection.buffer and not await connection.fill(timeout):
            raise httpx.RemoteProtocolError(
                f"peer closed connection without sending complete message body: received "
                f"{length - remaining} bytes, expected {length}",
                request=request,
            )
        chunk = bytes(connection.buffer[:remaining])
        del connection.buffer[: len(chunk)]
        remaining -= len(chunk)
        yield chunk


async def _chunked(
    connection: _Connection, timeout: float | None, request: httpx.Request
) -> AsyncIterator[bytes]:
    while True:
        size_line = await _line(connection, timeout, request)
        size = _CHUNK_SIZE.fullmatch(size_line)
        if size is None:
            raise httpx.RemoteProtocolError(
                f"malformed chunk size {size_line[:100]!r}", request=request
            )
        length = int(size[1], 16)
        if length == 0:
            # Trailer fields, if any, end with an empty line; they are not kept.
            while await _line(connection, timeout, request):
                pass
            return
        async for chunk in _fixed_length(connection, length, timeout, request):
            yield chunk
        if await _line(connection, timeout, request):
            raise httpx.RemoteProtocolError("a chunk is longer than its size", request=request)


async def _line(connection: _Connection, timeout: float | None, request: httpx.Request) -> bytes:
    searched = 0
    while (end := connection.buffer.find(b"\n", searched)) < 0:
        if len(connection.buffer) > MAX_HEAD_BYTES:
            raise httpx.RemoteProtocolError("a chunked body's line is too long", request=request)
        searched = len(connection.buffer)
        if not await connection.fill(timeout):
            raise httpx.RemoteProtocolError(
                "peer closed connection without sending complete message body", request=request
            )
    line = bytes(connection.buffer[:end]).rstrip(b"\r")
    del connection.buffer[: end + 1]
    return line


async def _until_close(connection: _Connection, timeout: float | None) -> AsyncIterator[bytes]:
    while True:
        if connection.buffer:
            chunk = bytes(connection.buffer)
            connection.buffer.clear()
            yield chunk
        if not await connection.fill(timeout):
            return


class Http11Transport(httpx.AsyncBaseTransport):
    """An httpx transport that sends each request over a kept-alive HTTP/1.1 connection of its own
    :class:`ConnectionPool` within ``limits``. ``ssl_context`` defaults to httpx's (the system's
    certificate authorities, environment ignored), one per process made at its first https
    connection; ``network_backend`` to sdk/_network.py's (what server/delivery/transport.py wraps
    to connect only to vetted addresses).
    """

    def __init__(
        self,
        limits: httpx.Limits,
        *,
        ssl_context: ssl.SSLContext | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self._pool = ConnectionPool(
            limits,
            ssl_context=ssl_context,
            network_backend=network_backend or NetworkBackend(),
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._pool.send(request)

    async def aclose(self) -> None:
        await self._pool.aclose()
