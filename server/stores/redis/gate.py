"""A bound on the commands a cluster client runs at once, the others waiting for one to end.

redis-py's standalone pool can wait for a free connection (``BlockingConnectionPool``); its cluster
client cannot: a node with ``max_connections`` in use raises ``MaxConnectionsError`` at once. A
command uses one connection of one node, and a pipeline at most one of each node it reaches, so
with as many places in the gate as a node has connections no node runs out of them, and a burst
waits here instead of failing.
"""

from __future__ import annotations

import asyncio
from types import TracebackType

from redis.exceptions import ConnectionError as RedisConnectionError

__all__ = ["Gate"]


class Gate:
    """At most ``count`` holders at once; a newcomer waits up to ``wait_seconds`` (``None``: as
    long as it takes) for a place, then fails as redis-py's blocking pool does.

    One task must not enter twice: a place it holds is not shared with what it runs inside.
    """

    def __init__(self, count: int, *, wait_seconds: float | None) -> None:
        self.count = count
        self.wait_seconds = wait_seconds
        self._places = asyncio.Semaphore(count)

    async def __aenter__(self) -> None:
        if not self._places.locked():
            # A free place is taken without arming a timeout.
            await self._places.acquire()
            return
        try:
            async with asyncio.timeout(self.wait_seconds):
                await self._places.acquire()
        except TimeoutError as exc:
            raise RedisConnectionError("No connection available.") from exc

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._places.release()
