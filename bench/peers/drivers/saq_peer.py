"""saq 0.26 on Redis; one worker process (``saq``) with its default concurrency."""

from __future__ import annotations

from typing import Any

from _common import REDIS_URL, Side, record_async
from saq import Queue

__all__ = ["SIDE", "SaqSide", "noop", "settings"]


async def noop(_ctx: Any, *, job_id: str) -> None:
    """The job: nothing but the record every side's handler makes."""
    await record_async(job_id)


settings = {"queue": Queue.from_url(REDIS_URL, name="bench"), "functions": [noop]}


class SaqSide(Side):
    async def open(self) -> None:
        self._queue = Queue.from_url(REDIS_URL, name="bench")
        await self._queue.connect()

    async def close(self) -> None:
        await self._queue.disconnect()

    async def enqueue_one(self, job_id: str) -> None:
        await self._queue.enqueue("noop", job_id=job_id)

    async def backlog(self) -> int:
        return await self._queue.count("incomplete")

    def worker_command(self) -> list[str]:
        return ["saq", "--quiet", "saq_peer.settings"]


SIDE = SaqSide()
