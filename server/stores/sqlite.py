"""The embedded store: one SQLite file that several processes may share.

URLs: ``sqlite:///relative/path.db`` (relative to the working directory), ``sqlite:////abs/path.db``
(absolute), or ``sqlite:///:memory:`` (one private in-memory database, for experiments). The parent
directory is created on ``open()``.

Durability: the file runs in WAL mode with ``synchronous=FULL``, so a commit is on disk before the
method returns, and a 2xx built from a store answer survives a crash of the process or the machine.
Every method is one transaction (``BEGIN IMMEDIATE`` for writers, so two processes never interleave
their read-then-write steps, e.g. never lease one job twice); any error rolls it back whole.
Writes that arrive while another is running share the next transaction (group commit): each runs
in a savepoint of its own, so a failing one is undone alone, and each caller returns only after the
``COMMIT`` that made its own write durable. One commit, the cost of a write, then serves many. A
writer waits up to ``busy_timeout`` (30 s by default) for another process's transaction; past that,
or when the file cannot be read, written or opened, the call raises ``StoreUnavailableError``.

The schema is versioned (``SCHEMA_VERSION``): opening a file that an earlier version made upgrades
it in place, in the same transaction that checks the version; a file from a newer version is
refused.

The event loop never waits on I/O: each store owns one connection used only by one private worker
thread, to which every transaction is handed. Because that thread runs transactions one after the
other, a caller that is cancelled mid-call cannot leave the connection half-used.

Time: the store reads the time only through ``self._clock`` (default ``time.time``), inside the
transaction. Tests replace it to step time forwards or backwards; waits (``wait_ms``) use the
monotonic clock instead, so a frozen test clock cannot stretch them.

Stream ids are ``<ms>-<seq>`` from ``self._clock``. Each stream keeps its last id, so a new id is
``<now_ms>-0`` when ``now_ms`` is later than the last id's milliseconds, else ``<last_ms>-<seq+1>``:
strictly increasing even when the clock steps back, and even after every entry was trimmed.
Id parts run to 2**64 - 1, as in Redis; SQLite's integers stop at 2**63 - 1. No generated id gets
near that, so an id given as a bound compares as if its larger parts were 2**63 - 1, which changes
no answer; a group's position, which is shown back, keeps its parts whole: those above 2**63 - 1 are
stored as the negative integers with the same 64 bits.

Approximate trimming (``Trim(maxlen=n, approximate=True)``) lets the stream grow to
``n + approximate_trim_slack(n)`` entries, where the slack is ``min(1000, max(10, n // 10))``, and
only when it exceeds that trims it to exactly ``n``. So after any call that trims approximately, a
stream that had at least ``n`` entries has between ``n`` and ``n + slack`` of them; the slack turns
one ``DELETE`` per append into one per ``slack`` appends. Exact trimming keeps exactly ``n``. A
``minid`` trim is always exact: it drops every id below ``minid`` (a bare ``ms`` means ``ms-0``).

Queues: a job's ``max_attempts`` is its queue's current setting. Succeeded and dead jobs whose
``retention_seconds`` have passed, deduplication ids older than the window, and expired idempotency
records are deleted lazily by later writes to the same queue or table.

Dead letters: a claim that dead-letters entries (a group's ``max_deliveries``) appends them to the
stream ``<stream>.dead`` in its own transaction, so an entry is never both pending and dead.

Rate limits: a bucket is one ``rate_buckets`` row, refilled and taken from in one transaction by
``self._clock``; the processes sharing a file are on one machine, so they share that clock.

Idempotency: an idempotent write (``IdempotencyClaim``) looks its key up, does its work and records
its result as JSON in the ``idempotency`` table, all in the write's one transaction. A record whose
``expires_at`` has passed is ignored by the lookup (and replaced), and every idempotent write deletes
up to ``PURGE_BATCH`` expired records.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import json
import math
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar
from urllib.parse import unquote, urlsplit

from ..ids import new_id
from . import InvalidStoreURL
from .base import (
    JSON,
    MAX_ID_PART,
    AppendResult,
    ClaimResult,
    ConflictError,
    DeadLetterRecord,
    DeliveredEntry,
    DeliveryAttemptRecord,
    Entry,
    GroupInfo,
    IdempotencyClaim,
    JobReceipt,
    JobRecord,
    JobState,
    LeasedJob,
    MessageLease,
    MessageReceipt,
    MessageRecord,
    NewJob,
    NewMessage,
    NotFoundError,
    PendingEntry,
    QueueRecord,
    QueueSettings,
    QueueStats,
    Store,
    StoreError,
    StoreUnavailableError,
    StreamInfo,
    Trim,
    TrimResult,
    UrlEndpoint,
    UrlGroupRecord,
    check_max_deliveries,
    check_queue_settings,
    check_token_bucket,
    dead_letter_stream,
    entry_id_parts,
)

__all__ = [
    "APPROXIMATE_TRIM_MAX_SLACK",
    "APPROXIMATE_TRIM_MIN_SLACK",
    "POLL_INTERVAL_SECONDS",
    "SCHEMA_VERSION",
    "SQLiteStore",
    "approximate_trim_slack",
]

SCHEMA_VERSION = 4
APPROXIMATE_TRIM_MIN_SLACK = 10
APPROXIMATE_TRIM_MAX_SLACK = 1000
# How often a long poll looks again: other processes sharing the file cannot wake this one.
POLL_INTERVAL_SECONDS = 0.05
# Writers queue behind each other's BEGIN IMMEDIATE; this is how long one waits for the lock.
BUSY_TIMEOUT_SECONDS = 30.0
# Expired rows deleted per write, so the clean-up never makes one call slow.
PURGE_BATCH = 500
# SQLite's primary result codes for a file that cannot be used now (rather than a faulty request):
# busy or locked past the busy timeout, an I/O error, a full disk, a file that cannot be opened.
_UNAVAILABLE_CODES = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
    }
)

_LARGEST_INTEGER = 2**63 - 1
_MEMORY = ":memory:"

_T = TypeVar("_T")
_Work = Callable[[sqlite3.Connection, float], _T]
# A transaction of grouped writes holds the file's write lock for all of them; this bounds how long
# another process waits behind one group.
MAX_WRITES_PER_TRANSACTION = 256


def _as_store_error(error: BaseException) -> BaseException:
    """What a caller sees of an error from its transaction's work."""
    if isinstance(error, UnicodeEncodeError):
        translated = StoreError("validation_failed", f"text that is not valid UTF-8: {error}")
        translated.__cause__ = error
        return translated
    return error


def _settle_writes(outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for future, result, error in outcomes:
        if future.done():
            continue
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)


@dataclasses.dataclass(frozen=True, slots=True)
class _PendingWrite:
    """A write waiting for the next transaction, and the future its caller awaits."""

    work: _Work[Any]
    future: asyncio.Future[Any]


_EntryId = tuple[int, int]

# An idempotency record keeps the result of the write that made it, as JSON. Its scope is what
# the write changed (``stream:<name>``, ``queue:<name>`` or ``messages``), as Redis keeps each
# record in the slot of its stream, its queue or the messages.
_IDEMPOTENCY_TABLE = """CREATE TABLE IF NOT EXISTS idempotency (
        scope TEXT NOT NULL,
        key TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        result TEXT NOT NULL,
        expires_at REAL NOT NULL,
        PRIMARY KEY (scope, key)
    ) WITHOUT ROWID"""
_IDEMPOTENCY_INDEX = "CREATE INDEX IF NOT EXISTS idempotency_by_expiry ON idempotency (expires_at)"

