"""The consume loop behind `run()`: streams through consumer groups, queues through leases.

Three kinds of work go on side by side, so that neither the service nor the handlers wait on
each other:

- a fetcher per subscription takes messages (sdk/_worker_sources.py) while the handlers run, up
  to the subscription's `count` taken and not yet handled (without one, what the handlers get
  through in a quarter of the lease: `Pace`), each request a long poll that returns as soon as
  there is one;
- the handlers (sdk/_worker_handlers.py) take what was fetched, oldest first: one at a time in
  the thread or task that called `run()`, or `concurrency` at once (threads for a `Client`, tasks
  for an `AsyncClient`);
- the acknowledgements of handled messages go in batches (sdk/_worker_acks.py); a failed
  message is given back by its handler's thread or task at once.

When the run ends (a stop, the budget spent, the deadline, Ctrl+C, or an error no wait cures),
the handlers finish the message they have, the fetchers stop, what was taken and not handled is
released (a queue's jobs in batches, their attempts uncounted), and the acknowledgements queued
are sent before `run()` returns (or raises). A fetcher still waiting in a long poll is not waited
for, so that an idle subscription does not hold up the end of a busy one's run: an async one is
cancelled, a sync one's thread gives back whatever its request brings.

The bounds and progress of a run are in sdk/_worker_run.py.
"""

from __future__ import annotations

import collections
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import _retry
from ._exceptions import APIError, ConfigurationError
from ._retry import RetryPolicy, is_retryable
from ._subscriptions import StreamSubscription, Subscription
from ._worker_acks import AsyncAcks, SyncAcks
from ._worker_handlers import AsyncHandlers, SyncHandlers
from ._worker_run import STOP_CHECK_SECONDS, RunOptions, RunProgress
from ._worker_sources import (
    AsyncQueueSource,
    AsyncSource,
    AsyncStreamSource,
    Delivery,
    QueueSource,
    Source,
    StreamSource,
    afetch,
    fetch,
    unhandled,
)

if TYPE_CHECKING:
    import asyncio

    from ._queues import AsyncQueue, Queue
    from ._streams import AsyncStreams, Streams

__all__ = ["AsyncWorker", "RunOptions", "SyncWorker"]

logger = logging.getLogger("spool")

_INTERRUPTED = "interrupted: stopping; unacknowledged messages will be delivered again"


def _give_back_late(source: Source, deliveries: list[Delivery]) -> None:
    """Give back what a fetch brought once its run was closing: by then `run()` may have
    returned and its client closed, so a failure only leaves the messages to come back by
    themselves (a job once its lease ends; a stream's entries stay pending in any case).
    """
    for _, batch in unhandled((source, delivery) for delivery in deliveries):
        try:
            source.release(batch)
        except Exception as error:  # the run is over: there is nothing to raise it to
            logger.debug("could not give back %d messages: %s", len(batch), error)


