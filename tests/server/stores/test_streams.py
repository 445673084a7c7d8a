"""The stream half of the store contract (``Store.append`` … ``Store.pending``), on every backend."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from server.stores.base import (
    ClaimResult,
    ConflictError,
    NotFoundError,
    Store,
    StoreError,
    Trim,
    dead_letter_stream,
)
from tests.server.stores._support import ENTRY_ID, entry_key


async def append_many(store: Store, stream: str, count: int, *, first: int = 0) -> list[str]:
    """Append ``count`` entries ``{"n": first}``, ``{"n": first + 1}``, … in one call."""
    result = await store.append(
        stream, [{"n": n} for n in range(first, first + count)], trim=None, nomkstream=False
    )
    return result.ids


async def all_ids(store: Store, stream: str) -> list[str]:
    """Every id the stream holds, oldest first."""
    return [
        entry.id
        for entry in await store.range(stream, start="-", end="+", count=1000, reverse=False)
    ]


def assert_strictly_increasing(ids: list[str]) -> None:
    """Each id is greater than the one before it."""
    keys = [entry_key(entry_id) for entry_id in ids]
    assert all(earlier < later for earlier, later in zip(keys, keys[1:], strict=False)), ids


# Ids ---------------------------------------------------------------------------------------


async def test_ids_have_the_ms_seq_form_and_strictly_increase(store: Store) -> None:
    """Entry ids are ``<ms>-<seq>`` and grow with every entry, within a batch and across calls."""
    ids = await append_many(store, "events", 50)
    for n in range(20):
        ids += (await store.append("events", [n], trim=None, nomkstream=False)).ids
    assert len(ids) == 70
    assert all(ENTRY_ID.fullmatch(entry_id) for entry_id in ids)
    assert_strictly_increasing(ids)


async def test_ids_carry_the_current_time(store: Store) -> None:
    """The milliseconds part of a new id is the time of the append (within a generous minute)."""
    before_ms = int(time.time() * 1000)
    [entry_id] = await append_many(store, "events", 1)
    after_ms = int(time.time() * 1000)
    milliseconds, _ = entry_key(entry_id)
    assert before_ms - 60_000 <= milliseconds <= after_ms + 60_000


async def test_ids_keep_increasing_when_the_clock_steps_back(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store clock that jumps an hour back never makes an id go back.

    SQLite makes ids from its ``clock``, so this exercises its step-back rule; Redis makes them on
    the server, where the same promise holds whatever the store's clock says.
    """
    earlier = await append_many(store, "events", 3)
    monkeypatch.setattr(store, "clock", lambda: time.time() - 3600)
    later = await append_many(store, "events", 3)
    later += (await store.append("events", ["one more"], trim=None, nomkstream=False)).ids
    assert_strictly_increasing(earlier + later)
    assert entry_key(later[0])[0] >= entry_key(earlier[-1])[0]


async def test_ids_exceed_every_earlier_id_after_the_stream_was_emptied(store: Store) -> None:
    """Trimming every entry away does not let the stream reuse or undercut an old id."""
    ids = await append_many(store, "events", 5)
    await store.trim("events", Trim(maxlen=0, approximate=False))
    [fresh] = await append_many(store, "events", 1)
    assert entry_key(fresh) > entry_key(ids[-1])


# Appending ---------------------------------------------------------------------------------


async def test_append_creates_a_missing_stream_and_reports_its_length(store: Store) -> None:
    """The first append creates the stream; every append answers the length and trimmed count."""
    result = await store.append("events", [{"a": 1}, {"b": 2}], trim=None, nomkstream=False)
    assert (result.length, result.trimmed, len(result.ids)) == (2, 0, 2)
    info = await store.stream_info("events")
    assert (info.stream, info.length, info.first_id, info.last_id, info.groups) == (
        "events",
        2,
        result.ids[0],
        result.ids[1],
        [],
    )


async def test_entry_bodies_round_trip_as_json_values(store: Store) -> None:
    """Every kind of JSON value comes back from a range exactly as it was appended."""
    bodies = [
        {"nested": {"list": [1, 2.5, None, True]}, "text": "héllo ✓"},
        [1, "two", {"three": 3}],
        "plain text",
        42,
        -0.125,
        None,
        False,
    ]
    ids = (await store.append("events", bodies, trim=None, nomkstream=False)).ids
    entries = await store.range("events", start="-", end="+", count=100, reverse=False)
    assert [(entry.id, entry.body) for entry in entries] == list(zip(ids, bodies, strict=True))


