"""The command line's listening socket (server/__main__.py)."""

from __future__ import annotations

import socket

import uvicorn
from starlette.applications import Starlette

from server.__main__ import bind_listener


def test_the_listener_turns_off_nagle_for_every_accepted_connection() -> None:
    """TCP_NODELAY is set on the listener, so keep-alive responses never wait for delayed ACKs."""
    listener = bind_listener(uvicorn.Config(Starlette(), host="127.0.0.1", port=0))
    try:
        listener.listen()
        with socket.create_connection(listener.getsockname()):
            accepted, _ = listener.accept()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        listener.close()
