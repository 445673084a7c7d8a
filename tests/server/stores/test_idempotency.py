"""Idempotent writes (``IdempotencyClaim`` on append, publish_jobs and publish_messages) and quota
counters of the store contract, on every backend.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import (
    ConflictError,
    IdempotencyClaim,
    MessageLease,
    NewJob,
    NotFoundError,
    Store,
    StoreError,
)
from tests.server.stores._support import FakeClock, make_queue, new_message

CLAIM = IdempotencyClaim(key="token:key-1", request_hash="hash-a", ttl=60)
OTHER_REQUEST = dataclasses.replace(CLAIM, request_hash="hash-b")
REPLAY_ONLY = dataclasses.replace(CLAIM, replay_only=True)


async def _length(store: Store, stream: str) -> int:
    return (await store.stream_info(stream)).length


async def _job_count(store: Store, queue: str) -> int:
    return len(await store.list_jobs(queue, state=None, limit=1000))


async def _message_count(store: Store) -> int:
    return len(await store.claim_due_messages(now=time.time() + 1e6, limit=1000, lease_margin=0))


# Replays -------------------------------------------------------------------------------------


async def test_an_append_is_replayed_and_written_once(store: Store, clock: FakeClock) -> None:
    """A repeat with the claim answers the first result marked replayed, and appends nothing,
    whatever it asks to append now: the record decides, not the repeat's arguments.
    """
    first = await store.append("events", [1, 2], trim=None, nomkstream=False, idempotency=CLAIM)
    assert not first.replayed
    again = await store.append("events", [3], trim=None, nomkstream=True, idempotency=CLAIM)
    assert again == dataclasses.replace(first, replayed=True)
    assert await _length(store, "events") == 2


async def test_a_job_batch_is_replayed_and_published_once(store: Store, clock: FakeClock) -> None:
    """Every receipt of a replayed batch is the first's, deduplicated ones included."""
    queue = await make_queue(store)
    jobs = [
        NewJob("a", 1, deduplication_id="d"),
        NewJob("b", 2, delay=60),
        NewJob("c", 3, deduplication_id="d"),
    ]
    first = await store.publish_jobs(queue, jobs, idempotency=CLAIM)
    assert [receipt.deduplicated for receipt in first] == [False, False, True]
    assert not any(receipt.replayed for receipt in first)
    again = await store.publish_jobs(queue, jobs, idempotency=CLAIM)
    assert again == [dataclasses.replace(receipt, replayed=True) for receipt in first]
    assert await _job_count(store, queue) == 2


async def test_a_message_batch_is_replayed_and_published_once(
    store: Store, clock: FakeClock
) -> None:
    """Receipts keep their message's url and item, so a replay answers the first batch exactly."""
    messages = [
        new_message(url="https://example.com/a", item=0),
        new_message(url="https://example.com/b", item=1, dedup_key="k", dedup_window=60),
        new_message(url="https://example.com/c", item=1, dedup_key="k", dedup_window=60),
    ]
    first = await store.publish_messages(messages, idempotency=CLAIM)
    assert [(r.url, r.item, r.deduplicated) for r in first] == [
        ("https://example.com/a", 0, False),
        ("https://example.com/b", 1, False),
        ("https://example.com/c", 1, True),
    ]
    again = await store.publish_messages(messages[:1], idempotency=CLAIM)
    assert again == [dataclasses.replace(receipt, replayed=True) for receipt in first]
    assert await _message_count(store) == 2


async def test_a_write_without_a_claim_is_never_replayed(store: Store) -> None:
    """Plain writes keep no record and are marked as written now."""
    queue = await make_queue(store)
    for _ in range(2):
        assert not (await store.append("events", [1], trim=None, nomkstream=False)).replayed
        assert not (await store.publish_jobs(queue, [NewJob("t", 1)]))[0].replayed
        assert not (await store.publish_messages([new_message()]))[0].replayed
    assert await _length(store, "events") == 2


# Conflicts, scope and expiry -----------------------------------------------------------------


