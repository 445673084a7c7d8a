"""uvicorn's HTTP protocols with a bounded time to read each request, and problem+json for
requests too malformed to reach the app.

uvicorn closes idle keep-alive connections, but a client that sends its headers one line a second,
or its body one byte a second, or nothing at all after connecting, holds a connection (and a slot
of every proxy in front) for as long as it likes. Here a request must arrive whole, headers and
body, within ``read_timeout`` seconds of its first byte (of the connection, for the first
request); otherwise the connection is closed, and the app sees the client as gone.

Each connection has at most one timer, which a request in time never cancels: a request moves the
deadline (a float), and the timer, when it fires early, sleeps on to the deadline it finds. A timer
armed and cancelled per request cost a handle and a heap push and pop on every publish.

The timeout comes from the app's settings through the lifespan state (``READ_TIMEOUT_STATE_KEY``),
so every worker process of ``spool-server --workers N`` applies the same one.

A request with both ``Content-Length`` and ``Transfer-Encoding`` is refused with the same 400 and
its connection closed (RFC 9112 section 6.3). h11 reads such a body as chunked, but a proxy in
front may have gone by ``Content-Length``; whatever either of them took for the next request would
otherwise be served on the same connection, unseen by the proxy (request smuggling). The refusal
happens before the app sees the request, and nothing pipelined after it is ever read.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable

from starlette.types import Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from .config import DEFAULT_HTTP_READ_TIMEOUT_SECONDS

__all__ = ["READ_TIMEOUT_STATE_KEY", "H11ReadDeadlineProtocol"]

READ_TIMEOUT_STATE_KEY = "spool.http_read_timeout_seconds"
# How long a connection refused as malformed keeps reading (and dropping) what the client sends.
_LINGER_SECONDS = 2.0


def _problem_response(detail: str) -> bytes:
    """A whole 400 ``malformed_request`` response that ends the connection."""
    document = json.dumps(
        {
            "type": "https://spool.dev/problems/malformed_request",
            "title": "Bad Request",
            "status": 400,
            "code": "malformed_request",
            "detail": detail,
        }
    ).encode()
    return (
        b"HTTP/1.1 400 Bad Request\r\n"
        b"content-type: application/problem+json\r\n"
        b"x-should-retry: false\r\n"
        b"connection: close\r\n"
        b"content-length: " + str(len(document)).encode() + b"\r\n\r\n" + document
    )


_MALFORMED_RESPONSE = _problem_response("the request is not valid HTTP/1.1")
_AMBIGUOUS_RESPONSE = _problem_response(
    "Content-Length and Transfer-Encoding together leave the body's length ambiguous; send one"
)


def _framed_both_ways(headers: Iterable[tuple[bytes, bytes]]) -> bool:
    """Whether a request's head (names lowercased, as h11 gives them) has both framings."""
    # h11 has refused every Transfer-Encoding but a single "chunked" already.
    names = {name for name, _ in headers}
    return b"transfer-encoding" in names and b"content-length" in names


class H11ReadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with the read deadline and the problem+json 400."""

    # When the request being read must have arrived whole (None: none is being read).
    _deadline: float | None = None
    _timer: asyncio.TimerHandle | None = None
    _discarding = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        # uvicorn runs each request of the connection through ``app``; through the check first,
        # a request framed both ways never reaches the service.
        self._served = self.app
        self.app = self._checked_app
        super().connection_made(transport)
        self._start_reading()

    def connection_lost(self, exc: Exception | None) -> None:
        # A running request holds the check already; undone, the connection's protocol is no
        # reference cycle (through its own bound method) and goes as soon as the connection does.
        self.app = self._served
        self._deadline = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._discarding:
            return
        if self._deadline is None and self._waiting_for_a_request():
            self._start_reading()
        super().data_received(data)
        if not self._reading():
            self._deadline = None

    def send_400_response(self, msg: str) -> None:
        # uvicorn answers text/plain; every error of this API is problem+json.
        self._refuse(_MALFORMED_RESPONSE, msg)

    async def _checked_app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _framed_both_ways(scope["headers"]):
            await self._served(scope, receive, send)
            return
        self._refuse(_AMBIGUOUS_RESPONSE, "both Content-Length and Transfer-Encoding")
        # The answer went out past uvicorn, which must not answer again: it sends nothing for a
        # request whose client is gone, which the closing connection tells it once it is closed.
        while (await receive())["type"] != "http.disconnect":
            pass

    def _refuse(self, response: bytes, reason: str) -> None:
        """Answer ``response`` (a whole 400) and close the connection, reading nothing more."""
        self.logger.warning("malformed request: %s", reason)
        if self.transport.is_closing():
            return
        self.transport.write(response)
        if not self.transport.can_write_eof():
            self.transport.close()
            return
        # Closing with unread input would reset the connection, and the client could lose the
        # answer before reading it: end our side, discard what still arrives, close shortly.
        self.transport.write_eof()
        self._discarding = True
        self._deadline = None
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(_LINGER_SECONDS, self.transport.close)

    def _waiting_for_a_request(self) -> bool:
        return self.cycle is None or bool(self.cycle.response_complete)

    def _reading(self) -> bool:
        """Whether a request is partly received (called right after data arrived)."""
        if self._waiting_for_a_request():
            # The data did not complete a request head, so one is on its way.
            return True
        return bool(self.cycle.more_body)

    def _start_reading(self) -> None:
        """Set the deadline of the request now arriving, and a timer if none is running."""
        timeout = float(
            self.app_state.get(READ_TIMEOUT_STATE_KEY, DEFAULT_HTTP_READ_TIMEOUT_SECONDS)
        )
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + timeout
        if self._timer is None:
            self._timer = loop.call_at(self._deadline, self._timer_fired, timeout)

    def _timer_fired(self, timeout: float) -> None:
        self._timer = None
        if self._deadline is None:
            return
        loop = asyncio.get_running_loop()
        if loop.time() < self._deadline:
            # Requests that arrived in time moved the deadline since the timer was set.
            self._timer = loop.call_at(self._deadline, self._timer_fired, timeout)
            return
        self._deadline = None
        if self.transport.is_closing():
            return
        self.logger.warning(
            "closing a connection whose request did not arrive whole within %s s", timeout
        )
        # connection_lost then tells a running request that its client is gone.
        self.transport.close()
