"""Quotas (a counter per token) and rate limits (a token bucket per key), one key each."""

from __future__ import annotations

from .arguments import number_text
from .core import RedisCore

__all__ = ["RedisLimits"]


class RedisLimits(RedisCore):
    """The quota and rate-limit methods of the Redis store."""

    async def _consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """Check and add in one script, so concurrent publishes never overshoot ``limit``."""
        consumed = await self._run(
            "consume_quota", [self._keys.quota(token_id)], [amount, limit], details={}
        )
        return bool(consumed)

    async def _refund_quota(self, token_id: str, amount: int) -> None:
        """Take ``amount`` back, never below zero."""
        await self._run("refund_quota", [self._keys.quota(token_id)], [amount], details={})

    async def _take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """Refill and take in one script, by Redis's clock (see the package docstring)."""
        wait = await self._run(
            "take_rate_token",
            [self._keys.rate(key)],
            [number_text(per_second), burst],
            details={},
        )
        return float(wait)
