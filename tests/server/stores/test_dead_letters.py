"""Dead letters in bulk, on every store: pages by a filter and a cursor, and retrying or deleting
a batch, each letter once and atomically.
"""

from __future__ import annotations

import asyncio

import pytest

from server.stores.base import DeadLetterFilter, FlowControlLimits, NotFoundError, Store
from tests.server.stores._support import FakeClock, attempt, new_message


async def fail_one(store: Store, clock: FakeClock, **fields: object) -> str:
    """Publish a message due now, claim it and fail it for good: a dead letter filed now."""
    [receipt] = await store.publish_messages([new_message(**{"not_before": clock.now, **fields})])
    claimed = await store.claim_due_messages(now=clock.now, limit=100, lease_margin=60)
    [lease_id] = [m.lease_id for m in claimed if m.message_id == receipt.message_id]
    assert lease_id is not None
    await store.record_attempt(
        receipt.message_id, attempt(1, error="timeout"), lease_id=lease_id, outcome="failed"
    )
    return receipt.message_id


async def dead_ids(store: Store) -> list[str]:
    page = await store.list_dead_letters(limit=1000)
    return [letter.message_id for letter in page.dead_letters]


async def test_pages_follow_the_cursor_to_the_end(store: Store, clock: FakeClock) -> None:
    """Pages of ``limit`` oldest first, letters filed at the same time by their order, until a
    page answers no cursor; each letter comes once.
    """
    failed = []
    for index in range(5):
        failed.append(await fail_one(store, clock))
        if index % 2:
            clock.advance(1)
    seen: list[str] = []
    cursor = None
    for _ in range(5):
        page = await store.list_dead_letters(limit=2, cursor=cursor)
        seen += [letter.message_id for letter in page.dead_letters]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == failed


async def test_a_filter_matches_url_group_and_filing_time(store: Store, clock: FakeClock) -> None:
    """Every member given must match: the URL, the URL group, and the filing time from
    (included) to (not included); the cursor goes on past letters that do not match.
    """
    start = clock.now
    first = await fail_one(store, clock, url="https://a.test/hook")
    clock.advance(10)
    grouped = await fail_one(store, clock, url="https://a.test/hook", url_group="partners")
    clock.advance(10)
    other = await fail_one(store, clock, url="https://b.test/hook")
    assert grouped and other

    async def matching(selection: DeadLetterFilter, limit: int = 1000) -> list[str]:
        found: list[str] = []
        cursor = None
        while True:
            page = await store.list_dead_letters(limit=limit, selection=selection, cursor=cursor)
            found += [letter.message_id for letter in page.dead_letters]
            if (cursor := page.next_cursor) is None:
                return found

    assert await matching(DeadLetterFilter(url="https://a.test/hook")) == [first, grouped]
    assert await matching(DeadLetterFilter(url="https://a.test/hook"), limit=1) == [first, grouped]
    assert await matching(DeadLetterFilter(url_group="partners")) == [grouped]
    assert await matching(DeadLetterFilter(filed_from=start + 10)) == [grouped, other]
    assert await matching(DeadLetterFilter(filed_to=start + 10)) == [first]
    assert await matching(DeadLetterFilter(filed_from=start + 5, filed_to=start + 15), 1) == [
        grouped
    ]
    assert await matching(DeadLetterFilter(url="https://b.test/hook", url_group="partners")) == []
    [letter] = (
        await store.list_dead_letters(limit=10, selection=DeadLetterFilter(url_group="partners"))
    ).dead_letters
    assert (letter.url, letter.url_group) == ("https://a.test/hook", "partners")


async def test_a_filter_matches_the_messages_label_schedule_and_flow_control_key(
    store: Store, clock: FakeClock
) -> None:
    """The parts of the message listings' filter match the letter's message as they do there;
    a walk of pages of one passes over the letters that do not match.
    """
    limits = FlowControlLimits(key="acme", rate=100, period=1)
    labelled = await fail_one(store, clock, labels=("signup", "eu"), flow_control=limits)
    scheduled = await fail_one(store, clock, labels=("eu",), schedule="nightly")
    plain = await fail_one(store, clock)
    assert plain

    async def matching(selection: DeadLetterFilter) -> list[str]:
        found: list[str] = []
        cursor = None
        while True:
            page = await store.list_dead_letters(limit=1, selection=selection, cursor=cursor)
            found += [letter.message_id for letter in page.dead_letters]
            if (cursor := page.next_cursor) is None:
                return found

    assert await matching(DeadLetterFilter(label="signup")) == [labelled]
    assert await matching(DeadLetterFilter(label="eu")) == [labelled, scheduled]
    assert await matching(DeadLetterFilter(schedule="nightly")) == [scheduled]
    assert await matching(DeadLetterFilter(flow_control_key="acme")) == [labelled]
    assert await matching(DeadLetterFilter(label="eu", schedule="nightly")) == [scheduled]
    assert await matching(DeadLetterFilter(label="signup", schedule="nightly")) == []
    assert await matching(DeadLetterFilter(flow_control_key="acme", filed_to=clock.now)) == []


