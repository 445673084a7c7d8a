"""Spool through its SDK's public API, on a real ``python -m server`` the suite started.

``BENCH_SPOOL_MODE`` says which worker ``worker_command`` starts: ``sync`` or ``async``
``client.run()`` on a queue, ``stream-sync`` or ``stream-async`` on a stream's consumer group.
Producers always use the sync ``Client``: ``queue.publish`` / ``queue.publish_many`` for queues,
``client.publish`` / ``client.publish_many`` for streams; with ``BENCH_SPOOL_NOWAIT=1`` a job or
entry published one at a time goes through ``publish_nowait`` instead, the timing ending once
``flush()`` has every future resolved. The queue or stream is made fresh for each run
(``BENCH_SPOOL_NAME``) and deleted after it.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from typing import Any

from _common import Side, record, record_async

import sdk

__all__ = ["SIDE", "SpoolSide", "work"]

URL = os.environ.get("BENCH_SPOOL_URL", "")
TOKEN = os.environ.get("BENCH_SPOOL_TOKEN", "")
MODE = os.environ.get("BENCH_SPOOL_MODE", "sync")
NAME = os.environ.get("BENCH_SPOOL_NAME", "bench-peers")
TOPIC = "noop"
GROUP = "bench"
STREAMS = MODE.startswith("stream-")
NOWAIT = os.environ.get("BENCH_SPOOL_NOWAIT") == "1"


class SpoolSide(Side):
    has_bulk = True

    async def open(self) -> None:
        self._client = sdk.Client(URL, TOKEN)
        if not STREAMS:
            self._client.queues.create(NAME)
            self._queue = self._client.init_queue(NAME)

    async def close(self) -> None:
        if STREAMS:
            self._client.streams.delete(NAME)
        else:
            self._client.queues.delete(NAME)
        self._client.close()

    async def enqueue_one(self, job_id: str) -> None:
        if NOWAIT:
            if STREAMS:
                self._client.publish_nowait(NAME, {"id": job_id})
            else:
                self._queue.publish_nowait(TOPIC, {"id": job_id})
        elif STREAMS:
            self._client.publish(NAME, {"id": job_id})
        else:
            self._queue.publish(TOPIC, {"id": job_id})

    async def enqueued(self) -> None:
        self._client.flush()

    async def enqueue_bulk(self, job_ids: Sequence[str]) -> None:
        if STREAMS:
            self._client.publish_many(NAME, [{"id": job_id} for job_id in job_ids])
        else:
            self._queue.publish_many([(TOPIC, {"id": job_id}) for job_id in job_ids])

    async def backlog(self) -> int:
        if not STREAMS:
            stats = self._queue.info().stats
            return stats.ready + stats.delayed + stats.leased
        try:
            info = self._client.streams.info(NAME)
        except sdk.NotFoundError:
            return 0
        group = next((group for group in info.groups if group.group == GROUP), None)
        if group is None:
            return info.length
        # The service tells no lag: entries past the group's last delivered one count as one more,
        # enough for the checks, which compare the backlog to zero once a group reads the stream.
        return group.pending + (group.last_delivered_id != info.last_id)

    def worker_command(self) -> list[str]:
        return [sys.executable, "-c", "import spool_peer; spool_peer.work()"]


def _job(payload: Any) -> None:
    record(payload["id"])


async def _job_async(payload: Any) -> None:
    await record_async(payload["id"])


def work() -> None:
    """The worker process: ``run()`` until interrupted."""
    if MODE in ("sync", "stream-sync"):
        with sdk.Client(URL, TOKEN) as client:
            if STREAMS:
                client.subscribe(sdk.Stream(NAME), group=GROUP, start_id="0")(_job)
            else:
                client.init_queue(NAME).subscribe(TOPIC)(_job)
            client.run()
        return

    async def run() -> None:
        async with sdk.AsyncClient(URL, TOKEN) as client:
            if STREAMS:
                client.subscribe(sdk.Stream(NAME), group=GROUP, start_id="0")(_job_async)
            else:
                (await client.init_queue(NAME)).subscribe(TOPIC)(_job_async)
            await client.run()

    asyncio.run(run())


SIDE = SpoolSide()
