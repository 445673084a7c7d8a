"""The contract of quotas and rate limits: what each public method promises and checks.

Every public method checks its arguments (``..checks``) and then calls its hook, the method of the
same name with a leading underscore, which a backend implements.
"""

from __future__ import annotations

import abc

from ..checks import check_not_negative, check_token_bucket

__all__ = ["LimitsContract"]


class LimitsContract(abc.ABC):
    """Quotas and rate limits: the public methods with their checks, and their hooks."""

    # Quotas --------------------------------------------------------------------------------

    async def consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """Add ``amount`` to the token's message count if that keeps it within ``limit``; return
        whether it did. Atomic across processes. A negative ``amount`` is ``validation_failed``.
        """
        check_not_negative(amount, name="a quota amount")
        return await self._consume_quota(token_id, amount, limit=limit)

    async def refund_quota(self, token_id: str, amount: int) -> None:
        """Take ``amount`` back off the token's message count (a publish that then failed)."""
        check_not_negative(amount, name="a quota amount")
        await self._refund_quota(token_id, amount)

    # Rate limits ---------------------------------------------------------------------------

    async def take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """Take one token from ``key``'s bucket and answer 0, or take nothing and answer the
        seconds until a token is there. A bucket holds up to ``burst`` tokens (a new one is full)
        and gains ``per_second`` a second; it is one bucket for every process sharing the
        backend, by one clock (the backend's). ``check_token_bucket`` says what is refused.
        """
        check_token_bucket(per_second, burst)
        return await self._take_rate_token(key, per_second=per_second, burst=burst)

    # Hooks ---------------------------------------------------------------------------------

    @abc.abstractmethod
    async def _consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """``consume_quota`` with an amount of at least 0."""

    @abc.abstractmethod
    async def _refund_quota(self, token_id: str, amount: int) -> None:
        """``refund_quota`` with an amount of at least 0."""

    @abc.abstractmethod
    async def _take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """``take_rate_token`` with a checked bucket."""
