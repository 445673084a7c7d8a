"""Acknowledgements of handled messages, sent in batches beside the handlers.

A handled message's acknowledgement is queued here and the handler goes on at once; a sender of
its own (a thread, or a task) sends whatever is queued, one request per subscription for up to
1,000 messages (ackJobs for a queue, ackEntries for a stream's group). Once a first message is
queued the sender waits up to ACK_LINGER_SECONDS for others to share its request (not at all once
ACK_BATCH_TARGET are queued, or when the run is ending), and what is handled while a request is on
its way goes into the next: the batches grow with the load. Without the wait, a worker draining a
backlog sent a request per handful of messages, which cost it and the service more CPU than the
messages did.

At least once: a message is acknowledged only after its handler returned; a crash before the
request lands leaves it leased or pending, and it is delivered again. A request that fails for a
reason the service may recover from is sent again after a wait for as long as the run goes on;
once it is ending, one more try, then those messages are given up with a warning: they will be
delivered again.

With OpenTelemetry in use, each request runs in an ack span linked to the trace of each message
it acknowledges (sdk/_otel.py): a batch belongs to no one message's trace.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from . import _retry
from ._exceptions import APIError
from ._limits import BATCH_MAX
from ._retry import RetryPolicy, is_retryable
from ._tracing import acking
from ._worker_handlers import describe
from ._worker_sources import (
    AsyncQueueSource,
    AsyncSource,
    Delivery,
    QueueSource,
    Source,
    log_unacked,
)

if TYPE_CHECKING:
    import asyncio
__all__ = ["ACK_BATCH_TARGET", "ACK_LINGER_SECONDS", "AsyncAcks", "SyncAcks"]

# How long a first queued acknowledgement waits for others to share its request, and how many
# make a request worth sending at once. A crash during the wait redelivers those messages, as a
# crash before any acknowledgement lands does: the window grows by these milliseconds, no more.
ACK_LINGER_SECONDS = 0.005
ACK_BATCH_TARGET = 200

logger = logging.getLogger("spool")

Failed: TypeAlias = Callable[[BaseException], None]


def _send(source: Source, deliveries: list[Delivery]) -> None:
    items = [source.ack_item(delivery) for delivery in deliveries]
    with acking(source.tracing, source.subscription, deliveries):
        if isinstance(source, QueueSource):
            log_unacked(source.subscription, source.queue.ack_many(items))
        else:
            sub = source.subscription
            source.streams.ack(sub.stream, sub.group, items)


async def _asend(source: AsyncSource, deliveries: list[Delivery]) -> None:
    items = [source.ack_item(delivery) for delivery in deliveries]
    with acking(source.tracing, source.subscription, deliveries):
        if isinstance(source, AsyncQueueSource):
            log_unacked(source.subscription, await source.queue.ack_many(items))
        else:
            sub = source.subscription
            await source.streams.ack(sub.stream, sub.group, items)


class _AcksBase:
    def __init__(self, failed: Failed) -> None:
        # Sources by id, and each one's handled messages not yet acknowledged.
        self._sources: dict[int, Any] = {}
        self._pending: dict[int, list[Delivery]] = {}
        self._count = 0
        self._closing = False
        self._failed = failed
        self._policy = RetryPolicy(max_retries=0)

    def _queue(self, source: Any, delivery: Delivery) -> bool:
        """Queue `delivery`; whether the sender must hear of it: it is the first one, for an
        idle sender, or it makes a batch worth sending without waiting any longer.
        """
        key = id(source)
        self._sources[key] = source
        self._pending.setdefault(key, []).append(delivery)
        self._count += 1
        return self._count == 1 or self._count == ACK_BATCH_TARGET

    def _ready(self) -> bool:
        """Whether to send what is queued without lingering any longer."""
        return self._closing or self._count >= ACK_BATCH_TARGET

    def _take(self) -> list[tuple[Any, list[Delivery]]]:
        """Every source's pending acknowledgements, in requests of at most BATCH_MAX."""
        batches = [
            (self._sources[key], items[start : start + BATCH_MAX])
            for key, items in self._pending.items()
            for start in range(0, len(items), BATCH_MAX)
        ]
        self._pending = {}
        self._count = 0
        return batches

    def _retry_delay(
        self, source: Any, items: list[Delivery], error: APIError, failures: int
    ) -> float:
        """Seconds to wait before sending `items` again, or -1 to give them up: the run is
        closing and they failed twice, or the error is one no wait will cure (which also ends
        the run).
        """
        if not is_retryable(error) or (self._closing and failures >= 1):
            logger.warning(
                "could not acknowledge %d messages of %s: %s; they will be delivered again",
                len(items),
                describe(source.subscription),
                error,
            )
            if not is_retryable(error):
                self._failed(error)
            return -1.0
        delay = self._policy.delay(failures, error)
        logger.warning("acknowledging failed, trying again in %.1f s: %s", delay, error)
        return delay


