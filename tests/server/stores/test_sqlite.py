"""What only the SQLite store promises: its URL forms, file settings, id rule and trimming bound."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import pytest

from server.stores import InvalidStoreURL
from server.stores.base import (
    FlowControlLimits,
    IdempotencyClaim,
    MessageFilter,
    NewJob,
    NotFoundError,
    QueueSettings,
    StoreError,
    StoreUnavailableError,
    Trim,
)
from server.stores.sqlite import SCHEMA_VERSION, SQLiteStore, approximate_trim_slack
from tests._stores import opened
from tests.conftest import ROOT
from tests.server.stores._support import TRACEPARENT, FakeClock, attempt, new_message


def _opened(url: str) -> contextlib.AbstractAsyncContextManager[SQLiteStore]:
    """The SQLite store of ``url``, opened (and so upgraded to this code's schema) and closed
    afterwards.
    """
    return opened(SQLiteStore.from_url(url))


@pytest.fixture
async def sqlite_store(sqlite_store_url: str) -> AsyncIterator[SQLiteStore]:
    """An opened SQLite store in a fresh directory."""
    async with _opened(sqlite_store_url) as store:
        yield store


# URLs --------------------------------------------------------------------------------------


async def test_a_relative_url_is_relative_to_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``sqlite:///./.spool/spool.db`` opens ``.spool/spool.db`` under the cwd, making the folder."""
    monkeypatch.chdir(tmp_path)
    store = SQLiteStore.from_url("sqlite:///./.spool/spool.db")
    await store.open()
    try:
        assert await store.ping()
    finally:
        await store.close()
    assert (tmp_path / ".spool" / "spool.db").is_file()


async def test_an_absolute_url_has_four_slashes(tmp_path: Path) -> None:
    """``sqlite:////abs/path.db`` opens that absolute path, making missing folders."""
    target = tmp_path / "deep" / "er" / "spool.db"
    store = SQLiteStore.from_url(f"sqlite:///{target}")
    await store.open()
    await store.close()
    assert target.is_file()


async def test_an_in_memory_url_works_without_a_file() -> None:
    """``sqlite:///:memory:`` gives a private database that needs no file."""
    store = SQLiteStore.from_url("sqlite:///:memory:")
    await store.open()
    try:
        result = await store.append("events", [1], trim=None, nomkstream=False)
        assert result.length == 1
    finally:
        await store.close()


@pytest.mark.parametrize(
    "url",
    [
        "sqlite://host/spool.db",
        "sqlite:///spool.db?mode=ro",
        "sqlite:///",
        "sqlite://",
        "redis://127.0.0.1:6379/0",
    ],
)
def test_malformed_urls_are_refused(url: str) -> None:
    """A URL with a host, options, no path or another scheme is an ``InvalidStoreURL``."""
    with pytest.raises(InvalidStoreURL):
        SQLiteStore.from_url(url)


# The file ----------------------------------------------------------------------------------


async def test_the_file_runs_wal_with_full_sync_and_foreign_keys(
    sqlite_store: SQLiteStore, sqlite_store_url: str
) -> None:
    """The connection uses WAL, ``synchronous=FULL`` and foreign keys; the schema is versioned."""

    def settings(connection: sqlite3.Connection, _now: float) -> tuple[str, int, int, int]:
        return (
            connection.execute("PRAGMA journal_mode").fetchone()[0],
            connection.execute("PRAGMA synchronous").fetchone()[0],
            connection.execute("PRAGMA foreign_keys").fetchone()[0],
            connection.execute("SELECT version FROM schema_version").fetchone()[0],
        )

    full = 2
    kept = await sqlite_store.run_transaction(settings, write=False)
    assert kept == ("wal", full, 1, SCHEMA_VERSION)


# Schema versions -----------------------------------------------------------------------------

# What a file of schema version 4 or older lacks: the columns that keep a publish's traceparent.
# What a file of schema version 9 or older lacks: the messages' event log.
_WITHOUT_EVENTS = ("DROP TABLE message_events",)
# What a file of schema version 8 or older lacks: the column of a message's flow control key.
_WITHOUT_FLOW_KEY = (
    "DROP INDEX messages_by_flow_key",
    "ALTER TABLE messages DROP COLUMN flow_key",
    *_WITHOUT_EVENTS,
)
# What a file of schema version 6 or older lacks: the column of a message's options.
_WITHOUT_OPTIONS = ("ALTER TABLE messages DROP COLUMN options", *_WITHOUT_FLOW_KEY)
_WITHOUT_TRACEPARENT = (
    "ALTER TABLE stream_entries DROP COLUMN traceparent",
    "ALTER TABLE jobs DROP COLUMN traceparent",
    "ALTER TABLE messages DROP COLUMN traceparent",
    *_WITHOUT_OPTIONS,
)


def _rewind(url: str, version: int, statements: Sequence[str]) -> None:
    """Make the closed file at ``url`` a file of schema ``version``: run ``statements`` (which
    undo what the later versions added) on it, then record the version.
    """
    path = url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)
        connection.execute("UPDATE schema_version SET version = ?", (version,))
    connection.close()