async def test_find_answers_the_dead_letters_of_the_ids_in_their_order(
    store: Store, clock: FakeClock
) -> None:
    """Only ids that are dead letters are answered, in the order given."""
    first = await fail_one(store, clock)
    second = await fail_one(store, clock)
    [live] = await store.publish_messages([new_message(not_before=clock.now + 999)])
    found = await store.find_dead_letters([second, live.message_id, "msg_nothing", first])
    assert [letter.message_id for letter in found] == [second, first]


async def test_retry_many_schedules_each_once_with_headers_set(
    store: Store, clock: FakeClock
) -> None:
    """Each named dead letter is scheduled now with a fresh budget and the headers set over its
    own (a name in another letter case replaced); ids that are no dead letter are passed over.
    """
    first = await fail_one(store, clock, headers={"X-Trace": "1", "authorization": "old"})
    second = await fail_one(store, clock, headers={})
    clock.advance(60)
    retried = await store.retry_dead_letters(
        [second, "msg_nothing", first, second], headers={"Authorization": "new"}
    )
    assert retried == [second, first]
    assert await dead_ids(store) == []
    one, two = await store.get_message(first), await store.get_message(second)
    assert one.headers == {"X-Trace": "1", "Authorization": "new"}
    assert two.headers == {"Authorization": "new"}
    for record in (one, two):
        assert (record.state, record.retries_used) == ("scheduled", 0)
        assert record.next_attempt_at == pytest.approx(clock.now, abs=0.01)
    claimed = await store.claim_due_messages(now=clock.now, limit=100, lease_margin=60)
    assert sorted(m.message_id for m in claimed) == sorted([first, second])
    assert await store.retry_dead_letters([first, second]) == []


async def test_retry_one_sets_headers_and_keeps_them_without(
    store: Store, clock: FakeClock
) -> None:
    """The single retry takes the same headers; with none the message's stay as they were."""
    message_id = await fail_one(store, clock, headers={"X-Trace": "1"})
    record = await store.retry_dead_letter(message_id, headers={"x-trace": "2", "X-New": "y"})
    assert record.headers == {"x-trace": "2", "X-New": "y"}
    kept = await fail_one(store, clock, headers={"X-Trace": "1"})
    assert (await store.retry_dead_letter(kept)).headers == {"X-Trace": "1"}


async def test_concurrent_retries_schedule_a_letter_once(store: Store, clock: FakeClock) -> None:
    """Bulk and single retries of the same letters at once: each letter is retried by exactly
    one of them, so it is delivered once.
    """
    letters = [await fail_one(store, clock) for _ in range(6)]

    async def retry_one(message_id: str) -> list[str]:
        try:
            return [(await store.retry_dead_letter(message_id)).message_id]
        except NotFoundError:
            return []

    outcomes = await asyncio.gather(
        store.retry_dead_letters(letters),
        store.retry_dead_letters(list(reversed(letters))),
        *(retry_one(message_id) for message_id in letters),
    )
    assert sorted(message_id for retried in outcomes for message_id in retried) == sorted(letters)
    claimed = await store.claim_due_messages(now=clock.now, limit=100, lease_margin=60)
    assert sorted(m.message_id for m in claimed) == sorted(letters)


async def test_delete_many_forgets_the_letters_and_keeps_the_messages(
    store: Store, clock: FakeClock
) -> None:
    """Deleted letters are gone, their messages still read as failed; a retry of one deleted
    meanwhile passes it over.
    """
    first = await fail_one(store, clock)
    second = await fail_one(store, clock)
    kept = await fail_one(store, clock)
    assert await store.delete_dead_letters([first, "msg_nothing", second]) == [first, second]
    assert await dead_ids(store) == [kept]
    assert (await store.get_message(first)).state == "failed"
    assert await store.retry_dead_letters([first, kept]) == [kept]
    assert await store.delete_dead_letters([first]) == []


async def test_a_walk_ends_before_the_letters_it_retried_fail_again(
    store: Store, clock: FakeClock
) -> None:
    """The pages after the first look only at letters filed by the first: a letter retried by
    the walk and dead-lettered again later is not met a second time, so retrying all ends.
    """
    letters = [await fail_one(store, clock) for _ in range(3)]
    retried: list[str] = []
    cursor = None
    for _ in range(10):
        page = await store.list_dead_letters(limit=1, cursor=cursor)
        ids = [letter.message_id for letter in page.dead_letters]
        retried += await store.retry_dead_letters(ids)
        clock.advance(1)
        for message_id in ids:
            claimed = await store.claim_due_messages(now=clock.now, limit=100, lease_margin=60)
            [lease_id] = [m.lease_id for m in claimed if m.message_id == message_id]
            assert lease_id is not None
            await store.record_attempt(
                message_id, attempt(2, error="timeout"), lease_id=lease_id, outcome="failed"
            )
        if (cursor := page.next_cursor) is None:
            break
    assert retried == letters
    assert await dead_ids(store) == letters
