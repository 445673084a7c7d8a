"""Queue calls, built once for `Queues`/`AsyncQueues` and `Queue`/`AsyncQueue`: every operation's
request plan (a `Call`) and how its answer is read, the subscription decorator, and the batching of
single job publishes. The resource classes only send what is built here.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from . import _endpoints
from ._arguments import JobRequest, JobState
from ._batching import (
    AsyncBackgroundBatcher,
    AsyncCoalescer,
    BackgroundBatcher,
    Batching,
    SyncCoalescer,
)
from ._checks import check_count, check_group_name, check_resource_name, check_topic
from ._codec import Codec, encode_body
from ._durations import Duration, to_millis, to_seconds
from ._exceptions import InvalidArgumentError
from ._http import (
    AsyncTransport,
    Call,
    SyncTransport,
    make_call,
    make_publish_call,
    optional,
    resolve_idempotency_key,
)
from ._limits import (
    BATCH_MAX,
    COUNT_MAX,
    DEDUPLICATION_WINDOW_MAX_SECONDS,
    DELAY_MAX_SECONDS,
    LEASE_SECONDS_MAX,
    LEASE_TOPICS_MAX,
    MAX_ATTEMPTS_MAX,
    NACK_ERROR_MAX_LENGTH,
    RETENTION_SECONDS_MAX,
    RETENTION_SECONDS_MIN,
    WAIT_MS_MAX,
)
from ._subscriptions import QueueSubscription, Subscription, check_handler

if TYPE_CHECKING:
    from generated.models import (
        AckJobsResult,
        Job as GeneratedJob,
        JobLease,
        JobReceipt as GeneratedJobReceipt,
        LeasedJob as GeneratedLeasedJob,
        PublishJobRequest,
        Queue as GeneratedQueue,
        ReleaseJobsResult,
    )

    from ._types import Job, JobAckResult, JobReceipt, JobReleaseResult, LeasedJob, QueueInfo

__all__ = [
    "QueueAdminCalls",
    "QueueCalls",
    "async_job_batcher",
    "async_job_sender",
    "job_batcher",
    "job_sender",
    "queue_subscription",
]

HandlerT = TypeVar("HandlerT", bound=Callable[..., Any])


class QueueAdminCalls:
    """Builds the calls on queues as resources; shared by `Queues` and `AsyncQueues`."""

    @staticmethod
    def create(
        name: str,
        *,
        max_attempts: int | None,
        lease: Duration | None,
        retention: Duration | None,
        deduplication_window: Duration | None,
    ) -> Call[QueueInfo]:
        """One putQueue call of the settings given; the service gives the others its defaults.

        Returns:
            The call, read as the queue's QueueInfo.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
            InvalidArgumentError: `max_attempts` is not an int from 1 to 100.
            InvalidDurationError: `lease`, `retention` or `deduplication_window` is malformed,
                not whole seconds or out of its range.
        """
        # Only what the caller gives is sent: the service, not the generated model, owns the
        # defaults.
        from generated.models import QueueSettings
        from generated.types import UNSET

        settings = QueueSettings(
            max_attempts=UNSET
            if max_attempts is None
            else check_count(
                max_attempts, name="max_attempts", minimum=1, maximum=MAX_ATTEMPTS_MAX
            ),
            lease_seconds=UNSET
            if lease is None
            else to_seconds(lease, name="lease", minimum=1, maximum=LEASE_SECONDS_MAX),
            retention_seconds=UNSET
            if retention is None
            else to_seconds(
                retention,
                name="retention",
                minimum=RETENTION_SECONDS_MIN,
                maximum=RETENTION_SECONDS_MAX,
            ),
            deduplication_window_seconds=UNSET
            if deduplication_window is None
            else to_seconds(
                deduplication_window,
                name="deduplication_window",
                minimum=0,
                maximum=DEDUPLICATION_WINDOW_MAX_SECONDS,
            ),
        )
        return make_call(_endpoints.put_queue, _queue_info, _queue_name(name), body=settings)

    @staticmethod
    def get(name: str) -> Call[QueueInfo]:
        """One getQueue call.

        Returns:
            The call, read as the queue's QueueInfo.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
        """
        return make_call(_endpoints.get_queue, _queue_info, _queue_name(name))

    @staticmethod
    def list() -> Call[builtins.list[QueueInfo]]:
        """One listQueues call.

        Returns:
            The call, read as a list of QueueInfo.
        """
        return make_call(
            _endpoints.list_queues,
            lambda result: [_queue_info(queue) for queue in result.queues],
        )

    @staticmethod
    def delete(name: str) -> Call[None]:
        """One deleteQueue call.

        Returns:
            The call, read as None.

        Raises:
            InvalidNameError: `name` is not a valid queue name.
        """
        return make_call(_endpoints.delete_queue, lambda _: None, _queue_name(name))


class QueueCalls:
    """Builds the calls on one queue's jobs; shared by `Queue` and `AsyncQueue`."""

    def __init__(self, name: str, codec: Codec) -> None:
        self.name = name
        self.codec = codec

    def publish_many(
        self, jobs: Iterable[JobRequest | tuple[str, Any]], *, idempotency_key: str | None
    ) -> Call[builtins.list[JobReceipt]] | None:
        """One publishJobs of every job, or None when there is none.

        Returns:
            The call, read as one JobReceipt per job in order; None for no jobs.

        Raises:
            TypeError: an item is neither a JobRequest nor a `(topic, payload)` pair.
            InvalidTopicError: a job's topic is invalid (ReservedTopicError: it is reserved).
            InvalidDurationError: a job's `delay` is malformed, not whole seconds or over 7 days.
            InvalidArgumentError: more than 1000 jobs, or an invalid `idempotency_key`.
            PublishError: a payload cannot be encoded.
        """
        key = resolve_idempotency_key(idempotency_key)
        items = [job if isinstance(job, JobRequest) else JobRequest(*job) for job in jobs]
        if not items:
            return None
        check_count(len(items), name="number of jobs", minimum=1, maximum=BATCH_MAX)
        return self.publish_batch([self._job(item) for item in items], idempotency_key=key)

    def checked_job(
        self, topic: str, payload: Any, *, delay: Duration | None, deduplication_id: str | None
    ) -> PublishJobRequest:
        """A single publish checked and encoded now, ready to join a batch to this queue.

        Returns:
            The job as the generated request model.

        Raises:
            InvalidTopicError: `topic` is invalid (ReservedTopicError: it is reserved).
            InvalidDurationError: `delay` is malformed, not whole seconds or over 7 days.
            PublishError: a custom codec cannot encode `payload`.
        """
        return self._job(JobRequest(topic, payload, delay=delay, deduplication_id=deduplication_id))

    def publish_batch(
        self, jobs: builtins.list[PublishJobRequest], *, idempotency_key: str | None = None
    ) -> Call[builtins.list[JobReceipt]]:
        """One publishJobs of checked jobs, under `idempotency_key` or a fresh one.

        Returns:
            The call, read as one JobReceipt per job in order; sending it raises every failure
            as a PublishError.

        Raises:
            InvalidArgumentError: `idempotency_key` is invalid.
            PublishError: the document cannot be encoded (a NaN or a circular reference in a
                JsonCodec payload, say).
        """
        from generated.models import PublishJobsRequest

        return make_publish_call(
            _endpoints.publish_jobs,
            lambda result: [_receipt(receipt) for receipt in result.receipts],
            self.name,
            self.codec,
            self.name,
            body=PublishJobsRequest(jobs=jobs),
            idempotency_key=resolve_idempotency_key(idempotency_key),
        )

    def publish_one(
        self, job: PublishJobRequest, *, idempotency_key: str | None = None
    ) -> Call[JobReceipt]:
        """One publishJob of a checked job, under `idempotency_key` or a fresh one.

        Returns:
            The call, read as the job's JobReceipt; sending it raises every failure as a
            PublishError.

        Raises:
            InvalidArgumentError: `idempotency_key` is invalid.
            PublishError: the document cannot be encoded (a NaN or a circular reference in a
                JsonCodec payload, say).
        """
        return make_publish_call(
            _endpoints.publish_job,
            _receipt,
            f"{self.name}/{job.topic}",
            self.codec,
            self.name,
            body=job,
            idempotency_key=resolve_idempotency_key(idempotency_key),
        )

    def _job(self, job: JobRequest) -> PublishJobRequest:
        from generated.models import PublishJobRequest
        from generated.types import UNSET

        topic = check_topic(job.topic, publishing=True)
        delay = (
            UNSET
            if job.delay is None
            else to_seconds(job.delay, name="delay", minimum=0, maximum=DELAY_MAX_SECONDS)
        )
        return PublishJobRequest(
            topic=topic,
            payload=encode_body(self.codec, job.payload, target=f"{self.name}/{topic}"),
            delay=delay,
            deduplication_id=UNSET if job.deduplication_id is None else job.deduplication_id,
        )

    def info(self) -> Call[QueueInfo]:
        """One getQueue call of this queue.

        Returns:
            The call, read as the queue's QueueInfo.
        """
        return make_call(_endpoints.get_queue, _queue_info, self.name)

    def jobs(self, *, state: JobState | None, limit: int) -> Call[builtins.list[Job]]:
        """One listJobs call, of every state when `state` is None.

        Returns:
            The call, read as a list of Job, payloads decoded by the codec.

        Raises:
            InvalidArgumentError: `limit` is not an int from 1 to 1000.
        """
        from generated.types import UNSET

        return make_call(
            _endpoints.list_jobs,
            lambda result: [self._job_info(job) for job in result.jobs],
            self.name,
            state=UNSET if state is None else state,
            limit=check_count(limit, name="limit", minimum=1, maximum=COUNT_MAX),
        )

    def job(self, job_id: str) -> Call[Job]:
        """One getJob call; `job_id` is left to the service to check.

        Returns:
            The call, read as the Job.
        """
        return make_call(_endpoints.get_job, self._job_info, self.name, job_id)

    def retry(self, job_id: str) -> Call[Job]:
        """One retryJob call.

        Returns:
            The call, read as the Job.
        """
        return make_call(_endpoints.retry_job, self._job_info, self.name, job_id)

    def delete_job(self, job_id: str) -> Call[None]:
        """One deleteJob call.

        Returns:
            The call, read as None.
        """
        return make_call(_endpoints.delete_job, lambda _: None, self.name, job_id)

    def lease(
        self,
        *,
        consumer: str,
        topics: Iterable[str],
        max_jobs: int,
        lease: Duration | None,
        wait: Duration,
    ) -> Call[builtins.list[LeasedJob]]:
        """One leaseJobs call.

        Returns:
            The call, read as a list of LeasedJob, payloads decoded by the codec.

        Raises:
            InvalidNameError: `consumer` is not a valid consumer name.
            InvalidTopicError: a topic does not match the topic pattern.
            InvalidArgumentError: more than 100 topics, or `max_jobs` is not an int from 1 to
                1000.
            InvalidDurationError: `lease` is not 1 s to 12 h in whole seconds, or `wait` is not
                whole milliseconds up to 30 s.
        """
        from generated.models import LeaseRequest
        from generated.types import UNSET

        topic_list = [check_topic(topic, publishing=False) for topic in topics]
        if len(topic_list) > LEASE_TOPICS_MAX:
            raise InvalidArgumentError(
                f"at most {LEASE_TOPICS_MAX} topics can be leased at once, got {len(topic_list)}"
            )
        request = LeaseRequest(
            consumer=check_group_name(consumer, what="consumer"),
            topics=topic_list or UNSET,
            max_jobs=check_count(max_jobs, name="max_jobs", minimum=1, maximum=COUNT_MAX),
            lease_seconds=UNSET
            if lease is None
            else to_seconds(lease, name="lease", minimum=1, maximum=LEASE_SECONDS_MAX),
            wait_ms=to_millis(wait, name="wait", minimum=0, maximum=WAIT_MS_MAX),
        )
        return make_call(
            _endpoints.lease_jobs,
            lambda result: [self._leased(job) for job in result.jobs],
            self.name,
            body=request,
        )

    def ack(self, job: LeasedJob) -> Call[Job]:
        """One ackJob call under the job's lease.

        Returns:
            The call, read as the Job.
        """
        from generated.models import LeaseRef

        return make_call(
            _endpoints.ack_job,
            self._job_info,
            self.name,
            job.job_id,
            body=LeaseRef(lease_id=job.lease_id),
        )

    def ack_many(self, jobs: Iterable[LeasedJob]) -> Call[builtins.list[JobAckResult]]:
        """One ackJobs call of every job's lease.

        Returns:
            The call, read as one JobAckResult per job, in order.

        Raises:
            InvalidArgumentError: no jobs, or more than 1000.
        """
        from generated.models import AckJobsRequest

        leases = _job_leases(jobs, "ack_many")
        return make_call(
            _endpoints.ack_jobs, _ack_results, self.name, body=AckJobsRequest(jobs=leases)
        )

    def nack(self, job: LeasedJob, *, retry_delay: Duration, error: str | None) -> Call[Job]:
        """One nackJob call under the job's lease; `error` is cut to what the service keeps.

        Returns:
            The call, read as the Job.

        Raises:
            InvalidDurationError: `retry_delay` is malformed, not whole seconds or over 7 days.
        """
        from generated.models import NackRequest
        from generated.types import UNSET

        request = NackRequest(
            lease_id=job.lease_id,
            retry_delay=to_seconds(
                retry_delay, name="retry_delay", minimum=0, maximum=DELAY_MAX_SECONDS
            ),
            error=UNSET if error is None else error[:NACK_ERROR_MAX_LENGTH],
        )
        return make_call(_endpoints.nack_job, self._job_info, self.name, job.job_id, body=request)

    def release(self, job: LeasedJob) -> Call[Job]:
        """One releaseJob call under the job's lease.

        Returns:
            The call, read as the Job.
        """
        from generated.models import LeaseRef

        return make_call(
            _endpoints.release_job,
            self._job_info,
            self.name,
            job.job_id,
            body=LeaseRef(lease_id=job.lease_id),
        )

    def release_many(self, jobs: Iterable[LeasedJob]) -> Call[builtins.list[JobReleaseResult]]:
        """One releaseJobs call of every job's lease.

        Returns:
            The call, read as one JobReleaseResult per job, in order.

        Raises:
            InvalidArgumentError: no jobs, or more than 1000.
        """
        from generated.models import ReleaseJobsRequest

        leases = _job_leases(jobs, "release_many")
        return make_call(
            _endpoints.release_jobs,
            _release_results,
            self.name,
            body=ReleaseJobsRequest(jobs=leases),
        )

    def extend(self, job: LeasedJob, *, lease: Duration) -> Call[Job]:
        """One extendLease call under the job's lease.

        Returns:
            The call, read as the Job.

        Raises:
            InvalidDurationError: `lease` is not 1 s to 12 h in whole seconds.
        """
        from generated.models import ExtendLeaseRequest

        request = ExtendLeaseRequest(
            lease_id=job.lease_id,
            lease_seconds=to_seconds(lease, name="lease", minimum=1, maximum=LEASE_SECONDS_MAX),
        )
        return make_call(
            _endpoints.extend_lease, self._job_info, self.name, job.job_id, body=request
        )

    def _job_info(self, job: GeneratedJob) -> Job:
        from ._types import Job, JobAttempt

        return Job(
            job_id=job.job_id,
            queue=job.queue,
            topic=job.topic,
            payload=self.codec.decode(job.payload),
            state=job.state,
            attempts=job.attempts,
            max_attempts=job.max_attempts,
            published_at=job.published_at,
            available_at=job.available_at,
            lease_expires_at=optional(job.lease_expires_at),
            leased_by=optional(job.leased_by),
            last_error=optional(job.last_error),
            deduplication_id=optional(job.deduplication_id),
            traceparent=optional(job.traceparent),
            leased_at=optional(job.leased_at),
            finished_at=optional(job.finished_at),
            attempt_history=tuple(
                JobAttempt(
                    number=attempt.number,
                    leased_at=attempt.leased_at,
                    ended_at=optional(attempt.ended_at),
                    outcome=optional(attempt.outcome),
                    error=optional(attempt.error),
                    consumer=optional(attempt.consumer),
                )
                for attempt in optional(job.attempt_history) or ()
            ),
        )

    def _leased(self, job: GeneratedLeasedJob) -> LeasedJob:
        from ._types import LeasedJob

        return LeasedJob(
            job_id=job.job_id,
            queue=job.queue,
            topic=job.topic,
            payload=self.codec.decode(job.payload),
            attempt=job.attempt,
            lease_id=job.lease_id,
            lease_expires_at=job.lease_expires_at,
            published_at=job.published_at,
            traceparent=optional(job.traceparent),
        )


