"""The rate-limit half of the store contract (``Store.take_rate_token``), on every backend.

Buckets run on the backend's clock (Redis's ``TIME``), which a test cannot move, so refills are
waited for; each wait is at least the time a token needs, so a slow machine only helps them.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import Store, StoreError


async def take(
    store: Store, times: int, *, key: str = "t", per_second: float, burst: int
) -> list[float]:
    return [
        await store.take_rate_token(key, per_second=per_second, burst=burst) for _ in range(times)
    ]


async def test_a_new_bucket_gives_its_burst_then_says_how_long_to_wait(store: Store) -> None:
    """``burst`` tokens at once; then nothing, and the wait is at most one token's refill time."""
    assert await take(store, 3, per_second=0.01, burst=3) == [0, 0, 0]
    [wait] = await take(store, 1, per_second=0.01, burst=3)
    assert 0 < wait <= 100


async def test_a_bucket_refills_at_its_rate(store: Store) -> None:
    """After 1/per_second seconds one more token is there, and no more than what elapsed."""
    assert await take(store, 2, per_second=20, burst=2) == [0, 0]
    [wait] = await take(store, 1, per_second=20, burst=2)
    assert 0 < wait <= 0.05
    await asyncio.sleep(0.06)
    assert await take(store, 1, per_second=20, burst=2) == [0]


async def test_a_bucket_never_holds_more_than_its_burst(store: Store) -> None:
    """A long pause refills only up to ``burst``."""
    # A token every 0.5 s: the three takes after the pause stay well within one token's time even
    # on a loaded machine (at 50/s, 20 ms between takes was enough to refill one).
    await take(store, 1, per_second=2, burst=2)
    await asyncio.sleep(1.6)
    taken = await take(store, 3, per_second=2, burst=2)
    assert taken[:2] == [0, 0]
    assert taken[2] > 0


async def test_buckets_are_independent_per_key(store: Store) -> None:
    """An empty bucket takes nothing from another key's."""
    assert await take(store, 1, key="a", per_second=0.01, burst=1) == [0]
    assert (await take(store, 1, key="a", per_second=0.01, burst=1))[0] > 0
    assert await take(store, 1, key="b", per_second=0.01, burst=1) == [0]


async def test_processes_sharing_the_store_share_the_bucket(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """Another store on the same backend (another process) takes from the same bucket, also when
    both take at once: exactly ``burst`` tokens in all.
    """
    other = await open_store()
    answers = await asyncio.gather(
        *(
            (store if n % 2 else other).take_rate_token("t", per_second=0.01, burst=5)
            for n in range(12)
        )
    )
    assert sorted(answers)[:5] == [0] * 5
    assert all(wait > 0 for wait in sorted(answers)[5:])


@pytest.mark.parametrize(
    ("per_second", "burst"), [(0, 1), (-1, 1), (math.inf, 1), (math.nan, 1), (1, 0)]
)
async def test_an_unusable_bucket_is_validation_failed(
    store: Store, per_second: float, burst: int
) -> None:
    with pytest.raises(StoreError) as raised:
        await store.take_rate_token("t", per_second=per_second, burst=burst)
    assert raised.value.code == "validation_failed"
