"""Dead letters: the messages whose delivery failed for good, to list, forget or retry, one at a
time or a batch in one transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from ..base import (
    DeadLetterFilter,
    DeadLetterPosition,
    DeadLetterRecord,
    MessageRecord,
    NotFoundError,
)
from ..checks import dump_json
from ..message_options import merged_headers
from ._core import SQLiteCore
from ._logs import log_event
from ._message_filter import filter_conditions
from ._messages import message_record

__all__ = ["DeadLettersMixin"]

_SELECT = """SELECT d.seq, d.message_id, d.url, d.attempts, d.failed_at, d.last_error,
    d.last_status_code, m.url_group
    FROM dead_letters AS d JOIN messages AS m ON m.message_id = d.message_id"""


class DeadLettersMixin(SQLiteCore):
    """The SQLite store's dead letters: page, find, delete and retry."""

    async def _list_dead_letters(
        self, *, selection: DeadLetterFilter, limit: int, cursor: DeadLetterPosition | None
    ) -> tuple[list[DeadLetterRecord], DeadLetterPosition | None]:
        """The next ``limit`` dead letters that match, oldest first, in one query."""
        clauses, args = filter_conditions(
            selection.messages(), state_column="m.state", time_column="d.failed_at"
        )
        if cursor is not None:
            clauses.append("(d.failed_at, d.seq) > (?, ?)")
            args += [cursor.failed_at, cursor.sequence]

        def work(connection: sqlite3.Connection, now: float) -> tuple[float, list[sqlite3.Row]]:
            horizon = now if cursor is None else cursor.horizon
            where = " AND ".join([*clauses, "d.failed_at <= ?"])
            rows = connection.execute(
                f"{_SELECT} WHERE {where} ORDER BY d.failed_at, d.seq LIMIT ?",
                (*args, horizon, limit),
            ).fetchall()
            return horizon, rows

        horizon, rows = await self.run_transaction(work, write=False)
        if len(rows) < limit:
            return [_record(row) for row in rows], None
        last = DeadLetterPosition(rows[-1]["failed_at"], rows[-1]["seq"], horizon)
        return [_record(row) for row in rows], last

    async def _find_dead_letters(self, message_ids: Sequence[str]) -> list[DeadLetterRecord]:
        """The dead letters of ``message_ids``, in the order given."""
        marks = ", ".join("?" * len(message_ids))

        def work(connection: sqlite3.Connection, _now: float) -> list[sqlite3.Row]:
            return connection.execute(
                f"{_SELECT} WHERE d.message_id IN ({marks})", list(message_ids)
            ).fetchall()

        found = {
            row["message_id"]: _record(row) for row in await self.run_transaction(work, write=False)
        }
        return [found[message_id] for message_id in message_ids if message_id in found]

    async def _delete_dead_letter(self, message_id: str) -> None:
        """Forget the dead letter; the message stays readable."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            if not _remove(connection, message_id):
                raise _dead_letter_not_found(message_id)

        await self.run_transaction(work)

    async def _delete_dead_letters(self, message_ids: Sequence[str]) -> list[str]:
        """Forget those of the dead letters that are still there, in one transaction."""

        def work(connection: sqlite3.Connection, _now: float) -> list[str]:
            return [message_id for message_id in message_ids if _remove(connection, message_id)]

        return await self.run_transaction(work)

    async def _retry_dead_letter(
        self, message_id: str, *, headers: dict[str, str]
    ) -> MessageRecord:
        """Remove the dead letter and schedule the message now with a fresh retry budget."""

        def work(connection: sqlite3.Connection, now: float) -> MessageRecord:
            if not _retry(connection, message_id, now=now, headers=headers):
                raise _dead_letter_not_found(message_id)
            return message_record(connection, message_id)

        return await self.run_transaction(work)

    async def _retry_dead_letters(
        self, message_ids: Sequence[str], *, headers: dict[str, str]
    ) -> list[str]:
        """Retry those of the dead letters that are still there, in one transaction."""

        def work(connection: sqlite3.Connection, now: float) -> list[str]:
            return [
                message_id
                for message_id in message_ids
                if _retry(connection, message_id, now=now, headers=headers)
            ]

        return await self.run_transaction(work)


def _record(row: sqlite3.Row) -> DeadLetterRecord:
    return DeadLetterRecord(
        message_id=row["message_id"],
        url=row["url"],
        attempts=row["attempts"],
        failed_at=row["failed_at"],
        last_error=row["last_error"],
        last_status_code=row["last_status_code"],
        url_group=row["url_group"],
    )


def _remove(connection: sqlite3.Connection, message_id: str) -> bool:
    deleted = connection.execute(
        "DELETE FROM dead_letters WHERE message_id = ?", (message_id,)
    ).rowcount
    return bool(deleted)


def _retry(
    connection: sqlite3.Connection, message_id: str, *, now: float, headers: dict[str, str]
) -> bool:
    """Whether the message was a dead letter: if so it is scheduled again, in the caller's
    transaction, so that a dead letter is removed and scheduled together or not at all.
    """
    if not _remove(connection, message_id):
        return False
    connection.execute(
        "UPDATE messages SET state = 'scheduled', next_attempt_at = ?, retries_used = 0"
        " WHERE message_id = ?",
        (now, message_id),
    )
    log_event(connection, message_id, "scheduled", now)
    if headers:
        (stored,) = connection.execute(
            "SELECT headers FROM messages WHERE message_id = ?", (message_id,)
        ).fetchone()
        merged = merged_headers(json.loads(stored), headers)
        connection.execute(
            "UPDATE messages SET headers = ? WHERE message_id = ?",
            (dump_json(merged, what="message headers"), message_id),
        )
    return True


def _dead_letter_not_found(message_id: str) -> NotFoundError:
    return NotFoundError("dead_letter_not_found", f"no dead letter for message {message_id!r}")
