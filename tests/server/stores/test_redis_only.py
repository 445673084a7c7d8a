"""What only the Redis store has: its key layout, sharing between processes, Redis's own trimming
and XAUTOCLAIM's deleted ids. The behaviour both stores share is in the other tests here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from redis.crc import key_slot

from server.stores import InvalidStoreURL, store_from_url
from server.stores.base import (
    DeliveryAttemptRecord,
    IdempotencyClaim,
    NewJob,
    NewMessage,
    NotFoundError,
    QueueSettings,
    StoreUnavailableError,
    Trim,
)
from server.stores.redis import DEFAULT_PREFIX, RedisStore
from tests._stores import opened
from tests.server.stores._support import connected_with

pytestmark = pytest.mark.redis

ROOT = Path(__file__).resolve().parents[3]

# Once open, says "ready" and waits for a line on stdin, so that both processes start together;
# then leases from the queue "work" until it is empty and prints the job ids it got as JSON.
_LEASER = """
import asyncio, json, sys
from server.stores.redis import RedisStore

async def main(url, consumer):
    store = RedisStore.from_url(url)
    await store.open()
    sys.stdout.write("ready\\n")
    sys.stdout.flush()
    sys.stdin.readline()
    leased = []
    try:
        while True:
            jobs = await store.lease_jobs(
                "work", consumer=consumer, topics=None, max_jobs=2, lease_seconds=600, wait_ms=0
            )
            if not jobs:
                break
            leased += [job.job_id for job in jobs]
    finally:
        await store.close()
    sys.stdout.write(json.dumps(leased))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


@pytest.fixture
async def redis_store(redis_store_url: str) -> AsyncIterator[RedisStore]:
    """An opened Redis store with a private prefix."""
    async with opened(RedisStore.from_url(redis_store_url)) as store:
        yield store


@pytest.fixture
def raw_redis(redis_url: str) -> Iterator[redis.Redis]:
    """A plain client on the test database, to look at keys directly."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        yield client
    finally:
        client.close()


def _keys(client: redis.Redis, prefix: str) -> list[str]:
    return sorted(str(key) for key in client.scan_iter(match=f"{prefix}*", count=1000))


def _job(number: int) -> NewJob:
    return NewJob(topic="work.item", payload={"n": number})


def _message(url: str) -> NewMessage:
    return NewMessage(
        url=url,
        body=b"{}",
        content_type="application/json",
        method="POST",
        headers={},
        not_before=0.0,
        retries=0,
        timeout=5,
    )


async def test_the_prefix_parameter_is_stripped_and_defaults_to_spool(redis_url: str) -> None:
    """``prefix`` is the store's option, not redis-py's: opening works, and it defaults to spool."""
    with_prefix = store_from_url(f"{redis_url}?prefix=spooltest-custom")
    assert isinstance(with_prefix, RedisStore)
    assert with_prefix.prefix == "spooltest-custom"
    await with_prefix.open()
    try:
        assert await with_prefix.ping()
    finally:
        await with_prefix.close()
    assert RedisStore.from_url(redis_url).prefix == DEFAULT_PREFIX == "spool"


@pytest.mark.parametrize(
    "url",
    [
        "redis://127.0.0.1:6379/15?prefix=sp{ool}",
        "redis://127.0.0.1:6379/15?prefix=",
        "redis://127.0.0.1:6379/15?prefix=a&prefix=b",
        "sqlite:///spool.db",
    ],
)
def test_malformed_urls_are_refused(url: str) -> None:
    """A braced (it would replace the hash tags), empty or repeated prefix, or another scheme, is
    an ``InvalidStoreURL``.
    """
    with pytest.raises(InvalidStoreURL):
        RedisStore.from_url(url)


async def test_other_query_parameters_reach_redis(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only ``prefix`` is taken out of the URL; redis-py options stay."""
    store = RedisStore.from_url(f"{redis_url}?socket_timeout=5&prefix=spooltest-x")
    assert store.prefix == "spooltest-x"
    node_url, nodes = await connected_with(store, monkeypatch)
    assert (urlsplit(node_url).query, nodes) == ("socket_timeout=5", None)