_SCHEMA: tuple[str, ...] = (
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    # Streams ---------------------------------------------------------------------------
    """CREATE TABLE IF NOT EXISTS streams (
        name TEXT PRIMARY KEY,
        last_ms INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        length INTEGER NOT NULL,
        created_at REAL NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS stream_entries (
        stream TEXT NOT NULL REFERENCES streams (name) ON DELETE CASCADE,
        ms INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (stream, ms, seq)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS stream_groups (
        stream TEXT NOT NULL REFERENCES streams (name) ON DELETE CASCADE,
        name TEXT NOT NULL,
        last_ms INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        max_deliveries INTEGER,
        PRIMARY KEY (stream, name)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS stream_consumers (
        stream TEXT NOT NULL,
        grp TEXT NOT NULL,
        consumer TEXT NOT NULL,
        PRIMARY KEY (stream, grp, consumer),
        FOREIGN KEY (stream, grp) REFERENCES stream_groups (stream, name) ON DELETE CASCADE
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS stream_pending (
        stream TEXT NOT NULL,
        grp TEXT NOT NULL,
        ms INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        consumer TEXT NOT NULL,
        delivery_count INTEGER NOT NULL,
        delivered_ms INTEGER NOT NULL,
        PRIMARY KEY (stream, grp, ms, seq),
        FOREIGN KEY (stream, grp) REFERENCES stream_groups (stream, name) ON DELETE CASCADE
    ) WITHOUT ROWID""",
    # Queues ----------------------------------------------------------------------------
    """CREATE TABLE IF NOT EXISTS queues (
        name TEXT PRIMARY KEY,
        max_attempts INTEGER NOT NULL,
        lease_seconds INTEGER NOT NULL,
        retention_seconds INTEGER NOT NULL,
        deduplication_window_seconds INTEGER NOT NULL,
        created_at REAL NOT NULL
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS jobs (
        seq INTEGER PRIMARY KEY,
        job_id TEXT NOT NULL UNIQUE,
        queue TEXT NOT NULL REFERENCES queues (name) ON DELETE CASCADE,
        topic TEXT NOT NULL,
        payload TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('ready', 'leased', 'succeeded', 'dead')),
        attempts INTEGER NOT NULL,
        published_at REAL NOT NULL,
        available_at REAL NOT NULL,
        lease_id TEXT,
        lease_expires_at REAL,
        lease_consumer TEXT,
        last_error TEXT,
        deduplication_id TEXT,
        finished_at REAL
    )""",
    "CREATE INDEX IF NOT EXISTS jobs_by_queue_state ON jobs (queue, state, seq)",
    """CREATE INDEX IF NOT EXISTS jobs_by_finish ON jobs (queue, finished_at)
        WHERE finished_at IS NOT NULL""",
    """CREATE TABLE IF NOT EXISTS job_deduplication (
        queue TEXT NOT NULL REFERENCES queues (name) ON DELETE CASCADE,
        deduplication_id TEXT NOT NULL,
        job_id TEXT NOT NULL,
        seen_at REAL NOT NULL,
        PRIMARY KEY (queue, deduplication_id)
    ) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS job_deduplication_by_age ON job_deduplication (queue, seen_at)",
    # Messages --------------------------------------------------------------------------
    """CREATE TABLE IF NOT EXISTS messages (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL UNIQUE,
        url TEXT NOT NULL,
        body BLOB NOT NULL,
        content_type TEXT NOT NULL,
        method TEXT NOT NULL,
        headers TEXT NOT NULL,
        state TEXT NOT NULL
            CHECK (state IN ('scheduled', 'delivering', 'delivered', 'failed', 'cancelled')),
        retries INTEGER NOT NULL,
        timeout INTEGER NOT NULL,
        created_at REAL NOT NULL,
        not_before REAL NOT NULL,
        next_attempt_at REAL,
        url_group TEXT,
        retry_delay TEXT,
        callback TEXT,
        failure_callback TEXT,
        deduplication_id TEXT,
        lease_id TEXT,
        retries_used INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE INDEX IF NOT EXISTS messages_due ON messages (next_attempt_at, seq)
        WHERE state IN ('scheduled', 'delivering')""",
    """CREATE TABLE IF NOT EXISTS message_attempts (
        message_id TEXT NOT NULL REFERENCES messages (message_id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        attempt INTEGER NOT NULL,
        started_at REAL NOT NULL,
        duration_ms INTEGER NOT NULL,
        status_code INTEGER,
        response_excerpt TEXT,
        error TEXT,
        PRIMARY KEY (message_id, position)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS message_deduplication (
        dedup_key TEXT PRIMARY KEY,
        message_id TEXT NOT NULL,
        created_at REAL NOT NULL,
        expires_at REAL NOT NULL
    ) WITHOUT ROWID""",
    """CREATE INDEX IF NOT EXISTS message_deduplication_by_expiry
        ON message_deduplication (expires_at)""",
    """CREATE TABLE IF NOT EXISTS dead_letters (
        seq INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL UNIQUE REFERENCES messages (message_id) ON DELETE CASCADE,
        url TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        failed_at REAL NOT NULL,
        last_error TEXT,
        last_status_code INTEGER
    )""",
    """CREATE TABLE IF NOT EXISTS url_groups (
        name TEXT PRIMARY KEY,
        endpoints TEXT NOT NULL,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    ) WITHOUT ROWID""",
    # Idempotency and quotas ------------------------------------------------------------
    _IDEMPOTENCY_TABLE,
    _IDEMPOTENCY_INDEX,
    """CREATE TABLE IF NOT EXISTS quotas (
        token_id TEXT PRIMARY KEY,
        used INTEGER NOT NULL
    ) WITHOUT ROWID""",
    # Rate limits: a token bucket per key, as it was at ``updated_at``.
    """CREATE TABLE IF NOT EXISTS rate_buckets (
        key TEXT PRIMARY KEY,
        tokens REAL NOT NULL,
        updated_at REAL NOT NULL
    ) WITHOUT ROWID""",
)

# A job's state as readers see it: stored states plus the two that only time changes.
_EFFECTIVE_JOB_STATE = """
    CASE
        WHEN jobs.state = 'ready' AND jobs.available_at > :now THEN 'delayed'
        WHEN jobs.state = 'leased' AND jobs.lease_expires_at <= :now THEN
            CASE WHEN jobs.attempts >= queues.max_attempts THEN 'dead' ELSE 'ready' END
        ELSE jobs.state
    END
"""

_JOB_COLUMNS = f"""
    jobs.job_id, jobs.queue, jobs.topic, jobs.payload, jobs.attempts, jobs.published_at,
    jobs.available_at, jobs.lease_expires_at, jobs.lease_consumer, jobs.last_error,
    jobs.deduplication_id, queues.max_attempts, {_EFFECTIVE_JOB_STATE} AS effective_state
"""

# What each schema version adds to a file that an earlier version made (``_SCHEMA`` creates only
# what is missing, so a new column of an existing table needs its own statement here).
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (
        "ALTER TABLE messages ADD COLUMN lease_id TEXT",
        "ALTER TABLE messages ADD COLUMN retries_used INTEGER NOT NULL DEFAULT 0",
        # The delivery engine's rule before the store kept the count: a message fails after exactly
        # retries + 1 attempts, so earlier budgets used whole multiples of that.
        """UPDATE messages SET retries_used = (
               SELECT COUNT(*) FROM message_attempts
               WHERE message_attempts.message_id = messages.message_id
           ) % (retries + 1)""",
    ),
    # Records held HTTP responses, or nothing while their request was in progress; now they hold
    # the write's result, recorded in the write's transaction. The old ones are dropped rather
    # than converted: a repeat of a publish answered before the upgrade runs again.
    3: ("DROP TABLE idempotency", _IDEMPOTENCY_TABLE, _IDEMPOTENCY_INDEX),
    # Groups made before max_deliveries deliver without a limit, as they did.
    4: ("ALTER TABLE stream_groups ADD COLUMN max_deliveries INTEGER",),
}


def approximate_trim_slack(maxlen: int) -> int:
    """How many entries above ``maxlen`` an approximate trim tolerates before it trims."""
    return min(APPROXIMATE_TRIM_MAX_SLACK, max(APPROXIMATE_TRIM_MIN_SLACK, maxlen // 10))


class SQLiteStore(Store):
    """The embedded store on one SQLite file."""

    kind: ClassVar[Literal["sqlite", "redis"]] = "sqlite"

    def __init__(self, path: str, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        self._path = path
        self._busy_timeout = busy_timeout
        self._clock: Callable[[], float] = time.time
        self._connection: sqlite3.Connection | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._changed = asyncio.Event()
        # Filled by the event loop, drained by the worker thread. ``_writing`` says a drain is
        # submitted and has not yet found the queue empty, so each write needs no job of its own.
        self._pending_lock = threading.Lock()
        self._pending_writes: collections.deque[_PendingWrite] = collections.deque()
        self._writing = False

    @classmethod
    def from_url(cls, url: str) -> SQLiteStore:
        """Build a store from ``sqlite:///path``; see the module docstring for the forms."""
        parts = urlsplit(url)
        if parts.scheme != "sqlite":
            raise InvalidStoreURL(f"{url!r} is not an sqlite:// URL")
        if parts.netloc:
            raise InvalidStoreURL(
                f"{url!r} names a host; write sqlite:///relative.db or sqlite:////absolute.db"
            )
        if parts.query or parts.fragment:
            raise InvalidStoreURL(f"{url!r}: the SQLite store takes no query or fragment")
        path = unquote(parts.path)[1:]
        if not path:
            raise InvalidStoreURL(f"{url!r} names no file; write sqlite:///path/to/spool.db")
        return cls(path)

    # Life cycle ----------------------------------------------------------------------------

    async def open(self) -> None:
        """Open the file (creating it, its directory and its tables when missing)."""
        if self._executor is not None:
            raise RuntimeError("the SQLite store is already open")
        executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="spool-sqlite")
        try:
            with self._unavailable_on_outage():
                self._connection = await asyncio.get_running_loop().run_in_executor(
                    executor, self._connect
                )
        except BaseException:
            executor.shutdown(wait=False)
            raise
        self._executor = executor

    async def close(self) -> None:
        """Close the connection and stop the worker thread; closing twice is harmless."""
        executor, connection = self._executor, self._connection
        self._executor = self._connection = None
        if executor is None:
            return
        try:
            if connection is not None:
                await asyncio.get_running_loop().run_in_executor(executor, connection.close)
        finally:
            executor.shutdown(wait=False)

    async def ping(self) -> bool:
        """Run ``SELECT 1``; False when the store is closed or the file cannot be read."""
        if self._executor is None:
            return False
        try:
            return await self._run(_select_one, write=False)
        except (sqlite3.Error, StoreUnavailableError):
            return False

    def _connect(self) -> sqlite3.Connection:
        if self._path != _MEMORY:
            Path(self._path).parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self._path, timeout=self._busy_timeout, isolation_level=None)
        try:
            connection.row_factory = sqlite3.Row
            mode = self._enable_wal(connection)
            if self._path != _MEMORY and str(mode).lower() != "wal":
                raise RuntimeError(f"{self._path}: SQLite refused WAL mode (got {mode!r})")
            connection.execute("PRAGMA synchronous = FULL")
            connection.execute("PRAGMA foreign_keys = ON")
            self._create_schema(connection)
        except BaseException:
            connection.close()
            raise
        return connection

    def _enable_wal(self, connection: sqlite3.Connection) -> object:
        # Switching a new file to WAL needs it to itself for a moment, and SQLite answers "locked"
        # at once instead of going through the busy handler; processes starting together (several
        # workers on one new file) would fail, so wait for the switch as long as for any lock.
        deadline = time.monotonic() + self._busy_timeout
        while True:
            try:
                return connection.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            except sqlite3.OperationalError as error:
                message = str(error).lower()
                if ("locked" not in message and "busy" not in message) or (
                    time.monotonic() >= deadline
                ):
                    raise
                time.sleep(0.01)

    def _create_schema(self, connection: sqlite3.Connection) -> None:
        connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA:
                connection.execute(statement)
            row = connection.execute("SELECT version FROM schema_version").fetchone()
            if row is None:
                connection.execute(
                    "INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,)
                )
            elif row["version"] > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self._path} has schema version {row['version']}, newer than this Spool's "
                    f"{SCHEMA_VERSION}; upgrade Spool to open it"
                )
            elif row["version"] < SCHEMA_VERSION:
                for version in range(row["version"] + 1, SCHEMA_VERSION + 1):
                    for statement in _MIGRATIONS[version]:
                        connection.execute(statement)
                connection.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
            connection.execute("COMMIT")
        except BaseException:
            connection.execute("ROLLBACK")
            raise

    # Running transactions ------------------------------------------------------------------

    async def _run(self, work: _Work[_T], *, write: bool = True) -> _T:
        if self._executor is None:
            raise RuntimeError("the SQLite store is not open")
        loop = asyncio.get_running_loop()
        with self._unavailable_on_outage():
            if not write:
                return await loop.run_in_executor(self._executor, self._transaction, work, False)
            future: asyncio.Future[_T] = loop.create_future()
            with self._pending_lock:
                if not self._writing:
                    # Submitted first: on a shut-down executor it raises, leaving nothing queued.
                    self._executor.submit(self._write_pending, loop, self._executor)
                    self._writing = True
                self._pending_writes.append(_PendingWrite(work, future))
            return await future

    @contextlib.contextmanager
    def _unavailable_on_outage(self) -> Iterator[None]:
        """Turn SQLite failing to use the file (not the request) into ``StoreUnavailableError``."""
        try:
            yield
        except sqlite3.OperationalError as error:
            # Extended result codes keep the primary code in their low byte.
            if error.sqlite_errorcode & 0xFF not in _UNAVAILABLE_CODES:
                raise
            raise StoreUnavailableError(
                f"the SQLite file {self._path!r} cannot be used now: {error}"
            ) from error

    def _write_pending(self, loop: asyncio.AbstractEventLoop, executor: ThreadPoolExecutor) -> None:
        """Run the waiting writes in one transaction and hand each caller its own outcome."""
        group: list[_PendingWrite] = []
        with self._pending_lock:
            while self._pending_writes and len(group) < MAX_WRITES_PER_TRANSACTION:
                pending = self._pending_writes.popleft()
                # A caller cancelled before its write began has nothing written, as if ungrouped.
                if not pending.future.cancelled():
                    group.append(pending)
            if self._pending_writes:
                # Queued behind this group: the executor runs one job at a time, in order.
                executor.submit(self._write_pending, loop, executor)
            else:
                self._writing = False
        if not group:
            return
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]]
        try:
            if len(group) == 1:
                outcomes = [(group[0].future, self._transaction(group[0].work, True), None)]
            else:
                outcomes = self._grouped_transaction(group)
        except BaseException as error:
            outcomes = [(pending.future, None, error) for pending in group]
        loop.call_soon_threadsafe(_settle_writes, outcomes)

    def _grouped_transaction(
        self, group: list[_PendingWrite]
    ) -> list[tuple[asyncio.Future[Any], Any, BaseException | None]]:
        connection = self._connection
        if connection is None:
            raise RuntimeError("the SQLite store is closed")
        outcomes: list[tuple[asyncio.Future[Any], Any, BaseException | None]] = []
        connection.execute("BEGIN IMMEDIATE")
        try:
            for pending in group:
                connection.execute("SAVEPOINT spool_write")
                try:
                    result = pending.work(connection, self._clock())
                except Exception as error:
                    connection.execute("ROLLBACK TO spool_write")
                    connection.execute("RELEASE spool_write")
                    outcomes.append((pending.future, None, _as_store_error(error)))
                else:
                    connection.execute("RELEASE spool_write")
                    outcomes.append((pending.future, result, None))
            connection.execute("COMMIT")
        except BaseException:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        return outcomes

    def _transaction(self, work: _Work[_T], write: bool) -> _T:
        connection = self._connection
        if connection is None:
            raise RuntimeError("the SQLite store is closed")
        connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            result = work(connection, self._clock())
            connection.execute("COMMIT")
        except BaseException as error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            translated = _as_store_error(error)
            if translated is error:
                raise
            raise translated from error
        return result

    def _notify(self) -> None:
        """Wake this process's long polls: something may have become available."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def _poll(self, attempt: Callable[[], Awaitable[list[_T]]], wait_ms: int) -> list[_T]:
        """Call ``attempt`` until it finds something or ``wait_ms`` has passed."""
        deadline = time.monotonic() + max(wait_ms, 0) / 1000
        while True:
            changed = self._changed
            found = await attempt()
            remaining = deadline - time.monotonic()
            if found or remaining <= 0:
                return found
            try:
                await asyncio.wait_for(
                    changed.wait(), timeout=min(POLL_INTERVAL_SECONDS, remaining)
                )
            except TimeoutError:
                pass

    async def _write_once(
        self,
        idempotency: IdempotencyClaim | None,
        scope: str,
        work: _Work[_T],
        *,
        remember: Callable[[_T], JSON],
        replay: Callable[[Any], _T],
    ) -> _T:
        """Run the write ``work`` in one transaction, at most once per ``idempotency`` key within
        ``scope`` (see ``IdempotencyClaim``): ``remember`` turns its result into JSON to keep,
        ``replay`` turns that back into the result, marked replayed.
        """
        if idempotency is None:
            return await self._run(work)
        claim = idempotency

        def once(connection: sqlite3.Connection, now: float) -> _T:
            record = connection.execute(
                """SELECT request_hash, result FROM idempotency
                   WHERE scope = ? AND key = ? AND expires_at > ?""",
                (scope, claim.key, now),
            ).fetchone()
            if record is not None:
                if record["request_hash"] != claim.request_hash:
                    raise _key_reused()
                return replay(json.loads(record["result"]))
            if claim.replay_only:
                raise _nothing_to_replay()
            result = work(connection, now)
            connection.execute(
                """DELETE FROM idempotency WHERE (scope, key) IN (
                       SELECT scope, key FROM idempotency WHERE expires_at <= ? LIMIT ?)""",
                (now, PURGE_BATCH),
            )
            connection.execute(
                """INSERT OR REPLACE INTO idempotency (scope, key, request_hash, result, expires_at)
                   VALUES (?, ?, ?, ?, ?)""",
                (
                    scope,
                    claim.key,
                    claim.request_hash,
                    json.dumps(remember(result)),
                    now + claim.ttl,
                ),
            )
            return result

        return await self._run(once)

    # Streams -------------------------------------------------------------------------------

    async def append(
        self,
        stream: str,
        bodies: Sequence[JSON],
        *,
        trim: Trim | None,
        nomkstream: bool,
        idempotency: IdempotencyClaim | None = None,
    ) -> AppendResult:
        """Append ``bodies`` under new ids, then trim; see the module docstring for both rules."""
        encoded = [_dump_json(body, what="an entry body") for body in bodies]
        if trim is not None:
            _check_trim(trim)

        def work(connection: sqlite3.Connection, now: float) -> AppendResult:
            ids, length = _append_entries(connection, stream, encoded, now, nomkstream=nomkstream)
            trimmed = 0
            if trim is not None:
                length, trimmed = _trim_entries(connection, stream, trim, length)
                connection.execute("UPDATE streams SET length = ? WHERE name = ?", (length, stream))
            return AppendResult(ids=ids, length=length, trimmed=trimmed)

        result = await self._write_once(
            idempotency,
            f"stream:{stream}",
            work,
            remember=lambda result: [result.ids, result.length, result.trimmed],
            replay=lambda kept: AppendResult(
                ids=kept[0], length=kept[1], trimmed=kept[2], replayed=True
            ),
        )
        self._notify()
        return result

    async def stream_info(self, stream: str) -> StreamInfo:
        """The stream's length, first and last entry ids, and groups by name."""

        def work(connection: sqlite3.Connection, _now: float) -> StreamInfo:
            length = _require_stream(connection, stream)["length"]
            first = connection.execute(
                "SELECT ms, seq FROM stream_entries WHERE stream = ? ORDER BY ms, seq LIMIT 1",
                (stream,),
            ).fetchone()
            last = connection.execute(
                "SELECT ms, seq FROM stream_entries WHERE stream = ?"
                " ORDER BY ms DESC, seq DESC LIMIT 1",
                (stream,),
            ).fetchone()
            groups = connection.execute(
                """SELECT g.name, g.last_ms, g.last_seq, g.max_deliveries,
                       (SELECT COUNT(*) FROM stream_consumers c
                         WHERE c.stream = g.stream AND c.grp = g.name) AS consumers,
                       (SELECT COUNT(*) FROM stream_pending p
                         WHERE p.stream = g.stream AND p.grp = g.name) AS pending
                   FROM stream_groups g WHERE g.stream = ? ORDER BY g.name""",
                (stream,),
            ).fetchall()
            return StreamInfo(
                stream=stream,
                length=length,
                first_id=None if first is None else _format_id((first["ms"], first["seq"])),
                last_id=None if last is None else _format_id((last["ms"], last["seq"])),
                groups=[
                    GroupInfo(
                        group=group["name"],
                        consumers=group["consumers"],
                        pending=group["pending"],
                        last_delivered_id=_format_id(_stored_position(group)),
                        max_deliveries=group["max_deliveries"],
                    )
                    for group in groups
                ],
            )

        return await self._run(work, write=False)

    async def range(
        self, stream: str, *, start: str, end: str, count: int, reverse: bool
    ) -> list[Entry]:
        """Entries between two inclusive bounds, oldest (or with ``reverse`` newest) first."""
        low = (0, 0) if start == "-" else _bound(_parse_id(start, missing_seq=0))
        high = (
            (_LARGEST_INTEGER, _LARGEST_INTEGER)
            if end == "+"
            else _bound(_parse_id(end, missing_seq=None))
        )
        _check_count(count)
        order = "DESC" if reverse else "ASC"

        def work(connection: sqlite3.Connection, _now: float) -> list[Entry]:
            _require_stream(connection, stream)
            rows = connection.execute(
                f"""SELECT ms, seq, body FROM stream_entries
                    WHERE stream = ? AND (ms, seq) >= (?, ?) AND (ms, seq) <= (?, ?)
                    ORDER BY ms {order}, seq {order} LIMIT ?""",
                (stream, *low, *high, count),
            ).fetchall()
            return [
                Entry(id=_format_id((row["ms"], row["seq"])), body=json.loads(row["body"]))
                for row in rows
            ]

        return await self._run(work, write=False)

    async def trim(self, stream: str, trim: Trim) -> TrimResult:
        """Trim an existing stream by ``maxlen`` and/or ``minid``."""
        _check_trim(trim)
        if trim.maxlen is None and trim.minid is None:
            raise StoreError("validation_failed", "a trim needs maxlen or minid")

        def work(connection: sqlite3.Connection, _now: float) -> TrimResult:
            length = _require_stream(connection, stream)["length"]
            length, trimmed = _trim_entries(connection, stream, trim, length)
            connection.execute("UPDATE streams SET length = ? WHERE name = ?", (length, stream))
            return TrimResult(length=length, trimmed=trimmed)

        return await self._run(work)

    async def delete_stream(self, stream: str) -> None:
        """Delete the stream with its entries, groups and pending lists."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            if connection.execute("DELETE FROM streams WHERE name = ?", (stream,)).rowcount == 0:
                raise _stream_not_found(stream)

        await self._run(work)

    async def create_group(
        self,
        stream: str,
        group: str,
        *,
        start_id: str,
        mkstream: bool,
        max_deliveries: int | None = None,
    ) -> GroupInfo:
        """Create a group positioned at ``start_id`` (``$`` for the stream's last id)."""
        start = None if start_id == "$" else _parse_id(start_id, missing_seq=0)
        check_max_deliveries(stream, max_deliveries)

        def work(connection: sqlite3.Connection, now: float) -> GroupInfo:
            row = connection.execute(
                "SELECT last_ms, last_seq FROM streams WHERE name = ?", (stream,)
            ).fetchone()
            if row is None:
                if not mkstream:
                    raise _stream_not_found(stream)
                connection.execute(
                    "INSERT INTO streams (name, last_ms, last_seq, length, created_at)"
                    " VALUES (?, 0, 0, 0, ?)",
                    (stream, now),
                )
                stream_last = (0, 0)
            else:
                stream_last = (row["last_ms"], row["last_seq"])
            position = stream_last if start is None else start
            inserted = connection.execute(
                "INSERT OR IGNORE INTO stream_groups"
                " (stream, name, last_ms, last_seq, max_deliveries) VALUES (?, ?, ?, ?, ?)",
                (stream, group, *map(_column, position), max_deliveries),
            )
            if inserted.rowcount == 0:
                raise ConflictError(
                    "group_exists", f"stream {stream!r} already has a group {group!r}"
                )
            return GroupInfo(
                group=group,
                consumers=0,
                pending=0,
                last_delivered_id=_format_id(position),
                max_deliveries=max_deliveries,
            )

        return await self._run(work)

    async def delete_group(self, stream: str, group: str) -> None:
        """Delete the group and its pending list; the entries stay."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            _require_group(connection, stream, group)
            connection.execute(
                "DELETE FROM stream_groups WHERE stream = ? AND name = ?", (stream, group)
            )

        await self._run(work)

    async def read_group(
        self, stream: str, group: str, *, consumer: str, count: int, wait_ms: int
    ) -> list[DeliveredEntry]:
        """Hand up to ``count`` undelivered entries to ``consumer``, waiting up to ``wait_ms``."""
        _check_count(count)

        def work(connection: sqlite3.Connection, now: float) -> list[DeliveredEntry]:
            position = _require_group(connection, stream, group)
            _remember_consumer(connection, stream, group, consumer)
            rows = connection.execute(
                """SELECT ms, seq, body FROM stream_entries
                   WHERE stream = ? AND (ms, seq) > (?, ?) ORDER BY ms, seq LIMIT ?""",
                (stream, *_bound(position), count),
            ).fetchall()
            if not rows:
                return []
            now_ms = int(now * 1000)
            connection.executemany(
                """INSERT INTO stream_pending
                   (stream, grp, ms, seq, consumer, delivery_count, delivered_ms)
                   VALUES (?, ?, ?, ?, ?, 1, ?)""",
                [(stream, group, row["ms"], row["seq"], consumer, now_ms) for row in rows],
            )
            connection.execute(
                "UPDATE stream_groups SET last_ms = ?, last_seq = ? WHERE stream = ? AND name = ?",
                (rows[-1]["ms"], rows[-1]["seq"], stream, group),
            )
            return [
                DeliveredEntry(
                    id=_format_id((row["ms"], row["seq"])),
                    body=json.loads(row["body"]),
                    delivery_count=1,
                )
                for row in rows
            ]

        return await self._poll(lambda: self._run(work), wait_ms)

    async def ack(self, stream: str, group: str, ids: Sequence[str]) -> int:
        """Remove ``ids`` from the pending list; count only those that were pending."""
        parsed = [_bound(_parse_id(entry_id, missing_seq=0)) for entry_id in ids]

        def work(connection: sqlite3.Connection, _now: float) -> int:
            _require_group(connection, stream, group)
            removed = 0
            for ms, seq in parsed:
                removed += connection.execute(
                    "DELETE FROM stream_pending WHERE stream = ? AND grp = ? AND ms = ? AND seq = ?",
                    (stream, group, ms, seq),
                ).rowcount
            return removed

        return await self._run(work)

    async def claim(
        self,
        stream: str,
        group: str,
        *,
        consumer: str,
        min_idle_ms: int,
        count: int,
        start_id: str,
    ) -> ClaimResult:
        """Scan up to ``count`` pending entries from ``start_id``; see ``Store.claim``."""
        start = _bound(_parse_id(start_id, missing_seq=0))
        _check_count(count)

        def work(connection: sqlite3.Connection, now: float) -> ClaimResult:
            _require_group(connection, stream, group)
            max_deliveries: int | None = connection.execute(
                "SELECT max_deliveries FROM stream_groups WHERE stream = ? AND name = ?",
                (stream, group),
            ).fetchone()["max_deliveries"]
            _remember_consumer(connection, stream, group, consumer)
            rows = connection.execute(
                """SELECT p.ms, p.seq, p.delivery_count, p.delivered_ms, e.body
                   FROM stream_pending p
                   LEFT JOIN stream_entries e
                     ON e.stream = p.stream AND e.ms = p.ms AND e.seq = p.seq
                   WHERE p.stream = ? AND p.grp = ? AND (p.ms, p.seq) >= (?, ?)
                   ORDER BY p.ms, p.seq LIMIT ?""",
                (stream, group, *start, count + 1),
            ).fetchall()
            now_ms = int(now * 1000)
            entries: list[DeliveredEntry] = []
            deleted: list[str] = []
            dead: list[tuple[str, str]] = []
            for row in rows[:count]:
                key = (stream, group, row["ms"], row["seq"])
                entry_id = _format_id((row["ms"], row["seq"]))
                idle = now_ms - row["delivered_ms"] >= min_idle_ms
                if row["body"] is None or (
                    idle and max_deliveries is not None and row["delivery_count"] >= max_deliveries
                ):
                    connection.execute(
                        "DELETE FROM stream_pending"
                        " WHERE stream = ? AND grp = ? AND ms = ? AND seq = ?",
                        key,
                    )
                    if row["body"] is None:
                        deleted.append(entry_id)
                    else:
                        dead.append((entry_id, _dead_letter(stream, group, entry_id, row)))
                elif idle:
                    connection.execute(
                        """UPDATE stream_pending
                           SET consumer = ?, delivery_count = delivery_count + 1, delivered_ms = ?
                           WHERE stream = ? AND grp = ? AND ms = ? AND seq = ?""",
                        (consumer, now_ms, *key),
                    )
                    entries.append(
                        DeliveredEntry(
                            id=entry_id,
                            body=json.loads(row["body"]),
                            delivery_count=row["delivery_count"] + 1,
                        )
                    )
            if dead:
                _append_entries(
                    connection,
                    dead_letter_stream(stream),
                    [body for _, body in dead],
                    now,
                    nomkstream=False,
                )
            following = rows[count] if len(rows) > count else None
            return ClaimResult(
                entries=entries,
                deleted_ids=deleted,
                next_start_id="0-0"
                if following is None
                else _format_id((following["ms"], following["seq"])),
                dead_lettered_ids=[entry_id for entry_id, _ in dead],
            )

        return await self._run(work)

    async def pending(self, stream: str, group: str, *, count: int) -> list[PendingEntry]:
        """Up to ``count`` pending entries, lowest id first, with their idle time."""
        _check_count(count)

        def work(connection: sqlite3.Connection, now: float) -> list[PendingEntry]:
            _require_group(connection, stream, group)
            rows = connection.execute(
                """SELECT ms, seq, consumer, delivery_count, delivered_ms FROM stream_pending
                   WHERE stream = ? AND grp = ? ORDER BY ms, seq LIMIT ?""",
                (stream, group, count),
            ).fetchall()
            now_ms = int(now * 1000)
            return [
                PendingEntry(
                    id=_format_id((row["ms"], row["seq"])),
                    consumer=row["consumer"],
                    idle_ms=max(0, now_ms - row["delivered_ms"]),
                    delivery_count=row["delivery_count"],
                )
                for row in rows
            ]

        return await self._run(work, write=False)

    # Queues --------------------------------------------------------------------------------

    async def put_queue(self, name: str, settings: QueueSettings) -> tuple[QueueRecord, bool]:
        """Create the queue or replace its settings, keeping its jobs and creation time."""
        check_queue_settings(settings)

        def work(connection: sqlite3.Connection, now: float) -> tuple[QueueRecord, bool]:
            created = (
                connection.execute(
                    """INSERT OR IGNORE INTO queues (name, max_attempts, lease_seconds,
                           retention_seconds, deduplication_window_seconds, created_at)
                       VALUES (?, ?, ?, ?, ?, ?)""",
                    (
                        name,
                        settings.max_attempts,
                        settings.lease_seconds,
                        settings.retention_seconds,
                        settings.deduplication_window_seconds,
                        now,
                    ),
                ).rowcount
                == 1
            )
            if not created:
                connection.execute(
                    """UPDATE queues SET max_attempts = ?, lease_seconds = ?,
                           retention_seconds = ?, deduplication_window_seconds = ?
                       WHERE name = ?""",
                    (
                        settings.max_attempts,
                        settings.lease_seconds,
                        settings.retention_seconds,
                        settings.deduplication_window_seconds,
                        name,
                    ),
                )
            return _queue_record(connection, _require_queue(connection, name), now), created

        return await self._run(work)

    async def get_queue(self, name: str) -> QueueRecord:
        """The queue with its settings and job counts."""

        def work(connection: sqlite3.Connection, now: float) -> QueueRecord:
            return _queue_record(connection, _require_queue(connection, name), now)

        return await self._run(work, write=False)

    async def list_queues(self) -> list[QueueRecord]:
        """Every queue, by name."""

        def work(connection: sqlite3.Connection, now: float) -> list[QueueRecord]:
            rows = connection.execute("SELECT * FROM queues ORDER BY name").fetchall()
            return [_queue_record(connection, row, now) for row in rows]

        return await self._run(work, write=False)

    async def delete_queue(self, name: str) -> None:
        """Delete the queue with every job and deduplication id."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            if connection.execute("DELETE FROM queues WHERE name = ?", (name,)).rowcount == 0:
                raise _queue_not_found(name)

        await self._run(work)

    async def publish_jobs(
        self, queue: str, jobs: Sequence[NewJob], *, idempotency: IdempotencyClaim | None = None
    ) -> list[JobReceipt]:
        """Accept every job (or none), answering earlier ids for deduplicated ones."""
        encoded = [_dump_json(job.payload, what="a job payload") for job in jobs]
        for job in jobs:
            if job.delay < 0:
                raise StoreError("validation_failed", f"delay must not be negative: {job.delay}")

        def work(connection: sqlite3.Connection, now: float) -> list[JobReceipt]:
            settings = _require_queue(connection, queue)
            window = settings["deduplication_window_seconds"]
            _purge_finished_jobs(connection, queue, now - settings["retention_seconds"])
            connection.execute(
                """DELETE FROM job_deduplication WHERE queue = ? AND deduplication_id IN (
                       SELECT deduplication_id FROM job_deduplication
                       WHERE queue = ? AND seen_at <= ? LIMIT ?)""",
                (queue, queue, now - window, PURGE_BATCH),
            )
            receipts = []
            for job, payload in zip(jobs, encoded, strict=True):
                if job.deduplication_id is not None:
                    seen = connection.execute(
                        """SELECT job_id, seen_at FROM job_deduplication
                           WHERE queue = ? AND deduplication_id = ?""",
                        (queue, job.deduplication_id),
                    ).fetchone()
                    if seen is not None and now - seen["seen_at"] < window:
                        receipts.append(
                            JobReceipt(
                                job_id=seen["job_id"],
                                queue=queue,
                                topic=job.topic,
                                deduplicated=True,
                            )
                        )
                        continue
                job_id = new_id("job", now=now)
                connection.execute(
                    """INSERT INTO jobs (job_id, queue, topic, payload, state, attempts,
                           published_at, available_at, deduplication_id)
                       VALUES (?, ?, ?, ?, 'ready', 0, ?, ?, ?)""",
                    (job_id, queue, job.topic, payload, now, now + job.delay, job.deduplication_id),
                )
                if job.deduplication_id is not None:
                    connection.execute(
                        """INSERT OR REPLACE INTO job_deduplication
                           (queue, deduplication_id, job_id, seen_at) VALUES (?, ?, ?, ?)""",
                        (queue, job.deduplication_id, job_id, now),
                    )
                receipts.append(
                    JobReceipt(job_id=job_id, queue=queue, topic=job.topic, deduplicated=False)
                )
            return receipts

        receipts = await self._write_once(
            idempotency,
            f"queue:{queue}",
            work,
            remember=lambda receipts: [
                [receipt.job_id, receipt.topic, receipt.deduplicated] for receipt in receipts
            ],
            replay=lambda kept: [
                JobReceipt(job_id=job_id, queue=queue, topic=topic, deduplicated=dup, replayed=True)
                for job_id, topic, dup in kept
            ],
        )
        self._notify()
        return receipts

    async def lease_jobs(
        self,
        queue: str,
        *,
        consumer: str | None,
        topics: Sequence[str] | None,
        max_jobs: int,
        lease_seconds: int | None,
        wait_ms: int,
    ) -> list[LeasedJob]:
        """Lease up to ``max_jobs`` available jobs, oldest first, waiting up to ``wait_ms``."""
        if max_jobs < 1:
            raise StoreError("validation_failed", f"max_jobs must be at least 1: {max_jobs}")
        if lease_seconds is not None and lease_seconds < 1:
            raise StoreError(
                "validation_failed", f"lease_seconds must be at least 1: {lease_seconds}"
            )
        wanted_topics = None if topics is None else list(topics)

        def work(connection: sqlite3.Connection, now: float) -> list[LeasedJob]:
            settings = _require_queue(connection, queue)
            seconds = settings["lease_seconds"] if lease_seconds is None else lease_seconds
            connection.execute(
                """UPDATE jobs SET state = 'dead', finished_at = lease_expires_at,
                       lease_id = NULL, lease_expires_at = NULL, lease_consumer = NULL
                   WHERE queue = ? AND state = 'leased' AND lease_expires_at <= ?
                     AND attempts >= ?""",
                (queue, now, settings["max_attempts"]),
            )
            _purge_finished_jobs(connection, queue, now - settings["retention_seconds"])
            topic_filter = ""
            parameters: list[Any] = [queue, now, now]
            if wanted_topics is not None:
                topic_filter = f"AND topic IN ({', '.join('?' * len(wanted_topics))})"
                parameters.extend(wanted_topics)
            rows = connection.execute(
                f"""SELECT seq, job_id, topic, payload, attempts, published_at FROM jobs
                    WHERE queue = ?
                      AND ((state = 'ready' AND available_at <= ?)
                           OR (state = 'leased' AND lease_expires_at <= ?))
                      {topic_filter}
                    ORDER BY seq LIMIT ?""",
                (*parameters, max_jobs),
            ).fetchall()
            leased = []
            for row in rows:
                lease_id = new_id("lease", now=now)
                expires_at = now + seconds
                connection.execute(
                    """UPDATE jobs SET state = 'leased', attempts = attempts + 1, lease_id = ?,
                           lease_expires_at = ?, lease_consumer = ?
                       WHERE seq = ?""",
                    (lease_id, expires_at, consumer, row["seq"]),
                )
                leased.append(
                    LeasedJob(
                        job_id=row["job_id"],
                        queue=queue,
                        topic=row["topic"],
                        payload=json.loads(row["payload"]),
                        attempt=row["attempts"] + 1,
                        lease_id=lease_id,
                        lease_expires_at=expires_at,
                        published_at=row["published_at"],
                    )
                )
            return leased

        return await self._poll(lambda: self._run(work), wait_ms)

    async def ack_job(self, queue: str, job_id: str, lease_id: str) -> JobRecord:
        """Mark the job succeeded, if ``lease_id`` is its current unexpired lease."""

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            _require_lease(connection, queue, job_id, lease_id, now)
            connection.execute(
                """UPDATE jobs SET state = 'succeeded', finished_at = ?, lease_id = NULL,
                       lease_expires_at = NULL, lease_consumer = NULL
                   WHERE job_id = ?""",
                (now, job_id),
            )
            return _job_record(connection, queue, job_id, now)

        return await self._run(work)

    async def nack_job(
        self, queue: str, job_id: str, lease_id: str, *, retry_delay: int, error: str | None
    ) -> JobRecord:
        """End the lease: ready after ``retry_delay`` seconds, or dead without attempts left."""
        if retry_delay < 0:
            raise StoreError(
                "validation_failed", f"retry_delay must not be negative: {retry_delay}"
            )

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            job = _require_lease(connection, queue, job_id, lease_id, now)
            if job["attempts"] >= job["max_attempts"]:
                connection.execute(
                    """UPDATE jobs SET state = 'dead', finished_at = ?, lease_id = NULL,
                           lease_expires_at = NULL, lease_consumer = NULL,
                           last_error = COALESCE(?, last_error)
                       WHERE job_id = ?""",
                    (now, error, job_id),
                )
            else:
                connection.execute(
                    """UPDATE jobs SET state = 'ready', available_at = ?, lease_id = NULL,
                           lease_expires_at = NULL, lease_consumer = NULL,
                           last_error = COALESCE(?, last_error)
                       WHERE job_id = ?""",
                    (now + retry_delay, error, job_id),
                )
            return _job_record(connection, queue, job_id, now)

        record = await self._run(work)
        self._notify()
        return record

    async def extend_lease(
        self, queue: str, job_id: str, lease_id: str, *, lease_seconds: int
    ) -> JobRecord:
        """Make the current lease end ``lease_seconds`` from now."""
        if lease_seconds < 1:
            raise StoreError(
                "validation_failed", f"lease_seconds must be at least 1: {lease_seconds}"
            )

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            _require_lease(connection, queue, job_id, lease_id, now)
            connection.execute(
                "UPDATE jobs SET lease_expires_at = ? WHERE job_id = ?",
                (now + lease_seconds, job_id),
            )
            return _job_record(connection, queue, job_id, now)

        return await self._run(work)

    async def get_job(self, queue: str, job_id: str) -> JobRecord:
        """The job with its state as of now."""

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            _require_queue(connection, queue)
            return _job_record(connection, queue, job_id, now)

        return await self._run(work, write=False)

    async def list_jobs(self, queue: str, *, state: JobState | None, limit: int) -> list[JobRecord]:
        """Up to ``limit`` jobs in ``state`` (as of now), oldest first."""
        _check_count(limit, name="limit")

        def work(connection: sqlite3.Connection, now: float) -> list[JobRecord]:
            _require_queue(connection, queue)
            state_filter = "" if state is None else f"AND {_EFFECTIVE_JOB_STATE} = :state"
            rows = connection.execute(
                f"""SELECT {_JOB_COLUMNS} FROM jobs JOIN queues ON queues.name = jobs.queue
                    WHERE jobs.queue = :queue {state_filter}
                    ORDER BY jobs.seq LIMIT :limit""",
                {"queue": queue, "now": now, "state": state, "limit": limit},
            ).fetchall()
            return [_job_from_row(row) for row in rows]

        return await self._run(work, write=False)

    async def retry_job(self, queue: str, job_id: str) -> JobRecord:
        """Make a dead job ready now with no attempts used."""

        def work(connection: sqlite3.Connection, now: float) -> JobRecord:
            _require_queue(connection, queue)
            job = _job_record(connection, queue, job_id, now)
            if job.state != "dead":
                raise ConflictError(
                    "invalid_state", f"job {job_id!r} is {job.state}; only dead jobs can be retried"
                )
            connection.execute(
                """UPDATE jobs SET state = 'ready', attempts = 0, available_at = ?,
                       finished_at = NULL, lease_id = NULL, lease_expires_at = NULL,
                       lease_consumer = NULL
                   WHERE job_id = ?""",
                (now, job_id),
            )
            return _job_record(connection, queue, job_id, now)

        record = await self._run(work)
        self._notify()
        return record

    # Messages ------------------------------------------------------------------------------

    async def publish_messages(
        self,
        messages: Sequence[NewMessage],
        *,
        lease: MessageLease | None = None,
        idempotency: IdempotencyClaim | None = None,
    ) -> list[MessageReceipt]:
        """Accept every message (or none), answering earlier ids for deduplicated ones; with
        ``lease``, only while that lease is current.
        """
        encoded_headers = [
            _dump_json(message.headers, what="message headers") for message in messages
        ]

        def work(connection: sqlite3.Connection, now: float) -> list[MessageReceipt]:
            if lease is not None:
                _require_current_lease(
                    _message_record(connection, lease.message_id), lease.lease_id
                )
            connection.execute(
                """DELETE FROM message_deduplication WHERE dedup_key IN (
                       SELECT dedup_key FROM message_deduplication WHERE expires_at <= ? LIMIT ?)""",
                (now, PURGE_BATCH),
            )
            receipts = []
            for message, headers in zip(messages, encoded_headers, strict=True):
                if message.dedup_key is not None:
                    seen = connection.execute(
                        "SELECT message_id, created_at FROM message_deduplication"
                        " WHERE dedup_key = ?",
                        (message.dedup_key,),
                    ).fetchone()
                    if seen is not None and now - seen["created_at"] < message.dedup_window:
                        receipts.append(
                            MessageReceipt(
                                message_id=seen["message_id"],
                                url=message.url,
                                deduplicated=True,
                                item=message.item,
                            )
                        )
                        continue
                message_id = new_id("msg", now=now)
                connection.execute(
                    """INSERT INTO messages (message_id, url, body, content_type, method, headers,
                           state, retries, timeout, created_at, not_before, next_attempt_at,
                           url_group, retry_delay, callback, failure_callback, deduplication_id)
                       VALUES (?, ?, ?, ?, ?, ?, 'scheduled', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                    (
                        message_id,
                        message.url,
                        bytes(message.body),
                        message.content_type,
                        message.method,
                        headers,
                        message.retries,
                        message.timeout,
                        now,
                        message.not_before,
                        message.not_before,
                        message.url_group,
                        message.retry_delay,
                        message.callback,
                        message.failure_callback,
                        message.deduplication_id,
                    ),
                )
                if message.dedup_key is not None:
                    connection.execute(
                        """INSERT OR REPLACE INTO message_deduplication
                           (dedup_key, message_id, created_at, expires_at) VALUES (?, ?, ?, ?)""",
                        (message.dedup_key, message_id, now, now + message.dedup_window),
                    )
                receipts.append(
                    MessageReceipt(
                        message_id=message_id,
                        url=message.url,
                        deduplicated=False,
                        item=message.item,
                    )
                )
            return receipts

        return await self._write_once(
            idempotency,
            "messages",
            work,
            remember=lambda receipts: [
                [receipt.message_id, receipt.url, receipt.deduplicated, receipt.item]
                for receipt in receipts
            ],
            replay=lambda kept: [
                MessageReceipt(
                    message_id=message_id, url=url, deduplicated=dup, item=item, replayed=True
                )
                for message_id, url, dup, item in kept
            ],
        )

    async def get_message(self, message_id: str) -> MessageRecord:
        """The message with every attempt so far."""

        def work(connection: sqlite3.Connection, _now: float) -> MessageRecord:
            return _message_record(connection, message_id)

        return await self._run(work, write=False)

    async def cancel_message(self, message_id: str) -> MessageRecord:
        """Cancel a scheduled message."""

        def work(connection: sqlite3.Connection, _now: float) -> MessageRecord:
            message = _message_record(connection, message_id)
            if message.state != "scheduled":
                raise ConflictError(
                    "invalid_state",
                    f"message {message_id!r} is {message.state}; only scheduled messages can be"
                    " cancelled",
                )
            connection.execute(
                "UPDATE messages SET state = 'cancelled', next_attempt_at = NULL"
                " WHERE message_id = ?",
                (message_id,),
            )
            return _message_record(connection, message_id)

        return await self._run(work)

    async def claim_due_messages(
        self, *, now: float, limit: int, lease_margin: float
    ) -> list[MessageRecord]:
        """Move up to ``limit`` due messages to ``delivering``, each under a fresh lease id and
        leased for its own timeout plus ``lease_margin``.
        """
        _check_count(limit, name="limit")
        _check_lease_margin(lease_margin)

        def work(connection: sqlite3.Connection, _now: float) -> list[MessageRecord]:
            rows = connection.execute(
                """SELECT message_id FROM messages
                   WHERE state IN ('scheduled', 'delivering') AND next_attempt_at <= ?
                   ORDER BY next_attempt_at, seq LIMIT ?""",
                (now, limit),
            ).fetchall()
            message_ids = [row["message_id"] for row in rows]
            connection.executemany(
                "UPDATE messages SET state = 'delivering', next_attempt_at = ? + timeout,"
                " lease_id = ? WHERE message_id = ?",
                [
                    (now + lease_margin, new_id("lease", now=now), message_id)
                    for message_id in message_ids
                ],
            )
            return _message_records(connection, message_ids)

        return await self._run(work)

    async def record_attempt(
        self,
        message_id: str,
        attempt: DeliveryAttemptRecord,
        *,
        lease_id: str,
        outcome: Literal["delivered", "retry", "failed"],
        next_attempt_at: float | None = None,
    ) -> MessageRecord:
        """Append the attempt and settle the message under its current lease, ending the lease
        (a failure also adds a dead letter).
        """
        if outcome not in ("delivered", "retry", "failed"):
            raise StoreError("validation_failed", f"unknown delivery outcome {outcome!r}")
        if outcome == "retry" and next_attempt_at is None:
            raise StoreError("validation_failed", "a retry needs next_attempt_at")

        def work(connection: sqlite3.Connection, now: float) -> MessageRecord:
            message = _message_record(connection, message_id)
            _require_current_lease(message, lease_id)
            connection.execute(
                """INSERT INTO message_attempts (message_id, position, attempt, started_at,
                       duration_ms, status_code, response_excerpt, error)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    message_id,
                    len(message.attempts) + 1,
                    attempt.attempt,
                    attempt.started_at,
                    attempt.duration_ms,
                    attempt.status_code,
                    attempt.response_excerpt,
                    attempt.error,
                ),
            )
            if outcome == "retry":
                connection.execute(
                    "UPDATE messages SET state = 'scheduled', next_attempt_at = ?, lease_id = NULL,"
                    " retries_used = retries_used + 1 WHERE message_id = ?",
                    (next_attempt_at, message_id),
                )
            else:
                connection.execute(
                    "UPDATE messages SET state = ?, next_attempt_at = NULL, lease_id = NULL,"
                    " retries_used = retries_used + 1 WHERE message_id = ?",
                    (outcome, message_id),
                )
            if outcome == "failed":
                connection.execute(
                    """INSERT OR REPLACE INTO dead_letters (message_id, url, attempts, failed_at,
                           last_error, last_status_code)
                       VALUES (?, ?, ?, ?, ?, ?)""",
                    (
                        message_id,
                        message.url,
                        len(message.attempts) + 1,
                        now,
                        attempt.error,
                        attempt.status_code,
                    ),
                )
            # The row as just written, without reading it back.
            return dataclasses.replace(
                message,
                state="scheduled" if outcome == "retry" else outcome,
                next_attempt_at=next_attempt_at if outcome == "retry" else None,
                lease_id=None,
                retries_used=message.retries_used + 1,
                attempts=[*message.attempts, attempt],
            )

        return await self._run(work)

    async def put_url_group(self, name: str, endpoints: Sequence[UrlEndpoint]) -> UrlGroupRecord:
        """Create the group or replace its endpoints, keeping its creation time."""
        encoded = _dump_json(
            [{"url": endpoint.url, "name": endpoint.name} for endpoint in endpoints],
            what="URL group endpoints",
        )

        def work(connection: sqlite3.Connection, now: float) -> UrlGroupRecord:
            connection.execute(
                """INSERT INTO url_groups (name, endpoints, created_at, updated_at)
                   VALUES (?, ?, ?, ?)
                   ON CONFLICT (name) DO UPDATE
                   SET endpoints = excluded.endpoints, updated_at = excluded.updated_at""",
                (name, encoded, now, now),
            )
            return _url_group_record(_require_url_group(connection, name))

        return await self._run(work)

    async def get_url_group(self, name: str) -> UrlGroupRecord:
        """The URL group."""

        def work(connection: sqlite3.Connection, _now: float) -> UrlGroupRecord:
            return _url_group_record(_require_url_group(connection, name))

        return await self._run(work, write=False)

    async def list_url_groups(self) -> list[UrlGroupRecord]:
        """Every URL group, by name."""

        def work(connection: sqlite3.Connection, _now: float) -> list[UrlGroupRecord]:
            rows = connection.execute("SELECT * FROM url_groups ORDER BY name").fetchall()
            return [_url_group_record(row) for row in rows]

        return await self._run(work, write=False)

    async def delete_url_group(self, name: str) -> None:
        """Delete the URL group; messages already published keep their URLs."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            if connection.execute("DELETE FROM url_groups WHERE name = ?", (name,)).rowcount == 0:
                raise NotFoundError("url_group_not_found", f"URL group {name!r} does not exist")

        await self._run(work)

    async def list_dead_letters(self, *, limit: int) -> list[DeadLetterRecord]:
        """Up to ``limit`` dead letters, oldest first."""
        _check_count(limit, name="limit")

        def work(connection: sqlite3.Connection, _now: float) -> list[DeadLetterRecord]:
            rows = connection.execute(
                "SELECT * FROM dead_letters ORDER BY failed_at, seq LIMIT ?", (limit,)
            ).fetchall()
            return [
                DeadLetterRecord(
                    message_id=row["message_id"],
                    url=row["url"],
                    attempts=row["attempts"],
                    failed_at=row["failed_at"],
                    last_error=row["last_error"],
                    last_status_code=row["last_status_code"],
                )
                for row in rows
            ]

        return await self._run(work, write=False)

    async def delete_dead_letter(self, message_id: str) -> None:
        """Forget the dead letter; the message stays readable."""

        def work(connection: sqlite3.Connection, _now: float) -> None:
            deleted = connection.execute(
                "DELETE FROM dead_letters WHERE message_id = ?", (message_id,)
            ).rowcount
            if deleted == 0:
                raise _dead_letter_not_found(message_id)

        await self._run(work)

    async def retry_dead_letter(self, message_id: str) -> MessageRecord:
        """Remove the dead letter and schedule the message now with a fresh retry budget."""

        def work(connection: sqlite3.Connection, now: float) -> MessageRecord:
            deleted = connection.execute(
                "DELETE FROM dead_letters WHERE message_id = ?", (message_id,)
            ).rowcount
            if deleted == 0:
                raise _dead_letter_not_found(message_id)
            connection.execute(
                "UPDATE messages SET state = 'scheduled', next_attempt_at = ?, retries_used = 0"
                " WHERE message_id = ?",
                (now, message_id),
            )
            return _message_record(connection, message_id)

        return await self._run(work)

    async def next_due_at(self) -> float | None:
        """The earliest next attempt (or lease end) of a scheduled or delivering message."""

        def work(connection: sqlite3.Connection, _now: float) -> float | None:
            # The same index and order as claim_due_messages' scan.
            row = connection.execute(
                """SELECT next_attempt_at FROM messages
                   WHERE state IN ('scheduled', 'delivering') AND next_attempt_at IS NOT NULL
                   ORDER BY next_attempt_at, seq LIMIT 1"""
            ).fetchone()
            return None if row is None else float(row["next_attempt_at"])

        return await self._run(work, write=False)

    # Quotas --------------------------------------------------------------------------------

    async def consume_quota(self, token_id: str, amount: int, *, limit: int) -> bool:
        """Count ``amount`` more messages for the token if it stays within ``limit``."""
        if amount < 0:
            raise StoreError("validation_failed", f"a quota amount must not be negative: {amount}")

        def work(connection: sqlite3.Connection, _now: float) -> bool:
            connection.execute(
                "INSERT OR IGNORE INTO quotas (token_id, used) VALUES (?, 0)", (token_id,)
            )
            updated = connection.execute(
                "UPDATE quotas SET used = used + ? WHERE token_id = ? AND used + ? <= ?",
                (amount, token_id, amount, limit),
            ).rowcount
            return updated == 1

        return await self._run(work)

    async def refund_quota(self, token_id: str, amount: int) -> None:
        """Uncount ``amount`` messages, never below zero."""
        if amount < 0:
            raise StoreError("validation_failed", f"a quota amount must not be negative: {amount}")

        def work(connection: sqlite3.Connection, _now: float) -> None:
            connection.execute(
                "UPDATE quotas SET used = MAX(0, used - ?) WHERE token_id = ?", (amount, token_id)
            )

        await self._run(work)

    # Rate limits ---------------------------------------------------------------------------

    async def take_rate_token(self, key: str, *, per_second: float, burst: int) -> float:
        """Refill the bucket for the time since its last use, then take a token if there is one,
        all in one transaction, so processes sharing the file share the bucket.
        """
        check_token_bucket(per_second, burst)

        def work(connection: sqlite3.Connection, now: float) -> float:
            row = connection.execute(
                "SELECT tokens, updated_at FROM rate_buckets WHERE key = ?", (key,)
            ).fetchone()
            tokens = float(burst)
            if row is not None:
                elapsed = max(0.0, now - row["updated_at"])
                tokens = min(tokens, row["tokens"] + elapsed * per_second)
            wait = 0.0
            if tokens >= 1.0:
                tokens -= 1.0
            else:
                wait = (1.0 - tokens) / per_second
            connection.execute(
                "INSERT OR REPLACE INTO rate_buckets (key, tokens, updated_at) VALUES (?, ?, ?)",
                (key, tokens, now),
            )
            return wait

        return await self._run(work)


# Helpers that run inside a transaction -----------------------------------------------------


def _select_one(connection: sqlite3.Connection, _now: float) -> bool:
    return bool(connection.execute("SELECT 1").fetchone()[0] == 1)


def _dump_json(value: JSON, *, what: str) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreError("validation_failed", f"{what} is not a JSON value: {error}") from error


def _parse_id(text: str, *, missing_seq: int | None) -> _EntryId:
    """Read ``ms-seq`` or a bare ``ms`` (whose seq is ``missing_seq``, or the largest if None)."""
    ms, seq = entry_id_parts(text)
    if seq is None:
        seq = MAX_ID_PART if missing_seq is None else missing_seq
    return ms, seq


def _bound(entry_id: _EntryId) -> _EntryId:
    """``entry_id`` as SQL compares it with stored ids: a part above SQLite's largest integer as
    that integer, exact because no stored entry id comes near it.
    """
    return min(entry_id[0], _LARGEST_INTEGER), min(entry_id[1], _LARGEST_INTEGER)


def _column(part: int) -> int:
    """A group position's id part as stored: above SQLite's largest integer, the negative integer
    with the same 64 bits.
    """
    return part - 2**64 if part > _LARGEST_INTEGER else part


def _stored_position(row: sqlite3.Row) -> _EntryId:
    """The group position kept in a row's ``last_ms`` and ``last_seq`` (see ``_column``)."""
    return row["last_ms"] % 2**64, row["last_seq"] % 2**64


