"""Helpers the service's tests share."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

__all__ = ["eventually"]


async def eventually(condition: Callable[[], bool], *, within: float = 15.0) -> None:
    """Wait (generously) until ``condition()`` holds."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail("condition not reached in time")
        await asyncio.sleep(0.01)