class _WorkerBase:
    """What the sync and async loops share: options, progress, the count of messages taken per
    source, what was fetched and waits for a handler, and the waits after failures.
    """

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
        self._run = RunProgress(options=options, stop=stop)
        self._ready: collections.deque[tuple[Any, Delivery]] = collections.deque()
        # Per source: taken and not yet handled (waiting here or in a handler).
        self._held: dict[int, int] = {}
        # Handlers waiting for a message right now, and fetchers waiting for them to take one.
        self._idle = 0
        self._handing = 0
        self._closing = False
        self._failure: BaseException | None = None
        # Only its backoff is used: the loop itself waits out outages for as long as they last.
        self._policy = RetryPolicy(max_retries=0)

    def _capacity(self, source: Any) -> int:
        """How many messages `source` may hold: its subscription's `count`, or what its pace
        allows; never fewer than the handlers that may take them at once.
        """
        count: int | None = source.subscription.count
        if count is None:
            capacity: int = source.pace.capacity(self._options.concurrency)
            return capacity
        return max(count, self._options.concurrency)

    def _room(self, source: Any) -> int:
        """How many messages `source` may fetch now: 0 while too few to be worth a request."""
        capacity = self._capacity(source)
        count = self._run.budget(capacity - self._held[id(source)])
        left = self._run.budget(capacity)
        # Fetch once half the room is free, or all the budget left, so requests stay full.
        if count and count >= min(max(1, capacity // 2), left):
            return count
        return 0

    def _handing_over(self) -> bool:
        """Whether a fetcher that just brought messages should let the handlers waiting for
        them take them before it sends its next request: on a busy core (and, for a `Client`,
        under the GIL) building that request would otherwise come first and delay them.
        """
        return bool(self._ready) and self._idle > 0 and not self._closing

    def _taken(self, source: Any, deliveries: list[Delivery]) -> None:
        """Record a fetch that brought `deliveries` (lock held). The budget counts what came
        back, not what was asked: a long poll must not hold the budget of another subscription
        (several may bring more than the budget between them; what is left is released).
        """
        self._run.taken += len(deliveries)
        self._held[id(source)] += len(deliveries)
        self._ready.extend((source, delivery) for delivery in deliveries)

    def _handled(self, source: Any) -> None:
        """Record a message handled (lock held); the end of the budget ends the run."""
        self._run.handled += 1
        self._held[id(source)] -= 1
        if self._run.finished():
            self._closing = True

    def _fail(self, error: BaseException) -> None:
        """End the run with `error` (the first one wins)."""
        if self._failure is None:
            self._failure = error
        self._closing = True

    def _transient(self, error: APIError, failures: int) -> float:
        """Seconds to wait after the `failures`-th failed fetch in a row; non-retryable errors
        end the run.
        """
        if not is_retryable(error):
            raise error
        delay = self._policy.delay(failures, error)
        if self._run.deadline is not None:
            delay = max(0.0, min(delay, self._run.deadline - time.monotonic()))
        logger.warning("polling failed, trying again in %.1f s: %s", delay, error)
        return delay


class SyncWorker(_WorkerBase):
    """Runs a `Client`'s subscriptions until stopped.

    Making one raises ConfigurationError when there is nothing to run, or when a handler's
    publisher belongs to an AsyncClient.
    """

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
        self._sources: list[Source] = [
            StreamSource(sub, options.consumer, streams)
            if isinstance(sub, StreamSubscription)
            else QueueSource(sub, options.consumer, queue(sub.queue))
            for sub in self._subscriptions
        ]
        self._held = {id(source): 0 for source in self._sources}
        self._changed = threading.Condition()

    def run(self) -> None:
        """Consume until stopped, the budget is spent or the deadline passes.

        When the run ends, the handlers finish the message they have, the fetchers stop (one
        in a long poll is left to give back what it brings), what was taken and not handled is
        given back, and the queued acknowledgements are sent; only then is an error raised.
        Ctrl+C (KeyboardInterrupt) ends the run without one.

        Raises:
            APIError: the typed error of a fetch, an acknowledgement or a give-back that no
                wait cures (NotFoundError for a missing queue, AuthenticationError, ...).
            ConfigurationError: a handler returned an awaitable.
            Exception: whatever else a fetch or an acknowledgement raised, such as a custom
                codec's error.
        """
        self._acks = SyncAcks(self._fail_from_thread)
        fetchers = [
            threading.Thread(target=self._fetch, args=(source,), name="spool-fetch", daemon=True)
            for source in self._sources
        ]
        handlers = [
            threading.Thread(target=self._handle, name=f"spool-handler-{number}", daemon=True)
            for number in range(self._options.concurrency if self._options.concurrency > 1 else 0)
        ]
        for thread in fetchers + handlers:
            thread.start()
        try:
            if handlers:
                for thread in handlers:
                    thread.join()
            else:
                self._handle()
        except KeyboardInterrupt:
            logger.info(_INTERRUPTED)
        finally:
            self._close(handlers)
        if self._failure is not None:
            raise self._failure

    def _fail_from_thread(self, error: BaseException) -> None:
        with self._changed:
            self._fail(error)
            self._changed.notify_all()

    def _close(self, handlers: list[threading.Thread]) -> None:
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        # The fetchers are not waited for: one may be in a long poll that nothing can cut short
        # (up to poll_wait), and none adds to what is ready once the run is closing.
        for thread in handlers:
            thread.join()
        for source, deliveries in unhandled(self._ready):
            try:
                source.release(deliveries)
            except APIError as error:
                logger.debug("could not give back %d messages: %s", len(deliveries), error)
        self._ready.clear()
        self._acks.close()

    def _fetch(self, source: Source) -> None:
        failures = 0
        while True:
            with self._changed:
                if self._run.finished():
                    self._closing = True
                while not self._closing and not (count := self._room(source)):
                    self._changed.wait(self._run.pause())
                    if self._run.finished():
                        self._closing = True
                if self._closing:
                    return
            try:
                deliveries = fetch(source, count, self._run.wait_ms())
                failures = 0
            except APIError as error:
                if self._closing:
                    return
                try:
                    delay = self._transient(error, failures)
                except APIError:
                    self._fail_from_thread(error)
                    return
                _retry.sleep(delay)
                failures += 1
                continue
            except Exception as error:  # ends the run, raised by it
                if not self._closing:
                    self._fail_from_thread(error)
                return
            with self._changed:
                late = self._closing
                if not late:
                    self._taken(source, deliveries)
                    self._changed.notify_all()
                    self._handing += 1
                    while self._handing_over():
                        self._changed.wait(STOP_CHECK_SECONDS)
                    self._handing -= 1
            if late:
                _give_back_late(source, deliveries)
                return

    def _next(self) -> tuple[Source, Delivery] | None:
        """The oldest message fetched, or None once the run is ending."""
        with self._changed:
            self._idle += 1
            while not self._closing and not self._ready:
                self._changed.wait(self._run.pause())
                if self._run.finished():
                    self._closing = True
            self._idle -= 1
            if self._closing:
                return None
            if self._handing:
                # The fetcher that brought it waits for this before its next request.
                self._changed.notify_all()
            return self._ready.popleft()

    def _handle(self) -> None:
        while (taken := self._next()) is not None:
            source, delivery = taken
            started = time.monotonic()
            try:
                error = self._handlers.handle(
                    delivery.subscription,
                    delivery.body,
                    message_id=delivery.message_id,
                    trace=delivery.traceparent,
                    fetched_in=delivery.fetched_in,
                )
            except Exception as failure:  # a misuse that ends the run
                self._fail_from_thread(failure)
                return
            with self._changed:
                source.pace.record(time.monotonic() - started)
                self._handled(source)
                self._changed.notify_all()
            if error is None:
                self._acks.add(source, delivery)
                continue
            try:
                source.failed(delivery, error)
            except APIError as failure:
                if not is_retryable(failure):
                    self._fail_from_thread(failure)
                    return
                logger.warning(
                    "could not give back %s: %s; it will be delivered again",
                    delivery.message_id,
                    failure,
                )


class AsyncWorker(_WorkerBase):
    """Runs an `AsyncClient`'s subscriptions until stopped; handlers may be async or plain.

    Making one raises ConfigurationError when there is nothing to run, or when a handler's
    publisher belongs to a Client.
    """

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
        self._sources: list[AsyncSource] = [
            AsyncStreamSource(sub, options.consumer, streams)
            if isinstance(sub, StreamSubscription)
            else AsyncQueueSource(sub, options.consumer, queue(sub.queue))
            for sub in self._subscriptions
        ]
        self._held = {id(source): 0 for source in self._sources}

    async def run(self) -> None:
        """Consume until stopped, the budget is spent or the deadline passes, or until the task
        is cancelled (the cancellation is raised once the run has closed).

        When the run ends, the handlers finish the message they have, the fetchers stop, what
        was taken and not handled is given back, and the queued acknowledgements are sent;
        only then is an error raised. Ctrl+C (KeyboardInterrupt) ends the run without one.

        Raises:
            APIError: the typed error of a fetch, an acknowledgement or a give-back that no
                wait cures (NotFoundError for a missing queue, AuthenticationError, ...).
            Exception: whatever else a fetch or an acknowledgement raised, such as a custom
                codec's error.
        """
        import asyncio

        self._changed = asyncio.Event()
        self._acks = AsyncAcks(self._fail_and_wake)
        # The fetchers waiting in a request right now: once the run is ending, waiting on is
        # pointless, and cancelling there interrupts no handler.
        self._requesting: set[asyncio.Task[Any]] = set()
        fetchers = [asyncio.ensure_future(self._fetch(source)) for source in self._sources]
        handlers = [asyncio.ensure_future(self._handle()) for _ in range(self._options.concurrency)]
        try:
            await asyncio.gather(*handlers)
        except KeyboardInterrupt:
            logger.info(_INTERRUPTED)
        finally:
            await self._close(fetchers, handlers)
        if self._failure is not None:
            raise self._failure

    def _fail_and_wake(self, error: BaseException) -> None:
        self._fail(error)
        self._wake()

    async def _close(
        self, fetchers: list[asyncio.Task[None]], handlers: list[asyncio.Task[None]]
    ) -> None:
        import asyncio

        self._closing = True
        self._wake()
        for task in list(self._requesting):
            task.cancel()
        await asyncio.gather(*handlers, *fetchers, return_exceptions=True)
        for source, deliveries in unhandled(self._ready):
            try:
                await source.release(deliveries)
            except APIError as error:
                logger.debug("could not give back %d messages: %s", len(deliveries), error)
        self._ready.clear()
        await self._acks.close()

    async def _wait_for_change(self) -> None:
        """Until something changes, or long enough to look at the stop flag and deadline."""
        import asyncio

        # asyncio.timeout, not wait_for: no task of its own, so a wake-up reaches the waiter in
        # one turn of the event loop rather than three.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self._run.pause()):
                await self._changed.wait()
        if self._run.finished():
            self._closing = True

    def _wake(self) -> None:
        # Every waiter sees the change; the next wait waits for the next one.
        self._changed.set()
        self._changed = type(self._changed)()

    async def _fetch(self, source: AsyncSource) -> None:
        import asyncio

        task = asyncio.current_task()
        assert task is not None
        failures = 0
        while True:
            if self._run.finished():
                self._closing = True
            while not self._closing and not (count := self._room(source)):
                await self._wait_for_change()
            if self._closing:
                return
            self._requesting.add(task)
            try:
                deliveries = await afetch(source, count, self._run.wait_ms())
                failures = 0
            except APIError as error:
                try:
                    delay = self._transient(error, failures)
                except APIError:
                    self._fail_and_wake(error)
                    return
                self._requesting.discard(task)
                await _retry.asleep(delay)
                failures += 1
                continue
            except Exception as error:  # ends the run, raised by it
                self._fail_and_wake(error)
                return
            finally:
                self._requesting.discard(task)
            self._taken(source, deliveries)
            self._wake()
            # A fetch answered from a cache or a mock never suspends: let the handlers run.
            await asyncio.sleep(0)
            self._handing += 1
            while self._handing_over():
                await self._wait_for_change()
            self._handing -= 1

    async def _next(self) -> tuple[AsyncSource, Delivery] | None:
        self._idle += 1
        while not self._closing and not self._ready:
            await self._wait_for_change()
        self._idle -= 1
        if self._closing:
            return None
        if self._handing:
            # The fetcher that brought it waits for this before its next request.
            self._wake()
        return self._ready.popleft()

    async def _handle(self) -> None:
        try:
            await self._handle_until_closing()
        except KeyboardInterrupt:
            # Raised out of a task it would escape the event loop itself; it ends the run.
            logger.info(_INTERRUPTED)
            self._closing = True
            self._wake()

    async def _handle_until_closing(self) -> None:
        while (taken := await self._next()) is not None:
            source, delivery = taken
            started = time.monotonic()
            try:
                error = await self._handlers.handle(
                    delivery.subscription,
                    delivery.body,
                    message_id=delivery.message_id,
                    trace=delivery.traceparent,
                    fetched_in=delivery.fetched_in,
                )
            except Exception as failure:  # a misuse that ends the run
                self._fail_and_wake(failure)
                return
            source.pace.record(time.monotonic() - started)
            self._handled(source)
            self._wake()
            if error is None:
                self._acks.add(source, delivery)
                continue
            try:
                await source.failed(delivery, error)
            except APIError as failure:
                if not is_retryable(failure):
                    self._fail_and_wake(failure)
                    return
                logger.warning(
                    "could not give back %s: %s; it will be delivered again",
                    delivery.message_id,
                    failure,
                )
