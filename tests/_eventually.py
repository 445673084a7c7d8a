"""Waiting for what happens in the background (deliveries, settles): the one ``eventually``."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from tests.sdk._support import resolve

__all__ = ["eventually"]


async def eventually(
    fetch: Callable[[], Any],
    accept: Callable[[Any], bool] = bool,
    *,
    timeout: float = 15.0,
    interval: float = 0.01,
) -> Any:
    """Fetch (awaiting it if need be) until ``accept`` takes the value, and return that value;
    fail after ``timeout`` seconds saying what the value still was.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = await resolve(fetch())
        if accept(value):
            return value
        assert time.monotonic() < deadline, f"still {value!r} after {timeout:g} s"
        await asyncio.sleep(interval)
