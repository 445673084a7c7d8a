"""The delivery engine: the loop in each service process that claims due messages and runs them.

One engine runs in each service process (started by the app's lifespan). It repeatedly asks the
store for due messages (``claim_due_messages`` moves them to ``delivering`` under a lease, atomically,
so several processes on one Redis never send the same attempt twice), sends each one
(server/delivery/attempt.py) and settles it under that lease (server/delivery/settle.py). Between
claims it sleeps until the next due time, a wake-up from this process, or its poll.

If a process dies mid-attempt, nothing is recorded and the message's lease (its ``timeout`` plus
the engine's ``lease_margin``) runs out; another process (or this one after a restart) claims it
again. Delivery is therefore at least once: a receiver should treat ``Spool-Message-Id`` as an
idempotency key.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from typing import Protocol

import httpx

from .. import metrics
from ..stores.base import MessageRecord, StoreUnavailableError
from .attempt import INTERRUPTED, Sender, attempt_record
from .settings import DeliverySettings
from .settle import Settler, SettleStore
from .transport import default_transport

__all__ = ["CLAIM_FLOOR_SHARE", "CLAIM_LINGER_SECONDS", "DeliveryEngine", "DeliveryStore"]

logger = logging.getLogger("spool.delivery")

# While more messages are due than slots are free, the engine claims once this share of its slots
# is free, or CLAIM_LINGER_SECONDS after a first slot freed up: one store call per batch rather than
# one per finished attempt.
CLAIM_FLOOR_SHARE = 0.25
CLAIM_LINGER_SECONDS = 0.005


class DeliveryStore(SettleStore, Protocol):
    """The part of ``server.stores.base.Store`` the engine uses: settling's, and claims."""

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """See ``Store.claim_due_messages``."""
        ...

    async def next_due_at(self) -> float | None:
        """See ``Store.next_due_at``."""
        ...