async def test_nomkstream_refuses_a_missing_stream_and_creates_nothing(store: Store) -> None:
    """With ``nomkstream`` a missing stream is ``stream_not_found`` and stays missing."""
    with pytest.raises(NotFoundError) as raised:
        await store.append("missing", [1], trim=None, nomkstream=True)
    assert raised.value.code == "stream_not_found"
    with pytest.raises(NotFoundError):
        await store.stream_info("missing")


async def test_nomkstream_appends_to_an_existing_stream(store: Store) -> None:
    """``nomkstream`` only matters when the stream is missing."""
    await append_many(store, "events", 1)
    result = await store.append("events", [2], trim=None, nomkstream=True)
    assert result.length == 2


async def test_a_failed_append_writes_nothing(store: Store) -> None:
    """An append whose second body cannot be stored leaves no entry and no stream behind."""
    with pytest.raises((StoreError, TypeError, ValueError)):
        await store.append("events", [1, object(), 3], trim=None, nomkstream=False)
    with pytest.raises(NotFoundError):
        await store.stream_info("events")


# Trimming ----------------------------------------------------------------------------------


async def test_exact_maxlen_keeps_exactly_the_newest_maxlen_entries(store: Store) -> None:
    """``approximate=False`` cuts the stream to exactly ``maxlen``, dropping the oldest."""
    ids = await append_many(store, "events", 30)
    result = await store.append(
        "events", ["last"], trim=Trim(maxlen=10, approximate=False), nomkstream=False
    )
    assert (result.length, result.trimmed) == (10, 21)
    assert await all_ids(store, "events") == ids[-9:] + result.ids


async def test_approximate_maxlen_never_keeps_fewer_than_maxlen(store: Store) -> None:
    """Approximate trimming may keep extra entries but never fewer than ``maxlen``, oldest go first."""
    appended: list[str] = []
    trimmed = 0
    for round_number in range(30):
        result = await store.append(
            "events",
            [{"round": round_number, "n": n} for n in range(20)],
            trim=Trim(maxlen=50, approximate=True),
            nomkstream=False,
        )
        appended += result.ids
        trimmed += result.trimmed
        assert result.length >= min(50, len(appended))
        assert result.length == len(appended) - trimmed
        assert await all_ids(store, "events") == appended[len(appended) - result.length :]


async def test_approximate_trim_call_never_keeps_fewer_than_maxlen(store: Store) -> None:
    """``trim`` with an approximate ``maxlen`` keeps at least ``maxlen`` of the newest entries."""
    ids = await append_many(store, "events", 300)
    result = await store.trim("events", Trim(maxlen=100, approximate=True))
    assert 100 <= result.length <= 300
    assert result.trimmed == 300 - result.length
    assert await all_ids(store, "events") == ids[300 - result.length :]


async def test_maxlen_applies_only_to_the_call_that_gives_it(store: Store) -> None:
    """A per-call ``maxlen`` trims that call only; later appends without one are not capped."""
    exact = Trim(maxlen=3, approximate=False)
    assert (await store.append("events", [1, 2, 3, 4, 5], trim=exact, nomkstream=False)).length == 3
    assert (await store.append("events", [6, 7, 8, 9], trim=None, nomkstream=False)).length == 7
    smaller = Trim(maxlen=2, approximate=False)
    assert (await store.append("events", [10], trim=smaller, nomkstream=False)).length == 2


async def test_trimming_everything_keeps_an_empty_stream(store: Store) -> None:
    """A stream cut to zero entries still exists, with no first or last id, until deleted."""
    await append_many(store, "events", 5)
    result = await store.trim("events", Trim(maxlen=0, approximate=False))
    assert (result.length, result.trimmed) == (0, 5)
    info = await store.stream_info("events")
    assert (info.length, info.first_id, info.last_id) == (0, None, None)
    assert await store.range("events", start="-", end="+", count=10, reverse=False) == []


async def test_minid_drops_exactly_the_lower_ids(store: Store) -> None:
    """An exact ``minid`` trim removes every id below it and keeps the rest."""
    ids = await append_many(store, "events", 10)
    result = await store.trim("events", Trim(minid=ids[4], approximate=False))
    assert (result.length, result.trimmed) == (6, 4)
    assert await all_ids(store, "events") == ids[4:]


async def test_minid_on_append_trims_after_appending(store: Store) -> None:
    """An append's ``minid`` applies after the new entries are in."""
    ids = await append_many(store, "events", 5)
    result = await store.append(
        "events", ["new"], trim=Trim(minid=ids[3], approximate=False), nomkstream=False
    )
    assert (result.length, result.trimmed) == (3, 3)
    assert await all_ids(store, "events") == [*ids[3:], *result.ids]


