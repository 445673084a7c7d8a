"""Where `run()` takes messages from and how it settles them, per subscription: a queue's jobs
through leases, a stream's entries through its consumer group.

A source fetches up to a count of messages (waiting up to a long poll for the first), tells what
acknowledges a handled one (`ack_target` and `ack_item`, sent in batches by sdk/_worker_acks.py),
gives back one whose handler failed (a queue nacks it with the subscription's retry delay; a
stream leaves it pending, to be claimed again once idle for `redeliver_after`) and releases one
taken but never handled when the run stops (a queue releases it: ready again at once, its attempt
not counted, so a job on its last attempt is not made dead by a stop; a stream leaves it
pending).

Streams: the group is created (with the stream) on the first fetch if missing. A fetch first
scans the pending list for entries idle long enough when a scan is due: a pending entry trimmed
away meanwhile comes back from the claim as deleted and is no longer pending, so there is nothing
left to do; nor is one that used up the group's `max_deliveries`, which the claim moved to the
stream's dead-letter stream instead.

With OpenTelemetry in use, `fetch` and `afetch` run a fetch in its receive span, and a job given
back runs in its nack or release span (sdk/_otel.py names them all and their parents).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from ._exceptions import ConflictError
from ._limits import BATCH_MAX
from ._subscriptions import QueueSubscription, StreamSubscription, Subscription
from ._tracing import consume_tracing, nacking, releasing
from ._worker_handlers import describe, error_text, log_failure
from ._worker_run import Pace, StreamState

if TYPE_CHECKING:
    from opentelemetry.trace import SpanContext

    from ._otel import ConsumeTracing
    from ._queues import AsyncQueue, Queue
    from ._streams import AsyncStreams, Streams
    from ._types import DeliveredEntry, JobAckResult, LeasedJob

__all__ = [
    "AsyncQueueSource",
    "AsyncSource",
    "AsyncStreamSource",
    "Delivery",
    "QueueSource",
    "Source",
    "StreamSource",
    "afetch",
    "fetch",
    "log_unacked",
    "unhandled",
]

logger = logging.getLogger("spool")


@dataclass(frozen=True, slots=True)
class Delivery:
    """One message taken for a handler: a leased job or a delivered entry."""

    subscription: Subscription
    message_id: str
    body: Any
    traceparent: str | None
    message: LeasedJob | DeliveredEntry
    # The span of the fetch that brought it, when traced: its process span links to it.
    fetched_in: SpanContext | None = None


def _jobs(sub: QueueSubscription, jobs: list[LeasedJob]) -> list[Delivery]:
    return [Delivery(sub, job.job_id, job.payload, job.traceparent, job) for job in jobs]


def _leased(deliveries: list[Delivery]) -> list[LeasedJob]:
    return [delivery.message for delivery in deliveries]  # type: ignore[misc]


def _entries(sub: StreamSubscription, entries: list[DeliveredEntry]) -> list[Delivery]:
    return [Delivery(sub, entry.id, entry.body, entry.traceparent, entry) for entry in entries]


def _lease_ended(sub: QueueSubscription, job_id: str, error: ConflictError) -> None:
    """A lease that ended before the nack is not fatal: the job comes back by itself."""
    if error.code != "lease_expired":
        raise error
    logger.warning(
        "the lease on job %s of %s ended before the handler finished; "
        "it will be delivered again (consider a longer lease)",
        job_id,
        describe(sub),
    )


def log_unacked(sub: Subscription, results: list[JobAckResult]) -> None:
    """Warn of each job a batched ack did not acknowledge: it will be delivered again."""
    for result in results:
        if not result.acked:
            logger.warning(
                "job %s of %s was not acknowledged (%s); it will be delivered again "
                "(consider a longer lease)",
                result.job_id,
                describe(sub),
                result.code,
            )


class _QueueSourceBase:
    def __init__(self, sub: QueueSubscription, consumer: str) -> None:
        self.subscription = sub
        self._consumer = consumer
        self.ack_target = ("queue", sub.queue)
        self.pace = Pace(budget_seconds=sub.lease_seconds)
        self.tracing: ConsumeTracing | None = consume_tracing()

    @property
    def _needs_lease(self) -> bool:
        """Whether the queue's own lease must be read first: the pace is measured against it."""
        return self.subscription.count is None and self.pace.budget_seconds is None

    @staticmethod
    def ack_item(delivery: Delivery) -> Any:
        return delivery.message

    def _lease_arguments(self, count: int, wait_ms: int) -> dict[str, Any]:
        return {
            "consumer": self._consumer,
            "topics": self.subscription.topics,
            "max_jobs": count,
            "lease": self.subscription.lease_seconds,
            "wait": timedelta(milliseconds=wait_ms),
        }