def _job_leases(jobs: Iterable[LeasedJob], method: str) -> builtins.list[JobLease]:
    """Each job's lease for a batch call, 1 to BATCH_MAX of them.

    Raises:
        InvalidArgumentError: no jobs, or more than BATCH_MAX.
    """
    from generated.models import JobLease

    leases = [JobLease(job_id=job.job_id, lease_id=job.lease_id) for job in jobs]
    if not 1 <= len(leases) <= BATCH_MAX:
        raise InvalidArgumentError(f"{method} takes 1 to {BATCH_MAX} jobs, got {len(leases)}")
    return leases


def _ack_results(result: AckJobsResult) -> builtins.list[JobAckResult]:
    from ._types import JobAckResult

    return [
        JobAckResult(job_id=item.job_id, acked=item.acked, code=optional(item.code))
        for item in result.results
    ]


def _release_results(result: ReleaseJobsResult) -> builtins.list[JobReleaseResult]:
    from ._types import JobReleaseResult

    return [
        JobReleaseResult(job_id=item.job_id, released=item.released, code=optional(item.code))
        for item in result.results
    ]


def queue_subscription(
    name: str,
    topics: tuple[str, ...],
    *,
    count: int | None,
    lease: Duration | None,
    retry_delay: Duration,
    subscriptions: builtins.list[Subscription],
    asynchronous: bool,
) -> Callable[[HandlerT], HandlerT]:
    """The decorator `Queue.subscribe` returns: it records the handler and returns it unchanged.

    Returns:
        The decorator, which appends a QueueSubscription to `subscriptions`.

    Raises:
        InvalidTopicError: a topic does not match the topic pattern.
        InvalidArgumentError: more than 100 topics, or `count` is not an int from 1 to 1000.
        InvalidDurationError: `lease` is not 1 s to 12 h, or `retry_delay` is over 7 days (both
            in whole seconds).
        ConfigurationError: raised by the decorator, for a handler that is not callable, or an
            `async def` when not `asynchronous`.
    """
    checked_topics = tuple(check_topic(topic, publishing=False) for topic in topics)
    if len(checked_topics) > LEASE_TOPICS_MAX:
        raise InvalidArgumentError(f"at most {LEASE_TOPICS_MAX} topics per subscription")
    if count is not None:
        check_count(count, name="count", minimum=1, maximum=COUNT_MAX)
    lease_seconds = (
        None
        if lease is None
        else to_seconds(lease, name="lease", minimum=1, maximum=LEASE_SECONDS_MAX)
    )
    retry_delay_seconds = to_seconds(
        retry_delay, name="retry_delay", minimum=0, maximum=DELAY_MAX_SECONDS
    )

    def register(handler: HandlerT) -> HandlerT:
        check_handler(handler, asynchronous=asynchronous)
        subscriptions.append(
            QueueSubscription(
                queue=name,
                topics=checked_topics,
                handler=handler,
                count=count,
                lease_seconds=lease_seconds,
                retry_delay_seconds=retry_delay_seconds,
            )
        )
        return handler

    return register