async def test_a_file_from_a_newer_spool_is_refused(sqlite_store_url: str) -> None:
    """Opening a file whose schema version is newer than this code's fails clearly."""
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    await first.close()
    _rewind(sqlite_store_url, SCHEMA_VERSION + 1, [])
    newer = SQLiteStore.from_url(sqlite_store_url)
    with pytest.raises(RuntimeError, match="newer"):
        await newer.open()
    await newer.close()


async def test_a_file_of_schema_version_1_is_upgraded_when_opened(sqlite_store_url: str) -> None:
    """A file made before leases and retry budgets gains their columns on open; a message's
    ``retries_used`` is what the delivery engine counted then.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    retried, fresh = await first.publish_messages([new_message(retries=1), new_message()])
    [claimed] = [
        message
        for message in await first.claim_due_messages(now=time.time(), limit=10, lease_margin=30)
        if message.message_id == retried.message_id
    ]
    await first.record_attempt(
        retried.message_id,
        attempt(1, status_code=500),
        lease_id=str(claimed.lease_id),
        outcome="retry",
        next_attempt_at=0.0,
    )
    await first.close()
    _rewind(
        sqlite_store_url,
        1,
        [
            "ALTER TABLE messages DROP COLUMN lease_id",
            "ALTER TABLE messages DROP COLUMN retries_used",
            "ALTER TABLE stream_groups DROP COLUMN max_deliveries",
            *_WITHOUT_TRACEPARENT,
        ],
    )
    async with _opened(sqlite_store_url) as upgraded:
        assert (await upgraded.get_message(retried.message_id)).retries_used == 1
        assert (await upgraded.get_message(fresh.message_id)).retries_used == 0
        claimed_again = await upgraded.claim_due_messages(
            now=time.time() + 3600, limit=10, lease_margin=30
        )
        assert all(message.lease_id is not None for message in claimed_again)
        assert {message.message_id for message in claimed_again} == {
            retried.message_id,
            fresh.message_id,
        }

        def version(connection: sqlite3.Connection, _now: float) -> int:
            return int(connection.execute("SELECT version FROM schema_version").fetchone()[0])

        assert await upgraded.run_transaction(version, write=False) == SCHEMA_VERSION == 10


async def test_a_file_of_schema_version_2_drops_its_response_records(sqlite_store_url: str) -> None:
    """Version 2 kept HTTP responses and "in progress" reservations; opening the file replaces
    that table with one of write results, so a reservation left by a killed process is gone and
    the repeat runs.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    await first.close()
    _rewind(
        sqlite_store_url,
        2,
        [
            "DROP TABLE idempotency",
            """CREATE TABLE idempotency (key TEXT PRIMARY KEY, request_hash TEXT NOT NULL,
                   status INTEGER, body BLOB, expires_at REAL NOT NULL) WITHOUT ROWID""",
            "INSERT INTO idempotency VALUES ('in-progress', 'hash-a', NULL, NULL, "
            f"{time.time() + 3600})",
            "ALTER TABLE stream_groups DROP COLUMN max_deliveries",
            *_WITHOUT_TRACEPARENT,
        ],
    )
    async with _opened(sqlite_store_url) as upgraded:
        claim = IdempotencyClaim(key="in-progress", request_hash="hash-a", ttl=60)
        result = await upgraded.append(
            "events", [1], trim=None, nomkstream=False, idempotency=claim
        )
        assert not result.replayed
        again = await upgraded.append("events", [1], trim=None, nomkstream=False, idempotency=claim)
        assert again.replayed


