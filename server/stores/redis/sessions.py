"""Console sessions: one hash each (``<p>:console:<key>``), made and read by single-key scripts.

A session's hash holds its token id and check value, ``created_at``, ``expires_at``,
``idle_seconds`` and ``idle_until``, all by the store's clock, which decides; Redis drops the hash
by its TTL, which every touch moves with ``idle_until``. One key per session, so on Redis Cluster
each call runs whole on the master of its slot.
"""

from __future__ import annotations

from ..base import ConsoleSession
from .arguments import number_text
from .core import RedisCore

__all__ = ["RedisSessions"]


class RedisSessions(RedisCore):
    """The console-session methods of the Redis store."""

    async def _create_console_session(
        self, key: str, *, token_id: str, token_check: str, lifetime: float, idle: float
    ) -> ConsoleSession:
        now = self.clock()
        expires_at = await self._run(
            "create_console_session",
            [self._keys.console_session(key)],
            [number_text(now), token_id, token_check, number_text(lifetime), number_text(idle)],
            details={},
        )
        return ConsoleSession(
            token_id=token_id,
            token_check=token_check,
            created_at=now,
            expires_at=float(expires_at),
            idle_seconds=idle,
        )

    async def _get_console_session(self, key: str, *, touch: bool) -> ConsoleSession | None:
        found = await self._run(
            "get_console_session",
            [self._keys.console_session(key)],
            [number_text(self.clock()), "1" if touch else "0"],
            details={},
        )
        if found is None:
            return None
        token_id, token_check, created_at, expires_at, idle_seconds = found
        return ConsoleSession(
            token_id=token_id,
            token_check=token_check,
            created_at=float(created_at),
            expires_at=float(expires_at),
            idle_seconds=float(idle_seconds),
        )

    async def _delete_console_session(self, key: str) -> None:
        async with self._gate():
            await self._redis.delete(self._keys.console_session(key))
