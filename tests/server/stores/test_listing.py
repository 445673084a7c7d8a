"""Listing streams and messages (``Store.list_streams``, ``Store.list_messages``), on every
backend: order, pages, filters and what deletion does.
"""

from __future__ import annotations

import pytest

from server.stores.base import (
    MessageFilter,
    MessageRecord,
    MessageState,
    Store,
    StoreError,
    StreamSummary,
    Trim,
)
from tests.server.stores._support import FakeClock, attempt, new_message


async def every_stream(store: Store, *, prefix: str = "", limit: int = 2) -> list[StreamSummary]:
    """Every stream the listing answers, page after page."""
    streams: list[StreamSummary] = []
    cursor = None
    while True:
        page = await store.list_streams(prefix=prefix, limit=limit, cursor=cursor)
        streams += page.streams
        if page.next_cursor is None:
            return streams
        cursor = page.next_cursor


async def every_message(
    store: Store,
    *,
    state: MessageState | None = None,
    url_group: str | None = None,
    limit: int = 2,
) -> list[MessageRecord]:
    """Every message the listing answers, page after page."""
    messages: list[MessageRecord] = []
    cursor = None
    while True:
        page = await store.list_messages(
            where=MessageFilter(state=state, url_group=url_group), limit=limit, cursor=cursor
        )
        messages += page.messages
        if page.next_cursor is None:
            return messages
        cursor = page.next_cursor


# Streams ---------------------------------------------------------------------------------------


async def test_streams_are_listed_by_name_with_their_length_ends_and_groups(store: Store) -> None:
    """A listed stream shows its length, first and last ids and how many groups it has; an empty
    stream (made by a group) has no ends.
    """
    ids = (await store.append("orders", [1, 2, 3], trim=None, nomkstream=False)).ids
    await store.create_group("orders", "billing", start_id="0", mkstream=False)
    await store.create_group("audit", "readers", start_id="$", mkstream=True)
    page = await store.list_streams(prefix="", limit=10, cursor=None)
    assert page.next_cursor is None
    assert page.streams == [
        StreamSummary("audit", length=0, first_id=None, last_id=None, group_count=1),
        StreamSummary("orders", length=3, first_id=ids[0], last_id=ids[-1], group_count=1),
    ]


async def test_stream_pages_go_on_from_their_cursor_until_it_is_none(store: Store) -> None:
    """Pages of ``limit`` streams follow each other by name, and the last has no cursor."""
    names = [f"s{n:02}" for n in range(7)]
    for name in reversed(names):
        await store.append(name, [name], trim=None, nomkstream=False)
    first = await store.list_streams(prefix="", limit=3, cursor=None)
    assert [s.stream for s in first.streams] == names[:3]
    assert first.next_cursor is not None
    assert [s.stream for s in await every_stream(store, limit=3)] == names
    exact = await store.list_streams(prefix="", limit=7, cursor=None)
    assert (len(exact.streams), exact.next_cursor) == (7, None)


async def test_a_prefix_lists_only_the_streams_whose_names_start_with_it(store: Store) -> None:
    """``prefix`` narrows the listing, across pages; a prefix that no name has lists nothing."""
    for name in ("orders", "orders.eu", "order", "ordersx", "audit", "p"):
        await store.append(name, [1], trim=None, nomkstream=False)
    assert [s.stream for s in await every_stream(store, prefix="orders", limit=1)] == [
        "orders",
        "orders.eu",
        "ordersx",
    ]
    assert [s.stream for s in await every_stream(store, prefix="o")] == [
        "order",
        "orders",
        "orders.eu",
        "ordersx",
    ]
    assert await every_stream(store, prefix="zz") == []


async def test_a_deleted_stream_leaves_the_listing(store: Store) -> None:
    """A deleted stream is not listed, also on a page whose cursor was read before it went; an
    append creates it again, and it is listed again.
    """
    for name in ("a", "b", "c"):
        await store.append(name, [1], trim=None, nomkstream=False)
    first = await store.list_streams(prefix="", limit=1, cursor=None)
    await store.delete_stream("b")
    rest = await store.list_streams(prefix="", limit=5, cursor=first.next_cursor)
    assert [s.stream for s in rest.streams] == ["c"]
    await store.append("b", [2], trim=None, nomkstream=False)
    assert [s.stream for s in await every_stream(store)] == ["a", "b", "c"]


async def test_a_trimmed_away_stream_stays_listed_empty(store: Store) -> None:
    """Trimming a stream to nothing keeps the stream, so it stays listed with length 0."""
    await store.append("events", [1, 2], trim=None, nomkstream=False)
    await store.trim("events", Trim(maxlen=0, approximate=False))
    [summary] = await every_stream(store)
    assert (summary.stream, summary.length, summary.first_id) == ("events", 0, None)


async def test_a_dead_letter_stream_is_listed(store: Store) -> None:
    """The stream a claim moves an undeliverable entry to is a stream like any other."""
    await store.append("orders", [1], trim=None, nomkstream=False)
    await store.create_group("orders", "g", start_id="0", mkstream=False, max_deliveries=1)
    await store.read_group("orders", "g", consumer="c", count=1, wait_ms=0)
    claimed = await store.claim("orders", "g", consumer="c", min_idle_ms=0, count=1, start_id="0")
    assert len(claimed.dead_lettered_ids) == 1
    assert [s.stream for s in await every_stream(store)] == ["orders", "orders.dead"]


