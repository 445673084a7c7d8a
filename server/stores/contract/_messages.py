"""The contract of HTTP messages, their URL groups and dead letters: what each public method
promises and checks.

Every public method checks its arguments (``..checks``) and then calls its hook, the method of the
same name with a leading underscore, which a backend implements. A hook is only ever called with
arguments that passed: limits of at least 1, a finite ``lease_margin`` >= 0, a known outcome, and
each message's headers already written as JSON text by ``dump_json``.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Mapping, Sequence
from typing import Literal, get_args

from ..checks import check_at_least_one, check_lease_margin, check_traceparent, dump_json
from ..cursors import (
    dead_letter_cursor,
    dead_letter_cursor_position,
    log_cursor,
    log_cursor_position,
    message_cursor,
    message_cursor_position,
)
from ..errors import StoreError
from ..message_filter import MessageFilter
from ..records import (
    DeadLetterFilter,
    DeadLetterPage,
    DeadLetterPosition,
    DeadLetterRecord,
    DeliveryAttemptRecord,
    IdempotencyClaim,
    LogEventRecord,
    LogPage,
    LogState,
    MessageLease,
    MessagePage,
    MessageReceipt,
    MessageRecord,
    MessageState,
    NewMessage,
    UrlEndpoint,
    UrlGroupRecord,
)

__all__ = ["DEAD_LETTER_BATCH_MAX", "MessagesContract"]

# The most dead letters one bulk call names: openapi.yaml's DeadLetterIds and DeadLetterBulkLimit.
DEAD_LETTER_BATCH_MAX = 1000

Outcome = Literal["delivered", "retry", "failed"]
_OUTCOMES = ("delivered", "retry", "failed")
_STATES: tuple[str, ...] = get_args(MessageState)
_LOG_STATES: tuple[str, ...] = get_args(LogState)
_NO_FILTER = MessageFilter()


class MessagesContract(abc.ABC):
    """Messages, URL groups and dead letters: the public methods with their checks, and hooks."""

    # Messages ------------------------------------------------------------------------------

    async def publish_messages(
        self,
        messages: Sequence[NewMessage],
        *,
        lease: MessageLease | None = None,
        idempotency: IdempotencyClaim | None = None,
        traceparent: str | None = None,
    ) -> list[MessageReceipt]:
        """Accept all ``messages`` in order, or none, each ``scheduled`` for ``not_before``.
        A message whose ``dedup_key`` names a message created within its ``dedup_window`` (also
        earlier in the same call) yields that message's id with ``deduplicated=True``. At most
        once per ``idempotency`` key; every receipt of a replay is marked ``replayed``.

        With ``lease`` (how the delivery engine publishes a message's callbacks), publish only
        while that lease is current by ``record_attempt``'s rule, else raise
        ``ConflictError("lease_expired")`` and publish nothing: a process whose claim was taken
        over cannot report an outcome. ``message_not_found`` when the leased message does not exist.

        Each message keeps ``traceparent`` (the publisher's W3C trace context), which
        ``get_message`` and ``claim_due_messages`` answer.
        """
        check_traceparent(traceparent)
        headers = [dump_json(message.headers, what="message headers") for message in messages]
        return await self._publish_messages(
            messages,
            headers=headers,
            lease=lease,
            idempotency=idempotency,
            traceparent=traceparent,
        )

    async def get_message(self, message_id: str) -> MessageRecord:
        """The message with its attempts (``message_not_found``)."""
        return await self._get_message(message_id)

    async def list_messages(
        self,
        *,
        where: MessageFilter = _NO_FILTER,
        limit: int,
        cursor: str | None,
    ) -> MessagePage:
        """Up to ``limit`` messages, newest published first, only those that pass ``where``
        (its ``state`` a ``MessageState``, its times bounding ``created_at``), from ``cursor`` (an
        earlier page's ``next_cursor``; None for the first page). A page may be shorter than
        ``limit`` before the last (a backend may look at a bounded number of messages per page);
        the last page's ``next_cursor`` is None. Messages published after the first page are not
        in the later ones. An unknown state or a cursor that is not a message listing's is
        ``validation_failed``.
        """
        where.check(states=_STATES)
        check_at_least_one(limit, name="limit")
        before = None if cursor is None else message_cursor_position(cursor)
        messages, next_before = await self._list_messages(where=where, limit=limit, cursor=before)
        return MessagePage(
            messages=messages,
            next_cursor=None if next_before is None else message_cursor(next_before),
        )

    async def list_logs(
        self,
        *,
        where: MessageFilter = _NO_FILTER,
        limit: int,
        cursor: str | None,
    ) -> LogPage:
        """Up to ``limit`` events of messages, newest first, from ``cursor`` (an earlier page's
        ``next_cursor``), only those that pass ``where``: its ``state`` a ``LogState`` of the
        event, its times bounding the event's ``at``, the rest the event's message. Short pages
        and the last page's cursor as ``list_messages``. Every method that changes a message's
        state writes its event in the same atomic write: ``publish_messages`` ``created``,
        ``cancel_message`` ``cancelled``, ``record_attempt`` ``retry``, ``delivered`` or
        ``failed`` then ``dead_lettered`` (with the attempt's number, status code and error),
        ``retry_dead_letter`` ``scheduled``. An unknown state or a cursor that is not a log
        listing's is ``validation_failed``.
        """
        where.check(states=_LOG_STATES)
        check_at_least_one(limit, name="limit")
        before = None if cursor is None else log_cursor_position(cursor)
        events, next_before = await self._list_logs(where=where, limit=limit, cursor=before)
        return LogPage(
            events=events, next_cursor=None if next_before is None else log_cursor(next_before)
        )

    async def prune_logs(self, *, before: float, limit: int) -> int:
        """Remove up to ``limit`` of the oldest events that happened before ``before``, and
        answer how many went; fewer than ``limit`` means none older is left.
        """
        check_at_least_one(limit, name="limit")
        return await self._prune_logs(before=before, limit=limit)

    async def cancel_message(self, message_id: str) -> MessageRecord:
        """Cancel a ``scheduled`` message; ``ConflictError("invalid_state")`` for any other state."""
        return await self._cancel_message(message_id)

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """For the delivery engine: atomically move up to ``limit`` messages that are
        ``scheduled`` with ``next_attempt_at <= now`` to ``delivering``, each under a fresh
        ``lease_id`` and a lease of its own ``timeout + lease_margin`` seconds:
        ``next_attempt_at = now + timeout + lease_margin``. A ``delivering`` message whose lease
        ended (its process died) is due again, and claiming it again replaces its ``lease_id``. No
        message is claimed by two callers at once. A negative (or not finite) ``lease_margin`` is
        ``validation_failed``.

        A message published with ``flow_control`` is claimed only within its key's limits
        (``_flow_control``); one held back stays ``scheduled`` and does not count against
        ``limit``, nor keep the claim from the due messages behind it.
        """
        check_at_least_one(limit, name="limit")
        check_lease_margin(lease_margin)
        return await self._claim_due_messages(now=now, limit=limit, lease_margin=lease_margin)

    async def record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Outcome,
        next_attempt_at: float | None = None,
    ) -> MessageRecord:
        """Append ``attempt``, add one to ``retries_used`` and settle the message, ending its lease
        (``lease_id`` becomes None): ``delivered``; ``retry`` (back to ``scheduled`` at
        ``next_attempt_at``); or ``failed``, which also adds a dead letter.

        The lease must be current: the message is ``delivering`` under ``lease_id``. Otherwise
        (another claim replaced it after it ended, or its attempt was already recorded) this
        raises ``ConflictError("lease_expired")`` and writes nothing. A lease that ended without
        being claimed again is still current. An unknown message is ``message_not_found``
        whatever the lease; a ``retry`` without ``next_attempt_at`` or an unknown ``outcome`` is
        ``validation_failed``.
        """
        if outcome not in _OUTCOMES:
            raise StoreError("validation_failed", f"unknown delivery outcome {outcome!r}")
        if outcome == "retry" and next_attempt_at is None:
            raise StoreError("validation_failed", "a retry needs next_attempt_at")
        return await self._record_attempt(
            message_id,
            attempt,
            lease_id=lease_id,
            outcome=outcome,
            next_attempt_at=next_attempt_at,
        )

    async def next_due_at(self) -> float | None:
        """For the delivery engine: the earliest ``next_attempt_at`` of the messages that are
        ``scheduled`` or ``delivering`` (for a delivering message, when its lease ends), or the
        earliest time a flow control key may let a held-back message through, whether that time
        has passed or not; None when there is none. A claim with ``now`` at or
        after that time finds the message, unless it was claimed, settled or cancelled meanwhile.
        Reads only.
        """
        return await self._next_due_at()

    # URL groups ----------------------------------------------------------------------------

    async def put_url_group(self, name: str, endpoints: Sequence[UrlEndpoint]) -> UrlGroupRecord:
        """Create the group or replace its endpoints."""
        return await self._put_url_group(name, endpoints)

    async def get_url_group(self, name: str) -> UrlGroupRecord:
        """The group (``url_group_not_found``)."""
        return await self._get_url_group(name)

    async def list_url_groups(self) -> list[UrlGroupRecord]:
        """Every URL group, by name."""
        return await self._list_url_groups()

    async def delete_url_group(self, name: str) -> None:
        """Delete the group (``url_group_not_found``)."""
        await self._delete_url_group(name)

    # Dead letters --------------------------------------------------------------------------

    async def list_dead_letters(
        self,
        *,
        limit: int,
        selection: DeadLetterFilter | None = None,
        cursor: str | None = None,
    ) -> DeadLetterPage:
        """The dead letters ``selection`` matches (None: all) among the next ``limit`` (at most,
        and at most 1000) filed after ``cursor`` (an earlier page's ``next_cursor``; None for the
        first), oldest first. A page may hold fewer than ``limit``, none even, before the last (a
        backend may look at ``limit`` dead letters and keep those that match); the last page's
        ``next_cursor`` is None. The pages after the first look only at the letters filed by the
        first (its store time, kept in the cursor), so a walk that retries what it finds ends
        even when the retried letters fail again. A cursor that is not a page of dead letters', a time range
        that is not finite, or a limit out of range is ``validation_failed``.
        """
        _check_batch(limit, what="limit")
        selection = selection or DeadLetterFilter()
        for bound in (selection.filed_from, selection.filed_to):
            if bound is not None and not math.isfinite(bound):
                raise StoreError("validation_failed", f"a filing time must be finite: {bound!r}")
        position = None if cursor is None else dead_letter_cursor_position(cursor)
        letters, next_position = await self._list_dead_letters(
            selection=selection, limit=limit, cursor=position
        )
        return DeadLetterPage(
            dead_letters=letters,
            next_cursor=None if next_position is None else dead_letter_cursor(next_position),
        )

    async def find_dead_letters(self, message_ids: Sequence[str]) -> list[DeadLetterRecord]:
        """The dead letters of those of ``message_ids`` (at most 1000) that have one, in the
        order given, each once. Reads only.
        """
        distinct = _distinct_ids(message_ids)
        return await self._find_dead_letters(distinct) if distinct else []

    async def delete_dead_letter(self, message_id: str) -> None:
        """Forget a dead letter (``dead_letter_not_found``); the message stays readable."""
        await self._delete_dead_letter(message_id)

    async def delete_dead_letters(self, message_ids: Sequence[str]) -> list[str]:
        """Forget, as ``delete_dead_letter`` does, the dead letters of those of ``message_ids``
        (at most 1000) that have one, and answer their ids in the order given, each once. An id
        with no dead letter (there never was one, or another call took it first) is passed over.
        """
        distinct = _distinct_ids(message_ids)
        return await self._delete_dead_letters(distinct) if distinct else []

    async def retry_dead_letter(
        self, message_id: str, *, headers: Mapping[str, str] | None = None
    ) -> MessageRecord:
        """Remove the dead letter and schedule the message now with a fresh retry budget:
        ``retries_used`` is 0 again, while earlier attempts stay in its history
        (``dead_letter_not_found``). ``headers`` replace the message's forwarded headers of the
        same names, in any letter case, or are added to them.
        """
        override = _checked_headers(headers)
        return await self._retry_dead_letter(message_id, headers=override)

    async def retry_dead_letters(
        self, message_ids: Sequence[str], *, headers: Mapping[str, str] | None = None
    ) -> list[str]:
        """Retry, as ``retry_dead_letter`` does (``headers`` included), the dead letters of those
        of ``message_ids`` (at most 1000) that have one, and answer their ids in the order
        given, each once. Each is removed from the dead letters in the same atomic step that
        schedules it, so an id with no dead letter (there never was one, or another call
        retried or deleted it first) is passed over and a dead letter named by calls running at
        the same time is scheduled once.
        """
        override = _checked_headers(headers)
        distinct = _distinct_ids(message_ids)
        return await self._retry_dead_letters(distinct, headers=override) if distinct else []

    # Hooks ---------------------------------------------------------------------------------

    @abc.abstractmethod
    async def _publish_messages(
        self,
        messages: Sequence[NewMessage],
        *,
        headers: Sequence[str],
        lease: MessageLease | None,
        idempotency: IdempotencyClaim | None,
        traceparent: str | None,
    ) -> list[MessageReceipt]:
        """``publish_messages`` with a checked ``traceparent``; ``headers`` are the messages'
        headers as JSON text, in order.
        """

    @abc.abstractmethod
    async def _get_message(self, message_id: str) -> MessageRecord:
        """``get_message``."""

    @abc.abstractmethod
    async def _list_messages(
        self,
        *,
        where: MessageFilter,
        limit: int,
        cursor: int | None,
    ) -> tuple[list[MessageRecord], int | None]:
        """``list_messages`` with its cursor read: up to ``limit`` messages that pass ``where``
        published before the publish sequence ``cursor`` (None: the newest), newest first, and the
        sequence the next page starts before (None when no message is left).
        """

    @abc.abstractmethod
    async def _list_logs(
        self,
        *,
        where: MessageFilter,
        limit: int,
        cursor: int | None,
    ) -> tuple[list[LogEventRecord], int | None]:
        """``list_logs`` with its cursor read: up to ``limit`` events that pass ``where`` before
        the event sequence ``cursor`` (None: the newest), newest first, and the sequence the next
        page starts before (None when no event is left).
        """

    @abc.abstractmethod
    async def _prune_logs(self, *, before: float, limit: int) -> int:
        """``prune_logs`` with a checked limit."""

    @abc.abstractmethod
    async def _cancel_message(self, message_id: str) -> MessageRecord:
        """``cancel_message``."""

    @abc.abstractmethod
    async def _claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """``claim_due_messages`` with a checked limit and ``lease_margin``."""

    @abc.abstractmethod
    async def _record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Outcome,
        next_attempt_at: float | None,
    ) -> MessageRecord:
        """``record_attempt`` with a known outcome; a retry has its ``next_attempt_at``."""

    @abc.abstractmethod
    async def _next_due_at(self) -> float | None:
        """``next_due_at``."""

    @abc.abstractmethod
    async def _put_url_group(self, name: str, endpoints: Sequence[UrlEndpoint]) -> UrlGroupRecord:
        """``put_url_group``."""

    @abc.abstractmethod
    async def _get_url_group(self, name: str) -> UrlGroupRecord:
        """``get_url_group``."""

    @abc.abstractmethod
    async def _list_url_groups(self) -> list[UrlGroupRecord]:
        """``list_url_groups``."""

    @abc.abstractmethod
    async def _delete_url_group(self, name: str) -> None:
        """``delete_url_group``."""

    @abc.abstractmethod
    async def _list_dead_letters(
        self, *, selection: DeadLetterFilter, limit: int, cursor: DeadLetterPosition | None
    ) -> tuple[list[DeadLetterRecord], DeadLetterPosition | None]:
        """``list_dead_letters`` with its cursor read: of the dead letters filed after
        ``cursor`` and by its horizon (None: from the oldest, by the store's time now), oldest
        first, those ``selection`` matches among the next ``limit`` or more, and the position
        after the last one looked at, with the same horizon (None when none is left).
        """

    @abc.abstractmethod
    async def _find_dead_letters(self, message_ids: Sequence[str]) -> list[DeadLetterRecord]:
        """``find_dead_letters`` of 1 to 1000 distinct ids."""

    @abc.abstractmethod
    async def _delete_dead_letter(self, message_id: str) -> None:
        """``delete_dead_letter``."""

    @abc.abstractmethod
    async def _delete_dead_letters(self, message_ids: Sequence[str]) -> list[str]:
        """``delete_dead_letters`` of 1 to 1000 distinct ids."""

    @abc.abstractmethod
    async def _retry_dead_letter(
        self, message_id: str, *, headers: dict[str, str]
    ) -> MessageRecord:
        """``retry_dead_letter``; ``headers`` is empty when none are replaced."""

    @abc.abstractmethod
    async def _retry_dead_letters(
        self, message_ids: Sequence[str], *, headers: dict[str, str]
    ) -> list[str]:
        """``retry_dead_letters`` of 1 to 1000 distinct ids; ``headers`` as ``_retry_dead_letter``."""


def _check_batch(count: int, *, what: str) -> None:
    check_at_least_one(count, name=what)
    if count > DEAD_LETTER_BATCH_MAX:
        raise StoreError(
            "validation_failed", f"{what} must be at most {DEAD_LETTER_BATCH_MAX}: {count}"
        )


def _distinct_ids(message_ids: Sequence[str]) -> list[str]:
    distinct = list(dict.fromkeys(message_ids))
    if len(distinct) > DEAD_LETTER_BATCH_MAX:
        raise StoreError(
            "validation_failed",
            f"at most {DEAD_LETTER_BATCH_MAX} message ids at a time: {len(distinct)}",
        )
    return distinct


def _checked_headers(headers: Mapping[str, str] | None) -> dict[str, str]:
    override = dict(headers or {})
    dump_json(override, what="message headers")
    return override