def _format_id(entry_id: _EntryId) -> str:
    return f"{entry_id[0]}-{entry_id[1]}"


def _check_count(count: int, *, name: str = "count") -> None:
    if count < 1:
        raise StoreError("validation_failed", f"{name} must be at least 1: {count}")


def _check_lease_margin(lease_margin: float) -> None:
    if not (math.isfinite(lease_margin) and lease_margin >= 0):
        raise StoreError(
            "validation_failed", f"lease_margin must be a number of seconds >= 0: {lease_margin}"
        )


def _check_trim(trim: Trim) -> None:
    if trim.maxlen is not None and trim.maxlen < 0:
        raise StoreError("validation_failed", f"maxlen must not be negative: {trim.maxlen}")
    if trim.minid is not None:
        _parse_id(trim.minid, missing_seq=0)


def _key_reused() -> ConflictError:
    return ConflictError("conflict", "the idempotency key was already used for another request")


def _nothing_to_replay() -> NotFoundError:
    return NotFoundError(
        "idempotency_record_not_found", "no live record of this idempotency key to replay"
    )


def _stream_not_found(stream: str) -> NotFoundError:
    return NotFoundError("stream_not_found", f"stream {stream!r} does not exist")


def _queue_not_found(queue: str) -> NotFoundError:
    return NotFoundError("queue_not_found", f"queue {queue!r} does not exist")