async def test_minid_may_be_bare_milliseconds(store: Store) -> None:
    """A bare ``ms`` minid means ``ms-0``: one past the newest ms drops everything."""
    ids = await append_many(store, "events", 5)
    newest_ms = entry_key(ids[-1])[0]
    unchanged = await store.trim("events", Trim(minid=str(entry_key(ids[0])[0]), approximate=False))
    assert (unchanged.length, unchanged.trimmed) == (5, 0)
    emptied = await store.trim("events", Trim(minid=str(newest_ms + 1), approximate=False))
    assert (emptied.length, emptied.trimmed) == (0, 5)


async def test_approximate_minid_never_drops_ids_at_or_above_it(store: Store) -> None:
    """An approximate ``minid`` may keep lower ids, never drop higher ones."""
    ids = await append_many(store, "events", 10)
    result = await store.trim("events", Trim(minid=ids[6]))
    kept = await all_ids(store, "events")
    assert kept[-4:] == ids[6:]
    assert kept == ids[10 - result.length :]


# Reading, info and deletion ----------------------------------------------------------------


async def test_range_bounds_are_inclusive_with_count_and_reverse(store: Store) -> None:
    """``range`` returns ids between inclusive bounds, capped by ``count``, optionally newest first."""
    ids = await append_many(store, "events", 10)

    async def read(start: str, end: str, count: int = 100, reverse: bool = False) -> list[str]:
        entries = await store.range("events", start=start, end=end, count=count, reverse=reverse)
        return [entry.id for entry in entries]

    assert await read("-", "+") == ids
    assert await read(ids[2], ids[5]) == ids[2:6]
    assert await read(ids[2], ids[5], reverse=True) == ids[5:1:-1]
    assert await read(ids[2], ids[5], count=2) == ids[2:4]
    assert await read(ids[2], ids[5], count=2, reverse=True) == [ids[5], ids[4]]
    assert await read("-", "+", count=3, reverse=True) == ids[:-4:-1]
    assert await read(ids[5], ids[2]) == []


async def test_range_reads_bare_milliseconds_as_whole_milliseconds(store: Store) -> None:
    """A bare ``ms`` start means ``ms-0`` and a bare ``ms`` end means the last id of that ms."""
    ids = await append_many(store, "events", 5)
    ids += await append_many(store, "events", 5, first=5)
    middle_ms = entry_key(ids[4])[0]
    entries = await store.range("events", start=str(middle_ms), end="+", count=100, reverse=False)
    assert [entry.id for entry in entries] == [i for i in ids if entry_key(i)[0] >= middle_ms]
    entries = await store.range("events", start="-", end=str(middle_ms), count=100, reverse=False)
    assert [entry.id for entry in entries] == [i for i in ids if entry_key(i)[0] <= middle_ms]


# Redis's largest id part, which the API's id patterns allow, and SQLite's largest integer + 1.
LARGEST = str(2**64 - 1)
ABOVE_SQLITE = str(2**63)
TOO_LARGE = str(2**64)


@pytest.mark.parametrize(
    ("start_id", "shown"),
    [
        (f"{ABOVE_SQLITE}-0", f"{ABOVE_SQLITE}-0"),
        (f"1-{LARGEST}", f"1-{LARGEST}"),
        (f"{LARGEST}-{LARGEST}", f"{LARGEST}-{LARGEST}"),
        (LARGEST, f"{LARGEST}-0"),
    ],
)
async def test_a_group_may_start_at_any_id_up_to_the_largest(
    store: Store, start_id: str, shown: str
) -> None:
    """Id parts run to 2**64 - 1, as in Redis: a group created there shows its position whole and
    delivers only entries after it.
    """
    ids = await append_many(store, "events", 2)
    created = await store.create_group("events", "billing", start_id=start_id, mkstream=False)
    assert created.last_delivered_id == shown
    [group] = (await store.stream_info("events")).groups
    assert group.last_delivered_id == shown
    delivered = await store.read_group("events", "billing", consumer="c", count=10, wait_ms=0)
    assert [entry.id for entry in delivered] == ([] if start_id != f"1-{LARGEST}" else ids)