async def test_keys_carry_the_prefix_and_one_hash_tag_per_resource(
    redis_store: RedisStore, redis_prefix: str, raw_redis: redis.Redis
) -> None:
    """Every key starts with the prefix, and each stream's, queue's and the messages' keys share
    one cluster slot.
    """
    await redis_store.append("events", [{"n": 1}], trim=None, nomkstream=False)
    await redis_store.create_group("events", "billing", start_id="0", mkstream=False)
    await redis_store.put_queue("jobs", QueueSettings())
    await redis_store.publish_jobs(
        "jobs", [NewJob("a", 1, deduplication_id="d"), NewJob("b", 2, delay=60)]
    )
    await redis_store.lease_jobs(
        "jobs", consumer="w", topics=None, max_jobs=1, lease_seconds=None, wait_ms=0
    )
    await redis_store.publish_messages([_message("https://example.com/a")])
    claim = IdempotencyClaim(key="key", request_hash="hash", ttl=60)
    await redis_store.append("events", [{"n": 2}], trim=None, nomkstream=True, idempotency=claim)
    await redis_store.publish_jobs("jobs", [NewJob("c", 3)], idempotency=claim)
    await redis_store.publish_messages([_message("https://example.com/b")], idempotency=claim)
    await redis_store.consume_quota("token", 1, limit=10)

    keys = _keys(raw_redis, redis_prefix)
    assert keys and all(key.startswith(f"{redis_prefix}:") for key in keys)
    assert f"{redis_prefix}:s:{{events}}" in keys
    for tag in ("{events}", "{jobs}", "{messages}"):
        tagged = [key for key in keys if tag in key]
        assert tagged
        assert len({key_slot(key.encode()) for key in tagged}) == 1, tagged
    assert len([key for key in keys if "{jobs}" in key]) >= 5
    assert raw_redis.type(f"{redis_prefix}:s:{{events}}") == "stream"
    records = [key for key in keys if ":idem:" in key]
    assert len(records) == 3
    for tag in ("{events}", "{jobs}", "{messages}"):
        assert any(tag in record for record in records), records


async def test_an_idempotent_write_is_one_script_call_and_its_record_expires(
    redis_store: RedisStore, redis_prefix: str, raw_redis: redis.Redis
) -> None:
    """Writing with a claim, and replaying it, each take one round trip (one EVALSHA); the record
    carries the claim's ttl as its Redis expiry, so Redis drops it once it no longer counts. An
    append that found its stream empty also lists the stream's name (a ZADD, in a slot of its own),
    its replay too, which lists a stream whose first append was cut off before that.
    """
    await redis_store.put_queue("jobs", QueueSettings())
    claim = IdempotencyClaim(key="key", request_hash="hash", ttl=60)
    # Redis's MONITOR lists every command a client sends (and, apart, those a script runs).
    commands: list[str] = []
    with raw_redis.monitor() as monitor:  # type: ignore[no-untyped-call]
        for _ in range(2):
            await redis_store.append("events", [1], trim=None, nomkstream=False, idempotency=claim)
            await redis_store.publish_jobs("jobs", [NewJob("t", 1)], idempotency=claim)
            await redis_store.publish_messages([_message("https://a.example")], idempotency=claim)
        done = f"{redis_prefix}:counted"
        raw_redis.echo(done)
        while (seen := monitor.next_command())["command"] != f"ECHO {done}":
            if redis_prefix in seen["command"] and seen["client_type"] != "lua":
                commands.append(seen["command"].split(" ", 1)[0])
    assert commands == ["EVALSHA", "ZADD", "EVALSHA", "EVALSHA"] * 2
    [record] = [key for key in _keys(raw_redis, redis_prefix) if "{events}:idem:" in key]
    assert 0 < raw_redis.pttl(record) <= 60_000


async def test_streams_are_real_redis_streams_with_json_in_one_field(
    redis_store: RedisStore, redis_prefix: str, raw_redis: redis.Redis
) -> None:
    """An entry is a Redis stream entry whose only field ``b`` holds the body's JSON text."""
    result = await redis_store.append("events", [{"a": [1, 2]}, "x"], trim=None, nomkstream=False)
    entries = raw_redis.xrange(f"{redis_prefix}:s:{{events}}")
    assert entries is not None
    assert [entry_id for entry_id, _ in entries] == result.ids
    assert [fields for _, fields in entries] == [{"b": '{"a":[1,2]}'}, {"b": '"x"'}]