def _dead_letter_not_found(message_id: str) -> NotFoundError:
    return NotFoundError("dead_letter_not_found", f"no dead letter for message {message_id!r}")


def _require_stream(connection: sqlite3.Connection, stream: str) -> sqlite3.Row:
    row: sqlite3.Row | None = connection.execute(
        "SELECT * FROM streams WHERE name = ?", (stream,)
    ).fetchone()
    if row is None:
        raise _stream_not_found(stream)
    return row


def _require_group(connection: sqlite3.Connection, stream: str, group: str) -> _EntryId:
    """The group's last delivered id, after checking that the stream and group exist."""
    _require_stream(connection, stream)
    row = connection.execute(
        "SELECT last_ms, last_seq FROM stream_groups WHERE stream = ? AND name = ?",
        (stream, group),
    ).fetchone()
    if row is None:
        raise NotFoundError("group_not_found", f"stream {stream!r} has no group {group!r}")
    return _stored_position(row)


def _append_entries(
    connection: sqlite3.Connection,
    stream: str,
    encoded: Sequence[str],
    now: float,
    *,
    nomkstream: bool,
) -> tuple[list[str], int]:
    """Append JSON texts under new ids (creating the stream unless ``nomkstream``); answer the
    ids and the stream's length.
    """
    row = connection.execute(
        "SELECT last_ms, last_seq, length FROM streams WHERE name = ?", (stream,)
    ).fetchone()
    if row is None:
        if nomkstream:
            raise _stream_not_found(stream)
        last_ms, last_seq, length = 0, 0, 0
        connection.execute(
            "INSERT INTO streams (name, last_ms, last_seq, length, created_at)"
            " VALUES (?, 0, 0, 0, ?)",
            (stream, now),
        )
    else:
        last_ms, last_seq, length = row["last_ms"], row["last_seq"], row["length"]
    now_ms = int(now * 1000)
    rows = []
    for body in encoded:
        if now_ms > last_ms:
            last_ms, last_seq = now_ms, 0
        else:
            last_seq += 1
        rows.append((stream, last_ms, last_seq, body))
    connection.executemany(
        "INSERT INTO stream_entries (stream, ms, seq, body) VALUES (?, ?, ?, ?)", rows
    )
    length += len(rows)
    connection.execute(
        "UPDATE streams SET last_ms = ?, last_seq = ?, length = ? WHERE name = ?",
        (last_ms, last_seq, length, stream),
    )
    return [_format_id((ms, seq)) for _, ms, seq, _ in rows], length


