"""Console sessions of the store contract (``create_console_session``, ``get_console_session``,
``delete_console_session``), on every backend: what a session answers, when it ends by the store's
clock, and that other processes sharing the backend see it and its end at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio

from server.stores.base import ConsoleSession, Store
from server.stores.redis import RedisStore
from tests.server.stores._support import FakeClock

KEY = "k" * 64
HOUR = 3600.0


async def _create(
    store: Store, key: str = KEY, *, lifetime: float = 8 * HOUR, idle: float = HOUR
) -> ConsoleSession:
    return await store.create_console_session(
        key, token_id="admin", token_check="check-1", lifetime=lifetime, idle=idle
    )


async def test_a_session_is_answered_as_it_was_made(store: Store, clock: FakeClock) -> None:
    """The token's id and check value, made now, ending ``lifetime`` from now at the latest."""
    made = await _create(store)
    assert made == ConsoleSession(
        token_id="admin",
        token_check="check-1",
        created_at=clock.now,
        expires_at=clock.now + 8 * HOUR,
        idle_seconds=HOUR,
    )
    assert await store.get_console_session(KEY, touch=False) == made
    assert await store.get_console_session(KEY, touch=True) == made


async def test_an_unknown_key_is_no_session(store: Store) -> None:
    """Never made: None, and deleting it is harmless."""
    assert await store.get_console_session("u" * 43, touch=True) is None
    await store.delete_console_session("u" * 43)


async def test_a_deleted_session_is_gone_for_every_process(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """A session made through one store is seen through another on the same backend; deleted
    through that one, it is gone for both, and deleting it again changes nothing.
    """
    other = await open_store()
    made = await _create(store)
    assert await other.get_console_session(KEY, touch=True) == made
    await other.delete_console_session(KEY)
    assert await store.get_console_session(KEY, touch=False) is None
    assert await other.get_console_session(KEY, touch=False) is None
    await store.delete_console_session(KEY)


async def test_sessions_are_independent_per_key(store: Store) -> None:
    """Deleting one session leaves another alone."""
    await _create(store, "a" * 43)
    kept = await _create(store, "b" * 43)
    await store.delete_console_session("a" * 43)
    assert await store.get_console_session("b" * 43, touch=False) == kept


async def test_making_a_session_again_replaces_it(store: Store, clock: FakeClock) -> None:
    """The same key made again holds only the new session."""
    await _create(store)
    clock.now += 60
    again = await store.create_console_session(
        KEY, token_id="billing", token_check="check-2", lifetime=HOUR, idle=60
    )
    assert await store.get_console_session(KEY, touch=False) == again
    assert again.token_id == "billing" and again.created_at == clock.now


async def test_a_session_ends_at_its_lifetime_however_often_it_is_touched(
    store: Store, clock: FakeClock
) -> None:
    """Touched every half hour, a session of eight hours with an hour's idle time lives until
    its eight hours are up, and not a moment longer.
    """
    made = await _create(store)
    while clock.now + 1800 < made.expires_at:
        clock.now += 1800
        assert await store.get_console_session(KEY, touch=True) == made
    clock.now = made.expires_at - 0.5
    assert await store.get_console_session(KEY, touch=True) == made
    clock.now = made.expires_at
    assert await store.get_console_session(KEY, touch=True) is None


async def test_a_session_ends_once_idle_and_only_a_touch_keeps_it(
    store: Store, clock: FakeClock
) -> None:
    """Reads without ``touch`` do not count as visits: an hour after the last touch it ends."""
    made = await _create(store)
    clock.now += HOUR - 1
    assert await store.get_console_session(KEY, touch=False) == made
    clock.now += 1
    assert await store.get_console_session(KEY, touch=False) is None
    assert await store.get_console_session(KEY, touch=True) is None

    await _create(store)
    clock.now += HOUR - 1
    assert await store.get_console_session(KEY, touch=True) is not None
    clock.now += HOUR - 1
    assert await store.get_console_session(KEY, touch=False) is not None
    clock.now += 1
    assert await store.get_console_session(KEY, touch=False) is None


async def test_a_session_ends_by_the_real_clock_too(store: Store) -> None:
    """Without a test clock: a session idle for its 0.3 s is gone."""
    await _create(store, idle=0.3)
    assert await store.get_console_session(KEY, touch=False) is not None
    await asyncio.sleep(0.5)
    assert await store.get_console_session(KEY, touch=True) is None


@pytest.mark.redis
async def test_redis_drops_a_session_by_its_ttl(redis_store_url: str, redis_url: str) -> None:
    """The session's hash carries a TTL of its idle time, moved by each touch, so an ended
    session takes no memory; its deletion removes the hash.
    """
    store = RedisStore.from_url(redis_store_url)
    await store.open()
    client = redis.asyncio.Redis.from_url(redis_url)
    try:
        await _create(store, idle=60)
        name = f"{store.prefix}:console:{KEY}"
        assert 59_000 < await client.pttl(name) <= 60_000
        await client.pexpire(name, 5_000)
        await store.get_console_session(KEY, touch=True)
        assert 59_000 < await client.pttl(name) <= 60_000
        await store.delete_console_session(KEY)
        assert await client.exists(name) == 0
    finally:
        await client.aclose()
        await store.close()