async def test_bounds_up_to_the_largest_id_compare_as_numbers(store: Store) -> None:
    """A range, ack, claim or trim bound with parts up to 2**64 - 1 means just that number."""
    ids = await append_many(store, "events", 3)

    async def read(start: str, end: str) -> list[str]:
        entries = await store.range("events", start=start, end=end, count=10, reverse=False)
        return [entry.id for entry in entries]

    assert await read("0", LARGEST) == ids
    assert await read("-", f"{LARGEST}-{LARGEST}") == ids
    assert await read(ABOVE_SQLITE, "+") == []
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await store.read_group("events", "billing", consumer="c", count=10, wait_ms=0)
    assert await store.ack("events", "billing", [f"{LARGEST}-{LARGEST}", f"{ABOVE_SQLITE}-0"]) == 0
    claimed = await store.claim(
        "events", "billing", consumer="d", min_idle_ms=0, count=10, start_id=ABOVE_SQLITE
    )
    assert (claimed.entries, claimed.next_start_id) == ([], "0-0")
    trimmed = await store.trim("events", Trim(minid=LARGEST, approximate=False))
    assert (trimmed.length, trimmed.trimmed) == (0, 3)


@pytest.mark.parametrize(
    ("call", "entry_id"),
    [
        (
            lambda store: store.create_group(
                "events", "audit", start_id=f"{TOO_LARGE}-0", mkstream=False
            ),
            f"{TOO_LARGE}-0",
        ),
        (
            lambda store: store.range(
                "events", start=f"1-{TOO_LARGE}", end="+", count=10, reverse=False
            ),
            f"1-{TOO_LARGE}",
        ),
        (
            lambda store: store.range("events", start="-", end=TOO_LARGE, count=10, reverse=False),
            TOO_LARGE,
        ),
        (lambda store: store.ack("events", "billing", ["1-0", f"{TOO_LARGE}-0"]), f"{TOO_LARGE}-0"),
        (
            lambda store: store.claim(
                "events", "billing", consumer="c", min_idle_ms=0, count=10, start_id=TOO_LARGE
            ),
            TOO_LARGE,
        ),
        (lambda store: store.trim("events", Trim(minid=TOO_LARGE)), TOO_LARGE),
        (
            lambda store: store.append("events", [1], trim=Trim(minid=TOO_LARGE), nomkstream=False),
            TOO_LARGE,
        ),
    ],
    ids=["create_group", "range start", "range end", "ack", "claim", "trim", "append"],
)
async def test_an_id_part_above_the_largest_is_validation_failed(
    store: Store, call: Callable[[Store], Awaitable[object]], entry_id: str
) -> None:
    """Every store refuses an id with a part above 2**64 - 1 in the same words, and changes
    nothing; none is read as a smaller one.
    """
    ids = await append_many(store, "events", 2)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    with pytest.raises(StoreError) as raised:
        await call(store)
    assert (raised.value.code, str(raised.value)) == (
        "validation_failed",
        f"entry id {entry_id!r} has a part above {LARGEST}, the largest",
    )
    assert await all_ids(store, "events") == ids
    assert [group.group for group in (await store.stream_info("events")).groups] == ["billing"]


@pytest.mark.parametrize(
    "call",
    [
        lambda store: store.stream_info("missing"),
        lambda store: store.range("missing", start="-", end="+", count=10, reverse=False),
        lambda store: store.trim("missing", Trim(maxlen=1, approximate=False)),
        lambda store: store.delete_stream("missing"),
        lambda store: store.create_group("missing", "g", start_id="0", mkstream=False),
        lambda store: store.delete_group("missing", "g"),
        lambda store: store.read_group("missing", "g", consumer="c", count=1, wait_ms=0),
    ],
    ids=["stream_info", "range", "trim", "delete_stream", "create_group", "delete_group", "read"],
)
async def test_a_missing_stream_is_stream_not_found(
    store: Store, call: Callable[[Store], Awaitable[object]]
) -> None:
    """Every stream operation that needs the stream answers ``stream_not_found`` without it."""
    with pytest.raises(NotFoundError) as raised:
        await call(store)
    assert raised.value.code == "stream_not_found"


async def test_delete_stream_removes_entries_and_groups(store: Store) -> None:
    """After ``delete_stream`` the stream is gone; a new append starts one with no groups."""
    await append_many(store, "events", 5)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await store.delete_stream("events")
    with pytest.raises(NotFoundError):
        await store.stream_info("events")
    await append_many(store, "events", 1)
    info = await store.stream_info("events")
    assert (info.length, info.groups) == (1, [])


# Consumer groups ---------------------------------------------------------------------------


async def read(store: Store, consumer: str, count: int = 100, group: str = "billing") -> list[str]:
    """The ids one read of the group hands to ``consumer``."""
    entries = await store.read_group("events", group, consumer=consumer, count=count, wait_ms=0)
    return [entry.id for entry in entries]


