"""Flow control in the store contract: the limits claims keep per key, pause, resume and reset."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import (
    FlowControlLimits,
    FlowControlState,
    MessageRecord,
    Store,
    StoreError,
)
from tests.server.stores._support import FakeClock, attempt, new_message


async def publish(
    store: Store,
    clock: FakeClock,
    limits: FlowControlLimits | None,
    count: int = 1,
    **fields: object,
) -> list[str]:
    """Publish ``count`` messages due now under ``limits``, in order; their ids."""
    receipts = await store.publish_messages(
        [
            new_message(**{"not_before": clock.now, "flow_control": limits, **fields})
            for _ in range(count)
        ]
    )
    return [receipt.message_id for receipt in receipts]


async def claim(store: Store, clock: FakeClock, limit: int = 100) -> list[MessageRecord]:
    return await store.claim_due_messages(now=clock.now, limit=limit, lease_margin=0)


async def settle(
    store: Store, message: MessageRecord, outcome: str = "delivered", *, at: float | None = None
) -> None:
    assert message.lease_id is not None
    await store.record_attempt(
        message.message_id,
        attempt(len(message.attempts) + 1),
        lease_id=message.lease_id,
        outcome=outcome,  # type: ignore[arg-type]
        next_attempt_at=at,
    )


def ids(messages: list[MessageRecord]) -> list[str]:
    return [message.message_id for message in messages]


async def test_at_most_rate_attempts_start_per_period_and_none_is_dropped(
    store: Store, clock: FakeClock
) -> None:
    limits = FlowControlLimits(key="acme", rate=2, period=10)
    published = await publish(store, clock, limits, count=5)
    first = await claim(store, clock)
    assert ids(first) == published[:2]
    assert await claim(store, clock) == []
    state = await store.get_flow_control("acme")
    assert (state.rate_used, state.in_flight, state.waiting) == (2, 2, 3)
    for message in first:
        await settle(store, message)
    assert await claim(store, clock) == [], "settling frees no room in the rate"
    clock.advance(9.5)
    assert await claim(store, clock) == []
    clock.advance(0.5)
    assert ids(await claim(store, clock)) == published[2:4]
    clock.advance(10)
    assert ids(await claim(store, clock)) == published[4:]
    assert (await store.get_flow_control("acme")).waiting == 0


async def test_at_most_parallelism_attempts_are_in_flight(store: Store, clock: FakeClock) -> None:
    published = await publish(store, clock, FlowControlLimits(key="acme", parallelism=2), count=4)
    first = await claim(store, clock)
    assert ids(first) == published[:2]
    assert await claim(store, clock) == []
    await settle(store, first[0])
    [third] = await claim(store, clock)
    assert third.message_id == published[2]
    # A lease that ends frees its slot: the message is due again and counts once more.
    clock.advance(third.timeout + 1)
    again = await claim(store, clock)
    assert sorted(ids(again)) == sorted([published[1], published[2]])
    state = await store.get_flow_control("acme")
    assert (state.in_flight, state.waiting) == (2, 1)


async def test_messages_held_back_do_not_hold_up_others(store: Store, clock: FakeClock) -> None:
    held = await publish(store, clock, FlowControlLimits(key="slow", rate=1, period=60), count=50)
    [plain] = await publish(store, clock, None)
    [other] = await publish(store, clock, FlowControlLimits(key="fast", parallelism=5))
    claimed = await claim(store, clock, limit=3)
    assert ids(claimed) == [held[0], plain, other]


async def test_retries_count_against_the_rate(store: Store, clock: FakeClock) -> None:
    [message_id] = await publish(store, clock, FlowControlLimits(key="acme", rate=1, period=30))
    [first] = await claim(store, clock)
    await settle(store, first, "retry", at=clock.now)
    assert await claim(store, clock) == []
    clock.advance(30)
    assert ids(await claim(store, clock)) == [message_id]


async def test_a_paused_key_delivers_nothing_until_resumed(store: Store, clock: FakeClock) -> None:
    paused = await store.pause_flow_control("acme")
    assert paused == FlowControlState(
        key="acme",
        rate=None,
        period=None,
        parallelism=None,
        paused=True,
        waiting=0,
        in_flight=0,
        rate_used=0,
    )
    published = await publish(store, clock, FlowControlLimits(key="acme", parallelism=10), count=3)
    [plain] = await publish(store, clock, None)
    assert ids(await claim(store, clock)) == [plain]
    state = await store.get_flow_control("acme")
    assert (state.paused, state.waiting, state.parallelism) == (True, 3, 10)
    resumed = await store.resume_flow_control("acme")
    assert not resumed.paused
    assert ids(await claim(store, clock)) == published
    assert (await store.resume_flow_control("acme")).paused is False


async def test_pausing_leaves_attempts_in_flight_alone(store: Store, clock: FakeClock) -> None:
    await publish(store, clock, FlowControlLimits(key="acme", parallelism=5), count=2)
    [first, second] = await claim(store, clock)
    state = await store.pause_flow_control("acme")
    assert (state.in_flight, state.paused) == (2, True)
    await settle(store, first)
    await settle(store, second, "retry", at=clock.now)
    assert await claim(store, clock) == []
    await store.resume_flow_control("acme")
    assert ids(await claim(store, clock)) == [second.message_id]


async def test_reset_forgets_the_rate_but_not_the_rest(store: Store, clock: FakeClock) -> None:
    published = await publish(
        store, clock, FlowControlLimits(key="acme", rate=1, period=3600, parallelism=2), count=3
    )
    [first] = await claim(store, clock)
    assert await claim(store, clock) == []
    reset = await store.reset_flow_control("acme")
    assert (reset.rate_used, reset.in_flight, reset.waiting, reset.rate) == (0, 1, 2, 1)
    assert ids(await claim(store, clock)) == [published[1]]
    await store.pause_flow_control("acme")
    assert (await store.reset_flow_control("acme")).paused
    assert first.message_id == published[0]


async def test_the_latest_publish_sets_the_limits(store: Store, clock: FakeClock) -> None:
    await publish(store, clock, FlowControlLimits(key="acme", rate=1, period=60), count=3)
    assert len(await claim(store, clock)) == 1
    assert await claim(store, clock) == []
    await publish(store, clock, FlowControlLimits(key="acme", rate=10, period=60))
    state = await store.get_flow_control("acme")
    assert (state.rate, state.period, state.parallelism) == (10, 60, None)
    assert len(await claim(store, clock)) == 3


async def test_a_message_shows_the_limits_it_was_published_with(
    store: Store, clock: FakeClock
) -> None:
    limits = FlowControlLimits(key="acme", rate=5, period=60, parallelism=2)
    [message_id] = await publish(store, clock, limits)
    [plain] = await publish(store, clock, None)
    assert (await store.get_message(message_id)).flow_control == limits
    assert (await store.get_message(plain)).flow_control is None
    [claimed, _] = await claim(store, clock)
    assert claimed.flow_control == limits


# Ordered delivery ------------------------------------------------------------------------------


async def test_parallelism_one_delivers_in_publish_order_and_a_retry_holds_the_rest(
    store: Store, clock: FakeClock
) -> None:
    limits = FlowControlLimits(key="orders", parallelism=1)
    first, second, third = await publish(store, clock, limits, count=3)
    [claimed] = await claim(store, clock)
    assert claimed.message_id == first
    await settle(store, claimed, "retry", at=clock.now + 30)
    assert await claim(store, clock) == [], "the retrying message holds the ones behind it"
    clock.advance(30)
    [retried] = await claim(store, clock)
    assert retried.message_id == first
    await settle(store, retried)
    [next_one] = await claim(store, clock)
    assert next_one.message_id == second
    await settle(store, next_one, "failed")
    assert ids(await claim(store, clock)) == [third], "a dead message lets the next one go"


async def test_parallelism_one_waits_for_a_delayed_message_published_first(
    store: Store, clock: FakeClock
) -> None:
    limits = FlowControlLimits(key="orders", parallelism=1)
    [delayed] = await publish(store, clock, limits, not_before=clock.now + 10)
    [later] = await publish(store, clock, limits)
    assert await claim(store, clock) == []
    clock.advance(10)
    [claimed] = await claim(store, clock)
    assert claimed.message_id == delayed
    await settle(store, claimed)
    assert ids(await claim(store, clock)) == [later]


async def test_cancelling_the_oldest_message_lets_the_next_go(
    store: Store, clock: FakeClock
) -> None:
    limits = FlowControlLimits(key="orders", parallelism=1)
    [delayed] = await publish(store, clock, limits, not_before=clock.now + 60)
    [later] = await publish(store, clock, limits)
    assert await claim(store, clock) == []
    await store.cancel_message(delayed)
    assert ids(await claim(store, clock)) == [later]


# The key listing and checks ----------------------------------------------------------------------


async def test_keys_list_by_name_a_page_at_a_time(store: Store, clock: FakeClock) -> None:
    for key in ("b", "a", "c"):
        await publish(store, clock, FlowControlLimits(key=key, parallelism=1))
    await store.pause_flow_control("d")
    first = await store.list_flow_control_keys(limit=2, cursor=None)
    assert [state.key for state in first.keys] == ["a", "b"]
    assert first.next_cursor is not None
    rest = await store.list_flow_control_keys(limit=2, cursor=first.next_cursor)
    assert [state.key for state in rest.keys] == ["c", "d"]
    assert rest.next_cursor is None
    assert rest.keys[1].paused and rest.keys[0].waiting == 1


async def test_an_unknown_key_reads_as_idle(store: Store) -> None:
    state = await store.get_flow_control("nothing.yet")
    assert (state.paused, state.waiting, state.in_flight, state.rate_used) == (False, 0, 0, 0)
    assert (state.rate, state.period, state.parallelism) == (None, None, None)
    assert (await store.list_flow_control_keys(limit=10, cursor=None)).keys == []


@pytest.mark.parametrize("key", ["", "-starts-with-dash", "has space", "k" * 129])
async def test_an_invalid_key_is_refused(store: Store, key: str) -> None:
    for call in (
        store.get_flow_control,
        store.pause_flow_control,
        store.resume_flow_control,
        store.reset_flow_control,
    ):
        with pytest.raises(StoreError) as caught:
            await call(key)
        assert caught.value.code == "validation_failed"


async def test_a_cursor_of_another_listing_is_refused(store: Store) -> None:
    page = await store.list_messages(limit=1, cursor=None)
    assert page.next_cursor is None
    with pytest.raises(StoreError) as caught:
        await store.list_flow_control_keys(limit=1, cursor="bTox")
    assert caught.value.code == "validation_failed"


async def test_stores_sharing_a_backend_share_the_limits(
    store: Store, clock: FakeClock, open_store: Callable[[], Awaitable[Store]]
) -> None:
    other = await open_store()
    await publish(store, clock, FlowControlLimits(key="shared", rate=3, period=60), count=10)
    claimed = [
        *await claim(store, clock, limit=2),
        *await claim(other, clock, limit=5),
        *await claim(store, clock, limit=5),
    ]
    assert len(claimed) == 3
    assert (await other.get_flow_control("shared")).rate_used == 3


async def test_next_due_at_wakes_for_a_message_held_back_by_the_rate(
    store: Store, clock: FakeClock
) -> None:
    await publish(store, clock, FlowControlLimits(key="acme", rate=1, period=20), count=2)
    assert len(await claim(store, clock)) == 1
    assert await claim(store, clock) == []
    due_at = await store.next_due_at()
    assert due_at is not None
    assert clock.now + 20 - 1e-3 <= due_at <= clock.now + 30 + 1e-3
