"""Celery 5.7 on its Redis broker; one worker process (``-P solo``), results not stored."""

from __future__ import annotations

from collections.abc import Sequence

import redis
from _common import REDIS_URL, Side, record
from celery import Celery, group

__all__ = ["SIDE", "CelerySide", "app", "noop"]

QUEUE = "celery"
app = Celery("celery_peer", broker=REDIS_URL)
app.conf.update(task_ignore_result=True, worker_hijack_root_logger=False)


@app.task(name="noop")
def noop(job_id: str) -> None:
    """The job: nothing but the record every side's handler makes."""
    record(job_id)


class CelerySide(Side):
    has_bulk = True

    async def open(self) -> None:
        self._redis = redis.Redis.from_url(REDIS_URL)

    async def close(self) -> None:
        self._redis.close()

    async def enqueue_one(self, job_id: str) -> None:
        noop.delay(job_id)

    async def enqueue_bulk(self, job_ids: Sequence[str]) -> None:
        group(noop.s(job_id) for job_id in job_ids).apply_async()

    async def backlog(self) -> int:
        # Queued messages, and those a worker took but has not acknowledged yet.
        return int(self._redis.llen(QUEUE)) + int(self._redis.hlen("unacked"))

    def worker_command(self) -> list[str]:
        return ["celery", "-A", "celery_peer", "worker", "-P", "solo", "--loglevel", "WARNING"]


SIDE = CelerySide()