async def test_group_from_dollar_delivers_only_later_entries(store: Store) -> None:
    """A group created at ``$`` skips what the stream already holds."""
    ids = await append_many(store, "events", 3)
    info = await store.create_group("events", "billing", start_id="$", mkstream=False)
    assert (info.group, info.consumers, info.pending, info.last_delivered_id) == (
        "billing",
        0,
        0,
        ids[-1],
    )
    assert await read(store, "alice") == []
    later = await append_many(store, "events", 2, first=3)
    assert await read(store, "alice") == later


async def test_group_from_zero_delivers_everything_oldest_first(store: Store) -> None:
    """A group created at ``0`` delivers every entry, oldest first, with delivery count 1."""
    ids = await append_many(store, "events", 3)
    info = await store.create_group("events", "billing", start_id="0", mkstream=False)
    assert info.last_delivered_id == "0-0"
    entries = await store.read_group("events", "billing", consumer="alice", count=10, wait_ms=0)
    assert [(entry.id, entry.body, entry.delivery_count) for entry in entries] == [
        (ids[0], {"n": 0}, 1),
        (ids[1], {"n": 1}, 1),
        (ids[2], {"n": 2}, 1),
    ]


async def test_group_from_an_id_delivers_entries_after_it(store: Store) -> None:
    """A group created at an entry id delivers only the entries after that id."""
    ids = await append_many(store, "events", 5)
    info = await store.create_group("events", "billing", start_id=ids[1], mkstream=False)
    assert info.last_delivered_id == ids[1]
    assert await read(store, "alice") == ids[2:]


async def test_create_group_with_mkstream_creates_an_empty_stream(store: Store) -> None:
    """``mkstream`` creates the missing stream, empty, with the group on it."""
    info = await store.create_group("events", "billing", start_id="$", mkstream=True)
    assert info.last_delivered_id == "0-0"
    stream = await store.stream_info("events")
    assert (stream.length, [group.group for group in stream.groups]) == (0, ["billing"])
    ids = await append_many(store, "events", 2)
    assert await read(store, "alice") == ids


async def test_create_group_twice_is_group_exists(store: Store) -> None:
    """A second group of the same name on the same stream is ``group_exists``."""
    await store.create_group("events", "billing", start_id="$", mkstream=True)
    with pytest.raises(ConflictError) as raised:
        await store.create_group("events", "billing", start_id="0", mkstream=True)
    assert raised.value.code == "group_exists"


async def test_each_entry_goes_to_exactly_one_consumer(store: Store) -> None:
    """Consumers of one group share the entries: each is delivered once, to one of them."""
    ids = await append_many(store, "events", 10)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    delivered: list[tuple[str, str]] = []
    while True:
        to_alice = await read(store, "alice", count=3)
        to_bob = await read(store, "bob", count=2)
        if not to_alice and not to_bob:
            break
        delivered += [(i, "alice") for i in to_alice] + [(i, "bob") for i in to_bob]
    delivered_ids = [entry_id for entry_id, _ in delivered]
    assert len(delivered_ids) == len(set(delivered_ids))
    assert sorted(delivered_ids, key=entry_key) == ids
    pending = await store.pending("events", "billing", count=100)
    assert {entry.id: entry.consumer for entry in pending} == dict(delivered)
    assert all(entry.delivery_count == 1 for entry in pending)
    [group] = (await store.stream_info("events")).groups
    assert (group.consumers, group.pending, group.last_delivered_id) == (2, 10, ids[-1])


async def test_groups_on_one_stream_are_independent(store: Store) -> None:
    """Each group gets every entry once, whatever other groups have read."""
    ids = await append_many(store, "events", 4)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await store.create_group("events", "audit", start_id="0", mkstream=False)
    assert await read(store, "alice", group="billing") == ids
    assert await read(store, "carol", group="audit") == ids
    assert [group.group for group in (await store.stream_info("events")).groups] == [
        "audit",
        "billing",
    ]


async def test_concurrent_readers_never_share_an_entry(
    store: Store, open_store: Callable[[], Awaitable[Store]]
) -> None:
    """Many reads at once, through several store instances, deliver every entry exactly once."""
    ids = await append_many(store, "events", 60)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    stores = [store, await open_store(), await open_store()]
    batches = await asyncio.gather(
        *(
            stores[n % len(stores)].read_group(
                "events", "billing", consumer=f"worker-{n}", count=4, wait_ms=0
            )
            for n in range(30)
        )
    )
    delivered = [entry.id for batch in batches for entry in batch]
    assert len(delivered) == len(set(delivered))
    assert sorted(delivered, key=entry_key) == ids


