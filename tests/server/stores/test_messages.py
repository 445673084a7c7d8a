"""The message half of the store contract: messages, deliveries, URL groups and dead letters."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Literal

import pytest

from server.stores.base import (
    ConflictError,
    MessageLease,
    MessageRecord,
    NotFoundError,
    Store,
    StoreError,
    UrlEndpoint,
)
from tests.server.stores._support import (
    LEASE_ID,
    MESSAGE_ID,
    FakeClock,
    attempt,
    new_message,
)

UNKNOWN_MESSAGE = "msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"


async def publish_one(store: Store, clock: FakeClock, **fields: object) -> str:
    """Publish one message due now (unless ``fields`` say otherwise); return its id."""
    [receipt] = await store.publish_messages([new_message(**{"not_before": clock.now, **fields})])
    return receipt.message_id


async def claim_one(store: Store, clock: FakeClock, message_id: str) -> MessageRecord:
    """Claim every due message and return the one named."""
    claimed = await store.claim_due_messages(now=clock.now, limit=100, lease_margin=60)
    [record] = [message for message in claimed if message.message_id == message_id]
    return record


async def claim_lease(store: Store, clock: FakeClock, message_id: str) -> str:
    """Claim every due message and return the lease id of the one named."""
    lease_id = (await claim_one(store, clock, message_id)).lease_id
    assert lease_id is not None
    return lease_id


# Publishing --------------------------------------------------------------------------------


async def test_callback_headers_are_kept_for_every_read(store: Store, clock: FakeClock) -> None:
    """``callback_headers``, ``failure_callback_headers`` and what the message redacts read back
    as published, from get_message, list_messages and claim_due_messages; a message without
    them has none.
    """
    message_id = await publish_one(
        store,
        clock,
        callback_headers={"Authorization": "Bearer ok", "X-Kind": "café"},
        failure_callback_headers={"Authorization": "Bearer ko"},
        redact_body=True,
        redact_headers=("Authorization", "x-api-key"),
    )
    plain = await publish_one(store, clock)
    page = await store.list_messages(limit=10, cursor=None)
    listed = {message.message_id: message for message in page.messages}
    for record in (
        await store.get_message(message_id),
        listed[message_id],
        await claim_one(store, clock, message_id),
    ):
        assert record.callback_headers == {"Authorization": "Bearer ok", "X-Kind": "café"}
        assert record.failure_callback_headers == {"Authorization": "Bearer ko"}
        assert (record.redact_body, record.redact_headers) == (True, ("Authorization", "x-api-key"))
    without = await store.get_message(plain)
    assert (without.callback_headers, without.failure_callback_headers) == ({}, {})
    assert (without.redact_body, without.redact_headers) == (False, ())


async def test_publish_answers_one_receipt_per_message_in_order(
    store: Store, clock: FakeClock
) -> None:
    """Receipts follow the request order, each with a fresh ``msg_`` id and its URL."""
    urls = [f"https://example.com/{n}" for n in range(3)]
    receipts = await store.publish_messages(
        [new_message(url=url, not_before=clock.now) for url in urls]
    )
    assert [(receipt.url, receipt.deduplicated) for receipt in receipts] == [
        (url, False) for url in urls
    ]
    assert all(MESSAGE_ID.fullmatch(receipt.message_id) for receipt in receipts)
    assert len({receipt.message_id for receipt in receipts}) == 3


async def test_a_published_message_keeps_every_field(store: Store, clock: FakeClock) -> None:
    """``get_message`` answers the message as published, ``scheduled`` for ``not_before``."""
    message = new_message(
        url="https://example.com/hook",
        body=b"\x00\xffraw bytes\r\n",
        content_type="application/octet-stream",
        method="PUT",
        headers={"X-One": "1", "X-Two": "two words"},
        not_before=clock.now + 120,
        retries=7,
        timeout=15,
        url_group="fanout",
        retry_delay="pow(2, retried) * 1000",
        callback="https://example.com/ok",
        failure_callback="https://example.com/failed",
        deduplication_id="order-42",
    )
    [receipt] = await store.publish_messages([message])
    record = await store.get_message(receipt.message_id)
    # The approx values stand in for floats: MessageRecord's == compares field by field.
    assert record == MessageRecord(
        message_id=receipt.message_id,
        url=message.url,
        body=message.body,
        content_type=message.content_type,
        method=message.method,
        headers=message.headers,
        state="scheduled",
        retries=7,
        timeout=15,
        created_at=pytest.approx(clock.now, abs=0.01),  # type: ignore[arg-type]
        not_before=pytest.approx(clock.now + 120, abs=0.01),  # type: ignore[arg-type]
        attempts=[],
        retries_used=0,
        next_attempt_at=pytest.approx(clock.now + 120, abs=0.01),  # type: ignore[arg-type]
        url_group="fanout",
        retry_delay="pow(2, retried) * 1000",
        callback="https://example.com/ok",
        failure_callback="https://example.com/failed",
        deduplication_id="order-42",
    )


async def test_a_repeated_dedup_key_within_the_window_yields_the_first_message(
    store: Store, clock: FakeClock
) -> None:
    """A message whose ``dedup_key`` names one created within the window is not created again."""
    first = await publish_one(store, clock, dedup_key="k1", dedup_window=60.0)
    clock.advance(59)
    [repeat] = await store.publish_messages(
        [new_message(not_before=clock.now, dedup_key="k1", dedup_window=60.0)]
    )
    assert (repeat.message_id, repeat.deduplicated) == (first, True)
    [other] = await store.publish_messages(
        [new_message(not_before=clock.now, dedup_key="k2", dedup_window=60.0)]
    )
    assert not other.deduplicated
    assert other.message_id != first


async def test_dedup_applies_within_one_call(store: Store, clock: FakeClock) -> None:
    """A ``dedup_key`` repeated later in the same call yields the call's first message."""
    receipts = await store.publish_messages(
        [
            new_message(not_before=clock.now, dedup_key="k", dedup_window=60.0),
            new_message(not_before=clock.now, url="https://example.com/other"),
            new_message(not_before=clock.now, dedup_key="k", dedup_window=60.0),
        ]
    )
    assert [receipt.deduplicated for receipt in receipts] == [False, False, True]
    assert receipts[2].message_id == receipts[0].message_id


