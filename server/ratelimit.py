"""Per-token rate limits: a token bucket per token id, kept in this process.

Each server process keeps its own buckets, so with N processes a token may reach N times its rate;
the hard message quota, which the store keeps, is the limit that holds across processes.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable

from .config import RateLimit

__all__ = ["RateLimiter"]


@dataclasses.dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class RateLimiter:
    """Token buckets by key; :meth:`acquire` says how long to wait when one is empty."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def acquire(self, key: str, limit: RateLimit) -> int | None:
        """Take one request from ``key``'s bucket: None when allowed, else the whole seconds to
        wait before one is available (at least 1, as ``Retry-After`` wants).
        """
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(tokens=float(limit.burst), updated=now)
        else:
            elapsed = max(0.0, now - bucket.updated)
            bucket.tokens = min(float(limit.burst), bucket.tokens + elapsed * limit.per_second)
            bucket.updated = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return max(1, math.ceil((1.0 - bucket.tokens) / limit.per_second))