async def test_a_claim_for_another_request_is_a_conflict_that_writes_nothing(
    store: Store, clock: FakeClock
) -> None:
    """The same key with another request hash raises ``conflict`` on every write."""
    queue = await make_queue(store)
    await store.append("events", [1], trim=None, nomkstream=False, idempotency=CLAIM)
    await store.publish_jobs(queue, [NewJob("t", 1)], idempotency=CLAIM)
    await store.publish_messages([new_message()], idempotency=CLAIM)
    with pytest.raises(ConflictError) as appended:
        await store.append("events", [2], trim=None, nomkstream=False, idempotency=OTHER_REQUEST)
    with pytest.raises(ConflictError) as published_jobs:
        await store.publish_jobs(queue, [NewJob("t", 2)], idempotency=OTHER_REQUEST)
    with pytest.raises(ConflictError) as published_messages:
        await store.publish_messages([new_message()], idempotency=OTHER_REQUEST)
    for refused in (appended, published_jobs, published_messages):
        assert refused.value.code == "conflict"
    assert await _length(store, "events") == 1
    assert await _job_count(store, queue) == 1
    assert await _message_count(store) == 1


async def test_records_are_kept_per_stream_and_per_queue(store: Store, clock: FakeClock) -> None:
    """One key on two streams (or two queues) is two keys: each write runs once."""
    for stream in ("a", "b"):
        result = await store.append(stream, [1], trim=None, nomkstream=False, idempotency=CLAIM)
        assert not result.replayed
    for queue in ("q1", "q2"):
        await make_queue(store, queue)
        [receipt] = await store.publish_jobs(queue, [NewJob("t", 1)], idempotency=CLAIM)
        assert not receipt.replayed


async def test_an_expired_record_lets_the_write_run_again(store: Store, clock: FakeClock) -> None:
    """A record lives exactly ``ttl`` seconds: until then a repeat replays (also with another
    hash being refused), after that the key is free and the write runs and records anew.
    """
    claim = dataclasses.replace(CLAIM, ttl=10)
    first = await store.append("events", [1], trim=None, nomkstream=False, idempotency=claim)
    clock.advance(9.5)
    assert (await store.append("events", [1], trim=None, nomkstream=False, idempotency=claim)) == (
        dataclasses.replace(first, replayed=True)
    )
    clock.advance(1)
    other = dataclasses.replace(claim, request_hash="hash-b")
    second = await store.append("events", [2], trim=None, nomkstream=False, idempotency=other)
    assert not second.replayed
    assert second.ids != first.ids
    again = await store.append("events", [2], trim=None, nomkstream=False, idempotency=other)
    assert again == dataclasses.replace(second, replayed=True)
    assert await _length(store, "events") == 2


async def test_expired_records_of_every_write_count_as_absent(
    store: Store, clock: FakeClock
) -> None:
    """Jobs and messages follow the same ttl rule as appends."""
    queue = await make_queue(store)
    await store.publish_jobs(queue, [NewJob("t", 1)], idempotency=CLAIM)
    await store.publish_messages([new_message()], idempotency=CLAIM)
    clock.advance(CLAIM.ttl)
    [job] = await store.publish_jobs(queue, [NewJob("t", 1)], idempotency=CLAIM)
    [message] = await store.publish_messages([new_message()], idempotency=CLAIM)
    assert not job.replayed and not message.replayed
    assert await _job_count(store, queue) == 2
    assert await _message_count(store) == 2


# Failed writes -------------------------------------------------------------------------------


async def test_a_failed_write_keeps_no_record(store: Store, clock: FakeClock) -> None:
    """A write that raises records nothing, so the corrected repeat with the same key runs:
    a missing queue, a missing stream with ``nomkstream``, a batch refused whole, a lease that is
    not current.
    """
    with pytest.raises(NotFoundError) as missing_queue:
        await store.publish_jobs("work", [NewJob("t", 1)], idempotency=CLAIM)
    assert missing_queue.value.code == "queue_not_found"
    await make_queue(store)
    [job] = await store.publish_jobs("work", [NewJob("t", 1)], idempotency=CLAIM)
    assert not job.replayed

    with pytest.raises(NotFoundError) as missing_stream:
        await store.append("events", [1], trim=None, nomkstream=True, idempotency=CLAIM)
    assert missing_stream.value.code == "stream_not_found"
    appended = await store.append("events", [1], trim=None, nomkstream=False, idempotency=CLAIM)
    assert not appended.replayed

    with pytest.raises(StoreError) as refused_batch:
        await store.publish_jobs(
            "batch", [NewJob("t", 1), NewJob("t", float("nan"))], idempotency=CLAIM
        )
    assert refused_batch.value.code == "validation_failed"
    await make_queue(store, "batch")
    receipts = await store.publish_jobs("batch", [NewJob("t", 1)], idempotency=CLAIM)
    assert [receipt.replayed for receipt in receipts] == [False]

    lease = MessageLease(message_id="msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", lease_id="lease_x")
    with pytest.raises(NotFoundError) as missing_message:
        await store.publish_messages([new_message()], lease=lease, idempotency=CLAIM)
    assert missing_message.value.code == "message_not_found"
    [message] = await store.publish_messages([new_message()], idempotency=CLAIM)
    assert not message.replayed
    assert await _message_count(store) == 1


