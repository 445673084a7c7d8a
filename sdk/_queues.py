"""Queues: explicit resources you create first, then publish jobs to and consume them from.

`Queues`/`AsyncQueues` and `Queue`/`AsyncQueue` are twins: each method sends the call built in
sdk/_queue_calls.py and returns its result, so only the signatures and docstrings are written
twice, and tests/sdk/test_exported_members.py holds the twins to the same surface.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

from ._arguments import JobRequest, JobState
from ._batching import AsyncBackgroundBatcher, AsyncCoalescer, BackgroundBatcher, SyncCoalescer
from ._codec import Codec
from ._durations import Duration
from ._http import AsyncTransport, SyncTransport
from ._queue_calls import (
    QueueAdminCalls,
    QueueCalls,
    async_job_sender,
    job_sender,
    queue_subscription,
)
from ._subscriptions import Subscription

if TYPE_CHECKING:
    from asyncio import Future as AsyncFuture
    from concurrent.futures import Future

    from generated.models import PublishJobRequest

    from ._types import Job, JobAckResult, JobReceipt, LeasedJob, QueueInfo

__all__ = ["AsyncQueue", "AsyncQueues", "Queue", "Queues"]

HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])


class Queues:
    """Queue administration of a `Client` (`client.queues`): create, inspect, delete."""

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    def create(
        self,
        name: str,
        *,
        max_attempts: int | None = None,
        lease: Duration | None = None,
        retention: Duration | None = None,
        deduplication_window: Duration | None = None,
    ) -> QueueInfo:
        """Create queue `name`, or change the given settings of an existing one (its jobs stay).

        Settings left out keep the service's defaults for a new queue: 5 attempts, a 30 s lease,
        7 days' retention and a 5 minute deduplication window.
        """
        return self._transport.send(
            QueueAdminCalls.create(
                name,
                max_attempts=max_attempts,
                lease=lease,
                retention=retention,
                deduplication_window=deduplication_window,
            )
        )

    def get(self, name: str) -> QueueInfo:
        """The queue's settings and job counts; NotFoundError if it does not exist."""
        return self._transport.send(QueueAdminCalls.get(name))

    def list(self) -> builtins.list[QueueInfo]:
        """Every queue the API key may see."""
        return self._transport.send(QueueAdminCalls.list())

    def delete(self, name: str) -> None:
        """Delete the queue and every job in it."""
        self._transport.send(QueueAdminCalls.delete(name))


class AsyncQueues:
    """Queue administration of an `AsyncClient` (`aclient.queues`): create, inspect, delete."""

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    async def create(
        self,
        name: str,
        *,
        max_attempts: int | None = None,
        lease: Duration | None = None,
        retention: Duration | None = None,
        deduplication_window: Duration | None = None,
    ) -> QueueInfo:
        """Create queue `name`, or change the given settings of an existing one (its jobs stay).

        Settings left out keep the service's defaults for a new queue: 5 attempts, a 30 s lease,
        7 days' retention and a 5 minute deduplication window.
        """
        return await self._transport.send(
            QueueAdminCalls.create(
                name,
                max_attempts=max_attempts,
                lease=lease,
                retention=retention,
                deduplication_window=deduplication_window,
            )
        )

    async def get(self, name: str) -> QueueInfo:
        """The queue's settings and job counts; NotFoundError if it does not exist."""
        return await self._transport.send(QueueAdminCalls.get(name))

    async def list(self) -> builtins.list[QueueInfo]:
        """Every queue the API key may see."""
        return await self._transport.send(QueueAdminCalls.list())

    async def delete(self, name: str) -> None:
        """Delete the queue and every job in it."""
        await self._transport.send(QueueAdminCalls.delete(name))


