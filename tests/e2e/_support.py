"""Helpers of the end-to-end tests: a port where nothing listens, and waiting."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from tests._eventually import eventually as _eventually


def closed_port_url() -> str:
    """A loopback URL where nothing listens: connections to it are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def eventually(
    fetch: Callable[[], Any], accept: Callable[[Any], bool], *, timeout: float = 60.0
) -> Any:
    """The shared ``eventually`` with the end-to-end tests' patience: real processes on a busy
    machine get a minute by default.
    """
    return await _eventually(fetch, accept, timeout=timeout, interval=0.1)
