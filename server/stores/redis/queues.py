"""Job queues: Lua-scripted scored sets and job hashes, one hash tag per queue."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any, cast

from redis.asyncio.client import Pipeline
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError

from ...ids import new_id
from ..base import (
    IdempotencyClaim,
    JobAckOutcome,
    JobReceipt,
    JobRecord,
    JobReleaseOutcome,
    JobState,
    LeasedJob,
    NewJob,
    QueueRecord,
    QueueSettings,
)
from .arguments import number_text, optional_argument
from .core import RedisCore
from .errors import script_code
from .records import job_record, pairs, queue_record

__all__ = ["RedisQueues"]

_FIRST_LEASE_BATCH = 16
# How many queues' scripts listing them runs at once on a cluster, well within a node's connections.
_CLUSTER_LISTING_CONCURRENCY = 16


class RedisQueues(RedisCore):
    """The queue and job methods of the Redis store."""

    async def _queue_script(
        self,
        name: str,
        queue: str,
        args: Sequence[str | int | float],
        *,
        now: float,
        details: Mapping[str, str] | None = None,
        client: Pipeline | None = None,
        extra_keys: Sequence[str] = (),
    ) -> Any:
        keys = self._keys.queue(queue)
        return await self._run(
            name,
            [*keys.declared(), *extra_keys],
            [keys.job_prefix, number_text(now), *args],
            details={"queue": queue, **(details or {})},
            client=client,
        )

    async def _settling_script(
        self,
        name: str,
        queue: str,
        args: Sequence[str | int | float],
        *,
        now: float,
        details: Mapping[str, str] | None = None,
    ) -> Any:
        """Run a script that settles the queue (``settle()`` in ``lua/lib/queue.lua``): its own
        answer, once the jobs it made dead by lease expiry are reported.
        """
        answer, buried = await self._queue_script(name, queue, args, now=now, details=details)
        self._lease_deaths(queue, [str(job_id) for job_id in buried])
        return answer

    async def _put_queue(self, name: str, settings: QueueSettings) -> tuple[QueueRecord, bool]:
        """Write the settings in the queue's slot, then list the name (listing crosses slots)."""
        created, answer = await self._settling_script(
            "put_queue",
            name,
            [
                settings.max_attempts,
                settings.lease_seconds,
                settings.retention_seconds,
                settings.deduplication_window_seconds,
            ],
            now=self.clock(),
        )
        async with self._gate():
            await self._redis.sadd(self._keys.queues, name)
        return queue_record(name, answer), bool(created)

    async def _get_queue(self, name: str) -> QueueRecord:
        """The queue's settings and counts after settling it to now."""
        return queue_record(
            name, await self._settling_script("queue_info", name, [], now=self.clock())
        )

    async def _list_queues(self) -> list[QueueRecord]:
        """Every listed queue that still exists, by name."""
        async with self._gate():
            listed = await self._redis.smembers(self._keys.queues)
        names = sorted(str(name) for name in listed)
        if not names:
            return []
        now = self.clock()
        client = self._redis
        if isinstance(client, RedisCluster):
            answers = await self._cluster_queue_infos(names, now)
        else:
            async with client.pipeline(transaction=False) as pipe:
                for name in names:
                    keys = self._keys.queue(name)
                    await self._scripts["queue_info"](
                        keys=keys.declared(), args=[keys.job_prefix, number_text(now)], client=pipe
                    )
                async with self._gate():
                    answers = await pipe.execute(raise_on_error=False)
        records = []
        for name, answer in zip(names, answers, strict=True):
            if isinstance(answer, ResponseError) and script_code(answer) == "queue_not_found":
                continue
            if isinstance(answer, Exception):
                raise answer
            info, buried = answer
            self._lease_deaths(name, [str(job_id) for job_id in buried])
            records.append(queue_record(name, info))
        return records

    async def _cluster_queue_infos(self, names: Sequence[str], now: float) -> list[Any]:
        """``queue_info`` of every queue, each answer (or refusal) in its place. A cluster
        pipeline refuses EVALSHA, so the scripts run side by side instead, a few at a time.
        """
        limit = asyncio.Semaphore(_CLUSTER_LISTING_CONCURRENCY)

        async def info(name: str) -> Any:
            keys = self._keys.queue(name)
            async with limit, self._gate():
                try:
                    return await self._scripts["queue_info"](
                        keys=keys.declared(), args=[keys.job_prefix, number_text(now)]
                    )
                except ResponseError as exc:
                    return exc

        return list(await asyncio.gather(*(info(name) for name in names)))

    async def _delete_queue(self, name: str) -> None:
        """Delete the queue's keys, then unlist it unless a concurrent put created it again."""
        await self._queue_script("delete_queue", name, [], now=self.clock())
        async with self._gate():
            await self._redis.srem(self._keys.queues, name)
            if await self._redis.exists(self._keys.queue(name).meta):
                await self._redis.sadd(self._keys.queues, name)

    async def _publish_jobs(
        self,
        queue: str,
        jobs: Sequence[NewJob],
        *,
        payloads: Sequence[str],
        idempotency: IdempotencyClaim | None,
        traceparent: str | None,
    ) -> list[JobReceipt]:
        """Create every job in one script (which also keeps or replays the idempotency record);
        deduplication ids are checked against the queue's window, which also covers duplicates
        earlier in the batch.
        """
        now = self.clock()
        args: list[str | int | float] = [traceparent or "", len(jobs)]
        for job, payload in zip(jobs, payloads, strict=True):
            args += [
                new_id("job", now=now),
                job.topic,
                payload,
                job.delay,
                job.deduplication_id or "",
            ]
        keys = self._keys.queue(queue)

        async def write(record: list[str], claim: list[str | int | float]) -> Any:
            replayed, result = await self._queue_script(
                "publish_jobs", queue, [*claim, *args], now=now, extra_keys=record
            )
            if replayed:
                return replayed, result
            written, buried = result
            self._lease_deaths(queue, [str(job_id) for job_id in buried])
            return replayed, written

        replayed, receipts = await self._write_once(
            idempotency, keys.base, write, details={"queue": queue}
        )
        self._notify()
        return [
            JobReceipt(
                job_id=str(job_id),
                queue=queue,
                topic=str(topic),
                deduplicated=bool(dup),
                replayed=replayed,
            )
            for job_id, dup, topic in receipts
        ]

    async def _lease_jobs(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
        wait_ms: int,
    ) -> list[LeasedJob]:
        """Lease in one script (so no job goes to two workers); until ``wait_ms`` ends, look
        again when this process writes, when a publish elsewhere rings the queue's doorbell, or
        at the re-check.
        """
        deadline = time.monotonic() + max(wait_ms, 0) / 1000
        doorbell = self._keys.queue(queue).doorbell
        while True:
            # Taken before the lease, so that a write of this process during it still wakes this.
            wake = self._wake_up()
            try:
                # Lease ids are made before the script knows how many jobs it can lease; asking
                # for a few first keeps an idle long poll from making (and sending) a thousand.
                first = min(max_jobs, _FIRST_LEASE_BATCH)
                leased, rung = await self._lease_once(
                    queue,
                    consumer=consumer,
                    topics=topics,
                    max_jobs=first,
                    lease_seconds=lease_seconds,
                )
                if len(leased) == first < max_jobs:
                    more, _ = await self._lease_once(
                        queue,
                        consumer=consumer,
                        topics=topics,
                        max_jobs=max_jobs - first,
                        lease_seconds=lease_seconds,
                    )
                    leased += more
                remaining = deadline - time.monotonic()
                if leased or remaining <= 0:
                    return leased
                self._doorbells.watch(doorbell, rung, wake)
                # asyncio.timeout, not wait_for: no task of its own, so a wake-up reaches this
                # lease in one turn of the event loop rather than three.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(min(self.lease_recheck_seconds, remaining)):
                        await wake
            finally:
                self._wakeups.discard(wake)
                self._doorbells.forget(doorbell, wake)

    async def _lease_once(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
    ) -> tuple[list[LeasedJob], str]:
        """The jobs leased, and the id of the last ring of the queue's doorbell when it leased."""
        topic_list = list(topics or [])
        now = self.clock()
        expires_at, rows, rung = await self._settling_script(
            "lease_jobs",
            queue,
            [
                max_jobs,
                "" if lease_seconds is None else lease_seconds,
                consumer or "",
                "0" if topics is None else "1",
                len(topic_list),
                *topic_list,
                *(new_id("lease", now=now) for _ in range(max_jobs)),
            ],
            now=now,
        )
        leased = [
            LeasedJob(
                job_id=str(job_id),
                queue=queue,
                topic=str(topic),
                payload=json.loads(payload),
                attempt=int(attempt),
                lease_id=str(lease_id),
                lease_expires_at=float(expires_at),
                published_at=float(published_at),
                traceparent=traceparent,
            )
            for job_id, topic, payload, attempt, lease_id, published_at, traceparent in rows
        ]
        return leased, str(rung)

    async def _ack_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """Succeed the job if ``lease_id`` is its current, unexpired lease."""
        now = self.clock()
        fields = await self._queue_script(
            "ack_job",
            queue,
            [job_id, lease_id],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        return job_record(queue, pairs(fields), now)

    async def _ack_jobs(self, queue: str, leases: Sequence[tuple[str, str]]) -> list[JobAckOutcome]:
        """Succeed each job whose lease is current, in one script."""
        outcomes = await self._queue_script(
            "ack_jobs",
            queue,
            [part for lease in leases for part in lease],
            now=self.clock(),
        )
        return [cast("JobAckOutcome", outcome) for outcome in outcomes]

    async def _nack_job(
        self, queue: str, job_id: str, lease_id: str, *, retry_delay: int, error: str | None
    ) -> JobRecord:
        """End the lease: ready again after ``retry_delay``, or dead without attempts left."""
        now = self.clock()
        fields = await self._queue_script(
            "nack_job",
            queue,
            [job_id, lease_id, retry_delay, optional_argument(error)],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        self._notify()
        return job_record(queue, pairs(fields), now)

    async def _release_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """End the lease untried: ready now, with the attempt given back."""
        now = self.clock()
        fields = await self._queue_script(
            "release_job",
            queue,
            [job_id, lease_id],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        self._notify()
        return job_record(queue, pairs(fields), now)

    async def _release_jobs(
        self, queue: str, leases: Sequence[tuple[str, str]]
    ) -> list[JobReleaseOutcome]:
        """Release each job whose lease is current, in one script."""
        outcomes = await self._queue_script(
            "release_jobs",
            queue,
            [part for lease in leases for part in lease],
            now=self.clock(),
        )
        self._notify()
        return [cast("JobReleaseOutcome", outcome) for outcome in outcomes]

    async def _extend_lease(
        self, queue: str, job_id: str, lease_id: str, *, lease_seconds: int
    ) -> JobRecord:
        """Move the lease's end to ``lease_seconds`` from now."""
        now = self.clock()
        fields = await self._queue_script(
            "extend_lease",
            queue,
            [job_id, lease_id, lease_seconds],
            now=now,
            details={"job_id": job_id, "lease_id": lease_id},
        )
        return job_record(queue, pairs(fields), now)

    async def _get_job(self, queue: str, job_id: str) -> JobRecord:
        """The job, its state computed at now."""
        now = self.clock()
        fields = await self._queue_script(
            "get_job", queue, [job_id], now=now, details={"job_id": job_id}
        )
        return job_record(queue, pairs(fields), now)

    async def _list_jobs(
        self, queue: str, *, state: JobState | None, limit: int
    ) -> list[JobRecord]:
        """Jobs in publish order, filtered by their state at now."""
        now = self.clock()
        rows = await self._settling_script("list_jobs", queue, [state or "", limit], now=now)
        return [job_record(queue, pairs(fields), now) for fields in rows]

    async def _retry_job(self, queue: str, job_id: str) -> JobRecord:
        """Make a dead job ready now with its attempts reset."""
        now = self.clock()
        fields = await self._settling_script(
            "retry_job",
            queue,
            [job_id],
            now=now,
            details={"job_id": job_id, "state_rule": "only dead jobs can be retried"},
        )
        self._notify()
        return job_record(queue, pairs(fields), now)

    async def _delete_job(self, queue: str, job_id: str) -> None:
        """Delete a dead job's hash and its place in the queue's indexes."""
        await self._settling_script(
            "delete_job",
            queue,
            [job_id],
            now=self.clock(),
            details={"job_id": job_id, "state_rule": "only dead jobs can be deleted"},
        )