async def test_read_group_on_a_missing_group_is_group_not_found(store: Store) -> None:
    """Reading, listing pending or deleting a group the stream lacks is ``group_not_found``."""
    await append_many(store, "events", 1)
    for call in (
        store.read_group("events", "nobody", consumer="c", count=1, wait_ms=0),
        store.pending("events", "nobody", count=10),
        store.delete_group("events", "nobody"),
    ):
        with pytest.raises(NotFoundError) as raised:
            await call
        assert raised.value.code == "group_not_found"


async def test_read_group_waits_for_a_new_entry(store: Store) -> None:
    """With ``wait_ms`` a read that finds nothing returns the entry appended while it waits."""
    await store.create_group("events", "billing", start_id="$", mkstream=True)
    reader = asyncio.create_task(
        store.read_group("events", "billing", consumer="alice", count=10, wait_ms=20_000)
    )
    await asyncio.sleep(0.2)
    ids = await append_many(store, "events", 1)
    delivered = await asyncio.wait_for(reader, timeout=60)
    assert [entry.id for entry in delivered] == ids


async def test_read_group_returns_nothing_when_the_wait_ends(store: Store) -> None:
    """A read that waits and sees no entry answers an empty list."""
    await store.create_group("events", "billing", start_id="$", mkstream=True)
    assert (
        await store.read_group("events", "billing", consumer="alice", count=10, wait_ms=100) == []
    )


async def test_pending_lists_holder_and_delivery_count_lowest_id_first(store: Store) -> None:
    """``pending`` shows each delivered, unacknowledged entry with its consumer and count."""
    ids = await append_many(store, "events", 4)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice", count=3)
    await read(store, "bob", count=1)
    pending = await store.pending("events", "billing", count=100)
    assert [(entry.id, entry.consumer, entry.delivery_count) for entry in pending] == [
        (ids[0], "alice", 1),
        (ids[1], "alice", 1),
        (ids[2], "alice", 1),
        (ids[3], "bob", 1),
    ]
    assert all(entry.idle_ms >= 0 for entry in pending)
    assert [entry.id for entry in await store.pending("events", "billing", count=2)] == ids[:2]


async def test_ack_removes_pending_entries_and_counts_only_pending_ones(store: Store) -> None:
    """``ack`` answers how many of the ids were pending; unknown or acked ids count nothing."""
    ids = await append_many(store, "events", 3)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    assert await store.ack("events", "billing", [ids[0], ids[1], "1-1"]) == 2
    assert await store.ack("events", "billing", [ids[0]]) == 0
    assert [entry.id for entry in await store.pending("events", "billing", count=10)] == [ids[2]]
    [group] = (await store.stream_info("events")).groups
    assert group.pending == 1


async def test_claim_gives_idle_entries_to_another_consumer(store: Store) -> None:
    """Claimed entries move to the claimer with their delivery count raised by one."""
    ids = await append_many(store, "events", 3)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    result = await store.claim(
        "events", "billing", consumer="bob", min_idle_ms=0, count=10, start_id="0"
    )
    assert [(entry.id, entry.body, entry.delivery_count) for entry in result.entries] == [
        (ids[0], {"n": 0}, 2),
        (ids[1], {"n": 1}, 2),
        (ids[2], {"n": 2}, 2),
    ]
    assert (result.deleted_ids, result.next_start_id) == ([], "0-0")
    pending = await store.pending("events", "billing", count=10)
    assert [(entry.consumer, entry.delivery_count) for entry in pending] == [("bob", 2)] * 3


async def test_claim_leaves_entries_not_idle_long_enough(store: Store) -> None:
    """Entries idle for less than ``min_idle_ms`` stay with their consumer, count unchanged."""
    await append_many(store, "events", 3)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    result = await store.claim(
        "events", "billing", consumer="bob", min_idle_ms=3_600_000, count=10, start_id="0"
    )
    assert (result.entries, result.deleted_ids, result.next_start_id) == ([], [], "0-0")
    pending = await store.pending("events", "billing", count=10)
    assert [(entry.consumer, entry.delivery_count) for entry in pending] == [("alice", 1)] * 3


async def test_claim_pages_through_the_pending_list_with_next_start_id(store: Store) -> None:
    """``next_start_id`` is the next pending id to scan, and ``0-0`` once the scan is done."""
    ids = await append_many(store, "events", 5)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    seen: list[str] = []
    start, pages = "0", 0
    while True:
        result = await store.claim(
            "events", "billing", consumer="bob", min_idle_ms=0, count=2, start_id=start
        )
        seen += [entry.id for entry in result.entries]
        pages += 1
        if result.next_start_id == "0-0":
            break
        assert result.next_start_id == ids[len(seen)]
        start = result.next_start_id
    assert (seen, pages) == (ids, 3)


