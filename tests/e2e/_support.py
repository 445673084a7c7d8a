"""Helpers of the end-to-end tests: a port where nothing listens, and waiting."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable
from typing import Any

from tests.sdk._support import resolve


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