@pytest.mark.parametrize("cursor", ["bm90IGJhc2U2NA", "!!", "bTo0Mg", "czo"])
async def test_a_cursor_that_is_not_a_stream_listings_is_refused(store: Store, cursor: str) -> None:
    """A cursor of another listing, or no cursor at all, is ``validation_failed``."""
    with pytest.raises(StoreError) as raised:
        await store.list_streams(prefix="", limit=1, cursor=cursor)
    assert raised.value.code == "validation_failed"


# Messages --------------------------------------------------------------------------------------


async def test_messages_are_listed_newest_first_a_page_at_a_time(
    store: Store, clock: FakeClock
) -> None:
    """Every message comes once, newest first, each as ``get_message`` answers it."""
    ids = []
    for n in range(5):
        [receipt] = await store.publish_messages([new_message(url=f"https://example.com/{n}")])
        ids.append(receipt.message_id)
        clock.advance(1)
    listed = await every_message(store)
    assert [message.message_id for message in listed] == ids[::-1]
    assert listed[0] == await store.get_message(ids[-1])
    first = await store.list_messages(limit=5, cursor=None)
    assert (len(first.messages), first.next_cursor) == (5, None)


async def test_messages_published_in_one_call_are_listed_newest_first(store: Store) -> None:
    """Messages of one publish, made in the same instant, list in reverse publish order."""
    receipts = await store.publish_messages(
        [new_message(url=f"https://e.com/{n}") for n in range(4)]
    )
    listed = await every_message(store, limit=3)
    assert [m.message_id for m in listed] == [r.message_id for r in reversed(receipts)]


async def test_a_state_filter_lists_only_messages_in_that_state(
    store: Store, clock: FakeClock
) -> None:
    """``state`` narrows the listing to messages in that state now, across pages."""
    [kept, cancelled, failed, other] = [
        receipt.message_id
        for receipt in await store.publish_messages(
            [new_message(not_before=clock.now, retries=0) for _ in range(4)]
        )
    ]
    await store.cancel_message(cancelled)
    claimed = await store.claim_due_messages(now=clock.now, limit=10, lease_margin=30)
    lease = {message.message_id: str(message.lease_id) for message in claimed}
    await store.record_attempt(
        failed, attempt(1, error="boom"), lease_id=lease[failed], outcome="failed"
    )
    await store.record_attempt(
        other, attempt(1, status_code=200), lease_id=lease[other], outcome="delivered"
    )
    assert [m.message_id for m in await every_message(store, state="failed", limit=1)] == [failed]
    assert [m.message_id for m in await every_message(store, state="cancelled")] == [cancelled]
    assert [m.message_id for m in await every_message(store, state="delivering")] == [kept]
    assert await every_message(store, state="scheduled") == []


async def test_a_url_group_filter_lists_only_that_groups_messages(store: Store) -> None:
    """``url_group`` lists the messages published to that group, with or without a state."""
    grouped = await store.publish_messages(
        [new_message(url=f"https://e.com/{n}", url_group="partners") for n in range(3)]
    )
    await store.publish_messages([new_message(), new_message(url_group="others")])
    listed = await every_message(store, url_group="partners", limit=2)
    assert [m.message_id for m in listed] == [r.message_id for r in reversed(grouped)]
    assert len(await every_message(store, url_group="partners", state="scheduled")) == 3
    assert await every_message(store, url_group="partners", state="failed") == []
    assert await every_message(store, url_group="nobody") == []


async def test_messages_published_after_the_first_page_are_not_on_later_ones(store: Store) -> None:
    """A cursor goes on below where its page ended, so newer messages do not shift the pages."""
    older = await store.publish_messages([new_message() for _ in range(3)])
    first = await store.list_messages(limit=2, cursor=None)
    await store.publish_messages([new_message()])
    rest = await store.list_messages(limit=2, cursor=first.next_cursor)
    assert [m.message_id for m in rest.messages] == [older[0].message_id]
    assert rest.next_cursor is None


async def test_a_deduplicated_publish_lists_its_message_once(store: Store) -> None:
    """A publish answered with an earlier message's id adds nothing to the listing."""
    first = await store.publish_messages([new_message(dedup_key="k", dedup_window=60)])
    again = await store.publish_messages([new_message(dedup_key="k", dedup_window=60)])
    assert again[0].deduplicated
    assert [m.message_id for m in await every_message(store)] == [first[0].message_id]


@pytest.mark.parametrize("cursor", ["czpvcmRlcnM", "bTp4", "bTo", "!!"])
async def test_a_cursor_that_is_not_a_message_listings_is_refused(
    store: Store, cursor: str
) -> None:
    """A stream listing's cursor, or one naming no position, is ``validation_failed``."""
    with pytest.raises(StoreError) as raised:
        await store.list_messages(limit=1, cursor=cursor)
    assert raised.value.code == "validation_failed"
