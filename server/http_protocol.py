"""uvicorn's HTTP protocols with a bounded time to read each request, and problem+json for
requests too malformed to reach the app.

uvicorn closes idle keep-alive connections, but a client that sends its headers one line a second,
or its body one byte a second, or nothing at all after connecting, holds a connection (and a slot
of every proxy in front) for as long as it likes. Here a request must arrive whole, headers and
body, within ``read_timeout`` seconds of its first byte (of the connection, for the first
request); otherwise the connection is closed, and the app sees the client as gone.

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

    _read_deadline: asyncio.TimerHandle | None = None
    _discarding = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_read_deadline()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_read_deadline()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._discarding:
            return
        if self._waiting_for_a_request():
            self._arm_read_deadline()
        super().data_received(data)
        if not self._reading():
            self._disarm_read_deadline()

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
        self._disarm_read_deadline()
        self._read_deadline = asyncio.get_running_loop().call_later(
            _LINGER_SECONDS, self.transport.close
        )

    def _waiting_for_a_request(self) -> bool:
        return self.cycle is None or bool(self.cycle.response_complete)

    def _reading(self) -> bool:
        """Whether a request is partly received (called right after data arrived)."""
        if self._waiting_for_a_request():
            # The data did not complete a request head, so one is on its way.
            return True
        return bool(self.cycle.more_body)

    def _arm_read_deadline(self) -> None:
        if self._read_deadline is not None:
            return
        timeout = float(
            self.app_state.get(READ_TIMEOUT_STATE_KEY, DEFAULT_HTTP_READ_TIMEOUT_SECONDS)
        )
        loop = asyncio.get_running_loop()
        self._read_deadline = loop.call_later(timeout, self._read_timed_out, timeout)

    def _disarm_read_deadline(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _read_timed_out(self, timeout: float) -> None:
        self._read_deadline = None
        if self.transport.is_closing():
            return
        self.logger.warning(
            "closing a connection whose request did not arrive whole within %s s", timeout
        )
        # connection_lost then tells a running request that its client is gone.
        self.transport.close()