async def test_a_file_of_schema_version_3_keeps_its_groups_without_a_delivery_limit(
    sqlite_store_url: str,
) -> None:
    """Groups made before max_deliveries existed gain the column empty: they still deliver, and
    claim redelivers their entries without limit, as before.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    await first.append("orders", [1], trim=None, nomkstream=False)
    await first.close()
    _rewind(
        sqlite_store_url,
        3,
        [
            "DROP TABLE rate_buckets",
            "ALTER TABLE stream_groups DROP COLUMN max_deliveries",
            "INSERT INTO stream_groups (stream, name, last_ms, last_seq) VALUES ('orders', 'old', 0, 0)",
            *_WITHOUT_TRACEPARENT,
        ],
    )
    async with _opened(sqlite_store_url) as upgraded:
        [group] = (await upgraded.stream_info("orders")).groups
        assert group.max_deliveries is None
        await upgraded.read_group("orders", "old", consumer="a", count=10, wait_ms=0)
        for times in range(2, 6):
            claimed = await upgraded.claim(
                "orders", "old", consumer="a", min_idle_ms=0, count=10, start_id="0"
            )
            assert [entry.delivery_count for entry in claimed.entries] == [times]
            assert claimed.dead_lettered_ids == []
        assert await upgraded.take_rate_token("t", per_second=1, burst=1) == 0


async def test_a_file_of_schema_version_4_keeps_its_items_without_a_traceparent(
    sqlite_store_url: str,
) -> None:
    """Entries, jobs and messages written before trace propagation gain the column empty: they
    read back (ranged, delivered, leased, fetched) with no traceparent, and new ones keep theirs.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    await first.append("orders", [1], trim=None, nomkstream=False)
    await first.create_group("orders", "billing", start_id="0", mkstream=False)
    await first.put_queue("jobs", QueueSettings())
    [old_job] = await first.publish_jobs("jobs", [NewJob("t", 1)])
    [old_message] = await first.publish_messages([new_message()])
    await first.close()
    _rewind(sqlite_store_url, 4, _WITHOUT_TRACEPARENT)
    async with _opened(sqlite_store_url) as upgraded:
        [entry] = await upgraded.range("orders", start="-", end="+", count=10, reverse=False)
        assert entry.traceparent is None
        [delivered] = await upgraded.read_group(
            "orders", "billing", consumer="a", count=10, wait_ms=0
        )
        assert delivered.traceparent is None
        assert (await upgraded.get_job("jobs", old_job.job_id)).traceparent is None
        [leased] = await upgraded.lease_jobs(
            "jobs", consumer=None, topics=None, max_jobs=1, lease_seconds=None, wait_ms=0
        )
        assert leased.traceparent is None
        assert (await upgraded.get_message(old_message.message_id)).traceparent is None
        await upgraded.append("orders", [2], trim=None, nomkstream=False, traceparent=TRACEPARENT)
        [_, new_entry] = await upgraded.range("orders", start="-", end="+", count=10, reverse=False)
        assert new_entry.traceparent == TRACEPARENT