def _dead_letter(stream: str, group: str, entry_id: str, row: sqlite3.Row) -> str:
    """The dead-letter stream's entry for a pending entry (``Store.claim`` gives its shape)."""
    return _dump_json(
        {
            "stream": stream,
            "id": entry_id,
            "group": group,
            "delivery_count": row["delivery_count"],
            "body": json.loads(row["body"]),
        },
        what="a dead letter",
    )


def _remember_consumer(
    connection: sqlite3.Connection, stream: str, group: str, consumer: str
) -> None:
    connection.execute(
        "INSERT OR IGNORE INTO stream_consumers (stream, grp, consumer) VALUES (?, ?, ?)",
        (stream, group, consumer),
    )


def _trim_entries(
    connection: sqlite3.Connection, stream: str, trim: Trim, length: int
) -> tuple[int, int]:
    """Apply ``trim`` to a stream of ``length`` entries; return the new length and the count cut."""
    trimmed = 0
    if trim.maxlen is not None:
        tolerated = trim.maxlen + (approximate_trim_slack(trim.maxlen) if trim.approximate else 0)
        if length > tolerated:
            trimmed += _drop_oldest(connection, stream, length - trim.maxlen, length)
    if trim.minid is not None:
        trimmed += connection.execute(
            "DELETE FROM stream_entries WHERE stream = ? AND (ms, seq) < (?, ?)",
            (stream, *_bound(_parse_id(trim.minid, missing_seq=0))),
        ).rowcount
    return length - trimmed, trimmed


