"""The consume loop behind `run()`: streams through consumer groups, queues through leases.

Streams: the group is created (with the stream) if missing; new entries are read, handed to the
handler and acknowledged when it returns. An entry whose handler raised stays pending and is
claimed again once it has been idle for `redeliver_after`; a pending entry trimmed away meanwhile
comes back from the claim as deleted, and is no longer pending, so there is nothing left to do;
nor is an entry that used up the group's `max_deliveries`, which the claim moved to the stream's
dead-letter stream instead of handing it out again.
Queues: jobs are leased, handed to the handler, then acked, or nacked when it raised
(sdk/_worker_jobs.py).

The bounds and progress of a run are in sdk/_worker_run.py, how a handler and its publishers are
called in sdk/_worker_handlers.py.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, TypeVar

from . import _retry
from ._exceptions import APIError, ConfigurationError, ConflictError
from ._queues import AsyncQueue, Queue
from ._retry import RetryPolicy, is_retryable
from ._streams import AsyncStreams, Streams
from ._subscriptions import QueueSubscription, StreamSubscription, Subscription
from ._worker_handlers import AsyncHandlers, SyncHandlers, log_failure
from ._worker_jobs import STOPPED, asettle, settle
from ._worker_run import RunOptions, RunProgress, StreamState

if TYPE_CHECKING:
    import asyncio

    from ._types import DeliveredEntry

__all__ = ["AsyncWorker", "RunOptions", "SyncWorker"]

logger = logging.getLogger("spool")

T = TypeVar("T")


class _WorkerBase:
    """What the sync and async loops share: options, progress and the waits after failures."""

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
        self._run = RunProgress(options=options, stop=stop, subscriptions=len(self._subscriptions))
        self._streams_state = {id(s): StreamState() for s in self._subscriptions}
        # Only its backoff is used: the loop itself waits out outages for as long as they last.
        self._policy = RetryPolicy(max_retries=0)

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
        self._handlers = SyncHandlers(self._subscriptions)
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
                # After a round that waited on nothing the next one long-polls, so only a round
                # that could wait and did not (no poll_wait left) pauses before the next.
                if (
                    idle
                    and sharers
                    and self._run.wait_ms(sharers=sharers) == 0
                    and not self._run.finished()
                ):
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
            error = self._handlers.handle(
                sub, entry.body, message_id=entry.id, trace=entry.traceparent
            )
            self._run.handled += 1
            handled += 1
            if error is None:
                self._streams.ack(sub.stream, sub.group, [entry.id])
            else:
                log_failure(sub, f"entry {entry.id}", error)
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
                queue.nack(job, error=STOPPED)
                continue
            error = self._handlers.handle(
                sub, job.payload, message_id=job.job_id, trace=job.traceparent
            )
            self._run.handled += 1
            handled += 1
            settle(queue, sub, job, error)
        return handled


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
        self._handlers = AsyncHandlers(self._subscriptions)
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
            error = await self._handlers.handle(
                sub, entry.body, message_id=entry.id, trace=entry.traceparent
            )
            self._run.handled += 1
            handled += 1
            if error is None:
                await self._streams.ack(sub.stream, sub.group, [entry.id])
            else:
                log_failure(sub, f"entry {entry.id}", error)
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
                await queue.nack(job, error=STOPPED)
                continue
            error = await self._handlers.handle(
                sub, job.payload, message_id=job.job_id, trace=job.traceparent
            )
            self._run.handled += 1
            handled += 1
            await asettle(queue, sub, job, error)
        return handled
