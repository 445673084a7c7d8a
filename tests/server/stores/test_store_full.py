"""A store with no room left, on both backends: SQLite at its file's limit (``max_page_count``,
which SQLite answers as it answers a full disk, SQLITE_FULL) and Redis at ``maxmemory`` under
``noeviction``. Each refuses a write with ``StoreFullError`` (``store_full``, 503), writes
nothing of it, leaves its idempotency key free, and writes again once room is made.
"""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from server.stores.base import (
    Entry,
    IdempotencyClaim,
    LeasedJob,
    NewJob,
    QueueSettings,
    Store,
    StoreFullError,
    StoreUnavailableError,
    UrlEndpoint,
)
from server.stores.redis import RedisStore
from server.stores.redis.keys import StoreKeys
from server.stores.sqlite import SQLiteStore
from tests._full_redis import FullRedis, small_redis
from tests._stores import opened
from tests.server.stores._support import new_message

# Bodies larger than a SQLite page (4 KiB), so each needs pages of its own, and than the room one
# filler key of the full Redis leaves.
BIG = "x" * 40_000


@dataclasses.dataclass
class FullStore:
    """An opened store, and how to take its room away and give it back."""

    store: Store
    fill: Callable[[], Any]
    free: Callable[[], Any]


async def _set_max_pages(store: SQLiteStore, pages: int | None) -> None:
    """Cap the file at its current size (None) or at ``pages``; the cap is the connection's."""

    def cap(connection: sqlite3.Connection, _now: float) -> None:
        limit = pages or connection.execute("PRAGMA page_count").fetchone()[0]
        connection.execute(f"PRAGMA max_page_count = {int(limit)}")

    await store.run_transaction(cap, write=False)


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
async def full(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[FullStore]:
    """Each backend in turn, with room it can lose (``fill``) and get back (``free``)."""
    if request.param == "sqlite":
        async with opened(SQLiteStore(str(tmp_path / "spool.db"))) as sqlite_store:

            async def fill_file() -> None:
                await _set_max_pages(sqlite_store, None)

            async def free_file() -> None:
                await _set_max_pages(sqlite_store, 1_000_000)

            yield FullStore(sqlite_store, fill_file, free_file)
        return
    with small_redis() as redis_server:
        url = f"{redis_server.url}?prefix=spooltest-{uuid.uuid4().hex[:12]}"
        async with opened(RedisStore.from_url(url)) as redis_store:

            async def fill_memory() -> None:
                redis_server.fill()

            async def free_memory() -> None:
                redis_server.free()

            yield FullStore(redis_store, fill_memory, free_memory)


def _claim(key: str) -> IdempotencyClaim:
    return IdempotencyClaim(key=key, request_hash=f"hash-of-{key}", ttl=3600)


async def test_a_full_store_refuses_appends_with_store_full_and_writes_none(
    full: FullStore,
) -> None:
    """An append and a batch append to a full store raise ``StoreFullError`` (an outage too, so
    whatever waits out an outage waits this out); the stream is as it was.
    """
    store = full.store
    await store.append("events", [1], trim=None, nomkstream=False)
    await full.fill()
    for bodies in ([BIG], [BIG, BIG, BIG]):
        with pytest.raises(StoreFullError) as raised:
            await store.append(
                "events", bodies, trim=None, nomkstream=False, idempotency=_claim("k")
            )
        assert (raised.value.code, raised.value.status) == ("store_full", 503)
        assert isinstance(raised.value, StoreUnavailableError)
    await full.free()
    assert [entry.body for entry in await _entries(store, "events")] == [1]


async def test_a_refused_publish_leaves_its_idempotency_key_free(full: FullStore) -> None:
    """The key of a publish refused for want of room is not kept: once room is made, the same
    publish with the same key is written (not replayed), once.
    """
    store = full.store
    await store.append("events", [1], trim=None, nomkstream=False)
    await full.fill()
    with pytest.raises(StoreFullError):
        await store.append("events", [BIG], trim=None, nomkstream=False, idempotency=_claim("k"))
    await full.free()
    first = await store.append(
        "events", [BIG], trim=None, nomkstream=False, idempotency=_claim("k")
    )
    again = await store.append(
        "events", [BIG], trim=None, nomkstream=False, idempotency=_claim("k")
    )
    assert (first.replayed, again.replayed, again.ids) == (False, True, first.ids)
    assert len(await _entries(store, "events")) == 2


async def test_a_full_store_refuses_job_and_message_publishes(full: FullStore) -> None:
    """Publishing jobs (one or a batch) and messages is refused whole, and works once room is
    made; nothing refused was kept.
    """
    store = full.store
    await store.put_queue("work", QueueSettings())
    await full.fill()
    for count in (1, 3):
        with pytest.raises(StoreFullError):
            await store.publish_jobs("work", [NewJob(topic="t", payload=BIG) for _ in range(count)])
    with pytest.raises(StoreFullError):
        await store.publish_messages([new_message(body=BIG.encode())])
    await full.free()
    assert await store.list_jobs("work", state=None, limit=10) == []
    assert (await store.list_messages(limit=10, cursor=None)).messages == []
    (receipt,) = await store.publish_jobs("work", [NewJob(topic="t", payload=BIG)])
    assert [job.job_id for job in await store.list_jobs("work", state=None, limit=10)] == [
        receipt.job_id
    ]


async def test_concurrent_publishes_to_a_full_sqlite_file_each_get_store_full(
    tmp_path: Path,
) -> None:
    """Writes that share one transaction (group commit) when SQLite rolls that transaction back
    itself for a full file each get ``store_full``, none an error about the undone transaction,
    and none is written.
    """
    async with opened(SQLiteStore(str(tmp_path / "spool.db"))) as store:
        await store.append("events", [1], trim=None, nomkstream=False)
        await _set_max_pages(store, None)
        outcomes = await asyncio.gather(
            *(store.append("events", [BIG], trim=None, nomkstream=False) for _ in range(10)),
            return_exceptions=True,
        )
        assert [type(outcome) for outcome in outcomes] == [StoreFullError] * 10
        await _set_max_pages(store, 1_000_000)
        assert len(await _entries(store, "events")) == 1


# Redis only: what it refuses besides writes, and a script that crosses the limit -------------


@pytest.fixture
async def redis_full() -> AsyncIterator[tuple[RedisStore, FullRedis]]:
    with small_redis() as redis_server:
        url = f"{redis_server.url}?prefix=spooltest-{uuid.uuid4().hex[:12]}"
        async with opened(RedisStore.from_url(url)) as store:
            yield store, redis_server


@pytest.mark.redis
async def test_a_full_redis_refuses_leases_and_reads_run_in_multi(
    redis_full: tuple[RedisStore, FullRedis],
) -> None:
    """Over ``maxmemory`` Redis refuses every command queued in a MULTI, reads too, and a
    script's first write that could grow memory: a lease, a stream's info, a range and a URL
    group's read are ``store_full``, and change no key. Freed, each works again.
    """
    store, redis_server = redis_full
    await store.append("events", [1], trim=None, nomkstream=False)
    await store.put_queue("work", QueueSettings())
    await store.publish_jobs("work", [NewJob(topic="t", payload=1)])
    await store.put_url_group("hooks", [UrlEndpoint(url="https://example.com/a")])
    redis_server.fill()
    before = redis_server.store_keys()
    refused: dict[str, Callable[[], Awaitable[object]]] = {
        "lease": lambda: _lease(store),
        "stream_info": lambda: store.stream_info("events"),
        "range": lambda: _entries(store, "events"),
        "get_url_group": lambda: store.get_url_group("hooks"),
    }
    for name, call in refused.items():
        with pytest.raises(StoreFullError, match="out of memory"):
            await call()
        assert redis_server.store_keys() == before, name
    redis_server.free()
    assert len(await _lease(store)) == 1
    assert (await store.stream_info("events")).length == 1
    assert (await store.get_url_group("hooks")).name == "hooks"


@pytest.mark.redis
async def test_a_full_redis_deletes_a_stream_and_publishing_resumes(
    redis_full: tuple[RedisStore, FullRedis],
) -> None:
    """Deleting a stream frees memory on a full Redis: the delete is not refused, the stream and
    its groups are gone, and once the room is there again publishing works.
    """
    store, redis_server = redis_full
    await store.append("big", [1], trim=None, nomkstream=False)
    await store.create_group("big", "readers", start_id="0", mkstream=False, max_deliveries=3)
    redis_server.fill()
    with pytest.raises(StoreFullError):
        await store.append("big", [2], trim=None, nomkstream=False)

    await store.delete_stream("big")

    keys = StoreKeys(store.prefix)
    assert redis_server.client.exists(keys.stream("big"), keys.groups("big")) == 0
    redis_server.free()
    await store.append("big", [3], trim=None, nomkstream=False)
    assert [entry.body for entry in await _entries(store, "big")] == [3]


@pytest.mark.redis
async def test_a_script_that_starts_under_maxmemory_writes_whole(
    redis_full: tuple[RedisStore, FullRedis],
) -> None:
    """Redis checks ``maxmemory`` for a script only before its first write: one that starts
    under the limit runs to its end, over it. A batch of jobs, which takes several times the
    memory of its arguments, crossing the limit is published whole, never in part; the next
    write is refused.
    """
    store, redis_server = redis_full
    await store.put_queue("work", QueueSettings())
    redis_server.fill()
    while _room(redis_server) < _START_ROOM:
        redis_server.free_one()
    receipts = await store.publish_jobs(
        "work", [NewJob(topic="t", payload=n) for n in range(_CROSSING_JOBS)]
    )
    assert len({receipt.job_id for receipt in receipts}) == _CROSSING_JOBS
    assert _room(redis_server) < 0
    with pytest.raises(StoreFullError):
        await store.publish_jobs("work", [NewJob(topic="t", payload=BIG)])
    redis_server.free()
    assert (await store.get_queue("work")).stats.ready == _CROSSING_JOBS


# The room a batch of this many small jobs starts in: more than its arguments take as it starts
# (under 0.3 MB), less than its jobs take once written (about 0.6 MB).
_CROSSING_JOBS = 1000
_START_ROOM = 400_000


def _room(redis_server: FullRedis) -> int:
    """Bytes left under ``maxmemory`` (negative when over)."""
    memory = redis_server.client.info("memory")
    return int(memory["maxmemory"]) - int(memory["used_memory"])


async def _lease(store: Store) -> list[LeasedJob]:
    return await store.lease_jobs(
        "work", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=0
    )


async def _entries(store: Store, stream: str) -> list[Entry]:
    return await store.range(stream, start="-", end="+", count=1000, reverse=False)