async def test_claim_starts_at_start_id_inclusive(store: Store) -> None:
    """The scan begins at ``start_id`` itself, skipping lower pending ids."""
    ids = await append_many(store, "events", 4)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    result = await store.claim(
        "events", "billing", consumer="bob", min_idle_ms=0, count=10, start_id=ids[2]
    )
    assert [entry.id for entry in result.entries] == ids[2:]


async def test_claim_looks_at_no_more_than_count_pending_entries(store: Store) -> None:
    """``count`` bounds the entries scanned, claimed or not: the scan stops after ``count``."""
    ids = await append_many(store, "events", 5)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    result = await store.claim(
        "events", "billing", consumer="bob", min_idle_ms=3_600_000, count=2, start_id="0"
    )
    assert (result.entries, result.deleted_ids, result.next_start_id) == ([], [], ids[2])


async def test_claim_reports_and_forgets_pending_entries_that_were_trimmed(store: Store) -> None:
    """Pending ids whose entries were trimmed come back in ``deleted_ids`` and stop being pending."""
    ids = await append_many(store, "events", 3)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    await store.trim("events", Trim(maxlen=1, approximate=False))
    result = await store.claim(
        "events", "billing", consumer="bob", min_idle_ms=0, count=10, start_id="0"
    )
    assert result.deleted_ids == ids[:2]
    assert [(entry.id, entry.delivery_count) for entry in result.entries] == [(ids[2], 2)]
    assert [entry.id for entry in await store.pending("events", "billing", count=10)] == [ids[2]]
    again = await store.claim(
        "events", "billing", consumer="bob", min_idle_ms=0, count=10, start_id="0"
    )
    assert again.deleted_ids == []


async def test_claim_reports_trimmed_entries_whatever_their_idle_time(store: Store) -> None:
    """A trimmed pending entry is dropped and reported even when it is not idle long enough."""
    ids = await append_many(store, "events", 3)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    await store.trim("events", Trim(maxlen=0, approximate=False))
    result = await store.claim(
        "events", "billing", consumer="bob", min_idle_ms=3_600_000, count=10, start_id="0"
    )
    assert (result.entries, result.deleted_ids) == ([], ids)
    assert await store.pending("events", "billing", count=10) == []


async def test_delete_group_forgets_its_pending_list_but_keeps_entries(store: Store) -> None:
    """Deleting a group removes it and its pending list; the stream's entries stay."""
    ids = await append_many(store, "events", 3)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    await store.delete_group("events", "billing")
    info = await store.stream_info("events")
    assert (info.length, info.groups) == (3, [])
    assert await all_ids(store, "events") == ids
    with pytest.raises(NotFoundError) as raised:
        await store.delete_group("events", "billing")
    assert raised.value.code == "group_not_found"
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    assert await store.pending("events", "billing", count=10) == []


# Max deliveries and dead letters -----------------------------------------------------------


async def claim_all(store: Store, *, min_idle_ms: int = 0, group: str = "billing") -> ClaimResult:
    """One claim by ``bob`` over the whole pending list."""
    return await store.claim(
        "events", group, consumer="bob", min_idle_ms=min_idle_ms, count=100, start_id="0"
    )


async def test_a_group_shows_its_max_deliveries(store: Store) -> None:
    """``max_deliveries`` is kept with the group (None: unlimited) and shown by stream_info."""
    created = await store.create_group(
        "events", "billing", start_id="0", mkstream=True, max_deliveries=3
    )
    assert created.max_deliveries == 3
    await store.create_group("events", "audit", start_id="0", mkstream=False)
    info = await store.stream_info("events")
    assert [(group.group, group.max_deliveries) for group in info.groups] == [
        ("audit", None),
        ("billing", 3),
    ]


@pytest.mark.parametrize(
    ("stream", "max_deliveries"), [("events", 0), ("events", -1), ("e" * 124, 1)]
)
async def test_create_group_refuses_an_unusable_max_deliveries(
    store: Store, stream: str, max_deliveries: int
) -> None:
    """Less than one delivery, or a stream whose dead-letter stream's name would be too long for
    the API, is ``validation_failed``; nothing is created.
    """
    with pytest.raises(StoreError) as raised:
        await store.create_group(
            stream, "billing", start_id="0", mkstream=True, max_deliveries=max_deliveries
        )
    assert raised.value.code == "validation_failed"
    with pytest.raises(NotFoundError):
        await store.stream_info(stream)