async def test_deleting_a_queue_leaves_none_of_its_keys(
    redis_store: RedisStore, redis_prefix: str, raw_redis: redis.Redis
) -> None:
    """Deleting a queue removes its settings, jobs, indexes and deduplication ids."""
    await redis_store.put_queue("jobs", QueueSettings())
    await redis_store.publish_jobs(
        "jobs", [NewJob("a", n, deduplication_id=str(n)) for n in range(5)]
    )
    await redis_store.lease_jobs(
        "jobs", consumer=None, topics=None, max_jobs=2, lease_seconds=None, wait_ms=0
    )
    await redis_store.delete_queue("jobs")
    assert [key for key in _keys(raw_redis, redis_prefix) if "{jobs}" in key] == []
    assert await redis_store.list_queues() == []


async def test_a_listed_queue_whose_keys_vanished_is_not_listed(
    redis_store: RedisStore, redis_prefix: str, raw_redis: redis.Redis
) -> None:
    """The name set spans slots, so listing trusts each queue's own keys over it."""
    await redis_store.put_queue("kept", QueueSettings())
    raw_redis.sadd(f"{redis_prefix}:queues", "ghost")
    assert [queue.name for queue in await redis_store.list_queues()] == ["kept"]
    with pytest.raises(NotFoundError):
        await redis_store.get_queue("ghost")


async def test_two_stores_leasing_concurrently_never_share_a_job(redis_store_url: str) -> None:
    """Two store instances leasing from one queue at once get every job exactly once."""
    stores = [RedisStore.from_url(redis_store_url) for _ in range(2)]
    for store in stores:
        await store.open()
    try:
        await stores[0].put_queue("work", QueueSettings())
        published = await stores[0].publish_jobs("work", [_job(n) for n in range(300)])

        async def drain(store: RedisStore) -> list[str]:
            leased: list[str] = []
            while jobs := await store.lease_jobs(
                "work", consumer=None, topics=None, max_jobs=4, lease_seconds=600, wait_ms=0
            ):
                leased += [job.job_id for job in jobs]
            return leased

        first, second = await asyncio.gather(*(drain(store) for store in stores))
    finally:
        for store in stores:
            await store.close()
    assert len(first) + len(second) == len(set(first) | set(second)) == 300
    assert set(first) | set(second) == {receipt.job_id for receipt in published}


@pytest.mark.slow
async def test_two_processes_leasing_concurrently_never_share_a_job(
    redis_store: RedisStore, redis_store_url: str
) -> None:
    """Two OS processes leasing from one queue at once get every job exactly once."""
    await redis_store.put_queue("work", QueueSettings())
    published = await redis_store.publish_jobs("work", [_job(n) for n in range(1000)])
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _LEASER,
            redis_store_url,
            f"worker-{number}",
            cwd=ROOT,
            env=environment,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for number in range(2)
    ]
    for process in processes:
        assert process.stdout is not None
        assert await asyncio.wait_for(process.stdout.readline(), timeout=60) == b"ready\n"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write(b"go\n")
    leased: list[str] = []
    for process in processes:
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=90)
        assert process.returncode == 0, stderr.decode()
        leased += json.loads(stdout)
    assert len(leased) == len(set(leased)) == 1000
    assert set(leased) == {receipt.job_id for receipt in published}


async def test_two_stores_claiming_due_messages_never_share_one(redis_store_url: str) -> None:
    """Two store instances claiming due messages at once never claim the same message."""
    stores = [RedisStore.from_url(redis_store_url) for _ in range(2)]
    for store in stores:
        await store.open()
    try:
        receipts = await stores[0].publish_messages(
            [_message(f"https://example.com/{n}") for n in range(200)]
        )
        now = stores[0].clock()

        async def drain(store: RedisStore) -> list[str]:
            claimed: list[str] = []
            while messages := await store.claim_due_messages(now=now, limit=3, lease_margin=600):
                claimed += [message.message_id for message in messages]
            return claimed

        first, second = await asyncio.gather(*(drain(store) for store in stores))
    finally:
        for store in stores:
            await store.close()
    assert len(first) + len(second) == len(set(first) | set(second)) == 200
    assert set(first) | set(second) == {receipt.message_id for receipt in receipts}


