"""Helpers for the web-framework receiver tests: signed requests, served apps, real deliveries."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn
from werkzeug.serving import make_server

import sdk
from server.signing import sign

CURRENT = "web_current_key"
NEXT = "web_next_key"
RECEIVER = sdk.Receiver(current_signing_key=CURRENT, next_signing_key=NEXT)
OTHER_RECEIVER = sdk.Receiver(current_signing_key="not_the_key", next_signing_key="nor_this_one")
_OUTCOME_SECONDS = 20.0


def signed(url: str, body: bytes, *, key: str = CURRENT) -> dict[str, str]:
    """Headers with a Spool-Signature for `body` sent to `url`, signed as the service signs."""
    return {
        "Spool-Signature": sign(key, url=url, body=body, now=time.time(), ttl=60),
        "Content-Type": "application/json",
    }


def outcome(client: sdk.Client, message_id: str) -> sdk.Message:
    """The message once its (only) attempt is over: delivered or failed."""
    deadline = time.monotonic() + _OUTCOME_SECONDS
    while (message := client.messages.get(message_id)).state not in ("delivered", "failed"):
        assert time.monotonic() < deadline, f"message {message_id} is still {message.state}"
        time.sleep(0.02)
    return message


@contextmanager
def served_asgi(make_app: Callable[[str], Any]) -> Iterator[str]:
    """`make_app(origin)` on uvicorn, on a free loopback port, in a thread; yields the origin."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    origin = f"http://127.0.0.1:{listener.getsockname()[1]}"
    config = uvicorn.Config(make_app(origin), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=asyncio.run, args=(server.serve([listener]),), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        yield origin
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()


@contextmanager
def served_wsgi(make_app: Callable[[str], Any]) -> Iterator[str]:
    """`make_app(origin)` on Werkzeug's threaded server, on a free loopback port; yields the
    origin.
    """
    server = make_server("127.0.0.1", 0, _not_ready, threaded=True)
    origin = f"http://127.0.0.1:{server.server_port}"
    # The app learns its origin first, so the port must be bound before the app is made.
    server.app = make_app(origin)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02})
    thread.start()
    try:
        yield origin
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def _not_ready(environ: Any, start_response: Any) -> list[bytes]:
    raise AssertionError("no request reaches the server before its app is set")
