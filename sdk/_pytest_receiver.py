"""A local HTTP endpoint for tests: it records what the service delivers and checks each signature.

A threaded server from the standard library on a free loopback port. Its URL carries a random
path of its own and requests elsewhere get 404 unrecorded, so a retry meant for an earlier test's
receiver, arriving on a reused port, never counts as this test's delivery.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ._exceptions import SignatureError
from ._receiver import Receiver

__all__ = ["Delivery", "DeliveryReceiver"]

DEFAULT_WAIT_SECONDS = 10.0
_POLL_SECONDS = 0.02


@dataclass(frozen=True, slots=True)
class Delivery:
    """One request the receiver got: what was sent, and what its signature check said."""

    method: str
    path: str
    url: str
    headers: Message
    body: bytes
    signature_error: SignatureError | None

    @property
    def verified(self) -> bool:
        """Whether `Spool-Signature` held for this body and URL."""
        return self.signature_error is None

    def json(self) -> Any:
        """The body read as JSON.

        Returns:
            The JSON value of the body.

        Raises:
            ValueError: the body is not JSON (a `json.JSONDecodeError`).
        """
        return json.loads(self.body)

    def describe(self) -> str:
        """One line for a failure message: method, path, signature outcome, start of the body.

        Returns:
            The line, such as `POST /spool-receiver-.../hook (signed) b'{"n": 1}'`.
        """
        outcome = "signed" if self.signature_error is None else self.signature_error.reason
        return f"{self.method} {self.path} ({outcome}) {self.body[:80]!r}"


class DeliveryReceiver:
    """Records every delivery to `url` (or a path below it) and verifies its signature.

    It answers `status` (200 by default; set 500 to see retries). `wait_for(count)` returns once
    that many deliveries arrived and fails with what did arrive when they do not.
    """

    def __init__(self, receiver: Receiver, *, host: str = "127.0.0.1") -> None:
        self.status = 200
        self._receiver = receiver
        self._deliveries: list[Delivery] = []
        self._arrived = threading.Condition()
        self._prefix = f"/spool-receiver-{secrets.token_hex(6)}"
        self._server = ThreadingHTTPServer((host, 0), _handler_for(self._record))
        self._server.daemon_threads = True
        # A short poll, because closing waits for the loop to notice: a test's teardown stays quick.
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": _POLL_SECONDS},
            name="spool-receiver",
            daemon=True,
        )
        self._thread.start()
        self.url = f"http://{host}:{self._server.server_address[1]}{self._prefix}"

    def __repr__(self) -> str:
        return f"DeliveryReceiver(url={self.url!r}, deliveries={len(self.deliveries)})"

    @property
    def deliveries(self) -> list[Delivery]:
        """What arrived so far, in order (a copy)."""
        with self._arrived:
            return list(self._deliveries)

    def wait_for(
        self, count: int = 1, *, timeout: float = DEFAULT_WAIT_SECONDS, verified: bool = True
    ) -> list[Delivery]:
        """The first `count` deliveries, once they arrived.

        Returns:
            The first `count` deliveries, in the order they arrived.

        Raises:
            AssertionError: fewer than `count` arrived within `timeout` seconds (the message
                lists what did), or, with `verified` (the default), the signature of one of
                them failed.
        """
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self._deliveries) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(_not_arrived(count, timeout, self._deliveries, self.url))
                self._arrived.wait(left)
            arrived = self._deliveries[:count]
        refused = [delivery for delivery in arrived if delivery.signature_error is not None]
        if verified and refused:
            lines = "\n".join(f"  {d.describe()}: {d.signature_error}" for d in refused)
            raise AssertionError(f"{len(refused)} delivery(ies) failed verification:\n{lines}")
        return arrived

    def close(self) -> None:
        """Stop listening."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def _record(self, handler: BaseHTTPRequestHandler, body: bytes) -> int:
        if handler.path != self._prefix and not handler.path.startswith(self._prefix + "/"):
            return 404
        host = handler.headers.get("Host", "")
        url = f"http://{host}{handler.path}"
        error: SignatureError | None = None
        try:
            self._receiver.verify_request(body=body, headers=handler.headers.items(), url=url)
        except SignatureError as refused:
            error = refused
        delivery = Delivery(handler.command, handler.path, url, handler.headers, body, error)
        with self._arrived:
            self._deliveries.append(delivery)
            self._arrived.notify_all()
        return self.status


def _not_arrived(count: int, timeout: float, arrived: list[Delivery], url: str) -> str:
    listing = "\n".join(f"  {delivery.describe()}" for delivery in arrived) or "  nothing"
    return (
        f"expected {count} delivery(ies) to {url} within {timeout:g} s, got {len(arrived)}:\n"
        f"{listing}"
    )


def _handler_for(
    record: Callable[[BaseHTTPRequestHandler, bytes], int],
) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        """Reads the whole body, lets the receiver record it, answers its status."""

        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status = record(self, body)
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _serve

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: a test's output is not the place for an access log."""

    return _Handler