async def test_claim_dead_letters_entries_that_used_their_deliveries(store: Store) -> None:
    """An idle entry delivered ``max_deliveries`` times is not claimed again: it leaves the pending
    list and is appended to ``<stream>.dead`` with its id, group, delivery count and body.
    """
    ids = await append_many(store, "events", 2)
    await store.create_group("events", "billing", start_id="0", mkstream=False, max_deliveries=2)
    await read(store, "alice")
    second = await claim_all(store)
    assert [(entry.id, entry.delivery_count) for entry in second.entries] == [
        (ids[0], 2),
        (ids[1], 2),
    ]
    assert second.dead_lettered_ids == []
    with pytest.raises(NotFoundError):
        await store.stream_info(dead_letter_stream("events"))
    third = await claim_all(store)
    assert (third.entries, third.deleted_ids, third.dead_lettered_ids) == ([], [], ids)
    assert await store.pending("events", "billing", count=10) == []
    dead = await store.range("events.dead", start="-", end="+", count=10, reverse=False)
    assert [entry.body for entry in dead] == [
        {
            "stream": "events",
            "id": ids[0],
            "group": "billing",
            "delivery_count": 2,
            "body": {"n": 0},
        },
        {
            "stream": "events",
            "id": ids[1],
            "group": "billing",
            "delivery_count": 2,
            "body": {"n": 1},
        },
    ]
    assert await all_ids(store, "events") == ids
    assert (await claim_all(store)).dead_lettered_ids == []


async def test_max_deliveries_of_one_dead_letters_at_the_first_claim(store: Store) -> None:
    """With one delivery allowed, the read is the only one; bodies of any JSON shape survive."""
    bodies: list[object] = [[1, "two", None], "text", 1.5, {"deep": {"x": [True]}}]
    result = await store.append("events", bodies, trim=None, nomkstream=False)
    await store.create_group("events", "billing", start_id="0", mkstream=False, max_deliveries=1)
    await read(store, "alice")
    assert (await claim_all(store)).dead_lettered_ids == result.ids
    dead = await store.range("events.dead", start="-", end="+", count=10, reverse=False)
    assert [entry.body["body"] for entry in dead] == bodies


async def test_claim_dead_letters_only_idle_entries_within_its_window(store: Store) -> None:
    """Entries not idle long enough stay pending whatever their count, and the scan still looks
    at no more than ``count`` entries.
    """
    ids = await append_many(store, "events", 3)
    await store.create_group("events", "billing", start_id="0", mkstream=False, max_deliveries=1)
    await read(store, "alice")
    waiting = await claim_all(store, min_idle_ms=3_600_000)
    assert (waiting.entries, waiting.dead_lettered_ids) == ([], [])
    window = await store.claim(
        "events", "billing", consumer="bob", min_idle_ms=0, count=2, start_id="0"
    )
    assert (window.dead_lettered_ids, window.next_start_id) == (ids[:2], ids[2])
    assert [entry.id for entry in await store.pending("events", "billing", count=10)] == ids[2:]


async def test_a_trimmed_entry_is_deleted_not_dead_lettered(store: Store) -> None:
    """An entry trimmed away has no body to keep: it is reported in ``deleted_ids`` as ever."""
    ids = await append_many(store, "events", 2)
    await store.create_group("events", "billing", start_id="0", mkstream=False, max_deliveries=1)
    await read(store, "alice")
    await store.trim("events", Trim(maxlen=1, approximate=False))
    result = await claim_all(store)
    assert (result.deleted_ids, result.dead_lettered_ids) == (ids[:1], ids[1:])


async def test_max_deliveries_belongs_to_its_group(store: Store) -> None:
    """Another group of the stream, and a group made again under the same name without the
    setting, redeliver without limit.
    """
    await append_many(store, "events", 1)
    await store.create_group("events", "billing", start_id="0", mkstream=False, max_deliveries=1)
    await store.create_group("events", "audit", start_id="0", mkstream=False)
    await read(store, "alice", group="audit")
    for times in range(2, 5):
        result = await claim_all(store, group="audit")
        assert ([entry.delivery_count for entry in result.entries], result.dead_lettered_ids) == (
            [times],
            [],
        )
    await store.delete_group("events", "billing")
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    assert [group.max_deliveries for group in (await store.stream_info("events")).groups] == [
        None,
        None,
    ]
    assert (await claim_all(store)).dead_lettered_ids == []


async def test_a_recreated_stream_forgets_its_groups_max_deliveries(store: Store) -> None:
    """Deleting the stream deletes its groups' settings with them."""
    await append_many(store, "events", 1)
    await store.create_group("events", "billing", start_id="0", mkstream=False, max_deliveries=1)
    await store.delete_stream("events")
    await append_many(store, "events", 1)
    await store.create_group("events", "billing", start_id="0", mkstream=False)
    await read(store, "alice")
    assert (await claim_all(store)).dead_lettered_ids == []