# Replaying only ------------------------------------------------------------------------------


async def test_replay_only_answers_a_live_record(store: Store, clock: FakeClock) -> None:
    """``replay_only`` replays like any repeat, and refuses another request the same way."""
    queue = await make_queue(store)
    first = await store.append("events", [1], trim=None, nomkstream=False, idempotency=CLAIM)
    [job] = await store.publish_jobs(queue, [NewJob("t", 1)], idempotency=CLAIM)
    [message] = await store.publish_messages([new_message()], idempotency=CLAIM)
    assert await store.append(
        "events", [1], trim=None, nomkstream=False, idempotency=REPLAY_ONLY
    ) == dataclasses.replace(first, replayed=True)
    assert await store.publish_jobs(queue, [NewJob("t", 1)], idempotency=REPLAY_ONLY) == [
        dataclasses.replace(job, replayed=True)
    ]
    assert await store.publish_messages([new_message()], idempotency=REPLAY_ONLY) == [
        dataclasses.replace(message, replayed=True)
    ]
    with pytest.raises(ConflictError):
        await store.append(
            "events",
            [1],
            trim=None,
            nomkstream=False,
            idempotency=dataclasses.replace(REPLAY_ONLY, request_hash="hash-b"),
        )


async def test_replay_only_never_writes(store: Store, clock: FakeClock) -> None:
    """Without a live record ``replay_only`` raises ``idempotency_record_not_found`` and writes
    nothing: no stream is created, no job or message published.
    """
    queue = await make_queue(store)
    refusals = [
        store.append("events", [1], trim=None, nomkstream=False, idempotency=REPLAY_ONLY),
        store.publish_jobs(queue, [NewJob("t", 1)], idempotency=REPLAY_ONLY),
        store.publish_messages([new_message()], idempotency=REPLAY_ONLY),
    ]
    for refusal in refusals:
        with pytest.raises(NotFoundError) as refused:
            await refusal
        assert refused.value.code == "idempotency_record_not_found"
    with pytest.raises(NotFoundError):
        await store.stream_info("events")
    assert await _job_count(store, queue) == 0
    assert await _message_count(store) == 0
    written = await store.append("events", [1], trim=None, nomkstream=False, idempotency=CLAIM)
    assert not written.replayed


# Concurrency ---------------------------------------------------------------------------------


async def test_concurrent_repeats_write_once_and_agree(store: Store) -> None:
    """Many writes with one claim at once, on one store: one writes, every other replays it."""
    queue = await make_queue(store)
    appended = await asyncio.gather(
        *(
            store.append("events", [n], trim=None, nomkstream=False, idempotency=CLAIM)
            for n in range(20)
        )
    )
    assert sum(not result.replayed for result in appended) == 1
    assert len({tuple(result.ids) for result in appended}) == 1
    assert await _length(store, "events") == 1
    published = await asyncio.gather(
        *(store.publish_jobs(queue, [NewJob("t", n)], idempotency=CLAIM) for n in range(20))
    )
    assert sum(not receipt.replayed for [receipt] in published) == 1
    assert len({receipt.job_id for [receipt] in published}) == 1
    assert await _job_count(store, queue) == 1


async def test_concurrent_repeats_through_several_stores_write_once(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """As other processes would: several store instances on one backend still write once."""
    stores = [store, await open_store(), await open_store()]
    messages = await asyncio.gather(
        *(
            stores[n % len(stores)].publish_messages([new_message()], idempotency=CLAIM)
            for n in range(30)
        )
    )
    assert sum(not receipt.replayed for [receipt] in messages) == 1
    assert len({receipt.message_id for [receipt] in messages}) == 1
    assert await _message_count(store) == 1
    appended = await asyncio.gather(
        *(
            stores[n % len(stores)].append(
                "events", [n], trim=None, nomkstream=False, idempotency=CLAIM
            )
            for n in range(30)
        )
    )
    assert sum(not result.replayed for result in appended) == 1
    assert await _length(store, "events") == 1


# Quotas --------------------------------------------------------------------------------------


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
