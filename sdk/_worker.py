"""The consume loop behind `run()`: streams through consumer groups, queues through leases.

Streams: the group is created (with the stream) if missing; new entries are read, handed to the
handler and acknowledged when it returns. An entry whose handler raised stays pending and is
claimed again once it has been idle for `redeliver_after`; a pending entry trimmed away meanwhile
comes back from the claim as deleted, and is no longer pending, so there is nothing left to do;
nor is an entry that used up the group's `max_deliveries`, which the claim moved to the stream's
dead-letter stream instead of handing it out again.
Queues: jobs are leased, handed to the handler, then acked, or nacked when it raised.

A handler's non-None return value goes to every publisher stacked on it; a PublishError there
fails the message like any exception, so it is delivered again and every publisher runs again.

With OpenTelemetry in use (sdk/_tracing.py), each handler runs, with its publishers, in a
CONSUMER span ``spool process <stream or queue>`` linked to the trace the entry or job was
published under.
"""

from __future__ import annotations

import inspect
import logging
import os
import re
import socket
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from . import _retry
from ._checks import check_group_name
from ._durations import Duration, to_millis, to_timedelta
from ._exceptions import APIError, ConfigurationError, ConflictError
from ._limits import WAIT_MS_MAX
from ._publisher import AsyncPublisher, Publisher, publishers_of
from ._queues import AsyncQueue, Queue
from ._retry import RetryPolicy, is_retryable
from ._streams import AsyncStreams, Streams
from ._subscriptions import QueueSubscription, StreamSubscription, Subscription
from ._tracing import consume_tracing

if TYPE_CHECKING:
    import asyncio

    from ._types import DeliveredEntry, LeasedJob

__all__ = ["AsyncWorker", "RunOptions", "SyncWorker", "default_consumer_name"]

logger = logging.getLogger("spool")

# How long a loop with nothing to do and no long poll pauses, so it does not spin a core.
IDLE_PAUSE = 0.1
# Keeps a long poll well inside the HTTP timeout, so waiting is never mistaken for a dead service.
_POLL_SHARE_OF_TIMEOUT = 0.5


def default_consumer_name() -> str:
    """`<host>-<pid>`, cut to what the API accepts as a consumer name."""
    name = re.sub(r"[^A-Za-z0-9_.:-]", "-", f"{socket.gethostname()}-{os.getpid()}")
    return ("c" + name if not name[:1].isalnum() else name)[:64]


@dataclass(frozen=True, slots=True)
class RunOptions:
    """The bounds of one `run()`."""

    consumer: str
    max_messages: int | None
    stop_after_seconds: float | None
    poll_wait_ms: int

    @classmethod
    def build(
        cls,
        *,
        consumer: str | None,
        max_messages: int | None,
        stop_after: Duration | None,
        poll_wait: Duration,
        request_timeout: float | None,
    ) -> RunOptions:
        """Validated options; the long poll is capped below the HTTP read timeout."""
        name = check_group_name(consumer or default_consumer_name(), what="consumer")
        if max_messages is not None and (
            isinstance(max_messages, bool) or not isinstance(max_messages, int) or max_messages < 1
        ):
            raise ConfigurationError(f"max_messages must be an int >= 1, got {max_messages!r}")
        wait_ms = to_millis(poll_wait, name="poll_wait", minimum=0, maximum=WAIT_MS_MAX)
        if request_timeout is not None:
            wait_ms = min(wait_ms, int(request_timeout * 1000 * _POLL_SHARE_OF_TIMEOUT))
        return cls(
            consumer=name,
            max_messages=max_messages,
            stop_after_seconds=None
            if stop_after is None
            else to_timedelta(stop_after, name="stop_after").total_seconds(),
            poll_wait_ms=wait_ms,
        )