def _queue_name(name: str) -> str:
    return check_resource_name(name, what="queue")


def _queue_info(queue: GeneratedQueue) -> QueueInfo:
    from ._types import QueueInfo, QueueStats

    return QueueInfo(
        name=queue.name,
        max_attempts=queue.max_attempts,
        lease=timedelta(seconds=queue.lease_seconds),
        retention=timedelta(seconds=queue.retention_seconds),
        deduplication_window=timedelta(seconds=queue.deduplication_window_seconds),
        created_at=queue.created_at,
        stats=QueueStats(
            ready=queue.stats.ready,
            delayed=queue.stats.delayed,
            leased=queue.stats.leased,
            dead=queue.stats.dead,
        ),
    )


def _receipt(receipt: GeneratedJobReceipt) -> JobReceipt:
    from ._types import JobReceipt

    return JobReceipt(
        job_id=receipt.job_id,
        queue=receipt.queue,
        topic=receipt.topic,
        deduplicated=receipt.deduplicated,
    )


def _job_check(codec: Codec) -> Callable[[str, PublishJobRequest], None]:
    """What raises, for a job to a queue by name, what publishing it alone would raise before
    sending (it cannot be encoded).
    """

    def check(name: str, job: PublishJobRequest) -> None:
        QueueCalls(name, codec).publish_one(job)

    return check