async def test_a_message_stored_before_retry_budgets_counts_by_the_old_rule(
    redis_store: RedisStore, raw_redis: redis.Redis
) -> None:
    """A message hash without ``retries_used`` reads (and then counts on) as attempts modulo
    ``retries + 1``, the rule the delivery engine used before the store kept the count.
    """
    message = dataclasses.replace(_message("https://example.com/old"), retries=1)
    [receipt] = await redis_store.publish_messages([message])
    now = redis_store.clock()
    for number in (1, 2, 3):
        [claimed] = await redis_store.claim_due_messages(now=now, limit=1, lease_margin=30)
        await redis_store.record_attempt(
            receipt.message_id,
            DeliveryAttemptRecord(attempt=number, started_at=now, duration_ms=1, status_code=500),
            lease_id=str(claimed.lease_id),
            outcome="retry",
            next_attempt_at=now,
        )
    key = f"{redis_store.prefix}:m:{{messages}}:msg:{receipt.message_id}"
    assert raw_redis.hdel(key, "retries_used") == 1
    assert (await redis_store.get_message(receipt.message_id)).retries_used == 1
    [claimed] = await redis_store.claim_due_messages(now=now, limit=1, lease_margin=30)
    record = await redis_store.record_attempt(
        receipt.message_id,
        DeliveryAttemptRecord(attempt=4, started_at=now, duration_ms=1, status_code=500),
        lease_id=str(claimed.lease_id),
        outcome="failed",
    )
    assert (record.retries_used, len(record.attempts)) == (2, 4)


# Outages ------------------------------------------------------------------------------------


async def test_a_closed_port_is_unavailable_at_open() -> None:
    """Opening a store whose Redis refuses the connection raises ``StoreUnavailableError``."""
    store = RedisStore.from_url("redis://127.0.0.1:1/0?socket_connect_timeout=1")
    with pytest.raises(StoreUnavailableError) as raised:
        await store.open()
    assert (raised.value.code, raised.value.status) == ("unavailable", 503)
    assert "127.0.0.1:1" in raised.value.detail
    await store.close()


async def test_a_server_that_never_answers_is_unavailable_not_a_hang() -> None:
    """A peer that accepts the connection but stays silent fails at the socket timeout."""
    accepted: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    store = RedisStore.from_url(f"redis://127.0.0.1:{port}/0?socket_timeout=0.5")
    try:
        with pytest.raises(StoreUnavailableError) as raised:
            await store.open()
        assert raised.value.code == "unavailable"
    finally:
        await store.close()
        for writer in accepted:
            writer.close()
        server.close()
        await server.wait_closed()