async def test_a_dedup_key_is_forgotten_after_the_window(store: Store, clock: FakeClock) -> None:
    """Once the window has passed the same ``dedup_key`` makes a new message."""
    first = await publish_one(store, clock, dedup_key="k1", dedup_window=60.0)
    clock.advance(61)
    second = await publish_one(store, clock, dedup_key="k1", dedup_window=60.0)
    assert second != first
    clock.advance(30)
    [third] = await store.publish_messages(
        [new_message(not_before=clock.now, dedup_key="k1", dedup_window=60.0)]
    )
    assert (third.message_id, third.deduplicated) == (second, True)


async def test_a_failed_publish_writes_nothing(store: Store, clock: FakeClock) -> None:
    """A call with one message that cannot be stored creates none (its dedup key stays free)."""
    with pytest.raises((StoreError, TypeError, ValueError)):
        await store.publish_messages(
            [
                new_message(not_before=clock.now, dedup_key="k1", dedup_window=60.0),
                new_message(not_before=clock.now, headers={"X-Bad": object()}),
            ]
        )
    [receipt] = await store.publish_messages(
        [new_message(not_before=clock.now, dedup_key="k1", dedup_window=60.0)]
    )
    assert not receipt.deduplicated
    claimed = await store.claim_due_messages(now=clock.now, limit=100, lease_margin=60)
    assert [message.message_id for message in claimed] == [receipt.message_id]


@pytest.mark.parametrize(
    "call",
    [
        lambda store: store.get_message(UNKNOWN_MESSAGE),
        lambda store: store.cancel_message(UNKNOWN_MESSAGE),
        lambda store: store.record_attempt(
            UNKNOWN_MESSAGE, attempt(1), lease_id="lease_x", outcome="delivered"
        ),
    ],
    ids=["get", "cancel", "record_attempt"],
)
async def test_an_unknown_message_is_message_not_found(
    store: Store, call: Callable[[Store], Awaitable[object]]
) -> None:
    """Reading, cancelling or settling a message that does not exist is ``message_not_found``."""
    with pytest.raises(NotFoundError) as raised:
        await call(store)
    assert raised.value.code == "message_not_found"


# Cancelling --------------------------------------------------------------------------------