def _drop_oldest(connection: sqlite3.Connection, stream: str, count: int, length: int) -> int:
    if count >= length:
        return connection.execute("DELETE FROM stream_entries WHERE stream = ?", (stream,)).rowcount
    first_kept = connection.execute(
        "SELECT ms, seq FROM stream_entries WHERE stream = ? ORDER BY ms, seq LIMIT 1 OFFSET ?",
        (stream, count),
    ).fetchone()
    return connection.execute(
        "DELETE FROM stream_entries WHERE stream = ? AND (ms, seq) < (?, ?)",
        (stream, first_kept["ms"], first_kept["seq"]),
    ).rowcount


def _require_queue(connection: sqlite3.Connection, queue: str) -> sqlite3.Row:
    row: sqlite3.Row | None = connection.execute(
        "SELECT * FROM queues WHERE name = ?", (queue,)
    ).fetchone()
    if row is None:
        raise _queue_not_found(queue)
    return row


def _queue_record(connection: sqlite3.Connection, queue: sqlite3.Row, now: float) -> QueueRecord:
    rows = connection.execute(
        f"""SELECT {_EFFECTIVE_JOB_STATE} AS effective_state, COUNT(*) AS jobs
            FROM jobs JOIN queues ON queues.name = jobs.queue
            WHERE jobs.queue = :queue GROUP BY effective_state""",
        {"queue": queue["name"], "now": now},
    ).fetchall()
    counts: dict[str, int] = {row["effective_state"]: row["jobs"] for row in rows}
    return QueueRecord(
        name=queue["name"],
        settings=QueueSettings(
            max_attempts=queue["max_attempts"],
            lease_seconds=queue["lease_seconds"],
            retention_seconds=queue["retention_seconds"],
            deduplication_window_seconds=queue["deduplication_window_seconds"],
        ),
        created_at=queue["created_at"],
        stats=QueueStats(
            ready=counts.get("ready", 0),
            delayed=counts.get("delayed", 0),
            leased=counts.get("leased", 0),
            dead=counts.get("dead", 0),
        ),
    )


