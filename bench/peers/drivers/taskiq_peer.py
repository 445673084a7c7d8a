"""taskiq 0.13 on taskiq-redis's stream broker (acknowledged), one worker process
(``--workers 1``) with its default concurrency.
"""

from __future__ import annotations

import redis.asyncio
from _common import REDIS_URL, Side, record_async
from _streams import stream_backlog
from taskiq_redis import RedisStreamBroker

__all__ = ["SIDE", "TaskiqSide", "broker", "noop"]

STREAM = "taskiq"
GROUP = "taskiq"
# "0": the group reads what was enqueued before the worker started, as a queue's worker does.
broker = RedisStreamBroker(REDIS_URL, queue_name=STREAM, consumer_group_name=GROUP, consumer_id="0")


@broker.task(task_name="noop")
async def noop(job_id: str) -> None:
    """The job: nothing but the record every side's handler makes."""
    await record_async(job_id)


class TaskiqSide(Side):
    async def open(self) -> None:
        await broker.startup()
        self._redis = redis.asyncio.Redis.from_url(REDIS_URL)

    async def close(self) -> None:
        await broker.shutdown()
        await self._redis.aclose()

    async def enqueue_one(self, job_id: str) -> None:
        await noop.kiq(job_id)

    async def backlog(self) -> int:
        return await stream_backlog(self._redis, STREAM, GROUP)

    def worker_command(self) -> list[str]:
        return ["taskiq", "worker", "--workers", "1", "taskiq_peer:broker"]


SIDE = TaskiqSide()
