"""The ``traceparent`` the store contract keeps with every entry, job and message, on every
backend: each read of the item answers it, and an item published without one answers None.
"""

from __future__ import annotations

import time

from server.stores.base import IdempotencyClaim, NewJob, Store
from tests.server.stores._support import TRACEPARENT, make_queue, new_message

OTHER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"


async def test_entries_keep_their_traceparent_through_range_read_group_and_claim(
    store: Store,
) -> None:
    """Every entry of a traced append carries its traceparent wherever it is read."""
    await store.append("s", [1, 2], trim=None, nomkstream=False, traceparent=TRACEPARENT)
    await store.append("s", [3], trim=None, nomkstream=False)
    await store.create_group("s", "g", start_id="0", mkstream=False)
    ranged = await store.range("s", start="-", end="+", count=10, reverse=False)
    assert [entry.traceparent for entry in ranged] == [TRACEPARENT, TRACEPARENT, None]
    delivered = await store.read_group("s", "g", consumer="a", count=10, wait_ms=0)
    assert [entry.traceparent for entry in delivered] == [TRACEPARENT, TRACEPARENT, None]
    claimed = await store.claim("s", "g", consumer="b", min_idle_ms=0, count=10, start_id="0")
    assert [entry.traceparent for entry in claimed.entries] == [TRACEPARENT, TRACEPARENT, None]


async def test_jobs_keep_their_traceparent_through_get_list_and_lease(store: Store) -> None:
    """A traced job carries its traceparent when fetched, listed and leased."""
    queue = await make_queue(store)
    [traced] = await store.publish_jobs(queue, [NewJob("t", 1)], traceparent=TRACEPARENT)
    [plain] = await store.publish_jobs(queue, [NewJob("t", 2)])
    assert (await store.get_job(queue, traced.job_id)).traceparent == TRACEPARENT
    assert (await store.get_job(queue, plain.job_id)).traceparent is None
    listed = await store.list_jobs(queue, state=None, limit=10)
    assert [job.traceparent for job in listed] == [TRACEPARENT, None]
    leased = await store.lease_jobs(
        queue, consumer=None, topics=None, max_jobs=10, lease_seconds=None, wait_ms=0
    )
    assert [job.traceparent for job in leased] == [TRACEPARENT, None]


async def test_messages_keep_their_traceparent_through_get_and_claim(store: Store) -> None:
    """A traced message carries its traceparent when fetched and when claimed for delivery."""
    [traced] = await store.publish_messages([new_message()], traceparent=TRACEPARENT)
    [plain] = await store.publish_messages([new_message()])
    assert (await store.get_message(traced.message_id)).traceparent == TRACEPARENT
    assert (await store.get_message(plain.message_id)).traceparent is None
    due = await store.claim_due_messages(now=time.time() + 1, limit=10, lease_margin=30)
    assert {message.message_id: message.traceparent for message in due} == {
        traced.message_id: TRACEPARENT,
        plain.message_id: None,
    }


async def test_a_replayed_append_keeps_the_first_traceparent(store: Store) -> None:
    """An idempotent repeat under another trace writes nothing: the entry keeps the first one."""
    claim = IdempotencyClaim(key="token:k", request_hash="h", ttl=60)
    first = await store.append(
        "s", [1], trim=None, nomkstream=False, idempotency=claim, traceparent=TRACEPARENT
    )
    again = await store.append(
        "s", [1], trim=None, nomkstream=False, idempotency=claim, traceparent=OTHER
    )
    assert again.replayed and again.ids == first.ids
    [entry] = await store.range("s", start="-", end="+", count=10, reverse=False)
    assert entry.traceparent == TRACEPARENT
