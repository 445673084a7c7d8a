"""Console sessions: one ``console_sessions`` row each, ended by ``self.clock``.

A row is live until ``idle_until``, which a touching visit moves to ``idle_seconds`` from then, but
never past ``expires_at``. Reads skip rows that have ended; each new session deletes up to
``PURGE_BATCH`` of them, so ended sessions do not pile up.
"""

from __future__ import annotations

import sqlite3

from ..base import ConsoleSession
from ._common import PURGE_BATCH
from ._core import SQLiteCore

__all__ = ["SessionsMixin"]


class SessionsMixin(SQLiteCore):
    """The SQLite store's console sessions."""

    async def _create_console_session(
        self, key: str, *, token_id: str, token_check: str, lifetime: float, idle: float
    ) -> ConsoleSession:
        def work(connection: sqlite3.Connection, now: float) -> ConsoleSession:
            connection.execute(
                """DELETE FROM console_sessions WHERE key IN (
                       SELECT key FROM console_sessions WHERE idle_until <= ? LIMIT ?)""",
                (now, PURGE_BATCH),
            )
            session = ConsoleSession(
                token_id=token_id,
                token_check=token_check,
                created_at=now,
                expires_at=now + lifetime,
                idle_seconds=idle,
            )
            connection.execute(
                """INSERT OR REPLACE INTO console_sessions
                   (key, token_id, token_check, created_at, expires_at, idle_seconds, idle_until)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                (
                    key,
                    token_id,
                    token_check,
                    now,
                    session.expires_at,
                    idle,
                    min(session.expires_at, now + idle),
                ),
            )
            return session

        return await self.run_transaction(work)

    async def _get_console_session(self, key: str, *, touch: bool) -> ConsoleSession | None:
        def work(connection: sqlite3.Connection, now: float) -> ConsoleSession | None:
            row = connection.execute(
                """SELECT token_id, token_check, created_at, expires_at, idle_seconds
                   FROM console_sessions WHERE key = ? AND idle_until > ?""",
                (key, now),
            ).fetchone()
            if row is None:
                return None
            session = ConsoleSession(
                token_id=row["token_id"],
                token_check=row["token_check"],
                created_at=row["created_at"],
                expires_at=row["expires_at"],
                idle_seconds=row["idle_seconds"],
            )
            if touch:
                connection.execute(
                    "UPDATE console_sessions SET idle_until = ? WHERE key = ?",
                    (min(session.expires_at, now + session.idle_seconds), key),
                )
            return session

        # Only a touch writes: a page's polls of its numbers read without taking the write lock.
        return await self.run_transaction(work, write=touch)

    async def _delete_console_session(self, key: str) -> None:
        def work(connection: sqlite3.Connection, _now: float) -> None:
            connection.execute("DELETE FROM console_sessions WHERE key = ?", (key,))

        await self.run_transaction(work)