async def test_cancel_stops_a_scheduled_message(store: Store, clock: FakeClock) -> None:
    """A cancelled message is final: no next attempt, never claimed, not cancellable again."""
    message_id = await publish_one(store, clock)
    record = await store.cancel_message(message_id)
    assert (record.state, record.next_attempt_at) == ("cancelled", None)
    assert (await store.get_message(message_id)).state == "cancelled"
    assert await store.claim_due_messages(now=clock.now + 3600, limit=10, lease_margin=60) == []
    with pytest.raises(ConflictError) as raised:
        await store.cancel_message(message_id)
    assert raised.value.code == "invalid_state"


async def test_cancel_refuses_messages_past_scheduling(store: Store, clock: FakeClock) -> None:
    """Delivering, delivered and failed messages cannot be cancelled (``invalid_state``)."""
    delivering = await publish_one(store, clock)
    delivered = await publish_one(store, clock)
    failed = await publish_one(store, clock)
    leases = {
        message.message_id: message.lease_id
        for message in await store.claim_due_messages(now=clock.now, limit=10, lease_margin=60)
    }
    delivered_lease, failed_lease = leases[delivered], leases[failed]
    assert delivered_lease is not None and failed_lease is not None
    await store.record_attempt(
        delivered, attempt(1, status_code=200), lease_id=delivered_lease, outcome="delivered"
    )
    await store.record_attempt(
        failed, attempt(1, status_code=500), lease_id=failed_lease, outcome="failed"
    )
    for message_id in (delivering, delivered, failed):
        with pytest.raises(ConflictError) as raised:
            await store.cancel_message(message_id)
        assert raised.value.code == "invalid_state"


# Claiming due messages ---------------------------------------------------------------------


async def test_each_claim_lasts_its_message_timeout_plus_the_margin(
    store: Store, clock: FakeClock
) -> None:
    """A due message is ``delivering`` until ``now + timeout + lease_margin``; others stay put."""
    quick = await publish_one(store, clock, timeout=5)
    slow = await publish_one(store, clock, timeout=300)
    later = await publish_one(store, clock, not_before=clock.now + 600)
    claimed = await store.claim_due_messages(now=clock.now, limit=10, lease_margin=20)
    # mypy's strict equality honours pytest.approx's __eq__ in lists and dicts but not in
    # fixed-length tuples, so it takes this comparison (and the file's others like it) for one
    # that never holds.
    assert {m.message_id: (m.state, m.next_attempt_at) for m in claimed} == {  # type: ignore[comparison-overlap]
        quick: ("delivering", pytest.approx(clock.now + 25, abs=0.01)),
        slow: ("delivering", pytest.approx(clock.now + 320, abs=0.01)),
    }
    assert (await store.get_message(later)).state == "scheduled"
    assert await store.claim_due_messages(now=clock.now + 24, limit=10, lease_margin=20) == []


async def test_a_delivering_message_whose_lease_ended_is_due_again(
    store: Store, clock: FakeClock
) -> None:
    """A claim whose process died is claimed again once its own lease has ended, not before."""
    quick = await publish_one(store, clock, timeout=30)
    slow = await publish_one(store, clock, timeout=600)
    await store.claim_due_messages(now=clock.now, limit=10, lease_margin=30)
    again = await store.claim_due_messages(now=clock.now + 61, limit=10, lease_margin=30)
    assert [(m.message_id, m.state) for m in again] == [(quick, "delivering")]
    assert again[0].next_attempt_at == pytest.approx(clock.now + 121, abs=0.01)
    assert (await store.get_message(slow)).next_attempt_at == pytest.approx(
        clock.now + 630, abs=0.01
    )


@pytest.mark.parametrize("lease_margin", [-1.0, float("nan"), float("inf")])
async def test_a_lease_margin_that_is_not_a_duration_is_refused(
    store: Store, clock: FakeClock, lease_margin: float
) -> None:
    """A negative or non-finite ``lease_margin`` is ``validation_failed`` and claims nothing."""
    message_id = await publish_one(store, clock)
    with pytest.raises(StoreError) as raised:
        await store.claim_due_messages(now=clock.now, limit=10, lease_margin=lease_margin)
    assert raised.value.code == "validation_failed"
    assert (await store.get_message(message_id)).state == "scheduled"


async def test_claim_due_respects_limit(store: Store, clock: FakeClock) -> None:
    """At most ``limit`` messages are claimed per call; later calls take the rest."""
    published = {await publish_one(store, clock) for _ in range(5)}
    batches = [
        await store.claim_due_messages(now=clock.now, limit=2, lease_margin=60) for _ in range(4)
    ]
    assert [len(batch) for batch in batches] == [2, 2, 1, 0]
    assert {m.message_id for batch in batches for m in batch} == published


