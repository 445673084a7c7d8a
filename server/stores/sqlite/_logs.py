"""The messages' event log: one row per change of a message's state, written in the transaction
that makes the change, listed newest first and pruned by age.
"""

from __future__ import annotations

import sqlite3

from ..base import LogEventRecord, LogState
from ..message_filter import MessageFilter
from ..message_options import load_message_options
from ._core import SQLiteCore
from ._message_filter import filter_conditions

__all__ = ["LogsMixin", "log_event"]

# Above every event sequence (SQLite's largest integer): a listing's first page starts below it.
_NO_SEQUENCE = 2**63 - 1


def log_event(
    connection: sqlite3.Connection,
    message_id: str,
    state: LogState,
    at: float,
    *,
    attempt: int | None = None,
    status_code: int | None = None,
    error: str | None = None,
) -> None:
    """Append the event of ``message_id``'s change to ``state``."""
    connection.execute(
        """INSERT INTO message_events (message_id, state, at, attempt, status_code, error)
           VALUES (?, ?, ?, ?, ?, ?)""",
        (message_id, state, at, attempt, status_code, error),
    )


class LogsMixin(SQLiteCore):
    """The SQLite store's event log of messages."""

    async def _list_logs(
        self, *, where: MessageFilter, limit: int, cursor: int | None
    ) -> tuple[list[LogEventRecord], int | None]:
        """Events by sequence, newest first, joined with their messages for the filter; one more
        row than ``limit`` tells whether a next page exists.
        """

        def work(
            connection: sqlite3.Connection, _now: float
        ) -> tuple[list[LogEventRecord], int | None]:
            conditions, values = filter_conditions(
                where, state_column="e.state", time_column="e.at"
            )
            rows = connection.execute(
                f"""SELECT e.seq, e.message_id, e.state, e.at, e.attempt, e.status_code, e.error,
                        m.url, m.url_group, m.flow_key, m.options
                    FROM message_events AS e JOIN messages AS m ON m.message_id = e.message_id
                    WHERE {" AND ".join(["e.seq < ?", *conditions])}
                    ORDER BY e.seq DESC LIMIT ?""",
                (_NO_SEQUENCE if cursor is None else cursor, *values, limit + 1),
            ).fetchall()
            page = rows[:limit]
            events = []
            for row in page:
                options = load_message_options(row["options"])
                events.append(
                    LogEventRecord(
                        message_id=row["message_id"],
                        state=row["state"],
                        at=row["at"],
                        url=row["url"],
                        labels=options["labels"],
                        url_group=row["url_group"],
                        schedule=options["schedule"],
                        flow_control_key=row["flow_key"],
                        attempt=row["attempt"],
                        status_code=row["status_code"],
                        error=row["error"],
                    )
                )
            return events, page[-1]["seq"] if len(rows) > limit else None

        return await self.run_transaction(work, write=False)

    async def _prune_logs(self, *, before: float, limit: int) -> int:
        """Delete the oldest events before ``before``, down the index by time."""

        def work(connection: sqlite3.Connection, _now: float) -> int:
            return connection.execute(
                """DELETE FROM message_events WHERE seq IN (
                       SELECT seq FROM message_events WHERE at < ? ORDER BY at LIMIT ?)""",
                (before, limit),
            ).rowcount

        return await self.run_transaction(work)