@dataclass(slots=True)
class _Run:
    """The progress of one `run()`: messages handled, deadline, the stop flag."""

    options: RunOptions
    stop: threading.Event
    subscriptions: int
    handled: int = 0
    deadline: float | None = None

    def __post_init__(self) -> None:
        if self.options.stop_after_seconds is not None:
            self.deadline = time.monotonic() + self.options.stop_after_seconds

    def finished(self) -> bool:
        """Whether the loop must stop before handling anything else."""
        if self.stop.is_set():
            return True
        if self.options.max_messages is not None and self.handled >= self.options.max_messages:
            return True
        return self.deadline is not None and time.monotonic() >= self.deadline

    def batch(self, count: int) -> int:
        """How many messages to fetch now: never more than the budget left."""
        if self.options.max_messages is None:
            return count
        return max(1, min(count, self.options.max_messages - self.handled))

    def wait_ms(self, *, sharers: int) -> int:
        """The long poll of one subscription: poll_wait shared by `sharers` subscriptions that
        wait one after the other (0 for none: there is work elsewhere), within the deadline.
        """
        if sharers == 0:
            return 0
        wait = self.options.poll_wait_ms // sharers
        if self.deadline is not None:
            wait = min(wait, max(0, int((self.deadline - time.monotonic()) * 1000)))
        return wait

    def idle_pause(self) -> float:
        """How long to pause after a round that found nothing without waiting on the service."""
        if self.deadline is None:
            return IDLE_PAUSE
        return max(0.0, min(IDLE_PAUSE, self.deadline - time.monotonic()))


@dataclass(slots=True)
class _StreamState:
    """Whether a stream subscription's group exists, and where its pending-list scan stands."""

    group_ready: bool = False
    cursor: str = "0-0"
    next_at: float = 0.0

    def claim_due(self) -> bool:
        """Whether to scan the pending list for entries idle long enough to deliver again."""
        return time.monotonic() >= self.next_at

    def advance(self, next_start_id: str, redeliver_after_ms: int) -> None:
        """Continue the scan at `next_start_id`; at the end, wait `redeliver_after` for the next."""
        self.cursor = next_start_id
        if next_start_id == "0-0":
            # The scan reached the end: look again once anything failing now could be idle enough.
            self.next_at = time.monotonic() + redeliver_after_ms / 1000


