"""HTTP messages: publish with deduplication, read, cancel, due claims and delivery attempts."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Sequence
from typing import Literal

from ...ids import new_id
from ..base import (
    ConflictError,
    DeliveryAttemptRecord,
    IdempotencyClaim,
    MessageLease,
    MessageReceipt,
    MessageRecord,
    NewMessage,
    NotFoundError,
)
from ..message_filter import MessageFilter
from ..message_options import dump_message_options, load_message_options
from ._common import PURGE_BATCH
from ._core import SQLiteCore
from ._flow_control import FlowGate, flow_published, unpark
from ._idempotency import write_once
from ._logs import log_event
from ._message_filter import filter_conditions

__all__ = ["MessagesMixin", "message_record"]

# How many held-back messages one claim may park beyond its limit.
_PARK_BUDGET = 1000
# Above every publish sequence (SQLite's largest integer): a listing's first page starts below it.
_NO_SEQUENCE = 2**63 - 1


class MessagesMixin(SQLiteCore):
    """The SQLite store's HTTP messages and their delivery attempts."""

    async def _publish_messages(
        self,
        messages: Sequence[NewMessage],
        *,
        headers: Sequence[str],
        lease: MessageLease | None,
        idempotency: IdempotencyClaim | None,
        traceparent: str | None,
    ) -> list[MessageReceipt]:
        """Accept every message (or none), answering earlier ids for deduplicated ones; with
        ``lease``, only while that lease is current.
        """

        def work(connection: sqlite3.Connection, now: float) -> list[MessageReceipt]:
            if lease is not None:
                _require_current_lease(message_record(connection, lease.message_id), lease.lease_id)
            connection.execute(
                """DELETE FROM message_deduplication WHERE dedup_key IN (
                       SELECT dedup_key FROM message_deduplication WHERE expires_at <= ? LIMIT ?)""",
                (now, PURGE_BATCH),
            )
            receipts = []
            for message, message_headers in zip(messages, headers, strict=True):
                if message.dedup_key is not None:
                    seen = connection.execute(
                        "SELECT message_id, created_at FROM message_deduplication"
                        " WHERE dedup_key = ?",
                        (message.dedup_key,),
                    ).fetchone()
                    if seen is not None and now - seen["created_at"] < message.dedup_window:
                        receipts.append(
                            MessageReceipt(
                                message_id=seen["message_id"],
                                url=message.url,
                                deduplicated=True,
                                item=message.item,
                            )
                        )
                        continue
                message_id = new_id("msg", now=now)
                connection.execute(
                    """INSERT INTO messages (message_id, url, body, content_type, method, headers,
                           state, retries, timeout, created_at, not_before, next_attempt_at,
                           url_group, retry_delay, callback, failure_callback, deduplication_id,
                           traceparent, options, flow_key)
                       VALUES (?, ?, ?, ?, ?, ?, 'scheduled', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
                           ?)""",
                    (
                        message_id,
                        message.url,
                        bytes(message.body),
                        message.content_type,
                        message.method,
                        message_headers,
                        message.retries,
                        message.timeout,
                        now,
                        message.not_before,
                        message.not_before,
                        message.url_group,
                        message.retry_delay,
                        message.callback,
                        message.failure_callback,
                        message.deduplication_id,
                        traceparent,
                        dump_message_options(message),
                        None if message.flow_control is None else message.flow_control.key,
                    ),
                )
                log_event(connection, message_id, "created", now)
                if message.flow_control is not None:
                    flow_published(connection, message.flow_control, now)
                if message.dedup_key is not None:
                    connection.execute(
                        """INSERT OR REPLACE INTO message_deduplication
                           (dedup_key, message_id, created_at, expires_at) VALUES (?, ?, ?, ?)""",
                        (message.dedup_key, message_id, now, now + message.dedup_window),
                    )
                receipts.append(
                    MessageReceipt(
                        message_id=message_id,
                        url=message.url,
                        deduplicated=False,
                        item=message.item,
                    )
                )
            return receipts

        return await self.run_transaction(
            write_once(
                idempotency,
                "messages",
                work,
                remember=lambda receipts: [
                    [receipt.message_id, receipt.url, receipt.deduplicated, receipt.item]
                    for receipt in receipts
                ],
                replay=lambda kept: [
                    MessageReceipt(
                        message_id=message_id, url=url, deduplicated=dup, item=item, replayed=True
                    )
                    for message_id, url, dup, item in kept
                ],
            )
        )

    async def _get_message(self, message_id: str) -> MessageRecord:
        """The message with every attempt so far."""

        def work(connection: sqlite3.Connection, _now: float) -> MessageRecord:
            return message_record(connection, message_id)

        return await self.run_transaction(work, write=False)

    async def _list_messages(
        self,
        *,
        where: MessageFilter,
        limit: int,
        cursor: int | None,
    ) -> tuple[list[MessageRecord], int | None]:
        """Messages by publish sequence, newest first, down an index of the filter given; one
        more row than ``limit`` tells whether a next page exists.
        """

        def work(
            connection: sqlite3.Connection, _now: float
        ) -> tuple[list[MessageRecord], int | None]:
            conditions, values = filter_conditions(
                where, state_column="m.state", time_column="m.created_at"
            )
            rows = connection.execute(
                f"""SELECT seq, message_id FROM messages AS m
                    WHERE {" AND ".join(["seq < ?", *conditions])}
                    ORDER BY seq DESC LIMIT ?""",
                (_NO_SEQUENCE if cursor is None else cursor, *values, limit + 1),
            ).fetchall()
            page = rows[:limit]
            messages = _message_records(connection, [row["message_id"] for row in page])
            return messages, page[-1]["seq"] if len(rows) > limit else None

        return await self.run_transaction(work, write=False)

    async def _cancel_message(self, message_id: str) -> MessageRecord:
        """Cancel a scheduled message."""

        def work(connection: sqlite3.Connection, now: float) -> MessageRecord:
            message = message_record(connection, message_id)
            if message.state != "scheduled":
                raise ConflictError(
                    "invalid_state",
                    f"message {message_id!r} is {message.state}; only scheduled messages can be"
                    " cancelled",
                )
            connection.execute(
                "UPDATE messages SET state = 'cancelled', next_attempt_at = NULL"
                " WHERE message_id = ?",
                (message_id,),
            )
            log_event(connection, message_id, "cancelled", now)
            if message.flow_control is not None:
                unpark(connection, message.flow_control.key, now)
            return message_record(connection, message_id)

        return await self.run_transaction(work)

    async def _claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """Move up to ``limit`` due messages to ``delivering``, each under a fresh lease id and
        leased for its own timeout plus ``lease_margin``; a flow controlled one only when its key
        lets it start (server/stores/sqlite/_flow_control.py), else it is parked and the scan
        goes on past it.
        """

        def work(connection: sqlite3.Connection, _now: float) -> list[MessageRecord]:
            gate = FlowGate(connection, now)
            gate.wake_due_keys()
            message_ids: list[str] = []
            # Each message scanned is claimed or parked, so every round sees new ones; the budget
            # bounds the transaction when many due messages are held back.
            budget = limit + _PARK_BUDGET
            while len(message_ids) < limit and budget > 0:
                rows = connection.execute(
                    """SELECT message_id, seq, flow_key FROM messages
                       WHERE state IN ('scheduled', 'delivering') AND next_attempt_at <= ?
                       ORDER BY next_attempt_at, seq LIMIT ?""",
                    (now, min(limit - len(message_ids), budget)),
                ).fetchall()
                if not rows:
                    break
                budget -= len(rows)
                claimed = [
                    row["message_id"]
                    for row in rows
                    if row["flow_key"] is None
                    or gate.admit(row["message_id"], row["flow_key"], row["seq"])
                ]
                connection.executemany(
                    "UPDATE messages SET state = 'delivering', next_attempt_at = ? + timeout,"
                    " lease_id = ? WHERE message_id = ?",
                    [
                        (now + lease_margin, new_id("lease", now=now), message_id)
                        for message_id in claimed
                    ],
                )
                message_ids += claimed
            return _message_records(connection, message_ids)

        return await self.run_transaction(work)

    async def _record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Literal["delivered", "retry", "failed"],
        next_attempt_at: float | None,
    ) -> MessageRecord:
        """Append the attempt and settle the message under its current lease, ending the lease
        (a failure also adds a dead letter).
        """

        def work(connection: sqlite3.Connection, now: float) -> MessageRecord:
            message = message_record(connection, message_id)
            _require_current_lease(message, lease_id)
            connection.execute(
                """INSERT INTO message_attempts (message_id, position, attempt, started_at,
                       duration_ms, status_code, response_excerpt, error)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    message_id,
                    len(message.attempts) + 1,
                    attempt.attempt,
                    attempt.started_at,
                    attempt.duration_ms,
                    attempt.status_code,
                    attempt.response_excerpt,
                    attempt.error,
                ),
            )
            if outcome == "retry":
                connection.execute(
                    "UPDATE messages SET state = 'scheduled', next_attempt_at = ?, lease_id = NULL,"
                    " retries_used = retries_used + 1 WHERE message_id = ?",
                    (next_attempt_at, message_id),
                )
            else:
                connection.execute(
                    "UPDATE messages SET state = ?, next_attempt_at = NULL, lease_id = NULL,"
                    " retries_used = retries_used + 1 WHERE message_id = ?",
                    (outcome, message_id),
                )
            if message.flow_control is not None:
                unpark(connection, message.flow_control.key, now)
            for state in ("failed", "dead_lettered") if outcome == "failed" else (outcome,):
                log_event(
                    connection,
                    message_id,
                    state,
                    now,
                    attempt=attempt.attempt,
                    status_code=attempt.status_code,
                    error=attempt.error,
                )
            if outcome == "failed":
                connection.execute(
                    """INSERT OR REPLACE INTO dead_letters (message_id, url, attempts, failed_at,
                           last_error, last_status_code)
                       VALUES (?, ?, ?, ?, ?, ?)""",
                    (
                        message_id,
                        message.url,
                        len(message.attempts) + 1,
                        now,
                        attempt.error,
                        attempt.status_code,
                    ),
                )
            # The row as just written, without reading it back.
            return dataclasses.replace(
                message,
                state="scheduled" if outcome == "retry" else outcome,
                next_attempt_at=next_attempt_at if outcome == "retry" else None,
                lease_id=None,
                retries_used=message.retries_used + 1,
                attempts=[*message.attempts, attempt],
            )

        return await self.run_transaction(work)

    async def _next_due_at(self) -> float | None:
        """The earliest next attempt (or lease end) of a scheduled or delivering message, or
        wake-up of a flow control key.
        """

        def work(connection: sqlite3.Connection, _now: float) -> float | None:
            # The same index and order as claim_due_messages' scan.
            row = connection.execute(
                """SELECT next_attempt_at FROM messages
                   WHERE state IN ('scheduled', 'delivering') AND next_attempt_at IS NOT NULL
                   ORDER BY next_attempt_at, seq LIMIT 1"""
            ).fetchone()
            # Held-back messages are due again when their key wakes.
            wake = connection.execute("SELECT MIN(wake_at) FROM flow_keys").fetchone()[0]
            times = [float(at) for at in (None if row is None else row[0], wake) if at is not None]
            return min(times) if times else None

        return await self.run_transaction(work, write=False)


def message_record(connection: sqlite3.Connection, message_id: str) -> MessageRecord:
    """The message with its attempts; ``message_not_found`` when there is none."""
    records = _message_records(connection, [message_id])
    if not records:
        raise NotFoundError("message_not_found", f"message {message_id!r} does not exist")
    return records[0]


def _message_records(
    connection: sqlite3.Connection, message_ids: Sequence[str]
) -> list[MessageRecord]:
    """The messages that exist of ``message_ids``, in that order, read in two statements."""
    marks = ", ".join("?" * len(message_ids))
    rows = connection.execute(
        f"SELECT * FROM messages WHERE message_id IN ({marks})", message_ids
    ).fetchall()
    attempts: dict[str, list[DeliveryAttemptRecord]] = {row["message_id"]: [] for row in rows}
    for attempt in connection.execute(
        f"""SELECT * FROM message_attempts WHERE message_id IN ({marks})
            ORDER BY message_id, position""",
        message_ids,
    ):
        attempts[attempt["message_id"]].append(
            DeliveryAttemptRecord(
                attempt=attempt["attempt"],
                started_at=attempt["started_at"],
                duration_ms=attempt["duration_ms"],
                status_code=attempt["status_code"],
                response_excerpt=attempt["response_excerpt"],
                error=attempt["error"],
            )
        )
    by_id = {
        row["message_id"]: MessageRecord(
            message_id=row["message_id"],
            url=row["url"],
            body=bytes(row["body"]),
            content_type=row["content_type"],
            method=row["method"],
            headers=json.loads(row["headers"]),
            state=row["state"],
            retries=row["retries"],
            timeout=row["timeout"],
            created_at=row["created_at"],
            not_before=row["not_before"],
            attempts=attempts[row["message_id"]],
            retries_used=row["retries_used"],
            next_attempt_at=row["next_attempt_at"],
            url_group=row["url_group"],
            retry_delay=row["retry_delay"],
            callback=row["callback"],
            failure_callback=row["failure_callback"],
            deduplication_id=row["deduplication_id"],
            lease_id=row["lease_id"],
            traceparent=row["traceparent"],
            **load_message_options(row["options"]),
        )
        for row in rows
    }
    return [by_id[message_id] for message_id in message_ids if message_id in by_id]


def _require_current_lease(message: MessageRecord, lease_id: str) -> None:
    """Refuse (``lease_expired``) unless the message is ``delivering`` under ``lease_id``."""
    if message.state != "delivering" or message.lease_id != lease_id:
        raise ConflictError(
            "lease_expired",
            f"lease {lease_id!r} is not the current lease of message {message.message_id!r}: "
            "another claim replaced it, or its attempt was already recorded",
        )