class SyncAcks(_AcksBase):
    """The acknowledgements of a `Client.run()`, sent by a thread of their own."""

    def __init__(self, failed: Failed) -> None:
        super().__init__(failed)
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._send_all, name="spool-acks", daemon=True)
        self._thread.start()

    def add(self, source: Source, delivery: Delivery) -> None:
        """Queue the acknowledgement of a handled message."""
        with self._changed:
            if self._queue(source, delivery):
                self._changed.notify()

    def close(self) -> None:
        """Send what is queued, then stop."""
        with self._changed:
            self._closing = True
            self._changed.notify()
        self._thread.join()

    def _send_all(self) -> None:
        while True:
            with self._changed:
                while not self._pending and not self._closing:
                    self._changed.wait()
                if not self._pending:
                    return
                deadline = time.monotonic() + ACK_LINGER_SECONDS
                while not self._ready() and (left := deadline - time.monotonic()) > 0:
                    self._changed.wait(left)
                batches = self._take()
            for source, items in batches:
                self._send_batch(source, items)

    def _send_batch(self, source: Source, items: list[Delivery]) -> None:
        failures = 0
        while True:
            try:
                _send(source, items)
                return
            except APIError as error:
                delay = self._retry_delay(source, items, error, failures)
            except Exception as error:  # ends the run, raised by it
                self._failed(error)
                return
            if delay < 0:
                return
            _retry.sleep(delay)
            failures += 1


class AsyncAcks(_AcksBase):
    """The acknowledgements of an `AsyncClient.run()`, sent by a task of their own."""

    def __init__(self, failed: Failed) -> None:
        import asyncio

        super().__init__(failed)
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] = asyncio.ensure_future(self._send_all())

    def add(self, source: AsyncSource, delivery: Delivery) -> None:
        """Queue the acknowledgement of a handled message."""
        if self._queue(source, delivery):
            self._changed.set()

    async def close(self) -> None:
        """Send what is queued, then stop."""
        self._closing = True
        self._changed.set()
        await self._task

    async def _send_all(self) -> None:
        import asyncio

        while True:
            if not self._pending:
                if self._closing:
                    return
                await self._changed.wait()
                self._changed.clear()
                continue
            if not self._ready():
                # Set by the first of these or during the last request; only what comes next
                # (the batch filling up, or the run ending) may cut the wait short.
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(ACK_LINGER_SECONDS):
                        await self._changed.wait()
            for source, items in self._take():
                await self._send_batch(source, items)

    async def _send_batch(self, source: AsyncSource, items: list[Delivery]) -> None:
        failures = 0
        while True:
            try:
                await _asend(source, items)
                return
            except APIError as error:
                delay = self._retry_delay(source, items, error, failures)
            except Exception as error:  # ends the run, raised by it
                self._failed(error)
                return
            if delay < 0:
                return
            await _retry.asleep(delay)
            failures += 1
