"""The command line (server/__main__.py): its listening socket, and its switches."""

from __future__ import annotations

import socket
from collections.abc import Callable

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette

from server.__main__ import bind_listener
from tests.conftest import ServerProcess


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


CONFIG = {
    "tokens": [
        {
            "id": "ops",
            "token": "ops-secret",
            "permissions": [{"resource": "*", "actions": ["admin"]}],
        }
    ]
}


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_the_console_flag_serves_the_console(
    spool_server: Callable[..., ServerProcess], sqlite_store_url: str, workers: int
) -> None:
    """``--console`` serves /console with a token file, in every worker; without it, 404."""
    served = spool_server(sqlite_store_url, config=CONFIG, workers=workers, arguments=["--console"])
    assert httpx.get(f"{served.base_url}/console/sign-in", timeout=60).status_code == 200
    if workers == 1:
        plain = spool_server(sqlite_store_url, config=CONFIG)
        assert httpx.get(f"{plain.base_url}/console/sign-in").status_code == 404
