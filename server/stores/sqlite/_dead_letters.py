"""Dead letters: the messages whose delivery failed for good, to list, forget or retry."""

from __future__ import annotations

import sqlite3

from ..base import DeadLetterRecord, MessageRecord, NotFoundError
from ._core import SQLiteCore
from ._logs import log_event
from ._messages import message_record

__all__ = ["DeadLettersMixin"]


class DeadLettersMixin(SQLiteCore):
    """The SQLite store's dead letters: list, delete and retry."""

    async def _list_dead_letters(self, *, limit: int) -> list[DeadLetterRecord]:
        """Up to ``limit`` dead letters, oldest first."""

        def work(connection: sqlite3.Connection, _now: float) -> list[DeadLetterRecord]:
            rows = connection.execute(
                "SELECT * FROM dead_letters ORDER BY failed_at, seq LIMIT ?", (limit,)
            ).fetchall()
            return [
                DeadLetterRecord(
                    message_id=row["message_id"],
                    url=row["url"],
                    attempts=row["attempts"],
                    failed_at=row["failed_at"],
                    last_error=row["last_error"],
                    last_status_code=row["last_status_code"],
                )
                for row in rows
            ]

        return await self.run_transaction(work, write=False)

    async def _delete_dead_letter(self, message_id: str) -> None:
        """Forget the dead letter; the message stays readable."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            deleted = connection.execute(
                "DELETE FROM dead_letters WHERE message_id = ?", (message_id,)
            ).rowcount
            if deleted == 0:
                raise _dead_letter_not_found(message_id)

        await self.run_transaction(work)

    async def _retry_dead_letter(self, message_id: str) -> MessageRecord:
        """Remove the dead letter and schedule the message now with a fresh retry budget."""

        def work(connection: sqlite3.Connection, now: float) -> MessageRecord:
            deleted = connection.execute(
                "DELETE FROM dead_letters WHERE message_id = ?", (message_id,)
            ).rowcount
            if deleted == 0:
                raise _dead_letter_not_found(message_id)
            connection.execute(
                "UPDATE messages SET state = 'scheduled', next_attempt_at = ?, retries_used = 0"
                " WHERE message_id = ?",
                (now, message_id),
            )
            log_event(connection, message_id, "scheduled", now)
            return message_record(connection, message_id)

        return await self.run_transaction(work)


def _dead_letter_not_found(message_id: str) -> NotFoundError:
    return NotFoundError("dead_letter_not_found", f"no dead letter for message {message_id!r}")
