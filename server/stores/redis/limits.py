"""Quotas (a counter per token) and rate limits (a token bucket per key), one key each."""

from __future__ import annotations

from ..base import StoreError, check_token_bucket
from .arguments import number_text
from .core import RedisCore

__all__ = ["RedisLimits"]


def _check_amount(amount: int) -> None:
    if amount < 0:
        raise StoreError("validation_failed", f"a quota amount must not be negative: {amount}")


class RedisLimits(RedisCore):
    """The quota and rate-limit methods of the Redis store."""

    async def consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """Check and add in one script, so concurrent publishes never overshoot ``limit``."""
        _check_amount(amount)
        consumed = await self._run(
            "consume_quota", [self._keys.quota(token_id)], [amount, limit], details={}
        )
        return bool(consumed)

    async def refund_quota(self, token_id: str, amount: int) -> None:
        """Take ``amount`` back, never below zero."""
        _check_amount(amount)
        await self._run("refund_quota", [self._keys.quota(token_id)], [amount], details={})

    async def take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """Refill and take in one script, by Redis's clock (see the package docstring)."""
        check_token_bucket(per_second, burst)
        wait = await self._run(
            "take_rate_token",
            [self._keys.rate(key)],
            [number_text(per_second), burst],
            details={},
        )
        return float(wait)
