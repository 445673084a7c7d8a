"""The SQLite store's connection: opening the file, running transactions, waking long polls.

The event loop never waits on I/O: each store owns one connection used only by one private worker
thread, to which every transaction is handed. Because that thread runs transactions one after the
other, a caller that is cancelled mid-call cannot leave the connection half-used.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar, Literal, Self, TypeVar
from urllib.parse import unquote, urlsplit

from .. import InvalidStoreURL
from ..base import Store, StoreError, StoreFullError, StoreUnavailableError
from ._common import Work
from ._schema import create_schema

__all__ = [
    "BUSY_TIMEOUT_SECONDS",
    "MAX_WRITES_PER_TRANSACTION",
    "POLL_INTERVAL_SECONDS",
    "SQLiteCore",
]

# How often a long poll looks again: other processes sharing the file cannot wake this one.
POLL_INTERVAL_SECONDS = 0.05
# Writers queue behind each other's BEGIN IMMEDIATE; this is how long one waits for the lock.
BUSY_TIMEOUT_SECONDS = 30.0
# SQLite's primary result codes for a file that cannot be used now (rather than a faulty request):
# busy or locked past the busy timeout, an I/O error, a file that cannot be opened. A full disk
# (SQLITE_FULL) is one too, answered as ``store_full``, the answer of a Redis out of memory.
_UNAVAILABLE_CODES = frozenset(
    {
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PROTOCOL,
    }
)

_MEMORY = ":memory:"

_T = TypeVar("_T")
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

    work: Work[Any]
    future: asyncio.Future[Any]


class SQLiteCore(Store):
    """The connection, its worker thread and the transactions every resource of the store runs."""

    kind: ClassVar[Literal["sqlite", "redis"]] = "sqlite"

    def __init__(self, path: str, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS) -> None:
        super().__init__()
        self._path = path
        self._busy_timeout = busy_timeout
        # Public: the store's only source of the time, which a test replaces to move every
        # timestamp the store writes or compares at once.
        self.clock: Callable[[], float] = time.time
        self._connection: sqlite3.Connection | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._changed = asyncio.Event()
        # Filled by the event loop, drained by the worker thread. ``_writing`` says a drain is
        # submitted and has not yet found the queue empty, so each write needs no job of its own.
        self._pending_lock = threading.Lock()
        self._pending_writes: collections.deque[_PendingWrite] = collections.deque()
        self._writing = False

    @classmethod
    def from_url(cls, url: str) -> Self:
        """Build a store from ``sqlite:///path``; see the package docstring for the forms."""
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
            return await self.run_transaction(_select_one, write=False)
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
            create_schema(connection, path=self._path)
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

    # Running transactions ------------------------------------------------------------------

    async def run_transaction(self, work: Work[_T], *, write: bool = True) -> _T:
        """``work(connection, now)`` in a transaction on the store's connection, in its worker
        thread. A write (the default) shares one commit with the writes queued beside it, in a
        savepoint of its own that is undone alone if it fails; a read runs alone. Every resource
        runs its SQL through here, and so can a test that reads what the file holds or sets what
        a connection keeps to itself (a PRAGMA).
        """
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
        """Turn SQLite failing to use the file (not the request) into ``StoreUnavailableError``,
        or ``StoreFullError`` for a full disk (or a file at its ``max_page_count``).
        """
        try:
            yield
        except sqlite3.OperationalError as error:
            # Extended result codes keep the primary code in their low byte.
            code = error.sqlite_errorcode & 0xFF
            if code == sqlite3.SQLITE_FULL:
                raise StoreFullError(
                    f"the SQLite file {self._path!r} has no room left and refused the write: "
                    f"{error}"
                ) from error
            if code not in _UNAVAILABLE_CODES:
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
                    result = pending.work(connection, self.clock())
                except Exception as error:
                    if not connection.in_transaction:
                        # SQLite rolled the whole transaction back itself (as it may for a full
                        # disk or an I/O error), the group's earlier writes with it: every
                        # caller of the group gets this error, none a result that was undone.
                        raise
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

    def _transaction(self, work: Work[_T], write: bool) -> _T:
        connection = self._connection
        if connection is None:
            raise RuntimeError("the SQLite store is closed")
        connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            result = work(connection, self.clock())
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
            # asyncio.timeout, not wait_for: no task of its own, so a write's wake-up reaches
            # this poll in one turn of the event loop rather than three.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(min(POLL_INTERVAL_SECONDS, remaining)):
                    await changed.wait()


def _select_one(connection: sqlite3.Connection, _now: float) -> bool:
    return bool(connection.execute("SELECT 1").fetchone()[0] == 1)
