"""Per-token rate limits (server/ratelimit.py), directly and through the app."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from server.config import Permission, RateLimit, Settings, TokenConfig
from server.ratelimit import RateLimiter
from tests.conftest import RunningApp, assert_problem

AppFactory = Callable[..., contextlib.AbstractAsyncContextManager[RunningApp]]
EVERYTHING = (
    Permission(resource="*", name="*", actions=frozenset({"publish", "consume", "admin"})),
)


class _Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_refills() -> None:
    """``burst`` requests pass at once; then one more per 1/per_second seconds."""
    clock = _Clock()
    limiter = RateLimiter(clock=clock)
    limit = RateLimit(per_second=2, burst=3)
    assert [limiter.acquire("t", limit) for _ in range(3)] == [None, None, None]
    assert limiter.acquire("t", limit) == 1
    clock.now += 0.5
    assert limiter.acquire("t", limit) is None
    assert limiter.acquire("t", limit) == 1


def test_retry_after_rounds_up_to_whole_seconds() -> None:
    """A slow rate answers how many whole seconds until the next request may pass."""
    clock = _Clock()
    limiter = RateLimiter(clock=clock)
    limit = RateLimit(per_second=0.1, burst=1)
    assert limiter.acquire("t", limit) is None
    assert limiter.acquire("t", limit) == 10
    clock.now += 9.5
    assert limiter.acquire("t", limit) == 1


def test_buckets_are_per_key_and_never_overfill() -> None:
    """Tokens do not share a bucket, and a long pause refills only up to the burst."""
    clock = _Clock()
    limiter = RateLimiter(clock=clock)
    limit = RateLimit(per_second=1, burst=1)
    assert limiter.acquire("a", limit) is None
    assert limiter.acquire("b", limit) is None
    clock.now += 3600
    assert limiter.acquire("a", limit) is None
    assert limiter.acquire("a", limit) == 1


async def test_publishing_too_fast_is_rate_limited(app_factory: AppFactory, store_url: str) -> None:
    """Over its rate, a token's publishes get 429 rate_limited with Retry-After; reads do not."""
    token = TokenConfig(
        id="fast",
        secret="secret-fast",
        permissions=EVERYTHING,
        rate_limit=RateLimit(per_second=0.01, burst=1),
    )
    settings = Settings(tokens=(token,), store_url=store_url)
    async with app_factory(settings, token="secret-fast") as running:
        path = "/v1/streams/events/entries"
        assert (await running.client.post(path, json={"body": 1})).status_code == 201
        response = await running.client.post(path, json={"body": 2})
        problem = assert_problem(response, 429, "rate_limited")
        assert int(response.headers["retry-after"]) >= 1
        assert "fast" in problem["detail"]
        assert (await running.client.get("/v1/streams/events")).json()["length"] == 1