def _purge_finished_jobs(
    connection: sqlite3.Connection, queue: str, finished_before: float
) -> None:
    connection.execute(
        """DELETE FROM jobs WHERE seq IN (
               SELECT seq FROM jobs
               WHERE queue = ? AND finished_at IS NOT NULL AND finished_at <= ? LIMIT ?)""",
        (queue, finished_before, PURGE_BATCH),
    )


def _job_row(connection: sqlite3.Connection, queue: str, job_id: str, now: float) -> sqlite3.Row:
    row: sqlite3.Row | None = connection.execute(
        f"""SELECT {_JOB_COLUMNS}, jobs.lease_id
            FROM jobs JOIN queues ON queues.name = jobs.queue
            WHERE jobs.job_id = :job_id AND jobs.queue = :queue""",
        {"job_id": job_id, "queue": queue, "now": now},
    ).fetchone()
    if row is None:
        raise NotFoundError("job_not_found", f"queue {queue!r} has no job {job_id!r}")
    return row


def _job_record(connection: sqlite3.Connection, queue: str, job_id: str, now: float) -> JobRecord:
    return _job_from_row(_job_row(connection, queue, job_id, now))


def _job_from_row(row: sqlite3.Row) -> JobRecord:
    state: JobState = row["effective_state"]
    return JobRecord(
        job_id=row["job_id"],
        queue=row["queue"],
        topic=row["topic"],
        payload=json.loads(row["payload"]),
        state=state,
        attempts=row["attempts"],
        max_attempts=row["max_attempts"],
        published_at=row["published_at"],
        available_at=row["available_at"],
        lease_expires_at=row["lease_expires_at"] if state == "leased" else None,
        leased_by=row["lease_consumer"] if state == "leased" else None,
        last_error=row["last_error"],
        deduplication_id=row["deduplication_id"],
    )


