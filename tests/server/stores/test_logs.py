"""The messages' log and the filter of both listings (``list_logs``, ``list_messages``,
``MessageFilter``), on every store.
"""

from __future__ import annotations

from typing import Any

from server.stores.base import (
    FlowControlLimits,
    LogEventRecord,
    MessageFilter,
    Store,
)
from tests.server.stores._support import FakeClock, attempt
from tests.server.stores.test_messages import claim_lease, publish_one

_ANY = MessageFilter()


async def _events(store: Store, where: MessageFilter = _ANY) -> list[LogEventRecord]:
    """Every event the log answers, page after page of two."""
    events: list[LogEventRecord] = []
    cursor = None
    while True:
        page = await store.list_logs(where=where, limit=2, cursor=cursor)
        events += page.events
        if page.next_cursor is None:
            return events
        cursor = page.next_cursor


async def _listed(store: Store, where: MessageFilter) -> list[str]:
    """The ids of every message the listing answers, page after page of two."""
    ids: list[str] = []
    cursor = None
    while True:
        page = await store.list_messages(where=where, limit=2, cursor=cursor)
        ids += [message.message_id for message in page.messages]
        if page.next_cursor is None:
            return ids
        cursor = page.next_cursor


async def test_every_change_of_state_is_logged_newest_first(store: Store, clock: FakeClock) -> None:
    """Publish, a retried attempt, a failed one (with its dead letter), the dead letter's retry, a
    delivery and a cancel each write their events, with the attempt's details where one led to
    them, and the message's own fields.
    """
    limits = FlowControlLimits(key="acme", rate=100, period=1)
    message_id = await publish_one(
        store, clock, labels=("signup", "eu"), url_group="partners", flow_control=limits
    )
    lease = await claim_lease(store, clock, message_id)
    clock.advance(1)
    await store.record_attempt(
        message_id,
        attempt(1, status_code=503),
        lease_id=lease,
        outcome="retry",
        next_attempt_at=clock.now,
    )
    lease = await claim_lease(store, clock, message_id)
    clock.advance(1)
    await store.record_attempt(
        message_id, attempt(2, error="connection refused"), lease_id=lease, outcome="failed"
    )
    await store.retry_dead_letter(message_id)
    lease = await claim_lease(store, clock, message_id)
    await store.record_attempt(
        message_id, attempt(3, status_code=200), lease_id=lease, outcome="delivered"
    )
    cancelled = await publish_one(store, clock, not_before=clock.now + 60)
    await store.cancel_message(cancelled)

    events = await _events(store)
    assert [(event.message_id, event.state) for event in events] == [
        (cancelled, "cancelled"),
        (cancelled, "created"),
        (message_id, "delivered"),
        (message_id, "scheduled"),
        (message_id, "dead_lettered"),
        (message_id, "failed"),
        (message_id, "retry"),
        (message_id, "created"),
    ]
    by_state = {event.state: event for event in events if event.message_id == message_id}
    assert (by_state["retry"].attempt, by_state["retry"].status_code) == (1, 503)
    assert (by_state["failed"].attempt, by_state["failed"].error) == (2, "connection refused")
    assert by_state["dead_lettered"].error == "connection refused"
    assert by_state["delivered"].status_code == 200
    created = by_state["created"]
    assert created == LogEventRecord(
        message_id=message_id,
        state="created",
        at=created.at,
        url="https://example.com/hook",
        labels=("signup", "eu"),
        url_group="partners",
        flow_control_key="acme",
    )
    assert by_state["delivered"].at - created.at == 2


async def test_the_log_filters_by_every_part_of_the_filter(store: Store, clock: FakeClock) -> None:
    """Each part of the filter picks out the events of the messages (and the events) it names;
    the parts given together must all hold.
    """
    first = await publish_one(store, clock, labels=("a",), schedule="nightly")
    clock.advance(10)
    second = await publish_one(
        store,
        clock,
        url="https://other.example.com/",
        labels=("b",),
        flow_control=FlowControlLimits(key="k", rate=5, period=1),
    )
    clock.advance(10)
    await store.cancel_message(second)

    async def ids(**parts: Any) -> list[tuple[str, str]]:
        events = await _events(store, MessageFilter(**parts))
        return [(event.message_id, event.state) for event in events]

    assert await ids(label="a") == [(first, "created")]
    assert await ids(label="b", state="cancelled") == [(second, "cancelled")]
    assert await ids(schedule="nightly") == [(first, "created")]
    assert await ids(flow_control_key="k") == [(second, "cancelled"), (second, "created")]
    assert await ids(url="https://other.example.com/", state="created") == [(second, "created")]
    assert await ids(message_ids=(first,)) == [(first, "created")]
    assert await ids(since=clock.now - 10) == [(second, "cancelled"), (second, "created")]
    assert await ids(since=clock.now - 10, until=clock.now) == [(second, "created")]
    assert await ids(label="a", url="https://other.example.com/") == []
    assert await ids(label="none") == []


async def test_messages_are_listed_by_the_same_filter(store: Store, clock: FakeClock) -> None:
    """``list_messages`` takes the log's filter, its state the message's and its times when the
    message was published.
    """
    first = await publish_one(store, clock, labels=("a", "b"), url_group="partners")
    clock.advance(10)
    second = await publish_one(store, clock, labels=("b",), schedule="nightly")
    await store.cancel_message(second)

    async def ids(**parts: Any) -> list[str]:
        return await _listed(store, MessageFilter(**parts))

    assert await ids(label="b") == [second, first]
    assert await ids(label="a") == [first]
    assert await ids(state="cancelled") == [second]
    assert await ids(schedule="nightly") == [second]
    assert await ids(url_group="partners", label="b") == [first]
    assert await ids(message_ids=(first, second)) == [second, first]
    assert await ids(since=clock.now) == [second]
    assert await ids(until=clock.now) == [first]
    assert await ids(flow_control_key="none") == []
    record = await store.get_message(first)
    assert (record.labels, record.schedule) == (("a", "b"), None)
    assert (await store.get_message(second)).schedule == "nightly"


async def test_pruning_removes_the_events_older_than_the_cut(
    store: Store, clock: FakeClock
) -> None:
    """``prune_logs`` removes the oldest events before its time, at most ``limit`` at once, and
    leaves the messages and their later events.
    """
    old = [await publish_one(store, clock) for _ in range(3)]
    clock.advance(100)
    cut = clock.now
    await store.cancel_message(await publish_one(store, clock, not_before=clock.now + 60))
    assert await store.prune_logs(before=cut, limit=2) == 2
    assert await store.prune_logs(before=cut, limit=2) == 1
    assert await store.prune_logs(before=cut, limit=2) == 0
    assert [event.state for event in await _events(store)] == ["cancelled", "created"]
    for message_id in old:
        assert (await store.get_message(message_id)).state == "scheduled"
