"""A bound on the commands a cluster client runs at once, the others waiting for one to end, and
on how long each may take, redis-py's retries included.

redis-py's standalone pool can wait for a free connection (``BlockingConnectionPool``); its cluster
client cannot: a node with ``max_connections`` in use raises ``MaxConnectionsError`` at once. A
command uses one connection of one node, and a pipeline at most one of each node it reaches, so
with as many places in the gate as a node has connections no node runs out of them, and a burst
waits here instead of failing.

The cluster client also retries a command that timed out (three times, finding the cluster's
layout again in between), each try bounded by the socket timeout only, so a master that stops
answering would hold a request for several socket timeouts. A pass through the gate ends at one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from redis.exceptions import (
    ConnectionError as RedisConnectionError,
    TimeoutError as RedisTimeoutError,
)

__all__ = ["Gate"]


class Gate:
    """At most ``count`` passes at once; a newcomer waits up to ``wait_seconds`` (``None``: as
    long as it takes) for a place, then fails as redis-py's blocking pool does. What runs in a
    pass is cancelled after ``deadline_seconds`` (``None``: never) and ends in the timeout redis-py
    raises for a silent socket.

    One task must not pass twice at once: a place it holds is not shared with what it runs inside.
    """

    def __init__(
        self, count: int, *, wait_seconds: float | None, deadline_seconds: float | None
    ) -> None:
        self.count = count
        self.wait_seconds = wait_seconds
        self.deadline_seconds = deadline_seconds
        self._places = asyncio.Semaphore(count)

    @contextlib.asynccontextmanager
    async def __call__(self) -> AsyncIterator[None]:
        """One pass: ``async with gate():``."""
        await self._take()
        try:
            if self.deadline_seconds is None:
                yield
                return
            deadline = asyncio.timeout(self.deadline_seconds)
            try:
                async with deadline:
                    yield
            except TimeoutError as exc:
                if not deadline.expired():
                    raise
                # redis-py drops the connection a cancelled command was reading from.
                raise RedisTimeoutError(
                    f"Redis did not answer within {self.deadline_seconds} s"
                ) from exc
        finally:
            self._places.release()

    async def _take(self) -> None:
        if not self._places.locked():
            # A free place is taken without arming a timeout.
            await self._places.acquire()
            return
        try:
            async with asyncio.timeout(self.wait_seconds):
                await self._places.acquire()
        except TimeoutError as exc:
            raise RedisConnectionError("No connection available.") from exc
