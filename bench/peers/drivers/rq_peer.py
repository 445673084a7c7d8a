"""rq 2.12 (``rq worker``: a forking worker; ``RQ_WORKER_CLASS=rq.SimpleWorker``: no fork)."""

from __future__ import annotations

import os
from collections.abc import Sequence

import redis
from _common import REDIS_URL, Side, record
from rq import Queue

__all__ = ["SIDE", "RqSide", "noop"]

QUEUE = "bench"


def noop(job_id: str) -> None:
    """The job: nothing but the record every side's handler makes."""
    record(job_id)


class RqSide(Side):
    has_bulk = True

    async def open(self) -> None:
        self._queue = Queue(QUEUE, connection=redis.Redis.from_url(REDIS_URL))

    async def close(self) -> None:
        self._queue.connection.close()

    async def enqueue_one(self, job_id: str) -> None:
        self._queue.enqueue(noop, job_id)

    async def enqueue_bulk(self, job_ids: Sequence[str]) -> None:
        self._queue.enqueue_many([Queue.prepare_data(noop, (job_id,)) for job_id in job_ids])

    async def backlog(self) -> int:
        return self._queue.count + self._queue.started_job_registry.count

    def worker_command(self) -> list[str]:
        command = ["rq", "worker", "--url", REDIS_URL, "--quiet", QUEUE]
        worker_class = os.environ.get("RQ_WORKER_CLASS")
        if worker_class:
            command[2:2] = ["--worker-class", worker_class]
        return command


SIDE = RqSide()
