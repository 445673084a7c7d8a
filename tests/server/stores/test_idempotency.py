"""Idempotency records and quota counters of the store contract, on every backend."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from server.stores.base import IdempotencyRecord, Store
from tests.server.stores._support import FakeClock

# Idempotency -------------------------------------------------------------------------------


async def test_begin_reserves_a_free_key_once(store: Store, clock: FakeClock) -> None:
    """The first ``begin_idempotent`` reserves the key; later ones see the reservation unchanged."""
    assert await store.begin_idempotent("token:key-1", "hash-a", ttl=60) is None
    unfinished = IdempotencyRecord(request_hash="hash-a", status=None, body=None)
    assert await store.begin_idempotent("token:key-1", "hash-a", ttl=60) == unfinished
    assert await store.begin_idempotent("token:key-1", "hash-b", ttl=60) == unfinished


async def test_a_finished_key_replays_the_stored_response(store: Store, clock: FakeClock) -> None:
    """After ``finish_idempotent`` a repeat gets the stored status and exact body bytes."""
    await store.begin_idempotent("token:key-1", "hash-a", ttl=60)
    body = b'{"id":"1795987808903-0","stream":"events"}\x00\xff'
    await store.finish_idempotent("token:key-1", status=201, body=body, ttl=86400)
    assert await store.begin_idempotent("token:key-1", "hash-b", ttl=60) == IdempotencyRecord(
        request_hash="hash-a", status=201, body=body
    )


async def test_release_frees_a_reservation(store: Store, clock: FakeClock) -> None:
    """A released key can be reserved again, by a corrected request with another hash."""
    await store.begin_idempotent("token:key-1", "hash-a", ttl=60)
    await store.release_idempotent("token:key-1")
    assert await store.begin_idempotent("token:key-1", "hash-b", ttl=60) is None
    assert await store.begin_idempotent("token:key-1", "hash-c", ttl=60) == IdempotencyRecord(
        request_hash="hash-b", status=None, body=None
    )


async def test_a_reservation_expires_after_its_ttl(store: Store, clock: FakeClock) -> None:
    """A reservation whose ``ttl`` has passed no longer holds the key."""
    await store.begin_idempotent("token:key-1", "hash-a", ttl=10)
    clock.advance(9)
    assert await store.begin_idempotent("token:key-1", "hash-b", ttl=10) is not None
    clock.advance(2)
    assert await store.begin_idempotent("token:key-1", "hash-b", ttl=10) is None


async def test_a_finished_record_lives_for_the_ttl_given_when_finishing(
    store: Store, clock: FakeClock
) -> None:
    """``finish_idempotent``'s ``ttl`` counts from the finish and replaces the reservation's."""
    await store.begin_idempotent("token:key-1", "hash-a", ttl=10)
    clock.advance(5)
    await store.finish_idempotent("token:key-1", status=200, body=b"{}", ttl=100)
    clock.advance(99)
    replay = await store.begin_idempotent("token:key-1", "hash-a", ttl=10)
    assert replay == IdempotencyRecord(request_hash="hash-a", status=200, body=b"{}")
    clock.advance(2)
    assert await store.begin_idempotent("token:key-1", "hash-a", ttl=10) is None


async def test_idempotency_keys_are_independent(store: Store, clock: FakeClock) -> None:
    """Reserving, finishing or releasing one key leaves every other key alone."""
    await store.begin_idempotent("token-a:key", "hash-a", ttl=60)
    assert await store.begin_idempotent("token-b:key", "hash-b", ttl=60) is None
    await store.finish_idempotent("token-b:key", status=201, body=b"b", ttl=60)
    await store.release_idempotent("token-b:key")
    assert await store.begin_idempotent("token-a:key", "x", ttl=60) == IdempotencyRecord(
        request_hash="hash-a", status=None, body=None
    )


# Quotas ------------------------------------------------------------------------------------


async def test_consume_quota_adds_only_what_fits_within_the_limit(store: Store) -> None:
    """A consumption that would pass ``limit`` is refused and counts nothing."""
    assert await store.consume_quota("token-a", 3, limit=5)
    assert not await store.consume_quota("token-a", 3, limit=5)
    assert await store.consume_quota("token-a", 2, limit=5)
    assert not await store.consume_quota("token-a", 1, limit=5)


async def test_refund_quota_gives_back_what_was_consumed(store: Store) -> None:
    """A refund makes room for exactly that many more."""
    assert await store.consume_quota("token-a", 5, limit=5)
    await store.refund_quota("token-a", 2)
    assert await store.consume_quota("token-a", 2, limit=5)
    assert not await store.consume_quota("token-a", 1, limit=5)


async def test_quotas_count_per_token(store: Store) -> None:
    """One token's consumption does not use another's quota."""
    assert await store.consume_quota("token-a", 5, limit=5)
    assert await store.consume_quota("token-b", 5, limit=5)
    assert not await store.consume_quota("token-a", 1, limit=5)


async def test_concurrent_consumption_never_passes_the_limit(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """Many consumptions at once, through several store instances, grant exactly the limit."""
    stores = [store, await open_store(), await open_store()]
    granted = await asyncio.gather(
        *(stores[n % len(stores)].consume_quota("token-a", 1, limit=15) for n in range(40))
    )
    assert sum(granted) == 15