def _error_text(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _describe(subscription: Subscription) -> str:
    if isinstance(subscription, StreamSubscription):
        return f"stream {subscription.stream.name!r} (group {subscription.group!r})"
    topics = ", ".join(subscription.topics) or "all topics"
    return f"queue {subscription.queue!r} ({topics})"


def _handler_name(handler: Callable[..., Any]) -> str:
    return str(getattr(handler, "__qualname__", repr(handler)))


PublisherT = TypeVar("PublisherT", Publisher, AsyncPublisher)
T = TypeVar("T")


def _publishers(
    subscriptions: list[Subscription], kind: type[PublisherT], client: str
) -> dict[int, list[PublisherT]]:
    """Each subscription's publishers, refusing any this kind of client cannot call or await."""
    found: dict[int, list[PublisherT]] = {}
    for subscription in subscriptions:
        publishers = found[id(subscription)] = []
        for publisher in publishers_of(subscription.handler):
            if not isinstance(publisher, kind):
                raise ConfigurationError(
                    f"{_handler_name(subscription.handler)} has {publisher!r}, which {client} "
                    "cannot run: create its publishers with the same kind of client"
                )
            publishers.append(publisher)
    return found


class _WorkerBase:
    """What the sync and async loops share: options, progress and the log lines."""

    def __init__(
        self, subscriptions: list[Subscription], options: RunOptions, stop: threading.Event
    ) -> None:
        if not subscriptions:
            raise ConfigurationError(
                "nothing to run: subscribe a handler with client.subscribe(...) "
                "or queue.subscribe(...)"
            )
        self._subscriptions = list(subscriptions)
        self._options = options
        self._run = _Run(options=options, stop=stop, subscriptions=len(self._subscriptions))
        self._streams_state = {id(s): _StreamState() for s in self._subscriptions}
        # Only its backoff is used: the loop itself waits out outages for as long as they last.
        self._policy = RetryPolicy(max_retries=0)
        self._tracing = consume_tracing()

    def _log_failure(self, subscription: Subscription, message_id: str, error: Exception) -> None:
        logger.error(
            "%s failed on %s of %s; it will be delivered again",
            _handler_name(subscription.handler),
            message_id,
            _describe(subscription),
            exc_info=error,
        )

    def _lease_ended(self, sub: QueueSubscription, job: LeasedJob, error: ConflictError) -> None:
        """A lease that ended before the ack or nack is not fatal: the job comes back by itself."""
        if error.code != "lease_expired":
            raise error
        logger.warning(
            "the lease on job %s of %s ended before the handler finished; "
            "it will be delivered again (consider a longer lease)",
            job.job_id,
            _describe(sub),
        )

    def _transient(self, error: APIError, failures: int) -> float:
        """Seconds to wait after the `failures`-th failed loop request in a row; non-retryable
        errors end the run.
        """
        if not is_retryable(error):
            raise error
        delay = self._policy.delay(failures, error)
        if self._run.deadline is not None:
            delay = max(0.0, min(delay, self._run.deadline - time.monotonic()))
        logger.warning("polling failed, trying again in %.1f s: %s", delay, error)
        return delay


class SyncWorker(_WorkerBase):
    """Runs a `Client`'s subscriptions until stopped."""

    def __init__(
        self,
        subscriptions: list[Subscription],
        options: RunOptions,
        *,
        stop: threading.Event,
        streams: Streams,
        queue: Callable[[str], Queue],
    ) -> None:
        super().__init__(subscriptions, options, stop)
        self._publishers = _publishers(self._subscriptions, Publisher, "Client.run()")
        self._streams = streams
        self._queue = queue

    def run(self) -> None:
        """Consume until stopped, the budget is spent or the deadline passes.

        The subscriptions are polled in turn. Only after a round that found nothing does a poll
        wait on the service (each its share of poll_wait), so an idle subscription never holds
        up a busy one for longer than one quick request.
        """
        # With several subscriptions the first round waits on nothing: work may be queued
        # already, and an idle subscription's long poll must not stand before it.
        sharers = 1 if len(self._subscriptions) == 1 else 0
        failures = 0
        try:
            while not self._run.finished():
                try:
                    handled = sum(
                        self._poll(subscription, sharers) for subscription in self._subscriptions
                    )
                    failures = 0
                except APIError as error:
                    _retry.sleep(self._transient(error, failures))
                    failures += 1
                    continue
                idle = not handled
                if idle and self._run.wait_ms(sharers=sharers) == 0 and not self._run.finished():
                    _retry.sleep(self._run.idle_pause())
                sharers = len(self._subscriptions) if idle else 0
        except KeyboardInterrupt:
            logger.info("interrupted: stopping; unacknowledged messages will be delivered again")

    def _poll(self, subscription: Subscription, sharers: int) -> int:
        if self._run.finished():
            return 0
        wait_ms = self._run.wait_ms(sharers=sharers)
        if isinstance(subscription, StreamSubscription):
            return self._poll_stream(subscription, wait_ms)
        return self._poll_queue(subscription, wait_ms)

    def _poll_stream(self, sub: StreamSubscription, wait_ms: int) -> int:
        state = self._streams_state[id(sub)]
        if not state.group_ready:
            try:
                self._streams.create_group(
                    sub.stream,
                    sub.group,
                    start_id=sub.start_id,
                    mkstream=True,
                    max_deliveries=sub.max_deliveries,
                )
            except ConflictError as error:
                if error.code != "group_exists":
                    raise
            state.group_ready = True
        handled = 0
        if state.claim_due():
            claimed = self._streams.claim(
                sub.stream,
                sub.group,
                consumer=self._options.consumer,
                min_idle=timedelta(milliseconds=sub.redeliver_after_ms),
                count=self._run.batch(sub.count),
                start_id=state.cursor,
            )
            state.advance(claimed.next_start_id, sub.redeliver_after_ms)
            handled += self._deliver_entries(sub, claimed.entries)
        if self._run.finished():
            return handled
        entries = self._streams.read_group(
            sub.stream,
            sub.group,
            consumer=self._options.consumer,
            count=self._run.batch(sub.count),
            wait=timedelta(milliseconds=wait_ms),
        )
        return handled + self._deliver_entries(sub, entries)

    def _deliver_entries(self, sub: StreamSubscription, entries: list[DeliveredEntry]) -> int:
        handled = 0
        for entry in entries:
            if self._run.finished():
                break
            error = self._handle(sub, entry.body, message_id=entry.id, trace=entry.traceparent)
            self._run.handled += 1
            handled += 1
            if error is None:
                self._streams.ack(sub.stream, sub.group, [entry.id])
            else:
                self._log_failure(sub, f"entry {entry.id}", error)
        return handled

    def _poll_queue(self, sub: QueueSubscription, wait_ms: int) -> int:
        queue = self._queue(sub.queue)
        jobs = queue.lease(
            consumer=self._options.consumer,
            topics=sub.topics,
            max_jobs=self._run.batch(sub.count),
            lease=sub.lease_seconds,
            wait=timedelta(milliseconds=wait_ms),
        )
        handled = 0
        for job in jobs:
            if self._run.finished():
                queue.nack(job, error="worker stopped before handling the job")
                continue
            error = self._handle(sub, job.payload, message_id=job.job_id, trace=job.traceparent)
            self._run.handled += 1
            handled += 1
            self._settle(queue, sub, job, error)
        return handled

    def _settle(
        self, queue: Queue, sub: QueueSubscription, job: LeasedJob, error: Exception | None
    ) -> None:
        try:
            if error is None:
                queue.ack(job)
                return
            self._log_failure(sub, f"job {job.job_id} (attempt {job.attempt})", error)
            queue.nack(job, retry_delay=sub.retry_delay_seconds, error=_error_text(error))
        except ConflictError as conflict:
            self._lease_ended(sub, job, conflict)

    def _handle(
        self, sub: Subscription, body: Any, *, message_id: str, trace: str | None
    ) -> Exception | None:
        """``_call``, in its CONSUMER span when tracing is in use."""
        if self._tracing is None:
            return self._call(sub, body)
        with self._tracing.processing(sub, message_id=message_id, traceparent=trace) as span:
            return span.outcome(self._call(sub, body))

    def _call(self, sub: Subscription, body: Any) -> Exception | None:
        """Run the handler and its publishers; the exception that failed the message, if any."""
        try:
            result = sub.handler(body)
        except Exception as error:
            return error
        if inspect.isawaitable(result):
            if inspect.iscoroutine(result):
                result.close()
            raise ConfigurationError(
                f"{_handler_name(sub.handler)} returned an awaitable: "
                "run async handlers on an AsyncClient"
            )
        if result is not None:
            try:
                for publisher in self._publishers[id(sub)]:
                    publisher.publish(result)
            except Exception as error:
                return error
        return None


class AsyncWorker(_WorkerBase):
    """Runs an `AsyncClient`'s subscriptions until stopped; handlers may be async or plain."""

    def __init__(
        self,
        subscriptions: list[Subscription],
        options: RunOptions,
        *,
        stop: threading.Event,
        streams: AsyncStreams,
        queue: Callable[[str], AsyncQueue],
    ) -> None:
        super().__init__(subscriptions, options, stop)
        self._publishers = _publishers(self._subscriptions, AsyncPublisher, "AsyncClient.run()")
        self._streams = streams
        self._queue = queue
        # The tasks waiting in a long poll right now: once the run is finished, waiting on is
        # pointless, and cancelling there interrupts no handler.
        self._polling: set[asyncio.Task[Any]] = set()

    async def _long_poll(self, request: Awaitable[T]) -> T:
        import asyncio

        task = asyncio.current_task()
        assert task is not None
        self._polling.add(task)
        try:
            return await request
        finally:
            self._polling.discard(task)

    async def run(self) -> None:
        """Consume until stopped, the budget is spent or the deadline passes.

        Every subscription is served by a task of its own, each with the whole poll_wait, so an
        idle subscription never holds up a busy one. The first error that ends a task (a
        non-retryable API error) cancels the others and is raised.
        """
        import asyncio

        tasks = [
            asyncio.ensure_future(self._serve(subscription)) for subscription in self._subscriptions
        ]
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                if not task.cancelled():
                    task.result()
        except KeyboardInterrupt:
            logger.info("interrupted: stopping; unacknowledged messages will be delivered again")
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _serve(self, subscription: Subscription) -> None:
        try:
            await self._serve_until_finished(subscription)
        except KeyboardInterrupt:
            # Raised out of a task it would escape the event loop itself; it stops every task.
            logger.info("interrupted: stopping; unacknowledged messages will be delivered again")
            self._run.stop.set()

    async def _serve_until_finished(self, subscription: Subscription) -> None:
        import asyncio

        failures = 0
        while not self._run.finished():
            # A turn whose requests never suspend (answered from a cache or a mock) must still
            # let the other subscriptions' tasks run.
            await asyncio.sleep(0)
            wait_ms = self._run.wait_ms(sharers=1)
            try:
                if isinstance(subscription, StreamSubscription):
                    handled = await self._poll_stream(subscription, wait_ms)
                else:
                    handled = await self._poll_queue(subscription, wait_ms)
                failures = 0
            except APIError as error:
                await _retry.asleep(self._transient(error, failures))
                failures += 1
                continue
            if not handled and wait_ms == 0 and not self._run.finished():
                await _retry.asleep(self._run.idle_pause())
        # The budget is spent or a stop was asked for: the others need not finish their polls.
        for polling in list(self._polling):
            polling.cancel()

    async def _poll_stream(self, sub: StreamSubscription, wait_ms: int) -> int:
        state = self._streams_state[id(sub)]
        if not state.group_ready:
            try:
                await self._streams.create_group(
                    sub.stream,
                    sub.group,
                    start_id=sub.start_id,
                    mkstream=True,
                    max_deliveries=sub.max_deliveries,
                )
            except ConflictError as error:
                if error.code != "group_exists":
                    raise
            state.group_ready = True
        handled = 0
        if state.claim_due():
            claimed = await self._streams.claim(
                sub.stream,
                sub.group,
                consumer=self._options.consumer,
                min_idle=timedelta(milliseconds=sub.redeliver_after_ms),
                count=self._run.batch(sub.count),
                start_id=state.cursor,
            )
            state.advance(claimed.next_start_id, sub.redeliver_after_ms)
            handled += await self._deliver_entries(sub, claimed.entries)
        if self._run.finished():
            return handled
        entries = await self._long_poll(
            self._streams.read_group(
                sub.stream,
                sub.group,
                consumer=self._options.consumer,
                count=self._run.batch(sub.count),
                wait=timedelta(milliseconds=wait_ms),
            )
        )
        return handled + await self._deliver_entries(sub, entries)

    async def _deliver_entries(self, sub: StreamSubscription, entries: list[DeliveredEntry]) -> int:
        handled = 0
        for entry in entries:
            if self._run.finished():
                break
            error = await self._handle(
                sub, entry.body, message_id=entry.id, trace=entry.traceparent
            )
            self._run.handled += 1
            handled += 1
            if error is None:
                await self._streams.ack(sub.stream, sub.group, [entry.id])
            else:
                self._log_failure(sub, f"entry {entry.id}", error)
        return handled

    async def _poll_queue(self, sub: QueueSubscription, wait_ms: int) -> int:
        queue = self._queue(sub.queue)
        jobs = await self._long_poll(
            queue.lease(
                consumer=self._options.consumer,
                topics=sub.topics,
                max_jobs=self._run.batch(sub.count),
                lease=sub.lease_seconds,
                wait=timedelta(milliseconds=wait_ms),
            )
        )
        handled = 0
        for job in jobs:
            if self._run.finished():
                await queue.nack(job, error="worker stopped before handling the job")
                continue
            error = await self._handle(
                sub, job.payload, message_id=job.job_id, trace=job.traceparent
            )
            self._run.handled += 1
            handled += 1
            await self._settle(queue, sub, job, error)
        return handled

    async def _settle(
        self, queue: AsyncQueue, sub: QueueSubscription, job: LeasedJob, error: Exception | None
    ) -> None:
        try:
            if error is None:
                await queue.ack(job)
                return
            self._log_failure(sub, f"job {job.job_id} (attempt {job.attempt})", error)
            await queue.nack(job, retry_delay=sub.retry_delay_seconds, error=_error_text(error))
        except ConflictError as conflict:
            self._lease_ended(sub, job, conflict)

    async def _handle(
        self, sub: Subscription, body: Any, *, message_id: str, trace: str | None
    ) -> Exception | None:
        """``_call``, in its CONSUMER span when tracing is in use."""
        if self._tracing is None:
            return await self._call(sub, body)
        with self._tracing.processing(sub, message_id=message_id, traceparent=trace) as span:
            return span.outcome(await self._call(sub, body))

    async def _call(self, sub: Subscription, body: Any) -> Exception | None:
        """Run the handler and its publishers; the exception that failed the message, if any."""
        try:
            result = sub.handler(body)
            if inspect.isawaitable(result):
                result = await result
        except Exception as error:
            return error
        if result is not None:
            try:
                for publisher in self._publishers[id(sub)]:
                    await publisher.publish(result)
            except Exception as error:
                return error
        return None