class _Proxy:
    """A TCP relay to Redis on a loopback port, which a test can cut like a network outage."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._writers: list[asyncio.StreamWriter] = []
        self._server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Stop listening and drop every relayed connection."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for writer in self._writers:
            writer.close()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection(*self._target)
        self._writers += [writer, upstream_writer]
        await asyncio.gather(
            self._pipe(reader, upstream_writer),
            self._pipe(upstream_reader, writer),
            return_exceptions=True,
        )

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()


async def test_a_redis_lost_after_open_makes_every_call_unavailable(redis_store_url: str) -> None:
    """Once Redis stops answering, scripts and plain commands alike raise
    ``StoreUnavailableError``, and ``ping`` answers False.
    """
    parts = urlsplit(redis_store_url)
    proxy = _Proxy(parts.hostname or "127.0.0.1", parts.port or 6379)
    await proxy.start()
    store = RedisStore.from_url(urlunsplit(parts._replace(netloc=f"127.0.0.1:{proxy.port}")))
    await store.open()
    try:
        await store.put_queue("work", QueueSettings())
        await proxy.cut()
        calls: list[Callable[[], Awaitable[object]]] = [
            lambda: store.get_queue("work"),
            store.list_queues,
            lambda: store.get_message("msg_01JDX4Q5Z8K2M3N4P5Q6R7S8T9"),
            lambda: store.claim_due_messages(now=0.0, limit=1, lease_margin=30),
            lambda: store.read_group("events", "g", consumer="c", count=1, wait_ms=10),
            lambda: store.stream_info("events"),
        ]
        for call in calls:
            with pytest.raises(StoreUnavailableError) as raised:
                await call()
            assert raised.value.code == "unavailable"
        assert await store.ping() is False
    finally:
        await store.close()


async def test_approximate_maxlen_keeps_a_small_stream_whole(
    redis_store: RedisStore, raw_redis: redis.Redis
) -> None:
    """``MAXLEN ~`` trims whole macro nodes only, so a stream smaller than one node keeps every
    entry (and never fewer than ``maxlen``).
    """
    configured = raw_redis.config_get("stream-node-max-entries")["stream-node-max-entries"]
    assert configured is not None
    node_size = int(configured)
    appended = min(50, node_size)
    for number in range(appended):
        result = await redis_store.append(
            "events", [number], trim=Trim(maxlen=10, approximate=True), nomkstream=False
        )
        assert result.length >= min(number + 1, 10)
        assert result.trimmed == 0
    info = await redis_store.stream_info("events")
    assert info.length == appended


async def test_exact_maxlen_keeps_exactly_maxlen_and_counts_what_went(
    redis_store: RedisStore,
) -> None:
    """``MAXLEN =`` keeps exactly ``maxlen`` entries, and ``trimmed`` adds up to what went."""
    trimmed = 0
    for number in range(50):
        result = await redis_store.append(
            "events", [number], trim=Trim(maxlen=10, approximate=False), nomkstream=False
        )
        assert result.length == min(number + 1, 10)
        trimmed += result.trimmed
    assert trimmed == 40
    entries = await redis_store.range("events", start="-", end="+", count=100, reverse=False)
    assert [entry.body for entry in entries] == list(range(40, 50))


async def test_a_batch_trimmed_by_its_own_maxlen_reports_every_removed_entry(
    redis_store: RedisStore,
) -> None:
    """The trim runs after the whole batch in the same script, so it can count its own entries."""
    await redis_store.append("events", [0, 1, 2], trim=None, nomkstream=False)
    result = await redis_store.append(
        "events", [3, 4, 5, 6], trim=Trim(maxlen=2, approximate=False), nomkstream=False
    )
    assert (result.length, result.trimmed) == (2, 5)


async def test_claim_reports_pending_entries_trimmed_away_as_deleted(
    redis_store: RedisStore,
) -> None:
    """XAUTOCLAIM's deleted ids come back as ``deleted_ids`` and leave the pending list, whatever
    their idle time.
    """
    appended = await redis_store.append("events", [1, 2, 3], trim=None, nomkstream=False)
    await redis_store.create_group("events", "billing", start_id="0", mkstream=False)
    await redis_store.read_group("events", "billing", consumer="a", count=10, wait_ms=0)
    await redis_store.trim("events", Trim(maxlen=1, approximate=False))

    result = await redis_store.claim(
        "events", "billing", consumer="b", min_idle_ms=3_600_000, count=10, start_id="0"
    )
    assert result.deleted_ids == appended.ids[:2]
    assert result.entries == []
    assert result.next_start_id == "0-0"
    pending = await redis_store.pending("events", "billing", count=10)
    assert [entry.id for entry in pending] == appended.ids[2:]


async def test_claim_takes_idle_entries_with_their_new_delivery_count(
    redis_store: RedisStore,
) -> None:
    """A claimed entry moves to the new consumer with its delivery count raised by one."""
    appended = await redis_store.append("events", [{"n": 1}], trim=None, nomkstream=False)
    await redis_store.create_group("events", "billing", start_id="0", mkstream=False)
    await redis_store.read_group("events", "billing", consumer="a", count=10, wait_ms=0)
    result = await redis_store.claim(
        "events", "billing", consumer="b", min_idle_ms=0, count=10, start_id="0"
    )
    assert [(entry.id, entry.body, entry.delivery_count) for entry in result.entries] == [
        (appended.ids[0], {"n": 1}, 2)
    ]
    pending = await redis_store.pending("events", "billing", count=10)
    assert [(entry.consumer, entry.delivery_count) for entry in pending] == [("b", 2)]


async def test_read_group_without_wait_does_not_block(redis_store: RedisStore) -> None:
    """``wait_ms=0`` answers at once: Redis's BLOCK 0 (wait forever) is never sent."""
    await redis_store.create_group("events", "billing", start_id="$", mkstream=True)
    delivered = await asyncio.wait_for(
        redis_store.read_group("events", "billing", consumer="a", count=1, wait_ms=0), timeout=10
    )
    assert delivered == []


async def test_a_blocked_read_outlasts_the_socket_timeout(redis_store_url: str) -> None:
    """A long poll longer than the URL's ``socket_timeout`` still ends empty, not in a timeout."""
    store = RedisStore.from_url(f"{redis_store_url}&socket_timeout=0.5")
    await store.open()
    try:
        await store.create_group("events", "billing", start_id="$", mkstream=True)
        delivered = await store.read_group("events", "billing", consumer="a", count=1, wait_ms=1500)
        assert await store.ping()
    finally:
        await store.close()
    assert delivered == []