async def test_a_file_of_schema_version_5_gains_the_message_listing_indexes(
    sqlite_store_url: str,
) -> None:
    """The indexes that list messages by state and by URL group are made on open, and the
    listing reads through them.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    [receipt] = await first.publish_messages([new_message(url_group="partners")])
    await first.close()
    _rewind(
        sqlite_store_url,
        5,
        ["DROP INDEX messages_by_state", "DROP INDEX messages_by_url_group", *_WITHOUT_OPTIONS],
    )
    async with _opened(sqlite_store_url) as upgraded:

        def plans(connection: sqlite3.Connection, _now: float) -> list[str]:
            query = "EXPLAIN QUERY PLAN SELECT seq FROM messages WHERE {} ORDER BY seq DESC"
            return [
                str(connection.execute(query.format(condition), ("x",)).fetchone()["detail"])
                for condition in ("state = ?", "url_group = ?")
            ]

        assert await upgraded.run_transaction(plans, write=False) == [
            "SEARCH messages USING COVERING INDEX messages_by_state (state=?)",
            "SEARCH messages USING COVERING INDEX messages_by_url_group (url_group=?)",
        ]
        page = await upgraded.list_messages(
            where=MessageFilter(state="scheduled", url_group="partners"), limit=5, cursor=None
        )
        assert [message.message_id for message in page.messages] == [receipt.message_id]


async def test_a_file_without_the_dead_letters_index_gains_it_when_opened(
    sqlite_store_url: str,
) -> None:
    """Pages of dead letters go by filing time through an index, which a file made before it is
    given on open, whatever its schema version; the page reads the same.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    [receipt] = await first.publish_messages([new_message()])
    await first.close()
    path = sqlite_store_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO dead_letters (message_id, url, attempts, failed_at) VALUES (?, ?, 1, 1.0)",
            (receipt.message_id, "https://example.com/hook"),
        )
        connection.execute("DROP INDEX dead_letters_by_failure")
    connection.close()
    async with _opened(sqlite_store_url) as upgraded:

        def plan(connection: sqlite3.Connection, _now: float) -> str:
            query = """EXPLAIN QUERY PLAN SELECT seq FROM dead_letters
                WHERE (failed_at, seq) > (?, ?) AND failed_at <= ? ORDER BY failed_at, seq"""
            return str(connection.execute(query, (0.0, 0, 2.0)).fetchone()["detail"])

        assert await upgraded.run_transaction(plan, write=False) == (
            "SEARCH dead_letters USING COVERING INDEX dead_letters_by_failure "
            "(failed_at>? AND failed_at<?)"
        )
        page = await upgraded.list_dead_letters(limit=10)
        assert [letter.message_id for letter in page.dead_letters] == [receipt.message_id]


async def test_a_file_of_schema_version_6_keeps_its_messages_without_options(
    sqlite_store_url: str,
) -> None:
    """Messages written before callback headers gain the column empty: they read back with no
    callback headers, and new ones keep theirs.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    [old_message] = await first.publish_messages([new_message()])
    await first.close()
    _rewind(sqlite_store_url, 6, _WITHOUT_OPTIONS)
    async with _opened(sqlite_store_url) as upgraded:
        old = await upgraded.get_message(old_message.message_id)
        assert (old.callback_headers, old.failure_callback_headers) == ({}, {})
        [receipt] = await upgraded.publish_messages(
            [new_message(callback_headers={"Authorization": "Bearer ok"})]
        )
        new = await upgraded.get_message(receipt.message_id)
        assert new.callback_headers == {"Authorization": "Bearer ok"}


async def test_a_file_of_schema_version_8_keeps_its_messages_without_flow_control(
    sqlite_store_url: str,
) -> None:
    """Messages written before flow control gain the key's column empty: they are claimed as
    before, and new ones are held to their key's limits.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    [old_message] = await first.publish_messages([new_message()])
    await first.close()
    _rewind(sqlite_store_url, 8, _WITHOUT_FLOW_KEY)
    async with _opened(sqlite_store_url) as upgraded:
        assert (await upgraded.get_message(old_message.message_id)).flow_control is None
        limits = FlowControlLimits(key="acme", rate=1, period=60)
        await upgraded.publish_messages([new_message(flow_control=limits)] * 2)
        claimed = await upgraded.claim_due_messages(now=time.time(), limit=10, lease_margin=0)
        assert sorted(message.flow_control is None for message in claimed) == [False, True]
        assert (await upgraded.get_flow_control("acme")).waiting == 1


