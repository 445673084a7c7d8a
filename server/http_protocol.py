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
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.h11_impl import H11Protocol

from .config import DEFAULT_HTTP_READ_TIMEOUT_SECONDS

__all__ = ["READ_TIMEOUT_STATE_KEY", "H11ReadDeadlineProtocol"]

READ_TIMEOUT_STATE_KEY = "spool.http_read_timeout_seconds"
# How long a connection refused as malformed keeps reading (and dropping) what the client sends.
_LINGER_SECONDS = 2.0

_MALFORMED = json.dumps(
    {
        "type": "https://spool.dev/problems/malformed_request",
        "title": "Bad Request",
        "status": 400,
        "code": "malformed_request",
        "detail": "the request is not valid HTTP/1.1",
    }
).encode()
_MALFORMED_RESPONSE = (
    b"HTTP/1.1 400 Bad Request\r\n"
    b"content-type: application/problem+json\r\n"
    b"connection: close\r\n"
    b"content-length: " + str(len(_MALFORMED)).encode() + b"\r\n\r\n" + _MALFORMED
)


class H11ReadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with the read deadline and the problem+json 400."""

    # When the request being read must have arrived whole (None: none is being read).
    _deadline: float | None = None
    _timer: asyncio.TimerHandle | None = None
    _discarding = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._start_reading()

    def connection_lost(self, exc: Exception | None) -> None:
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
        self.logger.warning("malformed request: %s", msg)
        if self.transport.is_closing():
            return
        self.transport.write(_MALFORMED_RESPONSE)
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