async def test_concurrent_claims_never_share_a_message(
    store: Store, clock: FakeClock, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """Many claims at once, through several store instances, claim each message once."""
    published = {await publish_one(store, clock) for _ in range(30)}
    stores = [store, await open_store(), await open_store()]
    batches = await asyncio.gather(
        *(
            stores[n % len(stores)].claim_due_messages(now=clock.now, limit=4, lease_margin=60)
            for n in range(12)
        )
    )
    claimed = [m.message_id for batch in batches for m in batch]
    assert len(claimed) == len(set(claimed))
    assert set(claimed) == published


# Leases ------------------------------------------------------------------------------------


async def test_each_claim_has_a_fresh_lease_id_only_while_delivering(
    store: Store, clock: FakeClock
) -> None:
    """Every claim names its own ``lease_id``; a scheduled or settled message has none."""
    first = await publish_one(store, clock)
    second = await publish_one(store, clock)
    assert (await store.get_message(first)).lease_id is None
    claimed = await store.claim_due_messages(now=clock.now, limit=10, lease_margin=30)
    leases = {message.message_id: message.lease_id for message in claimed}
    assert all(lease is not None and LEASE_ID.fullmatch(lease) for lease in leases.values())
    assert leases[first] != leases[second]
    assert (await store.get_message(first)).lease_id == leases[first]
    [again] = await store.claim_due_messages(now=clock.now + 61, limit=1, lease_margin=30)
    assert again.lease_id not in (None, leases[first], leases[second])
    settled = await store.record_attempt(
        again.message_id, attempt(1), lease_id=str(again.lease_id), outcome="delivered"
    )
    assert settled.lease_id is None


async def test_a_replaced_lease_cannot_record_and_writes_nothing(
    store: Store, clock: FakeClock
) -> None:
    """After another claim replaced a lease, recording under it is ``lease_expired``."""
    message_id = await publish_one(store, clock, timeout=10)
    stale = await claim_lease(store, clock, message_id)
    clock.advance(71)
    current = await claim_lease(store, clock, message_id)
    before = await store.get_message(message_id)
    for outcome in ("delivered", "retry", "failed"):
        with pytest.raises(ConflictError) as raised:
            await store.record_attempt(
                message_id,
                attempt(1, error="late"),
                lease_id=stale,
                outcome=outcome,
                next_attempt_at=clock.now,
            )
        assert raised.value.code == "lease_expired"
    assert await store.get_message(message_id) == before
    assert (await store.list_dead_letters(limit=10)).dead_letters == []
    record = await store.record_attempt(
        message_id, attempt(1), lease_id=current, outcome="delivered"
    )
    assert (record.state, len(record.attempts)) == ("delivered", 1)


async def test_a_lease_that_ended_unclaimed_still_records(store: Store, clock: FakeClock) -> None:
    """A lease past its end that no other claim replaced is still the message's current one."""
    message_id = await publish_one(store, clock, timeout=10)
    lease = await claim_lease(store, clock, message_id)
    clock.advance(3600)
    record = await store.record_attempt(message_id, attempt(1), lease_id=lease, outcome="delivered")
    assert record.state == "delivered"


async def test_a_lease_records_once(store: Store, clock: FakeClock) -> None:
    """Recording ends the lease: the same lease cannot record a second attempt."""
    message_id = await publish_one(store, clock)
    lease = await claim_lease(store, clock, message_id)
    await store.record_attempt(
        message_id, attempt(1), lease_id=lease, outcome="retry", next_attempt_at=clock.now + 5
    )
    with pytest.raises(ConflictError) as raised:
        await store.record_attempt(message_id, attempt(2), lease_id=lease, outcome="delivered")
    assert raised.value.code == "lease_expired"
    record = await store.get_message(message_id)
    assert (record.state, len(record.attempts)) == ("scheduled", 1)


async def test_an_unclaimed_message_cannot_record(store: Store, clock: FakeClock) -> None:
    """A message never claimed has no lease, so any ``lease_id`` is ``lease_expired``."""
    message_id = await publish_one(store, clock)
    with pytest.raises(ConflictError) as raised:
        await store.record_attempt(
            message_id, attempt(1), lease_id="lease_01JDX4Q5Z8K2M3N4P5Q6R7S8T9", outcome="failed"
        )
    assert raised.value.code == "lease_expired"
    assert (await store.get_message(message_id)).attempts == []


async def test_publishing_under_a_lease_needs_it_current(store: Store, clock: FakeClock) -> None:
    """Under a current lease messages are published; under a replaced one nothing is."""
    message_id = await publish_one(store, clock, timeout=10)
    stale = await claim_lease(store, clock, message_id)
    callback = new_message(
        url="https://example.com/callback",
        not_before=clock.now + 86400,
        dedup_key="callback",
        dedup_window=3600.0,
    )
    [receipt] = await store.publish_messages(
        [callback], lease=MessageLease(message_id=message_id, lease_id=stale)
    )
    assert not receipt.deduplicated
    clock.advance(71)
    current = await claim_lease(store, clock, message_id)
    other = new_message(not_before=clock.now, dedup_key="other", dedup_window=3600.0)
    with pytest.raises(ConflictError) as raised:
        await store.publish_messages(
            [other], lease=MessageLease(message_id=message_id, lease_id=stale)
        )
    assert raised.value.code == "lease_expired"
    [fresh] = await store.publish_messages([other])
    assert not fresh.deduplicated
    [repeat] = await store.publish_messages(
        [callback], lease=MessageLease(message_id=message_id, lease_id=current)
    )
    assert (repeat.message_id, repeat.deduplicated) == (receipt.message_id, True)


async def test_publishing_under_a_lease_of_an_unknown_message_is_not_found(store: Store) -> None:
    """A lease naming a message that does not exist is ``message_not_found``."""
    with pytest.raises(NotFoundError) as raised:
        await store.publish_messages(
            [new_message()], lease=MessageLease(message_id=UNKNOWN_MESSAGE, lease_id="lease_x")
        )
    assert raised.value.code == "message_not_found"


# Recording attempts ------------------------------------------------------------------------


async def test_a_delivered_attempt_settles_the_message(store: Store, clock: FakeClock) -> None:
    """``delivered`` records the attempt with every field and ends the schedule."""
    message_id = await publish_one(store, clock)
    lease = await claim_lease(store, clock, message_id)
    sent = attempt(
        1, started_at=clock.now, duration_ms=87, status_code=204, response_excerpt="no content"
    )
    record = await store.record_attempt(message_id, sent, lease_id=lease, outcome="delivered")
    assert (record.state, record.next_attempt_at, record.attempts) == ("delivered", None, [sent])
    assert await store.get_message(message_id) == record
    assert (await store.list_dead_letters(limit=10)).dead_letters == []


async def test_a_retry_schedules_the_next_attempt(store: Store, clock: FakeClock) -> None:
    """``retry`` puts the message back to ``scheduled`` at ``next_attempt_at``; attempts pile up."""
    message_id = await publish_one(store, clock)
    lease = await claim_lease(store, clock, message_id)
    first = attempt(1, status_code=503, error="service unavailable")
    record = await store.record_attempt(
        message_id, first, lease_id=lease, outcome="retry", next_attempt_at=clock.now + 10
    )
    assert (record.state, record.next_attempt_at) == (  # type: ignore[comparison-overlap]
        "scheduled",
        pytest.approx(clock.now + 10, abs=0.01),
    )
    assert await store.get_message(message_id) == record
    assert await store.claim_due_messages(now=clock.now + 9, limit=10, lease_margin=60) == []
    clock.advance(10)
    lease = await claim_lease(store, clock, message_id)
    second = attempt(2, status_code=200)
    record = await store.record_attempt(message_id, second, lease_id=lease, outcome="delivered")
    assert record.attempts == [first, second]


async def test_retries_used_counts_the_attempts_of_the_current_budget(
    store: Store, clock: FakeClock
) -> None:
    """Each recorded attempt adds one to ``retries_used``; claiming does not; a retried dead
    letter starts again at 0 and counts on from there.
    """
    message_id = await publish_one(store, clock, retries=1)
    assert (await store.get_message(message_id)).retries_used == 0
    lease = await claim_lease(store, clock, message_id)
    assert (await store.get_message(message_id)).retries_used == 0
    record = await store.record_attempt(
        message_id, attempt(1), lease_id=lease, outcome="retry", next_attempt_at=clock.now
    )
    assert record.retries_used == 1
    lease = await claim_lease(store, clock, message_id)
    record = await store.record_attempt(message_id, attempt(2), lease_id=lease, outcome="failed")
    assert record.retries_used == 2
    assert (await store.retry_dead_letter(message_id)).retries_used == 0
    lease = await claim_lease(store, clock, message_id)
    record = await store.record_attempt(message_id, attempt(3), lease_id=lease, outcome="delivered")
    assert (record.retries_used, len(record.attempts)) == (1, 3)
    assert (await store.get_message(message_id)).retries_used == 1


async def test_a_failed_message_becomes_a_dead_letter(store: Store, clock: FakeClock) -> None:
    """``failed`` ends the message and adds a dead letter with the last error and status."""
    message_id = await publish_one(store, clock, url="https://example.com/broken")
    lease = await claim_lease(store, clock, message_id)
    await store.record_attempt(
        message_id,
        attempt(1, status_code=500),
        lease_id=lease,
        outcome="retry",
        next_attempt_at=clock.now,
    )
    lease = await claim_lease(store, clock, message_id)
    last = attempt(2, status_code=502, error="bad gateway")
    record = await store.record_attempt(message_id, last, lease_id=lease, outcome="failed")
    assert (record.state, record.next_attempt_at, len(record.attempts)) == ("failed", None, 2)
    assert await store.get_message(message_id) == record
    [dead] = (await store.list_dead_letters(limit=10)).dead_letters
    assert (dead.message_id, dead.url, dead.attempts, dead.last_error, dead.last_status_code) == (
        message_id,
        "https://example.com/broken",
        2,
        "bad gateway",
        502,
    )
    assert dead.failed_at == pytest.approx(clock.now, abs=0.01)


async def test_dead_letters_list_oldest_first_up_to_limit(store: Store, clock: FakeClock) -> None:
    """``list_dead_letters`` answers the earliest failures first, at most ``limit``."""
    failed = []
    for _ in range(3):
        message_id = await publish_one(store, clock)
        lease = await claim_lease(store, clock, message_id)
        await store.record_attempt(
            message_id, attempt(1, error="timeout"), lease_id=lease, outcome="failed"
        )
        failed.append(message_id)
        clock.advance(1)
    assert [d.message_id for d in (await store.list_dead_letters(limit=10)).dead_letters] == failed
    assert [d.message_id for d in (await store.list_dead_letters(limit=2)).dead_letters] == failed[
        :2
    ]


async def test_deleting_a_dead_letter_keeps_the_message(store: Store, clock: FakeClock) -> None:
    """A deleted dead letter is gone for good while the message stays readable."""
    message_id = await publish_one(store, clock)
    lease = await claim_lease(store, clock, message_id)
    await store.record_attempt(
        message_id, attempt(1, error="timeout"), lease_id=lease, outcome="failed"
    )
    await store.delete_dead_letter(message_id)
    assert (await store.list_dead_letters(limit=10)).dead_letters == []
    assert (await store.get_message(message_id)).state == "failed"
    for call in (store.delete_dead_letter(message_id), store.retry_dead_letter(message_id)):
        with pytest.raises(NotFoundError) as raised:
            await call
        assert raised.value.code == "dead_letter_not_found"


async def test_retrying_a_dead_letter_schedules_the_message_now(
    store: Store, clock: FakeClock
) -> None:
    """A retried dead letter is removed and its message is due now, its history kept."""
    message_id = await publish_one(store, clock)
    lease = await claim_lease(store, clock, message_id)
    failure = attempt(1, error="timeout")
    await store.record_attempt(message_id, failure, lease_id=lease, outcome="failed")
    clock.advance(3600)
    record = await store.retry_dead_letter(message_id)
    assert (record.state, record.attempts, record.retries_used) == ("scheduled", [failure], 0)
    assert record.next_attempt_at == pytest.approx(clock.now, abs=0.01)
    assert (await store.list_dead_letters(limit=10)).dead_letters == []
    assert (await claim_one(store, clock, message_id)).state == "delivering"
    with pytest.raises(NotFoundError) as raised:
        await store.retry_dead_letter(message_id)
    assert raised.value.code == "dead_letter_not_found"


async def test_a_dead_letter_for_an_unknown_message_is_not_found(store: Store) -> None:
    """Deleting or retrying a dead letter that never existed is ``dead_letter_not_found``."""
    for call in (
        store.delete_dead_letter(UNKNOWN_MESSAGE),
        store.retry_dead_letter(UNKNOWN_MESSAGE),
    ):
        with pytest.raises(NotFoundError) as raised:
            await call
        assert raised.value.code == "dead_letter_not_found"


# The next due time -------------------------------------------------------------------------


async def test_next_due_at_is_none_without_a_scheduled_or_delivering_message(
    store: Store, clock: FakeClock
) -> None:
    """An empty store, and one whose messages are all final, have no next due time."""
    assert await store.next_due_at() is None
    delivered = await publish_one(store, clock)
    failed = await publish_one(store, clock)
    cancelled = await publish_one(store, clock, not_before=clock.now + 60)
    claimed = await store.claim_due_messages(now=clock.now, limit=10, lease_margin=60)
    leases = {message.message_id: message.lease_id for message in claimed}
    settled: tuple[tuple[str, Literal["delivered", "failed"]], ...] = (
        (delivered, "delivered"),
        (failed, "failed"),
    )
    for message_id, outcome in settled:
        lease = leases[message_id]
        assert lease is not None
        await store.record_attempt(message_id, attempt(1), lease_id=lease, outcome=outcome)
    await store.cancel_message(cancelled)
    assert await store.next_due_at() is None


async def test_next_due_at_is_the_earliest_next_attempt_past_or_future(
    store: Store, clock: FakeClock
) -> None:
    """The earliest ``next_attempt_at`` wins, also when it has already passed."""
    for offset in (600.0, 60.0, 3600.0):
        await publish_one(store, clock, not_before=clock.now + offset)
    assert await store.next_due_at() == pytest.approx(clock.now + 60, abs=0.01)
    await publish_one(store, clock, not_before=clock.now - 5)
    assert await store.next_due_at() == pytest.approx(clock.now - 5, abs=0.01)


async def test_next_due_at_follows_claims_retries_and_cancels(
    store: Store, clock: FakeClock
) -> None:
    """A claimed message counts with its lease end, a retry with its next attempt, and a message
    that was settled or cancelled no longer counts.
    """
    first = await publish_one(store, clock, timeout=5)
    later = await publish_one(store, clock, not_before=clock.now + 100)
    assert await store.next_due_at() == pytest.approx(clock.now, abs=0.01)
    lease = await claim_lease(store, clock, first)
    assert await store.next_due_at() == pytest.approx(clock.now + 65, abs=0.01)
    await store.record_attempt(
        first, attempt(1), lease_id=lease, outcome="retry", next_attempt_at=clock.now + 10
    )
    assert await store.next_due_at() == pytest.approx(clock.now + 10, abs=0.01)
    clock.advance(10)
    lease = await claim_lease(store, clock, first)
    await store.record_attempt(first, attempt(2), lease_id=lease, outcome="delivered")
    assert await store.next_due_at() == pytest.approx(clock.now + 90, abs=0.01)
    await store.cancel_message(later)
    assert await store.next_due_at() is None


# URL groups --------------------------------------------------------------------------------


async def test_put_url_group_creates_then_replaces_endpoints(
    store: Store, clock: FakeClock
) -> None:
    """A second ``put_url_group`` replaces the endpoints and keeps the creation time."""
    endpoints = [
        UrlEndpoint(url="https://a.example.com", name="a"),
        UrlEndpoint(url="https://b.example.com"),
    ]
    created = await store.put_url_group("fanout", endpoints)
    assert (created.name, created.endpoints) == ("fanout", endpoints)
    assert created.created_at == created.updated_at == pytest.approx(clock.now, abs=0.01)
    clock.advance(60)
    replacement = [UrlEndpoint(url="https://c.example.com", name="c")]
    replaced = await store.put_url_group("fanout", replacement)
    assert (replaced.endpoints, replaced.created_at) == (replacement, created.created_at)
    assert replaced.updated_at == pytest.approx(clock.now, abs=0.01)
    assert await store.get_url_group("fanout") == replaced


async def test_url_groups_list_by_name_and_delete(store: Store) -> None:
    """``list_url_groups`` answers every group by name; a deleted group is ``url_group_not_found``."""
    for name in ("zeta", "alpha", "mid"):
        await store.put_url_group(name, [UrlEndpoint(url=f"https://{name}.example.com")])
    assert [group.name for group in await store.list_url_groups()] == ["alpha", "mid", "zeta"]
    await store.delete_url_group("mid")
    assert [group.name for group in await store.list_url_groups()] == ["alpha", "zeta"]
    for call in (store.get_url_group("mid"), store.delete_url_group("mid")):
        with pytest.raises(NotFoundError) as raised:
            await call
        assert raised.value.code == "url_group_not_found"
