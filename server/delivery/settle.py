"""Settling an attempt: what its result does to the message, and the callbacks it publishes.

Every attempt is recorded with ``record_attempt`` under the lease of the claim that sent it: a 2xx
answer settles the message as delivered; a network error, a timeout, a refused destination or any
other status schedules a retry after the message's ``retry_delay`` (or the default backoff) until
its retries run out, and then the message fails into the dead letters. The store counts the
attempts of the current retry budget (``retries_used``, which ``retry_dead_letter`` restarts at 0);
``Spool-Retried`` is that count.

The store refuses a lease that another claim has replaced (``lease_expired``). Then that claim's
holder owns the message: the attempt is logged and dropped, so one process never settles a message
that another is delivering.

Callbacks are not sent from here: the outcome is published as a new internal message to the
callback URL (``store.publish_messages``, under the same lease) *before* the attempt is recorded,
with the message's ``callback_headers`` (or ``failure_callback_headers``) beside the service's own.
So a callback is persisted, signed, retried and dead-lettered like any message, and survives a
crash; and a process whose lease was taken over cannot publish one. If the process dies between
publishing the callback and recording the attempt, the lease ends, the message is sent again, and
the callback's ``dedup_key`` (source message and attempt number, not the lease) makes the second
publish a no-op.

Whatever fails while settling is logged and leaves the message to its lease, after which it is
claimed and sent again: delivery is at least once, never at most once.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Literal, Protocol

from ..stores.base import (
    ConflictError,
    DeliveryAttemptRecord,
    MessageLease,
    MessageReceipt,
    MessageRecord,
    NewMessage,
)
from .attempt import AttemptResult
from .retry_delay import RetryDelay, RetryDelayError, compile_retry_delay

__all__ = [
    "CALLBACK_DEDUP_WINDOW_SECONDS",
    "CALLBACK_HEADER",
    "SOURCE_MESSAGE_HEADER",
    "Outcome",
    "SettleStore",
    "Settler",
]

logger = logging.getLogger("spool.delivery")

CALLBACK_HEADER = "Spool-Callback"
SOURCE_MESSAGE_HEADER = "Spool-Source-Message-Id"
CALLBACK_DEDUP_WINDOW_SECONDS = 7 * 24 * 3600.0

Outcome = Literal["delivered", "retry", "failed"]


class SettleStore(Protocol):
    """The part of ``server.stores.base.Store`` that settling uses."""

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
        self,
        messages: Sequence[NewMessage],
        *,
        lease: MessageLease | None = None,
        traceparent: str | None = None,
    ) -> list[MessageReceipt]:
        """See ``Store.publish_messages``."""
        ...


@functools.lru_cache(maxsize=1024)
def _compiled(expression: str) -> RetryDelay:
    # Only the syntax is checked here; the value for the retry at hand is checked when used.
    return compile_retry_delay(expression, max_retried=0)


class Settler:
    """Records attempts in the store as delivered, retried or failed, publishing callbacks first.

    Callbacks get ``callback_retries`` retries; ``default_retry_delay`` gives the milliseconds
    before retry ``retried`` of a message without ``retry_delay``. ``on_retry_scheduled`` hears the
    time of each retry recorded, ``on_callback_published`` of each callback published, so that an
    engine in this process can wake for them.
    """

    def __init__(
        self,
        store: SettleStore,
        *,
        callback_retries: int,
        default_retry_delay: Callable[[int], float],
        on_retry_scheduled: Callable[[float], None],
        on_callback_published: Callable[[], None],
    ) -> None:
        self._store = store
        self._callback_retries = callback_retries
        self._default_retry_delay = default_retry_delay
        self._on_retry_scheduled = on_retry_scheduled
        self._on_callback_published = on_callback_published

    async def settle(
        self,
        message: MessageRecord,
        attempt: DeliveryAttemptRecord,
        result: AttemptResult,
        *,
        retried: int,
        current_lease: Callable[[], str],
    ) -> None:
        """Record ``attempt`` of ``message`` (its ``retried``-th retry), which got ``result``.

        ``current_lease`` gives the lease the message is held under now: a claim of this process
        may renew it while the attempt settles. Never raises but for cancellation: a failure is
        logged and leaves the message to be claimed again once its lease ends.
        """
        try:
            await self._settle_under_current_lease(
                message, attempt, result, retried=retried, current_lease=current_lease
            )
        except Exception:
            logger.exception(
                "recording attempt %s of message %s failed; it is retried after its lease",
                attempt.attempt,
                message.message_id,
            )

    def retry_delay_ms(self, message: MessageRecord, retried: int) -> float:
        """The milliseconds before retry ``retried`` of ``message``: its ``retry_delay``, or the
        default backoff when it has none or the stored expression cannot be evaluated.
        """
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

    async def _settle_under_current_lease(
        self,
        message: MessageRecord,
        attempt: DeliveryAttemptRecord,
        result: AttemptResult,
        *,
        retried: int,
        current_lease: Callable[[], str],
    ) -> None:
        while True:
            lease_id = current_lease()
            try:
                await self._settle(message, attempt, result, retried=retried, lease_id=lease_id)
                return
            except ConflictError as error:
                if error.code != "lease_expired":
                    raise
                if current_lease() != lease_id:
                    # This process claimed the message again while settling it (see the engine's
                    # _launch): the renewed lease is ours, and a repeated callback publish is
                    # deduplicated.
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
        result: AttemptResult,
        *,
        retried: int,
        lease_id: str,
    ) -> None:
        lease = MessageLease(message_id=message.message_id, lease_id=lease_id)
        if result.succeeded:
            if message.callback:
                await self._publish_callback(
                    message, message.callback, message.callback_headers, attempt, result, lease
                )
            await self._store.record_attempt(
                message.message_id, attempt, lease_id=lease_id, outcome="delivered"
            )
            return
        if retried < message.retries:
            delay_ms = self.retry_delay_ms(message, retried + 1)
            next_attempt_at = time.time() + delay_ms / 1000.0
            await self._store.record_attempt(
                message.message_id,
                attempt,
                lease_id=lease_id,
                outcome="retry",
                next_attempt_at=next_attempt_at,
            )
            self._on_retry_scheduled(next_attempt_at)
            return
        if message.failure_callback:
            await self._publish_callback(
                message,
                message.failure_callback,
                message.failure_callback_headers,
                attempt,
                result,
                lease,
            )
        await self._store.record_attempt(
            message.message_id, attempt, lease_id=lease_id, outcome="failed"
        )

    async def _publish_callback(
        self,
        message: MessageRecord,
        callback_url: str,
        callback_headers: dict[str, str],
        attempt: DeliveryAttemptRecord,
        result: AttemptResult,
        lease: MessageLease,
    ) -> None:
        state = "delivered" if result.succeeded else "failed"
        outcome = {
            "message_id": message.message_id,
            "url": message.url,
            "url_group": message.url_group,
            "method": message.method,
            "state": state,
            "attempts": message.retries_used + 1,
            "status": result.status_code,
            "headers": result.headers,
            "body": base64.b64encode(result.body).decode("ascii"),
            "body_truncated": result.body_truncated,
            "error": result.error,
            "source_body": base64.b64encode(message.body).decode("ascii"),
        }
        kind = "success" if result.succeeded else "failure"
        callback = NewMessage(
            url=callback_url,
            body=json.dumps(outcome, separators=(",", ":")).encode("utf-8"),
            content_type="application/json",
            method="POST",
            # The caller's headers cannot hide the service's: publishing refused any Spool-* name.
            headers={
                **callback_headers,
                CALLBACK_HEADER: kind,
                SOURCE_MESSAGE_HEADER: message.message_id,
            },
            not_before=time.time(),
            retries=self._callback_retries,
            timeout=message.timeout,
            dedup_key=f"spool-callback:{kind}:{message.message_id}:{attempt.attempt}",
            dedup_window=CALLBACK_DEDUP_WINDOW_SECONDS,
            # The callback carries the message's body and its own headers: what the message
            # keeps from readers, its callback keeps too.
            redact_body=message.redact_body,
            redact_headers=message.redact_headers,
        )
        try:
            await self._store.publish_messages(
                [callback], lease=lease, traceparent=message.traceparent
            )
        except Exception as error:
            if isinstance(error, ConflictError) and error.code == "lease_expired":
                # Whoever claimed the message since reports its outcome, not this process.
                raise
            # The delivery itself succeeded or failed for good; losing its callback is bad, but
            # leaving the message unsettled would send it again, which is worse.
            logger.exception(
                "message %s: could not enqueue its %s callback", message.message_id, kind
            )
        self._on_callback_published()
