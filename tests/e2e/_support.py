"""Helpers of the end-to-end tests: a local endpoint that records deliveries, and waiting."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from tests.sdk._support import resolve


@dataclass(frozen=True)
class Received:
    """One request the endpoint got: method, path, headers (lower-case names) and raw body."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


class LocalEndpoint:
    """An HTTP server on 127.0.0.1 that records every request; answers come from `statuses`.

    `statuses` are answered in turn, and the last one from then on (default: always 200).
    """

    def __init__(self, statuses: tuple[int, ...] = (200,)) -> None:
        self.received: list[Received] = []
        self._statuses = iter(statuses)
        self._last_status = statuses[-1]
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def url(self, path: str = "/hook") -> str:
        """The URL of `path` on this endpoint."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{path}"

    def wait_for(self, count: int, timeout: float = 60.0) -> list[Received]:
        """The first `count` requests, once they arrived; AssertionError after `timeout` s."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self.received) < count:
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"{len(self.received)} of {count} requests arrived"
                self._arrived.wait(remaining)
            return list(self.received[:count])

    def _record(self, request: Received) -> int:
        with self._arrived:
            self.received.append(request)
            self._arrived.notify_all()
            self._last_status = next(self._statuses, self._last_status)
            return self._last_status

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            """Records the request and answers with the endpoint's next status."""

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                status = endpoint._record(
                    Received(
                        method=self.command,
                        path=self.path,
                        headers={key.lower(): value for key, value in self.headers.items()},
                        body=body,
                    )
                )
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: object) -> None:
                """Keep the test output quiet."""

        return Handler


def closed_port_url() -> str:
    """A loopback URL where nothing listens: connections to it are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def eventually(
    fetch: Callable[[], Any], accept: Callable[[Any], bool], *, timeout: float = 60.0
) -> Any:
    """Fetch (awaiting if need be) until `accept` takes the value; fail after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = await resolve(fetch())
        if accept(value):
            return value
        assert time.monotonic() < deadline, f"still {value!r} after {timeout:g} s"
        await asyncio.sleep(0.1)
