"""The delivery engine: sends due messages to their URLs, retries them, and reports outcomes.

One engine runs in each service process (started by the app's lifespan). It repeatedly asks the
store for due messages (``claim_due_messages`` moves them to ``delivering`` under a lease, atomically,
so several processes on one Redis never send the same attempt twice) and sends each one: its
method, exact body bytes, content type and forwarded headers, plus ``Spool-Signature`` (see
``server/signing.py``), ``Spool-Message-Id`` and ``Spool-Retried``. Every attempt is recorded with
``record_attempt``: a 2xx answer settles the message as delivered; a network error, a timeout, a
refused destination or any other status schedules a retry after the message's ``retry_delay`` (or
the default backoff) until its retries run out, and then the message fails into the dead letters.
The store counts the attempts of the current retry budget (``retries_used``, which
``retry_dead_letter`` restarts at 0); ``Spool-Retried`` is that count.

Each claim carries a ``lease_id``; the attempt is recorded under it, and the store refuses it
(``lease_expired``) once another claim has replaced the lease. Then the other claim's holder owns
the message: this process logs and drops its attempt, so one process never settles a message that
another is delivering.

Callbacks are not sent from here directly: the outcome is published as a new internal message to
the callback URL (``store.publish_messages``, under the same lease) *before* the attempt is
recorded. So a callback is persisted, signed, retried and dead-lettered like any message, and
survives a crash; and a process whose lease was taken over cannot publish one. If the process dies
between publishing the callback and recording the attempt, the lease ends, the message is sent
again, and the callback's ``dedup_key`` (source message and attempt number, not the lease) makes the
second publish a no-op.

If a process dies mid-attempt, nothing is recorded and the message's lease (its ``timeout`` plus
the engine's ``lease_margin``) runs out; another process (or this one after a restart) claims it
again. Delivery is therefore at least once: a
receiver should treat ``Spool-Message-Id`` as an idempotency key.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import functools
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

import httpx

from ..config import DEFAULT_LEASE_MARGIN_SECONDS, DEFAULT_POLL_INTERVAL_SECONDS
from ..destinations import DestinationNotAllowed, DestinationPolicy
from ..signing import DEFAULT_TTL_SECONDS, SIGNATURE_HEADER, SigningKeys, sign
from ..stores.base import (
    ConflictError,
    DeliveryAttemptRecord,
    MessageLease,
    MessageReceipt,
    MessageRecord,
    NewMessage,
    StoreUnavailableError,
)
from .retry_delay import RetryDelay, RetryDelayError, compile_retry_delay, default_backoff_ms
from .transport import default_transport

__all__ = [
    "CALLBACK_HEADER",
    "DEFAULT_STOP_TIMEOUT_SECONDS",
    "MAX_CAPTURED_RESPONSE_BYTES",
    "MESSAGE_ID_HEADER",
    "RESPONSE_EXCERPT_CHARS",
    "RETRIED_HEADER",
    "SOURCE_MESSAGE_HEADER",
    "DeliveryEngine",
    "DeliveryStore",
    "default_transport",
]

logger = logging.getLogger("spool.delivery")

MESSAGE_ID_HEADER = "Spool-Message-Id"
RETRIED_HEADER = "Spool-Retried"
CALLBACK_HEADER = "Spool-Callback"
SOURCE_MESSAGE_HEADER = "Spool-Source-Message-Id"

RESPONSE_EXCERPT_CHARS = 2048
MAX_CAPTURED_RESPONSE_BYTES = 256 * 1024
# While more messages are due than slots are free, the engine claims once this share of its slots
# is free, or CLAIM_LINGER_SECONDS after a first slot freed up: one store call per batch rather than
# one per finished attempt.
CLAIM_FLOOR_SHARE = 0.25
CLAIM_LINGER_SECONDS = 0.005
# How long stop() waits for the loop's store call in progress to return, and then again once it is
# cancelled: a claim normally takes milliseconds, a Redis reconnect up to its 5 s connect timeout.
DEFAULT_STOP_TIMEOUT_SECONDS = 5.0
CALLBACK_RETRIES = 3
CALLBACK_DEDUP_WINDOW_SECONDS = 7 * 24 * 3600.0

# Framing and hop-by-hop headers belong to each connection, and the engine sets the Spool-* ones;
# forwarding a caller's copy would corrupt the request or forge the engine's own headers.
_NOT_FORWARDED = frozenset(
    {
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "keep-alive",
        "upgrade",
        "te",
        "trailer",
        "proxy-authorization",
        "proxy-connection",
        SIGNATURE_HEADER.lower(),
        MESSAGE_ID_HEADER.lower(),
        RETRIED_HEADER.lower(),
    }
)

# Sent unless the message forwards its own.
_DEFAULT_HEADERS = {"User-Agent": "Spool-Delivery/0.1", "Accept": "*/*"}

Outcome = Literal["delivered", "retry", "failed"]


class DeliveryStore(Protocol):
    """The part of ``server.stores.base.Store`` the engine uses."""

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """See ``Store.claim_due_messages``."""
        ...

    async def record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Outcome,
        next_attempt_at: float | None = None,
    ) -> MessageRecord:
        """See ``Store.record_attempt``."""
        ...

    async def publish_messages(
        self, messages: Sequence[NewMessage], *, lease: MessageLease | None = None
    ) -> list[MessageReceipt]:
        """See ``Store.publish_messages``."""
        ...

    async def next_due_at(self) -> float | None:
        """See ``Store.next_due_at``."""
        ...


@functools.lru_cache(maxsize=4096)
def _url(url: str) -> httpx.URL:
    # httpx parses a URL given as text again for every request; a parsed one is immutable.
    return httpx.URL(url)


@functools.lru_cache(maxsize=64)
def _phase_timeouts(seconds: int) -> dict[str, float]:
    return httpx.Timeout(seconds).as_dict()  # type: ignore[return-value]


@functools.lru_cache(maxsize=1024)
def _compiled(expression: str) -> RetryDelay:
    # Only the syntax is checked here; the value for the retry at hand is checked when used.
    return compile_retry_delay(expression, max_retried=0)


@dataclasses.dataclass(frozen=True, slots=True)
class _Response:
    """What one attempt got back, or why it got nothing."""

    status_code: int | None = None
    headers: dict[str, str] = dataclasses.field(default_factory=dict)
    body: bytes = b""
    body_truncated: bool = False
    error: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.error is None and self.status_code is not None and 200 <= self.status_code < 300


class DeliveryEngine:
    """Claims due messages from the store and delivers them until stopped.

    ``concurrency`` bounds attempts in flight; ``batch`` bounds one claim, which takes as many due
    messages as slots are free. Between claims the engine sleeps until the earliest
    ``next_attempt_at`` the store holds (``next_due_at``), until a publish, retry or callback of
    this process wakes it, or for ``poll_interval`` at most, which bounds how long it takes to
    notice what other processes scheduled. Each claim lasts the
    message's ``timeout`` (which bounds its attempt) plus ``lease_margin``, which must cover
    publishing its callback and recording the attempt, or another process may claim a message still
    being settled. ``default_retry_delay`` gives the milliseconds before retry ``retried`` for
    messages without ``retry_delay``. ``shutdown_grace`` is how long ``stop`` lets attempts in
    flight finish; ``stop_timeout`` how long it waits for a store call before giving up on it.
    """

    def __init__(
        self,
        store: DeliveryStore,
        *,
        signing_keys: SigningKeys,
        policy: DestinationPolicy,
        http_transport_factory: Callable[[], httpx.AsyncBaseTransport] | None = None,
        poll_interval: float = DEFAULT_POLL_INTERVAL_SECONDS,
        lease_margin: float = DEFAULT_LEASE_MARGIN_SECONDS,
        batch: int = 50,
        concurrency: int = 50,
        callback_retries: int = CALLBACK_RETRIES,
        signature_ttl: float = DEFAULT_TTL_SECONDS,
        shutdown_grace: float = 10.0,
        stop_timeout: float = DEFAULT_STOP_TIMEOUT_SECONDS,
        default_retry_delay: Callable[[int], float] = default_backoff_ms,
    ) -> None:
        if poll_interval <= 0 or lease_margin < 0 or shutdown_grace < 0 or stop_timeout <= 0:
            raise ValueError(
                "poll_interval and stop_timeout must be > 0, lease_margin and shutdown_grace >= 0"
            )
        if batch < 1 or concurrency < 1 or callback_retries < 0:
            raise ValueError("batch and concurrency must be >= 1, callback_retries >= 0")
        self._store = store
        self._signing_keys = signing_keys
        self._policy = policy
        # The default transport vets every address it connects to, so an attempt need not resolve
        # the destination first; a transport of the caller's own gets the full check per attempt.
        self._vetting_transport = http_transport_factory is None
        self._http_transport_factory = http_transport_factory or (lambda: default_transport(policy))
        self._poll_interval = poll_interval
        self._lease_margin = lease_margin
        self._batch = batch
        self._concurrency = concurrency
        self._callback_retries = callback_retries
        self._signature_ttl = signature_ttl
        self._shutdown_grace = shutdown_grace
        self._stop_timeout = stop_timeout
        self._default_retry_delay = default_retry_delay
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
        self._claim_floor = max(1, int(min(batch, concurrency) * CLAIM_FLOOR_SHARE))

    @property
    def running(self) -> bool:
        """True between ``start`` and ``stop``."""
        return self._loop_task is not None

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
            _, unfinished = await asyncio.wait(in_flight, timeout=self._shutdown_grace)
            for task in unfinished:
                task.cancel()
            if unfinished:
                # Each cut-short attempt is still recorded, which is one more store call.
                _, stuck = await asyncio.wait(unfinished, timeout=self._stop_timeout)
                if stuck:
                    logger.error(
                        "%d attempts were still being recorded %s s after they were cut short; "
                        "stopping without them (their messages are sent again after their lease)",
                        len(stuck),
                        self._stop_timeout,
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
        done, _ = await asyncio.wait([loop_task], timeout=self._stop_timeout)
        if not done:
            loop_task.cancel()
            done, _ = await asyncio.wait([loop_task], timeout=self._stop_timeout)
        if not done:
            logger.error(
                "the delivery loop's store call ignored its cancellation for %s s; stopping "
                "without it",
                self._stop_timeout,
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
            free = self._concurrency - len(self._in_flight)
            if self._look and free > 0:
                if free < self._claim_floor and linger_until is None:
                    linger_until = loop.time() + CLAIM_LINGER_SECONDS
                if linger_until is None or free >= self._claim_floor or loop.time() >= linger_until:
                    linger_until = None
                    full = await self._claim(min(self._batch, free), stopping)
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
        try:
            claimed = await self._store.claim_due_messages(
                now=time.time(), limit=limit, lease_margin=self._lease_margin
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
            delay = self._poll_interval
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
        if message.message_id in self._in_flight:
            # Our own lease ran out while this attempt is still being settled, and this process
            # claimed it again: the running attempt settles it under the new lease, since a second
            # concurrent send would only duplicate it.
            logger.warning(
                "message %s was claimed again while still in flight; lease_margin (%s s) is "
                "shorter than settling its attempt",
                message.message_id,
                self._lease_margin,
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
        self._in_flight.pop(message_id, None)
        self._leases.pop(message_id, None)
        # A slot is free: the loop claims more if messages are still due.
        self._wake.set()

    async def _deliver(self, message: MessageRecord) -> None:
        retried = message.retries_used
        started_at = time.time()
        clock = time.monotonic()
        interrupted = False
        try:
            response = await self._attempt(message, retried)
        except asyncio.CancelledError:
            interrupted = True
            response = _Response(error="interrupted: the service stopped during this attempt")
        attempt = DeliveryAttemptRecord(
            attempt=len(message.attempts) + 1,
            started_at=started_at,
            duration_ms=max(0, round((time.monotonic() - clock) * 1000)),
            status_code=response.status_code,
            response_excerpt=(
                response.body.decode("utf-8", errors="replace")[:RESPONSE_EXCERPT_CHARS]
                if response.status_code is not None
                else None
            ),
            error=response.error,
        )
        try:
            await self._settle_under_current_lease(message, attempt, response, retried)
        except Exception:
            logger.exception(
                "recording attempt %s of message %s failed; it is retried after its lease",
                attempt.attempt,
                message.message_id,
            )
        if interrupted:
            raise asyncio.CancelledError

    async def _settle_under_current_lease(
        self,
        message: MessageRecord,
        attempt: DeliveryAttemptRecord,
        response: _Response,
        retried: int,
    ) -> None:
        while True:
            lease_id = self._leases[message.message_id]
            try:
                await self._settle(message, attempt, response, retried, lease_id=lease_id)
                return
            except ConflictError as error:
                if error.code != "lease_expired":
                    raise
                if self._leases[message.message_id] != lease_id:
                    # This process claimed the message again while settling it (see _launch):
                    # the renewed lease is ours, and a repeated callback publish is deduplicated.
                    continue
                logger.warning(
                    "attempt %s of message %s was not recorded: another claim took over its "
                    "lease and delivers it now",
                    attempt.attempt,
                    message.message_id,
                )
                return

    async def _settle(
        self,
        message: MessageRecord,
        attempt: DeliveryAttemptRecord,
        response: _Response,
        retried: int,
        *,
        lease_id: str,
    ) -> None:
        lease = MessageLease(message_id=message.message_id, lease_id=lease_id)
        if response.succeeded:
            if message.callback:
                await self._publish_callback(message, message.callback, attempt, response, lease)
            await self._store.record_attempt(
                message.message_id, attempt, lease_id=lease_id, outcome="delivered"
            )
            return
        if retried < message.retries:
            delay_ms = self._retry_delay_ms(message, retried + 1)
            next_attempt_at = time.time() + delay_ms / 1000.0
            await self._store.record_attempt(
                message.message_id,
                attempt,
                lease_id=lease_id,
                outcome="retry",
                next_attempt_at=next_attempt_at,
            )
            self._retry_scheduled(next_attempt_at)
            return
        if message.failure_callback:
            await self._publish_callback(
                message, message.failure_callback, attempt, response, lease
            )
        await self._store.record_attempt(
            message.message_id, attempt, lease_id=lease_id, outcome="failed"
        )

    def _retry_delay_ms(self, message: MessageRecord, retried: int) -> float:
        if message.retry_delay:
            try:
                return _compiled(message.retry_delay)(retried)
            except RetryDelayError as error:
                # Publishing validates the expression; this only happens for messages stored
                # before a validation rule existed, and the default keeps them moving.
                logger.warning(
                    "message %s: %s; using the default backoff", message.message_id, error
                )
        return self._default_retry_delay(retried)

    def _headers(self, message: MessageRecord, retried: int) -> httpx.Headers:
        headers = httpx.Headers(_DEFAULT_HEADERS)
        for name, value in message.headers.items():
            if name.lower() not in _NOT_FORWARDED:
                headers[name] = value
        headers["Content-Type"] = message.content_type
        headers[SIGNATURE_HEADER] = sign(
            self._signing_keys.current,
            url=message.url,
            body=message.body,
            now=time.time(),
            ttl=self._signature_ttl,
        )
        headers[MESSAGE_ID_HEADER] = message.message_id
        headers[RETRIED_HEADER] = str(retried)
        return headers

    async def _attempt(self, message: MessageRecord, retried: int) -> _Response:
        try:
            # Checked again at delivery time: DNS may now point the name somewhere refused. The
            # default transport does that for every connection it opens, at the address it connects to.
            await self._policy.check(message.url, resolve=not self._vetting_transport)
        except DestinationNotAllowed as error:
            return _Response(error=f"destination not allowed: {error}")
        transport = self._transport
        if transport is None:
            raise RuntimeError("the delivery engine is not running")
        request = httpx.Request(
            message.method,
            _url(message.url),
            content=message.body,
            headers=self._headers(message, retried),
            # httpx's timeout bounds each phase of the exchange.
            extensions={"timeout": _phase_timeouts(message.timeout)},
        )
        try:
            # This bounds the whole attempt, so a receiver that trickles its answer byte by byte
            # still fails at ``timeout``.
            async with asyncio.timeout(message.timeout):
                answer = await transport.handle_async_request(request)
                try:
                    body, truncated = await _read_capped(answer)
                finally:
                    await answer.aclose()
        except (TimeoutError, httpx.TimeoutException):
            return _Response(error=f"timed out after {message.timeout} s")
        except httpx.HTTPError as error:
            return _Response(error=f"{type(error).__name__}: {error}".rstrip(": "))
        except Exception as error:
            logger.exception("message %s: unexpected delivery error", message.message_id)
            return _Response(error=f"{type(error).__name__}: {error}".rstrip(": "))
        status = answer.status_code
        return _Response(
            status_code=status,
            headers=dict(answer.headers.items()),
            body=body,
            body_truncated=truncated,
            error=None if 200 <= status < 300 else f"HTTP {status} {answer.reason_phrase}".strip(),
        )

    async def _publish_callback(
        self,
        message: MessageRecord,
        callback_url: str,
        attempt: DeliveryAttemptRecord,
        response: _Response,
        lease: MessageLease,
    ) -> None:
        state = "delivered" if response.succeeded else "failed"
        outcome = {
            "message_id": message.message_id,
            "url": message.url,
            "url_group": message.url_group,
            "method": message.method,
            "state": state,
            "attempts": message.retries_used + 1,
            "status": response.status_code,
            "headers": response.headers,
            "body": base64.b64encode(response.body).decode("ascii"),
            "body_truncated": response.body_truncated,
            "error": response.error,
            "source_body": base64.b64encode(message.body).decode("ascii"),
        }
        kind = "success" if response.succeeded else "failure"
        callback = NewMessage(
            url=callback_url,
            body=json.dumps(outcome, separators=(",", ":")).encode("utf-8"),
            content_type="application/json",
            method="POST",
            headers={CALLBACK_HEADER: kind, SOURCE_MESSAGE_HEADER: message.message_id},
            not_before=time.time(),
            retries=self._callback_retries,
            timeout=message.timeout,
            dedup_key=f"spool-callback:{kind}:{message.message_id}:{attempt.attempt}",
            dedup_window=CALLBACK_DEDUP_WINDOW_SECONDS,
        )
        try:
            await self._store.publish_messages([callback], lease=lease)
        except Exception as error:
            if isinstance(error, ConflictError) and error.code == "lease_expired":
                # Whoever claimed the message since reports its outcome, not this process.
                raise
            # The delivery itself succeeded or failed for good; losing its callback is bad, but
            # leaving the message unsettled would send it again, which is worse.
            logger.exception(
                "message %s: could not enqueue its %s callback", message.message_id, kind
            )
        self.wake()


async def _read_capped(response: httpx.Response) -> tuple[bytes, bool]:
    """The body up to ``MAX_CAPTURED_RESPONSE_BYTES``, and whether more was left unread."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        room = MAX_CAPTURED_RESPONSE_BYTES - size
        if len(chunk) > room:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False