class _JobSends:
    """How a client's batchers send jobs to a queue by name: many at once, or one alone."""

    def __init__(self, transport: SyncTransport, codec: Codec) -> None:
        self._transport = transport
        self._codec = codec

    def batch(self, name: str, jobs: builtins.list[PublishJobRequest]) -> builtins.list[JobReceipt]:
        return self._transport.send(QueueCalls(name, self._codec).publish_batch(jobs))

    def one(self, name: str, job: PublishJobRequest) -> JobReceipt:
        return self._transport.send(QueueCalls(name, self._codec).publish_one(job))


class _AsyncJobSends:
    """`_JobSends` for an `AsyncClient`."""

    def __init__(self, transport: AsyncTransport, codec: Codec) -> None:
        self._transport = transport
        self._codec = codec

    async def batch(
        self, name: str, jobs: builtins.list[PublishJobRequest]
    ) -> builtins.list[JobReceipt]:
        return await self._transport.send(QueueCalls(name, self._codec).publish_batch(jobs))

    async def one(self, name: str, job: PublishJobRequest) -> JobReceipt:
        return await self._transport.send(QueueCalls(name, self._codec).publish_one(job))


def job_batcher(
    transport: SyncTransport, codec: Codec, batching: Batching
) -> SyncCoalescer[str, PublishJobRequest, JobReceipt]:
    """A `Client`'s batching of single job publishes, by queue name.

    Returns:
        A SyncCoalescer that sends each queue's batch as one publishJobs.
    """
    sends = _JobSends(transport, codec)
    return SyncCoalescer(
        batching, send_batch=sends.batch, send_one=sends.one, check_one=_job_check(codec)
    )


