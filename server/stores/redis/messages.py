"""Messages (their due index, attempts and dead letters) and URL groups, one hash tag each."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, Literal

from ...ids import new_id
from ..base import (
    DeadLetterFilter,
    DeadLetterPosition,
    DeadLetterRecord,
    DeliveryAttemptRecord,
    IdempotencyClaim,
    LogEventRecord,
    MessageLease,
    MessageReceipt,
    MessageRecord,
    NewMessage,
    UrlEndpoint,
    UrlGroupRecord,
)
from ..checks import dump_json
from ..message_filter import MessageFilter
from .arguments import number_text, optional_argument
from .core import RedisCore
from .errors import store_error
from .records import (
    attempt_json,
    log_event_record,
    message_fields,
    message_record,
    pairs,
    url_group_record,
)

__all__ = ["RedisMessages"]

# How many messages (or events) one listing page looks at, at most: a filter that few pass answers
# short pages, each a bounded script, rather than one script that reads every message.
_LISTING_BUDGET = 1000


class RedisMessages(RedisCore):
    """The message, dead-letter and URL group methods of the Redis store."""

    async def _message_script(
        self,
        name: str,
        args: Sequence[str | int | float],
        *,
        now: float,
        details: Mapping[str, str] | None = None,
        extra_keys: Sequence[str] = (),
    ) -> Any:
        keys = self._keys.messages
        return await self._run(
            name,
            [*keys.declared(), *extra_keys],
            [keys.message_prefix, number_text(now), *args],
            details=details or {},
        )

    async def _publish_messages(
        self,
        messages: Sequence[NewMessage],
        *,
        headers: Sequence[str],
        lease: MessageLease | None,
        idempotency: IdempotencyClaim | None,
        traceparent: str | None,
    ) -> list[MessageReceipt]:
        """Create every message in one script, deduplicating on ``dedup_key``; with ``lease``, the
        same script first checks that the lease is current. It also keeps or replays the
        idempotency record.
        """
        now = self.clock()
        lease_args = ["", ""] if lease is None else [lease.message_id, lease.lease_id]
        args: list[str | int | float] = [len(messages)]
        for message, message_headers in zip(messages, headers, strict=True):
            message_id = new_id("msg", now=now)
            fields = message_fields(
                message_id, message, headers=message_headers, now=now, traceparent=traceparent
            )
            args += [
                message_id,
                message.dedup_key or "",
                number_text(message.dedup_window),
                message.url,
                message.item,
                len(fields),
                *fields,
            ]
        details = (
            {} if lease is None else {"message_id": lease.message_id, "lease_id": lease.lease_id}
        )

        def write(record: list[str], claim: list[str | int | float]) -> Awaitable[Any]:
            return self._message_script(
                "publish_messages",
                [*lease_args, *claim, *args],
                now=now,
                details=details,
                extra_keys=[self._keys.messages.listed, *record],
            )

        replayed, receipts = await self._write_once(
            idempotency, self._keys.messages.base, write, details=details
        )
        return [
            MessageReceipt(
                message_id=str(message_id),
                url=str(url),
                deduplicated=bool(dup),
                item=int(item),
                replayed=replayed,
            )
            for message_id, dup, url, item in receipts
        ]

    async def _get_message(self, message_id: str) -> MessageRecord:
        """The message with every attempt."""
        fields = await self._message_script(
            "get_message", [message_id], now=self.clock(), details={"message_id": message_id}
        )
        return message_record(pairs(fields))

    async def _list_messages(
        self,
        *,
        where: MessageFilter,
        limit: int,
        cursor: int | None,
    ) -> tuple[list[MessageRecord], int | None]:
        """Down the listed set by publish sequence, newest first, in one script that looks at up
        to ``_LISTING_BUDGET`` messages and answers those that pass the filter.
        """
        next_before, found = await self._message_script(
            "list_messages",
            [
                "+inf" if cursor is None else cursor,
                limit,
                where.document(),
                max(limit, _LISTING_BUDGET),
            ],
            now=self.clock(),
            extra_keys=[self._keys.messages.listed],
        )
        messages = [message_record(pairs(fields)) for fields in found]
        return messages, None if next_before == "" else int(next_before)

    async def _list_logs(
        self, *, where: MessageFilter, limit: int, cursor: int | None
    ) -> tuple[list[LogEventRecord], int | None]:
        """Down the event set by sequence, newest first, in one script that looks at up to
        ``_LISTING_BUDGET`` events and answers those that pass the filter, with their messages'
        fields.
        """
        next_before, found = await self._message_script(
            "list_logs",
            [
                "+inf" if cursor is None else cursor,
                limit,
                where.document(),
                max(limit, _LISTING_BUDGET),
            ],
            now=self.clock(),
        )
        events = [log_event_record(*row) for row in found]
        return events, None if next_before == "" else int(next_before)

    async def _prune_logs(self, *, before: float, limit: int) -> int:
        """Remove the oldest events before ``before``, in one script."""
        removed = await self._message_script(
            "prune_logs", [number_text(before), limit], now=self.clock()
        )
        return int(removed)

    async def _cancel_message(self, message_id: str) -> MessageRecord:
        """Cancel a scheduled message."""
        fields = await self._message_script(
            "cancel_message",
            [message_id],
            now=self.clock(),
            details={
                "message_id": message_id,
                "state_rule": "only scheduled messages can be cancelled",
            },
        )
        return message_record(pairs(fields))

    async def _claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """Move due messages to ``delivering``, each under a fresh lease id and leased for its own
        timeout plus ``lease_margin``, in one script.
        """
        rows = await self._message_script(
            "claim_due_messages",
            [limit, number_text(lease_margin), *(new_id("lease", now=now) for _ in range(limit))],
            now=now,
        )
        return [message_record(pairs(fields)) for fields in rows]

    async def _record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Literal["delivered", "retry", "failed"],
        next_attempt_at: float | None,
    ) -> MessageRecord:
        """Append the attempt and settle the message under its current lease, ending the lease;
        ``failed`` also files a dead letter.
        """
        fields = await self._message_script(
            "record_attempt",
            [
                message_id,
                lease_id,
                attempt_json(attempt),
                outcome,
                "" if next_attempt_at is None else number_text(next_attempt_at),
                optional_argument(attempt.error),
                optional_argument(attempt.status_code),
            ],
            now=self.clock(),
            details={"message_id": message_id, "lease_id": lease_id},
        )
        return message_record(pairs(fields))

    async def _next_due_at(self) -> float | None:
        """The lowest score of the due set (every scheduled or delivering message, by its next
        attempt or lease end) and of the flow control keys' wake-ups, whose held-back messages
        are due again then.
        """
        keys = self._keys.messages
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zrange(keys.due, 0, 0, withscores=True)
            pipe.zrange(keys.flow_wake, 0, 0, withscores=True)
            async with self._gate():
                firsts = await pipe.execute()
        times = [float(first[0][1]) for first in firsts if first]
        return min(times) if times else None

    # Dead letters --------------------------------------------------------------------------

    async def _list_dead_letters(
        self, *, selection: DeadLetterFilter, limit: int, cursor: DeadLetterPosition | None
    ) -> tuple[list[DeadLetterRecord], DeadLetterPosition | None]:
        """Look at the next ``limit`` dead letters by when they failed, in one bounded script,
        and keep those that match: the failure times bound the range read, the rest of the filter
        is matched on each message by lib/filter.lua.
        """
        now = self.clock()
        horizon = now if cursor is None else cursor.horizon
        after = (
            ["", ""]
            if cursor is None
            else [number_text(cursor.failed_at), f"{cursor.sequence:020d}"]
        )
        next_score, next_sequence, rows = await self._message_script(
            "list_dead_letters",
            [
                limit,
                *after,
                selection.messages().document(),
                "" if selection.filed_from is None else number_text(selection.filed_from),
                "" if selection.filed_to is None else number_text(selection.filed_to),
                number_text(horizon),
            ],
            now=now,
        )
        letters = [_dead_letter(row) for row in rows]
        if next_score is None:
            return letters, None
        return letters, DeadLetterPosition(float(next_score), int(next_sequence), horizon)

    async def _find_dead_letters(self, message_ids: Sequence[str]) -> list[DeadLetterRecord]:
        """The dead letters of ``message_ids``, read in one script."""
        rows = await self._message_script("find_dead_letters", message_ids, now=self.clock())
        return [_dead_letter(row) for row in rows]

    async def _delete_dead_letter(self, message_id: str) -> None:
        """Forget the dead letter; the message stays readable."""
        await self._message_script(
            "delete_dead_letter",
            [message_id],
            now=self.clock(),
            details={"message_id": message_id},
        )

    async def _delete_dead_letters(self, message_ids: Sequence[str]) -> list[str]:
        """Forget those of the dead letters that are still there, in one script."""
        deleted = await self._message_script("delete_dead_letters", message_ids, now=self.clock())
        return [str(message_id) for message_id in deleted]

    async def _retry_dead_letter(
        self, message_id: str, *, headers: dict[str, str]
    ) -> MessageRecord:
        """Remove the dead letter and schedule the message now with a fresh retry budget; its
        earlier attempts stay.
        """
        fields = await self._message_script(
            "retry_dead_letter",
            [message_id, _headers_argument(headers)],
            now=self.clock(),
            details={"message_id": message_id},
        )
        return message_record(pairs(fields))

    async def _retry_dead_letters(
        self, message_ids: Sequence[str], *, headers: dict[str, str]
    ) -> list[str]:
        """Retry those of the dead letters that are still there, in one script."""
        retried = await self._message_script(
            "retry_dead_letters", [_headers_argument(headers), *message_ids], now=self.clock()
        )
        return [str(message_id) for message_id in retried]

    # URL groups ----------------------------------------------------------------------------

    async def _put_url_group(self, name: str, endpoints: Sequence[UrlEndpoint]) -> UrlGroupRecord:
        """Replace the endpoints; the creation time is kept from the first put."""
        now = self.clock()
        endpoints_json = json.dumps([dataclasses.asdict(endpoint) for endpoint in endpoints])
        created_at = await self._run(
            "put_url_group",
            self._keys.url_groups,
            [name, endpoints_json, number_text(now)],
            details={"url_group": name},
        )
        return UrlGroupRecord(
            name=name, endpoints=list(endpoints), created_at=float(created_at), updated_at=now
        )

    async def _get_url_group(self, name: str) -> UrlGroupRecord:
        """The group (``url_group_not_found``)."""
        groups_key, created_key = self._keys.url_groups
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hget(groups_key, name)
            pipe.hget(created_key, name)
            async with self._gate():
                stored, created_at = await pipe.execute()
        if stored is None:
            raise store_error("url_group_not_found", f"URL group {name!r} does not exist")
        return url_group_record(name, stored, created_at)

    async def _list_url_groups(self) -> list[UrlGroupRecord]:
        """Every URL group, by name."""
        groups_key, created_key = self._keys.url_groups
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hgetall(groups_key)
            pipe.hgetall(created_key)
            async with self._gate():
                stored, created = await pipe.execute()
        return [url_group_record(name, stored[name], created.get(name)) for name in sorted(stored)]

    async def _delete_url_group(self, name: str) -> None:
        """Delete the group (``url_group_not_found``)."""
        await self._run(
            "delete_url_group", self._keys.url_groups, [name], details={"url_group": name}
        )


def _dead_letter(row: Sequence[Any]) -> DeadLetterRecord:
    message_id, url, attempts, failed_at, last_error, status, url_group = row
    return DeadLetterRecord(
        message_id=str(message_id),
        url=str(url),
        attempts=int(attempts),
        failed_at=float(failed_at),
        last_error=last_error,
        last_status_code=None if status is None else int(status),
        url_group=url_group,
    )


def _headers_argument(headers: dict[str, str]) -> str:
    return dump_json(headers, what="message headers") if headers else ""