async def test_read_group_wakes_when_an_entry_arrives(redis_store_url: str) -> None:
    """A waiting read returns the entry another store instance appends meanwhile."""
    reader, writer = RedisStore.from_url(redis_store_url), RedisStore.from_url(redis_store_url)
    await reader.open()
    await writer.open()
    try:
        await reader.create_group("events", "billing", start_id="$", mkstream=True)
        waiting = asyncio.create_task(
            reader.read_group("events", "billing", consumer="a", count=1, wait_ms=30_000)
        )
        await asyncio.sleep(0.2)
        appended = await writer.append("events", [{"late": True}], trim=None, nomkstream=False)
        delivered = await asyncio.wait_for(waiting, timeout=30)
    finally:
        await reader.close()
        await writer.close()
    assert [(entry.id, entry.body) for entry in delivered] == [(appended.ids[0], {"late": True})]


async def test_times_survive_the_scripts_exactly(redis_store: RedisStore) -> None:
    """Times computed inside Lua come back as the very float Python computes (no 14-digit
    rounding).
    """
    now = 1_732_900_000.123456
    redis_store.clock = lambda: now
    await redis_store.put_queue("jobs", QueueSettings(lease_seconds=30))
    await redis_store.publish_jobs("jobs", [NewJob("a", 1, delay=7)])
    redis_store.clock = lambda: now + 7
    [leased] = await redis_store.lease_jobs(
        "jobs", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=0
    )
    assert leased.published_at == now
    assert leased.lease_expires_at == now + 7 + 30
    job = await redis_store.get_job("jobs", leased.job_id)
    assert job.available_at == now + 7
    assert (await redis_store.get_queue("jobs")).created_at == now


async def test_claim_finds_a_deleted_entry_deep_in_a_window_of_unclaimable_ones(
    redis_store: RedisStore, redis_prefix: str, raw_redis: redis.Redis
) -> None:
    """XAUTOCLAIM gives up after ten times COUNT entries; the claim still covers its whole window
    and never reaches past it.
    """
    appended = await redis_store.append("events", list(range(30)), trim=None, nomkstream=False)
    await redis_store.create_group("events", "billing", start_id="0", mkstream=False)
    await redis_store.read_group("events", "billing", consumer="a", count=100, wait_ms=0)
    raw_redis.xdel(f"{redis_prefix}:s:{{events}}", appended.ids[24])

    short = await redis_store.claim(
        "events", "billing", consumer="b", min_idle_ms=3_600_000, count=20, start_id="0"
    )
    assert (short.entries, short.deleted_ids, short.next_start_id) == ([], [], appended.ids[20])
    whole = await redis_store.claim(
        "events", "billing", consumer="b", min_idle_ms=3_600_000, count=30, start_id="0"
    )
    assert (whole.entries, whole.deleted_ids, whole.next_start_id) == (
        [],
        [appended.ids[24]],
        "0-0",
    )


async def test_many_long_polls_leave_connections_for_other_commands(
    redis_store: RedisStore,
) -> None:
    """Blocked reads have a pool of their own: while more of them wait than it holds, an append
    still goes through and wakes one.
    """
    await redis_store.create_group("events", "billing", start_id="$", mkstream=True)
    readers = [
        asyncio.create_task(
            redis_store.read_group("events", "billing", consumer=f"c{n}", count=1, wait_ms=30_000)
        )
        for n in range(110)
    ]
    try:
        await asyncio.sleep(0.2)
        appended = await asyncio.wait_for(
            redis_store.append("events", [{"n": 1}], trim=None, nomkstream=False), timeout=10
        )
        done, _ = await asyncio.wait(readers, timeout=30, return_when=asyncio.FIRST_COMPLETED)
        assert [[entry.id for entry in task.result()] for task in done] == [appended.ids]
    finally:
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)


async def test_a_large_lease_takes_the_oldest_jobs_in_order(redis_store: RedisStore) -> None:
    """Leasing more jobs than the first script call makes lease ids for still takes the oldest
    ``max_jobs``, oldest first, each under its own lease.
    """
    await redis_store.put_queue("work", QueueSettings())
    published = await redis_store.publish_jobs("work", [_job(n) for n in range(40)])
    leased = await redis_store.lease_jobs(
        "work", consumer=None, topics=None, max_jobs=30, lease_seconds=None, wait_ms=0
    )
    assert [job.job_id for job in leased] == [receipt.job_id for receipt in published[:30]]
    assert len({job.lease_id for job in leased}) == 30
