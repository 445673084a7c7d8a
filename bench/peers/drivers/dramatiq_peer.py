"""dramatiq 2.2 on its Redis broker; one worker process with its default threads."""

from __future__ import annotations

from collections.abc import Sequence

import dramatiq
import redis
from _common import REDIS_URL, Side, record
from dramatiq.brokers.redis import RedisBroker

__all__ = ["SIDE", "DramatiqSide", "noop"]

QUEUE = "default"
dramatiq.set_broker(RedisBroker(url=REDIS_URL))


@dramatiq.actor(max_retries=0)
def noop(job_id: str) -> None:
    """The job: nothing but the record every side's handler makes."""
    record(job_id)


class DramatiqSide(Side):
    has_bulk = True

    async def open(self) -> None:
        self._redis = redis.Redis.from_url(REDIS_URL)

    async def close(self) -> None:
        self._redis.close()

    async def enqueue_one(self, job_id: str) -> None:
        noop.send(job_id)

    async def enqueue_bulk(self, job_ids: Sequence[str]) -> None:
        dramatiq.group(noop.message(job_id) for job_id in job_ids).run()

    async def backlog(self) -> int:
        # The broker keeps every message not yet acknowledged in this hash, queued or taken.
        return int(self._redis.hlen(f"dramatiq:{QUEUE}.msgs"))

    def worker_command(self) -> list[str]:
        return ["dramatiq", "--processes", "1", "dramatiq_peer"]


SIDE = DramatiqSide()
