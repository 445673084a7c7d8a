"""A scripted local receiver for the end-to-end tests: it records requests and fails, hangs or
succeeds on cue."""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self

__all__ = ["ARRIVAL_TIMEOUT", "Answer", "Received", "ScriptedReceiver"]

# The bound on every wait: long enough for a busy shared machine, short enough to fail clearly.
ARRIVAL_TIMEOUT = 60.0


@dataclass(frozen=True)
class Received:
    """One request the receiver got: method, path, headers (lower-case names) and raw body."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass(frozen=True)
class Answer:
    """How the receiver answers one request: after `hang` seconds, `status` with `body`."""

    status: int = 200
    body: bytes = b"ok"
    hang: float = 0.0


class ScriptedReceiver:
    """An HTTP server on 127.0.0.1 that records every request and answers from a script.

    The answers are used in turn and the last one repeats; `answer_with` replaces the script (a
    receiver that is down and then comes back). A hanging answer is cut short when the receiver
    closes, so no handler thread outlives the test.
    """

    def __init__(self, *answers: Answer) -> None:
        self.received: list[Received] = []
        self._answers: list[Answer] = list(answers) or [Answer()]
        self._arrived = threading.Condition()
        self._closing = threading.Event()
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
        self._closing.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def url(self, path: str = "/hook") -> str:
        """The URL of `path` (which may carry a query) on this receiver."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{path}"

    def answer_with(self, *answers: Answer) -> None:
        """Answer the next requests from `answers` instead (the last one repeating)."""
        with self._arrived:
            self._answers = list(answers) or [Answer()]

    def wait_for(self, count: int, timeout: float = ARRIVAL_TIMEOUT) -> list[Received]:
        """The first `count` requests, once they arrived; AssertionError after `timeout` s."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while len(self.received) < count:
                remaining = deadline - time.monotonic()
                assert remaining > 0, f"{len(self.received)} of {count} requests arrived"
                self._arrived.wait(remaining)
            return list(self.received[:count])

    def stays_at(self, count: int, *, seconds: float) -> list[Received]:
        """Wait `seconds` and check that exactly `count` requests arrived in all; return them."""
        time.sleep(seconds)
        with self._arrived:
            assert len(self.received) == count, (
                f"expected {count} requests, got {len(self.received)}: {self.received!r}"
            )
            return list(self.received)

    def _record(self, request: Received) -> Answer:
        with self._arrived:
            self.received.append(request)
            self._arrived.notify_all()
            return self._answers.pop(0) if len(self._answers) > 1 else self._answers[0]

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            """Records the request, then answers as the receiver's script says."""

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                answer = receiver._record(
                    Received(
                        method=self.command,
                        path=self.path,
                        headers={key.lower(): value for key, value in self.headers.items()},
                        body=self.rfile.read(length),
                    )
                )
                if answer.hang:
                    receiver._closing.wait(answer.hang)
                # The service hangs up on an attempt that timed out; answering it then is moot.
                with contextlib.suppress(ConnectionError):
                    self.send_response(answer.status)
                    self.send_header("Content-Length", str(len(answer.body)))
                    self.end_headers()
                    self.wfile.write(answer.body)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: object) -> None:
                """Keep the test output quiet."""

        return Handler