class Queue:
    """One existing queue of a `Client`, from `client.init_queue(name)`.

    Usage:

    ```python
    queue = client.init_queue("jobs")
    receipt = queue.publish("email-jobs", {"userId": "12345"})

    @queue.subscribe("email-jobs")
    def send(job: dict) -> None:
        ...  # acknowledged on return, given back for a retry on an exception
    ```
    """

    def __init__(
        self,
        transport: SyncTransport,
        name: str,
        *,
        codec: Codec,
        subscriptions: builtins.list[Subscription],
        batched: SyncCoalescer[str, PublishJobRequest, JobReceipt] | None = None,
        sender: BackgroundBatcher[str, PublishJobRequest, JobReceipt] | None = None,
    ) -> None:
        self.name = name
        self._transport = transport
        self._calls = QueueCalls(name, codec)
        self._subscriptions = subscriptions
        self._batched = batched
        self._sender = sender or job_sender(transport, codec)

    def __repr__(self) -> str:
        return f"Queue({self.name!r})"

    def publish(
        self,
        topic: str,
        payload: Any,
        *,
        delay: Duration | None = None,
        deduplication_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> JobReceipt:
        """Submit a job; the receipt confirms acceptance, not execution.

        An invalid topic raises InvalidTopicError, a reserved one ReservedTopicError, before any
        request. Anything else that stops the job being accepted raises PublishError.
        """
        job = self._calls.checked_job(
            topic, payload, delay=delay, deduplication_id=deduplication_id
        )
        if self._batched is not None and idempotency_key is None:
            return self._batched.submit(self.name, job)
        return self._transport.send(self._calls.publish_one(job, idempotency_key=idempotency_key))

    def publish_nowait(
        self,
        topic: str,
        payload: Any,
        *,
        delay: Duration | None = None,
        deduplication_id: str | None = None,
    ) -> Future[JobReceipt]:
        """Submit a job without waiting for the service; the returned future says how it went.

        The job joins the next request a background sender makes to this queue, together with
        whatever else was submitted meanwhile, so a producer publishing one job at a time is not
        held up by round trips. Durability is confirmed only when the future resolves:
        `future.result()` returns the `JobReceipt` once the service has accepted the job (from
        then on it is as durable as a `publish`), or raises the `PublishError` that refused it
        (a job the service refuses for its content is sent again on its own, so it fails alone).
        Until then the job may be lost with this process. `client.flush()` waits for every
        future so far; `client.close()` flushes first. At most 10,000 jobs wait at once: past
        that this call blocks until the sender catches up.

        Returns:
            A `concurrent.futures.Future` of the job's `JobReceipt`.

        Raises:
            InvalidTopicError, ReservedTopicError, InvalidArgumentError: bad arguments, before
                anything is queued.
        """
        job = self._calls.checked_job(
            topic, payload, delay=delay, deduplication_id=deduplication_id
        )
        return self._sender.submit(self.name, job)

    def publish_many(
        self,
        jobs: Iterable[JobRequest | tuple[str, Any]],
        *,
        idempotency_key: str | None = None,
    ) -> builtins.list[JobReceipt]:
        """Submit `JobRequest`s or `(topic, payload)` pairs, all or none; receipts in order."""
        call = self._calls.publish_many(jobs, idempotency_key=idempotency_key)
        return [] if call is None else self._transport.send(call)

    def subscribe(
        self,
        *topics: str,
        count: int | None = None,
        lease: Duration | None = None,
        retry_delay: Duration = 0,
    ) -> Callable[[HandlerT], HandlerT]:
        """Consume jobs of `topics` (all topics when none) in `client.run()`, at least once.

        The handler gets the payload. A return acknowledges the job; an exception gives it back
        to be retried after `retry_delay`, until the queue's max_attempts move it to the dead
        letters. Jobs are leased ahead of the handlers, each for `lease` (default: the
        queue's). By default the worker holds as many as its handlers get through in a quarter
        of the lease (measured as it goes; 10 to 1,000); `count` fixes how many instead: then
        keep `count` times a handler's run time well inside the lease.
        """
        return queue_subscription(
            self.name,
            topics,
            count=count,
            lease=lease,
            retry_delay=retry_delay,
            subscriptions=self._subscriptions,
            asynchronous=False,
        )

    def info(self) -> QueueInfo:
        """The queue's settings and job counts."""
        return self._transport.send(self._calls.info())

    def jobs(self, *, state: JobState | None = None, limit: int = 100) -> builtins.list[Job]:
        """The queue's jobs in `state` (dead jobs, for instance), oldest first."""
        return self._transport.send(self._calls.jobs(state=state, limit=limit))

    def job(self, job_id: str) -> Job:
        """One job's state, attempts and last error."""
        return self._transport.send(self._calls.job(job_id))

    def retry(self, job_id: str) -> Job:
        """Make a dead job ready again with fresh attempts."""
        return self._transport.send(self._calls.retry(job_id))

    def delete_job(self, job_id: str) -> None:
        """Delete a dead job now (ConflictError for a job in any other state)."""
        self._transport.send(self._calls.delete_job(job_id))

    def lease(
        self,
        *,
        consumer: str,
        topics: Iterable[str] = (),
        max_jobs: int = 1,
        lease: Duration | None = None,
        wait: Duration = 0,
    ) -> builtins.list[LeasedJob]:
        """Lease ready jobs by hand (what `run()` does for subscriptions); ack or nack each."""
        return self._transport.send(
            self._calls.lease(
                consumer=consumer, topics=topics, max_jobs=max_jobs, lease=lease, wait=wait
            )
        )

    def ack(self, job: LeasedJob) -> Job:
        """Mark a leased job done; ConflictError if its lease has ended."""
        return self._transport.send(self._calls.ack(job))

    def ack_many(self, jobs: Iterable[LeasedJob]) -> builtins.list[JobAckResult]:
        """Mark many leased jobs done in one request (1 to 1,000 of this queue's).

        Returns one `JobAckResult` per job, in order: `acked`, or why not (`code`
        `lease_expired` when its lease ended or was already used, `job_not_found`); one that
        fails does not stop the others. Each acknowledgement is durable once this returns.
        Raises `InvalidArgumentError` for no jobs or too many, before any request;
        `NotFoundError` when the queue does not exist.
        """
        return self._transport.send(self._calls.ack_many(jobs))

    def nack(self, job: LeasedJob, *, retry_delay: Duration = 0, error: str | None = None) -> Job:
        """Give a leased job back, ready again after `retry_delay`, recording `error`."""
        return self._transport.send(self._calls.nack(job, retry_delay=retry_delay, error=error))

    def extend(self, job: LeasedJob, *, lease: Duration) -> Job:
        """Extend a job's lease to `lease` from now."""
        return self._transport.send(self._calls.extend(job, lease=lease))


class AsyncQueue:
    """One existing queue of an `AsyncClient`, from `await aclient.init_queue(name)`."""

    def __init__(
        self,
        transport: AsyncTransport,
        name: str,
        *,
        codec: Codec,
        subscriptions: builtins.list[Subscription],
        batched: AsyncCoalescer[str, PublishJobRequest, JobReceipt] | None = None,
        sender: AsyncBackgroundBatcher[str, PublishJobRequest, JobReceipt] | None = None,
    ) -> None:
        self.name = name
        self._transport = transport
        self._calls = QueueCalls(name, codec)
        self._subscriptions = subscriptions
        self._batched = batched
        self._sender = sender or async_job_sender(transport, codec)

    def __repr__(self) -> str:
        return f"AsyncQueue({self.name!r})"

    async def publish(
        self,
        topic: str,
        payload: Any,
        *,
        delay: Duration | None = None,
        deduplication_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> JobReceipt:
        """Submit a job; the receipt confirms acceptance, not execution (see `Queue.publish`)."""
        job = self._calls.checked_job(
            topic, payload, delay=delay, deduplication_id=deduplication_id
        )
        if self._batched is not None and idempotency_key is None:
            return await self._batched.submit(self.name, job)
        return await self._transport.send(
            self._calls.publish_one(job, idempotency_key=idempotency_key)
        )

    def publish_nowait(
        self,
        topic: str,
        payload: Any,
        *,
        delay: Duration | None = None,
        deduplication_id: str | None = None,
    ) -> AsyncFuture[JobReceipt]:
        """Submit a job without waiting for the service; see `Queue.publish_nowait`.

        Returns:
            An `asyncio.Future` of the job's `JobReceipt`: await it to know the job is accepted.
            `await aclient.flush()` waits for every one so far; `aclient.close()` flushes first.

        Raises:
            InvalidTopicError, ReservedTopicError, InvalidArgumentError: bad arguments, before
                anything is queued.
        """
        job = self._calls.checked_job(
            topic, payload, delay=delay, deduplication_id=deduplication_id
        )
        return self._sender.submit(self.name, job)

    async def publish_many(
        self,
        jobs: Iterable[JobRequest | tuple[str, Any]],
        *,
        idempotency_key: str | None = None,
    ) -> builtins.list[JobReceipt]:
        """Submit `JobRequest`s or `(topic, payload)` pairs, all or none; receipts in order."""
        call = self._calls.publish_many(jobs, idempotency_key=idempotency_key)
        return [] if call is None else await self._transport.send(call)

    def subscribe(
        self,
        *topics: str,
        count: int | None = None,
        lease: Duration | None = None,
        retry_delay: Duration = 0,
    ) -> Callable[[HandlerT], HandlerT]:
        """Consume jobs of `topics` in `await aclient.run()`; handlers may be async or plain."""
        return queue_subscription(
            self.name,
            topics,
            count=count,
            lease=lease,
            retry_delay=retry_delay,
            subscriptions=self._subscriptions,
            asynchronous=True,
        )

    async def info(self) -> QueueInfo:
        """The queue's settings and job counts."""
        return await self._transport.send(self._calls.info())

    async def jobs(self, *, state: JobState | None = None, limit: int = 100) -> builtins.list[Job]:
        """The queue's jobs in `state` (dead jobs, for instance), oldest first."""
        return await self._transport.send(self._calls.jobs(state=state, limit=limit))

    async def job(self, job_id: str) -> Job:
        """One job's state, attempts and last error."""
        return await self._transport.send(self._calls.job(job_id))

    async def retry(self, job_id: str) -> Job:
        """Make a dead job ready again with fresh attempts."""
        return await self._transport.send(self._calls.retry(job_id))

    async def delete_job(self, job_id: str) -> None:
        """Delete a dead job now (ConflictError for a job in any other state)."""
        await self._transport.send(self._calls.delete_job(job_id))

    async def lease(
        self,
        *,
        consumer: str,
        topics: Iterable[str] = (),
        max_jobs: int = 1,
        lease: Duration | None = None,
        wait: Duration = 0,
    ) -> builtins.list[LeasedJob]:
        """Lease ready jobs by hand (what `run()` does for subscriptions); ack or nack each."""
        return await self._transport.send(
            self._calls.lease(
                consumer=consumer, topics=topics, max_jobs=max_jobs, lease=lease, wait=wait
            )
        )

    async def ack(self, job: LeasedJob) -> Job:
        """Mark a leased job done; ConflictError if its lease has ended."""
        return await self._transport.send(self._calls.ack(job))

    async def ack_many(self, jobs: Iterable[LeasedJob]) -> builtins.list[JobAckResult]:
        """Mark many leased jobs done in one request; see `Queue.ack_many`."""
        return await self._transport.send(self._calls.ack_many(jobs))

    async def nack(
        self, job: LeasedJob, *, retry_delay: Duration = 0, error: str | None = None
    ) -> Job:
        """Give a leased job back, ready again after `retry_delay`, recording `error`."""
        return await self._transport.send(
            self._calls.nack(job, retry_delay=retry_delay, error=error)
        )

    async def extend(self, job: LeasedJob, *, lease: Duration) -> Job:
        """Extend a job's lease to `lease` from now."""
        return await self._transport.send(self._calls.extend(job, lease=lease))
