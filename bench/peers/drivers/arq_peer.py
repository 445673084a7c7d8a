"""arq 0.28 on Redis (a virtualenv of its own: it needs redis-py below 6); one worker process
with its default ``max_jobs``.
"""

from __future__ import annotations

from typing import Any

from _common import REDIS_URL, Side, record_async
from arq import create_pool
from arq.connections import RedisSettings

__all__ = ["SIDE", "ArqSide", "WorkerSettings", "noop"]


async def noop(_ctx: Any, job_id: str) -> None:
    """The job: nothing but the record every side's handler makes."""
    await record_async(job_id)


class WorkerSettings:
    """What ``arq arq_peer.WorkerSettings`` runs."""

    functions = [noop]
    redis_settings = RedisSettings.from_dsn(REDIS_URL)


class ArqSide(Side):
    async def open(self) -> None:
        self._pool = await create_pool(WorkerSettings.redis_settings)

    async def close(self) -> None:
        await self._pool.aclose()

    async def enqueue_one(self, job_id: str) -> None:
        await self._pool.enqueue_job("noop", job_id)

    async def backlog(self) -> int:
        # Queued jobs are in this sorted set until a worker finishes them.
        return int(await self._pool.zcard(self._pool.default_queue_name))

    def worker_command(self) -> list[str]:
        return ["arq", "arq_peer.WorkerSettings"]


SIDE = ArqSide()
