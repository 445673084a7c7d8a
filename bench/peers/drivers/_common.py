"""What every side of ``bench peers`` shares, in the side's own virtualenv: the record each job
leaves in Redis, the workloads' timing, and the checks that every job ran exactly once.

This file and the drivers beside it run in the peers' virtualenvs (and, for Spool, in Spool's),
so they import nothing but the standard library, redis-py and the side's own library. They are
run as scripts, never imported by Spool's code: mypy does not follow them, since the peers'
libraries are not installed where it runs.

A side is driven by ``python drive.py MODULE ACTION COUNT``, which prints one JSON document on its last line:

* ``enqueue_one``, ``enqueue_bulk``: ``{"seconds"}`` to enqueue COUNT jobs one call per job, or in
  calls of ``BULK`` jobs; then the backlog must hold exactly COUNT jobs.
* ``drain``: COUNT jobs enqueued beforehand (untimed), then one worker process started; when every
  job has run, ``{"seconds"}`` from the first handler start to the last.
* ``latency``: one worker process started and proven idle, then COUNT jobs ``SPACING`` apart;
  ``{"latencies"}`` from just before each publish to its handler's start, in seconds.

Every handler calls :func:`record` (or :func:`record_async`) first thing: ``HSETNX`` of the job's
id to its start time, so a job that ran twice shows up in a counter of duplicates. The driver
checks after each run that every job ran, none twice, and none is left in the backlog.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

import redis

__all__ = [
    "BULK",
    "HERE",
    "REDIS_URL",
    "SPACING",
    "Side",
    "main",
    "record",
    "record_async",
]

HERE = Path(__file__).resolve().parent
REDIS_URL = os.environ.get("BENCH_PEERS_REDIS_URL", "redis://127.0.0.1:6379/14")
BULK = 500
SPACING = 0.020
STARTS = "bench-peers:starts"
DUPLICATES = "bench-peers:duplicates"
_WAIT_SECONDS = float(os.environ.get("BENCH_PEERS_WAIT_SECONDS", "900"))
_POLL_SECONDS = 0.05
# After the last handler starts its acknowledgement may still be on the way: how long the backlog
# may take to empty before the run counts as having left jobs behind.
_SETTLE_SECONDS = 30.0
_IDLE_SECONDS = 1.0

_client: redis.Redis | None = None


def _redis() -> redis.Redis:
    global _client
    if _client is None:
        _client = redis.Redis.from_url(REDIS_URL)
    return _client


def record(job_id: str) -> None:
    """What a sync handler does first: note when job ``job_id`` started, and whether again."""
    started = time.time()
    client = _redis()
    if not client.hsetnx(STARTS, job_id, repr(started)):
        client.incr(DUPLICATES)


_async_clients: dict[int, object] = {}


async def record_async(job_id: str) -> None:
    """:func:`record` for handlers running on an event loop (one connection pool per loop)."""
    import redis.asyncio

    started = time.time()
    loop = id(asyncio.get_running_loop())
    client = _async_clients.get(loop)
    if client is None:
        client = _async_clients[loop] = redis.asyncio.Redis.from_url(REDIS_URL)
    if not await client.hsetnx(STARTS, job_id, repr(started)):
        await client.incr(DUPLICATES)


class Side:
    """One library driven through its public API. Subclasses give the calls; every one is a
    coroutine so that async libraries run on the driver's one event loop (sync ones just block).
    """

    #: whether ``enqueue_bulk`` is a real bulk call of the library, not a loop
    has_bulk = False

    async def open(self) -> None:
        """Connect; called once before any other call."""

    async def close(self) -> None:
        """Release the connections."""

    async def enqueue_one(self, job_id: str) -> None:
        """Enqueue one job, one call of the library."""
        raise NotImplementedError

    async def enqueued(self) -> None:
        """Wait until every enqueue so far is confirmed, for a side whose enqueue returns before
        the broker has the job; timed with the enqueues.
        """

    async def enqueue_bulk(self, job_ids: Sequence[str]) -> None:
        """Enqueue jobs in one bulk call; without one, concurrently (to fill a backlog fast)."""
        for start in range(0, len(job_ids), 100):
            await asyncio.gather(
                *(self.enqueue_one(job_id) for job_id in job_ids[start : start + 100])
            )

    async def backlog(self) -> int:
        """Jobs enqueued and not yet done (queued, reserved or unacknowledged)."""
        raise NotImplementedError

    def worker_command(self) -> list[str]:
        """The command that starts one worker process with the library's default concurrency."""
        raise NotImplementedError


def _ids(prefix: str, count: int) -> list[str]:
    return [f"{prefix}-{n}" for n in range(count)]