class DeliveryEngine:
    """Claims due messages from the store and delivers them until stopped.

    ``settings.concurrency`` bounds attempts in flight; ``settings.batch`` bounds one claim, which
    takes as many due messages as slots are free. Between claims the engine sleeps until the
    earliest ``next_attempt_at`` the store holds (``next_due_at``), until a publish, retry or
    callback of this process wakes it, or for ``settings.poll_interval`` at most, which bounds how
    long it takes to notice what other processes scheduled. Each claim lasts the message's
    ``timeout`` (which bounds its attempt) plus ``settings.lease_margin``, which must cover
    publishing its callback and recording the attempt, or another process may claim a message
    still being settled. Requests go through the transport ``http_transport_factory`` makes at
    each start, by default server/delivery/transport.py's, which vets every connection.
    """

    def __init__(
        self,
        store: DeliveryStore,
        settings: DeliverySettings,
        *,
        http_transport_factory: Callable[[], httpx.AsyncBaseTransport] | None = None,
    ) -> None:
        self._store = store
        self._settings = settings
        policy = settings.policy
        self._http_transport_factory = http_transport_factory or (lambda: default_transport(policy))
        self._sender = Sender(
            signing_keys=settings.signing_keys,
            signature_ttl=settings.signature_ttl,
            policy=policy,
            # The default transport vets every address it connects to, so an attempt need not
            # resolve the destination first; a transport of the caller's own gets the full check.
            vetting_transport=http_transport_factory is None,
        )
        self._settler = Settler(
            store,
            callback_retries=settings.callback_retries,
            default_retry_delay=settings.default_retry_delay,
            on_retry_scheduled=self._retry_scheduled,
            on_callback_published=self.wake,
        )
        self._transport: httpx.AsyncBaseTransport | None = None
        self._loop_task: asyncio.Task[None] | None = None
        # Set by stop(); each run has its own, so a loop abandoned by one stop() never runs on
        # after a later start().
        self._stopping = asyncio.Event()
        self._in_flight: dict[str, asyncio.Task[None]] = {}
        # The lease each message in flight is settled under: a claim of our own may renew it.
        self._leases: dict[str, str] = {}
        self._wake = asyncio.Event()
        # Whether messages may be due now: set by wake(), by the timers and by a full claim; a
        # claim that found fewer than it asked for clears it.
        self._look = True
        # The store's earliest next_attempt_at as last read, and the earliest retry this process
        # scheduled since that read began.
        self._due_at: float | None = None
        self._retry_due_at: float | None = None
        self._claim_floor = max(
            1, int(min(settings.batch, settings.concurrency) * CLAIM_FLOOR_SHARE)
        )

    @property
    def running(self) -> bool:
        """True between ``start`` and ``stop``."""
        return self._loop_task is not None

    def is_in_flight(self, message_id: str) -> bool:
        """Whether an attempt of ``message_id`` is being sent or settled here: a claim of it
        meanwhile leaves it to that attempt rather than sending it again.
        """
        return message_id in self._in_flight

    async def start(self) -> None:
        """Start the background loop; call once from the app's startup."""
        if self._loop_task is not None:
            raise RuntimeError("the delivery engine is already running")
        self._transport = self._http_transport_factory()
        self._wake = asyncio.Event()
        self._look = True
        self._due_at = self._retry_due_at = None
        self._stopping = asyncio.Event()
        self._loop_task = asyncio.create_task(self._run(self._stopping), name="spool-delivery-loop")

    async def stop(self) -> None:
        """Stop claiming, let attempts in flight finish for ``shutdown_grace`` seconds, then cut
        the rest short (each is recorded as an interrupted attempt) and close the HTTP transport.

        Returns within about ``shutdown_grace`` plus three ``stop_timeout`` whatever the store
        does: a store call that neither returns nor yields to cancellation is abandoned, logged.
        """
        loop_task, self._loop_task = self._loop_task, None
        if loop_task is None:
            return
        self._stopping.set()
        self._wake.set()
        await self._end_loop(loop_task)
        in_flight = list(self._in_flight.values())
        if in_flight:
            _, unfinished = await asyncio.wait(in_flight, timeout=self._settings.shutdown_grace)
            for task in unfinished:
                task.cancel()
            if unfinished:
                # Each cut-short attempt is still recorded, which is one more store call.
                _, stuck = await asyncio.wait(unfinished, timeout=self._settings.stop_timeout)
                if stuck:
                    logger.error(
                        "%d attempts were still being recorded %s s after they were cut short; "
                        "stopping without them (their messages are sent again after their lease)",
                        len(stuck),
                        self._settings.stop_timeout,
                    )
        if self._transport is not None:
            await self._transport.aclose()
            self._transport = None

    async def _end_loop(self, loop_task: asyncio.Task[None]) -> None:
        # The loop sees the stop at its next step, once the store call in progress returns.
        # Cancelling is the last resort: a claim cut short leaves the messages it claimed waiting
        # for their lease, and redis-py may swallow the cancellation anyway (returning, or raising
        # a connection error), which is why the loop watches the stop event rather than relying
        # on it.
        done, _ = await asyncio.wait([loop_task], timeout=self._settings.stop_timeout)
        if not done:
            loop_task.cancel()
            done, _ = await asyncio.wait([loop_task], timeout=self._settings.stop_timeout)
        if not done:
            logger.error(
                "the delivery loop's store call ignored its cancellation for %s s; stopping "
                "without it",
                self._settings.stop_timeout,
            )
            return
        if not loop_task.cancelled() and loop_task.exception() is not None:
            logger.error("the delivery loop failed", exc_info=loop_task.exception())

    def wake(self) -> None:
        """Look for due messages now instead of at the next due time or poll (e.g. right after a
        publish).
        """
        self._look = True
        self._wake.set()

    def _retry_scheduled(self, at: float) -> None:
        """This process scheduled a retry for ``at``: wake then, however far the poll is."""
        if self._retry_due_at is None or at < self._retry_due_at:
            self._retry_due_at = at
            self._wake.set()

    def _timer_fired(self) -> None:
        self._look = True
        self._wake.set()

    async def _run(self, stopping: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        linger_until: float | None = None
        while not stopping.is_set():
            self._wake.clear()
            free = self._settings.concurrency - len(self._in_flight)
            if self._look and free > 0:
                if free < self._claim_floor and linger_until is None:
                    linger_until = loop.time() + CLAIM_LINGER_SECONDS
                if linger_until is None or free >= self._claim_floor or loop.time() >= linger_until:
                    linger_until = None
                    full = await self._claim(min(self._settings.batch, free), stopping)
                    if stopping.is_set():
                        return
                    if full:
                        # More may be due: claim again as soon as slots are free.
                        await asyncio.sleep(0)
                        continue
            await self._sleep(loop, free, linger_until)

    async def _claim(self, limit: int, stopping: asyncio.Event) -> bool:
        """Claim and launch up to ``limit`` due messages; True when the claim was full."""
        self._look = False
        self._retry_due_at = None
        now = time.time()
        try:
            claimed = await self._store.claim_due_messages(
                now=now, limit=limit, lease_margin=self._settings.lease_margin
            )
        except StoreUnavailableError as error:
            # An outage is expected to pass; a traceback per poll would only bury it.
            logger.warning("claiming due messages failed: %s; trying again", error.detail)
            self._due_at = None
            return False
        except Exception:
            logger.exception("claiming due messages failed; trying again after a pause")
            self._due_at = None
            return False
        metrics.messages_claimed(claimed, now=now)
        # Launched even when stopping: they are claimed now, and stop() gives them its grace
        # instead of leaving them to wait for their lease.
        for message in claimed:
            self._launch(message)
        if len(claimed) == limit:
            self._look = True
            return True
        if not stopping.is_set():
            await self._read_next_due()
        return False

    async def _read_next_due(self) -> None:
        try:
            self._due_at = await self._store.next_due_at()
        except StoreUnavailableError as error:
            logger.warning("reading the next due time failed: %s; polling", error.detail)
            self._due_at = None
        except Exception:
            logger.exception("reading the next due time failed; polling")
            self._due_at = None

    async def _sleep(
        self, loop: asyncio.AbstractEventLoop, free: int, linger_until: float | None
    ) -> None:
        """Wait for a wake-up, or until the next due time, the poll or the end of a linger."""
        delay: float | None = None
        if free > 0:
            delay = self._settings.poll_interval
            for due_at in (self._due_at, self._retry_due_at):
                if due_at is not None:
                    delay = min(delay, max(0.0, due_at - time.time()))
            if linger_until is not None:
                delay = min(delay, max(0.0, linger_until - loop.time()))
        # With every slot busy, only a finishing attempt (or stop()) can let the loop claim, and
        # each one wakes it. A timer that sets the event, not asyncio.timeout or wait_for: both
        # read a task's pending cancellations, which a swallowed cancellation leaves miscounted.
        timer = None if delay is None else loop.call_later(delay, self._timer_fired)
        try:
            await self._wake.wait()
        finally:
            if timer is not None:
                timer.cancel()

    def _launch(self, message: MessageRecord) -> None:
        if self._transport is None:
            # Only a loop abandoned by stop() gets here, when its store call finally returns.
            logger.warning(
                "message %s was claimed after the engine stopped; it is sent after its lease",
                message.message_id,
            )
            return
        if message.lease_id is None:
            logger.error(
                "the store claimed message %s without a lease id; not delivering it",
                message.message_id,
            )
            return
        if self.is_in_flight(message.message_id):
            # Our own lease ran out while this attempt is still being settled, and this process
            # claimed it again: the running attempt settles it under the new lease, since a second
            # concurrent send would only duplicate it.
            logger.warning(
                "message %s was claimed again while still in flight; lease_margin (%s s) is "
                "shorter than settling its attempt",
                message.message_id,
                self._settings.lease_margin,
            )
            self._leases[message.message_id] = message.lease_id
            return
        task = asyncio.create_task(
            self._deliver(message), name=f"spool-deliver-{message.message_id}"
        )
        self._in_flight[message.message_id] = task
        self._leases[message.message_id] = message.lease_id
        task.add_done_callback(functools.partial(self._finished, message.message_id))

    def _finished(self, message_id: str, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            logger.error(
                "delivering message %s failed; it is sent again after its lease",
                message_id,
                exc_info=task.exception(),
            )
        self._land(message_id, task)
        # A slot is free: the loop claims more if messages are still due.
        self._wake.set()

    def _land(self, message_id: str, task: asyncio.Task[None]) -> None:
        """Take ``task``'s message out of flight, unless a later attempt of it is in flight."""
        if self._in_flight.get(message_id) is task:
            del self._in_flight[message_id]
            self._leases.pop(message_id, None)

    async def _deliver(self, message: MessageRecord) -> None:
        transport = self._transport
        if transport is None:
            raise RuntimeError("the delivery engine is not running")
        retried = message.retries_used
        started_at = time.time()
        clock = time.monotonic()
        interrupted = False
        try:
            result = await self._sender.send(message, retried=retried, transport=transport)
        except asyncio.CancelledError:
            interrupted = True
            result = INTERRUPTED
        attempt = attempt_record(
            message,
            result,
            started_at=started_at,
            duration_ms=max(0, round((time.monotonic() - clock) * 1000)),
        )
        metrics.delivery_attempt_ended(
            succeeded=result.succeeded,
            last=retried >= message.retries,
            error=result.error,
            status=result.status_code,
            seconds=time.monotonic() - clock,
        )
        try:
            await self._settler.settle(
                message,
                attempt,
                result,
                retried=retried,
                current_lease=lambda: self._leases[message.message_id],
            )
        finally:
            # Out of flight as soon as it is settled: a retry due at once may be claimed before
            # this task's done callback runs, and must then be sent, not taken for a claim made
            # while this attempt ran (which would leave it waiting for its new lease to end).
            this_task = asyncio.current_task()
            assert this_task is not None
            self._land(message.message_id, this_task)
        if interrupted:
            raise asyncio.CancelledError
