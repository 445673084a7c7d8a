"""Doorbells: how a lease long poll of one service process hears of a job made ready in another.

Whatever makes a job ready now (a publish, a release, a nack without delay, a retry of a dead job)
rings its queue's doorbell, a short stream in the queue's hash slot (``ring()`` in
``lua/lib/queue.lua``), and a lease that found nothing gets the id of the last ring so far. While
leases of this process wait on a queue, one reader blocks on its doorbell (XREAD BLOCK, on the
client of blocked reads) and wakes each of them at the first ring after the one it saw, however
many there are.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable

from redis.exceptions import RedisClusterException, RedisError

__all__ = ["MAX_READERS", "Doorbells", "ReadRing"]

_log = logging.getLogger(__name__)

# Each reader holds a connection of the blocked reads' pool while it waits, which stream long polls
# need too; leases of a queue past this many wait for their own re-check instead.
MAX_READERS = 32

# Blocks until a ring after ``after`` (an entry id) or its block time ends: the newest ring's id,
# or None.
ReadRing = Callable[[str, str], Awaitable[str | None]]


def _ring_order(ring_id: str) -> tuple[int, int]:
    milliseconds, _, sequence = ring_id.partition("-")
    return int(milliseconds), int(sequence or 0)


@dataclasses.dataclass(slots=True, eq=False)
class _Reader:
    """One doorbell's reader: the last ring it knows of, and who waits for a later one."""

    cursor: str
    waiters: dict[asyncio.Future[None], tuple[int, int]] = dataclasses.field(default_factory=dict)
    task: asyncio.Task[None] | None = None

    @property
    def last(self) -> tuple[int, int]:
        return _ring_order(self.cursor)


class Doorbells:
    """This process's doorbell readers, one per doorbell that a lease waits on."""

    def __init__(self, read: ReadRing) -> None:
        self._read = read
        self._readers: dict[str, _Reader] = {}

    def watch(self, doorbell: str, seen: str, wake: asyncio.Future[None]) -> None:
        """Resolve ``wake`` at the first ring of ``doorbell`` after ``seen`` (at once if this
        process has read one already); ``forget`` it when done waiting.
        """
        reader = self._readers.get(doorbell)
        if reader is None:
            if len(self._readers) >= MAX_READERS:
                return
            # From what the lease saw, so a ring between its look and this read is not missed.
            reader = self._readers[doorbell] = _Reader(seen)
            reader.task = asyncio.create_task(self._listen(doorbell, reader))
        order = _ring_order(seen)
        if reader.last > order:
            _resolve(wake)
        else:
            reader.waiters[wake] = order

    def forget(self, doorbell: str, wake: asyncio.Future[None]) -> None:
        """Stop waking ``wake``; the reader ends after a read that nobody waited for."""
        reader = self._readers.get(doorbell)
        if reader is not None:
            reader.waiters.pop(wake, None)

    async def close(self) -> None:
        """Stop every reader; their leases still wake at their own re-check."""
        readers, self._readers = list(self._readers.values()), {}
        for reader in readers:
            if reader.task is not None:
                reader.task.cancel()
        for reader in readers:
            if reader.task is not None:
                await asyncio.gather(reader.task, return_exceptions=True)

    async def _listen(self, doorbell: str, reader: _Reader) -> None:
        try:
            while reader.waiters:
                newest = await self._read(doorbell, reader.cursor)
                if newest is None:
                    continue
                reader.cursor = newest
                last = reader.last
                for wake, order in list(reader.waiters.items()):
                    if order < last:
                        del reader.waiters[wake]
                        _resolve(wake)
        except (RedisError, RedisClusterException, OSError) as exc:
            # The leases waiting still look again at their own re-check; the next to wait starts
            # another reader.
            _log.warning("reading the doorbell %s failed: %s", doorbell, exc)
        finally:
            if self._readers.get(doorbell) is reader:
                del self._readers[doorbell]


def _resolve(wake: asyncio.Future[None]) -> None:
    if not wake.done():
        wake.set_result(None)