async def test_a_file_of_schema_version_9_keeps_its_messages_without_events(
    sqlite_store_url: str,
) -> None:
    """Messages written before the log gain no events of their past; what happens to them from
    now on is logged.
    """
    first = SQLiteStore.from_url(sqlite_store_url)
    await first.open()
    [old_message] = await first.publish_messages([new_message()])
    await first.close()
    _rewind(sqlite_store_url, 9, _WITHOUT_EVENTS)
    async with _opened(sqlite_store_url) as upgraded:
        assert (await upgraded.list_logs(limit=10, cursor=None)).events == []
        await upgraded.cancel_message(old_message.message_id)
        [event] = (await upgraded.list_logs(limit=10, cursor=None)).events
        assert (event.message_id, event.state) == (old_message.message_id, "cancelled")


async def test_expired_idempotency_records_are_deleted_by_later_writes(
    sqlite_store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An idempotent write deletes expired records (a batch at a time), so the table holds only
    what may still be replayed.
    """
    clock = FakeClock(time.time())
    monkeypatch.setattr(sqlite_store, "clock", clock)
    for number in range(3):
        claim = IdempotencyClaim(key=f"key-{number}", request_hash="hash", ttl=10)
        await sqlite_store.append(
            "events", [number], trim=None, nomkstream=False, idempotency=claim
        )
    clock.advance(10)
    fresh = IdempotencyClaim(key="fresh", request_hash="hash", ttl=10)
    await sqlite_store.append("events", [3], trim=None, nomkstream=False, idempotency=fresh)

    def keys(connection: sqlite3.Connection, _now: float) -> list[str]:
        return [row[0] for row in connection.execute("SELECT key FROM idempotency")]

    assert await sqlite_store.run_transaction(keys, write=False) == ["fresh"]


async def test_a_lock_held_past_the_busy_timeout_is_unavailable(sqlite_store_url: str) -> None:
    """A writer that another process keeps waiting past ``busy_timeout`` gets
    ``StoreUnavailableError`` and changes nothing; once the lock is free the store works again.
    """
    store = SQLiteStore(sqlite_store_url.removeprefix("sqlite:///"), busy_timeout=0.2)
    await store.open()
    other_process = sqlite3.connect(
        sqlite_store_url.removeprefix("sqlite:///"), isolation_level=None
    )
    try:
        other_process.execute("BEGIN IMMEDIATE")
        with pytest.raises(StoreUnavailableError) as raised:
            await store.append("events", [1], trim=None, nomkstream=False)
        assert (raised.value.code, raised.value.status) == ("unavailable", 503)
        assert "locked" in raised.value.detail
        other_process.execute("ROLLBACK")
        assert (await store.append("events", [2], trim=None, nomkstream=False)).length == 1
    finally:
        other_process.close()
        await store.close()


async def test_a_file_that_cannot_be_opened_is_unavailable(tmp_path: Path) -> None:
    """A path SQLite cannot open (here a directory) fails ``open`` with ``StoreUnavailableError``."""
    store = SQLiteStore(str(tmp_path))
    with pytest.raises(StoreUnavailableError) as raised:
        await store.open()
    assert raised.value.code == "unavailable"
    assert await store.ping() is False


async def test_a_closed_store_refuses_work(sqlite_store_url: str) -> None:
    """After ``close`` ping answers False and calls fail; closing again is harmless."""
    store = SQLiteStore.from_url(sqlite_store_url)
    await store.open()
    await store.close()
    await store.close()
    assert await store.ping() is False
    with pytest.raises(RuntimeError, match="not open"):
        await store.stream_info("events")


async def test_a_cancelled_wait_leaves_the_store_usable(sqlite_store: SQLiteStore) -> None:
    """Cancelling a long poll mid-wait does not disturb later calls."""
    await sqlite_store.create_group("events", "g", start_id="$", mkstream=True)
    waiting = asyncio.create_task(
        sqlite_store.read_group("events", "g", consumer="c", count=1, wait_ms=20_000)
    )
    await asyncio.sleep(0.1)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    result = await sqlite_store.append("events", [1], trim=None, nomkstream=False)
    assert result.length == 1


# Group commit ------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _worker_thread_held(store: SQLiteStore) -> AsyncIterator[None]:
    """Keep the store's worker thread busy with a read, so that writes queue up behind it."""
    holding, release = threading.Event(), threading.Event()

    def hold(_connection: sqlite3.Connection, _now: float) -> None:
        holding.set()
        release.wait()

    held = asyncio.ensure_future(store.run_transaction(hold, write=False))
    try:
        assert await asyncio.to_thread(holding.wait, 10)
        yield
    finally:
        release.set()
        await held


async def _traced(store: SQLiteStore, statements: list[str] | None) -> None:
    """Have the store's connection report each statement it runs to ``statements`` (None: stop)."""

    def trace(connection: sqlite3.Connection, _now: float) -> None:
        connection.set_trace_callback(None if statements is None else statements.append)

    await store.run_transaction(trace, write=False)


async def test_concurrent_writes_share_a_commit_and_fail_alone(
    sqlite_store: SQLiteStore, sqlite_store_url: str
) -> None:
    """Writes queued together run in one transaction; one that fails is undone alone, and the
    others are committed (a second store on the file reads them) when their callers return.
    """
    statements: list[str] = []
    await _traced(sqlite_store, statements)
    async with _worker_thread_held(sqlite_store):
        writes = [
            asyncio.ensure_future(
                sqlite_store.append(f"s{index}", [index], trim=None, nomkstream=False)
            )
            for index in range(10)
        ]
        missing = asyncio.ensure_future(
            sqlite_store.append("absent", [1], trim=None, nomkstream=True)
        )
        not_utf8 = asyncio.ensure_future(
            sqlite_store.append("bad\ud800", [1], trim=None, nomkstream=False)
        )
        await asyncio.sleep(0.05)
    results = await asyncio.gather(*writes)
    with pytest.raises(NotFoundError):
        await missing
    with pytest.raises(StoreError) as raised:
        await not_utf8
    await _traced(sqlite_store, None)
    assert raised.value.code == "validation_failed"
    # One write transaction, each of the 12 writes in a savepoint of its own within it.
    assert statements.count("BEGIN IMMEDIATE") == 1
    assert statements.count("SAVEPOINT spool_write") == 12
    assert [result.length for result in results] == [1] * 10
    other = SQLiteStore.from_url(sqlite_store_url)
    await other.open()
    try:
        for index in range(10):
            assert (await other.stream_info(f"s{index}")).length == 1
        with pytest.raises(NotFoundError):
            await other.stream_info("absent")
    finally:
        await other.close()


async def test_a_write_cancelled_before_its_transaction_writes_nothing(
    sqlite_store: SQLiteStore,
) -> None:
    """A caller cancelled while its write waits for the worker thread leaves nothing behind."""
    async with _worker_thread_held(sqlite_store):
        cancelled = asyncio.ensure_future(
            sqlite_store.append("events", [1], trim=None, nomkstream=False)
        )
        await asyncio.sleep(0.05)
        cancelled.cancel()
        kept = asyncio.ensure_future(sqlite_store.append("kept", [1], trim=None, nomkstream=False))
        await asyncio.sleep(0.05)
    assert (await kept).length == 1
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    with pytest.raises(NotFoundError):
        await sqlite_store.stream_info("events")


# Ids and trimming --------------------------------------------------------------------------


async def test_a_clock_step_back_keeps_the_last_ms_and_raises_the_sequence(
    sqlite_store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the clock goes back the new id is ``<last ms>-<seq + 1>``; later time resets seq."""
    clock = FakeClock(1_800_000_000.0)
    monkeypatch.setattr(sqlite_store, "clock", clock)

    async def append_one() -> str:
        return (await sqlite_store.append("events", [1], trim=None, nomkstream=False)).ids[0]

    assert await append_one() == "1800000000000-0"
    assert await append_one() == "1800000000000-1"
    clock.advance(-10)
    assert await append_one() == "1800000000000-2"
    clock.advance(11)
    assert await append_one() == "1800000001000-0"


@pytest.mark.parametrize(
    ("maxlen", "slack"),
    [(0, 10), (5, 10), (100, 10), (150, 15), (1000, 100), (10_000, 1000), (10**9, 1000)],
)
def test_the_approximate_slack_rule(maxlen: int, slack: int) -> None:
    """The slack is ``min(1000, max(10, maxlen // 10))``."""
    assert approximate_trim_slack(maxlen) == slack


@pytest.mark.parametrize(("maxlen", "batch"), [(0, 1), (20, 1), (20, 7), (300, 45)])
async def test_approximate_trimming_stays_within_maxlen_plus_slack(
    sqlite_store: SQLiteStore, maxlen: int, batch: int
) -> None:
    """After every approximate append a stream holds between ``maxlen`` and ``maxlen + slack``."""
    ceiling = maxlen + approximate_trim_slack(maxlen)
    appended = 0
    for _ in range(3 * ceiling // batch + 3):
        result = await sqlite_store.append(
            "events", [0] * batch, trim=Trim(maxlen=maxlen), nomkstream=False
        )
        appended += batch
        assert min(maxlen, appended) <= result.length <= ceiling
    assert appended > ceiling


async def test_approximate_trimming_waits_for_the_slack_then_cuts_to_maxlen(
    sqlite_store: SQLiteStore,
) -> None:
    """Entries pile up to ``maxlen + slack``; the next append cuts the stream to exactly ``maxlen``."""
    trim = Trim(maxlen=20)
    lengths = [
        (await sqlite_store.append("events", [0], trim=trim, nomkstream=False)).length
        for _ in range(31)
    ]
    assert lengths == [*range(1, 31), 20]


# Retention ---------------------------------------------------------------------------------


async def test_finished_jobs_are_purged_after_their_retention(
    sqlite_store: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A later write to the queue deletes succeeded and dead jobs older than retention_seconds."""
    clock = FakeClock(1_800_000_000.0)
    monkeypatch.setattr(sqlite_store, "clock", clock)
    await sqlite_store.put_queue("work", QueueSettings(max_attempts=1, retention_seconds=60))
    done, dead, kept = await sqlite_store.publish_jobs(
        "work", [NewJob(topic="t", payload=n) for n in range(3)]
    )
    first, second = await sqlite_store.lease_jobs(
        "work", consumer=None, topics=["t"], max_jobs=2, lease_seconds=5, wait_ms=0
    )
    await sqlite_store.ack_job("work", first.job_id, first.lease_id)
    await sqlite_store.nack_job("work", second.job_id, second.lease_id, retry_delay=0, error="x")
    clock.advance(59)
    await sqlite_store.publish_jobs("work", [NewJob(topic="t", payload="later")])
    assert (await sqlite_store.get_job("work", done.job_id)).state == "succeeded"
    clock.advance(2)
    await sqlite_store.publish_jobs("work", [NewJob(topic="t", payload="later")])
    for purged in (done.job_id, dead.job_id):
        with pytest.raises(NotFoundError):
            await sqlite_store.get_job("work", purged)
    assert (await sqlite_store.get_job("work", kept.job_id)).state == "ready"


# Several processes -------------------------------------------------------------------------


def run_python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter at the repository root."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
async def test_an_answered_append_survives_kill_9(sqlite_store_url: str) -> None:
    """An append that returned is on disk even when its process is killed right after."""
    killed = run_python(
        """
        import asyncio, os, signal, sys
        from server.stores.sqlite import SQLiteStore

        async def main():
            store = SQLiteStore.from_url(sys.argv[1])
            await store.open()
            result = await store.append("events", [{"n": 1}], trim=None, nomkstream=False)
            print(result.ids[0], flush=True)
            os.kill(os.getpid(), signal.SIGKILL)

        asyncio.run(main())
        """,
        sqlite_store_url,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    store = SQLiteStore.from_url(sqlite_store_url)
    await store.open()
    try:
        entries = await store.range("events", start="-", end="+", count=10, reverse=False)
    finally:
        await store.close()
    assert [(entry.id, entry.body) for entry in entries] == [(killed.stdout.strip(), {"n": 1})]


@pytest.mark.slow
async def test_processes_sharing_the_file_never_lease_one_job_twice(sqlite_store_url: str) -> None:
    """Workers in separate processes drain one queue without ever sharing a job."""
    store = SQLiteStore.from_url(sqlite_store_url)
    await store.open()
    try:
        await store.put_queue("work", QueueSettings())
        receipts = await store.publish_jobs(
            "work", [NewJob(topic="t", payload=n) for n in range(90)]
        )
    finally:
        await store.close()
    worker = """
        import asyncio, json, sys
        from server.stores.sqlite import SQLiteStore

        async def main():
            store = SQLiteStore.from_url(sys.argv[1])
            await store.open()
            leased = []
            while batch := await store.lease_jobs(
                "work", consumer=None, topics=None, max_jobs=2, lease_seconds=600, wait_ms=0
            ):
                leased += [job.job_id for job in batch]
            await store.close()
            print(json.dumps(leased))

        asyncio.run(main())
    """
    results = await asyncio.gather(
        *(asyncio.to_thread(run_python, worker, sqlite_store_url) for _ in range(3))
    )
    leased = [job_id for result in results for job_id in json.loads(result.stdout)]
    assert len(leased) == len(set(leased))
    assert sorted(leased) == sorted(receipt.job_id for receipt in receipts)


_OPEN_TOGETHER = textwrap.dedent(
    """
    import asyncio, sys, time
    from server.stores.sqlite import SQLiteStore

    async def main() -> None:
        start_at = float(sys.argv[2])
        # Sleep until just before the start and spin only then: all twelve spinning the whole
        # wait cost seven seconds of CPU, for a precision that sleeping alone would lose.
        time.sleep(max(0.0, start_at - time.time() - 0.02))
        while time.time() < start_at:
            pass
        store = SQLiteStore.from_url(sys.argv[1])
        await store.open()
        await store.close()

    asyncio.run(main())
    """
)


@pytest.mark.slow
def test_processes_opening_one_new_file_together_all_start(tmp_path: Path) -> None:
    """Several processes (like --workers) opening a brand-new file at once all get it in WAL mode."""
    for round_number in range(3):
        url = f"sqlite:///{tmp_path / f'together-{round_number}.db'}"
        start_at = time.time() + 1.5
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", _OPEN_TOGETHER, url, str(start_at)],
                cwd=ROOT,
                stderr=subprocess.PIPE,
            )
            for _ in range(4)
        ]
        failures = [
            stderr.decode()
            for process in processes
            for _, stderr in [process.communicate(timeout=60)]
            if process.returncode != 0
        ]
        assert not failures, failures[0]