def _require_lease(
    connection: sqlite3.Connection, queue: str, job_id: str, lease_id: str, now: float
) -> sqlite3.Row:
    """The job row, if ``lease_id`` is its current unexpired lease; ``lease_expired`` otherwise."""
    _require_queue(connection, queue)
    row = _job_row(connection, queue, job_id, now)
    if row["effective_state"] != "leased" or row["lease_id"] != lease_id:
        raise ConflictError(
            "lease_expired",
            f"lease {lease_id!r} of job {job_id!r} has ended or belongs to another worker",
        )
    return row


def _message_record(connection: sqlite3.Connection, message_id: str) -> MessageRecord:
    records = _message_records(connection, [message_id])
    if not records:
        raise NotFoundError("message_not_found", f"message {message_id!r} does not exist")
    return records[0]


def _message_records(
    connection: sqlite3.Connection, message_ids: Sequence[str]
) -> list[MessageRecord]:
    """The messages that exist of ``message_ids``, in that order, read in two statements."""
    marks = ", ".join("?" * len(message_ids))
    rows = connection.execute(
        f"SELECT * FROM messages WHERE message_id IN ({marks})", message_ids
    ).fetchall()
    attempts: dict[str, list[DeliveryAttemptRecord]] = {row["message_id"]: [] for row in rows}
    for attempt in connection.execute(
        f"""SELECT * FROM message_attempts WHERE message_id IN ({marks})
            ORDER BY message_id, position""",
        message_ids,
    ):
        attempts[attempt["message_id"]].append(
            DeliveryAttemptRecord(
                attempt=attempt["attempt"],
                started_at=attempt["started_at"],
                duration_ms=attempt["duration_ms"],
                status_code=attempt["status_code"],
                response_excerpt=attempt["response_excerpt"],
                error=attempt["error"],
            )
        )
    by_id = {
        row["message_id"]: MessageRecord(
            message_id=row["message_id"],
            url=row["url"],
            body=bytes(row["body"]),
            content_type=row["content_type"],
            method=row["method"],
            headers=json.loads(row["headers"]),
            state=row["state"],
            retries=row["retries"],
            timeout=row["timeout"],
            created_at=row["created_at"],
            not_before=row["not_before"],
            attempts=attempts[row["message_id"]],
            retries_used=row["retries_used"],
            next_attempt_at=row["next_attempt_at"],
            url_group=row["url_group"],
            retry_delay=row["retry_delay"],
            callback=row["callback"],
            failure_callback=row["failure_callback"],
            deduplication_id=row["deduplication_id"],
            lease_id=row["lease_id"],
        )
        for row in rows
    }
    return [by_id[message_id] for message_id in message_ids if message_id in by_id]


def _require_current_lease(message: MessageRecord, lease_id: str) -> None:
    """Refuse (``lease_expired``) unless the message is ``delivering`` under ``lease_id``."""
    if message.state != "delivering" or message.lease_id != lease_id:
        raise ConflictError(
            "lease_expired",
            f"lease {lease_id!r} is not the current lease of message {message.message_id!r}: "
            "another claim replaced it, or its attempt was already recorded",
        )


def _require_url_group(connection: sqlite3.Connection, name: str) -> sqlite3.Row:
    row: sqlite3.Row | None = connection.execute(
        "SELECT * FROM url_groups WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        raise NotFoundError("url_group_not_found", f"URL group {name!r} does not exist")
    return row


def _url_group_record(row: sqlite3.Row) -> UrlGroupRecord:
    return UrlGroupRecord(
        name=row["name"],
        endpoints=[
            UrlEndpoint(url=endpoint["url"], name=endpoint["name"])
            for endpoint in json.loads(row["endpoints"])
        ],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )
