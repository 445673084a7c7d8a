"""FastStream 0.7 on a Redis stream read through a consumer group (``StreamSub(group=...)``);
one process (``faststream run``). Bulk: the publishes of a batch through one redis-py pipeline
(``publish(..., pipeline=)``), FastStream having no batch publish for streams.
"""

from __future__ import annotations

from collections.abc import Sequence

import redis.asyncio
from _common import REDIS_URL, Side, record_async
from _streams import stream_backlog
from faststream import FastStream
from faststream.redis import RedisBroker, StreamSub

__all__ = ["SIDE", "FastStreamSide", "app", "handle"]

STREAM = "bench-stream"
GROUP = "bench"
broker = RedisBroker(REDIS_URL)
app = FastStream(broker)


# last_id "0": the group reads what was published before the consumer started.
@broker.subscriber(stream=StreamSub(STREAM, group=GROUP, consumer="worker-1", last_id="0"))
async def handle(job_id: str) -> None:
    """The handler: nothing but the record every side's handler makes."""
    await record_async(job_id)


class FastStreamSide(Side):
    has_bulk = True

    async def open(self) -> None:
        self._broker = RedisBroker(REDIS_URL)
        await self._broker.connect()
        self._redis = redis.asyncio.Redis.from_url(REDIS_URL)

    async def close(self) -> None:
        await self._broker.stop()
        await self._redis.aclose()

    async def enqueue_one(self, job_id: str) -> None:
        await self._broker.publish(job_id, stream=STREAM)

    async def enqueue_bulk(self, job_ids: Sequence[str]) -> None:
        async with self._redis.pipeline(transaction=False) as pipe:
            for job_id in job_ids:
                await self._broker.publish(job_id, stream=STREAM, pipeline=pipe)
            await pipe.execute()

    async def backlog(self) -> int:
        return await stream_backlog(self._redis, STREAM, GROUP)

    def worker_command(self) -> list[str]:
        return ["faststream", "run", "faststream_peer:app"]


SIDE = FastStreamSide()