class QueueSource(_QueueSourceBase):
    """A queue subscription of a `Client`."""

    def __init__(self, sub: QueueSubscription, consumer: str, queue: Queue) -> None:
        super().__init__(sub, consumer)
        self.queue = queue

    def fetch(self, count: int, wait_ms: int) -> list[Delivery]:
        """Lease up to `count` jobs, waiting up to `wait_ms` for the first."""
        if self._needs_lease:
            self.pace.budget_seconds = self.queue.info().lease.total_seconds()
        return _jobs(self.subscription, self.queue.lease(**self._lease_arguments(count, wait_ms)))

    def failed(self, delivery: Delivery, error: Exception) -> None:
        """Nack the job its handler failed, to be retried after the retry delay."""
        job: LeasedJob = delivery.message  # type: ignore[assignment]
        sub = self.subscription
        log_failure(sub, f"job {job.job_id} (attempt {job.attempt})", error)
        try:
            with nacking(self.tracing, sub, delivery):
                self.queue.nack(job, retry_delay=sub.retry_delay_seconds, error=error_text(error))
        except ConflictError as conflict:
            _lease_ended(sub, job.job_id, conflict)

    def release(self, deliveries: list[Delivery]) -> None:
        """Give back jobs leased but not handled (up to 1,000): ready again at once, their
        attempts uncounted. One whose lease ended already is ready for others as it is.
        """
        with releasing(self.tracing, self.subscription, deliveries):
            self.queue.release_many(_leased(deliveries))


class AsyncQueueSource(_QueueSourceBase):
    """A queue subscription of an `AsyncClient`."""

    def __init__(self, sub: QueueSubscription, consumer: str, queue: AsyncQueue) -> None:
        super().__init__(sub, consumer)
        self.queue = queue

    async def fetch(self, count: int, wait_ms: int) -> list[Delivery]:
        """`QueueSource.fetch`, awaited."""
        if self._needs_lease:
            self.pace.budget_seconds = (await self.queue.info()).lease.total_seconds()
        jobs = await self.queue.lease(**self._lease_arguments(count, wait_ms))
        return _jobs(self.subscription, jobs)

    async def failed(self, delivery: Delivery, error: Exception) -> None:
        """`QueueSource.failed`, awaited."""
        job: LeasedJob = delivery.message  # type: ignore[assignment]
        sub = self.subscription
        log_failure(sub, f"job {job.job_id} (attempt {job.attempt})", error)
        try:
            with nacking(self.tracing, sub, delivery):
                await self.queue.nack(
                    job, retry_delay=sub.retry_delay_seconds, error=error_text(error)
                )
        except ConflictError as conflict:
            _lease_ended(sub, job.job_id, conflict)

    async def release(self, deliveries: list[Delivery]) -> None:
        """`QueueSource.release`, awaited."""
        with releasing(self.tracing, self.subscription, deliveries):
            await self.queue.release_many(_leased(deliveries))


class _StreamSourceBase:
    def __init__(self, sub: StreamSubscription, consumer: str) -> None:
        self.subscription = sub
        self._consumer = consumer
        self._state = StreamState()
        self.ack_target = ("stream", sub.stream.name, sub.group)
        self.pace = Pace(budget_seconds=sub.redeliver_after_ms / 1000)
        self.tracing: ConsumeTracing | None = consume_tracing()

    @staticmethod
    def ack_item(delivery: Delivery) -> Any:
        return delivery.message_id

    def _group_arguments(self) -> dict[str, Any]:
        sub = self.subscription
        return {
            "start_id": sub.start_id,
            "mkstream": True,
            "max_deliveries": sub.max_deliveries,
        }

    def _claim_arguments(self, count: int) -> dict[str, Any]:
        return {
            "consumer": self._consumer,
            "min_idle": timedelta(milliseconds=self.subscription.redeliver_after_ms),
            "count": count,
            "start_id": self._state.cursor,
        }

    def _read_arguments(self, count: int, wait_ms: int) -> dict[str, Any]:
        return {
            "consumer": self._consumer,
            "count": count,
            "wait": timedelta(milliseconds=wait_ms),
        }

    @staticmethod
    def _group_exists(error: ConflictError) -> None:
        if error.code != "group_exists":
            raise error


