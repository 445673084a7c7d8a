"""Limits: message quotas per token and token-bucket rate limits.

Rate limits: a bucket is one ``rate_buckets`` row, refilled and taken from in one transaction by
``self.clock``; the processes sharing a file are on one machine, so they share that clock.
"""

from __future__ import annotations

import sqlite3

from ._core import SQLiteCore

__all__ = ["LimitsMixin"]


class LimitsMixin(SQLiteCore):
    """The SQLite store's quotas and rate limits."""

    # Quotas --------------------------------------------------------------------------------

    async def _consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """Count ``amount`` more messages for the token if it stays within ``limit``."""

        def work(connection: sqlite3.Connection, _now: float) -> bool:
            connection.execute(
                "INSERT OR IGNORE INTO quotas (token_id, used) VALUES (?, 0)", (token_id,)
            )
            updated = connection.execute(
                "UPDATE quotas SET used = used + ? WHERE token_id = ? AND used + ? <= ?",
                (amount, token_id, amount, limit),
            ).rowcount
            return updated == 1

        return await self.run_transaction(work)

    async def _refund_quota(self, token_id: str, amount: int) -> None:
        """Uncount ``amount`` messages, never below zero."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            connection.execute(
                "UPDATE quotas SET used = MAX(0, used - ?) WHERE token_id = ?", (amount, token_id)
            )

        await self.run_transaction(work)

    # Rate limits ---------------------------------------------------------------------------

    async def _take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """Refill the bucket for the time since its last use, then take a token if there is one,
        all in one transaction, so processes sharing the file share the bucket.
        """

        def work(connection: sqlite3.Connection, now: float) -> float:
            row = connection.execute(
                "SELECT tokens, updated_at FROM rate_buckets WHERE key = ?", (key,)
            ).fetchone()
            tokens = float(burst)
            if row is not None:
                elapsed = max(0.0, now - row["updated_at"])
                tokens = min(tokens, row["tokens"] + elapsed * per_second)
            wait = 0.0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / per_second
            connection.execute(
                "INSERT OR REPLACE INTO rate_buckets (key, tokens, updated_at) VALUES (?, ?, ?)",
                (key, tokens, now),
            )
            return wait

        return await self.run_transaction(work)