async def _wait(condition_name: str, check: Callable[[], Awaitable[bool]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if await check():
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting until {condition_name}")
        await asyncio.sleep(_POLL_SECONDS)


async def _backlog_is(side: Side, expected: int, timeout: float) -> None:
    last: list[int] = []

    async def check() -> bool:
        last[:] = [await side.backlog()]
        return last[0] == expected

    try:
        await _wait(f"the backlog holds {expected} jobs", check, timeout)
    except RuntimeError as error:
        raise RuntimeError(f"{error} (it holds {last[0]})") from None


async def _enqueue(side: Side, count: int, bulk: bool) -> dict[str, object]:
    job_ids = _ids("w1", count)
    started = time.perf_counter()
    if bulk:
        for start in range(0, count, BULK):
            await side.enqueue_bulk(job_ids[start : start + BULK])
    else:
        for job_id in job_ids:
            await side.enqueue_one(job_id)
    await side.enqueued()
    seconds = time.perf_counter() - started
    await _backlog_is(side, count, _SETTLE_SECONDS)
    return {"seconds": seconds}


class _Worker:
    def __init__(self, side: Side) -> None:
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(
            [str(HERE), *filter(None, [environment.get("PYTHONPATH")])]
        )
        # A file, not a pipe: a worker that logs every job would fill a pipe nobody reads and stall.
        self._log = tempfile.TemporaryFile()
        self._process = subprocess.Popen(
            side.worker_command(),
            cwd=HERE,
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            start_new_session=True,
        )

    def check_alive(self) -> None:
        if self._process.poll() is not None:
            raise RuntimeError(f"the worker exited with {self._process.returncode}: {self._tail()}")

    def _tail(self) -> str:
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-2000:]

    def stop(self) -> None:
        if self._process.poll() is None:
            # SIGINT first: every worker here treats it as a warm shutdown, as Ctrl+C.
            for signal_number, seconds in (
                (signal.SIGINT, 10),
                (signal.SIGTERM, 10),
                (signal.SIGKILL, 10),
            ):
                os.killpg(self._process.pid, signal_number)
                try:
                    self._process.wait(timeout=seconds)
                    break
                except subprocess.TimeoutExpired:
                    continue
        else:
            # Only the group's leftovers (a forked job horse) can remain.
            try:
                os.killpg(self._process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._log.close()


async def _all_ran(job_ids: Sequence[str], worker: _Worker) -> None:
    client = _redis()

    async def check() -> bool:
        worker.check_alive()
        return client.hlen(STARTS) >= len(job_ids)

    await _wait(f"{len(job_ids)} jobs have run", check, _WAIT_SECONDS)


def _starts(job_ids: Sequence[str]) -> list[float]:
    client = _redis()
    values = client.hmget(STARTS, list(job_ids))
    missing = [job_id for job_id, value in zip(job_ids, values, strict=True) if value is None]
    if missing:
        raise RuntimeError(f"{len(missing)} jobs never ran, e.g. {missing[0]}")
    if client.hlen(STARTS) != len(job_ids):
        raise RuntimeError(f"{client.hlen(STARTS)} jobs ran where {len(job_ids)} were enqueued")
    duplicates = int(client.get(DUPLICATES) or 0)
    if duplicates:
        raise RuntimeError(f"{duplicates} jobs ran more than once")
    return [float(value) for value in values]


async def _drain(side: Side, count: int) -> dict[str, object]:
    job_ids = _ids("w2", count)
    for start in range(0, count, BULK):
        await side.enqueue_bulk(job_ids[start : start + BULK])
    await _backlog_is(side, count, _SETTLE_SECONDS)
    worker = _Worker(side)
    try:
        await _all_ran(job_ids, worker)
        await _backlog_is(side, 0, _SETTLE_SECONDS)
    finally:
        worker.stop()
    starts = _starts(job_ids)
    return {"seconds": max(starts) - min(starts)}


async def _latency(side: Side, count: int) -> dict[str, object]:
    worker = _Worker(side)
    try:
        # A first job proves the worker consumes; the pause after it leaves it idle, waiting.
        await side.enqueue_one("warm-up")
        await _all_ran(["warm-up"], worker)
        await asyncio.sleep(_IDLE_SECONDS)
        job_ids = _ids("w3", count)
        published: list[float] = []
        began = time.monotonic()
        for n, job_id in enumerate(job_ids):
            delay = began + n * SPACING - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            published.append(time.time())
            await side.enqueue_one(job_id)
        await _all_ran(["warm-up", *job_ids], worker)
        await _backlog_is(side, 0, _SETTLE_SECONDS)
    finally:
        worker.stop()
    starts = _starts(["warm-up", *job_ids])[1:]
    return {"latencies": [start - sent for start, sent in zip(starts, published, strict=True)]}


_ACTIONS = {
    "enqueue_one": lambda side, count: _enqueue(side, count, bulk=False),
    "enqueue_bulk": lambda side, count: _enqueue(side, count, bulk=True),
    "drain": _drain,
    "latency": _latency,
}


async def _main(side: Side, action: str, count: int) -> dict[str, object]:
    await side.open()
    try:
        return await _ACTIONS[action](side, count)
    finally:
        await side.close()


def main(side: Side, argv: Sequence[str] | None = None) -> None:
    """``ACTION COUNT`` from the command line: run it, print its JSON document on the last line."""
    action, count = (sys.argv[1:] if argv is None else argv)[:2]
    if action not in _ACTIONS:
        raise SystemExit(f"unknown action {action!r}; choose from {', '.join(_ACTIONS)}")
    result = asyncio.run(_main(side, action, int(count)))
    print(json.dumps(result), flush=True)
