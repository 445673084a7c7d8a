"""Queues: explicit resources you create first, then publish jobs to and consume them from.

`Queues`/`AsyncQueues` and `Queue`/`AsyncQueue` are twins: each method sends the call built in
sdk/_queue_calls.py and returns its result, so only the signatures and docstrings are written
twice, and tests/sdk/test_exported_members.py holds the twins to the same surface.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar, Unpack

from ._arguments import JobRequest, JobState
from ._batching import AsyncBackgroundBatcher, AsyncCoalescer, BackgroundBatcher, SyncCoalescer
from ._codec import Codec
from ._config import RequestOptions
from ._durations import Duration
from ._http import AsyncTransport, SyncTransport
from ._keywords import suggests_keywords, takes_request_options
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

    from ._types import Job, JobAckResult, JobReceipt, JobReleaseResult, LeasedJob, QueueInfo

__all__ = ["AsyncQueue", "AsyncQueues", "Queue", "Queues"]

HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])


class Queues:
    """Queue administration of a `Client` (`client.queues`): create, inspect, delete.

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent.

    Each method names its own errors below. An invalid argument raises InvalidArgumentError (or
    its subclasses InvalidNameError and InvalidDurationError) before any request is sent. Any
    request may also fail with AuthenticationError (401), PermissionDeniedError (403) and, once
    the client's retries are used up, RateLimitError (429), InternalServerError (5xx) or
    APIConnectionError (APITimeoutError among them); APIResponseValidationError when an answer
    cannot be read.
    """

    def __init__(self, transport: SyncTransport) -> None:
        self._transport = transport

    @takes_request_options
    def create(
        self,
        name: str,
        *,
        max_attempts: int | None = None,
        lease: Duration | None = None,
        retention: Duration | None = None,
        deduplication_window: Duration | None = None,
        **options: Unpack[RequestOptions],
    ) -> QueueInfo:
        """Create queue `name`, or replace the settings of an existing one (its jobs stay).

        A setting left out takes the service's default, on an existing queue too: 5 attempts, a
        30 s lease, 7 days' retention and a 5 minute deduplication window. To change one setting
        of an existing queue, give the others again.

        Returns:
            The QueueInfo as the queue now is.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            InvalidArgumentError: `max_attempts` is not an int from 1 to 100.
            InvalidDurationError: a duration is malformed, not whole seconds or out of range:
                `lease` 1 s to 12 h, `retention` 60 s to 30 days, `deduplication_window` up to
                7 days.
            PermissionDeniedError: the token lacks `admin` on the queue.
        """
        return self._transport.send(
            QueueAdminCalls.create(
                name,
                max_attempts=max_attempts,
                lease=lease,
                retention=retention,
                deduplication_window=deduplication_window,
            ),
            options,
        )

    @takes_request_options
    def get(self, name: str, **options: Unpack[RequestOptions]) -> QueueInfo:
        """The queue's settings and job counts.

        Returns:
            The QueueInfo; its `stats` count the jobs in each unfinished state.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            NotFoundError: the queue does not exist.
        """
        return self._transport.send(QueueAdminCalls.get(name), options)

    @takes_request_options
    def list(self, **options: Unpack[RequestOptions]) -> builtins.list[QueueInfo]:
        """Every queue the API key may see, by name.

        Returns:
            A list of QueueInfo.

        Raises:
            PermissionDeniedError: the token has no permission on any queue.
        """
        return self._transport.send(QueueAdminCalls.list(), options)

    @takes_request_options
    def delete(self, name: str, **options: Unpack[RequestOptions]) -> None:
        """Delete the queue and every job in it, leased ones included.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            NotFoundError: the queue does not exist.
            PermissionDeniedError: the token lacks `admin` on the queue.
        """
        self._transport.send(QueueAdminCalls.delete(name), options)


class AsyncQueues:
    """Queue administration of an `AsyncClient` (`aclient.queues`), to be awaited.

    Every method that sends a request also takes the per-call `timeout=`, `max_retries=` and
    `extra_headers=` (`RequestOptions`), which apply to its requests alone; a bad one is a
    ConfigurationError, raised before anything is sent.

    Each method names its own errors below. An invalid argument raises InvalidArgumentError (or
    its subclasses InvalidNameError and InvalidDurationError) before any request is sent. Any
    request may also fail with AuthenticationError (401), PermissionDeniedError (403) and, once
    the client's retries are used up, RateLimitError (429), InternalServerError (5xx) or
    APIConnectionError (APITimeoutError among them); APIResponseValidationError when an answer
    cannot be read.
    """

    def __init__(self, transport: AsyncTransport) -> None:
        self._transport = transport

    @takes_request_options
    async def create(
        self,
        name: str,
        *,
        max_attempts: int | None = None,
        lease: Duration | None = None,
        retention: Duration | None = None,
        deduplication_window: Duration | None = None,
        **options: Unpack[RequestOptions],
    ) -> QueueInfo:
        """Create queue `name`, or replace the settings of an existing one (its jobs stay).

        A setting left out takes the service's default, on an existing queue too: 5 attempts, a
        30 s lease, 7 days' retention and a 5 minute deduplication window. To change one setting
        of an existing queue, give the others again.

        Returns:
            The QueueInfo as the queue now is.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            InvalidArgumentError: `max_attempts` is not an int from 1 to 100.
            InvalidDurationError: a duration is malformed, not whole seconds or out of range:
                `lease` 1 s to 12 h, `retention` 60 s to 30 days, `deduplication_window` up to
                7 days.
            PermissionDeniedError: the token lacks `admin` on the queue.
        """
        return await self._transport.send(
            QueueAdminCalls.create(
                name,
                max_attempts=max_attempts,
                lease=lease,
                retention=retention,
                deduplication_window=deduplication_window,
            ),
            options,
        )

    @takes_request_options
    async def get(self, name: str, **options: Unpack[RequestOptions]) -> QueueInfo:
        """The queue's settings and job counts.

        Returns:
            The QueueInfo; its `stats` count the jobs in each unfinished state.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            NotFoundError: the queue does not exist.
        """
        return await self._transport.send(QueueAdminCalls.get(name), options)

    @takes_request_options
    async def list(self, **options: Unpack[RequestOptions]) -> builtins.list[QueueInfo]:
        """Every queue the API key may see, by name.

        Returns:
            A list of QueueInfo.

        Raises:
            PermissionDeniedError: the token has no permission on any queue.
        """
        return await self._transport.send(QueueAdminCalls.list(), options)

    @takes_request_options
    async def delete(self, name: str, **options: Unpack[RequestOptions]) -> None:
        """Delete the queue and every job in it, leased ones included.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            NotFoundError: the queue does not exist.
            PermissionDeniedError: the token lacks `admin` on the queue.
        """
        await self._transport.send(QueueAdminCalls.delete(name), options)


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

    Every method that sends a request, `publish_nowait` aside, also takes the per-call
    `timeout=`, `max_retries=` and `extra_headers=` (`RequestOptions`), which apply to its
    requests alone; a bad one is a ConfigurationError, raised before anything is sent.

    Each method names its own errors below. An invalid argument raises InvalidArgumentError (or
    its subclasses InvalidTopicError and InvalidDurationError) before any request is sent. Any
    request may also fail with AuthenticationError (401), PermissionDeniedError (403: the token
    lacks `publish`, `consume` or `admin` on the queue, as the operation needs), NotFoundError
    (404) once the queue is deleted, and, once the client's retries are used up, RateLimitError
    (429), InternalServerError (5xx) or APIConnectionError (APITimeoutError among them);
    APIResponseValidationError when an answer cannot be read. The publishes raise each of these
    as a PublishError whose `__cause__` is the typed error.
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

    @takes_request_options
    def publish(
        self,
        topic: str,
        payload: Any,
        *,
        delay: Duration | None = None,
        deduplication_id: str | None = None,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> JobReceipt:
        """Submit a job; the receipt confirms acceptance, not execution.

        Returns:
            The job's JobReceipt. With a `deduplication_id` already used within the queue's
            deduplication window, no job is created: the receipt is the first job's, with
            `deduplicated` true.

        Raises:
            InvalidTopicError: `topic` does not match the topic pattern.
            ReservedTopicError: `topic` starts with the reserved `spool.` prefix.
            InvalidDurationError: `delay` is malformed, not whole seconds or over 7 days.
            InvalidArgumentError: `idempotency_key` is invalid.
            PublishError: the payload cannot be encoded, or the request failed; `__cause__` is
                the typed error, such as NotFoundError (the queue does not exist), ConflictError
                (`idempotency_key` reused for another request), PayloadTooLargeError (a request
                over 1 MiB), UnprocessableEntityError (a `deduplication_id` that is empty or
                over 255 characters) or QuotaExceededError (the token's quota is used up).
        """
        job = self._calls.checked_job(
            topic, payload, delay=delay, deduplication_id=deduplication_id
        )
        if self._batched is not None and idempotency_key is None and not options:
            return self._batched.submit(self.name, job)
        return self._transport.send(
            self._calls.publish_one(job, idempotency_key=idempotency_key), options
        )

    @suggests_keywords
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
        that this call blocks until the sender catches up. It takes no request options, as its
        requests carry other jobs too: set them with `client.with_options(...)`.

        Returns:
            A `concurrent.futures.Future` of the job's `JobReceipt`.

        Raises:
            InvalidTopicError: `topic` does not match the topic pattern.
            ReservedTopicError: `topic` starts with the reserved `spool.` prefix.
            InvalidDurationError: `delay` is malformed, not whole seconds or over 7 days.
            PublishError: a custom codec cannot encode `payload`. These are raised at once,
                before anything is queued; the future gets every other failure.
        """
        job = self._calls.checked_job(
            topic, payload, delay=delay, deduplication_id=deduplication_id
        )
        return self._sender.submit(self.name, job)

    @takes_request_options
    def publish_many(
        self,
        jobs: Iterable[JobRequest | tuple[str, Any]],
        *,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[JobReceipt]:
        """Submit `JobRequest`s or `(topic, payload)` pairs in one request, all or none.

        Returns:
            One JobReceipt per job, in order; `[]`, sending nothing, for no jobs.

        Raises:
            TypeError: an item is neither a JobRequest nor a `(topic, payload)` pair.
            InvalidTopicError: a job's topic is invalid (ReservedTopicError: it is reserved).
            InvalidDurationError: a job's `delay` is malformed, not whole seconds or over 7 days.
            InvalidArgumentError: more than 1000 jobs, or an invalid `idempotency_key`.
            PublishError: as for `publish`; no job was accepted.
        """
        call = self._calls.publish_many(jobs, idempotency_key=idempotency_key)
        return [] if call is None else self._transport.send(call, options)

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

        Returns:
            A decorator that records the handler for `client.run()` and returns it unchanged.

        Raises:
            InvalidTopicError: a topic does not match the topic pattern (wildcards included).
            InvalidArgumentError: more than 100 topics, or `count` is not an int from 1 to 1000.
            InvalidDurationError: `lease` is not 1 s to 12 h, or `retry_delay` is over 7 days
                (both in whole seconds).
            ConfigurationError: raised by the decorator, for a handler that is not callable or
                is an `async def` (subscribe those on an AsyncClient's queue).
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

    @takes_request_options
    def info(self, **options: Unpack[RequestOptions]) -> QueueInfo:
        """The queue's settings and job counts.

        Returns:
            The QueueInfo; its `stats` count the jobs in each unfinished state.

        Raises:
            NotFoundError: the queue no longer exists.
        """
        return self._transport.send(self._calls.info(), options)

    @takes_request_options
    def jobs(
        self, *, state: JobState | None = None, limit: int = 100, **options: Unpack[RequestOptions]
    ) -> builtins.list[Job]:
        """The queue's jobs in `state` (dead jobs, for instance; every state when None).

        Returns:
            Up to `limit` Job, oldest first.

        Raises:
            InvalidArgumentError: `limit` is not an int from 1 to 1000.
            UnprocessableEntityError: `state` is not a JobState.
        """
        return self._transport.send(self._calls.jobs(state=state, limit=limit), options)

    @takes_request_options
    def job(self, job_id: str, **options: Unpack[RequestOptions]) -> Job:
        """One job's state, attempts and last error.

        Returns:
            The Job.

        Raises:
            BadRequestError: `job_id` is not a job id (`job_...`).
            NotFoundError: the queue has no such job.
        """
        return self._transport.send(self._calls.job(job_id), options)

    @takes_request_options
    def retry(self, job_id: str, **options: Unpack[RequestOptions]) -> Job:
        """Make a dead job ready again with fresh attempts.

        Returns:
            The Job, now `ready` with no attempts used.

        Raises:
            BadRequestError: `job_id` is not a job id (`job_...`).
            NotFoundError: the queue has no such job.
            ConflictError: the job is not dead (`invalid_state`).
        """
        return self._transport.send(self._calls.retry(job_id), options)

    @takes_request_options
    def delete_job(self, job_id: str, **options: Unpack[RequestOptions]) -> None:
        """Delete a dead job now, instead of at the end of the queue's retention.

        A deduplication id it had still counts until its window ends.

        Raises:
            BadRequestError: `job_id` is not a job id (`job_...`).
            NotFoundError: the queue has no such job.
            ConflictError: the job is not dead (`invalid_state`).
        """
        self._transport.send(self._calls.delete_job(job_id), options)

    @takes_request_options
    def lease(
        self,
        *,
        consumer: str,
        topics: Iterable[str] = (),
        max_jobs: int = 1,
        lease: Duration | None = None,
        wait: Duration = 0,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[LeasedJob]:
        """Lease ready jobs by hand (what `run()` does for subscriptions); ack or nack each.

        Up to `max_jobs` ready jobs of `topics` (all topics when empty), oldest first, each
        leased to `consumer` for `lease` (default: the queue's) and counted as an attempt. With
        `wait`, the call waits that long for a job to appear.

        Returns:
            A list of LeasedJob; empty when none was ready within `wait`.

        Raises:
            InvalidNameError: `consumer` is not a valid consumer name.
            InvalidTopicError: a topic does not match the topic pattern.
            InvalidArgumentError: more than 100 topics, or `max_jobs` is not an int from 1 to
                1000.
            InvalidDurationError: `lease` is not 1 s to 12 h in whole seconds, or `wait` is not
                whole milliseconds up to 30 s.
        """
        return self._transport.send(
            self._calls.lease(
                consumer=consumer, topics=topics, max_jobs=max_jobs, lease=lease, wait=wait
            ),
            options,
        )

    @takes_request_options
    def ack(self, job: LeasedJob, **options: Unpack[RequestOptions]) -> Job:
        """Mark a leased job done.

        Returns:
            The Job, now `succeeded`.

        Raises:
            NotFoundError: the queue has no such job.
            ConflictError: the job's lease has ended or belongs to another worker
                (`lease_expired`); the job was acknowledged already, say.
        """
        return self._transport.send(self._calls.ack(job), options)

    @takes_request_options
    def ack_many(
        self, jobs: Iterable[LeasedJob], **options: Unpack[RequestOptions]
    ) -> builtins.list[JobAckResult]:
        """Mark many leased jobs done in one request (1 to 1,000 of this queue's).

        One that fails does not stop the others. Each acknowledgement is durable once this
        returns.

        Returns:
            One JobAckResult per job, in order: `acked`, or why not (`code` `lease_expired`
            when its lease ended or was already used, `job_not_found`).

        Raises:
            InvalidArgumentError: no jobs, or more than 1000, before any request.
            NotFoundError: the queue does not exist.
        """
        return self._transport.send(self._calls.ack_many(jobs), options)

    @takes_request_options
    def nack(
        self,
        job: LeasedJob,
        *,
        retry_delay: Duration = 0,
        error: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> Job:
        """Give a leased job back, ready again after `retry_delay`, recording `error`.

        The lease ends now. A job that has used all of its attempts moves to the dead letters
        instead. `error` is kept, cut to 2000 characters, as the job's `last_error`.

        Returns:
            The Job, now `delayed`, `ready` or `dead`.

        Raises:
            InvalidDurationError: `retry_delay` is malformed, not whole seconds or over 7 days.
            NotFoundError: the queue has no such job.
            ConflictError: the job's lease has ended or belongs to another worker
                (`lease_expired`).
        """
        return self._transport.send(
            self._calls.nack(job, retry_delay=retry_delay, error=error), options
        )

    @takes_request_options
    def release(self, job: LeasedJob, **options: Unpack[RequestOptions]) -> Job:
        """Give back a leased job that was never tried: ready again at once, attempt uncounted.

        The lease ends now. Unlike `nack`, the attempt does not count: the job's `attempts` go
        back by one, its `last_error` stays as it was, and a job on its last attempt does not
        move to the dead letters. For a job taken and then not run (a worker stopping, say);
        a job that ran and failed is nacked.

        Returns:
            The Job, now `ready`.

        Raises:
            NotFoundError: the queue has no such job.
            ConflictError: the job's lease has ended or belongs to another worker
                (`lease_expired`).
        """
        return self._transport.send(self._calls.release(job), options)

    @takes_request_options
    def release_many(
        self, jobs: Iterable[LeasedJob], **options: Unpack[RequestOptions]
    ) -> builtins.list[JobReleaseResult]:
        """Give back many leased jobs never tried in one request (1 to 1,000 of this queue's).

        Each is released as `release` would; one that fails does not stop the others.

        Returns:
            One JobReleaseResult per job, in order: `released`, or why not (`code`
            `lease_expired` when its lease ended or was already used, `job_not_found`).

        Raises:
            InvalidArgumentError: no jobs, or more than 1000, before any request.
            NotFoundError: the queue does not exist.
        """
        return self._transport.send(self._calls.release_many(jobs), options)

    @takes_request_options
    def extend(self, job: LeasedJob, *, lease: Duration, **options: Unpack[RequestOptions]) -> Job:
        """Extend a job's lease to `lease` from now.

        Returns:
            The Job, still leased, with its new `lease_expires_at`.

        Raises:
            InvalidDurationError: `lease` is not 1 s to 12 h in whole seconds.
            NotFoundError: the queue has no such job.
            ConflictError: the job's lease has ended or belongs to another worker
                (`lease_expired`).
        """
        return self._transport.send(self._calls.extend(job, lease=lease), options)


class AsyncQueue:
    """One existing queue of an `AsyncClient`, from `await aclient.init_queue(name)`.

    The methods are `Queue`'s, to be awaited (all but `publish_nowait` and `subscribe`).

    Every method that sends a request, `publish_nowait` aside, also takes the per-call
    `timeout=`, `max_retries=` and `extra_headers=` (`RequestOptions`), which apply to its
    requests alone; a bad one is a ConfigurationError, raised before anything is sent.

    Each method names its own errors below. An invalid argument raises InvalidArgumentError (or
    its subclasses InvalidTopicError and InvalidDurationError) before any request is sent. Any
    request may also fail with AuthenticationError (401), PermissionDeniedError (403: the token
    lacks `publish`, `consume` or `admin` on the queue, as the operation needs), NotFoundError
    (404) once the queue is deleted, and, once the client's retries are used up, RateLimitError
    (429), InternalServerError (5xx) or APIConnectionError (APITimeoutError among them);
    APIResponseValidationError when an answer cannot be read. The publishes raise each of these
    as a PublishError whose `__cause__` is the typed error.
    """

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

    @takes_request_options
    async def publish(
        self,
        topic: str,
        payload: Any,
        *,
        delay: Duration | None = None,
        deduplication_id: str | None = None,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> JobReceipt:
        """Submit a job; the receipt confirms acceptance, not execution.

        Returns:
            The job's JobReceipt. With a `deduplication_id` already used within the queue's
            deduplication window, no job is created: the receipt is the first job's, with
            `deduplicated` true.

        Raises:
            InvalidTopicError: `topic` does not match the topic pattern.
            ReservedTopicError: `topic` starts with the reserved `spool.` prefix.
            InvalidDurationError: `delay` is malformed, not whole seconds or over 7 days.
            InvalidArgumentError: `idempotency_key` is invalid.
            PublishError: the payload cannot be encoded, or the request failed; `__cause__` is
                the typed error, such as NotFoundError (the queue does not exist), ConflictError
                (`idempotency_key` reused for another request), PayloadTooLargeError (a request
                over 1 MiB), UnprocessableEntityError (a `deduplication_id` that is empty or
                over 255 characters) or QuotaExceededError (the token's quota is used up).
        """
        job = self._calls.checked_job(
            topic, payload, delay=delay, deduplication_id=deduplication_id
        )
        if self._batched is not None and idempotency_key is None and not options:
            return await self._batched.submit(self.name, job)
        return await self._transport.send(
            self._calls.publish_one(job, idempotency_key=idempotency_key), options
        )

    @suggests_keywords
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
            InvalidTopicError: `topic` does not match the topic pattern.
            ReservedTopicError: `topic` starts with the reserved `spool.` prefix.
            InvalidDurationError: `delay` is malformed, not whole seconds or over 7 days.
            PublishError: a custom codec cannot encode `payload`. These are raised at once,
                before anything is queued; the future gets every other failure.
        """
        job = self._calls.checked_job(
            topic, payload, delay=delay, deduplication_id=deduplication_id
        )
        return self._sender.submit(self.name, job)

    @takes_request_options
    async def publish_many(
        self,
        jobs: Iterable[JobRequest | tuple[str, Any]],
        *,
        idempotency_key: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[JobReceipt]:
        """Submit `JobRequest`s or `(topic, payload)` pairs in one request, all or none.

        Returns:
            One JobReceipt per job, in order; `[]`, sending nothing, for no jobs.

        Raises:
            TypeError: an item is neither a JobRequest nor a `(topic, payload)` pair.
            InvalidTopicError: a job's topic is invalid (ReservedTopicError: it is reserved).
            InvalidDurationError: a job's `delay` is malformed, not whole seconds or over 7 days.
            InvalidArgumentError: more than 1000 jobs, or an invalid `idempotency_key`.
            PublishError: as for `publish`; no job was accepted.
        """
        call = self._calls.publish_many(jobs, idempotency_key=idempotency_key)
        return [] if call is None else await self._transport.send(call, options)

    def subscribe(
        self,
        *topics: str,
        count: int | None = None,
        lease: Duration | None = None,
        retry_delay: Duration = 0,
    ) -> Callable[[HandlerT], HandlerT]:
        """Consume jobs of `topics` in `await aclient.run()`; handlers may be async or plain.

        Otherwise as `Queue.subscribe`.

        Returns:
            A decorator that records the handler for `aclient.run()` and returns it unchanged.

        Raises:
            InvalidTopicError: a topic does not match the topic pattern (wildcards included).
            InvalidArgumentError: more than 100 topics, or `count` is not an int from 1 to 1000.
            InvalidDurationError: `lease` is not 1 s to 12 h, or `retry_delay` is over 7 days
                (both in whole seconds).
            ConfigurationError: raised by the decorator, for a handler that is not callable.
        """
        return queue_subscription(
            self.name,
            topics,
            count=count,
            lease=lease,
            retry_delay=retry_delay,
            subscriptions=self._subscriptions,
            asynchronous=True,
        )

    @takes_request_options
    async def info(self, **options: Unpack[RequestOptions]) -> QueueInfo:
        """The queue's settings and job counts.

        Returns:
            The QueueInfo; its `stats` count the jobs in each unfinished state.

        Raises:
            NotFoundError: the queue no longer exists.
        """
        return await self._transport.send(self._calls.info(), options)

    @takes_request_options
    async def jobs(
        self, *, state: JobState | None = None, limit: int = 100, **options: Unpack[RequestOptions]
    ) -> builtins.list[Job]:
        """The queue's jobs in `state` (dead jobs, for instance; every state when None).

        Returns:
            Up to `limit` Job, oldest first.

        Raises:
            InvalidArgumentError: `limit` is not an int from 1 to 1000.
            UnprocessableEntityError: `state` is not a JobState.
        """
        return await self._transport.send(self._calls.jobs(state=state, limit=limit), options)

    @takes_request_options
    async def job(self, job_id: str, **options: Unpack[RequestOptions]) -> Job:
        """One job's state, attempts and last error.

        Returns:
            The Job.

        Raises:
            BadRequestError: `job_id` is not a job id (`job_...`).
            NotFoundError: the queue has no such job.
        """
        return await self._transport.send(self._calls.job(job_id), options)

    @takes_request_options
    async def retry(self, job_id: str, **options: Unpack[RequestOptions]) -> Job:
        """Make a dead job ready again with fresh attempts.

        Returns:
            The Job, now `ready` with no attempts used.

        Raises:
            BadRequestError: `job_id` is not a job id (`job_...`).
            NotFoundError: the queue has no such job.
            ConflictError: the job is not dead (`invalid_state`).
        """
        return await self._transport.send(self._calls.retry(job_id), options)

    @takes_request_options
    async def delete_job(self, job_id: str, **options: Unpack[RequestOptions]) -> None:
        """Delete a dead job now, instead of at the end of the queue's retention.

        A deduplication id it had still counts until its window ends.

        Raises:
            BadRequestError: `job_id` is not a job id (`job_...`).
            NotFoundError: the queue has no such job.
            ConflictError: the job is not dead (`invalid_state`).
        """
        await self._transport.send(self._calls.delete_job(job_id), options)

    @takes_request_options
    async def lease(
        self,
        *,
        consumer: str,
        topics: Iterable[str] = (),
        max_jobs: int = 1,
        lease: Duration | None = None,
        wait: Duration = 0,
        **options: Unpack[RequestOptions],
    ) -> builtins.list[LeasedJob]:
        """Lease ready jobs by hand (what `run()` does for subscriptions); ack or nack each.

        Up to `max_jobs` ready jobs of `topics` (all topics when empty), oldest first, each
        leased to `consumer` for `lease` (default: the queue's) and counted as an attempt. With
        `wait`, the call waits that long for a job to appear.

        Returns:
            A list of LeasedJob; empty when none was ready within `wait`.

        Raises:
            InvalidNameError: `consumer` is not a valid consumer name.
            InvalidTopicError: a topic does not match the topic pattern.
            InvalidArgumentError: more than 100 topics, or `max_jobs` is not an int from 1 to
                1000.
            InvalidDurationError: `lease` is not 1 s to 12 h in whole seconds, or `wait` is not
                whole milliseconds up to 30 s.
        """
        return await self._transport.send(
            self._calls.lease(
                consumer=consumer, topics=topics, max_jobs=max_jobs, lease=lease, wait=wait
            ),
            options,
        )

    @takes_request_options
    async def ack(self, job: LeasedJob, **options: Unpack[RequestOptions]) -> Job:
        """Mark a leased job done.

        Returns:
            The Job, now `succeeded`.

        Raises:
            NotFoundError: the queue has no such job.
            ConflictError: the job's lease has ended or belongs to another worker
                (`lease_expired`); the job was acknowledged already, say.
        """
        return await self._transport.send(self._calls.ack(job), options)

    @takes_request_options
    async def ack_many(
        self, jobs: Iterable[LeasedJob], **options: Unpack[RequestOptions]
    ) -> builtins.list[JobAckResult]:
        """Mark many leased jobs done in one request; see `Queue.ack_many`.

        Returns:
            One JobAckResult per job, in order: `acked`, or why not (`code` `lease_expired`
            when its lease ended or was already used, `job_not_found`).

        Raises:
            InvalidArgumentError: no jobs, or more than 1000, before any request.
            NotFoundError: the queue does not exist.
        """
        return await self._transport.send(self._calls.ack_many(jobs), options)

    @takes_request_options
    async def nack(
        self,
        job: LeasedJob,
        *,
        retry_delay: Duration = 0,
        error: str | None = None,
        **options: Unpack[RequestOptions],
    ) -> Job:
        """Give a leased job back, ready again after `retry_delay`, recording `error`.

        The lease ends now. A job that has used all of its attempts moves to the dead letters
        instead. `error` is kept, cut to 2000 characters, as the job's `last_error`.

        Returns:
            The Job, now `delayed`, `ready` or `dead`.

        Raises:
            InvalidDurationError: `retry_delay` is malformed, not whole seconds or over 7 days.
            NotFoundError: the queue has no such job.
            ConflictError: the job's lease has ended or belongs to another worker
                (`lease_expired`).
        """
        return await self._transport.send(
            self._calls.nack(job, retry_delay=retry_delay, error=error), options
        )

    @takes_request_options
    async def release(self, job: LeasedJob, **options: Unpack[RequestOptions]) -> Job:
        """Give back a leased job that was never tried; see `Queue.release`.

        Returns:
            The Job, now `ready`.

        Raises:
            NotFoundError: the queue has no such job.
            ConflictError: the job's lease has ended or belongs to another worker
                (`lease_expired`).
        """
        return await self._transport.send(self._calls.release(job), options)

    @takes_request_options
    async def release_many(
        self, jobs: Iterable[LeasedJob], **options: Unpack[RequestOptions]
    ) -> builtins.list[JobReleaseResult]:
        """Give back many leased jobs never tried in one request; see `Queue.release_many`.

        Returns:
            One JobReleaseResult per job, in order: `released`, or why not (`code`
            `lease_expired` when its lease ended or was already used, `job_not_found`).

        Raises:
            InvalidArgumentError: no jobs, or more than 1000, before any request.
            NotFoundError: the queue does not exist.
        """
        return await self._transport.send(self._calls.release_many(jobs), options)

    @takes_request_options
    async def extend(
        self, job: LeasedJob, *, lease: Duration, **options: Unpack[RequestOptions]
    ) -> Job:
        """Extend a job's lease to `lease` from now.

        Returns:
            The Job, still leased, with its new `lease_expires_at`.

        Raises:
            InvalidDurationError: `lease` is not 1 s to 12 h in whole seconds.
            NotFoundError: the queue has no such job.
            ConflictError: the job's lease has ended or belongs to another worker
                (`lease_expired`).
        """
        return await self._transport.send(self._calls.extend(job, lease=lease), options)