def job_sender(
    transport: SyncTransport, codec: Codec
) -> BackgroundBatcher[str, PublishJobRequest, JobReceipt]:
    """A `Client`'s background sender of `publish_nowait` jobs, by queue name.

    Returns:
        A BackgroundBatcher that sends each queue's jobs as one publishJobs.
    """
    sends = _JobSends(transport, codec)
    return BackgroundBatcher(
        send_batch=sends.batch, send_one=sends.one, check_one=_job_check(codec)
    )


def async_job_sender(
    transport: AsyncTransport, codec: Codec
) -> AsyncBackgroundBatcher[str, PublishJobRequest, JobReceipt]:
    """An `AsyncClient`'s background sender of `publish_nowait` jobs, by queue name.

    Returns:
        An AsyncBackgroundBatcher that sends each queue's jobs as one publishJobs.
    """
    sends = _AsyncJobSends(transport, codec)
    return AsyncBackgroundBatcher(
        send_batch=sends.batch, send_one=sends.one, check_one=_job_check(codec)
    )


def async_job_batcher(
    transport: AsyncTransport, codec: Codec, batching: Batching
) -> AsyncCoalescer[str, PublishJobRequest, JobReceipt]:
    """An `AsyncClient`'s batching of single job publishes, by queue name.

    Returns:
        An AsyncCoalescer that sends each queue's batch as one publishJobs.
    """
    sends = _AsyncJobSends(transport, codec)
    return AsyncCoalescer(
        batching, send_batch=sends.batch, send_one=sends.one, check_one=_job_check(codec)
    )
