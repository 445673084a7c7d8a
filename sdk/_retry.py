"""Which failed requests are retried, how long to wait, and the retry loops themselves.

Retried: no answer at all (connection errors and timeouts), 408, 429 `rate_limited` and 5xx.
Not retried: `quota_exceeded` (it will not recover by waiting) and every other 4xx. An answer with
`x-should-retry: true` is retried whatever its status, one with `x-should-retry: false` never: the
service knows better than a table of statuses. The wait is exponential with jitter, or what the
service asks with Retry-After-Ms or Retry-After when it is sane (up to a minute). A policy allows
`max_retries` retries and, with a `timeout`, as many more as start within `timeout` seconds of the
first attempt. There is no wait after the last attempt: the error is raised at once.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from ._exceptions import APIConnectionError, APIError, APIStatusError, QuotaExceededError

__all__ = ["RetryPolicy", "asleep", "is_retryable", "now", "retry_async", "retry_sync", "sleep"]

T = TypeVar("T")

logger = logging.getLogger("sdk")

INITIAL_DELAY = 0.5
MAX_DELAY = 8.0
# A longer Retry-After is more likely a misconfigured proxy than advice worth blocking a caller
# for; beyond it the SDK falls back to its own backoff.
MAX_RETRY_AFTER = 60.0


def now() -> float:
    """Monotonic seconds; a module-level function so tests can replace it along with `sleep`."""
    return time.monotonic()


def sleep(seconds: float) -> None:
    """Block for `seconds`; a module-level function so tests can replace it."""
    time.sleep(seconds)


async def asleep(seconds: float) -> None:
    """Wait `seconds` without blocking the event loop; replaceable by tests like `sleep`."""
    import asyncio  # only async clients wait here, and they have imported it already

    await asyncio.sleep(seconds)


def is_retryable(error: APIError) -> bool:
    """Whether repeating the request could succeed where this attempt failed."""
    if isinstance(error, APIConnectionError):
        return True
    if not isinstance(error, APIStatusError):
        return False
    if error.should_retry is not None:
        return error.should_retry
    if isinstance(error, QuotaExceededError):
        return False
    return error.status_code in (408, 429) or error.status_code >= 500


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How many times (and, with `timeout`, for how long) to retry, and how long to wait before
    each retry.
    """

    max_retries: int
    timeout: float | None = None

    def allows(self, retry_number: int, *, started: float, delay: float) -> bool:
        """Whether retry `retry_number` (0 for the first), `delay` seconds from now, may be made
        for an attempt loop that began at `started` (see `now`).
        """
        if retry_number < self.max_retries:
            return True
        return self.timeout is not None and now() + delay - started <= self.timeout

    def delay(self, retry_number: int, error: APIError) -> float:
        """Seconds to wait before retry `retry_number` (0 for the first retry) after `error`."""
        retry_after = error.retry_after if isinstance(error, APIStatusError) else None
        if retry_after is not None and 0 <= retry_after <= MAX_RETRY_AFTER:
            return retry_after
        backoff = min(INITIAL_DELAY * 2.0**retry_number, MAX_DELAY)
        # Up to a quarter less, so many clients failing at once do not retry in lockstep.
        return backoff * (1 - 0.25 * random.random())


def retry_sync(attempt: Callable[[], T], *, policy: RetryPolicy, what: str) -> T:
    """`attempt()`, repeated while it fails with a retryable APIError and retries remain."""
    retry_number = 0
    started = now()
    while True:
        try:
            return attempt()
        except APIError as error:
            if not is_retryable(error):
                raise
            delay = policy.delay(retry_number, error)
            if not policy.allows(retry_number, started=started, delay=delay):
                raise
            _log_retry(what, delay, retry_number, policy, error)
            sleep(delay)
            retry_number += 1


async def retry_async(attempt: Callable[[], Awaitable[T]], *, policy: RetryPolicy, what: str) -> T:
    """The awaitable twin of `retry_sync`."""
    retry_number = 0
    started = now()
    while True:
        try:
            return await attempt()
        except APIError as error:
            if not is_retryable(error):
                raise
            delay = policy.delay(retry_number, error)
            if not policy.allows(retry_number, started=started, delay=delay):
                raise
            _log_retry(what, delay, retry_number, policy, error)
            await asleep(delay)
            retry_number += 1


def _log_retry(
    what: str, delay: float, retry_number: int, policy: RetryPolicy, error: APIError
) -> None:
    budget = f"{policy.max_retries}" if policy.timeout is None else f"{policy.max_retries}+"
    logger.info(
        "retrying %s in %.2f s (retry %d of %s) after: %s",
        what,
        delay,
        retry_number + 1,
        budget,
        error,
    )