class StreamSource(_StreamSourceBase):
    """A stream subscription of a `Client`."""

    def __init__(self, sub: StreamSubscription, consumer: str, streams: Streams) -> None:
        super().__init__(sub, consumer)
        self.streams = streams

    def fetch(self, count: int, wait_ms: int) -> list[Delivery]:
        """Claim pending entries idle long enough (when a scan is due), then read new ones for
        the rest of `count`, waiting up to `wait_ms` when the claim brought none.
        """
        sub, state = self.subscription, self._state
        if not state.group_ready:
            try:
                self.streams.create_group(sub.stream, sub.group, **self._group_arguments())
            except ConflictError as error:
                self._group_exists(error)
            state.group_ready = True
        taken: list[Delivery] = []
        if state.claim_due():
            claimed = self.streams.claim(sub.stream, sub.group, **self._claim_arguments(count))
            state.advance(claimed.next_start_id, sub.redeliver_after_ms)
            taken = _entries(sub, claimed.entries)
        if len(taken) < count:
            wait_ms = 0 if taken else wait_ms
            entries = self.streams.read_group(
                sub.stream, sub.group, **self._read_arguments(count - len(taken), wait_ms)
            )
            taken += _entries(sub, entries)
        return taken

    def failed(self, delivery: Delivery, error: Exception) -> None:
        """Log the failure; the entry stays pending, to be claimed again once idle enough."""
        log_failure(self.subscription, f"entry {delivery.message_id}", error)

    def release(self, deliveries: list[Delivery]) -> None:
        """An entry taken but not handled stays pending: nothing to send."""


class AsyncStreamSource(_StreamSourceBase):
    """A stream subscription of an `AsyncClient`."""

    def __init__(self, sub: StreamSubscription, consumer: str, streams: AsyncStreams) -> None:
        super().__init__(sub, consumer)
        self.streams = streams

    async def fetch(self, count: int, wait_ms: int) -> list[Delivery]:
        """`StreamSource.fetch`, awaited."""
        sub, state = self.subscription, self._state
        if not state.group_ready:
            try:
                await self.streams.create_group(sub.stream, sub.group, **self._group_arguments())
            except ConflictError as error:
                self._group_exists(error)
            state.group_ready = True
        taken: list[Delivery] = []
        if state.claim_due():
            claimed = await self.streams.claim(
                sub.stream, sub.group, **self._claim_arguments(count)
            )
            state.advance(claimed.next_start_id, sub.redeliver_after_ms)
            taken = _entries(sub, claimed.entries)
        if len(taken) < count:
            wait_ms = 0 if taken else wait_ms
            entries = await self.streams.read_group(
                sub.stream, sub.group, **self._read_arguments(count - len(taken), wait_ms)
            )
            taken += _entries(sub, entries)
        return taken

    async def failed(self, delivery: Delivery, error: Exception) -> None:
        """`StreamSource.failed`."""
        log_failure(self.subscription, f"entry {delivery.message_id}", error)

    async def release(self, deliveries: list[Delivery]) -> None:
        """`StreamSource.release`."""


Source = QueueSource | StreamSource
AsyncSource = AsyncQueueSource | AsyncStreamSource


def unhandled(ready: Iterable[tuple[Any, Delivery]]) -> list[tuple[Any, list[Delivery]]]:
    """What a stopping run gives back: the messages taken and not handled, by source, in
    batches of at most BATCH_MAX (one release request each), oldest first.
    """
    by_source: dict[int, tuple[Any, list[Delivery]]] = {}
    for source, delivery in ready:
        by_source.setdefault(id(source), (source, []))[1].append(delivery)
    return [
        (source, deliveries[start : start + BATCH_MAX])
        for source, deliveries in by_source.values()
        for start in range(0, len(deliveries), BATCH_MAX)
    ]


def fetch(source: Source, count: int, wait_ms: int) -> list[Delivery]:
    """``source.fetch(count, wait_ms)``, in its receive span when tracing is in use."""
    if source.tracing is None:
        return source.fetch(count, wait_ms)
    with source.tracing.receiving(source.subscription) as receiving:
        return receiving.received(source.fetch(count, wait_ms))


async def afetch(source: AsyncSource, count: int, wait_ms: int) -> list[Delivery]:
    """`fetch`, awaited."""
    if source.tracing is None:
        return await source.fetch(count, wait_ms)
    with source.tracing.receiving(source.subscription) as receiving:
        return receiving.received(await source.fetch(count, wait_ms))
